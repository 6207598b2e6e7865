import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

@Suite("MarkdownReport")
struct MarkdownReportTests {
    typealias F = ReportFixtures

    private static func render(_ results: RunResults, from directory: URL = F.runsDirectory) -> String {
        MarkdownReport(results: results, reportDirectory: directory).render()
    }

    private static let summaryHeader =
        "| variant | max_tokens | n | errors | form | content | quality | mean chars | p90 chars | ≤ 150 chars | first person | truncated | refusals | empty | mean completion tokens | p50 latency |"
    private static let perImageHeader = "| variant | max_tokens | answer | chars | quality | flags |"

    /// The lines of the `### item` section, up to the next heading.
    private static func section(_ item: String, in markdown: String) -> [String] {
        let lines = markdown.components(separatedBy: "\n")
        guard let start = lines.firstIndex(of: "### \(item)") else { return [] }
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { $0.hasPrefix("#") } ?? lines.endIndex
        return Array(lines[start..<end])
    }

    // MARK: - Header

    @Test("a mock run says so in its title and carries the mock warning")
    func mockHeader() {
        let report = Self.render(F.fullRun(info: F.info(provider: .mock)))
        let lines = report.components(separatedBy: "\n")
        #expect(lines[0] == "# altbench run 20260101-000000-abcd (mock)")
        #expect(lines[2].hasPrefix("> **Mock results, not a model.**"))
        #expect(report.contains("| provider | mock: --provider mock |"))
        // The mock has no endpoint worth showing.
        #expect(!report.contains("| endpoint |"))
    }

    @Test("a model's run has no mock warning")
    func openAIHeader() {
        let report = Self.render(F.fullRun())
        #expect(report.hasPrefix("# altbench run 20260101-000000-abcd (openai)\n\n| | |\n"))
        #expect(!report.localizedCaseInsensitiveContains("mock"))
        #expect(report.contains("| endpoint | https://api.openai.com/v1/chat/completions |"))
        #expect(report.contains("| model | gpt-4o, gpt-4o-mini |"))
        #expect(report.contains("| started | 2026-01-01 00:00:00 UTC |"))
        #expect(report.contains("| duration | 2 min 05 s |"))
        #expect(report.contains("| trials | 12 of 12: 8 answered (1 from cache), 4 failed |"))
        #expect(report.contains("| dataset | datasets/sample (4 items) |"))
        #expect(report.contains("| prompts | prompts (2 variants) |"))
        #expect(!report.contains("did not finish"))
    }

