import AltBenchCore
import AltBenchOpenAI
import AltBenchReport
import AltBenchStore
import AsyncHTTPClient
import Foundation

/// The steps of `altbench run`, in the order ``Evaluation/run()`` takes them: resume, load,
/// plan, open the run, execute, finish, judge, explain and exit.
extension Evaluation {
    /// The trials a run asks, after its shard and what a resumed run already answered.
    struct Plan {
        var trials: [Trial]
        /// Every trial of the plan, before `--shard` took this job's share.
        var wholePlan: Int
        /// The trials this run records (its share, including those a resumed run answered).
        var plannedTrials: Int
        var planner: Planner
    }

    /// What the judge did after the run: why it stopped, the error that kept it from
    /// starting, and whether some calls failed or were unreadable.
    struct JudgedAfterRun {
        var stop: StopReason?
        var refusal: AltBenchError?
        var incomplete = false
    }

    /// `--resume RUN`: the stopped run, its store, and its recorded settings applied to
    /// `options` (and its judge, when it recorded one).
    func openResumedRun(adjusting options: inout RunOptions) async throws -> (run: ResumableRun, store: ResultStore)? {
        guard let resume else { return nil }
        let store = try openExistingStore()
        let run = try await store.resumableRun(id: try await store.resolveRunID(resume))
        try Self.applyResumedSettings(run, to: &options)
        try await Judging.resumeJudge(run.info, store: store, options: &options)
        return (run, store)
    }

    /// `--judge`: the judging pass and its settings and rubric, resolved before any request.
    func prepareJudge(
        options: RunOptions, config: ConfigFile, provider: Provider
    ) throws -> (judging: Judging, prepared: Judging.Prepared)? {
        guard options.judge.enabled else { return nil }
        var clientOptions = options
        clientOptions.provider = provider
        let judging = Judging(
            judge: options.judge, options: options, config: config, environment: environment, console: console,
            workingDirectory: workingDirectory, control: control, gracePeriod: gracePeriod)
        return (judging, try judging.prepare(clientOptions: clientOptions))
    }

    /// The prompts and the dataset, with a warning for each item that will fail and for mock
    /// placeholder images.
    func loadInputs(_ experiment: Experiment) throws -> ([PromptVariant], Dataset) {
        let prompts = try PromptLoader().load(directory: resolve(experiment.promptsPath), displayPath: experiment.promptsPath)
        try VariantOrder.check(
            configured: experiment.baseline, among: prompts.map(\.name), configFile: configPath ?? "altbench.yml",
            promptsPath: experiment.promptsPath)
        let dataset = try DatasetLoader().load(directory: resolve(experiment.datasetPath), displayPath: experiment.datasetPath)
        for note in dataset.notes { console.err("note: \(note)\n") }
        for item in dataset.items {
            if let problem = item.problem { console.err("warning: item '\(item.id)' will fail: \(problem.message)\n") }
        }
        let placeholders = dataset.items.filter(\.isMockPlaceholder).map(\.id)
        if !placeholders.isEmpty {
            let shown = placeholders.prefix(5).map { "'\($0)'" }.joined(separator: ", ") + (placeholders.count > 5 ? " and \(placeholders.count - 5) more" : "")
            console.err(
                "warning: \(placeholders.count) item\(placeholders.count == 1 ? " is a mock placeholder" : "s are mock placeholders") (generated.mock: true; \(shown)): coloured shapes, not evaluation data. Generate them again with a real image model before trusting these scores.\n")
        }
        return (prompts, dataset)
    }

    /// The model the run asks: the store alone (`--offline`), the mock, or a client with its
    /// HTTP client (which the caller shuts down).
    func makeModel(_ experiment: Experiment, dataset: Dataset) throws -> (any VisionModel, HTTPClient?) {
        if experiment.offline {
            let model = StoreOnlyModel(endpoint: experiment.endpointIdentity)
            console.err("altbench: --offline: answers come only from the store; nothing is sent to \(model.endpoint).\n")
            return (model, nil)
        }
        if experiment.provider == .mock {
            console.err(
                "*** OFFLINE MOCK: no model is called; answers are the dataset's reference texts cut to max_tokens (\(experiment.providerReason)). Set OPENAI_API_KEY, or --base-url URL for a local server, to evaluate a real model. ***\n")
        }
        return try ModelClient.make(experiment, console: console) { MockVisionModel(dataset: dataset) }
    }

