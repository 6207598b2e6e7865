import AltBenchCore
import AltBenchReport
import AltBenchStore
import Foundation

/// Where a comparison side comes from: a baseline file, or a run in the store.
enum ComparisonSide {
    /// `reference` names a file when one exists at that path; otherwise it is a run id (or a
    /// unique prefix) in `results/altbench.sqlite`.
    static func load(
        _ reference: String, results: String, workingDirectory: URL
    ) async throws -> (snapshot: RunSnapshot, run: RunResults?) {
        let url = URL.resolving(reference, against: workingDirectory)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return (try RunSnapshot.load(from: url, displayPath: reference), nil)
        }
        if reference.hasSuffix(".json") {
            throw AltBenchError.badBaseline(
                file: reference, reason: "does not exist. Save one with `altbench baseline save --output \(reference)`.")
        }
        let store = try ResultStore.existing(results: results, workingDirectory: workingDirectory)
        let runID = try await store.resolveRunID(reference)
        let loaded = try await store.loadRun(id: runID)
        return (RunSnapshot(loaded), loaded)
    }

    /// The newest run with answers; says on `console` when newer runs without any were passed over.
    static func latest(results: String, workingDirectory: URL, console: Console) async throws -> (snapshot: RunSnapshot, run: RunResults) {
        let store = try ResultStore.existing(results: results, workingDirectory: workingDirectory)
        let resolved = try await store.resolveRun(nil)
        if let note = resolved.note { console.err("altbench: \(note)\n") }
        let loaded = try await store.loadRun(id: resolved.id)
        return (RunSnapshot(loaded), loaded)
    }
}

/// Output formats of `altbench compare` and `altbench check`: `text` for a terminal (the
/// default; never HTML-escaped), `md` for Markdown files and pull requests, `json` for tools.
package enum CompareFormat: String, Sendable, CaseIterable {
    case text, md, json
    /// One self-contained HTML page (``CompareHTML``) on stdout.
    case html
}

/// `altbench compare A B`: two runs, or a baseline file and a run, side by side.
package struct CompareCommand: Sendable {
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

    @discardableResult
    package func run(_ a: String, _ b: String, format: CompareFormat = .text, alpha: Double = 0.05) async throws -> Comparison {
        let before = try await ComparisonSide.load(a, results: results, workingDirectory: workingDirectory)
        let after = try await ComparisonSide.load(b, results: results, workingDirectory: workingDirectory)
        let comparison = Comparison(before: before.snapshot, after: after.snapshot, alpha: alpha)
        switch format {
        case .text: console.out(CompareReport.text(comparison))
        case .md: console.out(CompareReport.markdown(comparison))
        case .json: console.out(try CompareJSON.encode(comparison))
        case .html: console.out(CompareHTML(comparison: comparison).render())
        }
        return comparison
    }
}

/// `altbench check --baseline FILE [RUN]`: the latest run (or RUN) against a baseline, with
/// the limits of `altbench.yml`'s `check:`. The verdict's headline is the first line printed.
package struct CheckCommand: Sendable {
    package var results: String
    package var configPath: String?
    package var console: Console
    package var workingDirectory: URL
    package var environment: [String: String]

    package init(
        results: String, configPath: String? = nil, console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.results = results
        self.configPath = configPath
        self.console = console
        self.workingDirectory = workingDirectory
        self.environment = environment
    }

    /// Judges the run, prints the verdict in `format`, writes `junit` when given and appends
    /// the full Markdown to `$GITHUB_STEP_SUMMARY` when that is set. Throws only when the inputs
    /// cannot be read (exit status 2 as well).
    ///
    /// `text` prints the verdict and one line per pair, and the whole comparison only when
    /// `verbose`; `md` and `json` are always whole.
    package func run(
        baseline: String, runID: String?, format: CompareFormat = .text, verbose: Bool = false, junit: String? = nil
    ) async throws -> CheckVerdict {
        let config = try ConfigFile.load(configPath: configPath, workingDirectory: workingDirectory)
        let thresholds = config.check
        let baselineURL = URL.resolving(baseline, against: workingDirectory)
        guard FileManager.default.fileExists(atPath: baselineURL.path) else {
            throw AltBenchError.badBaseline(
                file: baseline, reason: "does not exist. Save one with `altbench baseline save --output \(baseline)`.")
        }
        let before = try RunSnapshot.load(from: baselineURL, displayPath: baseline)
        let after =
            if let runID {
                try await ComparisonSide.load(runID, results: results, workingDirectory: workingDirectory)
            } else {
                try await ComparisonSide.latest(results: results, workingDirectory: workingDirectory, console: console)
            }
        var verdict = CheckVerdict(
            comparison: Comparison(before: before, after: after.snapshot, alpha: thresholds.alpha), thresholds: thresholds)
        if let run = after.run, run.info.status != "finished" || run.trials.count < run.plannedTrials {
            // A stopped run could hide a regression in the trials it never asked.
            verdict.problems.insert(
                CheckVerdict.Problem(
                    check: "the run finished",
                    message: "run \(run.info.id) is \(run.info.status) with \(run.trials.count) of \(run.plannedTrials) trials. "
                        + "\(run.info.finishAdvice) before checking it."), at: 0)
        }

        let markdown = CheckReport.markdown(verdict)
        switch format {
        case .text: console.out(verbose ? CheckReport.text(verdict) : CheckTerminal.summary(verdict))
        case .md: console.out(markdown)
        case .json: console.out(try CompareJSON.encode(verdict))
        case .html: console.out(CompareHTML(comparison: verdict.comparison, headline: verdict.headline).render())
        }
        if let junit {
            let url = URL.resolving(junit, against: workingDirectory)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(JUnitReport.xml(verdict).utf8).write(to: url, options: .atomic)
        }
        if let summary = environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty {
            try Self.append(markdown + "\n", to: URL.resolving(summary, against: workingDirectory))
        }
        return verdict
    }

    /// Appends to the step summary file, as GitHub Actions expects (other steps write there too).
    static func append(_ text: String, to url: URL) throws {
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
    }
}

/// The JSON of `altbench compare --format json` and `altbench check --format json`: pretty,
/// keys sorted, snake_case.
enum CompareJSON {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}

extension ResultStore {
    /// The store of the results folder `results` (relative to `workingDirectory`), which must
    /// exist: commands that read runs say how to make one instead of creating an empty store.
    static func existing(results: String, workingDirectory: URL) throws -> ResultStore {
        let database = URL.resolving(results, against: workingDirectory).appendingPathComponent("altbench.sqlite")
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw AltBenchError.noRuns(database: "\(results)/altbench.sqlite")
        }
        return try ResultStore(url: database)
    }
}
