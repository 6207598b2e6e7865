import AltBenchCore
import AltBenchReport
import AltBenchStore
import Foundation

/// `altbench report`: re-renders a stored run.
package struct ReportCommand: Sendable {
    package var results: String
    package var console: Console
    package var workingDirectory: URL

    package init(
        results: String, console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.results = results
        self.console = console
        self.workingDirectory = workingDirectory
    }

    /// What `altbench report` writes: both reports (the default), one of them, or JSON of the
    /// summary tables on stdout.
    package enum Format: String, Sendable, CaseIterable {
        case both, md, html, json
    }

    @discardableResult
    package func run(id: String?, format: Format = .both, embedImages: Bool = false) async throws -> RunResults {
        let directory = URL.resolving(results, against: workingDirectory)
        let store = try ResultStore.existing(results: results, workingDirectory: workingDirectory)
        let resolved = try await store.resolveRun(id)
        if let note = resolved.note { console.err("altbench: \(note)\n") }
        let runID = resolved.id
        // latest.* belong to the newest run with answers.
        let newest = id == nil ? runID : try await store.resolveRun(nil).id
        let config = try ConfigFile.load(configPath: nil, workingDirectory: workingDirectory)
        let limit = config.check.maxTruncationRise
        switch format {
        case .both:
            let (loaded, _) = try await Reporting(store: store, resultsDirectory: directory, console: console)
                .write(runID: runID, displayResults: results, updateLatest: runID == newest, embedImages: embedImages, truncationLimit: limit)
            return loaded
        case .json:
            let loaded = try await store.loadRun(id: runID)
            console.out(ReportJSON.render(loaded, truncationLimit: limit))
            return loaded
        case .md, .html:
            let loaded = try await store.loadRun(id: runID)
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("runs"), withIntermediateDirectories: true)
            var files = RunReportFiles(
                analysis: ReportAnalysis(loaded, truncationLimit: limit), results: loaded, resultsDirectory: directory)
            files.embedImages = embedImages
            let kind: RunReportFiles.Kind = format == .md ? .markdown : .html
            for file in files.render([kind], latest: runID == newest) { try file.data.write(to: file.url, options: .atomic) }
            var written = ["\(results)/runs/\(runID).\(kind == .markdown ? "md" : "html")"]
            if runID == newest { written.append("\(results)/latest.\(kind == .markdown ? "md" : "html")") }
            console.err("report: \(written.joined(separator: ", "))\n")
            return loaded
        }
    }
}
