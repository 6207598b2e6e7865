import Foundation

/// A prompt text (or system message) as a small Mustache subset, filled in per dataset item.
///
/// - `{{field}}` inserts the field's value (the empty string when the item has none);
/// - `{{#field}}…{{/field}}` keeps its inside only when the field is non-empty;
/// - `{{^field}}…{{/field}}` keeps its inside only when the field is empty.
///
/// Spaces inside the braces are allowed (`{{ context }}`), sections nest, and a section tag
/// alone on its line takes the whole line with it, as in Mustache, so sections can sit on
/// lines of their own without leaving blank lines behind. A value that is only whitespace
/// counts as empty for a section. Nothing is escaped: prompts are plain text. A text with no
/// `{{` is one literal part and renders byte for byte, so a prompt that uses no field is sent
/// exactly as written. The fields are `PromptFields`.
public struct PromptTemplate: Sendable, Hashable {
    /// A piece of a parsed template.
    public indirect enum Part: Sendable, Hashable {
        case text(String)
        case field(String)
        /// A section: its parts are kept when the field is non-empty, or empty when `inverted`.
        case section(String, inverted: Bool, parts: [Part])
    }

    /// The template as written.
    public let source: String
    public let parts: [Part]

    /// Parses `source`; a problem is thrown with the line it is on (1-based within `source`).
    public init(parsing source: String) throws(TemplateError) {
        self.source = source
        let utf8 = Array(source.utf8)
        let opensTag = utf8.indices.dropLast().contains { utf8[$0] == UInt8(ascii: "{") && utf8[$0 + 1] == UInt8(ascii: "{") }
        if opensTag {
            self.parts = try Parser(utf8).parse()
        } else {
            self.parts = source.isEmpty ? [] : [.text(source)]
        }
    }

    /// A template that is `text` itself, whatever braces it holds.
    public init(literal text: String) {
        source = text
        parts = text.isEmpty ? [] : [.text(text)]
    }

    /// Whether the template uses no field, so that every item gets `source` unchanged.
    public var isLiteral: Bool {
        parts.allSatisfy { if case .text = $0 { return true } else { return false } }
    }

    /// The text for one item.
    public func render(_ fields: PromptFields) -> String {
        if isLiteral { return source }
        var out = ""
        render(parts, fields, into: &out)
        return out
    }

