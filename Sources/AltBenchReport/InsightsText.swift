import AltBenchCore
import Foundation

/// The sentences and rows of a report's opening answer (``RunInsights``), shared by the
/// Markdown and HTML reports so both say the same thing. Values are plain text; each report
/// escapes them for where they go.
package enum InsightsText {
    /// How many variants a "no variant is ahead" line names; the rest are counted.
    static let contendersShown = 3

    /// "At max_tokens 50, icecubes scores best: quality 0.66 (95% CI 0.60–0.71, 27 images)."
    /// A variant that is not ahead (``RunInsights/isAhead(_:others:)``) is never called best:
    /// "No variant is ahead at max_tokens 50: icecubes 0.66 (95% CI 0.60–0.71), terse 0.66
    /// (95% CI 0.59–0.70)." names the top few with their figures, and a lone variant reads
    /// "At max_tokens 50, icecubes is the only variant: quality 0.66 (…)."
    package static func best(_ best: RunInsights.Best) -> String {
        let limit = best.maxTokens.map { "max_tokens \($0)" } ?? "no token limit"
        if !best.ahead { return noneAhead(best, limit: limit) }
        var text = "At \(limit), \(best.variant) scores best: quality \(Format.decimal(best.meanQuality, digits: 2)) (95% CI \(Format.decimal(best.low, digits: 2))–\(Format.decimal(best.high, digits: 2)), \(best.images) image\(best.images == 1 ? "" : "s"))"
        if !best.tiedWith.isEmpty {
            let others = best.tiedWith.count <= 3
                ? best.tiedWith.joined(separator: ", ")
                : "\(best.tiedWith.count) other variants"
            text += "; not clearly ahead of \(others) (the intervals overlap)"
        }
        return text + "."
    }

    /// The line for a limit at which no variant is ahead, or only one was run.
    static func noneAhead(_ best: RunInsights.Best, limit: String) -> String {
        func interval(_ standing: RunInsights.Standing) -> String {
            "95% CI \(Format.decimal(standing.low, digits: 2))–\(Format.decimal(standing.high, digits: 2))"
        }
        guard best.ranking.count > 1 else {
            return "At \(limit), \(best.variant) is the only variant: quality \(Format.decimal(best.meanQuality, digits: 2)) (\(interval(best.standing)), \(best.images) image\(best.images == 1 ? "" : "s"))."
        }
        let named = best.ranking.prefix(contendersShown).map { "\($0.variant) \(Format.decimal($0.meanQuality, digits: 2)) (\(interval($0)))" }
        let more = best.ranking.count - named.count
        return "No variant is ahead at \(limit): \(named.joined(separator: ", "))\(more > 0 ? " and \(more) more" : "")."
    }

    /// One table for the whole answer: a row per variant, a column per token limit, then where
    /// truncation stops. The baseline's cells hold its mean quality; the others' their
    /// difference from it with a word (better, worse, ≈) so the verdict never rests on colour.
    /// `★` marks the best variant at each limit, only where it is ahead; `†n` a cell whose row has n answers scored on
    /// form alone (``Format/quality(_:)-swift.type.method``).
    package static func matrix(
        _ insights: RunInsights, summary: RunSummary, variants: [String], limits: [Int?]
    ) -> (header: [String], rows: [[String]]) {
        let truncation = Dictionary(insights.truncation.map { ($0.variant, $0) }, uniquingKeysWith: { first, _ in first })
        var header = ["variant"] + limits.map { "max_tokens \(Format.tokens($0))" }
        if !truncation.isEmpty { header.append("cut off ≤ \(Format.percent(insights.truncationLimit)) from") }
        let rows = variants.map { variant -> [String] in
            var row = [variant == insights.baseline ? "\(variant) (baseline)" : variant]
            for limit in limits {
                let star = insights.best.contains { $0.maxTokens == limit && $0.variant == variant && $0.ahead } ? " ★" : ""
                let summaryRow = summary.rows.first { $0.variant == variant && $0.maxTokens == limit }
                if variant == insights.baseline || insights.baseline == nil {
                    row.append(summaryRow.flatMap { $0.meanQuality == nil ? nil : "\(Format.quality($0))\(star)" } ?? "–")
                } else if let difference = insights.differences.first(where: { $0.variant == variant && $0.maxTokens == limit }) {
                    let word = difference.significant ? (difference.meanDifference > 0 ? "better" : "worse") : "≈"
                    let mark = summaryRow.map { $0.formOnly > 0 ? " \(Format.formOnlyMark)\($0.formOnly)" : "" } ?? ""
                    row.append("\(signed(difference.meanDifference)) \(word)\(mark)\(star)")
                } else if let summaryRow, summaryRow.meanQuality != nil {
                    // No baseline answers at this limit to compare with: the variant's own quality.
                    row.append("\(Format.quality(summaryRow))\(star)")
                } else {
                    row.append("–")
                }
            }
            if !truncation.isEmpty {
                row.append(truncation[variant].map { $0.fromMaxTokens.map { "max_tokens \($0)" } ?? "never" } ?? "–")
            }
            return row
        }
        return (header, rows)
    }

    /// "better", "worse" or "no clear difference", by the interval.
    package static func verdict(_ difference: RunInsights.Difference) -> String {
        guard difference.significant else { return "no clear difference" }
        return difference.meanDifference > 0 ? "better" : "worse"
    }

    /// "+0.04 (95% CI −0.01 to +0.09)"
    package static func delta(_ difference: RunInsights.Difference) -> String {
        "\(signed(difference.meanDifference)) (95% CI \(signed(difference.low)) to \(signed(difference.high)))"
    }

    /// "p = 0.216", "p < 0.001".
    package static func p(_ value: Double) -> String {
        value < 0.001 ? "p < 0.001" : "p = \(String(format: "%.3f", value))"
    }

    /// "icecubes: cut off in at most 2% of answers from max_tokens 80 on."
    package static func truncation(_ truncation: RunInsights.Truncation, limit: Double) -> String {
        let share = Format.percent(limit)
        guard let from = truncation.fromMaxTokens else {
            let largest = truncation.shares.last.map { " (at max_tokens \($0.maxTokens): \(Format.percent($0.share)))" } ?? ""
            return "\(truncation.variant): more than \(share) of answers are cut off at every limit tried\(largest)."
        }
        return "\(truncation.variant): at most \(share) of answers cut off from max_tokens \(from) on."
    }

    static func signed(_ value: Double) -> String {
        let text = String(format: "%.2f", abs(value))
        return value < -0.000_5 ? "−\(text)" : "+\(text)"
    }
}

