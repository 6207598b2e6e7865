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

/// `proxy:` in altbench.yml: where a team's signed proxy is and how it differs from the
/// reference protocol (header names, token route). Every key is optional.
package struct ProxyConfig: Sendable, Hashable {
    package var url: String?
    /// The environment variable that holds the app key (default `ALTBENCH_PROXY_APP_KEY`).
    package var appKeyEnv: String?
    package var protocolSettings = SignedProxyProtocol.default

    package init() {}

    static let knownKeys = ["url", "app_key_env", "auth_path", "session_header", "timestamp_header", "signature_header"]
}

/// A run's signed proxy, resolved.
package struct ProxySettings: Sendable, Hashable {
    package static let defaultAppKeyVariable = "ALTBENCH_PROXY_APP_KEY"
    /// The proxy's base URL (no `/v1`): the token route and `/v1/chat/completions` hang off it.
    package var url: URL
    /// `nil` only when nothing is sent (`--offline`).
    package var appKey: Secret?
    package var appKeyVariable: String
    package var protocolSettings: SignedProxyProtocol

    package init(url: URL, appKey: Secret?, appKeyVariable: String, protocolSettings: SignedProxyProtocol = .default) {
        self.url = url
        self.appKey = appKey
        self.appKeyVariable = appKeyVariable
        self.protocolSettings = protocolSettings
    }

    /// `url` followed by a route such as `/v1/chat/completions`.
    package func url(for route: String) -> URL {
        URL(string: url.absoluteString.trimmingTrailingSlashes() + route)!
    }
}

/// A secret that never prints: `description` and `dump` show "[redacted]".
package struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    package let value: String
    package init(_ value: String) { self.value = value }
    package var description: String { Redactor.placeholder }
    package var debugDescription: String { Redactor.placeholder }
    package var customMirror: Mirror { Mirror(self, children: []) }
}

