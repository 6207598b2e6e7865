import Foundation

extension Experiment {
    /// Where a run's requests go, and why: the provider, the reason the banner and the report
    /// show, and what that provider is reached with.
    struct Endpoint {
        var provider: Provider
        var reason: String
        /// The key from `api_key_env` (default OPENAI_API_KEY), when set.
        var key: Secret?
        var keyVariable: String
        var baseURL: URL
        /// Whether a flag, OPENAI_BASE_URL or the file named the base URL.
        var baseConfigured: Bool
        var proxyURL: URL?
        /// The setting that chose Azure (for its messages); nil when Azure is not the provider.
        var azureName: String?
    }

    /// The provider, chosen from flags, the environment and the file in that order: a signed
    /// proxy, Azure, an OpenAI-compatible endpoint, or the offline mock when nothing names an
    /// endpoint (never under CI). Throws when the choice contradicts itself or lacks its key.
    static func resolveEndpoint(options: RunOptions, config: ConfigFile, environment: [String: String]) throws -> Endpoint {
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
        return Endpoint(
            provider: provider, reason: reason, key: key, keyVariable: keyVariable, baseURL: baseURL,
            baseConfigured: baseConfigured, proxyURL: proxyURL, azureName: azureChoice?.name)
    }

    /// The signed proxy's settings when the provider is the proxy: its URL and the app key
    /// from the environment (not needed `--offline`, where nothing is sent).
    static func resolveProxy(
        _ endpoint: Endpoint, options: RunOptions, config: ConfigFile, environment: [String: String]
    ) throws -> ProxySettings? {
        guard endpoint.provider == .proxy, let proxyURL = endpoint.proxyURL else { return nil }
        let variable = config.proxy?.appKeyEnv ?? ProxySettings.defaultAppKeyVariable
        let appKey = environment[variable].flatMap { $0.isEmpty ? nil : Secret($0) }
        if appKey == nil && !options.offline {
            throw AltBenchError.missingProxyAppKey(variable: variable, proxy: proxyURL.absoluteString)
        }
        return ProxySettings(
            url: proxyURL, appKey: options.offline ? nil : appKey, appKeyVariable: variable,
            protocolSettings: config.proxy?.protocolSettings ?? .default)
    }
}