    private func render(_ parts: [Part], _ fields: PromptFields, into out: inout String) {
        for part in parts {
            switch part {
            case .text(let text):
                out += text
            case .field(let name):
                out += fields[name] ?? ""
            case .section(let name, let inverted, let inner):
                let isEmpty = (fields[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
                if isEmpty == inverted { render(inner, fields, into: &out) }
            }
        }
    }
}

/// A problem in a prompt template, with its line within the template text.
public struct TemplateError: Error, Sendable, Hashable {
    /// 1-based, counted within the template text.
    public var line: Int
    public var problem: TemplateProblem

    public init(line: Int, problem: TemplateProblem) {
        self.line = line
        self.problem = problem
    }
}

/// What is wrong with a template; `description` says it and how to fix it.
public enum TemplateProblem: Sendable, Hashable, CustomStringConvertible {
    /// `tag` as written names no field; `suggestion` is the closest field, if any is close.
    case unknownField(name: String, tag: String, suggestion: String?)
    /// `tag` names a field that answers are judged against.
    case scoringField(name: String, tag: String)
    /// A `{{` with no `}}` after it on the same line.
    case unclosedTag
    /// `{{}}`, `{{ }}`, `{{#}}` and the like.
    case emptyTag(tag: String)
    /// Mustache tags outside the subset: comments, partials, unescaped output, delimiters.
    case unsupportedTag(tag: String)
    case unclosedSection(name: String, inverted: Bool)
    /// `{{/close}}` while the innermost open section is `open`.
    case mismatchedClose(open: String, inverted: Bool, close: String)
    /// `{{/name}}` with no section open.
    case strayClose(name: String)

    public var description: String {
        switch self {
        case .unknownField(_, let tag, let suggestion):
            let hint = suggestion.map { " Did you mean `{{\($0)}}`?" } ?? ""
            let fields = PromptFields.names.map { "\($0) (\(PromptFields.meanings[$0] ?? ""))" }
            return "`\(tag)` is not a field a prompt can use.\(hint) Fields: \(fields.joined(separator: ", "))."
        case .scoringField(let name, let tag):
            return "`\(tag)` uses the item's `\(name)`, which is what answers are judged against, so putting it in the prompt would leak the answer. Remove it; a prompt can use only what an app knows when the user taps describe: \(PromptFields.names.joined(separator: ", "))."
        case .unclosedTag:
            return "a tag opened with `{{` is never closed on its line. Close it with `}}`, e.g. `{{context}}` (a prompt cannot hold a literal `{{`)."
        case .emptyTag(let tag):
            return "`\(tag)` names no field. Write a field inside it, e.g. `{{context}}`, or remove it."
        case .unsupportedTag(let tag):
            return "`\(tag)` is not a tag prompts support. Use `{{field}}`, `{{#field}}…{{/field}}` (kept when the field is set) or `{{^field}}…{{/field}}` (kept when it is empty)."
        case .unclosedSection(let name, let inverted):
            return "the section `{{\(inverted ? "^" : "#")\(name)}}` is never closed. Add `{{/\(name)}}` where it should end."
        case .mismatchedClose(let open, let inverted, let close):
            return "`{{/\(close)}}` closes a section, but the section open here is `{{\(inverted ? "^" : "#")\(open)}}`. Close it first with `{{/\(open)}}`, or fix the name."
        case .strayClose(let name):
            return "`{{/\(name)}}` closes a section that is not open. Remove it, or open the section before it with `{{#\(name)}}` or `{{^\(name)}}`."
        }
    }
}

/// Reads a template's UTF-8 bytes: the delimiters are ASCII, so slicing between them keeps
/// every other byte (and every Unicode scalar) as it was.
private struct Parser {
    enum TagKind { case field, open, inverted, close }

    struct Tag {
        var kind: TagKind
        var name: String
        /// The tag's bytes, `{{` to `}}`.
        var range: Range<Int>
        /// What the tag takes out of the text: the whole line for a standalone section tag.
        var consumed: Range<Int>
    }

    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    private static let brace = UInt8(ascii: "{"), closingBrace = UInt8(ascii: "}")
    private static let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    func parse() throws(TemplateError) -> [PromptTemplate.Part] {
        let tags = try scan()
        // Build the tree: text between what the tags consume, sections from a stack.
        var stack: [(name: String, inverted: Bool, start: Int, parts: [PromptTemplate.Part])] = []
        var parts: [PromptTemplate.Part] = []
        func append(_ part: PromptTemplate.Part) {
            if stack.isEmpty { parts.append(part) } else { stack[stack.count - 1].parts.append(part) }
        }
        var position = 0
        for tag in tags {
            if tag.consumed.lowerBound > position { append(.text(text(position..<tag.consumed.lowerBound))) }
            position = tag.consumed.upperBound
            switch tag.kind {
            case .field:
                append(.field(tag.name))
            case .open, .inverted:
                stack.append((tag.name, tag.kind == .inverted, tag.range.lowerBound, []))
            case .close:
                guard let open = stack.popLast() else {
                    throw TemplateError(line: line(at: tag.range.lowerBound), problem: .strayClose(name: tag.name))
                }
                guard open.name == tag.name else {
                    throw TemplateError(
                        line: line(at: tag.range.lowerBound),
                        problem: .mismatchedClose(open: open.name, inverted: open.inverted, close: tag.name))
                }
                append(.section(open.name, inverted: open.inverted, parts: open.parts))
            }
        }
        if let open = stack.last {
            throw TemplateError(line: line(at: open.start), problem: .unclosedSection(name: open.name, inverted: open.inverted))
        }
        if position < bytes.count { append(.text(text(position..<bytes.count))) }
        return parts
    }

    /// Finds every tag, checks its name, and works out which section tags stand alone.
    private func scan() throws(TemplateError) -> [Tag] {
        var tags: [Tag] = []
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == Self.brace, bytes[index + 1] == Self.brace else {
                index += 1
                continue
            }
            let start = index
            // The tag ends at the first `}}` on its line; another `{{` before it means this one
            // was never closed.
            var end: Int?
            var cursor = start + 2
            while cursor + 1 < bytes.count, bytes[cursor] != Self.newline {
                if bytes[cursor] == Self.closingBrace, bytes[cursor + 1] == Self.closingBrace {
                    end = cursor + 2
                    break
                }
                if bytes[cursor] == Self.brace, bytes[cursor + 1] == Self.brace, cursor > start + 2 { break }
                cursor += 1
            }
            guard var end else { throw TemplateError(line: line(at: start), problem: .unclosedTag) }
            // `{{{name}}}` is one (unsupported) tag, not a tag followed by a brace.
            if bytes[start + 2] == Self.brace, end < bytes.count, bytes[end] == Self.closingBrace { end += 1 }
            let range = start..<end
            var tag = try classify(range)
            tag.consumed = standaloneLine(of: tag) ?? range
            tags.append(tag)
            index = end
        }
        return tags
    }

    private func classify(_ range: Range<Int>) throws(TemplateError) -> Tag {
        let written = text(range)
        let line = line(at: range.lowerBound)
        let inner = text(range.lowerBound + 2..<range.upperBound - 2).trimmingCharacters(in: .whitespaces)
        guard let sigil = inner.first else { throw TemplateError(line: line, problem: .emptyTag(tag: written)) }
        let kind: TagKind
        switch sigil {
        case "#": kind = .open
        case "^": kind = .inverted
        case "/": kind = .close
        case "!", ">", "<", "&", "{", "=", "$", "%":
            throw TemplateError(line: line, problem: .unsupportedTag(tag: written))
        default: kind = .field
        }
        let name = kind == .field ? inner : String(inner.dropFirst()).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { throw TemplateError(line: line, problem: .emptyTag(tag: written)) }
        // A closing tag is checked against the section it closes instead.
        if kind != .close, !PromptFields.names.contains(name) {
            if PromptFields.scoringNames.contains(name) {
                throw TemplateError(line: line, problem: .scoringField(name: name, tag: written))
            }
            let suggestion = YAMLDiagnostics.closest(to: name, in: PromptFields.names)
            throw TemplateError(line: line, problem: .unknownField(name: name, tag: written, suggestion: suggestion))
        }
        return Tag(kind: kind, name: name, range: range, consumed: range)
    }

    /// For a section tag that is the only thing on its line besides spaces and tabs, the whole
    /// line with its line break (Mustache's "standalone" rule); `nil` otherwise.
    private func standaloneLine(of tag: Tag) -> Range<Int>? {
        guard tag.kind != .field else { return nil }
        var start = tag.range.lowerBound
        while start > 0, bytes[start - 1] == Self.space || bytes[start - 1] == Self.tab { start -= 1 }
        guard start == 0 || bytes[start - 1] == Self.newline else { return nil }
        var end = tag.range.upperBound
        while end < bytes.count, bytes[end] == Self.space || bytes[end] == Self.tab { end += 1 }
        if end == bytes.count { return start..<end }
        if bytes[end] == Self.newline { return start..<(end + 1) }
        if bytes[end] == Self.carriageReturn, end + 1 < bytes.count, bytes[end + 1] == Self.newline {
            return start..<(end + 2)
        }
        return nil
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// The 1-based line of a byte offset.
    private func line(at offset: Int) -> Int {
        1 + bytes[..<offset].reduce(0) { $1 == Self.newline ? $0 + 1 : $0 }
    }
}
