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
        let lines = text.dropLast().components(separatedBy: "\n")
        #expect(lines.count == 2 + 3)
        let spans = Self.columns(lines[1])
        #expect(spans.count == 14)
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
                "variant", "max_tokens", "n", "errors", "quality", "mean chars", "p90 chars", "≤150", "1st person", "truncated",
                "refusals", "empty", "compl. tokens", "p50 latency",
            ])
        #expect(cells[1] == ["short", "60", "4", "2", "0.50", "22.5", "24", "100%", "50%", "50%", "0%", "0%", "34.0", "12.5 s"])
        #expect(cells[2] == ["short", "120", "4", "1", "0.67", "25.3", "42", "100%", "0%", "0%", "33%", "33%", "9.0", "650 ms"])
        #expect(cells[3] == ["plain", "none", "4", "1", "0.30", "80.7", "171", "67%", "0%", "0%", "0%", "33%", "22.0", "1200 ms"])
    }

    @Test("a small run renders exactly")
    func exact() {
        let variant = PromptVariant(name: "v", file: "prompts/v.md", text: "Describe.")
        let results = RunResults(
            info: F.info(), variants: [variant], items: [F.cat],
            trials: [F.answered(variant, 100, F.cat, "A cat.", completionTokens: 3, latencyMs: 0.4, scores: F.scores(chars: 6))],
            plannedTrials: 1)
        #expect(
            TerminalSummary.render(results) == """
                variant  max_tokens  n  errors  quality  mean chars  p90 chars  ≤150  1st person  truncated  refusals  empty  compl. tokens  p50 latency
                -------  ----------  -  ------  -------  ----------  ---------  ----  ----------  ---------  --------  -----  -------------  -----------
                v               100  1       0     1.00         6.0          6  100%          0%         0%        0%     0%            3.0        <1 ms

                """)
    }

    @Test("a variant name with line breaks or tabs still gives one line per row")
    func controlCharactersInNames() {
        let variant = PromptVariant(name: "two\nlines\r\tname", file: "prompts/x.md", text: "Describe.")
        let results = RunResults(
            info: F.info(), variants: [variant], items: [F.cat],
            trials: [F.answered(variant, nil, F.cat, "A cat.", scores: F.scores(chars: 6))], plannedTrials: 1)
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