/// `altbench.yml`: defaults for a run. Every key is optional.
package struct ConfigFile: Sendable, Hashable {
    package var prompts: String?
    package var dataset: String?
    package var results: String?
    package var model: String?
    package var baseURL: String?
    package var apiKeyEnv: String?
    package var provider: Provider?
    package var maxTokens: [Int]?
    package var repeats: Int?
    package var concurrency: Int?
    package var timeout: Double?
    package var maxRetries: Int?
    package var requestsPerMinute: Double?
    package var tokensPerMinute: Double?
    package var deadline: Duration?
    package var tokenField: TokenField?
    package var brevityBudget: Int?
    package var platformLimit: Int?
    package var freeHedgesPerSentence: Int?
    package var contextEchoThreshold: Double?
    /// Weights of `quality`'s parts, merged over ``ScoringSettings/defaultWeights``.
    package var qualityWeights: [String: Double]?
    /// The checks that force `quality` to 0, replacing ``ScoringSettings/defaultHardFails``.
    package var hardFails: [String]?
    /// What `altbench check` holds a run to (`check:`), defaults for keys it does not set.
    package var check = CheckThresholds()
    /// The variant the others are measured against (`baseline:`), listed first in every
    /// table; unset, ``VariantOrder`` picks `icecubes` when present, else the first.
    package var baseline: String?
    /// `proxy:`: a team's signed proxy.
    package var proxy: ProxyConfig?
    /// `azure:`: an Azure OpenAI resource.
    package var azure: AzureConfig?
    /// `detail:`: replaces every prompt's own image detail.
    package var detail: ImageDetail?
    /// `max_cost:` in USD.
    package var maxCost: Double?
    /// `prices:`: per-model prices over the built-in table, and `batch_discount`.
    package var prices: PriceTable?
    /// `judge:`: the model that judges the answers (`--judge`, `altbench judge`).
    package var judge: JudgeConfig?
    /// `batch: true`: send runs through the provider's Batch API (`--batch`).
    package var batch: Bool?

    package init() {}

    /// The scorers' settings: budgets, `quality` weights (merged over the defaults) and hard
    /// fails, with `brevityBudget` (a flag) winning over the file's.
    package func scoringSettings(brevityBudget override: Int? = nil) throws -> ScoringSettings {
        let budget = override ?? brevityBudget ?? 150
        let limit = platformLimit ?? 1500
        guard budget > 0, limit > budget else {
            throw AltBenchError.invalidSetting(name: "brevity_budget", message: "must be positive and below platform_limit (\(limit)).")
        }
        return ScoringSettings(
            brevityBudget: budget, platformLimit: limit, freeHedgesPerSentence: freeHedgesPerSentence ?? 1,
            contextEchoThreshold: contextEchoThreshold ?? 0.8,
            weights: ScoringSettings.defaultWeights.merging(qualityWeights ?? [:]) { $1 },
            hardFails: hardFails.map(Set.init) ?? ScoringSettings.defaultHardFails)
    }

    static let knownKeys = [
        "prompts", "dataset", "results", "model", "base_url", "api_key_env", "provider", "max_tokens", "repeats",
        "concurrency", "timeout", "max_retries", "rpm", "tpm", "deadline", "token_field", "brevity_budget",
        "platform_limit", "free_hedges_per_sentence", "context_echo_threshold", "quality_weights", "hard_fails",
        "check", "baseline", "proxy", "detail", "max_cost", "prices",
        "azure", "judge", "batch",
    ]
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

/// Flags given on the command line; `nil` means "not given".
package struct RunOptions: Sendable, Hashable {
    package var prompts: String?
    package var dataset: String?
    package var results: String?
    package var model: String?
    package var baseURL: String?
    /// `--proxy URL`: a signed proxy's base URL.
    package var proxy: String?
    /// `--azure-endpoint`, `--azure-deployment`, `--azure-api-version`.
    package var azureEndpoint: String?
    package var azureDeployment: String?
    package var azureAPIVersion: String?
    package var provider: Provider?
    package var maxTokens: [Int]?
    package var repeats: Int?
    package var concurrency: Int?
    package var timeout: Double?
    package var maxRetries: Int?
    package var requestsPerMinute: Double?
    package var tokensPerMinute: Double?
    package var deadline: Duration?
    package var tokenField: TokenField?
    package var noCache: Bool = false
    package var cacheScripted: Bool = false
    package var offline: Bool = false
    package var brevityBudget: Int?
    /// `--embed-images`: the HTML report inlines local images as data URLs.
    package var embedImages: Bool = false
    /// `--detail`: replaces every prompt's own image detail.
    package var detail: ImageDetail?
    /// `--max-cost USD`.
    package var maxCost: Double?
    /// `--judge` and the judge flags: judge the answers once the run is done.
    package var judge = JudgeOptions()
    /// `--batch`: through the provider's Batch API, with these file limits, retries and poll.
    package var batch: Bool = false
    package var batchMaxLines: Int?
    package var batchMaxBytes: Int?
    package var batchRetries: Int?
    /// Seconds, the longest wait between two polls.
    package var batchPoll: Double?
    /// `altbench batches cancel`: cancel the resumed run's batches and import what they did.
    package var batchCancel: Bool = false
    /// `--shard K/N`: only this share of the plan's trials.
    package var shard: Shard?

    package init() {}
}

extension Experiment {
    /// Resolves a run's settings. Throws when they cannot work (e.g. no key where one is needed).
    package static func resolve(
        options: RunOptions, config: ConfigFile, environment: [String: String]
    ) throws -> Experiment {
        let keyVariable = config.apiKeyEnv ?? "OPENAI_API_KEY"
        let key = environment[keyVariable].flatMap { $0.isEmpty ? nil : Secret($0) }

        let environmentBase = nonEmpty(environment["OPENAI_BASE_URL"])
        let baseText = options.baseURL ?? environmentBase ?? config.baseURL
        // Blame the source the value came from: an empty OPENAI_BASE_URL is skipped above, so
        // it must not be named when the file's value is the bad one.
        let baseSource =
            options.baseURL != nil ? "--base-url" : environmentBase != nil ? "OPENAI_BASE_URL" : "base_url in altbench.yml"
        let baseURL = try baseText.map { try parseBaseURL($0, source: baseSource) } ?? defaultBaseURL
        let baseConfigured = baseText != nil
        let onOpenAI = baseURL.host?.lowercased() == "api.openai.com"

        // A signed proxy: `--proxy URL` or `proxy.url`. It replaces the base URL and the key.
        let proxyText = options.proxy ?? config.proxy?.url
        let proxySource = options.proxy != nil ? "--proxy" : "proxy.url in altbench.yml"
        let proxyURL = try proxyText.map { try parseProxyURL($0, source: proxySource) }
        if options.proxy != nil, options.baseURL != nil {
            throw AltBenchError.invalidSetting(
                name: "--proxy", message: "and --base-url both say where requests go. Give --proxy URL for a signed proxy, or --base-url URL for an API reached with a key.")
        }
        if options.proxy != nil, let chosen = options.provider, chosen != .proxy {
            throw AltBenchError.invalidSetting(
                name: "--proxy", message: "sends every request through a signed proxy, which --provider \(chosen.rawValue) contradicts. Drop one of them.")
        }

        let provider: Provider
        let reason: String
        let inCI = ["true", "1", "yes"].contains(environment["CI"]?.lowercased() ?? "")
        // The reason is shown in the banner and the report, so it names where the choice was made.
        let chosenBy = { (provider: Provider) in
            options.provider != nil ? "--provider \(provider.rawValue)" : "provider: \(provider.rawValue) in altbench.yml"
        }
        // Azure OpenAI: chosen by name, by an --azure-* flag, by azure.endpoint in the file, or by
        // AZURE_OPENAI_ENDPOINT alone where the run would otherwise fall back to the mock.
        let azureSources = AzureSources(options: options, config: config, environment: environment)
        try checkAzureFlags(options, flag: azureSources.flag)
        var azureChoice: (reason: String, name: String)?
        switch options.provider ?? config.provider {
        case .azure?: azureChoice = (chosenBy(.azure), chosenBy(.azure))
        case nil:
            if let flag = azureSources.flag {
                azureChoice = ("\(flag) is set", flag)
            } else if proxyURL != nil {
                if options.proxy == nil, azureSources.fileEndpoint != nil {
                    throw AltBenchError.invalidSetting(
                        name: "altbench.yml", message: "sets both proxy.url and azure.endpoint, two places to send requests. Remove one, or choose with --provider proxy or --provider azure.")
                }
            } else if azureSources.fileEndpoint != nil, options.baseURL == nil {
                azureChoice = ("endpoint under azure: in altbench.yml is set", "azure.endpoint")
            } else if azureSources.environmentEndpoint != nil, key == nil, !baseConfigured {
                azureChoice = ("\(AzureSettings.endpointVariable) is set", AzureSettings.endpointVariable)
            }
        default: break
        }
        switch options.provider ?? config.provider {
        case .azure:
            fallthrough
        case nil where azureChoice != nil:
            provider = .azure
            reason = options.offline ? "--offline: answers replayed from the store" : azureChoice?.reason ?? chosenBy(.azure)
        case .proxy where proxyURL == nil:
            throw AltBenchError.invalidSetting(
                name: options.provider != nil ? "--provider proxy" : "provider: proxy in altbench.yml",
                message: "needs the proxy's URL: pass --proxy URL (e.g. --proxy http://127.0.0.1:8787) or set `url` under `proxy:` in altbench.yml.")
        case .proxy:
            provider = .proxy
            reason = options.offline ? "--offline: answers replayed from the store" : chosenBy(.proxy)
        case nil where proxyURL != nil:
            provider = .proxy
            reason = options.offline ? "--offline: answers replayed from the store" : "\(proxySource) is set"
        case nil where options.offline:
            // Replay: the endpoint the cache keys name is the configured one (OpenAI by
            // default); no key is needed since nothing is sent.
            provider = .openai
            reason = "--offline: answers replayed from the store"
        case .openai where options.offline:
            provider = .openai
            reason = "--offline: answers replayed from the store"
        case .mock:
            provider = .mock
            reason = chosenBy(.mock)
        case .openai:
            if key == nil && (!baseConfigured || onOpenAI) {
                throw AltBenchError.missingAPIKey(
                    variable: keyVariable, reason: "\(chosenBy(.openai)) needs it for \(baseURL.absoluteString)")
            }
            provider = .openai
            reason = chosenBy(.openai)
        case nil:
            if key != nil || baseConfigured {
                if key == nil && onOpenAI {
                    throw AltBenchError.missingAPIKey(variable: keyVariable, reason: "\(baseURL.absoluteString) needs it")
                }
                provider = .openai
                reason = key != nil ? "\(keyVariable) is set" : "a base URL is set"
            } else if inCI {
                throw AltBenchError.missingAPIKey(
                    variable: keyVariable, reason: "CI=true, where altbench will not fall back to the offline mock silently")
            } else {
                provider = .mock
                reason = "no \(keyVariable) and no base URL are set"
            }
        }

        let maxTokens = options.maxTokens ?? config.maxTokens
        if let maxTokens, maxTokens.isEmpty || maxTokens.contains(where: { $0 <= 0 }) {
            throw AltBenchError.invalidSetting(name: "max_tokens", message: "token limits must be positive whole numbers, e.g. --max-tokens 30,50,100.")
        }
        let concurrency = options.concurrency ?? config.concurrency ?? 4
        guard concurrencyRange.contains(concurrency) else {
            throw AltBenchError.invalidSetting(
                name: "concurrency", message: "must be between \(concurrencyRange.lowerBound) and \(concurrencyRange.upperBound) (got \(concurrency)).")
        }
        let repeats = options.repeats ?? config.repeats ?? 1
        guard repeatsRange.contains(repeats) else {
            throw AltBenchError.invalidSetting(
                name: "repeats", message: "must be between \(repeatsRange.lowerBound) and \(repeatsRange.upperBound) (got \(repeats)).")
        }
        let timeout = options.timeout ?? config.timeout ?? defaultTimeout
        guard isValidTimeout(timeout) else {
            throw AltBenchError.invalidSetting(
                name: "timeout", message: "must be a positive number of seconds, at most \(Int(maxTimeout)).")
        }
        let retries = options.maxRetries ?? config.maxRetries ?? RetryPolicy.defaultMaxRetries
        guard retriesRange.contains(retries) else {
            throw AltBenchError.invalidSetting(
                name: "max_retries", message: "must be between \(retriesRange.lowerBound) and \(retriesRange.upperBound) (got \(retries)).")
        }
        let rpm = options.requestsPerMinute ?? config.requestsPerMinute
        let tpm = options.tokensPerMinute ?? config.tokensPerMinute
        for (name, value) in [("rpm", rpm), ("tpm", tpm)] {
            if let value, !(value > 0 && value.isFinite) {
                throw AltBenchError.invalidSetting(name: name, message: "must be a positive number per minute (got \(value)).")
            }
        }
        if options.offline && options.noCache {
            throw AltBenchError.invalidSetting(
                name: "--offline", message: "answers only from the store, which --no-cache turns off. Give one of them.")
        }
        let scoring = try config.scoringSettings(brevityBudget: options.brevityBudget)
        if let model = options.model ?? config.model, model.trimmingCharacters(in: .whitespaces).isEmpty {
            throw AltBenchError.invalidSetting(name: "model", message: "must not be empty.")
        }

        let azure = try azureChoice.map {
            try resolveAzure(options: options, config: config, environment: environment, name: $0.name)
        }
        var proxy: ProxySettings?
        if provider == .proxy, let proxyURL {
            let variable = config.proxy?.appKeyEnv ?? ProxySettings.defaultAppKeyVariable
            let appKey = environment[variable].flatMap { $0.isEmpty ? nil : Secret($0) }
            if appKey == nil && !options.offline {
                throw AltBenchError.missingProxyAppKey(variable: variable, proxy: proxyURL.absoluteString)
            }
            proxy = ProxySettings(
                url: proxyURL, appKey: options.offline ? nil : appKey, appKeyVariable: variable,
                protocolSettings: config.proxy?.protocolSettings ?? .default)
        }

        let batch = try resolveBatch(options: options, config: config, provider: provider)

        var experiment = Experiment(
            provider: provider, providerReason: reason, model: options.model ?? config.model,
            baseURL: baseURL, baseURLConfigured: baseConfigured, apiKey: provider == .openai && !options.offline ? key : nil,
            apiKeyVariable: keyVariable,
            promptsPath: options.prompts ?? config.prompts ?? "prompts",
            datasetPath: options.dataset ?? config.dataset ?? "datasets/sample",
            resultsPath: options.results ?? config.results ?? "results",
            maxTokens: maxTokens, repeats: repeats, concurrency: concurrency, timeout: timeout, maxRetries: retries,
            requestsPerMinute: rpm, tokensPerMinute: tpm, deadline: options.deadline ?? config.deadline,
            offline: options.offline,
            tokenField: options.tokenField ?? config.tokenField, useCache: !options.noCache,
            cachesScripted: options.cacheScripted,
            scoring: scoring, baseline: config.baseline, proxy: proxy, azure: azure,
            detail: options.detail ?? config.detail, maxCost: options.maxCost ?? config.maxCost,
            priceOverrides: config.prices)
        experiment.batch = batch
        experiment.shard = options.shard
        return experiment
    }

    /// `--batch` (or `batch: true`): the file limits, retries and poll; refused where there is
    /// no Batch API to send to.
    static func resolveBatch(options: RunOptions, config: ConfigFile, provider: Provider) throws -> BatchSettings? {
        guard options.batch || config.batch == true else {
            for (flag, given) in [
                ("--batch-max-lines", options.batchMaxLines != nil), ("--batch-max-bytes", options.batchMaxBytes != nil),
                ("--batch-retries", options.batchRetries != nil), ("--batch-poll", options.batchPoll != nil),
            ] where given {
                throw AltBenchError.invalidSetting(name: flag, message: "applies to runs through the Batch API: add --batch.")
            }
            return nil
        }
        switch provider {
        case .mock:
            throw AltBenchError.invalidSetting(
                name: "--batch",
                message: "sends the run through a provider's Batch API (/v1/files and /v1/batches), and the offline mock has none. Set OPENAI_API_KEY, use --provider azure, or point --base-url at a server that offers batches (altbench-test-server does).")
        case .proxy:
            throw AltBenchError.invalidSetting(
                name: "--batch",
                message: "cannot go through the signed proxy, which forwards chat completions only. Run without --batch, or from a machine that holds the API key.")
        case .openai, .azure:
            break
        }
        if options.offline {
            throw AltBenchError.invalidSetting(
                name: "--batch", message: "sends requests, and --offline answers only from the store. Give one of them.")
        }
        let provided = provider == .azure ? BatchLimits.azure : BatchLimits.openAI
        if let lines = options.batchMaxLines, !(1...provided.maxLines).contains(lines) {
            throw AltBenchError.invalidSetting(
                name: "--batch-max-lines", message: "must be between 1 and \(provided.maxLines), the provider's limit per input file (got \(lines)).")
        }
        if let bytes = options.batchMaxBytes, !(1024...provided.maxBytes).contains(bytes) {
            throw AltBenchError.invalidSetting(
                name: "--batch-max-bytes", message: "must be between 1024 and \(provided.maxBytes) bytes, the provider's limit per input file (got \(bytes)).")
        }
        let retries = options.batchRetries ?? BatchSettings.defaultRetries
        guard BatchSettings.retriesRange.contains(retries) else {
            throw AltBenchError.invalidSetting(
                name: "--batch-retries", message: "must be between \(BatchSettings.retriesRange.lowerBound) and \(BatchSettings.retriesRange.upperBound) (got \(retries)).")
        }
        var poll = BatchSettings.defaultLongestPoll
        if let seconds = options.batchPoll {
            guard seconds > 0, seconds <= 3600, seconds.isFinite else {
                throw AltBenchError.invalidSetting(
                    name: "--batch-poll", message: "must be a positive number of seconds, at most 3600 (got \(seconds)).")
            }
            poll = .milliseconds(Int64(seconds * 1000))
        }
        return BatchSettings(
            limits: provided.lowered(maxLines: options.batchMaxLines, maxBytes: options.batchMaxBytes), retries: retries,
            longestPoll: poll)
    }

    /// The ranges a run's numbers must fall in; `altbench.yml` is held to the same ones.
    package static let concurrencyRange = 1...256
    package static let repeatsRange = 1...1000
    package static let retriesRange = 0...20
    /// Seconds a request may take by default: vision answers from a busy API can be slow,
    /// and a retry costs more than waiting.
    package static let defaultTimeout: Double = 120
    /// A day. The timeout becomes whole milliseconds in an Int64, which an infinite or huge
    /// value would overflow (a crash, not an error), and no request is worth waiting longer.
    package static let maxTimeout: Double = 86_400

    package static func isValidTimeout(_ seconds: Double) -> Bool {
        seconds > 0 && seconds <= maxTimeout  // false for NaN too
    }

    static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return value
    }

    /// A base URL as altbench reads it: trimmed, trailing slashes and `/chat/completions`
    /// dropped; throws unless it is an http(s) URL with a host, naming `source`.
    package static func parseBaseURL(_ text: String, source: String) throws -> URL {
        // Newlines too: a value read from a file into OPENAI_BASE_URL often ends with one.
        var trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).trimmingTrailingSlashes()
        if trimmed.hasSuffix("/chat/completions") { trimmed.removeLast("/chat/completions".count) }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "'\(Self.withoutCredentials(text))' is not an http(s) URL. Give the API's base, e.g. http://127.0.0.1:8080/v1.")
        }
        // The base URL is shown on the terminal and stored with every run and cache key, so it
        // may carry no secret: no user or password, no query (a signed token), no fragment.
        if url.user != nil || url.password != nil {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "holds a user name or password ('\(Self.withoutCredentials(text))'). altbench stores the base URL with every run, so it takes no credentials: give the key in OPENAI_API_KEY (or the variable api_key_env names) and the URL without them.")
        }
        if url.query != nil || url.fragment != nil {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "has a query or fragment ('\(Self.withoutCredentials(text))'). altbench stores the base URL with every run, and a query can carry a token: give the API's base alone, e.g. https://api.example.com/v1.")
        }
        return url
    }

    /// A signed proxy's base URL, read like a base URL (no credentials, query or fragment);
    /// it must not end in `/v1`, since the proxy's routes (`/auth_token`, `/v1/chat/completions`)
    /// hang off it.
    package static func parseProxyURL(_ text: String, source: String) throws -> URL {
        let url = try parseBaseURL(text, source: source)
        let path = url.path.trimmingTrailingSlashes()
        if path.hasSuffix("/v1") {
            let base = url.absoluteString.trimmingTrailingSlashes().dropLast(3)
            throw AltBenchError.invalidSetting(
                name: source,
                message: "'\(url.absoluteString)' ends in /v1, but a proxy URL is the proxy's own base: altbench adds /v1/chat/completions and the token route itself. Give \(base).")
        }
        return url
    }

    /// `text` with what could be a secret left out: anything between `://` and `@` (a user
    /// and password) and everything after `?` or `#`.
    static func withoutCredentials(_ text: String) -> String {
        var shown = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let cut = shown.firstIndex(where: { $0 == "?" || $0 == "#" }) { shown = String(shown[..<cut]) + "…" }
        if let scheme = shown.range(of: "://"), let at = shown[scheme.upperBound...].firstIndex(of: "@") {
            shown.replaceSubrange(scheme.upperBound...at, with: "…@")
        }
        return shown
    }

    /// The settings worth recording with a run (never the key).
    package var recordedSettings: JSONValue {
        var object: [String: JSONValue] = [
            "provider": .string(provider.rawValue),
            "base_url": .string(provider == .mock ? "" : baseURL.absoluteString),
            "prompts": .string(promptsPath),
            "dataset": .string(datasetPath),
            "repeats": .int(repeats),
            "concurrency": .int(concurrency),
            "timeout": .double(timeout),
            "max_retries": .int(maxRetries),
            "cache": .bool(useCache),
        ].merging(scoring.recorded) { first, _ in first }
        if let model { object["model"] = .string(model) }
        if let maxTokens { object["max_tokens"] = .array(maxTokens.map { .int($0) }) }
        if let tokenField { object["token_field"] = .string(tokenField.rawValue) }
        if let requestsPerMinute { object["rpm"] = .double(requestsPerMinute) }
        if let tokensPerMinute { object["tpm"] = .double(tokensPerMinute) }
        if let deadline { object["deadline"] = .double(deadline.secondsValue) }
        if offline { object["offline"] = .bool(true) }
        if let baseline { object["baseline"] = .string(baseline) }
        if let detail { object["detail"] = .string(detail.rawValue) }
        if let maxCost { object["max_cost"] = .double(maxCost) }
        if let batch { object["batch"] = batch.recorded }
        if let proxy {
            object["proxy"] = .string(proxy.url.absoluteString)
            object["base_url"] = .string("")
        }
        if let azure {
            object["azure"] = azure.recorded
            object["base_url"] = .string("")
        }
        return .object(object)
    }
}
