import Foundation

/// A vision judge's grades for one alt text: three counts from 1 (wrong or unusable) to 5 (no
/// problem), and the concrete mistakes it found.
public struct JudgeVerdict: Sendable, Hashable, Codable {
    /// Nothing said that the image does not show; names, numbers and text read correctly.
    public var accuracy: Int
    /// What a blind reader of the post needs, visible text included.
    public var completeness: Int
    /// No filler, no repeating the post, fit for the platform.
    public var concision: Int
    /// Each mistake as one short sentence, cleaned (``JudgeVerdict/cleanError(_:)``).
    public var errors: [String]

    /// The grades' range.
    public static let scale = 1...5
    /// The most errors a verdict keeps.
    public static let maxErrors = 10
    /// The most characters an error keeps.
    public static let maxErrorLength = 200

    public init(accuracy: Int, completeness: Int, concision: Int, errors: [String] = []) {
        self.accuracy = accuracy
        self.completeness = completeness
        self.concision = concision
        self.errors = errors
    }

    /// The verdict as compact JSON with sorted keys, the shape the judge is asked for: what a
    /// mock server answers with, and what tests compare.
    public var json: String {
        JSONValue.object([
            "accuracy": .int(accuracy),
            "completeness": .int(completeness),
            "concision": .int(concision),
            "errors": .array(errors.map { .string($0) }),
        ]).canonicalText
    }

    /// The verdict as scores: `judge_accuracy`, `judge_completeness` and `judge_concision`,
    /// each (grade - 1) / 4 so that 1 is 0 and 5 is 1 (clamped to 0...1 for a grade out of
    /// range), with no pass/fail reading. `judge_accuracy`'s detail holds the errors joined
    /// with "; ", since most of a judge's errors are about what the alt text gets wrong.
    public func scores() -> [Score] {
        func value(_ grade: Int) -> Double { min(1, max(0, Double(grade - 1) / 4)) }
        return [
            Score(
                name: ScoreName.judgeAccuracy, value: value(accuracy),
                detail: errors.isEmpty ? nil : errors.joined(separator: "; ")),
            Score(name: ScoreName.judgeCompleteness, value: value(completeness)),
            Score(name: ScoreName.judgeConcision, value: value(concision)),
        ]
    }
}

/// Why a judge's answer gave no verdict. Messages are short sentences for a report's list of
/// failed judgements; quoted text is cut short and stripped of control characters, but is the
/// judge's own (untrusted): a report escapes it for where it goes.
public enum JudgeVerdictError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The judge answered through the `refusal` field.
    case refused(excerpt: String)
    /// No content, or only whitespace.
    case empty
    /// Content with no JSON object in it.
    case noVerdict(excerpt: String)
    /// A required grade is absent or null.
    case missingField(String)
    /// A grade that is not a number: `value` as the judge wrote it.
    case notANumber(field: String, value: String)
    /// A grade with a fraction, such as 3.5.
    case notWhole(field: String, value: String)
    /// A grade outside 1...5.
    case outOfRange(field: String, value: String)
    /// `errors` of a kind that cannot hold text (a number, a boolean).
    case badErrors(value: String)

    public var description: String {
        switch self {
        case .refused(let excerpt):
            return "the judge refused: \"\(excerpt)\""
        case .empty:
            return "the judge's answer is empty."
        case .noVerdict(let excerpt):
            return "the judge's answer has no JSON object: \"\(excerpt)\""
        case .missingField(let field):
            return "the judge's verdict has no \(field) grade."
        case .notANumber(let field, let value):
            return "the judge gave \(field) \(value), not a number from 1 to 5."
        case .notWhole(let field, let value):
            return "the judge gave \(field) \(value), not a whole number from 1 to 5."
        case .outOfRange(let field, let value):
            return "the judge gave \(field) \(value), outside 1 to 5."
        case .badErrors(let value):
            return "the judge's errors are \(value), not a list of sentences."
        }
    }
}

extension JudgeVerdict {
    /// Reads a judge's answer, leniently, because judges without structured output wrap
    /// their JSON in prose and fences and write numbers in many ways.
    ///
    /// - The JSON object may be the whole answer, inside a ``` or ```json fence, or the first
    ///   balanced `{...}` inside prose that parses as JSON (braces inside strings do not count).
    ///   An object holding none of the grades, with one member that does, is unwrapped
    ///   (`{"verdict": {...}}`).
    /// - Keys match in any case. A grade may be 4, 4.0, "4" or "4/5"; 3.5 is an error rather
    ///   than a guess, and so is a grade outside 1...5 or a missing one.
    /// - `errors` may be an array of strings, an array of objects with a description, error,
    ///   text or message field, one string, or absent or null (no errors). Each is cleaned
    ///   (``cleanError(_:)``); entries that only say there is none ("none", "N/A") are
    ///   dropped; at most ``maxErrors`` are kept.
    /// - A `refusal`, an empty answer and an answer with no JSON object are errors.
    public static func parse(content: String?, refusal: String?) -> Result<JudgeVerdict, JudgeVerdictError> {
        if let refusal, !refusal.allSatisfy(\.isWhitespace) {
            return .failure(.refused(excerpt: excerpt(refusal)))
        }
        guard let content, !content.allSatisfy(\.isWhitespace) else { return .failure(.empty) }
        guard let object = VerdictJSON.firstObject(in: content) else {
            return .failure(.noVerdict(excerpt: excerpt(content)))
        }
        return verdict(from: object)
    }

