import AltBenchCore
import Foundation

/// Renders a ``Comparison`` (`altbench compare A B`) as Markdown, as a pull request or
/// `$GITHUB_STEP_SUMMARY` shows it.
///
/// Layout, top to bottom:
/// 1. A title naming both runs, a table of what each side is (run, provider, models, endpoint
///    host, dataset with item count and the first 12 hex digits of its SHA-256, repeats,
///    altbench version), the mismatches as a GitHub warning block and the notes as a list.
/// 2. **Summary**: one row per (variant, max_tokens) pair, each figure as "A → B (change
///    marker)", and a short significance column; a legend line above it. A pair whose prompt
///    or request settings changed says so after its name (``RequestChange/marks``).
/// 3. **Significance**: per pair, the paired items, each rate's Wilson 95% intervals on both
///    sides, each check's exact McNemar (sign) test with the items that improved and worsened,
///    and the quality bootstrap's mean difference with its 95% interval.
/// 4. **Flips**: per pair, the items whose hard check passed in A and failed in B (first) or the
///    other way, with both answers side by side; "No flips." when there are none.
/// 5. **Instability (repeats)**: the items of B whose repeats disagree on a hard check, with the
///    share of repeats that passed. The section is always there: "No item's repeats disagree."
///    when none do, and a line saying there is nothing to disagree when B asked each question once.
///
/// Text from runs (variant names, answers, notes) is escaped with ``MarkdownText``, so a `|` or
/// a newline in an answer cannot break a table; ``text(_:)`` renders the same layout for a
/// terminal, where nothing is HTML-escaped (``TerminalText``). Numbers use fixed `%.3f`-style formats, and
/// nothing depends on the date or the locale: the same comparison always renders the same bytes.
package enum CompareReport {
    /// The full comparison in Markdown.
    package static func markdown(_ comparison: Comparison) -> String {
        var out: [String] = []
        render(comparison, level: 1, style: .markdown, into: &out)
        return finish(out)
    }

    /// The full comparison for a terminal: the same layout, with text from the runs printed
    /// as it is (one line per value, control characters dropped) instead of HTML-escaped.
    package static func text(_ comparison: Comparison) -> String {
        var out: [String] = []
        render(comparison, level: 1, style: .terminal, into: &out)
        return finish(out)
    }

    /// Appends the comparison with its title at heading `level` and its sections below it.
    static func render(_ comparison: Comparison, level: Int, style: TextStyle, into out: inout [String]) {
        var writer = Writer(comparison: comparison, level: level, style: style)
        writer.render()
        out += writer.out
    }

    /// Blank lines trimmed at the end, one final newline.
    static func finish(_ lines: [String]) -> String {
        var lines = lines
        while lines.last == "" { lines.removeLast() }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether either side of `pair` has answers whose quality is form alone.
    static func isFormOnly(_ pair: PairComparison) -> Bool {
        pair.before?.metrics["form_only"] != nil || pair.after?.metrics["form_only"] != nil
    }

    /// The note under a table whose quality carries the form-only mark.
    static let formOnlyNote =
        "\(Format.formOnlyMark) form only: some answers of the pair had no content part (no references, must_mention, expected_text or judge score), so their quality is their form alone."

    /// The figures of the summary table, in column order.
    static let summaryFigures: [(name: String, title: String)] = [
        ("quality", "quality"), ("hard_fails", "hard fails"), (ScoreName.firstPerson, "first person"),
        (ScoreName.refusal, "refusal"), (ScoreName.truncated, "truncated"), ("within_budget", "within budget"),
        ("length_mean", "mean length"),
    ]

    /// The summary's figures for `comparison`: the standard ones, and the judge's accuracy
    /// when either side of any pair was judged.
    static func summaryFigures(_ comparison: Comparison) -> [(name: String, title: String)] {
        let judged = comparison.pairs.contains { $0.metric(ScoreName.judgeAccuracy) != nil }
        return summaryFigures + (judged ? [(ScoreName.judgeAccuracy, "judge accuracy")] : [])
    }

    private struct Writer {
        let comparison: Comparison
        let level: Int
        let style: TextStyle
        var out: [String] = []

        init(comparison: Comparison, level: Int, style: TextStyle) {
            self.comparison = comparison
            self.level = level
            self.style = style
        }

        /// A heading `depth` levels below the title.
        func heading(_ depth: Int, _ text: String) -> String {
            String(repeating: "#", count: min(6, level + depth)) + " " + text
        }

        mutating func render() {
            header()
            summary()
            significance()
            flips()
            instability()
        }

        // MARK: Header

        mutating func header() {
            let a = comparison.before, b = comparison.after
            out.append(heading(0, "altbench compare \(style.inline(a.runID)) → \(style.inline(b.runID))"))
            out.append("")
            out.append("A is the baseline (before), B the run under review (after).")
            out.append("")
            out.append("| | A (before) | B (after) |")
            out.append("|---|---|---|")
            func row(_ name: String, _ value: (RunSnapshot) -> String) {
                out.append("| \(name) | \(style.cell(value(a))) | \(style.cell(value(b))) |")
            }
            row("run") { $0.runID }
            row("provider") { $0.provider }
            row("models") { $0.models.isEmpty ? "–" : $0.models.joined(separator: ", ") }
            row("endpoint host") { $0.endpointHost }
            row("dataset") { "\($0.dataset.path) (\($0.dataset.items) items, sha256 \($0.dataset.sha256.prefix(12)))" }
            row("repeats") { String($0.repeats) }
            row("altbench") { $0.altbenchVersion }
            out.append("")
            if !comparison.mismatches.isEmpty {
                out.append("> [!WARNING]")
                out.append("> **The runs are not comparable:** they differ in what they asked, so a change below may come from that and not from the prompts.")
                out.append(">")
                for mismatch in comparison.mismatches {
                    out.append(
                        "> - **\(style.inline(mismatch.field))**: A \(style.inline(mismatch.before)), B \(style.inline(mismatch.after))")
                }
                out.append("")
            }
            if !comparison.notes.isEmpty {
                out.append("Notes:")
                out.append("")
                for note in comparison.notes { out.append("- \(style.inline(note))") }
                out.append("")
            }
        }

        // MARK: Summary

        mutating func summary() {
            let figures = CompareReport.summaryFigures(comparison)
            out.append(heading(1, "Summary"))
            out.append("")
            out.append(
                "Each cell is A → B (change). ▲ better, ▼ worse, = same; mean length has no better side. Answered / failed counts trials (a failed trial got no answer); rates are shares of answered trials, their changes in percentage points (pp). Significance: paired tests (see below), **bold** when p < \(CompareReport.alpha(comparison.alpha)).")
            out.append("")
            out.append(
                "| pair | answered / failed | " + figures.map(\.title).joined(separator: " | ")
                    + " | significance |")
            out.append("|---|---:|" + String(repeating: "---:|", count: figures.count) + "---|")
            for pair in comparison.pairs {
                var cells = [CompareReport.pairCell(pair, style: style), CompareReport.trials(pair)]
                cells += figures.map { figure in
                    let cell = pair.metric(figure.name).map(CompareReport.change) ?? "–"
                    return figure.name == "quality" && CompareReport.isFormOnly(pair) ? cell + " " + Format.formOnlyMark : cell
                }
                cells.append(CompareReport.shortSignificance(pair))
                out.append("| " + cells.joined(separator: " | ") + " |")
            }
            out.append("")
            if comparison.pairs.contains(where: CompareReport.isFormOnly) {
                out.append(CompareReport.formOnlyNote)
                out.append("")
            }
        }

        // MARK: Significance

        mutating func significance() {
            out.append(heading(1, "Significance"))
            out.append("")
            out.append(
                "Paired tests over the items both runs answered; each item's repeats are folded into its mean first, so a repeated trial does not count as independent evidence. Rates show the Wilson 95% interval of each side. Each hard check gets the exact McNemar (sign) test on the items whose pass share changed; `quality` gets a paired bootstrap of the mean per-item difference (2,000 resamples, fixed seed) with its 95% interval. Significant: p < \(CompareReport.alpha(comparison.alpha)).")
            out.append("")
            for pair in comparison.pairs {
                out.append(heading(2, style.inline(pair.label)))
                out.append("")
                guard pair.before != nil, pair.after != nil else {
                    out.append("\(pair.before == nil ? "New: no baseline" : "Missing from B"), so nothing to pair.")
                    out.append("")
                    continue
                }
                out.append("\(pair.pairedItems) paired item\(pair.pairedItems == 1 ? "" : "s").")
                out.append("")
                // The summary's rates, plus every figure with an interval or a test.
                let shown = Set(CompareReport.summaryFigures(comparison).map(\.name))
                let metrics = pair.metrics.filter { $0.test != nil || ($0.kind == .rate && shown.contains($0.name)) }
                out.append("| figure | A → B | Wilson 95% A → B | paired test | p |")
                out.append("|---|---:|---:|---|---:|")
                for metric in metrics {
                    let values = "\(CompareReport.value(metric.before, metric)) → \(CompareReport.value(metric.after, metric))"
                    let intervals = metric.kind == .rate
                        ? "\(CompareReport.interval(metric.beforeInterval)) → \(CompareReport.interval(metric.afterInterval))"
                        : "–"
                    out.append(
                        "| \(CompareReport.title(metric.name, style: style)) | \(values) | \(intervals) | \(CompareReport.testText(metric.test, pair: pair)) | \(CompareReport.pCell(metric.test)) |")
                }
                out.append("")
            }
        }

        // MARK: Flips

        mutating func flips() {
            out.append(heading(1, "Flips"))
            out.append("")
            let flipped = comparison.pairs.filter { !$0.flips.isEmpty }
            guard !flipped.isEmpty else {
                out.append("No flips.")
                out.append("")
                return
            }
            out.append(
                "Items whose hard check passed in A and failed in B (regressions, ▼, first) or failed in A and passed in B (▲), with both answers (A's first answered repeat, and B's).")
            out.append("")
            for pair in flipped {
                out.append(heading(2, style.inline(pair.label)))
                out.append("")
                out.append("| item | check | A → B | A's answer | B's answer |")
                out.append("|---|---|---|---|---|")
                for flip in pair.flips.filter(\.regressed) + pair.flips.filter({ !$0.regressed }) {
                    let change = flip.regressed ? "passed → **failed** ▼" : "failed → passed ▲"
                    out.append(
                        "| \(style.cell(flip.item)) | \(style.cell(Format.label(flip.check))) | \(change) | \(answer(flip.beforeAnswer)) | \(answer(flip.afterAnswer)) |")
                }
                out.append("")
            }
            let quiet = comparison.pairs.filter { $0.flips.isEmpty && $0.before != nil && $0.after != nil }
            if !quiet.isEmpty {
                out.append("No flips in \(quiet.map { style.inline($0.label) }.joined(separator: ", ")).")
                out.append("")
            }
        }

        func answer(_ text: String?) -> String {
            guard let text else { return "*(no answer)*" }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? "*(empty)*" : style.cell(trimmed)
        }

        // MARK: Instability

        mutating func instability() {
            out.append(heading(1, "Instability (repeats)"))
            out.append("")
            guard comparison.after.repeats > 1 else {
                out.append("B asked each question once: no repeats to disagree. Run with `--repeats 2` or more to see how stable the answers are.")
                out.append("")
                return
            }
            let rows = comparison.pairs.flatMap { pair in
                pair.unstable.flatMap { item in
                    item.passed.keys.sorted().map { (pair: pair, item: item.item, check: $0, share: item.passed[$0]!) }
                }
            }
            guard !rows.isEmpty else {
                out.append("No item's repeats disagree.")
                out.append("")
                return
            }
            out.append("Items of B whose repeats disagree on a hard check: the share of B's answered repeats that passed it.")
            out.append("")
            out.append("| pair | item | check | passed |")
            out.append("|---|---|---|---:|")
            for row in rows {
                let answered = row.pair.after?.items[row.item]?.answered ?? 0
                let passed = Int((row.share * Double(answered)).rounded())
                out.append(
                    "| \(style.cell(row.pair.label)) | \(style.cell(row.item)) | \(style.cell(Format.label(row.check))) | \(CompareReport.percent(row.share)) (\(passed) of \(answered)) |")
            }
            out.append("")
        }
    }

    // MARK: - Cells

    /// The pair's name, whether it is on one side only, and whether its prompt or request
    /// settings changed: "terse @ 50 (*prompt changed*)".
    static func pairCell(_ pair: PairComparison, style: TextStyle = .markdown) -> String {
        var notes: [String] = []
        if pair.before == nil { notes.append("new: no baseline") }
        if pair.after == nil { notes.append("missing from B") }
        notes += pair.requestChange?.marks ?? []
        let label = style.cell(pair.label)
        return notes.isEmpty ? label : "\(label) (*\(style.cell(notes.joined(separator: "; ")))*)"
    }

    /// "0.750 → 0.375 (-0.375 ▼)", "16.7% → 58.3% (+41.7 pp ▼)", "18.0 → 22.0 (+4.0)".
    static func change(_ metric: MetricDelta) -> String {
        let values = "\(value(metric.before, metric)) → \(value(metric.after, metric))"
        guard let delta = metric.delta else { return values }
        let text: String
        switch metric.kind {
        case .rate: text = signed(delta * 100, digits: 1) + " pp"
        case .mean: text = signed(delta, digits: metric.name == "length_mean" ? 1 : 3)
        }
        let marker = marker(metric.direction)
        return "\(values) (\(text)\(marker.isEmpty ? "" : " " + marker))"
    }

    static func marker(_ direction: Direction) -> String {
        switch direction {
        case .better: "▲"
        case .worse: "▼"
        case .same: "="
        case .neutral: ""
        }
    }

    /// A figure: a rate as a percentage with one decimal, a length with one, the rest with three.
    static func value(_ value: Double?, _ metric: MetricDelta) -> String {
        guard let value else { return "–" }
        switch metric.kind {
        case .rate: return percent(value)
        case .mean: return String(format: metric.name == "length_mean" ? "%.1f" : "%.3f", value)
        }
    }

    static func percent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }

    /// A change with its sign; one that rounds to zero is "0.0", never "-0.0".
    static func signed(_ value: Double, digits: Int) -> String {
        let text = String(format: "%+.\(digits)f", value)
        return text.dropFirst().allSatisfy { $0 == "0" || $0 == "." } ? String(text.dropFirst()) : text
    }

    /// How tables name a figure: the summary's column title, else the run report's label.
    static func title(_ name: String, style: TextStyle = .markdown) -> String {
        (summaryFigures + [(ScoreName.judgeAccuracy, "judge accuracy")]).first { $0.name == name }?.title
            ?? style.cell(Format.label(name))
    }

    /// Trials answered and failed on each side: "27 / 0 → 0 / 27 ▼" (▼ when the share of
    /// failed trials rose, ▲ when it fell).
    static func trials(_ pair: PairComparison) -> String {
        func side(_ row: RunSnapshot.Row?) -> String { row.map { "\($0.answered) / \($0.errors)" } ?? "–" }
        var text = "\(side(pair.before)) → \(side(pair.after))"
        if let before = pair.before, let after = pair.after, before.n > 0, after.n > 0 {
            let change = Double(after.errors) / Double(after.n) - Double(before.errors) / Double(before.n)
            if change > 1e-9 { text += " ▼" } else if change < -1e-9 { text += " ▲" }
        }
        return text
    }

    static func interval(_ range: ClosedRange<Double>?) -> String {
        guard let range else { return "–" }
        return "[\(percent(range.lowerBound)), \(percent(range.upperBound))]"
    }

    /// "0.031", "<0.001".
    static func p(_ value: Double) -> String {
        value < 0.001 ? "<0.001" : String(format: "%.3f", value)
    }

    static func alpha(_ value: Double) -> String { String(format: "%g", value) }

    static func pCell(_ test: SignificanceTest?) -> String {
        guard let test else { return "–" }
        guard test.significant else { return p(test.p) }
        let marker = marker(test.favours)
        return "**\(p(test.p))**\(marker.isEmpty ? "" : " " + marker)"
    }

    static func testText(_ test: SignificanceTest?, pair: PairComparison) -> String {
        guard let test else { return "–" }
        switch test.method {
        case .exactMcNemar:
            return "exact McNemar: \(test.improved ?? 0) improved, \(test.worsened ?? 0) worsened of \(test.items) items"
        case .pairedBootstrap:
            let mean = test.meanDifference.map { signed($0, digits: 3) } ?? "–"
            let range = test.interval.map { "[\(signed($0.lowerBound, digits: 3)), \(signed($0.upperBound, digits: 3))]" } ?? "–"
            return "paired bootstrap: mean difference \(mean), 95% interval \(range) over \(test.items) items"
        }
    }

    /// The summary's significance cell: every test whose items moved, or that is significant.
    static func shortSignificance(_ pair: PairComparison) -> String {
        guard pair.before != nil else { return "new: no baseline" }
        guard pair.after != nil else { return "missing from B" }
        let moved = pair.metrics.compactMap { metric -> String? in
            guard let test = metric.test else { return nil }
            let changed = test.favours != .same || (test.improved ?? 0) + (test.worsened ?? 0) > 0
            guard test.significant || changed else { return nil }
            // Figure names are altbench's own ids (`first_person`): shown as the check messages name them.
            let text = "\(metric.name) \(SignificanceTest.describe(p: test.p))"
            guard test.significant else { return text }
            let marker = marker(test.favours)
            return "**\(text)\(marker.isEmpty ? "" : " " + marker)**"
        }
        return moved.isEmpty ? "no paired change" : moved.joined(separator: ", ")
    }
}

