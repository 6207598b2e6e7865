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
package struct Evaluation: Sendable {
    /// Exit status when some trials failed but everything else was written.
    package static let partialFailureExitCode: Int32 = 3
    /// Exit status when a misconfiguration (bad key, unknown model, no quota) stopped the run.
    package static let stoppedExitCode: Int32 = 1
    /// Exit status when the run deadline passed (as `timeout(1)` exits).
    package static let deadlineExitCode: Int32 = 124
    /// Exit status when the run stopped before its next request could pass `--max-cost`: not
    /// 1 (nothing is misconfigured) nor 3 (no trial failed), so a script can tell a run to
    /// continue with `--resume`.
    package static let costLimitExitCode: Int32 = 4

    package var options: RunOptions
    /// `--config FILE`; `nil` reads ./altbench.yml when present.
    package var configPath: String?
    package var environment: [String: String]
    package var console: Console
    package var workingDirectory: URL
    /// `--resume RUN`: the run to continue in place.
    package var resume: String?
    /// How the run is asked to stop (signals, tests).
    package var control: RunControl
    /// How long requests in flight may take to finish once the run is stopping.
    package var gracePeriod: Duration

    package init(
        options: RunOptions, configPath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        resume: String? = nil, control: RunControl = RunControl(), gracePeriod: Duration = .seconds(5)
    ) {
        self.options = options
        self.configPath = configPath
        self.environment = environment
        self.console = console
        self.workingDirectory = workingDirectory
        self.resume = resume
        self.control = control
        self.gracePeriod = gracePeriod
    }

    /// The outcome of a run that got as far as the store.
    package struct Outcome: Sendable {
        package var runID: String
        package var exitCode: Int32
        package var reportPath: String
        package var results: RunResults
        /// Why the run ended early; `nil` when every trial was done.
        package var stopReason: StopReason?
        /// `--offline`: the trials the store could not answer.
        package var notStored: [RunResults.TrialRow]
    }

    /// Runs the whole pipeline. Throws before any request for bad input; otherwise writes the
    /// report (marked incomplete when the run stopped early) and returns the exit status:
    /// 0 all answered, 3 some trials failed, 1 stopped by a misconfiguration, 4 stopped by the
    /// spending limit, 124 deadline, 128 + the signal's number when interrupted.
    package func run() async throws -> Outcome {
        var options = options
        let resumed = try await openResumedRun(adjusting: &options)
        // altbench.yml is read once: the run's settings and the report's check: limits.
        let config = try configFile()
        let experiment = try Experiment.resolve(options: options, config: config, environment: environment)
        // `--judge`: the judge is resolved now, so that a bad judge setting costs no run.
        let judge = try prepareJudge(options: options, config: config, provider: experiment.provider)
        let (prompts, dataset) = try loadInputs(experiment)

        var (model, httpClient) = try makeModel(experiment, dataset: dataset)
        defer { if let httpClient { Task { try? await httpClient.shutdown() } } }

        let store = try resumed?.store ?? ResultStore(url: resolve(experiment.resultsPath).appendingPathComponent("altbench.sqlite"))
        var plan = try await self.plan(
            experiment, prompts: prompts, dataset: dataset, endpoint: model.endpoint, resumed: resumed?.run, judge: judge,
            store: store)
        let (runID, recorder) = try await openRun(
            plan, experiment: experiment, prompts: prompts, dataset: dataset, endpoint: model.endpoint,
            resumed: resumed?.run, store: store)
        // Recorded now, so that `--resume` judges a run stopped before its judge began.
        if let judge { try await store.recordJudge(runID: runID, judge: judge.prepared.settings.recorded) }

        let runStarted = ContinuousClock.now
        let outcome = try await execute(
            plan.trials, experiment: experiment, dataset: dataset, model: model, httpClient: httpClient,
            recorder: recorder, runID: runID, store: store, options: options)
        // The plan is done with; the report step reads what was stored.
        plan.trials = []
        try? await httpClient?.shutdown()
        httpClient = nil

        let recordedAnswers = try await finish(runID: runID, outcome: outcome, experiment: experiment, store: store)
        let judged = try await judgeAfterRun(
            judge, runID: runID, outcome: outcome, experiment: experiment, runStarted: runStarted, store: store)

        let (results, reportPath) = try await Reporting(store: store, resultsDirectory: resolve(experiment.resultsPath), console: console)
            .write(
                // A run with no answer (a wrong key, a closed port) does not take latest.* over.
                runID: runID, displayResults: experiment.resultsPath,
                updateLatest: recordedAnswers > 0, embedImages: options.embedImages,
                truncationLimit: config.check.maxTruncationRise)
        if recordedAnswers == 0 {
            console.err(
                "altbench: this run recorded no answer, so \(experiment.resultsPath)/latest.md and latest.html were left to the newest run with answers; `report`, `baseline save` and `check` pass it over too.\n")
        }
        let notStored = await explainNotStored(results, runID: runID, endpoint: model.endpoint, store: store)
        let exitCode = exitStatus(
            results, outcome: outcome, judged: judged, notStored: notStored.count, experiment: experiment, runID: runID)
        return Outcome(
            runID: runID, exitCode: exitCode, reportPath: reportPath, results: results, stopReason: outcome.stopReason,
            notStored: notStored)
    }

    func openExistingStore() throws -> ResultStore {
        let resultsPath = options.results ?? (try? configFile().results) ?? "results"
        let database = resolve(resultsPath).appendingPathComponent("altbench.sqlite")
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw AltBenchError.noRuns(database: "\(resultsPath)/altbench.sqlite")
        }
        return try ResultStore(url: database)
    }

    func configFile() throws -> ConfigFile {
        try ConfigFile.load(configPath: configPath, workingDirectory: workingDirectory)
    }

    func resolve(_ path: String) -> URL {
        URL.resolving(path, against: workingDirectory)
    }

    /// Sortable, unique enough for one machine: UTC time plus 4 random hex digits.
    static func newRunID(date: Date = Date()) -> String {
        "\(DateText.utc(date, "yyyyMMdd-HHmmss"))-\(String(format: "%04x", UInt16.random(in: .min ... .max)))"
    }
}
