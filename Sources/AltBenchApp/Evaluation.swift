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
        var resumable: ResumableRun?
        var store: ResultStore?
        if let resume {
            let opened = try openExistingStore()
            let run = try await opened.resumableRun(id: try await opened.resolveRunID(resume))
            try Self.applyResumedSettings(run, to: &options)
            try await Judging.resumeJudge(run.info, store: opened, options: &options)
            resumable = run
            store = opened
        }
        // altbench.yml is read once: the run's settings and the report's check: limits.
        let config = try configFile()
        let experiment = try Experiment.resolve(options: options, config: config, environment: environment)
        // `--judge`: the judge is resolved now, so that a bad judge setting costs no run.
        var judge: (judging: Judging, prepared: Judging.Prepared)?
        if options.judge.enabled {
            var clientOptions = options
            clientOptions.provider = experiment.provider
            let judging = Judging(
                judge: options.judge, options: options, config: config, environment: environment, console: console,
                workingDirectory: workingDirectory, control: control, gracePeriod: gracePeriod)
            judge = (judging, try judging.prepare(clientOptions: clientOptions))
        }
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

        let model: any VisionModel
        var httpClient: HTTPClient?
        if experiment.offline {
            model = StoreOnlyModel(endpoint: experiment.endpointIdentity)
            console.err("altbench: --offline: answers come only from the store; nothing is sent to \(model.endpoint).\n")
        } else {
            if experiment.provider == .mock {
                console.err(
                    "*** OFFLINE MOCK: no model is called; answers are the dataset's reference texts cut to max_tokens (\(experiment.providerReason)). Set OPENAI_API_KEY, or --base-url URL for a local server, to evaluate a real model. ***\n")
            }
            (model, httpClient) = try ModelClient.make(experiment, console: console) { MockVisionModel(dataset: dataset) }
        }
        defer { if let httpClient { Task { try? await httpClient.shutdown() } } }

        let planner = Planner(experiment: experiment, endpoint: model.endpoint)
        var trials = planner.plan(variants: prompts, dataset: dataset)
        // `--shard K/N`: this job's share of the plan; `altbench merge` joins the shares.
        let wholePlan = trials.count
        if let shard = experiment.shard { trials = trials.filter(shard.includes) }
        let resultsDirectory = resolve(experiment.resultsPath)
        let redactor = Redactor(secrets: [experiment.apiKey?.value, experiment.proxy?.appKey?.value, experiment.azure?.apiKey?.value])
        if let resumable {
            try Self.checkUnchanged(resumable, prompts: prompts, dataset: dataset, plannedTrials: trials.count, endpoint: model.endpoint)
        }
        let plannedTrials = trials.count
        if let resumable { trials.removeAll { resumable.answered.contains(ResumableRun.Coordinates($0)) } }
        let opened = try store ?? ResultStore(url: resultsDirectory.appendingPathComponent("altbench.sqlite"))
        // `--max-cost`: refuse before the run is recorded when the plan may spend more.
        if experiment.maxCost != nil {
            let plan = try await CostPlanning.plan(trials, experiment: experiment, store: opened)
            let judgeEstimate = judge.map {
                JudgeEstimate.make(
                    trials: trials, settings: $0.prepared.settings, rubric: $0.prepared.rubric,
                    prices: $0.prepared.settings.client.prices)
            }
            if let refusal = CostPlanning.refusal(plan, experiment: experiment, judge: judgeEstimate) {
                throw AltBenchError.overBudget(message: refusal)
            }
        }
        let runID: String
        let recorder: RunRecorder
        if let resumable {
            runID = resumable.info.id
            recorder = try await opened.continueRun(id: runID, endpoint: model.endpoint, redactor: redactor)
            console.err(
                "altbench: resuming run \(runID): \(resumable.answered.count) of \(resumable.plannedTrials) trials already answered; \(trials.count) to go\(resumable.failed > 0 ? " (\(resumable.failed) failed ones asked again)" : "").\n")
        } else {
            let info = RunResults.Info(
                id: Self.newRunID(), startedAt: Date(), status: "running", provider: experiment.provider,
                providerReason: experiment.providerReason, endpoint: model.endpoint, datasetPath: experiment.datasetPath,
                promptsPath: experiment.promptsPath,
                settings: Self.recordedSettings(
                    experiment, models: trials.compactMap { $0.request?.model }, plannedTotal: wholePlan))
            runID = info.id
            recorder = try await opened.beginRun(
                info, variants: prompts, dataset: dataset, plannedTrials: plannedTrials, redactor: redactor)
            let shape = Self.planShape(prompts: prompts, planner: planner, images: dataset.items.count, repeats: experiment.repeats)
            if let shard = experiment.shard {
                console.err("altbench: shard \(shard): \(plannedTrials) of \(wholePlan) trials (\(shape)), run \(runID)\n")
            } else {
                console.err("altbench: \(plannedTrials) trials (\(shape)), run \(runID)\n")
            }
        }
        // Recorded now, so that `--resume` judges a run stopped before its judge began.
        if let judge { try await opened.recordJudge(runID: runID, judge: judge.prepared.settings.recorded) }

        var sink = recorder
        sink.cachesScripted = experiment.cachesScripted
        let progress = ProgressLine(console: console)
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
        let runStarted = ContinuousClock.now
        let outcome: Runner.Outcome
        if let batch = experiment.batch, let httpClient {
            let sent = try await BatchRun(
                client: try ModelClient.batchClient(experiment, httpClient: httpClient), store: opened, recorder: sink,
                runner: runner, runID: runID,
                folder: resultsDirectory.appendingPathComponent("batches").appendingPathComponent(runID),
                limits: batch.limits, retries: batch.retries, longestPoll: batch.longestPoll, prices: experiment.prices,
                console: console, control: control, clock: SystemRunClock(), deadline: experiment.deadline,
                redactor: redactor, cancelling: options.batchCancel
            ).run(trials)
            outcome = Runner.Outcome(progress: sent.progress, stopReason: sent.stopReason, pacing: RequestGate.Statistics(smallestWindow: 0))
        } else {
            outcome = try await runner.run(trials)
        }
        // The plan is done with; the report step reads what was stored.
        trials = []
        progress.finish()
        try? await httpClient?.shutdown()
        httpClient = nil

        // What the run recorded, in two counts: the reports below load the run themselves, and
        // a second copy of 100,000 results would double what the report step holds.
        let (recordedTrials, recordedAnswers, plannedCount) = try await {
            let loaded = try await opened.loadRun(id: runID)
            return (loaded.trials.count, loaded.trials.count { !$0.failed }, loaded.plannedTrials)
        }()
        let complete = outcome.stopReason == nil && recordedTrials == plannedCount
        var message: String?
        if let reason = outcome.stopReason {
            message = "\(reason.description) (after \(recordedTrials) of \(plannedCount) trials)"
        }
        try await opened.finishRun(
            id: runID, status: complete ? "finished" : "stopped", message: message,
            stoppedBy: complete ? nil : outcome.stopReason?.kind, redactor: redactor)

        // `--judge`: a run that finished (some trials may have failed) is judged before its
        // report is written; a stopped one is not (judge it later with `altbench judge`).
        var judgeStop: StopReason?
        var judgeRefusal: AltBenchError?
        var judgeIncomplete = false
        if let judge {
            if outcome.stopReason == nil {
                // One limit for both: the judge may spend what the run left of it.
                let left = experiment.maxCost.map { max(0, $0 - (outcome.spentUSD ?? 0)) }
                do {
                // One deadline too: the judge has what the run left of it.
                let timeLeft = experiment.deadline.map { max(.zero, $0 - (ContinuousClock.now - runStarted)) }
                let judged = try await judge.judging.run(
                    runID: runID, store: opened, prepared: judge.prepared, maxCost: left, deadline: timeLeft)
                judgeStop = judged.stopReason
                judgeIncomplete = judged.unreadable + judged.failed > 0
                } catch let error as AltBenchError {
                    // The run's answers are kept and reported; only the judging is missing.
                    console.err("error: the answers were not judged: \(error.description)\nJudge them later with: altbench judge \(runID)\n")
                    judgeRefusal = error
                }
            } else {
                console.err("altbench: the run stopped, so its answers were not judged; judge them with: altbench judge \(runID)\n")
            }
        }

        let (results, reportPath) = try await Reporting(store: opened, resultsDirectory: resultsDirectory, console: console)
            .write(
                // A run with no answer (a wrong key, a closed port) does not take latest.* over.
                runID: runID, displayResults: experiment.resultsPath,
                updateLatest: recordedAnswers > 0, embedImages: options.embedImages,
                truncationLimit: config.check.maxTruncationRise)
        if recordedAnswers == 0 {
            console.err(
                "altbench: this run recorded no answer, so \(experiment.resultsPath)/latest.md and latest.html were left to the newest run with answers; `report`, `baseline save` and `check` pass it over too.\n")
        }
        let notStored = results.trials.filter { $0.errorKind == ModelFailure.Kind.notStored.rawValue }
        if !notStored.isEmpty {
            // The endpoint is part of every cache key: name the ones the store does hold answers
            // from, since replaying a local server's answers needs its --base-url again.
            let stored = (try? await opened.cacheStatistics().byModel) ?? []
            let others = Dictionary(grouping: stored.filter { $0.endpoint != model.endpoint && $0.endpoint.hasPrefix("http") }, by: \.endpoint)
                .mapValues { $0.reduce(0) { $0 + $1.answers } }
                .sorted { ($1.value, $0.key) < ($0.value, $1.key) }
                .map { (endpoint: $0.key, answers: $0.value) }
            // A proxy's answers are replayed through --proxy, not --base-url.
            var proxy: String?
            if let most = others.first { proxy = try? await opened.proxyURL(forEndpoint: most.endpoint) }
            // The prompt text is part of each cache key: an edited prompt finds nothing.
            var changes: [String] = []
            for variant in results.variants where notStored.contains(where: { $0.variant == variant.name }) {
                guard let stored = try? await opened.storedPrompt(variant: variant.name, endpoint: model.endpoint, excludingRun: runID)
                else { continue }
                let what = stored.prompt != variant.text ? "prompt text" : stored.system != variant.system ? "system prompt" : nil
                if let what {
                    changes.append(
                        "\(variant.name): its \(what) differs from the one run \(stored.runID) stored answers for, and the prompt is part of each answer's cache key. Restore the earlier text, or record answers for the new one with a run that can reach the model.")
                }
            }
            reportNotStored(
                notStored, endpoint: model.endpoint, otherEndpoints: others, otherProxy: proxy, promptChanges: changes)
        }
        let failed = results.trials.filter(\.failed).count
        if failed > notStored.count {
            console.err(Self.failureSummary(results.trials.filter { $0.failed && $0.errorKind != ModelFailure.Kind.notStored.rawValue }, of: results.trials.count))
        }
        var exitCode: Int32 = failed > 0 || judgeIncomplete ? Self.partialFailureExitCode : 0
        if let judgeRefusal {
            if case .judgeOverBudget = judgeRefusal { exitCode = Self.costLimitExitCode } else { exitCode = Self.stoppedExitCode }
        }
        if let judgeStop {
            exitCode = Self.exitCode(for: judgeStop)
            console.err("altbench: the judge stopped (\(judgeStop.description)); what it judged is kept. Judge again to continue: altbench judge \(runID)\n")
        }
        if let reason = outcome.stopReason {
            exitCode = Self.exitCode(for: reason)
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
        }
        return Outcome(
            runID: runID, exitCode: exitCode, reportPath: reportPath, results: results, stopReason: outcome.stopReason,
            notStored: notStored)
    }

    /// The failed trials' most common reasons, most frequent first (three, then a count of
    /// the rest), for the end of a run with failures.
    static func failureSummary(_ failed: [RunResults.TrialRow], of total: Int) -> String {
        let reasons = Dictionary(grouping: failed) { TerminalText.line($0.error ?? $0.errorKind ?? "unknown failure") }
            .map { (reason: $0.key, count: $0.value.count) }
            .sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
        var text = "\(failed.count) of \(total) trials failed; the most common reasons:\n"
        for reason in reasons.prefix(3) {
            let shown = reason.reason.count > 300 ? String(reason.reason.prefix(300)) + "…" : reason.reason
            text += "  \(reason.count) × \(shown)\n"
        }
        if reasons.count > 3 {
            let rest = reasons.dropFirst(3).reduce(0) { $0 + $1.count }
            text += "  and \(rest) more with \(reasons.count - 3) other reason\(reasons.count == 4 ? "" : "s"); the report lists each trial's.\n"
        }
        return text
    }

    /// What the trial count is made of, for the line that starts a run: "2 prompts × 4 token
    /// limits × 27 images × 3 repeats". A run without token limits says so ("no token
    /// limit"); when prompts bring different numbers of their own limits, the factor is the
    /// number of (prompt, token limit) pairs.
    static func planShape(prompts: [PromptVariant], planner: Planner, images: Int, repeats: Int) -> String {
        let plural = { (count: Int, one: String, many: String) in "\(count) \(count == 1 ? one : many)" }
        let limits = prompts.map { planner.tokenLimits(for: $0) }
        var parts = [plural(prompts.count, "prompt", "prompts")]
        var suffix = ""
        if limits.allSatisfy({ $0 == [nil] }) {
            suffix = ", no token limit"
        } else if let first = limits.first, limits.allSatisfy({ $0.count == first.count }) {
            parts.append(plural(first.count, "token limit", "token limits"))
        } else {
            parts = [
                "\(limits.reduce(0) { $0 + $1.count }) (prompt, token limit) pairs from \(plural(prompts.count, "prompt", "prompts"))"
            ]
        }
        parts.append(plural(images, "image", "images"))
        if repeats > 1 { parts.append(plural(repeats, "repeat", "repeats")) }
        return parts.joined(separator: " × ") + suffix
    }

    /// The run's settings as stored, with the price of each model it asks (so a report can say
    /// what the costs were computed from).
    static func recordedSettings(_ experiment: Experiment, models: [String], plannedTotal: Int? = nil) -> JSONValue {
        guard case .object(var object) = experiment.recordedSettings else { return experiment.recordedSettings }
        if let shard = experiment.shard { object["shard"] = shard.recorded(plannedTotal: plannedTotal ?? 0) }
        var prices: [String: JSONValue] = [:]
        for model in Set(models) {
            guard let (_, price) = experiment.prices.price(forModel: model) else { continue }
            var entry: [String: JSONValue] = ["input": .double(price.input), "output": .double(price.output)]
            if let cached = price.cachedInput { entry["cached_input"] = .double(cached) }
            prices[model] = .object(entry)
        }
        if !prices.isEmpty { object["prices"] = .object(prices) }
        return .object(object)
    }

    /// What a run stopped by its spending limit prints: what it spent of the limit, that what
    /// it recorded is kept, and (`resumeCommand`, when trials are left) how to continue.
    static func costLimitMessage(limit: Double, spent: Double, recorded: Int, planned: Int, resumeCommand: String?) -> String {
        let spentText: String
        if spent > limit + 0.005 {
            // Over the limit: what was in flight when it was reached still came back and was
            // billed, or answers used more tokens than their estimate.
            spentText =
                "spent \(CostSummary.usd(spent)), \(CostSummary.usd(spent - limit)) over the \(CostSummary.usd(limit)) limit: requests already in flight when it was reached were answered and billed, or the server reported more tokens than estimated"
        } else {
            spentText = "spent \(CostSummary.usd(spent)) of \(CostSummary.usd(limit))"
        }
        var text =
            "altbench: stopped before the next request could pass the spending limit: \(spentText); \(recorded) of \(planned) trials recorded, and their answers are kept. The report is marked incomplete.\n"
        if let resumeCommand {
            text +=
                "Continue this run with a limit for what is left: \(resumeCommand) --max-cost USD (the stored answers are not asked again).\n"
        }
        return text
    }

    /// The exit status of a run that stopped early.
    package static func exitCode(for reason: StopReason) -> Int32 {
        switch reason {
        case .failure, .serverLost: return stoppedExitCode
        case .costLimit: return costLimitExitCode
        case .deadline: return deadlineExitCode
        case .interrupted(let signal): return signal == "SIGTERM" ? 128 + 15 : 128 + 2
        }
    }

    /// Lists what `--offline` could not answer: the first 20, then a count.
    func reportNotStored(
        _ trials: [RunResults.TrialRow], endpoint: String, otherEndpoints: [(endpoint: String, answers: Int)] = [],
        otherProxy: String? = nil, promptChanges: [String] = []
    ) {
        var lines = ["--offline: \(trials.count) trial\(trials.count == 1 ? "" : "s") had no stored answer from \(endpoint):"]
        for trial in trials.prefix(20) {
            let limit = trial.maxTokens.map { " @ max_tokens \($0)" } ?? ""
            let repeatText = trial.repeatIndex > 0 ? " (repeat \(trial.repeatIndex + 1))" : ""
            lines.append("  \(trial.variant)\(limit) × \(trial.itemID)\(repeatText)")
        }
        if trials.count > 20 { lines.append("  … and \(trials.count - 20) more (the report lists them all)") }
        lines.append("Record them with a run that can reach the model (the same prompts, dataset and settings, without --offline).")
        lines.append(contentsOf: promptChanges)
        if let most = otherEndpoints.first {
            let listed = otherEndpoints.prefix(3).map { "\($0.endpoint) (\($0.answers) answer\($0.answers == 1 ? "" : "s"))" }
            let flags = otherProxy.map { "--proxy \($0)" } ?? AzureSettings.flags(forEndpoint: most.endpoint)
                ?? "--base-url \(Self.baseURL(ofEndpoint: most.endpoint))"
            lines.append("The store holds answers from \(listed.joined(separator: ", ")). The endpoint is part of each answer's cache key: to replay those, add \(flags).")
        }
        console.err(lines.joined(separator: "\n") + "\n")
    }

    /// The base URL a chat-completions endpoint was asked under (`…/v1` for `…/v1/chat/completions`).
    static func baseURL(ofEndpoint endpoint: String) -> String {
        endpoint.hasSuffix("/chat/completions") ? String(endpoint.dropLast("/chat/completions".count)) : endpoint
    }

    /// The stored run's plan replaces the flags and the file. A flag that fixes the plan may
    /// be given when it says what the run already says (the command that started the run can
    /// be repeated with `--resume RUN`); one that differs is refused, naming the flag, the
    /// run's value and the given one, since a resumed run must ask the questions it was
    /// started with.
    static func applyResumedSettings(_ run: ResumableRun, to options: inout RunOptions) throws {
        if let difference = resumeConflicts(run.info, options).first {
            throw AltBenchError.cannotResume(
                run: run.info.id,
                reason: "\(difference.flag) \(difference.given) would change what the run asks: the run's own is \(difference.recorded). Drop the flag (a resumed run keeps its own prompts, dataset, model and limits), or start a new run instead (it reuses every stored answer).")
        }
        let settings = run.info.settings
        options.prompts = run.info.promptsPath
        options.dataset = run.info.datasetPath
        options.provider = run.info.provider
        if run.info.provider == .openai, let base = settings["base_url"]?.stringValue, !base.isEmpty {
            options.baseURL = base
        }
        if run.info.provider == .proxy, let proxy = settings["proxy"]?.stringValue, !proxy.isEmpty {
            options.proxy = proxy
            options.baseURL = nil
        }
        if run.info.provider == .azure, let azure = settings["azure"], let endpoint = azure["endpoint"]?.stringValue {
            options.azureEndpoint = endpoint
            options.azureDeployment = azure["deployment"]?.stringValue
            options.azureAPIVersion = azure["api_version"]?.stringValue
            options.baseURL = nil
        }
        options.model = settings["model"]?.stringValue
        options.maxTokens = settings["max_tokens"]?.arrayValue?.compactMap(\.intValue)
        options.repeats = settings["repeats"]?.intValue
        options.tokenField = settings["token_field"]?.stringValue.flatMap(TokenField.init(rawValue:))
        options.brevityBudget = settings["brevity_budget"]?.intValue
        options.detail = settings["detail"]?.stringValue.flatMap(ImageDetail.init(rawValue:))
        if let batch = settings["batch"], batch.objectValue != nil {
            // A run sent through batches continues through them: its batches hold its requests.
            options.batch = true
            options.batchMaxLines = options.batchMaxLines ?? batch["max_lines"]?.intValue
            options.batchMaxBytes = options.batchMaxBytes ?? batch["max_bytes"]?.intValue
            options.batchRetries = options.batchRetries ?? batch["retries"]?.intValue
            options.batchPoll = options.batchPoll ?? batch["poll_seconds"]?.doubleValue
        }
        if let shard = settings["shard"], let index = shard["index"]?.intValue, let count = shard["count"]?.intValue {
            // A shard continues as the same share of the plan.
            options.shard = try Shard(index: index, count: count)
        }
        if options.offline == false, settings["offline"]?.boolValue == true {
            // A run started offline resumes offline unless asked otherwise.
            options.offline = true
        }
    }

    /// A fixed flag whose value differs from the resumed run's own.
    struct ResumeConflict: Equatable {
        var flag: String
        var recorded: String
        var given: String
    }

    /// Every fixed flag in `options` whose value is not the run's own, in the order of the
    /// command's help. Paths compare without a trailing slash or leading `./`; base URLs as
    /// `--base-url` reads them (trailing slashes and `/chat/completions` dropped, scheme and
    /// host in any case); token limits as lists.
    static func resumeConflicts(_ run: RunResults.Info, _ options: RunOptions) -> [ResumeConflict] {
        let settings = run.settings
        var conflicts: [ResumeConflict] = []
        /// Records `flag` when it was given (`given` is its text) and `same` says it differs.
        func check(_ flag: String, _ given: String?, recorded: String, same: (String) -> Bool) {
            guard let given, !same(given) else { return }
            conflicts.append(ResumeConflict(flag: flag, recorded: recorded, given: given))
        }
        let path = { (text: String) -> String in
            var text = text
            while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
            while text.hasPrefix("./") { text.removeFirst(2) }
            return text.isEmpty ? "." : text
        }
        let list = { (limits: [Int]) in limits.map(String.init).joined(separator: ",") }
        check("--prompts", options.prompts, recorded: run.promptsPath) { path($0) == path(run.promptsPath) }
        check("--dataset", options.dataset, recorded: run.datasetPath) { path($0) == path(run.datasetPath) }
        let limits = settings["max_tokens"]?.arrayValue?.compactMap(\.intValue)
        check("--max-tokens", options.maxTokens.map(list), recorded: limits.map(list) ?? "each prompt's own") { _ in
            options.maxTokens == limits
        }
        let model = settings["model"]?.stringValue
        check("--model", options.model, recorded: model ?? "each prompt's own") { $0 == model }
        let base = settings["base_url"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        check("--base-url", options.baseURL, recorded: base ?? "none (provider \(run.provider.rawValue))") { given in
            guard let base, let a = try? Experiment.parseBaseURL(given, source: "--base-url"),
                let b = try? Experiment.parseBaseURL(base, source: "--base-url")
            else { return false }
            return normalised(a) == normalised(b)
        }
        let proxy = settings["proxy"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        check("--proxy", options.proxy, recorded: proxy ?? "none (provider \(run.provider.rawValue))") { given in
            guard let proxy, let a = try? Experiment.parseProxyURL(given, source: "--proxy"),
                let b = try? Experiment.parseProxyURL(proxy, source: "--proxy")
            else { return false }
            return normalised(a) == normalised(b)
        }
        check("--provider", options.provider?.rawValue, recorded: run.provider.rawValue) { $0 == run.provider.rawValue }
        let azure = settings["azure"]
        let azureEndpoint = azure?["endpoint"]?.stringValue
        check("--azure-endpoint", options.azureEndpoint, recorded: azureEndpoint ?? "none (provider \(run.provider.rawValue))") { given in
            guard let azureEndpoint, let a = try? AzureSettings.parseEndpoint(given, source: "--azure-endpoint"),
                let b = try? AzureSettings.parseEndpoint(azureEndpoint, source: "--azure-endpoint")
            else { return false }
            return normalised(a) == normalised(b)
        }
        let deployment = azure?["deployment"]?.stringValue
        check("--azure-deployment", options.azureDeployment, recorded: deployment ?? "none (the v1 API)") { $0 == deployment }
        let apiVersion = azure?["api_version"]?.stringValue
        check("--azure-api-version", options.azureAPIVersion, recorded: apiVersion ?? "none") { $0 == apiVersion }
        let shard = settings["shard"].flatMap { shard -> String? in
            guard let index = shard["index"]?.intValue, let count = shard["count"]?.intValue else { return nil }
            return "\(index)/\(count)"
        }
        check("--shard", options.shard?.description, recorded: shard ?? "none (the whole plan)") { $0 == shard }
        let repeats = settings["repeats"]?.intValue ?? 1
        check("--repeats", options.repeats.map(String.init), recorded: String(repeats)) { _ in options.repeats == repeats }
        let field = settings["token_field"]?.stringValue
        check("--token-field", options.tokenField?.rawValue, recorded: field ?? "auto (by model name)") { $0 == field }
        let detail = settings["detail"]?.stringValue
        check("--detail", options.detail?.rawValue, recorded: detail ?? "each prompt's own") { $0 == detail }
        let budget = settings["brevity_budget"]?.intValue ?? ScoringSettings().brevityBudget
        check("--brevity-budget", options.brevityBudget.map(String.init), recorded: String(budget)) { _ in
            options.brevityBudget == budget
        }
        return conflicts
    }

    /// A base URL for comparison: scheme and host lowercased, the default port dropped.
    static func normalised(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        parts.scheme = parts.scheme?.lowercased()
        parts.host = parts.host?.lowercased()
        if (parts.scheme == "http" && parts.port == 80) || (parts.scheme == "https" && parts.port == 443) { parts.port = nil }
        return parts.string ?? url.absoluteString
    }

    /// Refuses a resume whose prompts, images or endpoint changed since the run began: its
    /// stored answers and the new ones would not be comparable.
    static func checkUnchanged(
        _ run: ResumableRun, prompts: [PromptVariant], dataset: Dataset, plannedTrials: Int, endpoint: String
    ) throws {
        let fail = { (reason: String) in AltBenchError.cannotResume(run: run.info.id, reason: reason) }
        let stored = Dictionary(run.variantHashes.map { ($0.name, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        for variant in prompts where stored[variant.name] != variant.fileHash {
            throw fail(
                stored[variant.name] == nil
                    ? "the prompt '\(variant.name)' (\(variant.file)) is new since the run began. Start a new run instead (it reuses every stored answer)."
                    : "the prompt file \(variant.file) changed since the run began. Restore it, or start a new run (it reuses every stored answer).")
        }
        if prompts.count != run.variantHashes.count {
            let missing = run.variantHashes.map(\.name).filter { name in !prompts.contains { $0.name == name } }
            throw fail("the prompt '\(missing.first ?? "?")' is gone since the run began. Restore it, or start a new run.")
        }
        let items = Dictionary(run.itemHashes.map { ($0.id, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        for item in dataset.items {
            guard let hash = items[item.id] else {
                throw fail("the dataset item '\(item.id)' is new since the run began. Start a new run instead.")
            }
            if hash != item.imageInfo?.sha256 {
                throw fail("the image of dataset item '\(item.id)' changed since the run began. Restore it, or start a new run.")
            }
        }
        if dataset.items.count != run.itemHashes.count {
            throw fail("the dataset has \(dataset.items.count) items now, \(run.itemHashes.count) when the run began. Restore it, or start a new run.")
        }
        if endpoint != run.info.endpoint {
            throw fail("it asked \(run.info.endpoint), and this run would ask \(endpoint). Resume with the same endpoint (or --offline), or start a new run.")
        }
        if plannedTrials != run.plannedTrials {
            throw fail("it planned \(run.plannedTrials) trials and now plans \(plannedTrials). Start a new run instead.")
        }
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
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return "\(formatter.string(from: date))-\(String(format: "%04x", UInt16.random(in: .min ... .max)))"
    }
}

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

/// The store's own errors, re-exported so the command line can print them.
package typealias StoreFailure = StoreError

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

extension ConfigFile {
    /// `--config FILE` (which must exist), else `altbench.yml` in the working directory if
    /// present, else an empty configuration.
    static func load(configPath: String?, workingDirectory: URL) throws -> ConfigFile {
        if let configPath {
            let url = URL.resolving(configPath, against: workingDirectory)
            guard FileManager.default.fileExists(atPath: url.path) else {
                throw AltBenchError.configFile(file: configPath, line: nil, message: "no such file. Check the --config path.")
            }
            return try ConfigFile.load(from: url, displayPath: configPath)
        }
        return try ConfigFile.load(
            from: URL.resolving("altbench.yml", against: workingDirectory), displayPath: "altbench.yml")
    }
}

extension URL {
    /// A path as a user gave it: absolute as is, relative against the working directory.
    static func resolving(_ path: String, against directory: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
    }
}