    /// The trials to ask: the planner's, this job's `--shard`, less what a resumed run
    /// answered; refused before anything is recorded when `--max-cost` may be passed.
    func plan(
        _ experiment: Experiment, prompts: [PromptVariant], dataset: Dataset, endpoint: String, resumed: ResumableRun?,
        judge: (judging: Judging, prepared: Judging.Prepared)?, store: ResultStore
    ) async throws -> Plan {
        let planner = Planner(experiment: experiment, endpoint: endpoint)
        var trials = planner.plan(variants: prompts, dataset: dataset)
        // `--shard K/N`: this job's share of the plan; `altbench merge` joins the shares.
        let wholePlan = trials.count
        if let shard = experiment.shard { trials = trials.filter(shard.includes) }
        if let resumed {
            try Self.checkUnchanged(resumed, prompts: prompts, dataset: dataset, plannedTrials: trials.count, endpoint: endpoint)
        }
        let plannedTrials = trials.count
        if let resumed { trials.removeAll { resumed.answered.contains(ResumableRun.Coordinates($0)) } }
        if experiment.maxCost != nil {
            let plan = try await CostPlanning.plan(trials, experiment: experiment, store: store)
            let judgeEstimate = judge.map {
                JudgeEstimate.make(
                    trials: trials, settings: $0.prepared.settings, rubric: $0.prepared.rubric,
                    prices: $0.prepared.settings.client.prices)
            }
            if let refusal = CostPlanning.refusal(plan, experiment: experiment, judge: judgeEstimate) {
                throw AltBenchError.overBudget(message: refusal)
            }
        }
        return Plan(trials: trials, wholePlan: wholePlan, plannedTrials: plannedTrials, planner: planner)
    }

    /// Records a new run (or continues the resumed one) and says what it will ask.
    func openRun(
        _ plan: Plan, experiment: Experiment, prompts: [PromptVariant], dataset: Dataset, endpoint: String,
        resumed: ResumableRun?, store: ResultStore
    ) async throws -> (runID: String, recorder: RunRecorder) {
        let redactor = Self.redactor(for: experiment)
        if let resumed {
            let runID = resumed.info.id
            let recorder = try await store.continueRun(id: runID, endpoint: endpoint, redactor: redactor)
            console.err(
                "altbench: resuming run \(runID): \(resumed.answered.count) of \(resumed.plannedTrials) trials already answered; \(plan.trials.count) to go\(resumed.failed > 0 ? " (\(resumed.failed) failed ones asked again)" : "").\n")
            return (runID, recorder)
        }
        let info = RunResults.Info(
            id: Self.newRunID(), startedAt: Date(), status: "running", provider: experiment.provider,
            providerReason: experiment.providerReason, endpoint: endpoint, datasetPath: experiment.datasetPath,
            promptsPath: experiment.promptsPath,
            settings: Self.recordedSettings(
                experiment, models: plan.trials.compactMap { $0.request?.model }, plannedTotal: plan.wholePlan))
        let recorder = try await store.beginRun(
            info, variants: prompts, dataset: dataset, plannedTrials: plan.plannedTrials, redactor: redactor)
        let shape = Self.planShape(prompts: prompts, planner: plan.planner, images: dataset.items.count, repeats: experiment.repeats)
        if let shard = experiment.shard {
            console.err("altbench: shard \(shard): \(plan.plannedTrials) of \(plan.wholePlan) trials (\(shape)), run \(info.id)\n")
        } else {
            console.err("altbench: \(plan.plannedTrials) trials (\(shape)), run \(info.id)\n")
        }
        return (info.id, recorder)
    }

