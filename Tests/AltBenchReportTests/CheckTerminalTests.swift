import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

/// What `altbench check` prints to a terminal: short by default, whole with `--verbose`,
/// never HTML-escaped, and safe from what a model answers.
@Suite("CheckTerminal")
struct CheckTerminalTests {
    typealias F = CompareFixtures

    static let entities = ["&lt;", "&gt;", "&amp;", "&quot;", "&#", "<br>"]

    /// The fixture's run with every trial of `terse @ 50` failed, as an `--offline` replay of
    /// an edited prompt leaves it.
    static var unanswered: RunSnapshot {
        var run = F.run
        run.rows[0].answered = 0
        run.rows[0].errors = run.rows[0].n
        run.rows[0].metrics = [:]
        run.rows[0].firstError = "no stored answer for this trial"
        for id in run.rows[0].items.keys {
            run.rows[0].items[id] = RunSnapshot.ItemOutcome(passed: [:], quality: nil, answered: 0, repeats: 2, answer: nil)
        }
        return run
    }

    @Test("by default: the verdict, one line per pair in the run's order, the failed checks and the items now failing")
    func short() throws {
        let verdict = F.regression
        let text = CheckTerminal.summary(verdict)
        let lines = text.components(separatedBy: "\n")
        #expect(lines[0] == verdict.headline)
        #expect(lines[1] == "exit status 1 (0 = passed, 1 = regression, 2 = cannot compare): baseline 20261120-090000-base → run 20261121-100000-head")
        #expect(lines[3] == "pair         answered/failed  quality        result")
        #expect(lines[4] == "terse @ 50   6/0 → 6/0        0.750 → 0.375  failed: quality, first_person")
        #expect(lines[5] == "terse @ 100  6/0 → 6/0        0.920 → 0.920  held")
        #expect(lines.contains("  terse @ 50 first_person: rose: 0.0% → 58.3% (+58.3 points; may not rise)"))
        // The model's answer on one line, its `|` and line break printed as they are (folded).
        #expect(lines.contains("  terse @ 50 first_person: cat: I see a cat | on a table."), "\(text)")
        #expect(!text.contains("##"), "no Markdown sections")
        #expect(!text.contains("Flips") && !text.contains("Wilson"))
        #expect(lines.count < 25, "\(lines.count) lines")
        for entity in Self.entities { #expect(!text.contains(entity), "\(entity)") }

        let pass = CheckTerminal.summary(F.pass)
        #expect(pass.components(separatedBy: "\n").count == 9, "\(pass)")
        #expect(pass.hasPrefix("altbench check: passed — 12 checks over 2 variant × max_tokens pairs held.\n"))
        #expect(!pass.contains("Failed checks"))
        #expect(pass.hasSuffix("--verbose, or --format md for Markdown.\n"))
    }

    @Test("a pair whose quality is partly form alone is marked in the check, the comparison and its HTML")
    func formOnlyMarked() throws {
        var run = F.run
        run.rows[0].metrics["form_only"] = 0.5
        let verdict = CheckVerdict(comparison: Comparison(before: F.run, after: run))
        let lines = CheckTerminal.summary(verdict).components(separatedBy: "\n")
        #expect(lines.contains { $0.hasPrefix("terse @ 50 ") && $0.contains("→ 0.375†") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("terse @ 100 ") && !$0.contains("†") })
        #expect(lines.contains(CompareReport.formOnlyNote))
        let markdown = CompareReport.markdown(verdict.comparison)
        #expect(markdown.contains(CompareReport.formOnlyNote))
        #expect(markdown.components(separatedBy: "\n").filter { $0.hasPrefix("| terse @ 50") && $0.contains(" †") }.count == 1)
        let html = CompareHTML(comparison: verdict.comparison).render()
        #expect(html.contains("<span class=\"form-only\" title=\"† form only: some answers"))
        // Unmarked when no answer is form only.
        #expect(!CheckTerminal.summary(F.regression).contains("†"))
    }

    @Test("--verbose is the whole check for a terminal: every check, the comparison, nothing HTML-escaped")
    func verbose() throws {
        let verdict = F.regression
        let text = CheckReport.text(verdict)
        let markdown = CheckReport.markdown(verdict)
        #expect(text.components(separatedBy: "\n").count == markdown.components(separatedBy: "\n").count, "the same layout")
        #expect(text.hasPrefix(verdict.headline + "\n"))
        for section in ["## Failed checks", "## Checks", "### Summary", "### Significance", "### Flips", "### Instability (repeats)"] {
            #expect(text.contains("\n" + section + "\n"), "\(section)")
        }
        #expect(text.contains("| terse @ 50 | `significance` | ✅ | no significant regression at p < 0.05 |"))
        #expect(markdown.contains("| terse @ 50 | `significance` | ✅ | no significant regression at p &lt; 0.05 |"), "Markdown escapes what it must")
        #expect(text.contains(#"| I see a cat \| on a table. |"#), "a `|` still cannot end a cell; the line break is folded")
        for entity in Self.entities { #expect(!text.contains(entity), "\(entity)") }
        #expect(CompareReport.text(F.comparison).hasPrefix("# altbench compare 20261120-090000-base → 20261121-100000-head\n"))
        for entity in Self.entities { #expect(!CompareReport.text(F.comparison).contains(entity), "\(entity)") }
    }

    @Test("text from a run cannot move the cursor, recolour the terminal or fake a line")
    func hostileText() {
        var run = F.run
        let hostile = "\u{1B}[2J\u{1B}[31mI see\u{1B}[0m a\r\nfake line\u{7} \u{202E}txt.exe <b>&amp;</b>"
        run.rows[0].items["cat"]?.answer = hostile
        run.rows[0].variant = "terse\u{1B}[1m"
        var baseline = F.baseline
        baseline.rows[0].variant = "terse\u{1B}[1m"
        let verdict = CheckVerdict(comparison: Comparison(before: baseline, after: run))
        for text in [CheckTerminal.summary(verdict), CheckReport.text(verdict)] {
            #expect(!text.unicodeScalars.contains("\u{1B}"))
            #expect(!text.unicodeScalars.contains("\u{7}"))
            #expect(!text.unicodeScalars.contains("\u{202E}"))
            #expect(!text.contains("\r"))
            #expect(!text.contains("\nfake line"))
            #expect(
                text.contains(#"\x1B[31mI see\x1B[0m a  fake line\x07 \u{202E}txt.exe <b>&amp;</b>"#),
                "shown as it is, not HTML-escaped, its control characters visible")
        }
        #expect(TerminalText.line("a\tb\u{0}c\u{85}d\u{2028}e\u{9B}f\u{200F}") == #"a b\x00c d e\x9Bf\u{200F}"#)
        #expect(TerminalText.excerpt(String(repeating: "x", count: 300), limit: 10) == "xxxxxxxxx…")
    }

    @Test("when the two cannot be compared, no pair reads held")
    func cannotCompareJudgesNoPair() {
        var verdict = CheckVerdict(comparison: Comparison(before: F.baseline, after: F.run))
        verdict.problems.append(.init(check: "same provider as the baseline", message: "The baseline is openai; the run is mock."))
        #expect(verdict.status == .error)
        let text = CheckTerminal.summary(verdict)
        let rows = text.split(separator: "\n").filter { !$0.hasPrefix(" ") && $0.contains(" @ ") && $0.contains(" → ") }
        #expect(!rows.isEmpty)
        for row in rows {
            #expect(row.hasSuffix("not judged: the two cannot be compared"), "\(row)")
            #expect(!row.contains("held"))
        }
    }

    @Test("a pair that got no answers reads answered/failed on both sides in every format")
    func unansweredPair() throws {
        let verdict = CheckVerdict(comparison: Comparison(before: F.baseline, after: Self.unanswered))
        #expect(verdict.exitCode == 1)
        let text = CheckTerminal.summary(verdict)
        #expect(text.contains("terse @ 50   6/0 → 0/6        0.750 → –      failed: errors, quality, first_person, refusal, truncated, significance"), "\(text)")
        #expect(text.hasPrefix("altbench check: regression — terse @ 50: errors rose: 0 of 6 trials failed in the baseline, 6 of 6 in the run (+100.0 points; may not rise) (and 5 more)\n"))
        #expect(text.contains("first reason: no stored answer for this trial."))
        let markdown = CheckReport.markdown(verdict)
        #expect(markdown.contains("| terse @ 50 | 6 / 0 → 0 / 6 ▼ | 0.750 → – |"), "\(markdown)")
        #expect(markdown.contains("| terse @ 50 | `quality` | ❌ | not measured: the baseline measured 0.750, but the run answered none of this pair's 6 trials: fix what made them fail (see \\`errors\\`) and run again. |"))
        #expect(!markdown.contains("not measured on both sides"))
        let xml = JUnitReport.xml(verdict)
        #expect(xml.contains("<property name=\"run.answered\" value=\"0\"/>"))
        #expect(xml.contains("<property name=\"run.failed\" value=\"6\"/>"))
        #expect(xml.contains("trials: baseline 6 answered, 0 failed → run 0 answered, 6 failed"))
        #expect(xml.contains("<testcase classname=\"altbench.terse.50\" name=\"errors\" time=\"0\">\n      <failure"))
    }

    @Test("many failures stay short: the first 20 failed checks, then a count")
    func manyFailures() throws {
        var baseline = F.baseline
        var run = Self.unanswered
        // Eight pairs, each with every trial failed: 48 failed checks.
        baseline.rows = (0..<8).map { index in
            var row = F.baseline.rows[0]
            row.variant = "v\(index)"
            return row
        }
        run.rows = (0..<8).map { index in
            var row = Self.unanswered.rows[0]
            row.variant = "v\(index)"
            return row
        }
        let verdict = CheckVerdict(comparison: Comparison(before: baseline, after: run))
        #expect(verdict.failures.count == 48)
        let lines = CheckTerminal.summary(verdict).components(separatedBy: "\n")
        #expect(lines.filter { $0.hasPrefix("  v") }.count == 20)
        #expect(lines.contains("  … and 28 more (the table above names them; --verbose gives each)."))
        #expect(lines.filter { $0.hasPrefix("v") && $0.contains("failed: errors") }.count == 8, "one table line per pair")
        #expect(lines.count < 45)
    }

    @Test("a check the baseline did not measure is shown as skipped everywhere")
    func skipped() throws {
        var baseline = F.baseline
        baseline.rows[1].metrics[ScoreName.refusal] = nil
        let verdict = CheckVerdict(comparison: Comparison(before: baseline, after: F.baseline))
        #expect(verdict.status == .pass)
        #expect(CheckTerminal.summary(verdict).contains("terse @ 100  6/0 → 6/0        0.920 → 0.920  held; skipped: refusal"))
        #expect(CheckReport.markdown(verdict).contains("| terse @ 100 | `refusal` | skipped | not measured in the baseline (the run measured 0.0%). Save a new baseline to check it. |"))
        let xml = JUnitReport.xml(verdict)
        #expect(xml.contains("<testsuite name=\"terse @ 100\" tests=\"6\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"0\">"))
        #expect(xml.contains("<testcase classname=\"altbench.terse.100\" name=\"refusal\" time=\"0\">\n      <skipped message=\"not measured in the baseline"))
    }

    @Test("pairs are listed in the run's order, never sorted by name")
    func order() throws {
        func renamed(_ snapshot: RunSnapshot, _ names: [String]) -> RunSnapshot {
            var snapshot = snapshot
            for index in snapshot.rows.indices { snapshot.rows[index].variant = names[index] }
            return snapshot
        }
        let verdict = CheckVerdict(
            comparison: Comparison(before: renamed(F.baseline, ["zeta", "alpha"]), after: renamed(F.baseline, ["zeta", "alpha"])))
        let rows = CheckTerminal.summary(verdict).components(separatedBy: "\n").filter { $0.hasPrefix("zeta") || $0.hasPrefix("alpha") }
        #expect(rows.map { String($0.prefix(4)) } == ["zeta", "alph"])
        let markdown = CheckReport.markdown(verdict)
        let zeta = try #require(markdown.range(of: "| zeta @ 50 |"))
        let alpha = try #require(markdown.range(of: "| alpha @ 100 |"))
        #expect(zeta.lowerBound < alpha.lowerBound)
    }

    @Test("a p-value of 0 reads p < 0.001 in the terminal, the Markdown, the JUnit and the messages")
    func pZero() throws {
        let ids = (1...8).map { "item\($0)" }
        func snapshot(_ runID: String, quality: Double) -> RunSnapshot {
            var items: [String: RunSnapshot.ItemOutcome] = [:]
            for id in ids { items[id] = F.outcome(quality: quality, answer: "A \(id).") }
            return F.snapshot(runID: runID, rows: [F.row(50, items: items, quality: quality, firstPerson: 0, truncated: 0, length: 10)])
        }
        let verdict = CheckVerdict(
            comparison: Comparison(before: snapshot("a", quality: 0.9), after: snapshot("b", quality: 0.85)),
            thresholds: CheckThresholds(maxQualityDrop: 0.1))
        let test = try #require(verdict.comparison.pairs[0].metric("quality")?.test)
        #expect(test.p == 0, "every resampled mean is below 0")
        #expect(verdict.failures.map(\.message) == ["significantly worse at p < 0.05: quality (p < 0.001)"])
        let outputs = [
            CheckTerminal.summary(verdict), CheckReport.text(verdict), CheckReport.markdown(verdict), JUnitReport.xml(verdict),
        ]
        for output in outputs {
            #expect(!output.contains("p = 0 ") && !output.contains("p = 0)") && !output.contains("p=0"), "\(output)")
            #expect(!output.contains("p = 0.000") && !output.contains("| 0.000 |"))
        }
        #expect(outputs[0].contains("quality (p < 0.001)"))
        #expect(outputs[2].contains("**quality p < 0.001 ▼**"))
        #expect(outputs[2].contains("| **<0.001** ▼ |"))
        #expect(outputs[3].contains("quality: 0.900 → 0.850, p &lt; 0.001 (paired bootstrap over 8 items)"))
    }

    /// The fixture's run with `terse @ 50` asked with another prompt and `terse @ 100` with a
    /// setting under a hostile name, as a hand-edited baseline file could hold.
    static var changed: RunSnapshot {
        var run = F.run
        let edited = PromptVariant(name: "terse", file: "prompts/terse.md", text: "Say what you see.", model: "gpt-4o-mini")
        run.rows[0].recordRequest(RequestRule().templateRequest(variant: edited, maxTokens: 50), prompt: edited.text)
        run.rows[1].requestSettings?["<img src=x>|*y*"] = "1"
        return run
    }

    @Test("a changed prompt or setting is marked beside the pair's verdict in every format, escaped, and changes no outcome")
    func promptAndSettingsChanges() throws {
        let verdict = CheckVerdict(comparison: Comparison(before: F.baseline, after: Self.changed))
        #expect(verdict.exitCode == F.regression.exitCode)
        #expect(verdict.results == F.regression.results)

        let text = CheckTerminal.summary(verdict)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("terse @ 50 ") && $0.hasSuffix("failed: quality, first_person; prompt changed") }, "\(text)")
        #expect(lines.contains { $0.hasPrefix("terse @ 100 ") && $0.hasSuffix("held; settings changed (<img src=x>|*y*)") }, "\(text)")
        // Unchanged, nothing is added.
        #expect(!CheckTerminal.summary(F.regression).contains("changed"))

        let markdown = CheckReport.markdown(verdict)
        GFMTable.expectWellFormed(markdown)
        #expect(markdown.contains("## Changed since the baseline"))
        #expect(markdown.contains("- **terse @ 50**: prompt changed\n"), "\(markdown)")
        #expect(markdown.contains("| terse @ 50 (*prompt changed*) |"), "\(markdown)")
        #expect(!markdown.contains("<img"), "a name from the file is escaped")
        #expect(!CheckReport.markdown(F.regression).contains("Changed since the baseline"))

        let html = CompareHTML(comparison: verdict.comparison).render()
        #expect(html.contains(">prompt changed</span>"), "\(html)")
        #expect(!html.contains("<img src=x>"))
        #expect(html.contains("&lt;img src=x&gt;"))

        let xml = JUnitReport.xml(verdict)
        #expect(xml.contains("<property name=\"prompt\" value=\"changed\"/>"))
        #expect(xml.contains("<property name=\"settings\" value=\"changed: &lt;img src=x&gt;|*y*\"/>"))
        #expect(xml.contains("since the baseline: prompt changed"))
        #expect(!xml.contains("<img"))
    }
}
