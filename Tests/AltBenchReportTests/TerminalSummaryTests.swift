import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

@Suite("TerminalSummary")
struct TerminalSummaryTests {
    typealias F = ReportFixtures

    /// Column spans read off the dashes line: each run of `-` is one column.
    private static func columns(_ dashes: String) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var start: Int?
        for (index, character) in Array(dashes).enumerated() {
            if character == "-", start == nil { start = index }
            if character != "-", let open = start {
                spans.append(open..<index)
                start = nil
            }
        }
        if let open = start { spans.append(open..<dashes.count) }
        return spans
    }

    @Test("one line per row, every column aligned: names to the left, figures to the right")
    func aligned() throws {
        let text = TerminalSummary.render(F.fullRun())
        #expect(text.hasSuffix("\n"))
        let all = text.dropLast().components(separatedBy: "\n")
        // The table, a blank line and the note on the form-only mark.
        #expect(all.count == 2 + 3 + 2)
        #expect(all[5] == "")
        #expect(all[6].hasPrefix("†n: form only — n of the row's answered trials (3 in all)"))
        let lines = Array(all.prefix(5))
        let spans = Self.columns(lines[1])
        #expect(spans.count == 16)
        #expect(Set(lines.map(\.count)).count == 1, "lines differ in length:\n\(text)")
        let table = lines.enumerated().filter { $0.offset != 1 }.map { Array($0.element) }
        for line in table {
            // Two spaces between columns, so no cell runs into the next.
            for (left, right) in zip(spans, spans.dropFirst()) {
                #expect(line[left.upperBound..<right.lowerBound].allSatisfy { $0 == " " })
            }
            #expect(line[spans[0].lowerBound] != " ", "the variant column is left-aligned")
            for span in spans.dropFirst() {
                #expect(line[span.upperBound - 1] != " ", "figures are right-aligned: \(String(line))")
            }
        }
        let cells = table.map { line in spans.map { String(line[$0]).trimmingCharacters(in: .whitespaces) } }
        #expect(
            cells[0] == [
                "variant", "max_tokens", "n", "errors", "form", "content", "quality", "mean chars", "p90 chars", "≤150", "1st person", "truncated",
                "refusals", "empty", "compl. tokens", "p50 latency",
            ])
        // The remote image has no references: one answer a row is form only.
        #expect(cells[1] == ["short", "60", "4", "2", "0.50", "0.40", "0.50†1", "22.5", "24", "100%", "50%", "50%", "0%", "0%", "34.0", "12.5 s"])
        #expect(cells[2] == ["short", "120", "4", "1", "0.67", "0.40", "0.60†1", "25.3", "42", "100%", "0%", "0%", "33%", "33%", "9.0", "650 ms"])
        #expect(cells[3] == ["plain", "none", "4", "1", "0.30", "0.25", "0.30†1", "80.7", "171", "67%", "0%", "0%", "0%", "33%", "22.0", "1200 ms"])
    }

    @Test("a small run renders exactly")
    func exact() {
        let variant = PromptVariant(name: "v", file: "prompts/v.md", text: "Describe.")
        let results = RunResults(
            info: F.info(), variants: [variant], items: [F.cat],
            trials: [
                F.answered(
                    variant, 100, F.cat, "A cat.", completionTokens: 3, latencyMs: 0.4, scores: F.scores(chars: 6, match: 0.5))
            ],
            plannedTrials: 1)
        #expect(
            TerminalSummary.render(results) == """
                variant  max_tokens  n  errors  form  content  quality  mean chars  p90 chars  ≤150  1st person  truncated  refusals  empty  compl. tokens  p50 latency
                -------  ----------  -  ------  ----  -------  -------  ----------  ---------  ----  ----------  ---------  --------  -----  -------------  -----------
                v               100  1       0  1.00     0.50     0.50         6.0          6  100%          0%         0%        0%     0%            3.0        <1 ms

                """)
    }

    @Test("a run whose answers have no content part says quality is form only")
    func formOnly() {
        let variant = PromptVariant(name: "v", file: "prompts/v.md", text: "Describe.")
        let results = RunResults(
            info: F.info(), variants: [variant], items: [F.cat],
            trials: [
                F.answered(variant, 100, F.cat, "A cat.", latencyMs: 0.4, scores: F.scores(chars: 6)),
                F.answered(variant, 100, F.cat, "A cat.", latencyMs: 0.4, repeatIndex: 1, scores: F.scores(chars: 6)),
            ],
            plannedTrials: 2)
        let lines = TerminalSummary.render(results).dropLast().components(separatedBy: "\n")
        let cells = lines[2].split(separator: " ").map(String.init)
        #expect(Array(cells[4...6]) == ["1.00", "–", "1.00†2"], "\(lines[2])")
        #expect(lines.last?.hasPrefix("†n: form only — n of the row's answered trials (2 in all) had no content part") == true)
    }

    @Test("a variant name with line breaks or tabs still gives one line per row")
    func controlCharactersInNames() {
        let variant = PromptVariant(name: "two\nlines\r\tname", file: "prompts/x.md", text: "Describe.")
        let results = RunResults(
            info: F.info(), variants: [variant], items: [F.cat],
            trials: [F.answered(variant, nil, F.cat, "A cat.", scores: F.scores(chars: 6, match: 1))], plannedTrials: 1)
        let lines = TerminalSummary.render(results).dropLast().components(separatedBy: "\n")
        #expect(lines.count == 3)
        #expect(lines[2].hasPrefix("two lines  name"))
        #expect(Set(lines.map(\.count)).count == 1)
    }

    @Test("an empty run prints the header only")
    func empty() {
        let results = RunResults(info: F.info(), variants: [], items: [], trials: [], plannedTrials: 0)
        let lines = TerminalSummary.render(results).dropLast().components(separatedBy: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("variant  max_tokens"))
    }
}

@Suite("quality halves in the JSON report")
struct QualityHalvesJSONTests {
    typealias F = ReportFixtures

    @Test("each summary row has form, content, quality and the form-only count")
    func summaryRows() throws {
        let root = try JSONValue.parse(Data(ReportJSON.render(F.fullRun()).utf8))
        let rows = try #require(root["summary"]?.arrayValue)
        #expect(rows.map { $0["variant"]?.stringValue } == ["short", "short", "plain"])
        // short at 120: the cat (form 1, content 0.8), the refusal (form 0, content 0) and the
        // remote image with no references (form 1, form only).
        let row = rows[1]
        #expect(abs((row["form"]?.doubleValue ?? 0) - 2.0 / 3) < 1e-9)
        #expect(abs((row["content"]?.doubleValue ?? 0) - 0.4) < 1e-9)
        #expect(abs((row["quality"]?.doubleValue ?? 0) - 0.6) < 1e-9)
        #expect(row["form_only"] == .int(1))
    }

    @Test("a row with no content anywhere has content null")
    func noContent() throws {
        let variant = PromptVariant(name: "v", file: "prompts/v.md", text: "Describe.")
        let results = RunResults(
            info: F.info(), variants: [variant], items: [F.remote],
            trials: [F.answered(variant, 100, F.remote, "A chart.", scores: F.scores(chars: 8))], plannedTrials: 1)
        let row = try #require(try JSONValue.parse(Data(ReportJSON.render(results).utf8))["summary"]?.arrayValue?.first)
        #expect(row["content"] == .null)
        #expect(row["form_only"] == .int(1))
        #expect(row["quality"] == row["form"])
    }
}
