import AltBenchCore
import Foundation
import Plot

/// The HTML report's four charts, from a run's results: quality and truncation against
/// max_tokens (a line per variant, 95% intervals as bands), answer lengths per variant with
/// the brevity budget, and a heat map of the checks.
struct ReportCharts {
    var results: RunResults
    var summary: RunSummary

    /// Each chart in a `<figure>` with its caption (the charts carry no visible title).
    func all() -> [Node<HTML.BodyContext>] {
        let limits = RunInsights.limits(in: results).compactMap { $0 }
        let answered = results.trials.filter { !$0.failed }
        let variants = results.variants.map(\.name)
        var figures: [(String, Node<HTML.BodyContext>)] = []

        if !limits.isEmpty {
            let quality = variants.map { variant in
                SVGChart.Series(name: variant, points: limits.compactMap { limit -> SVGChart.Point? in
                    let values = Self.perImage(answered, variant: variant, limit: limit, score: ScoreName.quality)
                    guard let interval = CompareStatistics.pairedBootstrap(values) else { return nil }
                    return SVGChart.Point(x: Double(limit), y: interval.meanDifference, low: interval.low, high: interval.high)
                })
            }
            figures.append((
                "Mean quality against max_tokens, a line per variant; bands are 95% intervals over images.",
                SVGChart.lines(
                    title: "Quality against max_tokens", description: Self.describe(quality, what: "mean quality"),
                    xLabel: "max_tokens", yLabel: "mean quality", series: quality, yRange: 0...1,
                    yFormat: { String(format: "%.2f", $0) }, id: "chart-quality")))
            let truncated = variants.map { variant in
                SVGChart.Series(name: variant, points: limits.compactMap { limit -> SVGChart.Point? in
                    let flags = answered.filter { $0.variant == variant && $0.maxTokens == limit }.compactMap { $0.scores[ScoreName.truncated]?.passed }
                    guard !flags.isEmpty else { return nil }
                    let share = Double(flags.filter { !$0 }.count) / Double(flags.count)
                    let interval = CompareStatistics.wilson(successes: flags.filter { !$0 }.count, total: flags.count)
                    return SVGChart.Point(x: Double(limit), y: share, low: interval?.low, high: interval?.high)
                })
            }
            figures.append((
                "Share of answers cut off against max_tokens, a line per variant; bands are 95% Wilson intervals.",
                SVGChart.lines(
                    title: "Truncated answers against max_tokens", description: Self.describe(truncated, what: "truncated share"),
                    xLabel: "max_tokens", yLabel: "answers cut off", series: truncated, yRange: 0...1,
                    yFormat: { "\(Int(($0 * 100).rounded()))%" }, id: "chart-truncated")))
        }

        let lengths = variants.map { variant in
            (name: variant, values: answered.filter { $0.variant == variant }.compactMap { $0.scores[ScoreName.length]?.value })
        }
        figures.append((
            "Answer length in characters per variant (every token limit), with the median; the dashed line is the brevity budget.",
            SVGChart.strips(
                title: "Answer length per variant",
                description: "Lengths of every answer per variant; the brevity budget is \(summary.budget) characters.",
                xLabel: "characters", categories: lengths, reference: (Double(summary.budget), "brevity budget \(summary.budget)"),
                id: "chart-length")))

        let checks = ScoringSettings.checkIDs.filter { check in summary.rows.contains { $0.checkRates[check] != nil } }
        figures.append((
            "Share of answers each check flags, per variant and max_tokens (the percentage is printed in every cell).",
            SVGChart.heatMap(
                title: "Checks per variant and max_tokens",
                description: "Share of answers flagged by each check, for each variant at each token limit.",
                rows: summary.rows.map { "\($0.variant) @ \(Format.tokens($0.maxTokens))" }, columns: checks,
                values: summary.rows.map { row in checks.map { row.checkRates[$0] } }, id: "chart-checks")))

        return figures.map { caption, chart in
            .element(named: "figure", nodes: [chart, .element(named: "figcaption", nodes: [SafeHTML.text(caption)])])
        }
    }

    /// Mean `score` per image (repeats folded) for one variant at one limit.
    static func perImage(_ trials: [RunResults.TrialRow], variant: String, limit: Int?, score: String) -> [Double] {
        let values = trials.filter { $0.variant == variant && $0.maxTokens == limit }
            .compactMap { trial in trial.scores[score].map { (item: trial.itemID, value: $0.value) } }
        return CompareStatistics.foldRepeats(values).map(\.value)
    }

    /// The finding in words, for screen readers: each series' first and last value.
    static func describe(_ series: [SVGChart.Series], what: String) -> String {
        series.compactMap { line in
            guard let first = line.points.first, let last = line.points.last else { return nil }
            return "\(line.name): \(what) \(String(format: "%.2f", first.y)) at \(Int(first.x)), \(String(format: "%.2f", last.y)) at \(Int(last.x))"
        }.joined(separator: "; ")
    }
}
