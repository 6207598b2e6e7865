import Foundation

/// Alt texts written elsewhere (by people, or by another tool), read for `altbench score`.
///
/// JSONL (one object per line) or CSV (a header row, then one row per answer). Fields:
/// - `id` (required): the item; with `--dataset`, the dataset item whose references, context,
///   expected text and must-mention terms the answer is judged against.
/// - `text`: the alt text; `null` or missing is an empty answer.
/// - `references`, `finish_reason`, `context`, `expected_text`, `must_mention`, `refusal`,
///   `lang`: as in a dataset manifest and a model answer; given here, they win over the dataset's.
/// - `variant`: an optional group name ("human", "tool-x"), so one file can hold several
///   sources of alt text and the tables compare them; default: the file's name.
///
/// Unknown fields are ignored. In CSV, list fields (`references`, `must_mention`) are a JSON
/// array (`["a", "b"]`) or one plain value; `references` may also be spread over columns
/// named `reference`, `reference_2`, `reference 3`, ...
public struct AnswerFile: Sendable {
    /// One answer to score.
    public struct Entry: Sendable, Hashable {
        public var id: String
        public var variant: String
        public var text: String?
        public var refusal: String?
        public var finishReason: String?
        /// Fields the file gave; `nil` leaves them to the dataset.
        public var references: [String]?
        public var context: String?
        public var expectedText: String?
        public var mustMention: [String]?
        /// The answer's language (BCP-47), which the language-dependent rules read.
        public var lang: String?
        /// Where the entry is in the file (1-based line).
        public var line: Int

        public init(
            id: String, variant: String, text: String?, refusal: String? = nil, finishReason: String? = nil,
            references: [String]? = nil, context: String? = nil, expectedText: String? = nil,
            mustMention: [String]? = nil, lang: String? = nil, line: Int
        ) {
            self.id = id
            self.variant = variant
            self.text = text
            self.refusal = refusal
            self.finishReason = finishReason
            self.references = references
            self.context = context
            self.expectedText = expectedText
            self.mustMention = mustMention
            self.lang = lang
            self.line = line
        }

        /// The item as scored: the file's fields, then the dataset's for what the file left out.
        public func scoringItem(dataset: DatasetItem?) -> ScoringItem {
            ScoringItem(
                id: id, references: references ?? dataset?.references ?? [],
                context: context ?? dataset?.context, expectedText: expectedText ?? dataset?.expectedText,
                mustMention: mustMention ?? dataset?.mustMention ?? [], lang: lang ?? dataset?.lang)
        }
    }

    public enum Format: String, Sendable {
        case jsonl, csv
    }

    /// How the file is named in messages.
    public var displayPath: String
    public var format: Format
    public var entries: [Entry]

