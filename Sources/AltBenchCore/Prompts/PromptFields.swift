import Foundation

/// What a prompt template may use about an item: what a client app knows when the user taps
/// "describe", and nothing the answers are judged against.
///
/// `context` is the post text, `lang` the post's language code as the dataset gives it (e.g.
/// `fr`), `language` that language's English name ("French"). A value the item does not have
/// is the empty string.
public struct PromptFields: Sendable, Hashable {
    /// The fields a template may name, in the order messages list them.
    public static let names: [String] = ["context", "lang", "language"]
    /// What each field holds, for messages and documentation.
    public static let meanings: [String: String] = [
        "context": "the post text",
        "lang": "the post's language code",
        "language": "that language's English name",
    ]
    /// Dataset fields that answers are scored against (or that name the item): a prompt that
    /// used one would hand the model the answer, so naming one is an error of its own.
    public static let scoringNames: [String] = ["references", "expected_text", "must_mention", "tags", "id", "decorative"]

    public var context: String
    public var lang: String
    public var language: String

    /// Fields with the given values; `language` defaults to the English name of `lang`.
    public init(context: String = "", lang: String = "", language: String? = nil) {
        self.context = context
        self.lang = lang
        self.language = language ?? Self.languageName(for: lang)
    }

    /// The fields of one dataset item.
    public init(item: DatasetItem) {
        self.init(context: item.context ?? "", lang: item.lang ?? "")
    }

    /// The value of a field, `nil` for a name that is not a field.
    public subscript(name: String) -> String? {
        switch name {
        case "context": return context
        case "lang": return lang
        case "language": return language
        default: return nil
        }
    }

    /// The English name of a language code ("fr" → "French", "pt-BR" → "Portuguese"); the code
    /// itself when Foundation knows no name for it, and "" for no code.
    public static func languageName(for code: String) -> String {
        let code = code.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !code.isEmpty else { return "" }
        return Locale(identifier: "en").localizedString(forLanguageCode: code) ?? code
    }
}
