import AltBenchCore
import AltBenchOpenAI
import AltBenchReport
import AltBenchStore
import AsyncHTTPClient
import Foundation

/// The `altbench run` pipeline: load, plan, execute, store, report.
///
/// The command-line front only parses flags and calls `run`; everything here is testable
/// without spawning a process.
public struct Evaluation: Sendable {
    /// Exit status when some trials failed but everything else was written.
    public static let partialFailureExitCode: Int32 = 3

    public var options: RunOptions
    /// `--config FILE`; `nil` reads ./altbench.yml when present.
    public var configPath: String?
    public var environment: [String: String]
    public var console: Console
    public var workingDirectory: URL

    public init(
        options: RunOptions, configPath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.options = options
        self.configPath = configPath
        self.environment = environment
        self.console = console
        self.workingDirectory = workingDirectory
    }

    /// The outcome of a run that got as far as the store.
    public struct Outcome: Sendable {
        public var runID: String
        public var exitCode: Int32
        public var reportPath: String
        public var results: RunResults
    }

    /// Runs the whole pipeline. Throws before any request for bad input; returns the exit
    /// status otherwise (0 all answered, 3 some trials failed); throws `RunStopped` after
    /// writing the partial report when the run was misconfigured.
    public func run() async throws -> Outcome {
        let experiment = try resolveExperiment()
        let prompts = try PromptLoader().load(directory: resolve(experiment.promptsPath), displayPath: experiment.promptsPath)
        let dataset = try DatasetLoader().load(directory: resolve(experiment.datasetPath), displayPath: experiment.datasetPath)
        for note in dataset.notes { console.err("note: \(note)\n") }
        for item in dataset.items {
            if let problem = item.problem { console.err("warning: item '\(item.id)' will fail: \(problem.message)\n") }
        }

        let model: any VisionModel
        var httpClient: HTTPClient?
        switch experiment.provider {
        case .mock:
            model = MockVisionModel(dataset: dataset)
            console.err(
                "*** OFFLINE MOCK: no model is called; answers are the dataset's reference texts cut to max_tokens (\(experiment.providerReason)). Set OPENAI_API_KEY, or --base-url URL for a local server, to evaluate a real model. ***\n")
        case .openai:
            let client = OpenAIVisionModel.makeHTTPClient()
            httpClient = client
            model = OpenAIVisionModel(
                baseURL: experiment.baseURL, apiKey: experiment.apiKey, apiKeyVariable: experiment.apiKeyVariable,
                timeout: .milliseconds(Int64(experiment.timeout * 1000)), httpClient: client)
            if experiment.apiKey == nil {
                console.err("note: no \(experiment.apiKeyVariable) set; sending requests to \(experiment.baseURL.absoluteString) without an Authorization header.\n")
            }
        }

        let planner = Planner(experiment: experiment, endpoint: model.endpoint)
        let trials = planner.plan(variants: prompts, dataset: dataset)
        let resultsDirectory = resolve(experiment.resultsPath)
        let store = try ResultStore(url: resultsDirectory.appendingPathComponent("altbench.sqlite"))
        let redactor = Redactor(secrets: [experiment.apiKey?.value])
        let info = RunResults.Info(
            id: Self.newRunID(), startedAt: Date(), status: "running", provider: experiment.provider,
            providerReason: experiment.providerReason, endpoint: model.endpoint, datasetPath: experiment.datasetPath,
            promptsPath: experiment.promptsPath, settings: experiment.recordedSettings)
        let recorder = try await store.beginRun(
            info, variants: prompts, dataset: dataset, plannedTrials: trials.count, redactor: redactor)

        let progress = ProgressLine(console: console)
        let runner = Runner(
            model: model, sink: recorder, settings: experiment.scoring,
            retryPolicy: RetryPolicy(maxRetries: experiment.retries), concurrency: experiment.concurrency,
            useCache: experiment.useCache, onProgress: { progress.update($0) })
        console.err("altbench: \(trials.count) trials (\(prompts.count) prompts × \(dataset.items.count) images\(experiment.repeats > 1 ? " × \(experiment.repeats) repeats" : "")), run \(info.id)\n")

        var runError: (any Error)?
        do {
            try await runner.run(trials)
        } catch {
            runError = error
        }
        progress.finish()
        try? await httpClient?.shutdown()
        let stopped = runError as? RunStopped
        if let runError, stopped == nil { throw runError }
        try await store.finishRun(
            id: info.id, status: stopped == nil ? "finished" : "stopped", message: stopped?.failure.message,
            redactor: redactor)

        let (results, reportPath) = try await Reporting(store: store, resultsDirectory: resultsDirectory, console: console)
            .write(runID: info.id, displayResults: experiment.resultsPath, updateLatest: true)
        if let stopped { throw stopped }
        let failed = results.trials.filter(\.failed).count
        if failed > 0 {
            console.err("\(failed) of \(results.trials.count) trials failed; see the report for each reason.\n")
        }
        return Outcome(runID: info.id, exitCode: failed > 0 ? Self.partialFailureExitCode : 0, reportPath: reportPath, results: results)
    }

