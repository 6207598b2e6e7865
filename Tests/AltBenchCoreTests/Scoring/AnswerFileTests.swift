import Foundation
import Testing

@testable import AltBenchCore

@Suite("answer files for altbench score")
struct AnswerFileTests {
    static func parse(_ text: String, name: String = "answers.jsonl") throws -> AnswerFile {
        try AnswerFile.parse(text, displayPath: "in/\(name)", fileName: name)
    }

    static func message(_ text: String, name: String = "answers.jsonl") -> String? {
        do {
            _ = try parse(text, name: name)
            return nil
        } catch {
            return String(describing: error)
        }
    }

    @Test("JSONL: every field, numbers as ids, unknown fields ignored, blank lines skipped")
    func jsonl() throws {
        let file = try Self.parse(
            """
            {"id": "cat", "text": "A cat.", "references": ["A grey cat.", "Cat asleep."], "finish_reason": "stop", "context": "My cat", "expected_text": "OPEN", "must_mention": ["cat"], "lang": "fr", "score": 5}

            {"id": 7, "text": null, "refusal": "No.", "variant": "tool", "references": "One ref."}
            """)
        #expect(file.format == .jsonl)
        #expect(file.entries.count == 2)
        let cat = file.entries[0]
        #expect(cat.id == "cat" && cat.variant == "answers" && cat.line == 1)
        #expect(cat.text == "A cat." && cat.finishReason == "stop" && cat.context == "My cat")
        #expect(cat.references == ["A grey cat.", "Cat asleep."])
        #expect(cat.expectedText == "OPEN" && cat.mustMention == ["cat"])
        #expect(cat.lang == "fr" && cat.scoringItem(dataset: nil).lang == "fr")
        let seven = file.entries[1]
        #expect(seven.id == "7" && seven.variant == "tool" && seven.line == 3)
        #expect(seven.text == nil && seven.refusal == "No." && seven.references == ["One ref."])
        #expect(seven.mustMention == nil && seven.lang == nil)
    }