    @Test(
        "a run that did not finish says so, with its reason and how far it got",
        arguments: [("stopped", "HTTP 401: invalid_api_key"), ("running", nil)] as [(String, String?)])
    func unfinished(status: String, message: String?) {
        var results = F.fullRun(info: F.info(status: status, statusMessage: message, finishedAfter: nil))
        results.trials.removeLast(5)
        let report = Self.render(results)
        let reason = message.map { ": \(MarkdownText.inline($0))" } ?? ""
        #expect(
            report.contains(
                "> **Incomplete: this run did not finish** (\(status))\(reason). It holds 7 of 12 planned trials; `altbench run --resume 20260101-000000-abcd` asks the rest."))
        #expect(report.contains("| duration | – |"))
    }

    @Test("a run stopped by a configuration error says to start a new run, not to resume")
    func stoppedByConfiguration() {
        var info = F.info(status: "stopped", statusMessage: "HTTP 404: model_not_found", finishedAfter: nil)
        info.stoppedBy = "configuration"
        let report = Self.render(F.fullRun(info: info))
        #expect(
            report.contains(
                "> **Incomplete: this run did not finish** (stopped): HTTP 404: model\\_not\\_found. It holds 12 of 12 planned trials; fix the cause and start a new run (it reuses every stored answer); `--resume` would repeat the same requests."))
        #expect(!report.contains("altbench run --resume"))

        // A lost server is back some day: resuming is the way on.
        info.stoppedBy = "server_lost"
        #expect(Self.render(F.fullRun(info: info)).contains("`altbench run --resume 20260101-000000-abcd` asks the rest."))
    }

    // MARK: - Summary

    @Test("the summary table has one row per (variant, max_tokens) with its figures")
    func summaryTable() throws {
        let report = Self.render(F.fullRun())
        let rows = try #require(GFMTable.rows(in: report, header: Self.summaryHeader))
        #expect(
            rows == [
                ["short", "60", "4", "2", "0.50", "0.40", "0.50†1", "22.5", "24", "100%", "50%", "50%", "0%", "0%", "34.0", "12.5 s"],
                ["short", "120", "4", "1", "0.67", "0.40", "0.60†1", "25.3", "42", "100%", "0%", "0%", "33%", "33%", "9.0", "650 ms"],
                ["plain", "none", "4", "1", "0.30", "0.25", "0.30†1", "80.7", "171", "67%", "0%", "0%", "0%", "33%", "22.0", "1200 ms"],
            ])
        // The mark is explained under the table, with the count over the run.
        #expect(report.contains("†n: form only — n of the row's answered trials (3 in all) had no content part"))
    }

    @Test("variant names in the summary are escaped")
    func summaryEscapesNames() throws {
        var results = F.fullRun()
        let odd = PromptVariant(name: "a|b *c*", file: "prompts/odd.md", text: "Odd.")
        results.variants.append(odd)
        results.trials.append(F.answered(odd, nil, F.cat, "A cat.", scores: F.scores(chars: 6)))
        let report = Self.render(results)
        let rows = try #require(GFMTable.rows(in: report, header: Self.summaryHeader))
        #expect(rows.last?.first == #"a\|b \*c\*"#)
        GFMTable.expectWellFormed(report)
    }

    // MARK: - Per image

    @Test("each image shows every variant's answer side by side, escaped, in variant order")
    func perImage() {
        let report = Self.render(F.fullRun())
        let cat = Self.section("cat", in: report)
        #expect(cat.contains("![cat](../../datasets/sample/cat.png)"))
        #expect(cat.contains("640×480 · PNG"))
        #expect(cat.contains("Reference: A grey cat asleep on a windowsill."))
        let table = cat.filter { $0.hasPrefix("|") }
        #expect(table.first == Self.perImageHeader)
        let rows = table.dropFirst(2).map(GFMTable.cells)
        #expect(rows.map { $0[0] + "@" + $0[1] } == ["short@60", "short@120", "plain@none"])
        #expect(rows[0] == ["short", "60", "I see a grey cat on a", "21", "0.00", "truncated, first person"])
        #expect(rows[1] == ["short", "120", "A grey cat asleep on a windowsill.", "34", "0.80", ""])
        #expect(
            rows[2] == [
                "plain", "none",
                #"Image of a cat \| sleeping<br>in the \*sun\* &lt;b&gt;bold&lt;/b&gt; \[link\](http://x) \`code\`"#,
                "71", "0.00", "“image of”",
            ])
        #expect(!report.contains("<b>"))
    }

    @Test("refusals, empty answers and failed requests read as such in the per-image table")
    func perImageOutcomes() {
        let report = Self.render(F.fullRun())
        let beach = Self.section("beach", in: report)
        #expect(beach.contains("![beach](../../datasets/sample/beach%20day%20%281%29.jpg)"))
        #expect(beach.contains("Reference 1: Two children build a sandcastle."))
        #expect(beach.contains("Reference 2: Kids at the beach."))
        let rows = beach.filter { $0.hasPrefix("|") }.dropFirst(2).map(GFMTable.cells)
        #expect(rows.count == 3)
        #expect(rows[0] == ["short", "60", "*error:* HTTP 500: The server had an error while processing your request.", "–", "–", "failed"])
        #expect(rows[1] == ["short", "120", "*refused:* I can't help with that.", "0", "0.00", "empty, refusal"])
        #expect(rows[2] == ["plain", "none", "*(empty)*", "0", "0.00", "empty"])

        let remote = Self.section("remote", in: report)
        #expect(remote.contains("![remote](https://files.example.test/media/a%20b.png?width=600&format=png)"))
        #expect(remote.contains("remote URL"))
        let long = remote.filter { $0.hasPrefix("| plain") }
        #expect(long.first.map(GFMTable.cells)?.last == "long")
    }

    @Test("image links are relative to the report's folder", arguments: [
        (F.resultsDirectory, "../datasets/sample/cat.png"), (F.runsDirectory, "../../datasets/sample/cat.png"),
    ])
    func relativeLinks(directory: URL, link: String) {
        let report = Self.render(F.fullRun(), from: directory)
        #expect(report.contains("![cat](\(link))"))
    }

    // MARK: - Failures

    @Test("a bad image is listed with its reason and not repeated as a failed request")
    func badImages() throws {
        let report = Self.render(F.fullRun())
        #expect(report.contains("## Images that could not be sent"))
        let rows = try #require(GFMTable.rows(in: report, header: "| item | reason |"))
        #expect(rows == [["broken", try #require(F.broken.problem)]])
        let failed = try #require(GFMTable.rows(in: report, header: "| variant | max_tokens | item | error |"))
        #expect(!failed.contains { $0[2] == "broken" })
        let broken = Self.section("broken", in: report)
        #expect(broken.contains("**Not sent:** \(MarkdownText.inline(F.broken.problem!))"))
        #expect(!broken.contains { $0.hasPrefix("|") })
    }

    @Test("failed requests are listed with their error")
    func failedRequests() throws {
        var results = F.fullRun()
        results.trials.append(F.failed(F.plain, nil, F.cat, error: nil))
        let report = Self.render(results)
        #expect(report.contains("## Failed requests"))
        let rows = try #require(GFMTable.rows(in: report, header: "| variant | max_tokens | item | error |"))
        #expect(
            rows == [
                ["short", "60", "beach", "HTTP 500: The server had an error while processing your request."],
                ["plain", "none", "cat", "unknown error"],
            ])
    }

    @Test("a run without failures has neither failure section")
    func noFailures() {
        var results = F.fullRun()
        results.items.removeAll { $0.id == "broken" }
        results.trials.removeAll(where: \.failed)
        let report = Self.render(results)
        #expect(!report.contains("## Images that could not be sent"))
        #expect(!report.contains("## Failed requests"))
    }

    // MARK: - Repeats

    @Test("a repeat column appears only when the run has repeats")
    func repeatColumn() throws {
        let single = Self.render(F.fullRun())
        #expect(!single.contains("| repeat |"))

        var repeated = F.fullRun()
        repeated.trials.append(
            F.answered(F.short, 60, F.cat, "A cat on a sill.", repeatIndex: 1, scores: F.scores(chars: 16)))
        let report = Self.render(repeated)
        let cat = Self.section("cat", in: report).filter { $0.hasPrefix("|") }
        #expect(cat.first == "| variant | max_tokens | repeat | answer | chars | quality | flags |")
        let rows = cat.dropFirst(2).map(GFMTable.cells)
        #expect(rows.map { "\($0[0])@\($0[1])#\($0[2])" } == ["short@60#0", "short@60#1", "short@120#0", "plain@none#0"])
        GFMTable.expectWellFormed(report)
    }

    // MARK: - Variants

    @Test("the variants section lists each prompt's settings and its text on one line")
    func variants() {
        let report = Self.render(F.fullRun())
        #expect(
            report.contains(
                "- **short** (baseline, `prompts/short.md`, model gpt-4o-mini, max_tokens 60, 120, detail low, temperature 0.2, with a system message): “Describe the image in one sentence. Be brief.”"
            ))
        #expect(report.contains("- **plain** (`prompts/plain.md`): “Write alt text for this image.”"))
    }

    @Test("the variants section shows the limits the run sent, and the file's own when the run replaced them")
    func variantsSentLimits() {
        var results = F.fullRun()
        // The run replaced every prompt's max_tokens with 30 and 80.
        results.info.settings = ["brevity_budget": 150, "max_tokens": [30, 80]]
        results.variants[0].maxTokens = [50]
        results.trials = results.trials.map { trial in
            var trial = trial
            trial.maxTokens = trial.variant == "short" ? (trial.maxTokens == 60 ? 30 : 80) : nil
            return trial
        }
        results.trials.removeAll { $0.variant == "plain" }
        let report = Self.render(results)
        #expect(report.contains("- **short** (baseline, `prompts/short.md`, model gpt-4o-mini, max_tokens 30, 80 (the prompt file says 50), detail low"))
        // A variant with no trials recorded yet shows the run's limits.
        #expect(report.contains("- **plain** (`prompts/plain.md`, max_tokens 30, 80): “Write alt text for this image.”"))
    }

    @Test("a variant's description sits under it; a variant without one has no extra line")
    func variantDescriptions() {
        let lines = Self.render(F.fullRun()).components(separatedBy: "\n")
        let short = lines.firstIndex { $0.hasPrefix("- **short**") }
        let plain = lines.firstIndex { $0.hasPrefix("- **plain**") }
        guard let short, let plain else {
            Issue.record("variants missing")
            return
        }
        #expect(lines[short + 1] == "  - Asking for one sentence keeps answers under the brevity budget.")
        #expect(plain == short + 2)
        #expect(lines[plain + 1] == "")
    }

    @Test("a description is escaped and kept on one line")
    func descriptionEscaped() {
        var results = F.fullRun()
        results.variants[1].description = "Does *bold* | `code` help?\r\n# Not a heading"
        let report = Self.render(results)
        #expect(report.contains("  - Does \\*bold\\* \\| \\`code\\` help? \\# Not a heading\n"))
        GFMTable.expectWellFormed(report)
    }

    @Test("a template prompt is shown as written")
    func templateShownAsWritten() {
        var results = F.fullRun()
        results.variants[1].text = "Describe it.{{#context}} The post says: {{context}}{{/context}}"
        #expect(Self.render(results).contains("“Describe it.{{\\#context}} The post says: {{context}}{{/context}}”"))
    }

    @Test("a prompt or item id with Windows line endings stays on one line")
    func carriageReturns() {
        var results = F.fullRun()
        results.variants[1].text = "Write alt text.\r\n\r\n# Rules\r\nBe brief."
        results.items[0].references = ["A cat.\rOn a sill."]
        let report = Self.render(results)
        #expect(report.contains("“Write alt text.  \\# Rules Be brief.”"))
        #expect(report.contains("Reference: A cat. On a sill."))
        GFMTable.expectWellFormed(report)
    }

    // MARK: - Whole document

    @Test("hostile text from models and datasets cannot break any table")
    func hostileText() {
        var results = F.fullRun()
        for text in MarkdownTextTests.hostile {
            results.trials.append(
                RunResults.TrialRow(
                    variant: "plain", maxTokens: nil, itemID: "cat", repeatIndex: 0, answer: nil, error: text))
            results.trials.append(
                F.answered(F.plain, nil, F.beach, text, scores: F.scores(chars: text.unicodeScalars.count)))
        }
        results.items.append(RunResults.Item(id: "x|y\nz", image: "/p/x.png", isRemote: false, problem: "bad | file\r\nreally"))
        let report = Self.render(results)
        GFMTable.expectWellFormed(report)
        #expect(!report.contains("<td>"))
    }

    /// `Golden/report.md` next to this file. `RECORD=1 swift test` rewrites it on purpose.
    @Test("the full report matches the golden file byte for byte")
    func golden() throws {
        try GoldenFile.expect(Self.render(F.fullRun()), matches: "report.md")
    }

    @Test("with repeats, the report lists the items whose checks disagree across them")
    func instabilityAcrossRepeats() {
        let fixture = ReportFixtures.self
        let trials = [
            fixture.answered(fixture.plain, 50, fixture.cat, "A cat.", scores: fixture.scores(chars: 6)),
            fixture.answered(
                fixture.plain, 50, fixture.cat, "I see a cat.", repeatIndex: 1, scores: fixture.scores(chars: 12, firstPerson: true)),
            fixture.answered(fixture.plain, 50, fixture.beach, "A beach.", scores: fixture.scores(chars: 8)),
            fixture.answered(fixture.plain, 50, fixture.beach, "A beach.", repeatIndex: 1, scores: fixture.scores(chars: 8)),
        ]
        let results = RunResults(
            info: fixture.info(), variants: [fixture.plain], items: [fixture.cat, fixture.beach], trials: trials,
            plannedTrials: trials.count)
        let markdown = Self.render(results)
        #expect(markdown.contains("## Instability across repeats"))
        #expect(markdown.contains("| plain | 50 | 1 of 2 | cat (first person 50%) |"), "\(markdown)")
        GFMTable.expectWellFormed(markdown)
        let single = RunResults(
            info: fixture.info(), variants: [fixture.plain], items: [fixture.cat], trials: [trials[0]], plannedTrials: 1)
        #expect(!Self.render(single).contains("Instability"))
    }
}
