import Foundation
import Testing

@testable import AltBenchCore

/// `prompts/*.md`: front matter, byte-for-byte prompt text, and errors that name file and line.
@Suite("prompt loading")
struct PromptLoaderTests {
    /// A fresh folder per test, so tests running in parallel never see each other's files.
    struct Folder {
        let url: URL

        init() throws {
            url = FileManager.default.temporaryDirectory
                .appendingPathComponent("altbench-prompts-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        func write(_ name: String, _ text: String) throws {
            try write(name, Data(text.utf8))
        }

        func write(_ name: String, _ data: Data) throws {
            try data.write(to: url.appendingPathComponent(name))
        }

        func remove() {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// The package root, found from this file so the shipped prompts are tested as they are.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Prompts
        .deletingLastPathComponent()  // AltBenchCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    /// Parses one file's text as `prompts/NAME`, the way `load` names files.
    static func parse(_ text: String, name: String = "p.md") throws -> PromptVariant {
        try PromptLoader().parse(data: Data(text.utf8), file: "prompts/\(name)")
    }

    /// The error loading `text` as prompts/NAME gives, or `nil` when it loads.
    static func loadError(_ text: String, name: String = "p.md") throws -> AltBenchError? {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write(name, text)
        do {
            _ = try PromptLoader().load(directory: folder.url, displayPath: "prompts")
            return nil
        } catch let error as AltBenchError {
            return error
        }
    }

    // MARK: - The shipped prompts

    @Test("prompts/icecubes.md is Ice Cubes' prompt, exactly")
    func shippedIceCubesPrompt() throws {
        let url = Self.repositoryRoot.appendingPathComponent("prompts/icecubes.md")
        let variant = try PromptLoader().parse(data: Data(contentsOf: url), file: "prompts/icecubes.md")
        let expected =
            "What\u{2019}s in this image? Be brief, it's for image alt description on a social network. Don't write in the first person."
        #expect(Array(variant.text.utf8) == Array(expected.utf8))
        #expect(variant.name == "icecubes")
        #expect(variant.model == "gpt-4o-mini")
        #expect(variant.maxTokens == [50])
        #expect(variant.temperature == nil)
        #expect(variant.detail == nil)
        #expect(variant.system == nil)
        #expect(variant.fileHash == Hashing.sha256Hex(try Data(contentsOf: url)))
    }

    @Test("prompts/icecubes-original.md is the first prompt, exactly")
    func shippedOriginalPrompt() throws {
        let url = Self.repositoryRoot.appendingPathComponent("prompts/icecubes-original.md")
        let variant = try PromptLoader().parse(data: Data(contentsOf: url), file: "prompts/icecubes-original.md")
        #expect(Array(variant.text.utf8) == Array("What\u{2019}s in this image?".utf8))
        #expect(variant.name == "icecubes-original")
        #expect(variant.model == "gpt-4o-mini")
        #expect(variant.maxTokens == [50])
        #expect(variant.temperature == nil)
        #expect(variant.detail == nil)
        #expect(variant.system == nil)
    }

    @Test("the shipped prompts folder loads, sorted by file name")
    func shippedFolder() throws {
        let variants = try PromptLoader().load(
            directory: Self.repositoryRoot.appendingPathComponent("prompts"), displayPath: "prompts")
        // The set of prompts grows; Ice Cubes' two are always there, in file-name order.
        let files = variants.map(\.file)
        #expect(files == files.sorted())
        #expect(files.allSatisfy { $0.hasPrefix("prompts/") && $0.hasSuffix(".md") })
        let names = variants.map(\.name)
        let original = try #require(names.firstIndex(of: "icecubes-original"))
        let iceCubes = try #require(names.firstIndex(of: "icecubes"))
        #expect(original < iceCubes)
    }

    // MARK: - Byte for byte

    struct TextCase: Sendable, CustomTestStringConvertible {
        var label: String
        var file: String
        var text: String
        var testDescription: String { label }
    }

    static let textCases: [TextCase] = [
        TextCase(label: "no front matter", file: "Describe the image.\n", text: "Describe the image."),
        TextCase(label: "no final newline", file: "Describe the image.", text: "Describe the image."),
        TextCase(label: "trailing spaces kept", file: "Describe it.   \n", text: "Describe it.   "),
        TextCase(label: "trailing tab kept", file: "Describe it.\t\n", text: "Describe it.\t"),
        TextCase(label: "leading spaces kept", file: "  Describe it.\n", text: "  Describe it."),
        TextCase(label: "inner blank lines kept", file: "One.\n\n\nTwo.\n", text: "One.\n\n\nTwo."),
        TextCase(label: "only one final newline removed", file: "text\n\n", text: "text\n"),
        TextCase(label: "CRLF: final CRLF removed", file: "One.\r\nTwo.\r\n", text: "One.\r\nTwo."),
        TextCase(label: "CRLF: one of two final CRLF removed", file: "One.\r\n\r\n", text: "One.\r\n"),
        TextCase(label: "lone CR is text", file: "One.\r", text: "One.\r"),
        TextCase(
            label: "front matter, then text", file: "---\nmodel: m\n---\nDescribe it.\n", text: "Describe it."),
        TextCase(
            label: "text right after the closing ---, no final newline", file: "---\nmodel: m\n---\nDescribe it.",
            text: "Describe it."),
        TextCase(
            label: "blank line after the front matter is part of the text",
            file: "---\nmodel: m\n---\n\nDescribe it.\n", text: "\nDescribe it."),
        TextCase(label: "empty front matter", file: "---\n---\nDescribe it.\n", text: "Describe it."),
        TextCase(label: "front matter closed with ...", file: "---\nmodel: m\n...\nDescribe it.\n", text: "Describe it."),
        TextCase(
            label: "CRLF front matter", file: "---\r\nmodel: m\r\nmax_tokens: 40\r\n---\r\nOne.\r\nTwo.\r\n",
            text: "One.\r\nTwo."),
        TextCase(
            label: "a later --- line is text when the file does not open with ---",
            file: "Intro.\n---\nmodel: m\n---\nMore.\n", text: "Intro.\n---\nmodel: m\n---\nMore."),
        TextCase(
            label: "a --- line inside the text after front matter", file: "---\nmodel: m\n---\nA.\n---\nB.\n",
            text: "A.\n---\nB."),
        TextCase(label: "--- with trailing space does not open front matter", file: "--- \nHi.\n", text: "--- \nHi."),
        TextCase(label: "BOM without front matter", file: "\u{FEFF}Describe it.\n", text: "Describe it."),
        TextCase(label: "BOM before front matter", file: "\u{FEFF}---\nmodel: m\n---\nDescribe it.\n", text: "Describe it."),
        TextCase(
            label: "curly and straight quotes, emoji, combining accent",
            file: "What\u{2019}s here? Don't \u{1F600} e\u{301}\n", text: "What\u{2019}s here? Don't \u{1F600} e\u{301}"),
        TextCase(label: "template fields are kept", file: "Post: {{context}} ({{lang}})\n", text: "Post: {{context}} ({{lang}})"),
    ]

    @Test("the prompt text is the file's bytes minus one final newline", arguments: textCases)
    func byteForByte(_ row: TextCase) throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("p.md", row.file)
        let variants = try PromptLoader().load(directory: folder.url, displayPath: "prompts")
        try #require(variants.count == 1)
        #expect(Array(variants[0].text.utf8) == Array(row.text.utf8), "got \(variants[0].text.debugDescription)")
        #expect(variants[0].fileHash == Hashing.sha256Hex(Data(row.file.utf8)))
    }

    @Test("CRLF front matter is read as front matter")
    func crlfFrontMatterKeys() throws {
        let variant = try Self.parse("---\r\nname: crlf\r\nmodel: m\r\nmax_tokens: [30, 40]\r\n---\r\nHi.\r\n")
        #expect(variant.name == "crlf")
        #expect(variant.model == "m")
        #expect(variant.maxTokens == [30, 40])
        #expect(variant.text == "Hi.")
    }

    // MARK: - Front matter keys

    @Test("every front matter key is read")
    func allKeys() throws {
        let variant = try Self.parse(
            """
            ---
            name: short
            description: One sentence keeps answers within 50 tokens.
            model: gpt-4.1-mini
            max_tokens: [30, 50, 100]
            detail: low
            temperature: 0.7
            system: You write alt text.
            ---
            Describe it.

            """, name: "file-name.md")
        #expect(variant.name == "short")
        #expect(variant.description == "One sentence keeps answers within 50 tokens.")
        #expect(variant.file == "prompts/file-name.md")
        #expect(variant.model == "gpt-4.1-mini")
        #expect(variant.maxTokens == [30, 50, 100])
        #expect(variant.detail == .low)
        #expect(variant.temperature == 0.7)
        #expect(variant.system == "You write alt text.")
        #expect(variant.text == "Describe it.")
    }

    @Test("keys a prompt does not set stay nil, and the name comes from the file")
    func unsetKeysAreNil() throws {
        for source in ["Describe it.\n", "---\n---\nDescribe it.\n", "---\n# only a comment\n---\nDescribe it.\n"] {
            let variant = try Self.parse(source, name: "plain.md")
            #expect(variant.name == "plain")
            #expect(variant.model == nil)
            #expect(variant.maxTokens == nil)
            #expect(variant.detail == nil)
            #expect(variant.temperature == nil)
            #expect(variant.system == nil)
            #expect(variant.description == nil)
        }
    }

    struct KeyCase: Sendable, CustomTestStringConvertible {
        var yaml: String
        var check: @Sendable (PromptVariant) -> Bool
        var testDescription: String { yaml }
    }

    static let keyCases: [KeyCase] = [
        KeyCase(yaml: "max_tokens: 50", check: { $0.maxTokens == [50] }),
        KeyCase(yaml: "max_tokens: [50]", check: { $0.maxTokens == [50] }),
        KeyCase(yaml: "max_tokens:\n  - 30\n  - 300", check: { $0.maxTokens == [30, 300] }),
        KeyCase(yaml: "detail: high", check: { $0.detail == .high }),
        KeyCase(yaml: "detail: auto", check: { $0.detail == .auto }),
        KeyCase(yaml: "temperature: 0", check: { $0.temperature == 0 }),
        KeyCase(yaml: "temperature: 2", check: { $0.temperature == 2 }),
        KeyCase(yaml: "temperature: 1.25", check: { $0.temperature == 1.25 }),
        KeyCase(yaml: "system: |\n  Line one.\n  Line two.", check: { $0.system == "Line one.\nLine two.\n" }),
        KeyCase(yaml: "name: \"  spaced  \"", check: { $0.name == "spaced" }),
        KeyCase(yaml: "model: \"gpt-4o\"", check: { $0.model == "gpt-4o" }),
        KeyCase(yaml: "description: Shorter prompts give shorter answers.", check: {
            $0.description == "Shorter prompts give shorter answers."
        }),
        KeyCase(yaml: "description: \"  Padded.  \"", check: { $0.description == "Padded." }),
        KeyCase(yaml: "description: >\n  Folded over\n  two lines.", check: { $0.description == "Folded over two lines." }),
        KeyCase(yaml: "description: |\n  Line one.\n  Line two.", check: { $0.description == "Line one.\nLine two." }),
        KeyCase(yaml: "description: 42", check: { $0.description == "42" }),
    ]

    @Test("front matter values", arguments: keyCases)
    func keyValues(_ row: KeyCase) throws {
        let variant = try Self.parse("---\n\(row.yaml)\n---\nDescribe it.\n")
        #expect(row.check(variant), "got \(variant)")
    }

    // MARK: - Errors that name the file and line

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var label: String
        var file: String
        /// The line the message must name, counting the opening `---` as line 1.
        var line: Int?
        /// Words the message must contain: what is wrong and what to do.
        var mentions: [String]
        var testDescription: String { label }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(
            label: "bad YAML on line 3", file: "---\nname: x\nmodel: a: b\n---\nHi.\n", line: 3,
            mentions: ["not valid YAML", "Fix it"]),
        ErrorCase(
            label: "bad YAML on line 5, after a comment and a blank line",
            file: "---\n# comment\nname: x\n\nmodel: a: b\n---\nHi.\n", line: 5,
            mentions: ["not valid YAML", "Fix it"]),
        ErrorCase(
            label: "bad YAML on line 2", file: "---\n\"unterminated: x\n---\nHi.\n", line: 2,
            mentions: ["not valid YAML"]),
        ErrorCase(
            label: "an unclosed quote is blamed on its own line",
            file: "---\nname: x\nsystem: \"open\nmodel: m\n---\nHi.\n", line: 3, mentions: ["not valid YAML"]),
        ErrorCase(
            label: "an unclosed list", file: "---\nname: x\nmax_tokens: [30, 50\n---\nHi.\n", line: 3,
            mentions: ["not valid YAML"]),
        ErrorCase(
            label: "a tab for indentation", file: "---\nname: x\nmax_tokens:\n\t- 30\n---\nHi.\n", line: 4,
            mentions: ["not valid YAML"]),
        ErrorCase(
            label: "unclosed front matter", file: "---\nname: x\nDescribe it.\n", line: 1,
            mentions: ["never closed", "Add a line '---'"]),
        ErrorCase(
            label: "unclosed CRLF front matter", file: "---\r\nname: x\r\nDescribe it.\r\n", line: 1,
            mentions: ["never closed"]),
        ErrorCase(
            label: "unknown key with a hint", file: "---\nmodel: m\nmax_token: 50\n---\nHi.\n", line: 3,
            mentions: ["unknown front matter key `max_token`", "Did you mean `max_tokens`?", "Known keys: name, model"]),
        ErrorCase(
            label: "unknown key in CRLF front matter", file: "---\r\nmodel: m\r\n\r\nmax_token: 50\r\n---\r\nHi.\r\n",
            line: 4, mentions: ["Did you mean `max_tokens`?"]),
        ErrorCase(
            label: "unknown key after a BOM", file: "\u{FEFF}---\nmodel: m\nmax_token: 50\n---\nHi.\n", line: 3,
            mentions: ["Did you mean `max_tokens`?"]),
        ErrorCase(
            label: "unknown key without a hint", file: "---\nwibble: 1\n---\nHi.\n", line: 2,
            mentions: ["unknown front matter key `wibble`", "Known keys"]),
        ErrorCase(
            label: "max_tokens 0", file: "---\nmax_tokens: 0\n---\nHi.\n", line: 2,
            mentions: ["`max_tokens` must be a positive whole number", "max_tokens: [30, 50, 100]"]),
        ErrorCase(
            label: "max_tokens -1", file: "---\nmax_tokens: -1\n---\nHi.\n", line: 2, mentions: ["`max_tokens`"]),
        ErrorCase(
            label: "max_tokens fifty", file: "---\nmax_tokens: fifty\n---\nHi.\n", line: 2, mentions: ["`max_tokens`"]),
        ErrorCase(
            label: "max_tokens [50, x]", file: "---\nname: n\nmax_tokens: [50, \"x\"]\n---\nHi.\n", line: 3,
            mentions: ["`max_tokens`"]),
        ErrorCase(
            label: "max_tokens empty list", file: "---\nmax_tokens: []\n---\nHi.\n", line: 2, mentions: ["`max_tokens`"]),
        ErrorCase(
            label: "max_tokens 50.5", file: "---\nmax_tokens: 50.5\n---\nHi.\n", line: 2, mentions: ["`max_tokens`"]),
        ErrorCase(
            label: "detail medium", file: "---\ndetail: medium\n---\nHi.\n", line: 2,
            mentions: ["`detail` must be low, high or auto"]),
        ErrorCase(
            label: "temperature 2.5", file: "---\ntemperature: 2.5\n---\nHi.\n", line: 2,
            mentions: ["`temperature` must be a number from 0 to 2"]),
        ErrorCase(
            label: "temperature -0.1", file: "---\ntemperature: -0.1\n---\nHi.\n", line: 2, mentions: ["`temperature`"]),
        ErrorCase(
            label: "temperature warm", file: "---\ntemperature: warm\n---\nHi.\n", line: 2, mentions: ["`temperature`"]),
        ErrorCase(
            label: "temperature nan", file: "---\ntemperature: .nan\n---\nHi.\n", line: 2, mentions: ["`temperature`"]),
        ErrorCase(
            label: "empty name", file: "---\nname: \"\"\n---\nHi.\n", line: 2, mentions: ["`name` must be a non-empty"]),
        ErrorCase(
            label: "empty description", file: "---\nname: n\ndescription: \"\"\n---\nHi.\n", line: 3,
            mentions: ["`description` must be a non-empty text", "description: "]),
        ErrorCase(
            label: "blank description", file: "---\ndescription: \"   \"\n---\nHi.\n", line: 2,
            mentions: ["`description` must be a non-empty text"]),
        ErrorCase(
            label: "description as a list", file: "---\ndescription: [a, b]\n---\nHi.\n", line: 2,
            mentions: ["`description` must be"]),
        ErrorCase(
            label: "misspelt description", file: "---\ndescripton: x\n---\nHi.\n", line: 2,
            mentions: ["unknown front matter key `descripton`", "Did you mean `description`?", "system, description"]),
        ErrorCase(
            label: "model as a list", file: "---\nmodel: [a, b]\n---\nHi.\n", line: 2, mentions: ["`model` must be"]),
        ErrorCase(
            label: "front matter that is a list", file: "---\n- a\n- b\n---\nHi.\n", line: 2,
            mentions: ["`key: value` lines"]),
        ErrorCase(
            label: "duplicate key", file: "---\nmodel: a\nmodel: b\n---\nHi.\n", line: nil,
            mentions: ["not valid YAML", "model"]),
    ]