/// Renders a ``CheckVerdict`` (`altbench check --baseline FILE`) in full, as Markdown (the
/// step summary, `--format md`) or as text for a terminal (`--verbose`).
///
/// The first line is exactly ``CheckVerdict/headline``, as a plain paragraph (not bold, so a
/// reader of the first line gets the headline's bytes). Then the exit status and what it means,
/// the errors (status 2) or the failed checks (status 1), the pairs whose prompt or request
/// settings changed since the baseline (``RequestChange``), a table of every check with ✅, ❌ or
/// "skipped", the limits checked against, and the full comparison (``CompareReport``) one
/// heading level down.
package enum CheckReport {
    /// The check's Markdown: the verdict first (its headline is the first line), then the failed checks, then every check, then the comparison.
    package static func markdown(_ verdict: CheckVerdict) -> String {
        render(verdict, style: .markdown)
    }

    /// The same for a terminal: text from the runs is not HTML-escaped, and cannot carry
    /// control characters.
    package static func text(_ verdict: CheckVerdict) -> String {
        render(verdict, style: .terminal)
    }

    static func render(_ verdict: CheckVerdict, style: TextStyle) -> String {
        var out: [String] = [style == .terminal ? TerminalText.line(verdict.headline) : verdict.headline, ""]
        let meaning = "(0 = passed, 1 = regression, 2 = cannot compare)"
        switch verdict.status {
        case .pass:
            out.append("✅ **Passed**: exit status 0 \(meaning).")
            out.append("")
        case .regression:
            out.append("❌ **Regression**: exit status 1 \(meaning).")
            out.append("")
        case .error:
            out.append("⚠️ **Cannot compare**: exit status 2 \(meaning). Nothing below counts until these are fixed:")
            out.append("")
            for error in verdict.errors { out.append("- \(style.inline(error))") }
            out.append("")
        }

        let failures = verdict.failures
        if !failures.isEmpty {
            out.append("## Failed checks")
            out.append("")
            for failure in failures {
                out.append(
                    "- **\(style.inline(failure.label))** `\(failure.check.replacingOccurrences(of: "`", with: "'"))`: \(style.inline(failure.message))")
            }
            out.append("")
        }

        let changed = verdict.pairSummaries.filter { $0.requestChange?.text != nil }
        if !changed.isEmpty {
            out.append("## Changed since the baseline")
            out.append("")
            out.append("What these pairs asked changed since the baseline: their prompt text, or the settings of their request. A change is shown, not judged: the checks judge the answers all the same.")
            out.append("")
            for pair in changed {
                out.append("- **\(style.inline(pair.label))**: \(style.inline(pair.requestChange?.text ?? ""))")
            }
            out.append("")
        }

        out.append("## Checks")
        out.append("")
        out.append(limits(verdict.thresholds))
        out.append("")
        if verdict.results.isEmpty {
            out.append("No check ran.")
        } else {
            if verdict.status == .error {
                out.append("The runs cannot be compared, so these results do not decide the exit status.")
                out.append("")
            }
            out.append("| pair | check | result | message |")
            out.append("|---|---|---|---|")
            for result in verdict.results {
                let mark = switch result.outcome {
                case .passed: "✅"
                case .failed: "❌"
                case .skipped: "skipped"
                }
                out.append(
                    "| \(style.cell(result.label)) | `\(result.check.replacingOccurrences(of: "`", with: "'"))` | \(mark) | \(style.cell(result.message)) |")
            }
        }
        out.append("")

        CompareReport.render(verdict.comparison, level: 2, style: style, into: &out)
        return CompareReport.finish(out)
    }

    /// The thresholds in one sentence.
    static func limits(_ thresholds: CheckThresholds) -> String {
        func rise(_ limit: Double) -> String {
            limit == 0 ? "may not rise" : String(format: "may rise %.1f points", limit * 100)
        }
        let significance = thresholds.failOnSignificant
            ? "and any significant regression (p < \(CompareReport.alpha(thresholds.alpha))) fails"
            : "and significant regressions do not fail"
        return "Limits (`check:` in `altbench.yml`): per pair, the share of failed trials \(rise(thresholds.maxErrorRise)), quality may fall \(String(format: "%.3f", thresholds.maxQualityDrop)), first person \(rise(thresholds.maxFirstPersonRise)), refusal \(rise(thresholds.maxRefusalRise)), truncated \(rise(thresholds.maxTruncationRise)), \(significance). A check the baseline measured and the run could not fails."
    }
}
