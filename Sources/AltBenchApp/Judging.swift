import AltBenchCore
import AltBenchReport
import AltBenchStore
import AsyncHTTPClient
import Foundation

/// The judging pass: asks a judge model about every answer of a stored run, through the
/// same runner as the run (pacing, retries, stop, cache, spending limit), and stores the
/// verdicts with the answers' `quality` computed again. `altbench judge RUN` runs it alone;
/// `altbench run --judge` runs it after the run's own trials.
package struct Judging: Sendable {
    package var judge: JudgeOptions
    /// The flags that say how to reach a model and how fast (`--provider`, `--base-url`,
    /// `--proxy`, `--concurrency`, `--rpm`, `--max-cost`, `--no-cache`, ...); for `altbench
    /// judge`, what they leave unset is the run's own.
    package var options: RunOptions
    package var config: ConfigFile
    package var environment: [String: String]
    package var console: Console
    package var workingDirectory: URL
    package var control: RunControl
    package var gracePeriod: Duration

    package init(
        judge: JudgeOptions, options: RunOptions, config: ConfigFile,
        environment: [String: String] = ProcessInfo.processInfo.environment, console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        control: RunControl = RunControl(), gracePeriod: Duration = .seconds(5)
    ) {
        self.judge = judge
        self.options = options
        self.config = config
        self.environment = environment
        self.console = console
        self.workingDirectory = workingDirectory
        self.control = control
        self.gracePeriod = gracePeriod
    }

    /// What a judging pass did.
    package struct Outcome: Sendable {
        /// Calls answered with a verdict, answered with none, and failed; from the cache.
        package var judged = 0
        package var unreadable = 0
        package var failed = 0
        package var cached = 0
        /// Answers judged already by this judge, and answers left out (an image gone or changed).
        package var alreadyJudged = 0
        package var skipped: [JudgePlan.Skipped] = []
        package var costUSD: Double?
        /// Why the pass stopped early; `nil` when every call was made.
        package var stopReason: StopReason?
    }

    /// The judge's settings and rubric, resolved before anything is sent so that a bad
    /// setting stops the command at once (for `run --judge`, before the run starts).
    package struct Prepared: Sendable {
        package var settings: JudgeSettings
        package var rubric: JudgeRubric
    }

    /// Resolves the judge for a run reached with `clientOptions` and loads its rubric.
    package func prepare(clientOptions: RunOptions) throws -> Prepared {
        let settings = try JudgeSettings.resolve(
            judge: judge, runOptions: clientOptions, config: config, environment: environment)
        let rubric = try settings.rubricPath.map {
            try JudgeRubric.load(from: URL.resolving($0, against: workingDirectory), displayPath: $0)
        } ?? JudgeRubric.builtIn
        return Prepared(settings: settings, rubric: rubric)
    }

    /// Judges run `runID` in `store` with the prepared judge.
    ///
    /// `maxCost` replaces the judge's own `--max-cost` (`run --judge` passes what the run left
    /// of its limit).
    /// `deadline` likewise replaces the judge's own (`run --judge` passes what the run left of
    /// its `--deadline`).
    package func run(
        runID: String, store: ResultStore, prepared: Prepared, maxCost: Double? = nil, deadline: Duration? = nil
    ) async throws -> Outcome {
        let results = try await store.loadRun(id: runID)
        let (settings, rubric) = (prepared.settings, prepared.rubric)
        let model: any VisionModel
        var httpClient: HTTPClient?
        if settings.client.offline && !settings.isMock {
            model = StoreOnlyModel(endpoint: settings.client.endpointIdentity)
            console.err("altbench: --offline: the judge's verdicts come only from the store; nothing is sent to \(model.endpoint).\n")
        } else {
            (model, httpClient) = try ModelClient.make(settings.client, console: console) {
                MockJudgeModel(results: results)
            }
        }
        defer { if let httpClient { Task { try? await httpClient.shutdown() } } }
        if settings.isMock {
            console.err(
                "*** MOCK JUDGE: no judge model is called; verdicts are computed from the dataset's references and terms, not from the image (\(settings.reason)). Set judge.model (or --judge-model) and a key to judge with a vision model. ***\n")
        }
        let plan = JudgePlan.make(results, settings: settings, rubric: rubric, endpoint: model.endpoint)
        var outcome = Outcome(alreadyJudged: plan.alreadyJudged, skipped: plan.skipped)
        for skipped in plan.skipped {
            console.err("warning: \(skipped.trials) answer\(skipped.trials == 1 ? "" : "s") of item '\(skipped.itemID)' cannot be judged: \(skipped.reason).\n")
        }
        let repeats = settings.repeats > 1 ? ", \(settings.repeats) times each" : ""
        console.err(
            "altbench: judging \(plan.answers) answer\(plan.answers == 1 ? "" : "s") of run \(runID) with \(settings.model) by \(settings.rubricLabel)\(repeats): \(plan.calls.count) call\(plan.calls.count == 1 ? "" : "s")\(plan.alreadyJudged > 0 ? " (\(plan.alreadyJudged) answers already judged by it)" : "")\(settings.client.batch != nil ? ", through the Batch API" : "").\n")
        try await store.recordJudge(runID: runID, judge: settings.recorded)
        // `altbench batches cancel` asks nothing new: only a judge with batches has any to cancel.
        guard !plan.calls.isEmpty, !options.batchCancel || settings.client.batch != nil else { return outcome }

        let limit = settings.isMock ? nil : maxCost ?? settings.client.maxCost
        if let limit {
            // Through the Batch API every call costs the batch price.
            let prices = settings.client.batch == nil ? settings.client.prices : settings.client.prices.batchTable
            guard let price = prices.price(forModel: settings.model)?.price else {
                throw AltBenchError.judgeOverBudget(
                    message: "--max-cost \(CostSummary.usd(limit)) needs a price for the judge's model, and \(settings.model) has none. Add it under prices: in altbench.yml (USD per million tokens), or drop --max-cost.")
            }
            let high = plan.calls.reduce(0.0) { $0 + price.cost(inputTokens: $1.estimate.inputTokens, outputTokens: $1.estimate.outputTokensMax) }
            if high > limit {
                throw AltBenchError.judgeOverBudget(
                    message: "judging \(plan.calls.count) calls may cost up to \(CostSummary.usd(high)), above --max-cost \(CostSummary.usd(limit)); nothing was sent to the judge. Judge fewer answers, lower judge.max_tokens, or raise --max-cost.")
            }
        }
        let redactor = Redactor(secrets: [
            settings.client.apiKey?.value, settings.client.proxy?.appKey?.value, settings.client.azure?.apiKey?.value,
        ])
        let recorder = store.judgeRecorder(
            runID: runID, endpoint: model.endpoint, model: settings.model, rubric: rubric,
            rubricName: settings.rubricLabel, settings: ScoringSettings(recorded: results.info.settings),
            repeats: settings.repeats, redactor: redactor)
        let client = settings.client
        if let batch = client.batch, let httpClient {
            outcome.stopReason = try await BatchRun(
                client: try ModelClient.batchClient(client, httpClient: httpClient), store: store,
                sink: JudgeBatchSink(recorder: recorder, prices: client.prices, useCache: client.useCache), runID: runID,
                folder: URL.resolving(client.resultsPath, against: workingDirectory).appendingPathComponent("batches")
                    .appendingPathComponent(runID),
                limits: batch.limits, retries: batch.retries, longestPoll: batch.longestPoll, console: console,
                control: control, clock: SystemRunClock(), deadline: deadline ?? client.deadline, redactor: redactor,
                cancelling: options.batchCancel
            ).run(plan.calls).stopReason
        } else {
            let progress = ProgressLine(console: console)
            let runner = Runner(
                model: model, sink: nil, retryPolicy: RetryPolicy(maxRetries: client.maxRetries),
                concurrency: client.concurrency, requestsPerMinute: client.requestsPerMinute,
                tokensPerMinute: client.tokensPerMinute, useCache: client.useCache, control: control,
                gracePeriod: gracePeriod, deadline: deadline ?? client.deadline, prices: client.prices,
                maxCost: limit, onProgress: { progress.update($0) })
            let ran = try await runner.judge(plan.calls, sink: recorder)
            progress.finish()
            outcome.stopReason = ran.stopReason
        }

        // The tally of what was stored, as the report will count it.
        let judged = try await store.loadRun(id: runID)
        let keys = Set(plan.calls.map(\.key))
        var cost = 0.0
        var costKnown = true
        var unreadableReasons: [String: Int] = [:]
        for row in judged.trials.flatMap(\.judgements) where keys.contains(row.cacheKey) {
            switch row.status {
            case .judged: outcome.judged += 1
            case .unreadable:
                outcome.unreadable += 1
                // The kind of problem, without the answer's excerpt.
                let reason = (row.error ?? "no verdict").components(separatedBy: ": \"").first ?? "no verdict"
                unreadableReasons[reason.hasSuffix(".") ? String(reason.dropLast()) : reason, default: 0] += 1
            case .failed: outcome.failed += 1
            }
            if row.cached { outcome.cached += 1 }
            if let value = row.costUSD { cost += value } else if !row.cached && row.status != .failed { costKnown = false }
        }
        outcome.costUSD = costKnown ? cost : nil
        var line = "judge: \(outcome.judged) verdict\(outcome.judged == 1 ? "" : "s")"
        if outcome.cached > 0 { line += " (\(outcome.cached) from the cache)" }
        if outcome.unreadable > 0 {
            let commonest = unreadableReasons.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "no verdict"
            line += ", \(outcome.unreadable) unreadable (\(commonest); docs/judge.md says what the judge must answer)"
        }
        if outcome.failed > 0 { line += ", \(outcome.failed) failed" }
        if outcome.unreadable + outcome.failed > 0 { line += " (their judge scores are missing, not 0; see the report)" }
        if settings.isMock {
            line += "; the mock judge bills nothing"
        } else if let cost = outcome.costUSD {
            line += "; cost \(CostSummary.usd(cost))"
        }
        console.err(line + ".\n")
        return outcome
    }

    /// The judge of a resumed run (`run --resume RUN`, `altbench batches cancel RUN`): a run
    /// started with `--judge`, or judged since, is judged again as it was (the recorded model,
    /// rubric and repeats, where no flag gives them), and through the Batch API when its judge
    /// used it or has batches not yet imported. Only answers without this judge's verdict
    /// are asked about, and calls a batch holds are not sent again.
    static func resumeJudge(_ run: RunResults.Info, store: ResultStore, options: inout RunOptions) async throws {
        let pending = try await store.batchState(runID: run.id, purpose: BatchPurpose.judge).contains(where: \.isUnfinished)
        guard let recorded = run.settings["judge"], recorded.objectValue != nil else {
            if pending {
                options.judge.enabled = true
                options.judge.batch = true
            }
            return
        }
        options.judge.enabled = true
        options.judge.model = options.judge.model ?? recorded["model"]?.stringValue.flatMap { $0 == MockJudge.model ? nil : $0 }
        if options.judge.rubric == nil, let rubric = recorded["rubric"]?.stringValue, rubric != JudgeRubric.builtInLabel {
            options.judge.rubric = rubric
        }
        options.judge.repeats = options.judge.repeats ?? recorded["repeats"]?.intValue
        if pending || recorded["batch"]?.objectValue != nil { options.judge.batch = true }
        // Cancelling asks nothing new: the judge takes part only to cancel its own batches.
        if options.batchCancel && !pending { options.judge.enabled = false }
    }

    /// The client flags for judging a stored run: those given, and the run's own provider,
    /// base URL, proxy and Azure resource where none is given.
    static func clientOptions(_ given: RunOptions, run: RunResults.Info) -> RunOptions {
        var options = given
        guard given.provider == nil, given.baseURL == nil, given.proxy == nil, given.azureEndpoint == nil else {
            return options
        }
        let settings = run.settings
        options.provider = run.provider
        switch run.provider {
        case .openai:
            if let base = settings["base_url"]?.stringValue, !base.isEmpty { options.baseURL = base }
        case .proxy:
            options.proxy = settings["proxy"]?.stringValue
        case .azure:
            options.azureEndpoint = settings["azure"]?["endpoint"]?.stringValue
            options.azureDeployment = settings["azure"]?["deployment"]?.stringValue
            options.azureAPIVersion = settings["azure"]?["api_version"]?.stringValue
        case .mock:
            break
        }
        return options
    }
}

