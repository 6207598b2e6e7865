import Foundation

/// The judge flags of `altbench run` and `altbench judge`.
package struct JudgeOptions: Sendable, Hashable {
    /// `--judge`: judge the answers (always true for `altbench judge`).
    package var enabled: Bool
    /// `--judge-model`.
    package var model: String?
    /// `--judge-rubric FILE`.
    package var rubric: String?
    /// `--judge-repeats N`.
    package var repeats: Int?
    /// The judge's calls go through the Batch API even when the run's requests do not (a
    /// resumed run whose judge had batches of its own); `--batch` sends both.
    package var batch: Bool

    package init(enabled: Bool = false, model: String? = nil, rubric: String? = nil, repeats: Int? = nil, batch: Bool = false) {
        self.enabled = enabled
        self.model = model
        self.rubric = rubric
        self.repeats = repeats
        self.batch = batch
    }
}

/// Everything the judge needs, resolved from the judge flags, `judge:` in altbench.yml and the
/// run's own settings, in that order of precedence.
///
/// The judge reaches its model the way a run does — directly with a key, through the signed
/// proxy, on Azure, or the offline mock — and by default the way the run it judges did; its
/// client settings are a whole ``Experiment``, resolved by the same rules, so a judge on a
/// missing key stops with the same sentence as a run.
package struct JudgeSettings: Sendable, Hashable {
    package static let maxTokensRange = 16...4096
    package static let repeatsRange = 1...10
    /// Room for three numbers and a few short errors, with JSON around them.
    package static let defaultMaxTokens = 400

    /// Where and how the judge is asked: provider, endpoint, key, proxy, and `model`.
    package var client: Experiment
    package var model: String
    /// The rubric file as given (relative to the working directory); `nil` for the built-in
    /// rubric (``JudgeRubric/builtIn``).
    package var rubricPath: String?
    package var maxTokens: Int
    package var repeats: Int
    package var structuredOutput: Bool
    /// Why the judge asks where it does, for the banner ("the run's own provider", ...).
    package var reason: String

    /// How banners, records and reports name the rubric: its path, or
    /// ``JudgeRubric/builtInLabel``.
    package var rubricLabel: String { rubricPath ?? JudgeRubric.builtInLabel }

    /// Whether the offline mock judges (no request leaves the machine).
    package var isMock: Bool { client.provider == .mock }

    /// The judge for a run started with `options` under `config`: the run's provider and
    /// endpoint unless `judge:` names others.
    package static func resolve(
        judge flags: JudgeOptions, runOptions: RunOptions, config: ConfigFile, environment: [String: String]
    ) throws -> JudgeSettings {
        let file = config.judge ?? JudgeConfig()
        var options = runOptions
        var clientConfig = config
        var reason = "the run's own provider"
        // A judge elsewhere: its own provider, base URL or proxy replace the run's.
        if file.baseURL != nil, file.proxy != nil {
            throw AltBenchError.invalidSetting(
                name: "judge: in altbench.yml",
                message: "sets both base_url and proxy, two places to send the judge's requests. Keep one of them.")
        }
        if file.provider != nil || file.baseURL != nil || file.proxy != nil {
            // Nothing of the run's own location carries over: its Azure resource, proxy or
            // token field would contradict the judge's.
            if file.provider != .azure { clientConfig.azure = nil }
            clientConfig.tokenField = nil
            options.tokenField = nil
            options.provider = file.provider
            options.baseURL = file.baseURL
            options.proxy = file.proxy?.url
            options.azureEndpoint = nil
            options.azureDeployment = nil
            options.azureAPIVersion = nil
            clientConfig.provider = file.provider
            clientConfig.baseURL = file.baseURL
            clientConfig.proxy = file.proxy
            reason = "judge: in altbench.yml"
        }
        if let variable = file.apiKeyEnv { clientConfig.apiKeyEnv = variable }
        let model = flags.model ?? file.model
        options.model = model
        if flags.batch { options.batch = true }
        let client: Experiment
        do {
            client = try Experiment.resolve(options: options, config: clientConfig, environment: environment)
        } catch AltBenchError.invalidSetting(name: "--batch", _) where options.batch || clientConfig.batch == true {
            // The run's own refusal names the run; here it is the judge that has no Batch API.
            var live = flags
            live.batch = false
            let judge = try Self.resolve(
                judge: live, runOptions: Self.withoutBatch(runOptions), config: Self.withoutBatch(config),
                environment: environment)
            throw AltBenchError.invalidSetting(name: "--batch", message: Self.noBatchAPI(judge))
        }
        let resolvedModel: String
        if client.provider == .mock {
            // The mock judges whatever model is named; its verdicts are the mock's, and stored
            // under its own name so they are never taken for that model's.
            resolvedModel = MockJudge.model
            reason = model.map { "the offline mock judge; \($0) is not called on an offline run" } ?? "the offline mock judge"
        } else if let model {
            resolvedModel = model
        } else {
            throw AltBenchError.invalidSetting(
                name: "--judge",
                message: "needs the judge's model: pass --judge-model MODEL or set `model` under `judge:` in altbench.yml. Prefer a model of another family than the one judged: a model tends to favour answers like its own.")
        }
        let repeats = flags.repeats ?? file.repeats ?? 1
        guard repeatsRange.contains(repeats) else {
            throw AltBenchError.invalidSetting(
                name: "--judge-repeats", message: "must be between \(repeatsRange.lowerBound) and \(repeatsRange.upperBound) (got \(repeats)).")
        }
        return JudgeSettings(
            client: client, model: resolvedModel, rubricPath: flags.rubric ?? file.rubric,
            maxTokens: file.maxTokens ?? defaultMaxTokens, repeats: repeats,
            structuredOutput: file.structuredOutput ?? true, reason: reason)
    }

    /// The judge as a run records it in its settings (no key, no secret); `batch` when its
    /// calls go through the Batch API, so a resumed run judges through it too.
    package var recorded: JSONValue {
        var object: [String: JSONValue] = [
            "model": .string(model), "provider": .string(client.provider.rawValue),
            "endpoint": .string(client.endpointIdentity), "rubric": .string(rubricLabel),
            "max_tokens": .int(maxTokens), "repeats": .int(repeats), "structured_output": .bool(structuredOutput),
        ]
        if let batch = client.batch { object["batch"] = batch.recorded }
        return .object(object)
    }

    /// Why a judge reached this way cannot take `--batch`.
    static func noBatchAPI(_ judge: JudgeSettings) -> String {
        switch judge.client.provider {
        case .mock:
            return "sends the judge's calls through a provider's Batch API, and the judge here is the offline mock judge (\(judge.reason)), which has none. Judge without --batch, or name a judge that reaches a model (judge.model and a key, or judge.base_url)."
        case .proxy:
            return "cannot send the judge's calls through the signed proxy, which forwards chat completions only. Judge without --batch, or from a machine that holds the judge's API key."
        case .openai, .azure:
            return "sends requests, and --offline answers only from the store. Give one of them."
        }
    }

    static func withoutBatch(_ options: RunOptions) -> RunOptions {
        var options = options
        options.batch = false
        options.batchMaxLines = nil
        options.batchMaxBytes = nil
        options.batchRetries = nil
        options.batchPoll = nil
        return options
    }

    static func withoutBatch(_ config: ConfigFile) -> ConfigFile {
        var config = config
        config.batch = nil
        return config
    }
}