    /// Asks the trials, live through the runner or through the provider's Batch API, with a
    /// progress line; each result is stored as it comes.
    func execute(
        _ trials: [Trial], experiment: Experiment, dataset: Dataset, model: any VisionModel, httpClient: HTTPClient?,
        recorder: RunRecorder, runID: String, store: ResultStore, options: RunOptions
    ) async throws -> Runner.Outcome {
        var sink = recorder
        sink.cachesScripted = experiment.cachesScripted
        let progress = ProgressLine(console: console)
        defer { progress.finish() }
        let runner = Runner(
            model: model, sink: sink, settings: experiment.scoring,
            corpus: ReferenceCorpus(items: dataset.items.map(ScoringItem.init)),
            retryPolicy: RetryPolicy(maxRetries: experiment.maxRetries), concurrency: experiment.concurrency,
            requestsPerMinute: experiment.requestsPerMinute, tokensPerMinute: experiment.tokensPerMinute,
            useCache: experiment.useCache, control: control, gracePeriod: gracePeriod, deadline: experiment.deadline,
            // A mock run is priced too (what the model would charge), but only a billed run
            // is held to the limit.
            prices: experiment.prices, maxCost: experiment.provider == .mock ? nil : experiment.maxCost,
            onProgress: { progress.update($0) })
        guard let batch = experiment.batch, let httpClient else { return try await runner.run(trials) }
        let sent = try await BatchRun(
            client: try ModelClient.batchClient(experiment, httpClient: httpClient), store: store, recorder: sink,
            runner: runner, runID: runID,
            folder: resolve(experiment.resultsPath).appendingPathComponent("batches").appendingPathComponent(runID),
            limits: batch.limits, retries: batch.retries, longestPoll: batch.longestPoll, prices: experiment.prices,
            console: console, control: control, clock: SystemRunClock(), deadline: experiment.deadline,
            redactor: Self.redactor(for: experiment), cancelling: options.batchCancel
        ).run(trials)
        return Runner.Outcome(progress: sent.progress, stopReason: sent.stopReason, pacing: RequestGate.Statistics(smallestWindow: 0))
    }

    /// Marks the run finished, or stopped with its reason; returns how many trials it answered.
    func finish(runID: String, outcome: Runner.Outcome, experiment: Experiment, store: ResultStore) async throws -> Int {
        // Two counts: the reports load the run themselves, and a second copy of 100,000
        // results would double what the report step holds.
        let loaded = try await store.loadRun(id: runID)
        let (recorded, answered, planned) = (loaded.trials.count, loaded.trials.count { !$0.failed }, loaded.plannedTrials)
        let complete = outcome.stopReason == nil && recorded == planned
        let message = outcome.stopReason.map { "\($0.description) (after \(recorded) of \(planned) trials)" }
        try await store.finishRun(
            id: runID, status: complete ? "finished" : "stopped", message: message,
            stoppedBy: complete ? nil : outcome.stopReason?.kind, redactor: Self.redactor(for: experiment))
        return answered
    }

    /// `--judge`: a run that finished (some trials may have failed) is judged before its
    /// report is written, within what the run left of `--max-cost` and `--deadline`; a
    /// stopped one is not (judge it later with `altbench judge`).
    func judgeAfterRun(
        _ judge: (judging: Judging, prepared: Judging.Prepared)?, runID: String, outcome: Runner.Outcome,
        experiment: Experiment, runStarted: ContinuousClock.Instant, store: ResultStore
    ) async throws -> JudgedAfterRun {
        var judged = JudgedAfterRun()
        guard let judge else { return judged }
        guard outcome.stopReason == nil else {
            console.err("altbench: the run stopped, so its answers were not judged; judge them with: altbench judge \(runID)\n")
            return judged
        }
        let left = experiment.maxCost.map { max(0, $0 - (outcome.spentUSD ?? 0)) }
        let timeLeft = experiment.deadline.map { max(.zero, $0 - (ContinuousClock.now - runStarted)) }
        do {
            let outcome = try await judge.judging.run(
                runID: runID, store: store, prepared: judge.prepared, maxCost: left, deadline: timeLeft)
            judged.stop = outcome.stopReason
            judged.incomplete = outcome.unreadable + outcome.failed > 0
        } catch let error as AltBenchError {
            // The run's answers are kept and reported; only the judging is missing.
            console.err("error: the answers were not judged: \(error.description)\nJudge them later with: altbench judge \(runID)\n")
            judged.refusal = error
        }
        return judged
    }