extension MarkdownReport {
    /// "## The answer": the best variant per token limit, each variant against the baseline,
    /// and where truncation stops.
    func answerSection(_ out: inout [String], insights: RunInsights) {
        guard !insights.best.isEmpty else { return }
        out.append("## The answer")
        out.append("")
        for best in insights.best { out.append("- \(MarkdownText.inline(InsightsText.best(best)))") }
        out.append("")
        let limits = RunInsights.limits(in: results)
        let names = results.orderingVariants().variants.map(\.name)
        let matrix = InsightsText.matrix(insights, summary: summary, variants: names, limits: limits)
        if let baseline = insights.baseline {
            out.append("Quality of \(MarkdownText.inline(baseline)) and each variant's difference from it over the same images (paired bootstrap: better or worse when the 95% interval excludes 0, else ≈); ★ the best at that limit.")
        } else {
            out.append("Mean quality per variant; ★ the best at that limit.")
        }
        out.append("")
        out.append("| " + matrix.header.map(MarkdownText.cell).joined(separator: " | ") + " |")
        out.append("|---|" + String(repeating: "---:|", count: matrix.header.count - 1))
        for row in matrix.rows { out.append("| " + row.map(MarkdownText.cell).joined(separator: " | ") + " |") }
        out.append("")
        if let note = Format.formOnlyNote(summary.rows, answers: kind == .run ? "answered trials" : "answers") {
            out.append(note)
            out.append("")
        }
    }
}
