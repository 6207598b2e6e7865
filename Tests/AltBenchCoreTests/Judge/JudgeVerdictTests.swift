import Foundation
import Testing

@testable import AltBenchCore

/// A judge without structured output answers in many shapes; each row is one shape seen from
/// real judges, with the verdict or the error it must give.
@Suite("judge verdict parsing")
struct JudgeVerdictTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var content: String?
        var refusal: String? = nil
        var expected: Result<JudgeVerdict, JudgeVerdictError>

        var testDescription: String { name }
    }

    static func ok(_ a: Int, _ c: Int, _ n: Int, _ errors: [String] = []) -> Result<JudgeVerdict, JudgeVerdictError> {
        .success(JudgeVerdict(accuracy: a, completeness: c, concision: n, errors: errors))
    }

    static let rows: [Row] = [
        Row(
            name: "plain JSON",
            content: #"{"accuracy": 4, "completeness": 3, "concision": 5, "errors": ["misses the date"]}"#,
            expected: ok(4, 3, 5, ["misses the date"])),
        Row(
            name: "```json fence",
            content: "```json\n{\"accuracy\":2,\"completeness\":2,\"concision\":4,\"errors\":[]}\n```",
            expected: ok(2, 2, 4)),
        Row(
            name: "bare ``` fence after prose with a stray brace",
            content: "Verdict {see below}:\n```\n{\"accuracy\":5,\"completeness\":4,\"concision\":4,\"errors\":[]}\n```\n",
            expected: ok(5, 4, 4)),
        Row(
            name: "prose around the JSON",
            content: "Here is my assessment. {\"accuracy\": 3, \"completeness\": 4, \"concision\": 2, \"errors\": [\"too long\"]} I hope it's useful.",
            expected: ok(3, 4, 2, ["too long"])),
        Row(
            name: "braces and quotes inside strings",
            content: #"Result: {"accuracy": 2, "completeness": 3, "concision": 3, "errors": ["says \"{closed}\" where the sign reads } OPEN {"]} done"#,
            expected: ok(2, 3, 3, [#"says "{closed}" where the sign reads } OPEN {"#])),
        Row(
            name: "keys in any case",
            content: #"{"Accuracy": 4, "COMPLETENESS": 4, "Concision": 4, "Errors": []}"#,
            expected: ok(4, 4, 4)),
        Row(
            name: "numbers as strings and 4.0",
            content: #"{"accuracy": "4", "completeness": 3.0, "concision": " 5 ", "errors": []}"#,
            expected: ok(4, 3, 5)),
        Row(
            name: "4/5 and 2 out of 5",
            content: #"{"accuracy": "4/5", "completeness": "2 out of 5", "concision": "5 / 5"}"#,
            expected: ok(4, 2, 5)),
        Row(
            name: "3.5 is not guessed",
            content: #"{"accuracy": 3.5, "completeness": 3, "concision": 3, "errors": []}"#,
            expected: .failure(.notWhole(field: "accuracy", value: "3.5"))),
        Row(
            name: "\"3.5/5\" is not guessed either",
            content: #"{"accuracy": 4, "completeness": "3.5/5", "concision": 3}"#,
            expected: .failure(.notWhole(field: "completeness", value: "3.5"))),
        Row(
            name: "0 is out of range",
            content: #"{"accuracy": 0, "completeness": 3, "concision": 3, "errors": []}"#,
            expected: .failure(.outOfRange(field: "accuracy", value: "0"))),
        Row(
            name: "6 is out of range",
            content: #"{"accuracy": 3, "completeness": 3, "concision": 6, "errors": []}"#,
            expected: .failure(.outOfRange(field: "concision", value: "6"))),
        Row(
            name: "-1 is out of range",
            content: #"{"accuracy": 3, "completeness": "-1", "concision": 3}"#,
            expected: .failure(.outOfRange(field: "completeness", value: "-1"))),
        Row(
            name: "8/10 is not a 1-5 grade",
            content: #"{"accuracy": "8/10", "completeness": 3, "concision": 3}"#,
            expected: .failure(.notANumber(field: "accuracy", value: "\"8/10\""))),
        Row(
            name: "a word is not a grade",
            content: #"{"accuracy": "good", "completeness": 3, "concision": 3}"#,
            expected: .failure(.notANumber(field: "accuracy", value: "\"good\""))),
        Row(
            name: "missing field",
            content: #"{"accuracy": 4, "concision": 5, "errors": []}"#,
            expected: .failure(.missingField("completeness"))),
        Row(
            name: "null grade is missing",
            content: #"{"accuracy": null, "completeness": 3, "concision": 5}"#,
            expected: .failure(.missingField("accuracy"))),
        Row(
            name: "errors as objects",
            content: #"{"accuracy":2,"completeness":3,"concision":4,"errors":[{"description":"wrong colour"},{"Error":"misreads the sign"},{"text":"no date"},{"message":"adds a window"},{"severity":"high"}]}"#,
            expected: ok(2, 3, 4, ["wrong colour", "misreads the sign", "no date", "adds a window"])),
        Row(
            name: "errors as one string",
            content: #"{"accuracy":3,"completeness":3,"concision":3,"errors":"invents a dog"}"#,
            expected: ok(3, 3, 3, ["invents a dog"])),
        Row(
            name: "errors null",
            content: #"{"accuracy":5,"completeness":5,"concision":5,"errors":null}"#,
            expected: ok(5, 5, 5)),
        Row(
            name: "errors absent",
            content: #"{"accuracy":5,"completeness":5,"concision":5}"#,
            expected: ok(5, 5, 5)),
        Row(
            name: "errors saying none are dropped",
            content: #"{"accuracy":5,"completeness":5,"concision":5,"errors":["None", "N/A", ""]}"#,
            expected: ok(5, 5, 5)),
        Row(
            name: "errors as a number",
            content: #"{"accuracy":5,"completeness":5,"concision":5,"errors":3}"#,
            expected: .failure(.badErrors(value: "3"))),
        Row(
            name: "errors cleaned: control characters and newlines, trimmed",
            content: "{\"accuracy\":3,\"completeness\":3,\"concision\":3,\"errors\":[\"  line one\\nline\\ttwo\\u0007 end  \"]}",
            expected: ok(3, 3, 3, ["line one line two end"])),
        Row(
            name: "verdict wrapped in one member",
            content: #"{"verdict": {"accuracy": 4, "completeness": 4, "concision": 3, "errors": []}}"#,
            expected: ok(4, 4, 3)),
        Row(
            name: "refusal field",
            content: nil, refusal: "I'm sorry, I can't help with that.",
            expected: .failure(.refused(excerpt: "I'm sorry, I can't help with that."))),
        Row(
            name: "refusal wins over content",
            content: #"{"accuracy":5,"completeness":5,"concision":5}"#, refusal: "No.",
            expected: .failure(.refused(excerpt: "No."))),
        Row(
            name: "prose with no JSON",
            content: "I cannot help with\nthat request.",
            expected: .failure(.noVerdict(excerpt: "I cannot help with that request."))),
        Row(
            name: "unbalanced object",
            content: #"{"accuracy": 4, "completeness": 4"#,
            expected: .failure(.noVerdict(excerpt: #"{"accuracy": 4, "completeness": 4"#))),
        Row(name: "empty content", content: "", expected: .failure(.empty)),
        Row(name: "whitespace content", content: " \n\t", expected: .failure(.empty)),
        Row(name: "null content", content: nil, expected: .failure(.empty)),
    ]

    @Test(arguments: rows)
    func parses(_ row: Row) {
        #expect(JudgeVerdict.parse(content: row.content, refusal: row.refusal) == row.expected)
    }

    @Test func longErrorsAreCutAndCounted() throws {
        let long = String(repeating: "word ", count: 100)
        let errors = (0..<15).map { "error \($0) " + long }
        let content = JudgeVerdict(accuracy: 2, completeness: 2, concision: 2, errors: errors).json
        let verdict = try JudgeVerdict.parse(content: content, refusal: nil).get()
        #expect(verdict.errors.count == 10)
        #expect(verdict.errors.allSatisfy { $0.count <= 200 && $0.hasSuffix("…") })
        #expect(verdict.errors[0].hasPrefix("error 0 word word"))
    }

    @Test func noVerdictExcerptIsShort() {
        let content = "I cannot help with that. " + String(repeating: "blah ", count: 100)
        guard case .failure(let error) = JudgeVerdict.parse(content: content, refusal: nil),
            case .noVerdict(let excerpt) = error
        else {
            Issue.record("expected noVerdict")
            return
        }
        #expect(excerpt.count <= 60)
        #expect(excerpt.hasPrefix("I cannot help with that."))
    }

    @Test func errorsReadAsShortSentences() {
        #expect(
            JudgeVerdictError.noVerdict(excerpt: "I cannot help...").description
                == "the judge's answer has no JSON object: \"I cannot help...\"")
        #expect(JudgeVerdictError.outOfRange(field: "accuracy", value: "6").description == "the judge gave accuracy 6, outside 1 to 5.")
        #expect(
            JudgeVerdictError.notWhole(field: "concision", value: "3.5").description
                == "the judge gave concision 3.5, not a whole number from 1 to 5.")
        #expect(JudgeVerdictError.missingField("completeness").description == "the judge's verdict has no completeness grade.")
        #expect(JudgeVerdictError.refused(excerpt: "No.").description == "the judge refused: \"No.\"")
        #expect(JudgeVerdictError.empty.description == "the judge's answer is empty.")
    }

    @Test func jsonRoundTrips() throws {
        let verdict = JudgeVerdict(accuracy: 4, completeness: 2, concision: 5, errors: ["says \"}\" twice", "line\u{2028}break"])
        #expect(verdict.json.hasPrefix(#"{"accuracy":4,"completeness":2,"concision":5,"errors":["#))
        #expect(try JudgeVerdict.parse(content: verdict.json, refusal: nil).get().accuracy == 4)
        #expect(try JSONDecoder().decode(JudgeVerdict.self, from: Data(verdict.json.utf8)) == verdict)
    }
}

@Suite("judge verdict scores")
struct JudgeVerdictScoreTests {
    @Test(arguments: [(1, 0.0), (2, 0.25), (3, 0.5), (4, 0.75), (5, 1.0)])
    func gradeMapsToValue(grade: Int, value: Double) {
        let scores = JudgeVerdict(accuracy: grade, completeness: grade, concision: grade).scores()
        #expect(scores.map(\.name) == [ScoreName.judgeAccuracy, ScoreName.judgeCompleteness, ScoreName.judgeConcision])
        #expect(scores.allSatisfy { $0.value == value && $0.passed == nil })
    }

    @Test func errorsGoInAccuracyDetail() {
        let scores = JudgeVerdict(accuracy: 2, completeness: 4, concision: 5, errors: ["misreads the sign", "invents a dog"]).scores()
        #expect(scores[0].detail == "misreads the sign; invents a dog")
        #expect(scores[1].detail == nil && scores[2].detail == nil)
        #expect(scores[0].value == 0.25 && scores[1].value == 0.75 && scores[2].value == 1)
        #expect(JudgeVerdict(accuracy: 5, completeness: 5, concision: 5).scores()[0].detail == nil)
    }

    @Test func namesAreStable() {
        #expect(ScoreName.judgeAccuracy == "judge_accuracy")
        #expect(ScoreName.judgeCompleteness == "judge_completeness")
        #expect(ScoreName.judgeConcision == "judge_concision")
    }
}
