import AltBenchCore
import AltBenchReport
import AltBenchStore
import Foundation

/// Writes a stored run's Markdown report and prints its summary.
package struct Reporting: Sendable {
    package var store: ResultStore
    package var resultsDirectory: URL
    package var console: Console
    /// How long writing may take before "writing reports…" is printed.
    package var noticeAfter: Duration = .seconds(1)

    package init(store: ResultStore, resultsDirectory: URL, console: Console) {
        self.store = store
        self.resultsDirectory = resultsDirectory
        self.console = console
    }

    /// Renders `runs/<id>.md` and `runs/<id>.html` (and `latest.md`, `latest.html` when
    /// asked), prints the summary to stdout and the paths to stderr. Returns the results and
    /// the Markdown report's path.
    @discardableResult
    package func write(
        runID: String, displayResults: String, updateLatest: Bool, embedImages: Bool = false,
        truncationLimit: Double = CheckThresholds().maxTruncationRise, runCostLine: Bool = true
    ) async throws -> (RunResults, String) {
        // A large run's reports take a moment: say so rather than sit silent.
        let notice = Task { [noticeAfter, console] in
            try await Task.sleep(for: noticeAfter)
            console.err("altbench: writing reports…\n")
        }
        defer { notice.cancel() }
        let results = try await store.loadRun(id: runID)
        try FileManager.default.createDirectory(
            at: resultsDirectory.appendingPathComponent("runs"), withIntermediateDirectories: true)
        // The summary and answer, computed once for every report below.
        let analysis = ReportAnalysis(results, truncationLimit: truncationLimit)
        var files = RunReportFiles(analysis: analysis, results: results, resultsDirectory: resultsDirectory)
        files.embedImages = embedImages
        for file in files.render(latest: updateLatest) { try file.data.write(to: file.url, options: .atomic) }
        var markdown = ["\(displayResults)/runs/\(runID).md"]
        var html = ["\(displayResults)/runs/\(runID).html"]
        if updateLatest {
            markdown.append("\(displayResults)/latest.md")
            html.append("\(displayResults)/latest.html")
        }
        notice.cancel()
        if results.info.isMock { console.out("MOCK RESULTS (offline mock model, not a vision model)\n") }
        console.out(TerminalSummary.render(results, summary: analysis.results.variants == results.variants ? analysis.summary : nil))
        // `altbench judge` has said what the judge cost; the run's own cost is not news there.
        if runCostLine, let line = Self.costLine(results) { console.err(line + "\n") }
        if let judge = JudgeSummary(results) {
            console.err("judge cost: " + (judge.isMock ? "the mock judge bills nothing" : judge.costUSD.map { CostSummary.usd($0) } ?? "unknown (no price for \(judge.model))") + " for \(judge.judged + judge.unreadable + judge.failed) calls, \(judge.cached) from the store.\n")
        }
        console.err("report: \(html.last!) (open it in a browser); also \((html.dropLast() + markdown).joined(separator: ", ")); database: \(displayResults)/altbench.sqlite\n")
        return (results, markdown.last!)
    }
}

extension Reporting {
    /// One line on what the run cost, for the end of `run` and `report`; `nil` for a run that
    /// holds no usage or cost at all. The report's Cost section has the details.
    static func costLine(_ results: RunResults) -> String? {
        guard let summary = CostSummary.make(results), summary.total.sent + summary.total.fromStore > 0 else { return nil }
        let total = summary.total
        let requests = "\(CostSummary.count(total.sent)) request\(total.sent == 1 ? "" : "s")"
        let stored = total.fromStore > 0 ? ", \(CostSummary.count(total.fromStore)) answered from the store" : ""
        let models = Array(Set(summary.pairs.flatMap(\.models))).sorted().joined(separator: ", ")
        if total.sent == 0 {
            let answers = total.fromStore == 1 ? "the one answer" : "all \(CostSummary.count(total.fromStore)) answers"
            return "cost: $0.00: \(answers) came from the store, and no request was sent."
        }
        guard let usd = total.costUSD else {
            let priced = Set(results.info.settings["prices"]?.objectValue?.keys.map { $0 } ?? [])
            let unpriced = Array(Set(summary.pairs.flatMap(\.models))).filter { !priced.contains($0) }.sorted()
            if !unpriced.isEmpty {
                return "cost: unknown for \(requests)\(stored): \(unpriced.joined(separator: ", ")) \(unpriced.count == 1 ? "has" : "have") no price (add it under prices: in altbench.yml)."
            }
            return "cost: unknown for \(requests)\(stored): \(CostSummary.count(total.withoutUsage)) answer\(total.withoutUsage == 1 ? "" : "s") reported no usage."
        }
        if summary.isMock {
            return "cost: \(CostSummary.usd(usd)) for \(requests)\(stored), at \(models.isEmpty ? "the models'" : models + "'s") list prices; the mock bills nothing."
        }
        let batched = results.trials.filter { $0.batchID != nil && !$0.cached }
        if !batched.isEmpty {
            let batches = Set(batched.compactMap(\.batchID)).count
            return "cost: \(CostSummary.usd(usd)) for \(requests)\(stored), from the usage the server reported; \(CostSummary.count(batched.count)) through the Batch API (\(batches) batch\(batches == 1 ? "" : "es")) at the batch price."
        }
        return "cost: \(CostSummary.usd(usd)) for \(requests)\(stored), from the usage the server reported."
    }
}
