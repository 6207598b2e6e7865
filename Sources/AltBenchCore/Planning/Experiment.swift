import Foundation

/// Where answers come from.
package enum Provider: String, Sendable, Hashable, Codable, CaseIterable {
    /// An OpenAI-compatible chat-completions endpoint.
    case openai
    /// The offline mock: reference texts cut to max_tokens. No network, no key.
    case mock
    /// A team's signed proxy (`--proxy URL`): requests are signed with a short-lived session
    /// token minted from the team's app key; no OpenAI key on this machine.
    case proxy
    /// Azure OpenAI (`--azure-endpoint`, AZURE_OPENAI_ENDPOINT or `azure:`): the same API at a
    /// resource's endpoint, the key in an `api-key` header.
    case azure
}

/// Everything a run needs, resolved from flags, the environment, `altbench.yml` and defaults,
/// in that order of precedence.
package struct Experiment: Sendable, Hashable {
    package static let defaultModel = "gpt-4o-mini"
    package static let defaultBaseURL = URL(string: "https://api.openai.com/v1")!

    package var provider: Provider
    /// Why this provider was chosen, for the banner and the report.
    package var providerReason: String
    /// The run's model, overriding every prompt's `model`; `nil` lets prompts choose.
    package var model: String?
    package var baseURL: URL
    /// Whether the base URL was configured (flag, environment or file) rather than defaulted.
    package var baseURLConfigured: Bool
    package var apiKey: Secret?
    package var apiKeyVariable: String
    package var promptsPath: String
    package var datasetPath: String
    package var resultsPath: String
    /// The run's token limits, overriding every prompt's `max_tokens`; `nil` lets prompts choose.
    package var maxTokens: [Int]?
    package var repeats: Int
    package var concurrency: Int
    /// Seconds one request may take before it is abandoned (and retried).
    package var timeout: Double
    /// Retries of a retryable failure (`--max-retries`); 0 means none.
    package var maxRetries: Int
    /// Caps on the pace of requests and estimated tokens (`--rpm`, `--tpm`).
    package var requestsPerMinute: Double?
    package var tokensPerMinute: Double?
    /// How long the whole run may take (`--deadline`).
    package var deadline: Duration?
    /// `--offline`: answers come only from the store; nothing is sent.
    package var offline: Bool
    /// Forces the token-limit field; `nil` picks it from the model name.
    package var tokenField: TokenField?
    package var useCache: Bool
    /// `--cache-scripted`: answers a test server marks as scripted are stored as cache
    /// entries like any other (by default they are kept apart, never replayed).
    package var cachesScripted: Bool = false
    package var scoring: ScoringSettings
    /// `baseline:` in altbench.yml: the variant listed first and compared against.
    package var baseline: String? = nil
    /// The signed proxy requests go through (provider `proxy`).
    package var proxy: ProxySettings? = nil
    /// The Azure OpenAI resource requests go to (provider `azure`).
    package var azure: AzureSettings? = nil
    /// `--detail`/`detail:`: the image detail sent for every prompt; `nil` keeps each prompt's.
    package var detail: ImageDetail? = nil
    /// `--max-cost`/`max_cost:` in USD: the most the run may spend.
    package var maxCost: Double? = nil
    /// `prices:` from altbench.yml, laid over ``PriceTable/builtIn`` by ``prices``.
    package var priceOverrides: PriceTable? = nil
    /// `--batch`: the run goes through the provider's Batch API; `nil` sends live requests.
    package var batch: BatchSettings? = nil
    /// `--shard K/N`: the run asks only its share of the plan's trials.
    package var shard: Shard? = nil

    /// The prices a run uses: the built-in table with `prices:` over it.
    package var prices: PriceTable {
        priceOverrides.map { PriceTable.builtIn.merging($0) } ?? PriceTable.builtIn
    }

    /// ``timeout`` as a duration, whole milliseconds.
    package var requestTimeout: Duration { .milliseconds(Int64(timeout * 1000)) }

    /// The chat-completions URL: `{base}/chat/completions`, or the proxy's route. It is the
    /// endpoint's identity in cache keys.
    package var chatCompletionsURL: URL {
        if let proxy { return proxy.url(for: proxy.protocolSettings.chatPath) }
        if let azure { return azure.chatCompletionsURL }
        return baseURL.appendingPathComponent("chat/completions")
    }

    /// What the cache key records as the endpoint: the mock's own name, or the URL.
    package var endpointIdentity: String {
        provider == .mock ? MockVisionModel.endpoint : chatCompletionsURL.absoluteString
    }
}

extension Experiment {
    /// Resolves a run's settings in three steps — where requests go (``resolveEndpoint``),
    /// the numbers (``resolveLimits``), then what the provider needs (Azure, the proxy, the
    /// Batch API). Throws when they cannot work (e.g. no key where one is needed).
    package static func resolve(
        options: RunOptions, config: ConfigFile, environment: [String: String]
    ) throws -> Experiment {
        let endpoint = try resolveEndpoint(options: options, config: config, environment: environment)
        let limits = try resolveLimits(options: options, config: config)
        if options.offline && options.noCache {
            throw AltBenchError.invalidSetting(
                name: "--offline", message: "answers only from the store, which --no-cache turns off. Give one of them.")
        }
        let scoring = try config.scoringSettings(brevityBudget: options.brevityBudget)
        if let model = options.model ?? config.model, model.trimmingCharacters(in: .whitespaces).isEmpty {
            throw AltBenchError.invalidSetting(name: "model", message: "must not be empty.")
        }
        let azure = try endpoint.azureName.map {
            try resolveAzure(options: options, config: config, environment: environment, name: $0)
        }
        let proxy = try resolveProxy(endpoint, options: options, config: config, environment: environment)
        var experiment = Experiment(
            provider: endpoint.provider, providerReason: endpoint.reason, model: options.model ?? config.model,
            baseURL: endpoint.baseURL, baseURLConfigured: endpoint.baseConfigured,
            apiKey: endpoint.provider == .openai && !options.offline ? endpoint.key : nil,
            apiKeyVariable: endpoint.keyVariable,
            promptsPath: options.prompts ?? config.prompts ?? "prompts",
            datasetPath: options.dataset ?? config.dataset ?? "datasets/sample",
            resultsPath: options.results ?? config.results ?? "results",
            maxTokens: limits.maxTokens, repeats: limits.repeats, concurrency: limits.concurrency, timeout: limits.timeout,
            maxRetries: limits.maxRetries,
            requestsPerMinute: limits.requestsPerMinute, tokensPerMinute: limits.tokensPerMinute, deadline: options.deadline ?? config.deadline,
            offline: options.offline,
            tokenField: options.tokenField ?? config.tokenField, useCache: !options.noCache,
            cachesScripted: options.cacheScripted,
            scoring: scoring, baseline: config.baseline, proxy: proxy, azure: azure,
            detail: options.detail ?? config.detail, maxCost: options.maxCost ?? config.maxCost,
            priceOverrides: config.prices)
        experiment.batch = try resolveBatch(options: options, config: config, provider: endpoint.provider)
        experiment.shard = options.shard
        return experiment
    }
}