/// `altbench judge [RUN]`: judges a stored run, then writes its reports again.
package struct JudgeCommand: Sendable {
    package var judge: JudgeOptions
    package var options: RunOptions
    package var configPath: String?
    package var environment: [String: String]
    package var console: Console
    package var workingDirectory: URL
    package var control: RunControl
    package var gracePeriod: Duration

    package init(
        judge: JudgeOptions, options: RunOptions, configPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        control: RunControl = RunControl(), gracePeriod: Duration = .seconds(5)
    ) {
        self.judge = judge
        self.options = options
        self.configPath = configPath
        self.environment = environment
        self.console = console
        self.workingDirectory = workingDirectory
        self.control = control
        self.gracePeriod = gracePeriod
    }

    /// Judges run `id` (the latest when `nil`) and rewrites its reports; the exit status.
    package func run(id: String?) async throws -> Int32 {
        let config = try ConfigFile.load(configPath: configPath, workingDirectory: workingDirectory)
        let results = options.results ?? config.results ?? "results"
        let store = try ResultStore.existing(results: results, workingDirectory: workingDirectory)
        let resolved = try await store.resolveRun(id)
        if let note = resolved.note { console.err("altbench: \(note)\n") }
        let runID = resolved.id
        let judging = Judging(
            judge: judge, options: options, config: config, environment: environment, console: console,
            workingDirectory: workingDirectory, control: control, gracePeriod: gracePeriod)
        let info = try await store.loadRun(id: runID).info
        var clientOptions = Judging.clientOptions(options, run: info)
        if !clientOptions.batch, try await store.batchState(runID: runID, purpose: BatchPurpose.judge).contains(where: \.isUnfinished) {
            // Its calls are in batches at the provider: sending them live would pay twice.
            console.err("altbench: run \(runID) has judge batches not yet imported; judging through the Batch API to import them.\n")
            clientOptions.batch = true
        }
        let prepared = try judging.prepare(clientOptions: clientOptions)
        let outcome = try await judging.run(runID: runID, store: store, prepared: prepared)
        let newest = try await store.resolveRun(nil).id
        _ = try await Reporting(
            store: store, resultsDirectory: URL.resolving(results, against: workingDirectory), console: console
        ).write(
            runID: runID, displayResults: results, updateLatest: runID == newest,
            truncationLimit: config.check.maxTruncationRise, runCostLine: false)
        // Calls without a verdict are missing scores, as failed trials are: exit 3.
        guard let reason = outcome.stopReason else { return outcome.unreadable + outcome.failed > 0 ? Evaluation.partialFailureExitCode : 0 }
        console.err("altbench: the judge stopped (\(reason.description)); what it judged is kept. Judge again to continue: altbench judge \(runID).\n")
        return Evaluation.exitCode(for: reason)
    }
}
