import Foundation
import Testing

@testable import AltBenchCore

/// Prompt templates: `{{field}}`, `{{#field}}…{{/field}}`, `{{^field}}…{{/field}}`.
@Suite("prompt templates")
struct PromptTemplateTests {
    static let french = PromptFields(context: "Le marché ce matin 🥖", lang: "fr")
    static let none = PromptFields()

    struct RenderCase: Sendable, CustomTestStringConvertible {
        var label: String
        var template: String
        var fields: PromptFields
        var expected: String
        var testDescription: String { label }
    }

    static let renderCases: [RenderCase] = [
        RenderCase(label: "literal text", template: "Describe it.", fields: french, expected: "Describe it."),
        RenderCase(label: "empty text", template: "", fields: french, expected: ""),
        RenderCase(
            label: "single braces are text", template: "Use {braces}, { and } and {x} as they are.", fields: french,
            expected: "Use {braces}, { and } and {x} as they are."),
        RenderCase(label: "closing pair without opening", template: "a }} b", fields: french, expected: "a }} b"),
        RenderCase(
            label: "JSON-looking text", template: #"Answer as {"alt": "..."} only."#, fields: french,
            expected: #"Answer as {"alt": "..."} only."#),
        RenderCase(
            label: "a field", template: "Post: {{context}}", fields: french, expected: "Post: Le marché ce matin 🥖"),
        RenderCase(label: "spaces in the braces", template: "[{{ lang }}]", fields: french, expected: "[fr]"),
        RenderCase(label: "a tab in the braces", template: "[{{\tlang  }}]", fields: french, expected: "[fr]"),
        RenderCase(label: "language name", template: "Answer in {{language}}.", fields: french, expected: "Answer in French."),
        RenderCase(label: "a missing field is empty", template: "[{{context}}|{{lang}}|{{language}}]", fields: none, expected: "[||]"),
        RenderCase(
            label: "a section kept", template: "{{#context}}The post says: {{context}}. {{/context}}Describe.",
            fields: french, expected: "The post says: Le marché ce matin 🥖. Describe."),
        RenderCase(
            label: "a section dropped", template: "{{#context}}The post says: {{context}}. {{/context}}Describe.",
            fields: none, expected: "Describe."),
        RenderCase(
            label: "an inverted section dropped", template: "{{^context}}No post text. {{/context}}Describe.",
            fields: french, expected: "Describe."),
        RenderCase(
            label: "an inverted section kept", template: "{{^context}}No post text. {{/context}}Describe.",
            fields: none, expected: "No post text. Describe."),
        RenderCase(
            label: "whitespace only counts as empty", template: "{{#context}}A{{/context}}{{^context}}B{{/context}}",
            fields: PromptFields(context: " \n\t"), expected: "B"),
        RenderCase(
            label: "spaces around the sigil", template: "{{ # lang }}in {{ language }}{{ / lang }}", fields: french,
            expected: "in French"),
        RenderCase(
            label: "nested sections, both set", template: "{{#context}}<{{context}}{{#lang}} ({{lang}}){{/lang}}>{{/context}}",
            fields: french, expected: "<Le marché ce matin 🥖 (fr)>"),
        RenderCase(
            label: "nested sections, inner empty",
            template: "{{#context}}<{{context}}{{#lang}} ({{lang}}){{/lang}}>{{/context}}",
            fields: PromptFields(context: "Hi"), expected: "<Hi>"),
        RenderCase(
            label: "inverted inside a section", template: "{{#context}}{{^lang}}no lang{{/lang}}{{/context}}",
            fields: PromptFields(context: "Hi"), expected: "no lang"),
        RenderCase(
            label: "same name nested", template: "{{#lang}}a{{#lang}}b{{/lang}}c{{/lang}}", fields: french,
            expected: "abc"),
        RenderCase(
            label: "a section alone on its line takes the line",
            template: "Describe the image.\n{{#context}}\nThe post says: {{context}}\n{{/context}}\nBe brief.",
            fields: PromptFields(context: "Hi"), expected: "Describe the image.\nThe post says: Hi\nBe brief."),
        RenderCase(
            label: "a dropped section alone on its line leaves no blank line",
            template: "Describe the image.\n{{#context}}\nThe post says: {{context}}\n{{/context}}\nBe brief.",
            fields: none, expected: "Describe the image.\nBe brief."),
        RenderCase(
            label: "indented standalone tags", template: "A\n  {{^lang}}  \nB\n\t{{/lang}}\nC", fields: none,
            expected: "A\nB\nC"),
        RenderCase(
            label: "CRLF standalone lines", template: "A\r\n{{#lang}}\r\n{{lang}}\r\n{{/lang}}\r\nC", fields: french,
            expected: "A\r\nfr\r\nC"),
        RenderCase(
            label: "a standalone tag on the last line", template: "A\n{{#lang}}\nB\n{{/lang}}", fields: french,
            expected: "A\nB\n"),
        RenderCase(
            label: "a section tag with text on its line keeps the line",
            template: "A\nSay {{#lang}}it{{/lang}}\nC", fields: none, expected: "A\nSay \nC"),
        RenderCase(
            label: "a field alone on its line is not standalone", template: "A\n{{lang}}\nC", fields: none,
            expected: "A\n\nC"),
        RenderCase(
            label: "unicode around and in tags", template: "Décris l’image 🖼️ — {{context}} — ✓ {{#lang}}«{{language}}»{{/lang}}",
            fields: french, expected: "Décris l’image 🖼️ — Le marché ce matin 🥖 — ✓ «French»"),
        RenderCase(
            label: "a combining mark after the braces", template: "{{lang}}\u{301}", fields: french,
            expected: "fr\u{301}"),
        RenderCase(
            label: "a value holding braces is not parsed again", template: "{{context}}",
            fields: PromptFields(context: "{{lang}} {{#x}}"), expected: "{{lang}} {{#x}}"),
        RenderCase(
            label: "no HTML escaping", template: "{{context}}", fields: PromptFields(context: "<b>Tom & \"Jerry\"</b>"),
            expected: "<b>Tom & \"Jerry\"</b>"),
        RenderCase(
            label: "a brace just before a tag", template: "{ {{lang}} }", fields: french, expected: "{ fr }"),
    ]

    @Test("rendering", arguments: renderCases)
    func render(_ row: RenderCase) throws {
        let template = try PromptTemplate(parsing: row.template)
        #expect(template.render(row.fields) == row.expected)
        #expect(template.source == row.template)
    }

    @Test("a text with no `{{` is one literal part, rendered byte for byte")
    func literalIsByteForByte() throws {
        let text = "What\u{2019}s in this image? Be brief.\r\n\t{ } }} {x}  "
        let template = try PromptTemplate(parsing: text)
        #expect(template.isLiteral)
        #expect(template.parts == [.text(text)])
        #expect(Array(template.render(Self.french).utf8) == Array(text.utf8))
    }

    @Test("a template that names a field is not literal")
    func aFieldIsNotLiteral() throws {
        let template = try PromptTemplate(parsing: "{{#context}}{{ language }}{{/context}}")
        #expect(!template.isLiteral)
    }

    // MARK: - Fields

    @Test(
        "language is the English name of lang, else the code, else empty",
        arguments: [
            ("fr", "French"), ("de", "German"), ("es", "Spanish"), ("ja", "Japanese"), ("pt-BR", "Portuguese"),
            ("pt_BR", "Portuguese"), ("kab", "Kabyle"), ("xx", "xx"), ("", ""), ("  ", ""),
        ])
    func languageName(code: String, name: String) {
        #expect(PromptFields.languageName(for: code) == name)
        #expect(PromptFields(lang: code).language == name)
    }

    @Test("an item's fields: its post text and language; none of what answers are judged against")
    func itemFields() {
        let item = DatasetItem(
            id: "boulangerie", image: .remote(URL(string: "https://x.test/a.png")!), references: ["A bakery sign."],
            context: "Ouvert !", lang: "fr", expectedText: "BOULANGERIE", mustMention: ["bakery"], tags: ["sign"])
        let fields = PromptFields(item: item)
        #expect(fields == PromptFields(context: "Ouvert !", lang: "fr", language: "French"))
        #expect(PromptFields(item: DatasetItem(id: "x", image: item.image)) == PromptFields(context: "", lang: "", language: ""))
        for name in PromptFields.scoringNames {
            #expect(fields[name] == nil)
        }
        #expect(Set(PromptFields.names).isDisjoint(with: PromptFields.scoringNames))
    }

    // MARK: - Errors

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var label: String
        var template: String
        var line: Int
        var problem: TemplateProblem
        var testDescription: String { label }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(
            label: "unknown field with a hint", template: "Post: {{contxt}}", line: 1,
            problem: .unknownField(name: "contxt", tag: "{{contxt}}", suggestion: "context")),
        ErrorCase(
            label: "unknown field in a section, on line 3", template: "A\nB\n{{# langage }}x{{/langage}}", line: 3,
            problem: .unknownField(name: "langage", tag: "{{# langage }}", suggestion: "language")),
        ErrorCase(
            label: "field names are case-sensitive", template: "{{Context}}", line: 1,
            problem: .unknownField(name: "Context", tag: "{{Context}}", suggestion: "context")),
        ErrorCase(
            label: "unknown field without a hint", template: "{{wibble}}", line: 1,
            problem: .unknownField(name: "wibble", tag: "{{wibble}}", suggestion: nil)),
        ErrorCase(
            label: "a dotted name", template: "{{item.context}}", line: 1,
            problem: .unknownField(name: "item.context", tag: "{{item.context}}", suggestion: nil)),
        ErrorCase(
            label: "references leak the answer", template: "Like: {{references}}", line: 1,
            problem: .scoringField(name: "references", tag: "{{references}}")),
        ErrorCase(
            label: "expected_text leaks the answer", template: "\n\n{{#expected_text}}x{{/expected_text}}", line: 3,
            problem: .scoringField(name: "expected_text", tag: "{{#expected_text}}")),
        ErrorCase(
            label: "must_mention leaks the answer", template: "{{ must_mention }}", line: 1,
            problem: .scoringField(name: "must_mention", tag: "{{ must_mention }}")),
        ErrorCase(
            label: "tags leak the answer", template: "{{^tags}}x{{/tags}}", line: 1,
            problem: .scoringField(name: "tags", tag: "{{^tags}}")),
        ErrorCase(label: "id leaks the answer", template: "{{id}}", line: 1, problem: .scoringField(name: "id", tag: "{{id}}")),
        ErrorCase(
            label: "decorative leaks the answer", template: "{{#decorative}}Say nothing.{{/decorative}}", line: 1,
            problem: .scoringField(name: "decorative", tag: "{{#decorative}}")),
        ErrorCase(label: "unclosed tag", template: "One.\nTwo {{context", line: 2, problem: .unclosedTag),
        ErrorCase(label: "unclosed tag at the very end", template: "One {{", line: 1, problem: .unclosedTag),
        ErrorCase(label: "one closing brace", template: "{{context}", line: 1, problem: .unclosedTag),
        ErrorCase(label: "a tag cut by a line break", template: "{{context\n}}", line: 1, problem: .unclosedTag),
        ErrorCase(label: "a tag opened inside a tag", template: "{{ {{context}}", line: 1, problem: .unclosedTag),
        ErrorCase(label: "empty tag", template: "A {{}} B", line: 1, problem: .emptyTag(tag: "{{}}")),
        ErrorCase(label: "blank tag", template: "\n{{   }}", line: 2, problem: .emptyTag(tag: "{{   }}")),
        ErrorCase(label: "section with no name", template: "{{#}}x{{/}}", line: 1, problem: .emptyTag(tag: "{{#}}")),
        ErrorCase(label: "close with no name", template: "{{#lang}}x{{/ }}", line: 1, problem: .emptyTag(tag: "{{/ }}")),
        ErrorCase(
            label: "comment", template: "{{! note to self }}Describe.", line: 1,
            problem: .unsupportedTag(tag: "{{! note to self }}")),
        ErrorCase(label: "partial", template: "{{> header}}", line: 1, problem: .unsupportedTag(tag: "{{> header}}")),
        ErrorCase(
            label: "triple braces", template: "{{{context}}}", line: 1, problem: .unsupportedTag(tag: "{{{context}}}")),
        ErrorCase(label: "ampersand", template: "{{&context}}", line: 1, problem: .unsupportedTag(tag: "{{&context}}")),
        ErrorCase(
            label: "set delimiters", template: "{{=<% %>=}}", line: 1, problem: .unsupportedTag(tag: "{{=<% %>=}}")),
        ErrorCase(
            label: "section never closed", template: "A\n{{#context}}\nB", line: 2,
            problem: .unclosedSection(name: "context", inverted: false)),
        ErrorCase(
            label: "inner section never closed", template: "{{#context}}\n{{^lang}}\n{{/context}}", line: 3,
            problem: .mismatchedClose(open: "lang", inverted: true, close: "context")),
        ErrorCase(
            label: "inverted section never closed", template: "{{^lang}}x", line: 1,
            problem: .unclosedSection(name: "lang", inverted: true)),
        ErrorCase(
            label: "closed with the wrong name", template: "{{#context}}\nx\n{{/lang}}", line: 3,
            problem: .mismatchedClose(open: "context", inverted: false, close: "lang")),
        ErrorCase(
            label: "closed twice", template: "{{#lang}}x{{/lang}}\n{{/lang}}", line: 2, problem: .strayClose(name: "lang")),
        ErrorCase(label: "close with no open", template: "x\n\n{{/context}}", line: 3, problem: .strayClose(name: "context")),
        ErrorCase(
            label: "unicode before the problem", template: "🖼️ Décris\n« {{contexte}} »", line: 2,
            problem: .unknownField(name: "contexte", tag: "{{contexte}}", suggestion: "context")),
        ErrorCase(
            label: "CRLF lines", template: "A\r\nB\r\n{{contxt}}\r\n", line: 3,
            problem: .unknownField(name: "contxt", tag: "{{contxt}}", suggestion: "context")),
    ]

