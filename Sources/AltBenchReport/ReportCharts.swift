import AltBenchCore
import Foundation
import Plot

/// The report's charts, from a run's results (filled in once the chart module is in).
struct ReportCharts {
    var results: RunResults
    var summary: RunSummary

    func all() -> [Node<HTML.BodyContext>] { [] }
}
