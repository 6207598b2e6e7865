import AltBenchCore
import AltBenchReport
import AltBenchStore
import Foundation

/// `altbench plan`: what a run with the same flags and configuration would send and spend,
/// without sending anything.
///
/// The plan is the run's own: the same settings, prompts, dataset and planner, and the same
/// store look-up the runner makes, so its request count is what the run then sends.
package struct CostPlanning: Sendable {
    /// How the plan is printed.
    package enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    package var options: RunOptions
    package var configPath: String?
    package var environment: [String: String]
    package var console: Console
    package var workingDirectory: URL

    package init(
        options: RunOptions, configPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.options = options
        self.configPath = configPath
        self.environment = environment
        self.console = console
        self.workingDirectory = workingDirectory
    }

    /// A plan with what the terminal says around it.
    package struct Outcome: Sendable {
        package var plan: CostPlan
        package var experiment: Experiment
        /// The lines above the table: shape, model, endpoint.
        package var header: [String]
        /// Sentences below it: what the run would need or refuse.
        package var notes: [String]
        /// Why `run` would refuse to start (`--max-cost` exceeded, a price missing for it),
        /// `nil` when it would start.
        package var refusal: String?
        /// With `--judge`: what judging the answers would add.
        package var judge: JudgeEstimate? = nil
    }

    /// Works the plan out. Throws for what would stop `run` before its first request (a bad
    /// file, a bad setting), except a missing key: a plan sends nothing, so it says the run
    /// would need one and plans as if it were set.
    package func make() async throws -> Outcome {
        let config = try ConfigFile.load(configPath: configPath, workingDirectory: workingDirectory)
        var notes: [String] = []
        var experiment: Experiment
        do {
            experiment = try Experiment.resolve(options: options, config: config, environment: environment)
        } catch AltBenchError.missingAPIKey(let variable, let reason) {
            notes.append("altbench run would stop before sending: \(variable) is not set (\(reason)).")
            experiment = try Experiment.resolve(
                options: options, config: config, environment: environment.merging([variable: "unset"]) { $1 })
        } catch AltBenchError.missingAzureKey(let variable, let endpoint) {
            notes.append("altbench run would stop before sending: \(variable) is not set (Azure OpenAI at \(endpoint) needs it).")
            experiment = try Experiment.resolve(
                options: options, config: config, environment: environment.merging([variable: "unset"]) { $1 })
        } catch AltBenchError.missingProxyAppKey(let variable, _) {
            notes.append("altbench run would stop before sending: \(variable), the proxy's app key, is not set.")
            experiment = try Experiment.resolve(
                options: options, config: config, environment: environment.merging([variable: "unset"]) { $1 })
        }
        if !notes.isEmpty {
            // Resolved with a stand-in key so the plan can go on: say so where the reason is shown.
            experiment.providerReason = "planned as if its key were set"
        }
        let prompts = try PromptLoader().load(
            directory: URL.resolving(experiment.promptsPath, against: workingDirectory), displayPath: experiment.promptsPath)
        let dataset = try DatasetLoader().load(
            directory: URL.resolving(experiment.datasetPath, against: workingDirectory), displayPath: experiment.datasetPath)
        let planner = Planner(experiment: experiment, endpoint: experiment.endpointIdentity)
        var trials = planner.plan(variants: prompts, dataset: dataset)
        let wholePlan = trials.count
        if let shard = experiment.shard { trials = trials.filter(shard.includes) }

        // Only an existing store is read: a plan creates no results folder.
        let database = URL.resolving(experiment.resultsPath, against: workingDirectory)
            .appendingPathComponent("altbench.sqlite")
        var store: ResultStore?
        if FileManager.default.fileExists(atPath: database.path) { store = try ResultStore(url: database) }
        let plan = try await Self.plan(trials, experiment: experiment, store: store)

        var judge: JudgeEstimate?
        if options.judge.enabled {
            judge = try judgeEstimate(trials, experiment: experiment, config: config, notes: &notes)
        }

        let shape = Evaluation.planShape(prompts: prompts, planner: planner, images: dataset.items.count, repeats: experiment.repeats)
        let models = Set(trials.compactMap { $0.request?.model }).sorted()
        var header = [
            "altbench plan: \(trials.count) trial\(trials.count == 1 ? "" : "s")\(experiment.shard.map { " (shard \($0) of \(wholePlan))" } ?? "") (\(shape)); nothing is sent.",
            "Model\(models.count == 1 ? "" : "s"): \(models.joined(separator: ", ")); endpoint: \(experiment.endpointIdentity) (\(experiment.providerReason)).",
        ]
        if let detail = experiment.detail { header.append("Image detail: \(detail.rawValue) for every prompt (--detail).") }
        if experiment.batch != nil {
            header.append(
                "Through the Batch API (--batch): priced at each model's batch price (batch_input/batch_output under prices:, else \(Int(((experiment.prices.batchDiscount ?? 0) * 100).rounded()))% off).")
        }
        notes.append(contentsOf: Self.providerNotes(experiment, models: models))
        let refusal = Self.refusal(plan, experiment: experiment, judge: judge)
        if let maxCost = experiment.maxCost, refusal == nil, experiment.provider != .mock, let high = plan.costHigh {
            let withJudge = (judge?.isMock == false ? judge?.costHigh : nil).map { high + $0 }
            notes.append(
                "--max-cost \(CostSummary.usd(maxCost)): the high estimate \(CostSummary.usd(withJudge ?? high))\(withJudge == nil ? "" : " with the judge") is within it.")
        }
        return Outcome(plan: plan, experiment: experiment, header: header, notes: notes, refusal: refusal, judge: judge)
    }

    /// Prints the plan; returns the exit status: 0, or 1 when `run` would refuse to start.
    package func run(format: Format) async throws -> Int32 {
        let outcome = try await make()
        var notes = outcome.notes
        if let refusal = outcome.refusal { notes.append("altbench run would refuse to start: \(refusal)") }
        switch format {
        case .text: console.out(PlanReport.text(outcome.plan, header: outcome.header, notes: notes, judge: outcome.judge))
        case .json: console.out(PlanReport.json(outcome.plan, notes: notes, judge: outcome.judge))
        }
        return outcome.refusal == nil ? 0 : Evaluation.stoppedExitCode
    }

    /// The plan of `trials` against `store` (the cache look-up a run makes; none with
    /// `--no-cache`, and nothing sent with `--offline`).
    static func plan(_ trials: [Trial], experiment: Experiment, store: ResultStore?) async throws -> CostPlan {
        var cached = Set<String>()
        if experiment.useCache, let store {
            cached = try await store.storedKeys(among: trials.compactMap(\.key))
        }
        // Through the Batch API every request costs the batch price, and --max-cost holds the
        // run to that before anything is uploaded.
        let prices = experiment.batch == nil ? experiment.prices : experiment.prices.batchTable
        var plan = CostPlan.make(trials: trials, cachedKeys: cached, prices: prices, sendsNothing: experiment.offline)
        // The pairs as the run's reports list them: the baseline first, the other variants by
        // name, token limits ascending with "none" last.
        let names = VariantOrder.ordered(Array(Set(plan.pairs.map(\.variant))), name: { $0 }, configured: experiment.baseline)
        let rank = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        plan.pairs.sort { (rank[$0.variant]!, $0.maxTokens ?? Int.max) < (rank[$1.variant]!, $1.maxTokens ?? Int.max) }
        return plan
    }

    /// What judging the answers of `trials` would cost (`--judge`), with the judge resolved as
    /// `run --judge` resolves it; a missing judge key is a note, as the run's is.
    func judgeEstimate(
        _ trials: [Trial], experiment: Experiment, config: ConfigFile, notes: inout [String]
    ) throws -> JudgeEstimate {
        var clientOptions = options
        clientOptions.provider = experiment.provider
        func prepare(_ environment: [String: String]) throws -> Judging.Prepared {
            try Judging(
                judge: options.judge, options: options, config: config, environment: environment, console: console,
                workingDirectory: workingDirectory
            ).prepare(clientOptions: clientOptions)
        }
        let prepared: Judging.Prepared
        do {
            prepared = try prepare(environment)
        } catch AltBenchError.missingAPIKey(let variable, let reason) {
            notes.append("the judge would stop before sending: \(variable) is not set (\(reason)).")
            prepared = try prepare(environment.merging([variable: "unset"]) { $1 })
        }
        let estimate = JudgeEstimate.make(
            trials: trials, settings: prepared.settings, rubric: prepared.rubric, prices: prepared.settings.client.prices)
        if estimate.isMock {
            notes.append(
                "The mock judge bills nothing: on an offline run no judge model is called. Plan a run that reaches a model (a key, --base-url or --proxy) to see a vision judge's cost.")
        } else if estimate.costHigh == nil {
            notes.append("The judge's model \(estimate.model) has no price: add it under prices: in altbench.yml to see its cost.")
        }
        return estimate
    }

    /// What the provider means for the figures.
    static func providerNotes(_ experiment: Experiment, models: [String]) -> [String] {
        var notes: [String] = []
        if experiment.offline {
            notes.append("--offline: answers come only from the store; nothing would be sent or billed.")
        } else if experiment.provider == .mock {
            notes.append(
                "The offline mock bills nothing: the costs are what \(models.joined(separator: ", ")) would charge at list prices. Set OPENAI_API_KEY (or --base-url, --proxy) to run against a real model.")
        }
        return notes
    }

    /// Why a run with `--max-cost` would not start: a model without a price (the limit could
    /// not be kept), or a high estimate above the limit. `nil` without a limit, for the mock,
    /// and when the plan fits.
    static func refusal(_ plan: CostPlan, experiment: Experiment, judge: JudgeEstimate? = nil) -> String? {
        guard let limit = experiment.maxCost, experiment.provider != .mock, !experiment.offline, plan.toSend > 0 else {
            return nil
        }
        if let judge, !judge.isMock, judge.calls > 0 {
            guard let judgeHigh = judge.costHigh else {
                return "--max-cost \(CostSummary.usd(limit)) needs a price for the judge's model too, and \(judge.model) has none. Add it under prices: in altbench.yml, or drop --max-cost."
            }
            if let high = plan.costHigh, high + judgeHigh > limit, high <= limit {
                return "the plan's high estimate with the judge is \(CostSummary.usd(high + judgeHigh)) (\(CostSummary.usd(high)) for the answers, \(CostSummary.usd(judgeHigh)) for the judge), above --max-cost \(CostSummary.usd(limit)). Judge fewer answers (fewer prompts, images or --judge-repeats), lower the judge's max_tokens, or raise --max-cost."
            }
        }
        if !plan.unpricedModels.isEmpty {
            let names = plan.unpricedModels.joined(separator: ", ")
            return "--max-cost \(CostSummary.usd(limit)) needs a price for every model, and \(names) has none. Add it under prices: in altbench.yml (USD per million tokens, e.g. prices: {\(plan.unpricedModels[0]): {input: 0.15, output: 0.60}}), or drop --max-cost."
        }
        guard let high = plan.costHigh, high > limit else { return nil }
        let costly = plan.pairs.filter { $0.toSend > 0 }.sorted { ($0.costHigh ?? 0) > ($1.costHigh ?? 0) }.prefix(3)
        let listed = costly.map { pair in
            "\(pair.variant)\(pair.maxTokens.map { " @ max_tokens \($0)" } ?? "") (\(CostSummary.usd(pair.costHigh ?? 0)))"
        }
        return "the plan's high estimate is \(CostSummary.usd(high)), \(CostSummary.usd(high - limit)) above --max-cost \(CostSummary.usd(limit)). The costliest pairs: \(listed.joined(separator: ", ")). Cut images, prompts, token limits or repeats, try --detail low, or raise --max-cost. `altbench plan` shows the figures."
    }
}