    @Test("template problems, with their line", arguments: errorCases)
    func errors(_ row: ErrorCase) {
        #expect(throws: TemplateError(line: row.line, problem: row.problem)) {
            try PromptTemplate(parsing: row.template)
        }
    }

    struct MessageCase: Sendable, CustomTestStringConvertible {
        var problem: TemplateProblem
        /// What is wrong, then how to fix it.
        var mentions: [String]
        var testDescription: String { String(describing: problem) }
    }

    static let messageCases: [MessageCase] = [
        MessageCase(
            problem: .unknownField(name: "contxt", tag: "{{ contxt }}", suggestion: "context"),
            mentions: [
                "`{{ contxt }}` is not a field", "Did you mean `{{context}}`?",
                "Fields: context (the post text), lang (the post's language code), language (that language's English name).",
            ]),
        MessageCase(
            problem: .unknownField(name: "wibble", tag: "{{wibble}}", suggestion: nil),
            mentions: ["`{{wibble}}` is not a field", "Fields: context"]),
        MessageCase(
            problem: .scoringField(name: "references", tag: "{{references}}"),
            mentions: ["what answers are judged against", "leak the answer", "Remove it", "context, lang, language"]),
        MessageCase(problem: .unclosedTag, mentions: ["never closed", "Close it with `}}`"]),
        MessageCase(problem: .emptyTag(tag: "{{ }}"), mentions: ["`{{ }}` names no field", "e.g. `{{context}}`"]),
        MessageCase(
            problem: .unsupportedTag(tag: "{{! x }}"),
            mentions: ["`{{! x }}` is not a tag prompts support", "{{#field}}…{{/field}}"]),
        MessageCase(
            problem: .unclosedSection(name: "context", inverted: false),
            mentions: ["`{{#context}}` is never closed", "Add `{{/context}}`"]),
        MessageCase(problem: .unclosedSection(name: "lang", inverted: true), mentions: ["`{{^lang}}`", "`{{/lang}}`"]),
        MessageCase(
            problem: .mismatchedClose(open: "context", inverted: false, close: "lang"),
            mentions: ["`{{/lang}}` closes", "open here is `{{#context}}`", "with `{{/context}}`"]),
        MessageCase(
            problem: .strayClose(name: "lang"),
            mentions: ["`{{/lang}}` closes a section that is not open", "Remove it", "`{{#lang}}`"]),
    ]

    @Test("messages say what is wrong and how to fix it", arguments: messageCases)
    func messages(_ row: MessageCase) {
        let message = String(describing: AltBenchError.promptTemplate(file: "prompts/p.md", line: 7, problem: row.problem))
        #expect(message.hasPrefix("prompts/p.md:7: "), "\(message)")
        for word in row.mentions {
            #expect(message.contains(word), "\(message)")
        }
    }
}
