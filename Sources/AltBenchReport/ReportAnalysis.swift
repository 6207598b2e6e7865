import AltBenchCore
import Foundation

/// What every report of a run is computed from: its results with the variants in report order,
/// the summary table and the answer (the paired bootstraps). Computed once per run, however
/// many reports are written from it (`run` writes the Markdown and HTML reports twice, for
/// `runs/<id>` and `latest`, and prints the terminal summary).
package struct ReportAnalysis: Sendable {
    /// The results, variants in report order.
    package let results: RunResults
    package let summary: RunSummary
    package let insights: RunInsights
    package let truncationLimit: Double

    package init(_ results: RunResults, truncationLimit: Double = CheckThresholds().maxTruncationRise) {
        let ordered = results.orderingVariants()
        self.results = ordered
        summary = RunSummary(ordered)
        insights = RunInsights(ordered, truncationLimit: truncationLimit)
        self.truncationLimit = truncationLimit
    }
}
