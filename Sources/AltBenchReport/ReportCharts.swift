import AltBenchCore
import Foundation
import Plot

/// The HTML report's four charts, from a run's results: quality and truncation against
/// max_tokens (a line per variant, 95% intervals as bands; with one token limit, a dot per
/// variant with its interval as whiskers instead of one-point lines), answer lengths per
/// variant with the brevity budget, and a heat map of the checks.
struct ReportCharts {
    var results: RunResults
    var summary: RunSummary
    /// The answer's statistics: each variant's mean quality and interval at each limit.
    var insights: RunInsights

    /// Each chart in a `<figure>` with its caption (the charts carry no visible title).
    func all() -> [Node<HTML.BodyContext>] {
        let allLimits = RunInsights.limits(in: results)
        let limits = allLimits.compactMap { $0 }
        let variants = results.variants.map(\.name)
        // The answered trials' truncation flags per (variant, limit) and lengths per variant,
        // in one pass over the trials.
        var cutOff: [Pair: (cut: Int, total: Int)] = [:]
        var lengths: [String: [Double]] = [:]
        for trial in results.trials where !trial.failed {
            if let truncated = trial.scores[ScoreName.truncated]?.passed {
                let pair = Pair(variant: trial.variant, maxTokens: trial.maxTokens)
                let current = cutOff[pair, default: (0, 0)]
                cutOff[pair] = (current.cut + (truncated ? 0 : 1), current.total + 1)
            }
            if let length = trial.scores[ScoreName.length]?.value { lengths[trial.variant, default: []].append(length) }
        }
        // Mean quality per image with its 95% interval, as the answer computed it.
        var standings: [Pair: RunInsights.Standing] = [:]
        for best in insights.best {
            for standing in best.ranking { standings[Pair(variant: standing.variant, maxTokens: best.maxTokens)] = standing }
        }
        func quality(_ variant: String, _ limit: Int?) -> SVGChart.Point? {
            standings[Pair(variant: variant, maxTokens: limit)].map { SVGChart.Point(x: Double(limit ?? 0), y: $0.meanQuality, low: $0.low, high: $0.high) }
        }
        func truncated(_ variant: String, _ limit: Int?) -> SVGChart.Point? {
            guard let counts = cutOff[Pair(variant: variant, maxTokens: limit)], counts.total > 0 else { return nil }
            let interval = CompareStatistics.wilson(successes: counts.cut, total: counts.total)
            return SVGChart.Point(x: Double(limit ?? 0), y: Double(counts.cut) / Double(counts.total), low: interval?.low, high: interval?.high)
        }
        let percent: @Sendable (Double) -> String = { "\(Int(($0 * 100).rounded()))%" }
        let decimal: @Sendable (Double) -> String = { String(format: "%.2f", $0) }
        var figures: [(String, Node<HTML.BodyContext>)] = []

        if allLimits.count == 1, let limit = allLimits.first {
            // One token limit: a dot per variant, not a line of one point.
            let at = limit.map { "max_tokens \($0)" } ?? "no max_tokens"
            let qualityRows = variants.map { (name: $0, point: quality($0, limit)) }
            figures.append((
                "Mean quality per variant at \(at), the run's one token limit; whiskers are 95% intervals over images.",
                SVGChart.dots(
                    title: "Quality per variant at \(at)", description: Self.describe(qualityRows, what: "mean quality", format: decimal),
                    valueLabel: "mean quality", rows: qualityRows, range: 0...1, format: decimal, id: "chart-quality")))
            let truncatedRows = variants.map { (name: $0, point: truncated($0, limit)) }
            figures.append((
                "Share of answers cut off per variant at \(at), the run's one token limit; whiskers are 95% Wilson intervals.",
                SVGChart.dots(
                    title: "Truncated answers per variant at \(at)", description: Self.describe(truncatedRows, what: "truncated share", format: decimal),
                    valueLabel: "answers cut off", rows: truncatedRows, range: 0...1, format: percent, id: "chart-truncated")))
        } else if !limits.isEmpty {
            let qualitySeries = variants.map { variant in SVGChart.Series(name: variant, points: limits.compactMap { quality(variant, $0) }) }
            figures.append((
                "Mean quality against max_tokens, a line per variant; bands are 95% intervals over images.",
                SVGChart.lines(
                    title: "Quality against max_tokens", description: Self.describe(qualitySeries, what: "mean quality"),
                    xLabel: "max_tokens", yLabel: "mean quality", series: qualitySeries, yRange: 0...1,
                    yFormat: decimal, id: "chart-quality")))
            let truncatedSeries = variants.map { variant in SVGChart.Series(name: variant, points: limits.compactMap { truncated(variant, $0) }) }
            figures.append((
                "Share of answers cut off against max_tokens, a line per variant; bands are 95% Wilson intervals.",
                SVGChart.lines(
                    title: "Truncated answers against max_tokens", description: Self.describe(truncatedSeries, what: "truncated share"),
                    xLabel: "max_tokens", yLabel: "answers cut off", series: truncatedSeries, yRange: 0...1,
                    yFormat: percent, id: "chart-truncated")))
        }

        figures.append((
            "Answer length in characters per variant (every token limit), with the median; the dashed line is the brevity budget.",
            SVGChart.strips(
                title: "Answer length per variant",
                description: "Lengths of every answer per variant; the brevity budget is \(summary.budget) characters.",
                xLabel: "characters", categories: variants.map { (name: $0, values: lengths[$0] ?? []) },
                reference: (Double(summary.budget), "brevity budget \(summary.budget)"), id: "chart-length")))

        let checks = ScoringSettings.checkIDs.filter { check in summary.rows.contains { $0.checkRates[check] != nil } }
        figures.append((
            "Share of answers each check flags, per variant and max_tokens (the percentage is printed in every cell); the checks are named as the gallery's flags name them.",
            SVGChart.heatMap(
                title: "Checks per variant and max_tokens",
                description: "Share of answers flagged by each check, for each variant at each token limit.",
                rows: summary.rows.map { "\($0.variant) @ \(Format.tokens($0.maxTokens))" }, columns: checks.map(Format.flagWord),
                values: summary.rows.map { row in checks.map { row.checkRates[$0] } }, id: "chart-checks")))

        return figures.map { caption, chart in
            .element(named: "figure", nodes: [chart, .element(named: "figcaption", nodes: [SafeHTML.text(caption)])])
        }
    }

    /// A variant at a token limit.
    struct Pair: Hashable {
        var variant: String
        var maxTokens: Int?
    }

    /// The finding in words, for screen readers: each series' first and last value.
    static func describe(_ series: [SVGChart.Series], what: String) -> String {
        series.compactMap { line in
            guard let first = line.points.first, let last = line.points.last else { return nil }
            return "\(line.name): \(what) \(String(format: "%.2f", first.y)) at \(Int(first.x)), \(String(format: "%.2f", last.y)) at \(Int(last.x))"
        }.joined(separator: "; ")
    }

    /// The finding in words, for screen readers: each variant's value.
    static func describe(_ rows: [(name: String, point: SVGChart.Point?)], what: String, format: (Double) -> String) -> String {
        rows.compactMap { row in row.point.map { "\(row.name): \(what) \(format($0.y))" } }.joined(separator: "; ")
    }
}
