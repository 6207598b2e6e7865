import Foundation

/// Removes secrets from text before it reaches SQLite, a report, a log line or an error.
///
/// It replaces the configured secrets verbatim and anything shaped like an OpenAI key
/// (`sk-...` starting a word, including the partly masked form OpenAI echoes in its 401
/// message).
package struct Redactor: Sendable {
    package static let placeholder = "[redacted]"
    private let secrets: [String]

    package init(secrets: [String?]) {
        // Very short strings would blank out ordinary words; no real key is that short.
        self.secrets = secrets.compactMap { $0 }.filter { $0.count >= 4 }
    }

    package func redact(_ text: String) -> String {
        var result = text
        // Every stored text passes here (a trial's answer, body and scores' details): the
        // standard library's search, and a replacement only where a secret is.
        for secret in secrets where result.contains(secret) {
            result = result.replacing(secret, with: Self.placeholder)
        }
        return Self.redactKeyShapes(result)
    }

    package func redactIfPresent(_ text: String?) -> String? {
        text.map { redact($0) }
    }

    /// `sk-` at the start of a word, then the key's characters. The captured character before
    /// it is kept: without that check, words such as "desk-mounted" or "risk-assessment" in
    /// an answer would be cut to "de[redacted]".
    nonisolated(unsafe) private static let keyShape = try! Regex(
        #"(^|[^\p{L}\p{N}])sk-[A-Za-z0-9_*\-]{6,}"#, as: (Substring, Substring).self)

    static func redactKeyShapes(_ text: String) -> String {
        guard text.contains("sk-") else { return text }
        return text.replacing(keyShape) { match in match.output.1 + placeholder }
    }
}
