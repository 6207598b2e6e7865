import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

/// The cost section of the Markdown, HTML and JSON reports: the same figures in each, left out
/// for a run without usage, and every name from a prompt file escaped.
@Suite("Cost report")
struct CostReportTests {
    typealias F = ReportFixtures

    static let costHeader =
        "| variant | max_tokens | model | sent | cached | prompt tokens | estimated | reported/estimated | completion tokens | cost USD |"

    /// The rows of ``ReportFixtures/fullRun(info:)``'s cost table, total last.
    static let fullRunRows = [
        ["short", "60", "gpt-4o-mini", "2", "0", "5,746", "5,742", "1.00×", "68", "$0.00090"],
        ["short", "120", "gpt-4o-mini", "2", "1", "2,873", "2,871", "1.00×", "7", "–"],
        ["plain", "none", "gpt-4o", "3", "0", "1,663", "2,341", "0.71×", "66", "$0.0048"],
        ["**total**", "", "", "7", "1", "10,282", "10,954", "0.94×", "141", "–"],
    ]

    static let fullRunNotes = [
        "1 request of short (max_tokens 120) reported no usage, so its cost is unknown and the run has no total cost.",
        "plain (no max_tokens): the server counted 1,663 prompt tokens where altbench estimated 2,341 (0.71×): the image formula may not fit gpt-4o, or the server resizes images.",
        "The spending limit was $1.00: how much of it the run used is unknown, since 1 request has no cost.",
    ]

    static func markdown(_ results: RunResults, kind: MarkdownReport.Kind = .run) -> String {
        MarkdownReport(results: results, reportDirectory: F.runsDirectory, kind: kind).render()
    }

    static func html(_ results: RunResults) -> String {
        HTMLReport(results: results, reportDirectory: F.runsDirectory).render()
    }

    /// `fullRun` as a run stored before usage was recorded: answers without tokens.
    static func runWithoutUsage() -> RunResults {
        var results = F.fullRun(info: F.info())
        results.trials = results.trials.map { trial in
            var trial = trial
            trial.answer?.promptTokens = nil
            trial.answer?.completionTokens = nil
            trial.estimatedInputTokens = nil
            trial.estimatedImageTokens = nil
            trial.costUSD = nil
            return trial
        }
        return results
    }

    /// A run whose variant and model names are hostile, with an estimate that misses so the
    /// names appear in a note too.
    static let hostileVariant = "<script>|x"
    static let hostileModel = "<img src=x onerror=alert(1)>|m"
    static func hostileRun() -> RunResults {
        let variant = PromptVariant(name: hostileVariant, file: "prompts/x.md", text: "Describe.", model: hostileModel)
        var trial = F.answered(
            variant, 50, F.cat, "A cat.", completionTokens: 9, scores: F.scores(chars: 6),
            usage: F.Usage(prompt: 9_000, estimated: 1_000, estimatedImage: 900))
        trial.costUSD = 0.02
        return RunResults(info: F.info(), variants: [variant], items: [F.cat], trials: [trial], plannedTrials: 1)
    }

    // MARK: - Markdown

    @Test("the Markdown section: a row per pair, a total, then the notes, between the main tables and the variants")
    func markdownSection() throws {
        let report = Self.markdown(F.fullRun())
        GFMTable.expectWellFormed(report)
        let rows = try #require(GFMTable.rows(in: report, header: Self.costHeader))
        #expect(rows == Self.fullRunRows)
        for note in Self.fullRunNotes {
            #expect(report.contains("- " + MarkdownText.inline(note) + "\n"), "\(note)")
        }
        let cost = try #require(report.range(of: "\n## Cost\n"))
        let reference = try #require(report.range(of: "\n## Reference metrics\n"))
        let variants = try #require(report.range(of: "\n## Variants\n"))
        #expect(reference.lowerBound < cost.lowerBound && cost.lowerBound < variants.lowerBound)
    }

    @Test("a run without usage, and a scored file, have no cost section")
    func markdownWithoutUsage() {
        #expect(!Self.markdown(Self.runWithoutUsage()).contains("## Cost"))
        #expect(!Self.markdown(F.fullRun(), kind: .scoredFile(path: "alts.csv", dataset: nil)).contains("## Cost"))
    }