    /// The grade names, in the order errors are reported.
    static let gradeFields = ["accuracy", "completeness", "concision"]

    /// A verdict from a parsed JSON object.
    static func verdict(from object: [String: JSONValue]) -> Result<JudgeVerdict, JudgeVerdictError> {
        var fields = lowercasedKeys(object)
        if !gradeFields.contains(where: { fields[$0] != nil }) {
            let nested = fields.values.compactMap(\.objectValue).map(lowercasedKeys).filter {
                inner in gradeFields.contains { inner[$0] != nil }
            }
            if nested.count == 1 { fields = nested[0] }
        }
        var grades: [Int] = []
        for field in gradeFields {
            switch grade(fields[field], field: field) {
            case .success(let value): grades.append(value)
            case .failure(let error): return .failure(error)
            }
        }
        switch errorList(fields["errors"]) {
        case .success(let errors):
            return .success(JudgeVerdict(accuracy: grades[0], completeness: grades[1], concision: grades[2], errors: errors))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// The keys lowercased and trimmed; of two keys that differ only in case, the one sorting
    /// first wins, so the result never depends on dictionary order.
    private static func lowercasedKeys(_ object: [String: JSONValue]) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for key in object.keys.sorted() {
            let lowered = key.trimmingCharacters(in: .whitespaces).lowercased()
            if result[lowered] == nil { result[lowered] = object[key] }
        }
        return result
    }

    /// One grade: an integer 1...5 from a number or a numeric string ("4", "4.0", "4/5",
    /// "4 out of 5").
    static func grade(_ value: JSONValue?, field: String) -> Result<Int, JudgeVerdictError> {
        let number: Double
        switch value {
        case nil, .null?:
            return .failure(.missingField(field))
        case .int(let n)?:
            number = Double(n)
        case .double(let d)?:
            number = d
        case .string(let text)?:
            guard let parsed = numberInText(text) else {
                return .failure(.notANumber(field: field, value: "\"\(excerpt(text, limit: 20))\""))
            }
            number = parsed
        case let other?:
            return .failure(.notANumber(field: field, value: excerpt(other.canonicalText, limit: 20)))
        }
        let shown = JSONValue.double(number).canonicalText
        guard number.isFinite, number.rounded() == number else {
            return .failure(.notWhole(field: field, value: shown))
        }
        guard number >= Double(scale.lowerBound), number <= Double(scale.upperBound) else {
            return .failure(.outOfRange(field: field, value: shown))
        }
        return .success(Int(number))
    }

    /// The number a grade string holds: "4", " 4.0 ", "-1", "4/5", "4 / 5", "4 out of 5";
    /// `nil` for anything else ("four", "4/10", "3-4").
    static func numberInText(_ text: String) -> Double? {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        for suffix in ["out of 5", "/5", "/ 5"] where body.hasSuffix(suffix) {
            body = String(body.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            break
        }
        let allowed = Set("0123456789.-+")
        guard !body.isEmpty, body.allSatisfy(allowed.contains), let number = Double(body) else { return nil }
        return number
    }

    /// The fields an error object's text may be under, in the order tried.
    static let errorTextFields = ["description", "error", "text", "message", "issue", "detail"]

    /// Entries that say there is no error, dropped.
    static let noErrorEntries: Set<String> = ["none", "n/a", "na", "no errors", "no errors.", "-", "null"]

    /// The errors, cleaned, from any of the shapes ``parse(content:refusal:)`` accepts.
    static func errorList(_ value: JSONValue?) -> Result<[String], JudgeVerdictError> {
        let raw: [String]
        switch value {
        case nil, .null?:
            raw = []
        case .string(let text)?:
            raw = [text]
        case .array(let items)?:
            raw = items.compactMap(errorText)
        case .object?:
            raw = value.flatMap(errorText).map { [$0] } ?? []
        case let other?:
            return .failure(.badErrors(value: excerpt(other.canonicalText, limit: 20)))
        }
        let cleaned = raw.map(cleanError).filter { !$0.isEmpty && !noErrorEntries.contains($0.lowercased()) }
        return .success(Array(cleaned.prefix(maxErrors)))
    }

    /// An error's text: a string, or an object's text-like field; numbers are written out.
    private static func errorText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text):
            return text
        case .int, .double:
            return value.canonicalText
        case .object(let object):
            let fields = lowercasedKeys(object)
            return errorTextFields.lazy.compactMap { fields[$0]?.stringValue }.first
        default:
            return nil
        }
    }

    /// An error made fit for a report line: control characters and line breaks become spaces,
    /// runs of spaces one space, trimmed, and at most ``maxErrorLength`` characters (the last
    /// an ellipsis when cut).
    public static func cleanError(_ text: String) -> String {
        oneLine(text, limit: maxErrorLength)
    }

    /// `text` on one line and cut to `limit` characters, for quoting in an error.
    static func excerpt(_ text: String, limit: Int = 60) -> String {
        oneLine(text, limit: limit)
    }

    private static func oneLine(_ text: String, limit: Int) -> String {
        var out = ""
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            let isBreak =
                properties.generalCategory == .control || properties.generalCategory == .lineSeparator
                || properties.generalCategory == .paragraphSeparator || properties.isWhitespace
            if isBreak {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.unicodeScalars.append(" ")
                pendingSpace = false
            }
            out.unicodeScalars.append(scalar)
        }
        guard out.count > limit else { return out }
        var cut = String(out.prefix(limit - 1))
        while let last = cut.last, last.isWhitespace { cut.removeLast() }
        return cut + "…"
    }
}