    @Test("bad front matter: the message names the file, the line and the fix", arguments: errorCases)
    func frontMatterErrors(_ row: ErrorCase) throws {
        let error = try #require(try Self.loadError(row.file, name: "bad.md"))
        let message = String(describing: error)
        let location = row.line.map { "prompts/bad.md:\($0): " } ?? "prompts/bad.md"
        #expect(message.hasPrefix(location), "\(message)")
        for word in row.mentions {
            #expect(message.contains(word), "\(message)")
        }
        if let line = row.line, case .promptFrontMatter(let file, let reported, _) = error {
            #expect(file == "prompts/bad.md")
            #expect(reported == line)
        }
    }

    @Test("duplicate keys are reported on the line of the second one")
    func duplicateKeyLine() throws {
        let error = try #require(try Self.loadError("---\nmodel: a\nname: n\nmodel: b\n---\nHi.\n", name: "dup.md"))
        guard case .promptFrontMatter(let file, let line, let message) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(file == "prompts/dup.md")
        #expect(message.contains("model"))
        // Either key's line would help; what matters is that it is a real line of the file.
        #expect(line == 2 || line == 4, "line \(String(describing: line))")
    }

    static let emptyPrompts: [String] = [
        "", "\n", "   \n\n\t\n", "---\nname: x\n---\n", "---\nname: x\n---", "---\nname: x\n---\n  \n\n",
        "---\r\nname: x\r\n---\r\n\r\n",
    ]