    /// `--offline`: the trials the store could not answer, each explained once: which other
    /// endpoints (or proxy) hold answers, and which prompts changed since they were stored.
    func explainNotStored(_ results: RunResults, runID: String, endpoint: String, store: ResultStore) async -> [RunResults.TrialRow] {
        let notStored = results.trials.filter { $0.errorKind == ModelFailure.Kind.notStored.rawValue }
        guard !notStored.isEmpty else { return [] }
        // The endpoint is part of every cache key: name the ones the store does hold answers
        // from, since replaying a local server's answers needs its --base-url again.
        let stored = (try? await store.cacheStatistics().byModel) ?? []
        let others = Dictionary(grouping: stored.filter { $0.endpoint != endpoint && $0.endpoint.hasPrefix("http") }, by: \.endpoint)
            .mapValues { $0.reduce(0) { $0 + $1.answers } }
            .sorted { ($1.value, $0.key) < ($0.value, $1.key) }
            .map { (endpoint: $0.key, answers: $0.value) }
        // A proxy's answers are replayed through --proxy, not --base-url.
        var proxy: String?
        if let most = others.first { proxy = try? await store.proxyURL(forEndpoint: most.endpoint) }
        // The prompt text is part of each cache key: an edited prompt finds nothing.
        var changes: [String] = []
        for variant in results.variants where notStored.contains(where: { $0.variant == variant.name }) {
            guard let stored = try? await store.storedPrompt(variant: variant.name, endpoint: endpoint, excludingRun: runID)
            else { continue }
            let what = stored.prompt != variant.text ? "prompt text" : stored.system != variant.system ? "system prompt" : nil
            if let what {
                changes.append(
                    "\(variant.name): its \(what) differs from the one run \(stored.runID) stored answers for, and the prompt is part of each answer's cache key. Restore the earlier text, or record answers for the new one with a run that can reach the model.")
            }
        }
        reportNotStored(notStored, endpoint: endpoint, otherEndpoints: others, otherProxy: proxy, promptChanges: changes)
        return notStored
    }

    /// The exit status, after saying why the run or its judge stopped and how to continue.
    func exitStatus(
        _ results: RunResults, outcome: Runner.Outcome, judged: JudgedAfterRun, notStored: Int, experiment: Experiment,
        runID: String
    ) -> Int32 {
        let failed = results.trials.filter(\.failed).count
        if failed > notStored {
            console.err(Self.failureSummary(results.trials.filter { $0.failed && $0.errorKind != ModelFailure.Kind.notStored.rawValue }, of: results.trials.count))
        }
        var exitCode: Int32 = failed > 0 || judged.incomplete ? Self.partialFailureExitCode : 0
        if let refusal = judged.refusal {
            if case .judgeOverBudget = refusal { exitCode = Self.costLimitExitCode } else { exitCode = Self.stoppedExitCode }
        }
        if let stop = judged.stop {
            exitCode = Self.exitCode(for: stop)
            console.err("altbench: the judge stopped (\(stop.description)); what it judged is kept. Judge again to continue: altbench judge \(runID)\n")
        }
        guard let reason = outcome.stopReason else { return exitCode }
        let missing = results.plannedTrials - results.trials.filter { !$0.failed }.count
        let resultsFlag = experiment.resultsPath == "results" ? "" : " --results \(experiment.resultsPath)"
        switch reason {
        case .failure(let failure):
            console.err("error: the run stopped after \(results.trials.count) of \(results.plannedTrials) trials: \(TerminalText.line(failure.message))\n")
            if let proxy = experiment.proxy, let status = failure.status, status >= 500 {
                console.err(
                    "These answers come from the proxy at \(proxy.url): it is running, but the server behind it is not answering. Check the proxy's --upstream URL and its log.\n")
            }
            // Resuming would send the same requests the same way: the fix is in the settings.
            console.err(
                "Fix that, then start a new run (altbench run\(resultsFlag) with the corrected settings): it reuses every answer stored so far. --resume would repeat the same requests.\n")
        case .serverLost(let failure):
            console.err("error: the run stopped after \(results.trials.count) of \(results.plannedTrials) trials: \(TerminalText.line(failure.message))\n")
            console.err("Once the server is back, continue this run with: altbench run --resume \(runID)\(resultsFlag)\n")
        case .interrupted, .deadline:
            console.err("altbench: stopped (\(reason)); \(results.trials.count) of \(results.plannedTrials) trials recorded. The report is marked incomplete.\n")
            if missing > 0 {
                console.err("Continue this run with: altbench run --resume \(runID)\(resultsFlag)\n")
            }
        case .costLimit(let limit, let spent):
            console.err(Self.costLimitMessage(
                limit: limit, spent: outcome.spentUSD ?? spent, recorded: results.trials.count,
                planned: results.plannedTrials, resumeCommand: missing > 0 ? "altbench run --resume \(runID)\(resultsFlag)" : nil))
        }
        return Self.exitCode(for: reason)
    }

    /// What keeps the run's keys out of the store, its messages and its reports.
    static func redactor(for experiment: Experiment) -> Redactor {
        Redactor(secrets: [experiment.apiKey?.value, experiment.proxy?.appKey?.value, experiment.azure?.apiKey?.value])
    }
}
