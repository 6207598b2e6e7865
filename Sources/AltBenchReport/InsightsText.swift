import AltBenchCore
import Foundation

/// The sentences and rows of a report's opening answer (``RunInsights``), shared by the
/// Markdown and HTML reports so both say the same thing. Values are plain text; each report
/// escapes them for where they go.
public enum InsightsText {
    /// "At max_tokens 50, icecubes scores best: quality 0.66 (95% CI 0.60–0.71, 27 images)."
    public static func best(_ best: RunInsights.Best) -> String {
        let limit = best.maxTokens.map { "max_tokens \($0)" } ?? "no token limit"
        var text = "At \(limit), \(best.variant) scores best: quality \(Format.decimal(best.meanQuality, digits: 2)) (95% CI \(Format.decimal(best.low, digits: 2))–\(Format.decimal(best.high, digits: 2)), \(best.images) image\(best.images == 1 ? "" : "s"))"
        if !best.tiedWith.isEmpty {
            text += "; not clearly ahead of \(best.tiedWith.joined(separator: ", ")) (the intervals overlap)"
        }
        return text + "."
    }

    /// "better", "worse" or "no clear difference", by the interval.
    public static func verdict(_ difference: RunInsights.Difference) -> String {
        guard difference.significant else { return "no clear difference" }
        return difference.meanDifference > 0 ? "better" : "worse"
    }

    /// "+0.04 (95% CI −0.01 to +0.09)"
    public static func delta(_ difference: RunInsights.Difference) -> String {
        "\(signed(difference.meanDifference)) (95% CI \(signed(difference.low)) to \(signed(difference.high)))"
    }

    /// "p = 0.216", "p < 0.001".
    public static func p(_ value: Double) -> String {
        value < 0.001 ? "p < 0.001" : "p = \(String(format: "%.3f", value))"
    }

    /// "icecubes: cut off in at most 2% of answers from max_tokens 80 on."
    public static func truncation(_ truncation: RunInsights.Truncation, limit: Double) -> String {
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
        if let baseline = insights.baseline, !insights.differences.isEmpty {
            out.append("Against the baseline, \(MarkdownText.inline(baseline)), over the same images (paired bootstrap):")
            out.append("")
            out.append("| variant | max_tokens | quality vs \(MarkdownText.cell(baseline)) | p | images | verdict |")
            out.append("|---|---:|---|---:|---:|---|")
            for difference in insights.differences {
                out.append(
                    "| \(MarkdownText.cell(difference.variant)) | \(Format.tokens(difference.maxTokens)) | \(InsightsText.delta(difference)) | \(InsightsText.p(difference.p)) | \(difference.images) | \(InsightsText.verdict(difference)) |")
            }
            out.append("")
        }
        if !insights.truncation.isEmpty {
            out.append("Truncation (the `check:` limit is \(Format.percent(insights.truncationLimit))):")
            out.append("")
            for truncation in insights.truncation {
                out.append("- \(MarkdownText.inline(InsightsText.truncation(truncation, limit: insights.truncationLimit)))")
            }
            out.append("")
        }
    }
}
