import Foundation
import Yams

/// Reads `prompts/*.md`: optional YAML front matter between `---` lines, then the prompt.
///
/// The prompt text is used byte for byte, except for the file's one final newline (editors
/// add it; nobody means it as part of the prompt). The text and the `system` message may be
/// templates (`PromptTemplate`); they are checked here, so a template problem stops the run
/// before any request. Any problem is fatal and names the file and line, so that a run never
/// starts with a prompt the user did not intend.
public struct PromptLoader: Sendable {
    /// Front matter keys a prompt may set.
    public static let knownKeys: [String] = [
        "name", "model", "max_tokens", "detail", "temperature", "system", "description",
    ]

    public init() {}

    /// Loads every `*.md` file in `directory`, sorted by file name.
    public func load(directory: URL, displayPath: String? = nil) throws -> [PromptVariant] {
        let shown = displayPath ?? directory.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw AltBenchError.promptsFolderMissing(path: shown) }

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".md") && !$0.hasPrefix(".") && $0.uppercased() != "README.MD" }
            .sorted()
        guard !names.isEmpty else { throw AltBenchError.noPrompts(path: shown) }

        let variants = try names.map { name in
            let url = directory.appendingPathComponent(name)
            let data = try Data(contentsOf: url)
            return try parse(data: data, file: shown.hasSuffix("/") ? shown + name : shown + "/" + name)
        }
        var seen: [String: String] = [:]
        for variant in variants {
            if let other = seen[variant.name] {
                throw AltBenchError.duplicatePromptName(name: variant.name, files: [other, variant.file])
            }
            seen[variant.name] = variant.file
        }
        return variants
    }

    /// Parses one prompt file's bytes. `file` is used in names and messages only.
    public func parse(data: Data, file: String) throws -> PromptVariant {
        guard let source = String(data: data, encoding: .utf8) else {
            throw AltBenchError.promptFrontMatter(
                file: file, line: nil, message: "the file is not UTF-8 text. Save it as UTF-8.")
        }
        let fileHash = Hashing.sha256Hex(data)
        let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let (frontMatter, body, bodyLine) = try split(source, file: file)

        var text = body
        if text.hasSuffix("\r\n") {
            text.removeLast(1)  // "\r\n" is a single Character in Swift
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw AltBenchError.emptyPrompt(file: file)
        }

        var variant = PromptVariant(name: stem, file: file, text: text, fileHash: fileHash)
        if let frontMatter {
            try apply(frontMatter, to: &variant, file: file)
        }
        do throws(TemplateError) {
            _ = try PromptTemplate(parsing: text)
        } catch {
            throw AltBenchError.promptTemplate(file: file, line: bodyLine + error.line - 1, problem: error.problem)
        }
        return variant
    }

    /// Splits off the front matter: the first line must be exactly `---`, closed by a line `---`.
    /// `bodyLine` is the file line the prompt text starts on.
    private func split(_ source: String, file: String) throws -> (yaml: String?, body: String, bodyLine: Int) {
        let bom = "\u{FEFF}"
        let source = source.hasPrefix(bom) ? String(source.dropFirst()) : source
        guard source.hasPrefix("---\n") || source.hasPrefix("---\r\n") else { return (nil, source, 1) }
        // Split on the "\n" scalar, not the Character: "\r\n" is a single Character in Swift,
        // so a Character split would never end a line of a CRLF file. Each line keeps its "\r",
        // which rejoining with "\n" puts back, so the body stays byte for byte.
        var lines = source.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { String(Substring($0)) }
        lines.removeFirst()
        var yaml = ""
        for (index, line) in lines.enumerated() {
            let trimmed = line.hasSuffix("\r") ? String(line.dropLast()) : line
            if trimmed == "---" || trimmed == "..." {
                let body = lines[(index + 1)...].joined(separator: "\n")
                // The opening `---` is line 1 and `lines[index]`, the closing one, line index + 2.
                return (yaml, body, index + 3)
            }
            // Every front matter line ends with a line break in the file, and YAML block
            // scalars (`system: |`) read their final newline from it.
            yaml += line + "\n"
        }
        throw AltBenchError.promptFrontMatter(
            file: file, line: 1,
            message: "the front matter opened with '---' is never closed. Add a line '---' after the last key, before the prompt text.")
    }

    /// The first `key: {{…` line (its file line and key): YAML reads a value opening with `{`
    /// as a mapping, so a template there must be quoted.
    private static func unquotedTemplateValue(in yaml: String) -> (line: Int, key: String)? {
        let lines = yaml.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(Substring($0)) }
        for (index, line) in lines.enumerated() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if !key.isEmpty, !key.hasPrefix("#"), value.hasPrefix("{{") {
                // The opening `---` is line 1 of the file.
                return (index + 2, key)
            }
        }
        return nil
    }

    private static func quoteTemplateAdvice(key: String) -> String {
        "the value of `\(key)` starts with `{{`, which YAML reads as a mapping, not text. Put it in quotes, e.g. `\(key): \"{{#lang}}Answer in {{language}}.{{/lang}}\"`, or start it with a word."
    }

    private func apply(_ yaml: String, to variant: inout PromptVariant, file: String) throws {
        let node: Node?
        do {
            node = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            if let (line, key) = Self.unquotedTemplateValue(in: yaml) {
                throw AltBenchError.promptFrontMatter(
                    file: file, line: line, message: Self.quoteTemplateAdvice(key: key))
            }
            throw AltBenchError.promptFrontMatter(
                file: file, line: YAMLDiagnostics.line(of: error).map { $0 + 1 },
                message: "the front matter is not valid YAML (\(YAMLDiagnostics.summary(of: error))). Fix it, or remove the '---' block.")
        }
        guard let node else { return }
        guard let mapping = node.mapping else {
            throw AltBenchError.promptFrontMatter(
                file: file, line: 2,
                message: "the front matter must be `key: value` lines (\(Self.knownKeys.joined(separator: ", "))).")
        }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            // Yams marks are 1-based within the YAML; the opening `---` is line 1 of the file.
            let line = keyNode.mark.map { $0.line + 1 }
            func fail(_ message: String) -> AltBenchError {
                .promptFrontMatter(file: file, line: line, message: message)
            }
            switch key {
            case "name":
                guard let name = value.scalar?.string.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
                    throw fail("`name` must be a non-empty text, e.g. `name: short-and-neutral`.")
                }
                variant.name = name
            case "description":
                guard let description = value.scalar?.string.trimmingCharacters(in: .whitespacesAndNewlines),
                    !description.isEmpty
                else {
                    throw fail("`description` must be a non-empty text saying what the variant tests, e.g. `description: One sentence keeps answers under 50 tokens.`")
                }
                variant.description = description
            case "model":
                guard let model = value.scalar?.string, !model.isEmpty else {
                    throw fail("`model` must be a model name, e.g. `model: gpt-4o-mini`.")
                }
                variant.model = model
            case "max_tokens":
                let values: [Node]
                if let sequence = value.sequence { values = Array(sequence) } else { values = [value] }
                let limits = values.compactMap { $0.scalar.flatMap { Int($0.string) } }
                guard !values.isEmpty, limits.count == values.count, limits.allSatisfy({ $0 > 0 }) else {
                    throw fail("`max_tokens` must be a positive whole number or a list of them, e.g. `max_tokens: 50` or `max_tokens: [30, 50, 100]`.")
                }
                variant.maxTokens = limits
            case "detail":
                guard let raw = value.scalar?.string, let detail = ImageDetail(rawValue: raw) else {
                    throw fail("`detail` must be low, high or auto.")
                }
                variant.detail = detail
            case "temperature":
                guard let raw = value.scalar?.string, let temperature = Double(raw), (0...2).contains(temperature) else {
                    throw fail("`temperature` must be a number from 0 to 2.")
                }
                variant.temperature = temperature
            case "system":
                guard let system = value.scalar?.string, !system.isEmpty else {
                    if value.mapping != nil, Self.unquotedTemplateValue(in: yaml)?.key == key {
                        throw fail(Self.quoteTemplateAdvice(key: key))
                    }
                    throw fail("`system` must be the text of a system message.")
                }
                do throws(TemplateError) {
                    _ = try PromptTemplate(parsing: system)
                } catch {
                    throw AltBenchError.promptTemplate(file: file, line: line ?? 2, problem: error.problem)
                }
                variant.system = system
            default:
                let hint = YAMLDiagnostics.closest(to: key, in: Self.knownKeys).map { " Did you mean `\($0)`?" } ?? ""
                throw fail("unknown front matter key `\(key)`.\(hint) Known keys: \(Self.knownKeys.joined(separator: ", ")).")
            }
        }
    }
}