    @Test("a mock run's section says the mock bills nothing")
    func markdownMock() {
        let report = Self.markdown(F.fullRun(info: F.info(provider: .mock)))
        #expect(report.contains("- The mock bills nothing: the costs are what gpt-4o and gpt-4o-mini would charge at list prices for the mock's token counts.\n"))
        // The mock's token counts are its own: no pair is held against the estimate.
        #expect(!report.contains("the server counted"))
    }

    @Test("hostile names stay text in the Markdown table and notes")
    func markdownEscapes() throws {
        let report = Self.markdown(Self.hostileRun())
        GFMTable.expectWellFormed(report)
        let rows = try #require(GFMTable.rows(in: report, header: Self.costHeader))
        #expect(rows.first?.prefix(3) == ["&lt;script&gt;\\|x", "50", "&lt;img src=x onerror=alert(1)&gt;\\|m"])
        #expect(report.contains("- &lt;script&gt;\\|x (max\\_tokens 50): the server counted 9,000 prompt tokens"))
        #expect(!report.contains("<script>"))
        #expect(!report.contains("<img src=x"))
    }

    // MARK: - HTML

    /// The text of each `<td>` of each row of the cost table's `tbody` and `tfoot`.
    static func htmlRows(_ html: String) throws -> [[String]] {
        let start = try #require(html.range(of: "<section id=\"cost\">"))
        let end = try #require(html.range(of: "</section>", range: start.upperBound..<html.endIndex))
        let section = String(html[start.upperBound..<end.lowerBound])
        return section.matches(of: /<tr>(.*?)<\/tr>/).dropFirst().map { row in
            String(row.output.1).matches(of: /<td[^>]*>(.*?)<\/td>/).map { String($0.output.1) }
        }
    }

    @Test("the HTML section shows the Markdown's figures, the total in tfoot so sorting leaves it last")
    func htmlSection() throws {
        let html = Self.html(F.fullRun())
        let rows = try Self.htmlRows(html)
        var expected = Self.fullRunRows
        expected[expected.count - 1][0] = "total"
        #expect(rows == expected)
        #expect(html.contains("</tbody><tfoot><tr><td class=\"total\">total</td>"))
        for note in Self.fullRunNotes {
            #expect(html.contains("<li>\(SafeHTML.escapeText(note))</li>"), "\(note)")
        }
        // After the summary table, before the gallery.
        let summary = try #require(html.range(of: "<h2>Summary</h2>"))
        let cost = try #require(html.range(of: "<h2>Cost</h2>"))
        let gallery = try #require(html.range(of: "<h2>Per image</h2>"))
        #expect(summary.lowerBound < cost.lowerBound && cost.lowerBound < gallery.lowerBound)
        // Numbers sort by value, not by their text with separators.
        #expect(html.contains("<td data-sort=\"10282.0\">10,282</td>"))
    }

    @Test("a run without usage has no cost section in HTML")
    func htmlWithoutUsage() {
        #expect(!Self.html(Self.runWithoutUsage()).contains("id=\"cost\""))
    }

    @Test("hostile names stay text in the HTML table and notes")
    func htmlEscapes() throws {
        let html = Self.html(Self.hostileRun())
        let rows = try Self.htmlRows(html)
        #expect(rows.first?.prefix(3) == ["&lt;script&gt;|x", "50", "&lt;img src=x onerror=alert(1)&gt;|m"])
        #expect(html.contains("<li>&lt;script&gt;|x (max_tokens 50): the server counted"))
        #expect(html.components(separatedBy: "<script").count == 2, "only the report's own script element")
        #expect(!html.contains("<img src=x"))
    }

    // MARK: - JSON

    static func json(_ results: RunResults) throws -> JSONValue {
        try JSONValue.parse(Data(ReportJSON.render(results).utf8))
    }

