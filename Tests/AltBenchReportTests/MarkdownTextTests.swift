import Foundation
import Testing

@testable import AltBenchReport

@Suite("MarkdownText")
struct MarkdownTextTests {
    struct Escape: Sendable, CustomTestStringConvertible {
        var input: String
        var expected: String
        var testDescription: String { input.debugDescription }
    }

    @Test(
        "cell escapes what would end the cell, end the row or render as Markdown or HTML",
        arguments: [
            Escape(input: "A cat.", expected: "A cat."),
            Escape(input: "a | b", expected: #"a \| b"#),
            Escape(input: "line one\nline two", expected: "line one<br>line two"),
            Escape(input: "windows\r\nline", expected: "windows<br>line"),
            Escape(input: "old mac\rline", expected: "old mac<br>line"),
            Escape(input: "two\n\nparagraphs", expected: "two<br><br>paragraphs"),
            Escape(input: "`code`", expected: #"\`code\`"#),
            Escape(input: "*bold* and _em_", expected: #"\*bold\* and \_em\_"#),
            Escape(input: "[link](http://x)", expected: #"\[link\](http://x)"#),
            Escape(input: "![img](x.png)", expected: #"\!\[img\](x.png)"#),
            Escape(input: "<script>alert(1)</script>", expected: "&lt;script&gt;alert(1)&lt;/script&gt;"),
            Escape(input: "Tom & Jerry &amp;", expected: "Tom &amp; Jerry &amp;amp;"),
            Escape(input: #"back\slash"#, expected: #"back\\slash"#),
            Escape(input: #"already \| escaped"#, expected: #"already \\\| escaped"#),
            Escape(input: "# not a heading ~~strike~~", expected: ##"\# not a heading \~\~strike\~\~"##),
            Escape(input: "café – “quoted” 🐈", expected: "café – “quoted” 🐈"),
        ])
    func cell(_ escape: Escape) {
        #expect(MarkdownText.cell(escape.input) == escape.expected)
    }

    static let hostile = [
        "a | b | c", "|", "||", "ends with a backslash \\", "\\|", "\\\\|", "x\n| y | z |", "x\r\n|---|---|",
        "x\r| y", "`|`", "<td>|</td>", "<br>|", "\u{2028}line separator | pipe", "tab\t|\ttab",
        "👩‍👩‍👧 | family", "\u{0}nul | char", "|\u{301} a pipe with an accent on it", "x\\\u{301}| y",
        "x\r\u{301}| y",
    ]

    @Test("a table row built from escaped cells stays one row with the right cell count", arguments: hostile)
    func rowStaysIntact(_ text: String) {
        let row = "| \(MarkdownText.cell(text)) | fixed | \(MarkdownText.cell(text + text)) |"
        #expect(!row.contains("\n") && !row.contains("\r"))
        #expect(GFMTable.cells(row).count == 3, "\(row)")
        #expect(GFMTable.cells(row)[1] == "fixed")
    }

    @Test(
        "inline keeps text on one line, whatever its line endings",
        arguments: [
            Escape(input: "one\ntwo", expected: "one two"),
            Escape(input: "one\r\ntwo", expected: "one two"),
            Escape(input: "one\rtwo", expected: "one two"),
            Escape(input: "*one*\n\n_two_", expected: #"\*one\*  \_two\_"#),
        ])
    func inline(_ escape: Escape) {
        #expect(MarkdownText.inline(escape.input) == escape.expected)
    }

    struct Relative: Sendable, CustomTestStringConvertible {
        var target: String
        var directory: String
        var expected: String
        var testDescription: String { "\(target) from \(directory)" }
    }

    @Test(
        "relativePath links an image from the report's folder",
        arguments: [
            Relative(target: "/p/datasets/sample/x.png", directory: "/p/results", expected: "../datasets/sample/x.png"),
            Relative(
                target: "/p/datasets/sample/x.png", directory: "/p/results/runs", expected: "../../datasets/sample/x.png"),
            Relative(target: "/p/datasets/sample/x.png", directory: "/p/results/", expected: "../datasets/sample/x.png"),
            Relative(target: "/p/results/x.png", directory: "/p/results", expected: "x.png"),
            Relative(target: "/p/results/img/x.png", directory: "/p/results", expected: "img/x.png"),
            Relative(target: "/p/./datasets/../datasets/x.png", directory: "/p/results", expected: "../datasets/x.png"),
            Relative(target: "/other/x.png", directory: "/p/results/runs", expected: "../../../other/x.png"),
        ])
    func relativePath(_ relative: Relative) {
        #expect(MarkdownText.relativePath(to: relative.target, from: relative.directory) == relative.expected)
    }

    @Test(
        "link targets percent-encode what would break the link",
        arguments: [
            Escape(input: "../datasets/sample/x.png", expected: "../datasets/sample/x.png"),
            Escape(input: "../my photos/beach day.png", expected: "../my%20photos/beach%20day.png"),
            Escape(input: "../a (1).png", expected: "../a%20%281%29.png"),
            Escape(input: "../[draft].png", expected: "../%5Bdraft%5D.png"),
            Escape(input: "../100%.png", expected: "../100%25.png"),
            Escape(input: "../what?.png", expected: "../what%3F.png"),
            Escape(input: "../#1.png", expected: "../%231.png"),
            Escape(input: "../<x>.png", expected: "../%3Cx%3E.png"),
            Escape(input: "../café.png", expected: "../caf%C3%A9.png"),
            Escape(input: "javascript:alert.png", expected: "javascript%3Aalert.png"),
        ])
    func linkTarget(_ escape: Escape) {
        #expect(MarkdownText.linkTarget(escape.input) == escape.expected)
    }

    @Test(
        "remote image URLs keep their query and their existing escapes",
        arguments: [
            Escape(input: "https://x.test/a.png", expected: "https://x.test/a.png"),
            Escape(input: "https://x.test/a.png?w=600&f=png", expected: "https://x.test/a.png?w=600&f=png"),
            Escape(input: "https://x.test/a%20b.png", expected: "https://x.test/a%20b.png"),
            Escape(input: "https://x.test/a.png#frag", expected: "https://x.test/a.png#frag"),
            Escape(input: "https://x.test/a b (1).png", expected: "https://x.test/a%20b%20%281%29.png"),
            Escape(input: "https://x.test/é.png", expected: "https://x.test/%C3%A9.png"),
        ])
    func remoteLinkTarget(_ escape: Escape) {
        #expect(MarkdownText.linkTarget(url: escape.input) == escape.expected)
    }
}
