import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

/// The judge in every report: its section, its per-answer column, the terminal line and the
/// JSON, with the judge's own (untrusted) texts escaped for where they go.
@Suite("Reports: the judge")
struct JudgeReportTests {
    typealias F = ReportFixtures

    static let hostile = "Says <script>alert(1)</script> | a pipe\nand a [link](javascript:x) `code`"

    /// The full run with its answered trials judged: the first with the hostile error, one
    /// unreadable, the rest plain; the judge recorded in the settings.
    static func judgedRun(repeats: Int = 1) -> RunResults {
        var settings = F.settings
        if case .object(var object) = settings {
            object["judge"] = ["model": "gpt-4o", "endpoint": "https://api.openai.com/v1/chat/completions", "rubric": "judges/alt-text.md"]
            settings = .object(object)
        }
        var info = F.info()
        info.settings = settings
        var results = F.fullRun(info: info)
        var first = true
        for index in results.trials.indices where !results.trials[index].failed {
            var rows: [RunResults.JudgementRow] = []
            for repeatIndex in 0..<repeats {
                let unreadable = index == 4
                let accuracy = first ? 2 : 4 + (repeatIndex % 2)
                rows.append(
                    RunResults.JudgementRow(
                        repeatIndex: repeatIndex, model: "gpt-4o", endpoint: "e", rubric: "judges/alt-text.md",
                        rubricSHA256: "ab", cacheKey: "k\(index)-\(repeatIndex)", status: unreadable ? .unreadable : .judged,
                        cached: false, accuracy: unreadable ? nil : accuracy, completeness: unreadable ? nil : 3,
                        concision: unreadable ? nil : 5, errors: first ? [hostile] : [],
                        error: unreadable ? "the judge's answer has no JSON object: \"<b>nope</b>\"" : nil,
                        promptTokens: 900, completionTokens: 30, costUSD: 0.0026))
            }
            results.trials[index].judgements = rows
            let scores = JudgeScores.scores(from: rows)
            let rescored = JudgeScores.rescored(Array(results.trials[index].scores.values), judge: scores, settings: ScoringSettings())
            results.trials[index].scores = ScoreSet(rescored)
            first = false
        }
        return results
    }

    @Test("Markdown: a Judge section with means, calls, problems, cost and agreement; the hostile error escaped")
    func markdown() throws {
        let markdown = MarkdownReport(results: Self.judgedRun(), reportDirectory: F.runsDirectory).render()
        let section = try #require(markdown.components(separatedBy: "## Judge\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        #expect(section.contains("Judged by gpt-4o at https://api.openai.com/v1/chat/completions by the rubric judges/alt-text.md"))
        #expect(section.contains("| variant | max_tokens | judge accuracy | judge completeness | judge concision | judged |"))
        #expect(section.contains("answered without a readable verdict"))
        #expect(section.contains("Judge tokens:"))
        #expect(section.contains("Cohen's κ"))
        #expect(!markdown.contains("<script>"))
        #expect(!markdown.contains("<b>nope</b>"))
        // The per-answer judge column keeps each table row on one line with its cell count.
        let header = try #require(markdown.split(separator: "\n").first { $0.hasPrefix("| variant | max_tokens | answer |") })
        #expect(header.hasSuffix("| judge |"))
        let rows = markdown.split(separator: "\n").filter { $0.contains("accuracy 2/5") }
        #expect(!rows.isEmpty)
        for row in rows { #expect(GFMTable.cells(String(row)).count == GFMTable.cells(String(header)).count, "\(row)") }
    }

    @Test("HTML: the Judge section and the per-answer judge cell, with every judge text escaped")
    func html() throws {
        let html = HTMLReport(results: Self.judgedRun(), reportDirectory: F.runsDirectory).render()
        #expect(html.contains("<section id=\"judge\">"))
        #expect(html.contains("<h2>Judge</h2>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script>alert(1)"))
        #expect(!html.contains("<b>nope</b>"))
        #expect(html.contains("<th>judge</th>"))
    }

    @Test("the terminal line and the JSON judge object")
    func terminalAndJSON() throws {
        let results = Self.judgedRun(repeats: 2)
        let text = TerminalSummary.render(results)
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("judge (gpt-4o)") })
        #expect(line.contains("without a verdict"))
        let json = try JSONValue.parse(Data(ReportJSON.render(results).utf8))
        let judge = try #require(json["judge"])
        #expect(judge["model"] == .string("gpt-4o"))
        #expect(judge["unreadable"] == .int(2))
        #expect(judge["stability"]?["repeats"] == .int(2))
        #expect(judge["problems"]?.arrayValue?.first?["count"] == .int(2))
        let row = try #require(json["summary"]?.arrayValue?.first)
        #expect(row["judged"] != nil)
    }

    @Test("the summary tables get a judge column, and compare a judge accuracy column with its paired test")
    func summaryAndCompareColumns() throws {
        let results = Self.judgedRun()
        let markdown = MarkdownReport(results: results, reportDirectory: F.runsDirectory).render()
        let summary = try #require(markdown.split(separator: "\n").first { $0.hasPrefix("| variant | max_tokens | n |") })
        #expect(summary.contains("| quality | judge accuracy | mean chars |"))
        #expect(TerminalSummary.render(results).split(separator: "\n").first?.contains("quality  judge") == true)
        #expect(HTMLReport(results: results, reportDirectory: F.runsDirectory).render().contains("<th>judge accuracy</th>"))
        let snapshot = RunSnapshot(results)
        let compared = CompareReport.markdown(Comparison(before: snapshot, after: snapshot))
        #expect(compared.contains("| judge accuracy | significance |"))
        let plain = RunSnapshot(F.fullRun())
        #expect(!CompareReport.markdown(Comparison(before: plain, after: plain)).contains("judge accuracy"))
    }

    @Test("a run nobody judged has no judge section, column or line")
    func unjudged() {
        let results = F.fullRun()
        #expect(!MarkdownReport(results: results, reportDirectory: F.runsDirectory).render().contains("## Judge"))
        #expect(!HTMLReport(results: results, reportDirectory: F.runsDirectory).render().contains("id=\"judge\""))
        #expect(!TerminalSummary.render(results).contains("judge ("))
        #expect((try? JSONValue.parse(Data(ReportJSON.render(results).utf8)))?["judge"] == .null)
    }
}