    /// Reads `url`; the format comes from the extension (.csv; .jsonl, .ndjson, .json), else
    /// from the first character (`{` is JSONL).
    public static func load(from url: URL, displayPath: String) throws -> AnswerFile {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw AltBenchError.answerFile(
                file: displayPath, line: nil, message: "cannot be read. Check the path; it must be a JSONL or CSV file.")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw AltBenchError.answerFile(file: displayPath, line: nil, message: "is not UTF-8 text. Save it as UTF-8.")
        }
        return try parse(text, displayPath: displayPath, fileName: url.lastPathComponent)
    }

    public static func parse(_ text: String, displayPath: String, fileName: String) throws -> AnswerFile {
        let lower = fileName.lowercased()
        let stem = fileName.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? fileName
        let variant = stem.isEmpty ? "answers" : stem
        let format: Format
        if lower.hasSuffix(".csv") {
            format = .csv
        } else if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") || lower.hasSuffix(".json") {
            format = .jsonl
        } else {
            format = text.first(where: { !$0.isWhitespace }) == "{" ? .jsonl : .csv
        }
        let entries = format == .jsonl
            ? try jsonLines(text, file: displayPath, variant: variant)
            : try csvRows(text, file: displayPath, variant: variant)
        guard !entries.isEmpty else {
            throw AltBenchError.answerFile(
                file: displayPath, line: nil,
                message: "holds no answers. Give one per line: {\"id\": \"cat\", \"text\": \"A tabby cat asleep.\"} (JSONL), or a CSV with an `id,text` header.")
        }
        var seen: [String: Int] = [:]
        for entry in entries {
            let key = entry.variant + "\u{0}" + entry.id
            if let first = seen[key] {
                throw AltBenchError.answerFile(
                    file: displayPath, line: entry.line,
                    message: "id '\(entry.id)' appears again in variant '\(entry.variant)' (first on line \(first)). Give each answer its own id, or a `variant` to tell them apart.")
            }
            seen[key] = entry.line
        }
        return AnswerFile(displayPath: displayPath, format: format, entries: entries)
    }

    // MARK: - JSONL

    static func jsonLines(_ text: String, file: String, variant: String) throws -> [Entry] {
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let body = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r\u{FEFF}")))
            if body.isEmpty { continue }
            func fail(_ message: String) -> AltBenchError {
                .answerFile(file: file, line: line, message: message)
            }
            guard let value = try? JSONValue.parse(Data(body.utf8)), let object = value.objectValue else {
                throw fail("not a JSON object. Each line must be one object, e.g. {\"id\": \"cat\", \"text\": \"A tabby cat asleep.\"}.")
            }
            func string(_ key: String) throws -> String? {
                switch object[key] {
                case nil, .null?: return nil
                case .string(let text)?: return text
                default: throw fail("`\(key)` must be a string.")
                }
            }
            func strings(_ key: String) throws -> [String]? {
                switch object[key] {
                case nil, .null?: return nil
                case .string(let text)?: return [text]
                case .array(let values)?:
                    let texts = values.compactMap(\.stringValue)
                    guard texts.count == values.count else { throw fail("`\(key)` must be a list of strings.") }
                    return texts
                default: throw fail("`\(key)` must be a list of strings.")
                }
            }
            let id: String
            switch object["id"] {
            case .string(let text)? where !text.trimmingCharacters(in: .whitespaces).isEmpty: id = text
            case .int(let number)?: id = String(number)
            default: throw fail("needs an `id` (a string or a whole number) naming the item.")
            }
            entries.append(Entry(
                id: id, variant: try string("variant") ?? variant, text: try string("text"),
                refusal: try string("refusal"), finishReason: try string("finish_reason"),
                references: try strings("references"), context: try string("context"),
                expectedText: try string("expected_text"), mustMention: try strings("must_mention"),
                lang: try string("lang"), line: line))
        }
        return entries
    }

    // MARK: - CSV

    static func csvRows(_ text: String, file: String, variant: String) throws -> [Entry] {
        let records: [CSV.Record]
        do {
            records = try CSV.records(text)
        } catch .unclosedQuote(let line) {
            throw AltBenchError.answerFile(
                file: file, line: line, message: "a quoted field is never closed. End it with \", and write a quote inside it as \"\".")
        } catch .strayQuote(let line) {
            throw AltBenchError.answerFile(
                file: file, line: line, message: "a quote in the middle of a field. Quote the whole field, and write a quote inside it as \"\".")
        }
        guard let header = records.first else { return [] }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let idColumn = names.firstIndex(of: "id") else {
            throw AltBenchError.answerFile(
                file: file, line: header.line,
                message: "the header row has no `id` column (it has: \(names.joined(separator: ", "))). The first row must name the columns, e.g. id,text,references.")
        }
        func column(_ name: String) -> Int? { names.firstIndex(of: name) }
        let referenceColumns = names.indices.filter { index in
            let name = names[index]
            guard name.hasPrefix("reference"), name != "references" else { return false }
            let rest = name.dropFirst("reference".count).drop { $0 == "_" || $0 == " " || $0 == "-" }
            return rest.allSatisfy(\.isNumber)
        }
        var entries: [Entry] = []
        for record in records.dropFirst() {
            func fail(_ message: String) -> AltBenchError {
                .answerFile(file: file, line: record.line, message: message)
            }
            guard record.fields.count <= names.count else {
                throw fail("\(record.fields.count) fields, but the header names \(names.count) columns. Quote a field that holds a comma.")
            }
            func cell(_ index: Int?) -> String? {
                guard let index, index < record.fields.count else { return nil }
                let value = record.fields[index]
                return value.isEmpty ? nil : value
            }
            func list(_ index: Int?) throws -> [String]? {
                guard let raw = cell(index) else { return nil }
                let trimmed = raw.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("[") else { return [raw] }
                guard let values = (try? JSONValue.parse(Data(trimmed.utf8)))?.arrayValue,
                    case let texts = values.compactMap(\.stringValue), texts.count == values.count
                else {
                    throw fail("`\(names[index!])` starts with [ but is not a JSON list of strings, e.g. [\"\"a cat\"\", \"\"a dog\"\"].")
                }
                return texts
            }
            guard let id = cell(idColumn)?.trimmingCharacters(in: .whitespaces), !id.isEmpty else {
                throw fail("the `id` is empty. Give every row the id of its item.")
            }
            var references = try list(column("references"))
            let spread = referenceColumns.compactMap { cell($0) }
            if !spread.isEmpty { references = (references ?? []) + spread }
            entries.append(Entry(
                id: id, variant: cell(column("variant")) ?? variant, text: cell(column("text")),
                refusal: cell(column("refusal")), finishReason: cell(column("finish_reason")), references: references,
                context: cell(column("context")), expectedText: cell(column("expected_text")),
                mustMention: try list(column("must_mention")), lang: cell(column("lang")), line: record.line))
        }
        return entries
    }
}