/// Finds the verdict's JSON object in a judge's answer.
enum VerdictJSON {
    /// The first JSON object in `text`: objects inside ``` fences first, then anywhere.
    /// Among candidates, the first holding one of the grades wins; failing that, the first
    /// that parses at all.
    static func firstObject(in text: String) -> [String: JSONValue]? {
        let scalars = Array(text.unicodeScalars)
        var candidates = fencedBlocks(scalars).flatMap(balancedObjects)
        candidates += balancedObjects(scalars[...])
        var firstParsed: [String: JSONValue]?
        for candidate in candidates {
            guard let object = try? JSONValue.parse(Data(String(String.UnicodeScalarView(candidate)).utf8)).objectValue
            else { continue }
            let keys = Set(object.keys.map { $0.lowercased() })
            if JudgeVerdict.gradeFields.contains(where: keys.contains) { return object }
            if object.values.contains(where: { value in
                value.objectValue.map { inner in
                    inner.keys.contains { JudgeVerdict.gradeFields.contains($0.lowercased()) }
                } ?? false
            }) {
                return object
            }
            if firstParsed == nil { firstParsed = object }
        }
        return firstParsed
    }

    /// The insides of ``` fences (the language tag after the opening fence dropped).
    static func fencedBlocks(_ scalars: [Unicode.Scalar]) -> [ArraySlice<Unicode.Scalar>] {
        var blocks: [ArraySlice<Unicode.Scalar>] = []
        var i = 0
        func fence(at index: Int) -> Bool {
            index + 2 < scalars.count && scalars[index] == "`" && scalars[index + 1] == "`" && scalars[index + 2] == "`"
        }
        while i < scalars.count {
            guard fence(at: i) else {
                i += 1
                continue
            }
            var start = i + 3
            while start < scalars.count, scalars[start] != "\n", scalars[start] != "{" { start += 1 }
            var end = start
            while end < scalars.count, !fence(at: end) { end += 1 }
            blocks.append(scalars[min(start, scalars.count)..<end])
            i = end + 3
        }
        return blocks
    }

    /// Every balanced `{...}` span not nested in another, in order. Quotes are tracked only
    /// inside a span, so apostrophes and quotes in the prose around it do not matter; a
    /// backslash escapes the next character inside a string.
    static func balancedObjects(_ scalars: ArraySlice<Unicode.Scalar>) -> [ArraySlice<Unicode.Scalar>] {
        var spans: [ArraySlice<Unicode.Scalar>] = []
        var index = scalars.startIndex
        while index < scalars.endIndex {
            guard scalars[index] == "{" else {
                index += 1
                continue
            }
            var depth = 0
            var inString = false
            var escaped = false
            var end: Int?
            var j = index
            scan: while j < scalars.endIndex {
                let s = scalars[j]
                if inString {
                    if escaped {
                        escaped = false
                    } else if s == "\\" {
                        escaped = true
                    } else if s == "\"" {
                        inString = false
                    }
                } else if s == "\"" {
                    inString = true
                } else if s == "{" {
                    depth += 1
                } else if s == "}" {
                    depth -= 1
                    if depth == 0 {
                        end = j
                        break scan
                    }
                }
                j += 1
            }
            if let end {
                spans.append(scalars[index...end])
                index = end + 1
            } else {
                // Unbalanced from here: try the next brace.
                index += 1
            }
        }
        return spans
    }
}