    @Test("the file's fields win over the dataset's, which fill in the rest")
    func mergesWithDataset() throws {
        let entry = try Self.parse(#"{"id": "cat", "text": "A cat.", "context": "From the file"}"#).entries[0]
        let item = DatasetItem(
            id: "cat", image: .remote(URL(string: "https://example.test/cat.png")!), references: ["A grey cat."],
            context: "From the dataset", lang: "fr", expectedText: "OUVERT", mustMention: ["chat"])
        let merged = entry.scoringItem(dataset: item)
        #expect(merged.references == ["A grey cat."])
        #expect(merged.context == "From the file")
        #expect(merged.expectedText == "OUVERT" && merged.mustMention == ["chat"] && merged.lang == "fr")
        #expect(entry.scoringItem(dataset: nil).references == [])
    }

    @Test("CSV: a header, quoted fields with commas, quotes and line breaks, JSON lists and spread references")
    func csv() throws {
        let file = try Self.parse(
            "\u{FEFF}id,text,references,reference_2,must_mention,variant\r\n"
                + "cat,\"A cat, asleep.\",\"[\"\"A grey cat.\"\"]\",Cat on a sofa.,\"[\"\"cat\"\", \"\"sofa\"\"]\",human\r\n"
                + "sign,\"A sign: \"\"OPEN\"\"\nand more.\",Only one ref.,,door,\r\n"
                + "\r\n"
                + "dog,,,,,\n",
            name: "human.csv")
        #expect(file.format == .csv)
        #expect(file.entries.map(\.id) == ["cat", "sign", "dog"])
        #expect(file.entries.map(\.line) == [2, 3, 6])
        let cat = file.entries[0]
        #expect(cat.text == "A cat, asleep." && cat.variant == "human")
        #expect(cat.references == ["A grey cat.", "Cat on a sofa."])
        #expect(cat.mustMention == ["cat", "sofa"])
        let sign = file.entries[1]
        #expect(sign.text == "A sign: \"OPEN\"\nand more.")
        #expect(sign.references == ["Only one ref."] && sign.mustMention == ["door"] && sign.variant == "human")
        #expect(file.entries[2].text == nil && file.entries[2].references == nil)
    }

    @Test("the format comes from the extension, else from the first character")
    func sniffing() throws {
        #expect(try Self.parse(#"{"id": "a", "text": "A."}"#, name: "out.txt").format == .jsonl)
        #expect(try Self.parse("id,text\na,A.\n", name: "out.txt").format == .csv)
        #expect(try Self.parse(#"{"id": "a", "text": "A."}"#, name: "x.ndjson").format == .jsonl)
    }

    struct BadInput: Sendable, CustomTestStringConvertible {
        var text: String
        var name = "answers.jsonl"
        var expected: String
        var testDescription: String { expected }
    }

    static let bad: [BadInput] = [
        BadInput(text: "{\"id\": \"a\", \"text\": \"A.\"}\nnot json\n", expected: "in/answers.jsonl:2: not a JSON object"),
        BadInput(text: "{\"text\": \"A.\"}\n", expected: "in/answers.jsonl:1: needs an `id`"),
        BadInput(text: "{\"id\": \"  \", \"text\": \"A.\"}\n", expected: "in/answers.jsonl:1: needs an `id`"),
        BadInput(text: "{\"id\": \"a\", \"text\": 5}\n", expected: "in/answers.jsonl:1: `text` must be a string"),
        BadInput(text: "{\"id\": \"a\", \"references\": [1]}\n", expected: "in/answers.jsonl:1: `references` must be a list of strings"),
        BadInput(text: "{\"id\": \"a\", \"text\": \"A.\"}\n{\"id\": \"a\", \"text\": \"B.\"}\n",
                 expected: "in/answers.jsonl:2: id 'a' appears again in variant 'answers' (first on line 1)"),
        BadInput(text: "\n\n", expected: "in/answers.jsonl: holds no answers"),
        BadInput(text: "name,text\na,A.\n", name: "a.csv", expected: "in/a.csv:1: the header row has no `id` column (it has: name, text)"),
        BadInput(text: "id,text\na,\"A.\n", name: "a.csv", expected: "in/a.csv:2: a quoted field is never closed"),
        BadInput(text: "id,text\na,A \"B\"\n", name: "a.csv", expected: "in/a.csv:2: a quote in the middle of a field"),
        BadInput(text: "id,text\na,A,B\n", name: "a.csv", expected: "in/a.csv:2: 3 fields, but the header names 2 columns"),
        BadInput(text: "id,text\n,A.\n", name: "a.csv", expected: "in/a.csv:2: the `id` is empty"),
        BadInput(text: "id,references\na,[oops\n", name: "a.csv", expected: "in/a.csv:2: `references` starts with [ but is not a JSON list"),
    ]

    @Test("bad input names the file and line and says how to fix it", arguments: bad)
    func badInput(_ row: BadInput) {
        let message = Self.message(row.text, name: row.name)
        #expect(message?.hasPrefix(row.expected) == true, "\(message ?? "no error")")
    }

    @Test("a missing file is named")
    func missingFile() {
        #expect {
            _ = try AnswerFile.load(from: URL(fileURLWithPath: "/nonexistent/a.jsonl"), displayPath: "a.jsonl")
        } throws: { error in
            String(describing: error).hasPrefix("a.jsonl: cannot be read")
        }
    }
}

@Suite("CSV")
struct CSVTests {
    @Test("records, with the line each starts on")
    func records() throws {
        let records = try CSV.records("a,b\n\"x\ny\",\"\"\n\nlast,\"q\"\"uote\"")
        #expect(records.map(\.fields) == [["a", "b"], ["x\ny", ""], ["last", "q\"uote"]])
        #expect(records.map(\.line) == [1, 2, 5])
    }

    @Test("empty fields and trailing commas are kept")
    func emptyFields() throws {
        #expect(try CSV.records(",\na,,\n").map(\.fields) == [["", ""], ["a", "", ""]])
    }

    @Test("an unclosed quote and a stray quote are errors with their line")
    func errors() {
        #expect(throws: CSV.Problem.unclosedQuote(line: 2)) { try CSV.records("a\n\"open\nstill") }
        #expect(throws: CSV.Problem.strayQuote(line: 1)) { try CSV.records("a\"b") }
        #expect(throws: CSV.Problem.strayQuote(line: 1)) { try CSV.records("\"a\"b") }
    }
}