    @Test("the JSON cost object has the same figures as numbers, null where unknown")
    func jsonCost() throws {
        let cost = try #require(try Self.json(F.fullRun())["cost"])
        let pairs = try #require(cost["pairs"]?.arrayValue)
        #expect(pairs.map { $0["variant"]?.stringValue } == ["short", "short", "plain"])
        let first = pairs[0]
        #expect(first["max_tokens"] == .int(60))
        #expect(first["model"] == .string("gpt-4o-mini"))
        #expect(first["sent"] == .int(2))
        #expect(first["failed"] == .int(2))
        #expect(first["prompt_tokens"] == .int(5_746))
        #expect(first["estimated_input_tokens"] == .int(5_742))
        #expect(first["estimated_image_tokens"] == .int(5_666))
        #expect(first["cached_tokens"] == .null)
        #expect(abs((first["reported_to_estimated"]?.doubleValue ?? 0) - 5_746.0 / 5_742.0) < 1e-12)
        #expect(abs((first["cost_usd"]?.doubleValue ?? 0) - 0.0009027) < 1e-12)
        let second = pairs[1]
        #expect(second["cost_usd"] == .null)
        #expect(second["without_usage"] == .int(1))
        #expect(second["without_cost"] == .int(1))
        #expect(second["from_store"] == .int(1))
        #expect(pairs[2]["max_tokens"] == .null)
        let total = try #require(cost["total"])
        #expect(total["prompt_tokens"] == .int(10_282))
        #expect(total["cost_usd"] == .null)
        #expect(total["trials"] == .int(12))
        #expect(cost["billed"] == .bool(true))
        #expect(cost["max_cost_usd"] == .int(1))
        #expect(cost["notes"]?.arrayValue?.compactMap(\.stringValue) == Self.fullRunNotes)
        #expect(
            Set(first.objectValue?.keys.map { $0 } ?? []) == [
                "variant", "max_tokens", "model", "trials", "sent", "from_store", "failed", "prompt_tokens",
                "completion_tokens", "cached_tokens", "image_tokens", "reasoning_tokens", "estimated_input_tokens",
                "estimated_image_tokens", "compared_prompt_tokens", "reported_to_estimated", "without_usage", "cost_usd",
                "without_cost",
            ])
    }

    @Test("the JSON cost is null for a run without usage, and a mock run is not billed")
    func jsonNullAndMock() throws {
        #expect(try Self.json(Self.runWithoutUsage())["cost"] == .null)
        #expect(try Self.json(F.fullRun(info: F.info(provider: .mock)))["cost"]?["billed"] == .bool(false))
    }

    @Test("hostile names come back from the JSON exactly")
    func jsonEscapes() throws {
        let pair = try #require(try Self.json(Self.hostileRun())["cost"]?["pairs"]?[0])
        #expect(pair["variant"] == .string(Self.hostileVariant))
        #expect(pair["model"] == .string(Self.hostileModel))
    }

    // MARK: - Formats

    @Test(
        "money reads well at every size",
        arguments: [
            (nil, "–"), (0, "$0.00"), (0.0042, "$0.0042"), (0.00419, "$0.0042"), (0.042, "$0.042"), (0.42, "$0.42"),
            (0.5, "$0.50"), (0.00999, "$0.010"), (0.999, "$1.00"), (1.27, "$1.27"), (1_234.5, "$1,234.50"),
            (1_234_567.891, "$1,234,567.89"), (0.000_001_2, "$0.000001"), (0.000_000_4, "<$0.000001"),
        ] as [(Double?, String)])
    func money(amount: Double?, text: String) {
        #expect(Format.usd(amount) == text)
    }

    @Test(
        "a cost range shows both ends, or one figure when they match",
        arguments: [(0.0088, 0.0098, "$0.0088–$0.0098"), (1.2, 1.2, "$1.20"), (0, 0, "$0.00"), (0.999, 1.001, "$1.00")])
    func moneyRange(low: Double, high: Double, text: String) {
        #expect(Format.usdRange(low: low, high: high) == text)
    }

    @Test(
        "token counts take thousands separators",
        arguments: [(nil, "–"), (0, "0"), (999, "999"), (1_000, "1,000"), (25_890, "25,890"), (1_234_567, "1,234,567")]
            as [(Int?, String)])
    func counts(value: Int?, text: String) {
        #expect(Format.count(value) == text)
    }

    @Test(
        "reported/estimated has two decimals, one from ten up",
        arguments: [(nil, "–"), (1.0, "1.00×"), (0.4498, "0.45×"), (9.99, "9.99×"), (9.996, "10.0×"), (12.258, "12.3×")]
            as [(Double?, String)])
    func ratios(value: Double?, text: String) {
        #expect(Format.ratio(value) == text)
    }
}
