import Foundation

/// Published texts labelled by hand for the detectors, read from JSON Lines
/// (`Tests/Corpus/detectors.jsonl`; its format and labelling rules: `Tests/Corpus/LABELLING.md`).
///
/// Each line is one text as published (a model's answer or a person's alt text) with its
/// language, its author, where it comes from, and the detectors that should flag it. The
/// validity benchmark (``DetectorValidity``) scores every text and compares.
package struct DetectorCorpus: Sendable {
    /// One labelled text.
    package struct Entry: Sendable, Hashable {
        package var id: String
        package var text: String
        /// BCP-47 primary language: "en", "ja", "zh", …
        package var lang: String
        /// "model" or "human".
        package var kind: String
        package var author: String
        /// The group a source belongs to (a repository, a thread, a site), for counting sources.
        package var origin: String
        /// Where exactly the text was published.
        package var source: String
        /// The labels (``DetectorCorpus/labels``) the text should be flagged with.
        package var labels: Set<String>
        /// The finish reason, when the source published one.
        package var finishReason: String?
        /// 1-based line in the file.
        package var line: Int
    }

    /// The labels a text can carry, each read by one or more detectors (``detectors``).
    package static let labels = [
        "first_person", "picture_talk", "redundant_prefix", "meta_label", "refusal", "truncated", "markdown",
    ]

    /// The detectors whose flag answers each label: picture talk is flagged by either
    /// `perception_meta` (anywhere) or `redundant_prefix` (the opening), which split one habit
    /// so that it is not counted twice.
    package static let detectors: [String: [String]] = [
        "first_person": [ScoreName.firstPerson],
        "picture_talk": [ScoreName.perceptionMeta, ScoreName.redundantPrefix],
        "redundant_prefix": [ScoreName.redundantPrefix],
        "meta_label": [ScoreName.metaLabel],
        "refusal": [ScoreName.refusal],
        "truncated": [ScoreName.truncated],
        "markdown": [ScoreName.markdown],
    ]

    /// Where the corpus was read from, as named in messages.
    package var displayPath: String
    package var entries: [Entry]

    package init(displayPath: String, entries: [Entry]) {
        self.displayPath = displayPath
        self.entries = entries
    }

    /// A line that cannot be used, named by file and line with what to fix.
    package struct LoadError: Error, CustomStringConvertible, Equatable {
        package var file: String
        package var line: Int?
        package var message: String

        package var description: String {
            "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
        }
    }

    /// Reads a JSON Lines corpus; blank lines are skipped.
    package static func load(from url: URL, displayPath: String) throws -> DetectorCorpus {
        guard let data = try? Data(contentsOf: url) else {
            throw LoadError(file: displayPath, line: nil, message: "cannot be read. Check the path.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw LoadError(file: displayPath, line: nil, message: "is not UTF-8 text. Save it as UTF-8.")
        }
        return try parse(text, displayPath: displayPath)
    }

    /// Parses the text of a JSON Lines corpus.
    package static func parse(_ text: String, displayPath: String) throws -> DetectorCorpus {
        var entries: [Entry] = []
        var seen: [String: Int] = [:]
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard line.contains(where: { !$0.isWhitespace }) else { continue }
            let entry = try parseLine(String(line), number: number, displayPath: displayPath)
            if let first = seen[entry.id] {
                throw LoadError(
                    file: displayPath, line: number,
                    message: "id \"\(entry.id)\" is already used on line \(first). Give each text its own id.")
            }
            seen[entry.id] = number
            entries.append(entry)
        }
        guard !entries.isEmpty else {
            throw LoadError(file: displayPath, line: nil, message: "holds no texts. Add one JSON object per line.")
        }
        return DetectorCorpus(displayPath: displayPath, entries: entries)
    }

    private static func parseLine(_ line: String, number: Int, displayPath: String) throws -> Entry {
        func fail(_ message: String) -> LoadError { LoadError(file: displayPath, line: number, message: message) }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw fail("is not a JSON object. Write one object per line.")
        }
        func string(_ key: String, required: Bool = true) throws -> String? {
            switch object[key] {
            case let value as String where !value.isEmpty || key == "text": return value
            case nil, is NSNull:
                if required { throw fail("has no \"\(key)\". Every text needs id, text, lang, kind, author, origin, source and labels.") }
                return nil
            default: throw fail("\"\(key)\" must be a non-empty string.")
            }
        }
        let id = try string("id")!
        let (text, lang, author) = (try string("text")!, try string("lang")!, try string("author")!)
        let (origin, source) = (try string("origin")!, try string("source")!)
        guard let labels = object["labels"] as? [String] else {
            throw fail("\"labels\" must be a list of label names (empty for a text no detector should flag).")
        }
        if let unknown = labels.first(where: { !Self.labels.contains($0) }) {
            throw fail("text \"\(id)\" has the unknown label \"\(unknown)\". Use: \(Self.labels.joined(separator: ", ")).")
        }
        let kind = try string("kind")!
        guard kind == "model" || kind == "human" else {
            throw fail("text \"\(id)\": \"kind\" must be \"model\" or \"human\", not \"\(kind)\".")
        }
        return Entry(
            id: id, text: text, lang: lang, kind: kind, author: author, origin: origin, source: source, labels: Set(labels),
            finishReason: try string("finish_reason", required: false), line: number)
    }

    /// How many texts come from each origin, most first.
    package var originCounts: [(origin: String, count: Int)] {
        Dictionary(grouping: entries, by: \.origin).map { ($0.key, $0.value.count) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.origin < $1.origin }
    }

    /// How many texts each language has, most first.
    package var languageCounts: [(lang: String, count: Int)] {
        Dictionary(grouping: entries, by: \.lang).map { ($0.key, $0.value.count) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.lang < $1.lang }
    }
}