    func resolveExperiment() throws -> Experiment {
        let config: ConfigFile
        if let configPath {
            guard FileManager.default.fileExists(atPath: resolve(configPath).path) else {
                throw AltBenchError.configFile(file: configPath, line: nil, message: "no such file. Check the --config path.")
            }
            config = try ConfigFile.load(from: resolve(configPath), displayPath: configPath)
        } else {
            config = try ConfigFile.load(from: resolve("altbench.yml"), displayPath: "altbench.yml")
        }
        return try Experiment.resolve(options: options, config: config, environment: environment)
    }

    func resolve(_ path: String) -> URL {
        URL.resolving(path, against: workingDirectory)
    }

    /// Sortable, unique enough for one machine: UTC time plus 4 random hex digits.
    static func newRunID(date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return "\(formatter.string(from: date))-\(String(format: "%04x", UInt16.random(in: .min ... .max)))"
    }
}

/// Writes a stored run's Markdown report and prints its summary.
public struct Reporting: Sendable {
    public var store: ResultStore
    public var resultsDirectory: URL
    public var console: Console

    public init(store: ResultStore, resultsDirectory: URL, console: Console) {
        self.store = store
        self.resultsDirectory = resultsDirectory
        self.console = console
    }

    /// Renders `runs/<id>.md` (and `latest.md` when asked), prints the summary to stdout.
    @discardableResult
    public func write(runID: String, displayResults: String, updateLatest: Bool) async throws -> (RunResults, String) {
        let results = try await store.loadRun(id: runID)
        let runs = resultsDirectory.appendingPathComponent("runs")
        try FileManager.default.createDirectory(at: runs, withIntermediateDirectories: true)
        let runFile = runs.appendingPathComponent("\(runID).md")
        try MarkdownReport(results: results, reportDirectory: runs).render().write(to: runFile, atomically: true, encoding: .utf8)
        var written = ["\(displayResults)/runs/\(runID).md"]
        if updateLatest {
            let latest = resultsDirectory.appendingPathComponent("latest.md")
            try MarkdownReport(results: results, reportDirectory: resultsDirectory).render()
                .write(to: latest, atomically: true, encoding: .utf8)
            written.append("\(displayResults)/latest.md")
        }
        if results.info.isMock { console.out("MOCK RESULTS (offline mock model, not a vision model)\n") }
        console.out(TerminalSummary.render(results))
        console.err("report: \(written.joined(separator: ", ")); database: \(displayResults)/altbench.sqlite\n")
        return (results, written.last!)
    }
}

/// The store's own errors, re-exported so the command line can print them.
public typealias StoreFailure = StoreError

/// `altbench report`: re-renders a stored run.
public struct ReportCommand: Sendable {
    public var results: String
    public var console: Console
    public var workingDirectory: URL

    public init(
        results: String, console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.results = results
        self.console = console
        self.workingDirectory = workingDirectory
    }

    @discardableResult
    public func run(id: String?) async throws -> RunResults {
        let directory = URL.resolving(results, against: workingDirectory)
        let database = directory.appendingPathComponent("altbench.sqlite")
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw AltBenchError.noRuns(database: "\(results)/altbench.sqlite")
        }
        let store = try ResultStore(url: database)
        let runID = try await store.resolveRunID(id)
        let newest = try await store.runIDs().first
        let (loaded, _) = try await Reporting(store: store, resultsDirectory: directory, console: console)
            .write(runID: runID, displayResults: results, updateLatest: runID == newest)
        return loaded
    }
}

extension URL {
    /// A path as a user gave it: absolute as is, relative against the working directory.
    static func resolving(_ path: String, against directory: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
    }
}