    @Test("a prompt with no text is an error naming the file", arguments: emptyPrompts)
    func emptyPrompt(_ source: String) throws {
        let error = try #require(try Self.loadError(source, name: "blank.md"))
        #expect(error == .emptyPrompt(file: "prompts/blank.md"))
        let message = String(describing: error)
        #expect(message.contains("prompts/blank.md"))
        #expect(message.contains("has no prompt text"))
        #expect(message.contains("Write the prompt after the front matter"))
    }

    @Test("a file that is not UTF-8 is an error naming the file")
    func notUTF8() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("latin1.md", Data([0x43, 0x61, 0x66, 0xE9, 0x0A]))  // "Café" in Latin-1
        let error = #expect(throws: AltBenchError.self) {
            try PromptLoader().load(directory: folder.url, displayPath: "prompts")
        }
        let message = error.map { String(describing: $0) } ?? ""
        #expect(message.hasPrefix("prompts/latin1.md"), "\(message)")
        #expect(message.contains("Save it as UTF-8"))
    }

    // MARK: - Templates

    @Test("a template prompt loads with its text as written")
    func templateKeptAsWritten() throws {
        let source = """
            ---
            system: Answer in {{#lang}}{{language}}{{/lang}}{{^lang}}English{{/lang}}.
            ---
            Describe the image.
            {{#context}}
            The post says: {{ context }}
            {{/context}}

            """
        let variant = try Self.parse(source)
        #expect(variant.text == "Describe the image.\n{{#context}}\nThe post says: {{ context }}\n{{/context}}")
        #expect(variant.system == "Answer in {{#lang}}{{language}}{{/lang}}{{^lang}}English{{/lang}}.")
        #expect(variant.fileHash == Hashing.sha256Hex(source))
    }

    struct TemplateErrorCase: Sendable, CustomTestStringConvertible {
        var label: String
        var file: String
        /// The file's line, counting the front matter.
        var line: Int
        var problem: TemplateProblem
        var testDescription: String { label }
    }

    static let templateErrorCases: [TemplateErrorCase] = [
        TemplateErrorCase(
            label: "no front matter: line 2", file: "Describe it.\nThe post: {{contxt}}\n", line: 2,
            problem: .unknownField(name: "contxt", tag: "{{contxt}}", suggestion: "context")),
        TemplateErrorCase(
            label: "after a front matter of four lines", file: "---\nname: x\nmodel: m\n---\nDescribe.\n\n{{#context}}\n", line: 7,
            problem: .unclosedSection(name: "context", inverted: false)),
        TemplateErrorCase(
            label: "on the first line after the front matter", file: "---\nname: x\n---\n{{references}}\n", line: 4,
            problem: .scoringField(name: "references", tag: "{{references}}")),
        TemplateErrorCase(
            label: "front matter closed with ...", file: "---\nname: x\n...\nA\n{{/lang}}\n", line: 5,
            problem: .strayClose(name: "lang")),
        TemplateErrorCase(
            label: "empty front matter", file: "---\n---\n{{ }}\n", line: 3, problem: .emptyTag(tag: "{{ }}")),
        TemplateErrorCase(
            label: "CRLF file", file: "---\r\nname: x\r\n---\r\nA\r\nB {{context\r\n", line: 5, problem: .unclosedTag),
        TemplateErrorCase(
            label: "after a BOM", file: "\u{FEFF}---\nname: x\n---\nA\n{{#lang}}x{{/context}}\n", line: 5,
            problem: .mismatchedClose(open: "lang", inverted: false, close: "context")),
        TemplateErrorCase(
            label: "in the system message: the line of its key",
            file: "---\nname: x\nsystem: Answer in {{langauge}}.\n---\nHi.\n", line: 3,
            problem: .unknownField(name: "langauge", tag: "{{langauge}}", suggestion: "language")),
        TemplateErrorCase(
            label: "in a block system message: the line of its key",
            file: "---\nname: x\nsystem: |\n  You write alt text.\n  {{#tags}}Tags: x{{/tags}}\n---\nHi.\n", line: 3,
            problem: .scoringField(name: "tags", tag: "{{#tags}}")),
    ]

    @Test("a template problem names the file and the file's line", arguments: templateErrorCases)
    func templateErrors(_ row: TemplateErrorCase) throws {
        let error = try #require(try Self.loadError(row.file, name: "t.md"))
        #expect(error == .promptTemplate(file: "prompts/t.md", line: row.line, problem: row.problem))
        let message = String(describing: error)
        #expect(message == "prompts/t.md:\(row.line): \(row.problem)")
    }

    @Test("the whole message for a misspelt field")
    func templateErrorMessage() throws {
        let error = try #require(try Self.loadError("---\nname: x\n---\nDescribe.\nPost: {{ contxt }}\n", name: "ctx.md"))
        #expect(
            String(describing: error)
                == "prompts/ctx.md:5: `{{ contxt }}` is not a field a prompt can use. Did you mean `{{context}}`? Fields: context (the post text), lang (the post's language code), language (that language's English name).")
    }

    @Test(
        "a template value that starts with {{ must be quoted, and the message says so",
        arguments: [
            ("---\nname: x\nsystem: {{#lang}}Answer in {{language}}.{{/lang}}\n---\nHi.\n", 3),
            ("---\nsystem: {{lang}}\n---\nHi.\n", 2),
        ])
    func unquotedTemplateInFrontMatter(source: String, line: Int) throws {
        let error = try #require(try Self.loadError(source))
        let message = String(describing: error)
        #expect(message.hasPrefix("prompts/p.md:\(line): the value of `system` starts with `{{`"), "\(message)")
        #expect(message.contains("Put it in quotes"))
        let quoted = try Self.parse("---\nsystem: \"{{#lang}}Answer in {{language}}.{{/lang}}\"\n---\nHi.\n")
        #expect(quoted.system == "{{#lang}}Answer in {{language}}.{{/lang}}")
    }

    @Test("a front matter problem is reported before a template problem further down")
    func frontMatterFirst() throws {
        let error = try #require(try Self.loadError("---\nmax_token: 5\n---\n{{contxt}}\n"))
        guard case .promptFrontMatter(_, let line, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(line == 2)
    }

    // MARK: - The folder

    @Test("a missing prompts folder is an error saying how to fix it")
    func missingFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let missing = folder.url.appendingPathComponent("nope")
        #expect(throws: AltBenchError.promptsFolderMissing(path: "my-prompts")) {
            try PromptLoader().load(directory: missing, displayPath: "my-prompts")
        }
        let message = String(describing: AltBenchError.promptsFolderMissing(path: "my-prompts"))
        #expect(message.contains("'my-prompts' does not exist"))
        #expect(message.contains("--prompts DIR"))
    }

    @Test("a file where the folder should be is a missing folder")
    func fileInsteadOfFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("prompts", "not a folder")
        #expect(throws: AltBenchError.promptsFolderMissing(path: "prompts")) {
            try PromptLoader().load(directory: folder.url.appendingPathComponent("prompts"), displayPath: "prompts")
        }
    }

    @Test("a folder with no prompt files is an error saying how to add one")
    func noPromptFiles() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("README.md", "About these prompts.\n")
        try folder.write("notes.txt", "Not a prompt.\n")
        try folder.write(".hidden.md", "Hidden.\n")
        #expect(throws: AltBenchError.noPrompts(path: "prompts")) {
            try PromptLoader().load(directory: folder.url, displayPath: "prompts")
        }
        let message = String(describing: AltBenchError.noPrompts(path: "prompts"))
        #expect(message.contains("No prompt files in 'prompts'"))
        #expect(message.contains("prompts/NAME.md"))
        #expect(message.contains("--prompts DIR"))
    }

    @Test("only visible .md files other than README load, sorted by file name")
    func folderFiltering() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("b.md", "B.\n")
        try folder.write("a.md", "A.\n")
        try folder.write("README.md", "About.\n")
        try folder.write("readme.md", "About.\n")
        try folder.write(".draft.md", "Draft.\n")
        try folder.write("c.txt", "C.\n")
        let variants = try PromptLoader().load(directory: folder.url, displayPath: "prompts/")
        #expect(variants.map(\.name) == ["a", "b"])
        #expect(variants.map(\.text) == ["A.", "B."])
        #expect(variants.map(\.file) == ["prompts/a.md", "prompts/b.md"])
    }

    @Test("the folder's own path names files when no display path is given")
    func defaultDisplayPath() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("a.md", "A.\n")
        let variants = try PromptLoader().load(directory: folder.url)
        #expect(variants.map(\.file) == [folder.url.appendingPathComponent("a.md").path])
    }

    @Test("two files with the same name are an error naming both files")
    func duplicateNames() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("a.md", "---\nname: same\n---\nA.\n")
        try folder.write("b.md", "---\nname: same\n---\nB.\n")
        let error = #expect(throws: AltBenchError.self) {
            try PromptLoader().load(directory: folder.url, displayPath: "prompts")
        }
        #expect(error == .duplicatePromptName(name: "same", files: ["prompts/a.md", "prompts/b.md"]))
        let message = error.map { String(describing: $0) } ?? ""
        #expect(message.contains("'same'"))
        #expect(message.contains("prompts/a.md, prompts/b.md"))
        #expect(message.contains("another `name:`"))
    }

    @Test("a front matter name that repeats another file's name is a duplicate too")
    func duplicateOfFileName() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("brief.md", "Be brief.\n")
        try folder.write("other.md", "---\nname: brief\n---\nOther.\n")
        #expect(throws: AltBenchError.duplicatePromptName(name: "brief", files: ["prompts/brief.md", "prompts/other.md"])) {
            try PromptLoader().load(directory: folder.url, displayPath: "prompts")
        }
    }

    @Test("the file hash covers the front matter too")
    func fileHashCoversFrontMatter() throws {
        let a = try Self.parse("---\nmodel: a\n---\nSame.\n")
        let b = try Self.parse("---\nmodel: b\n---\nSame.\n")
        #expect(a.text == b.text)
        #expect(a.fileHash != b.fileHash)
        #expect(a.fileHash == Hashing.sha256Hex("---\nmodel: a\n---\nSame.\n"))
    }
}
