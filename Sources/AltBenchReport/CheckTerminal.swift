import AltBenchCore
import Foundation

/// What `altbench check` prints to the terminal by default: the verdict, one line per pair,
/// and on a regression the failed checks with the items that now fail. The full comparison
/// is `--verbose` (``CheckReport/text(_:)``), or `--format md` and the step summary.
///
/// ```
/// altbench check: regression — icecubes @ 50: errors rose: …
/// exit status 1 (0 = passed, 1 = regression, 2 = cannot compare): baseline 20261120-0900-ab → run 20261121-1000-cd
///
/// pair                    answered/failed    quality          result
/// icecubes @ 50           27/0 → 0/27        0.812 → –        failed: errors, quality, significance
/// icecubes-original @ 50  27/0 → 27/0        0.790 → 0.791    held; prompt changed
/// ```
///
/// A pair whose prompt or request settings changed since the baseline says so after its
/// result (``RequestChange``): "prompt changed", "settings changed (model, detail)".
///
/// Pairs keep the comparison's order (the run's). When quality was compared without a
/// component one side lacks (``QualityBasis``), one line under the table says which. Text
/// from the runs is printed as it is, never HTML-escaped, on one line and without control
/// characters (``TerminalText``).
package enum CheckTerminal {
    /// Failed checks and regressed items listed at most, over all pairs; the rest are counted.
    static let failureLimit = 20
    static let itemLimit = 10

    package static func summary(_ verdict: CheckVerdict) -> String {
        var out = [TerminalText.line(verdict.headline)]
        let meaning = "(0 = passed, 1 = regression, 2 = cannot compare)"
        let runs =
            "baseline \(TerminalText.line(verdict.comparison.before.runID)) → run \(TerminalText.line(verdict.comparison.after.runID))"
        out.append("exit status \(verdict.exitCode) \(meaning): \(runs)")
        out.append("")

        if verdict.status == .error {
            out.append("Cannot compare; fix these first:")
            for error in verdict.errors { out.append("  - \(TerminalText.line(error))") }
            out.append("")
        }

        out += table(verdict.pairSummaries, judged: verdict.status != .error)
        // Like with like: what quality was compared without, in one line.
        if let note = verdict.comparison.basis.note { out.append(TerminalText.line(note + ".")) }
        if let note = verdict.comparison.requestNote { out.append(TerminalText.line(note)) }
        out.append("")

        let failures = verdict.failures
        if !failures.isEmpty {
            out.append("Failed checks:")
            for failure in failures.prefix(failureLimit) {
                out.append("  \(TerminalText.line(failure.label)) \(failure.check): \(TerminalText.line(failure.message))")
            }
            if failures.count > failureLimit {
                out.append("  … and \(failures.count - failureLimit) more (the table above names them; --verbose gives each).")
            }
            out.append("")
            let items = regressedItems(verdict)
            if !items.isEmpty {
                out.append("Items that passed in the baseline and now fail (the run's answer):")
                for line in items.prefix(itemLimit) { out.append("  " + line) }
                if items.count > itemLimit { out.append("  … and \(items.count - itemLimit) more (--verbose lists them all).") }
                out.append("")
            }
        }
        out.append(
            "The full comparison (every check, significance, flips, instability): --verbose, or --format md for Markdown.")
        return out.joined(separator: "\n") + "\n"
    }

    /// The one-line-per-pair table, columns padded to line up. When the two sides cannot be
    /// compared (`judged` false) no pair reads "held": the figures are shown, not judged.
    static func table(_ pairs: [CheckVerdict.PairSummary], judged: Bool = true) -> [String] {
        func side(_ side: CheckVerdict.PairSummary.Side?) -> String { side.map { "\($0.answered)/\($0.failed)" } ?? "–" }
        func quality(_ side: CheckVerdict.PairSummary.Side?) -> String {
            (side?.quality.map { String(format: "%.3f", $0) } ?? "–") + (side?.formOnly != nil ? Format.formOnlyMark : "")
        }
        var rows = [["pair", "answered/failed", "quality", "result"]]
        for pair in pairs {
            let result: String
            if pair.before == nil {
                result = "new: no baseline"
            } else if pair.after == nil {
                result = "missing from the run"
            } else if !judged {
                result = "not judged: the two cannot be compared"
            } else {
                var parts: [String] = []
                parts.append(pair.failedChecks.isEmpty ? "held" : "failed: " + pair.failedChecks.joined(separator: ", "))
                if !pair.skippedChecks.isEmpty { parts.append("skipped: " + pair.skippedChecks.joined(separator: ", ")) }
                result = parts.joined(separator: "; ")
            }
            // What changed in the request, beside the verdict (never part of it).
            let change = pair.requestChange?.text.map { "; " + TerminalText.line($0) } ?? ""
            rows.append([
                TerminalText.line(pair.label), "\(side(pair.before)) → \(side(pair.after))",
                "\(quality(pair.before)) → \(quality(pair.after))", result + change,
            ])
        }
        var widths = [Int](repeating: 0, count: 3)
        for row in rows {
            for column in 0..<3 { widths[column] = max(widths[column], row[column].count) }
        }
        var lines = rows.map { row in
            (0..<3).map { row[$0] + String(repeating: " ", count: widths[$0] - row[$0].count) }.joined(separator: "  ")
                + "  " + row[3]
        }
        if pairs.contains(where: { $0.before?.formOnly != nil || $0.after?.formOnly != nil }) {
            lines.append(CompareReport.formOnlyNote)
        }
        return lines
    }

    /// "icecubes @ 50 first_person: chelsea: I can see a cat…", for each item whose check
    /// flipped from passed to failed in a check that failed.
    static func regressedItems(_ verdict: CheckVerdict) -> [String] {
        var lines: [String] = []
        for pair in verdict.comparison.pairs {
            let failed = Set(verdict.failures.filter { $0.variant == pair.variant && $0.maxTokens == pair.maxTokens }.map(\.check))
            guard !failed.isEmpty else { continue }
            for flip in pair.flips where flip.regressed && (failed.contains(flip.check) || failed.contains("significance")) {
                let answer = flip.afterAnswer.map { TerminalText.excerpt($0) } ?? "(no answer)"
                lines.append("\(TerminalText.line(pair.label)) \(flip.check): \(TerminalText.line(flip.item)): \(answer)")
            }
        }
        return lines
    }
}
