import Foundation

/// `azure:` in altbench.yml: where an Azure OpenAI resource is and which deployment to ask.
/// Every key is optional; the key itself never goes here (`api_key_env` names the variable
/// that holds it).
package struct AzureConfig: Sendable, Hashable {
    /// The resource's endpoint, e.g. `https://my-resource.openai.azure.com`.
    package var endpoint: String?
    /// The deployment's name; without one, requests go to the v1 API and `model` names it.
    package var deployment: String?
    /// The `api-version` query of the deployment URL (default ``AzureSettings/defaultAPIVersion``).
    package var apiVersion: String?
    /// The environment variable holding the key (default `AZURE_OPENAI_API_KEY`).
    package var apiKeyEnv: String?

    package init() {}

    static let knownKeys = ["endpoint", "deployment", "api_version", "api_key_env"]
}

/// A run's Azure OpenAI resource, resolved from flags, the environment and `azure:` in
/// altbench.yml.
///
/// Azure serves chat completions at two URLs: the classic one names the deployment in the
/// path and takes an `api-version` query; the v1 one has neither (the body's `model` names
/// the deployment). Both take the key in an `api-key` header rather than a bearer token.
package struct AzureSettings: Sendable, Hashable {
    /// The GA API version altbench asks for when none is given.
    package static let defaultAPIVersion = "2024-10-21"
    package static let defaultAPIKeyVariable = "AZURE_OPENAI_API_KEY"
    package static let endpointVariable = "AZURE_OPENAI_ENDPOINT"
    /// The openai SDKs' variable for Azure's api-version.
    package static let apiVersionVariable = "OPENAI_API_VERSION"

    /// The resource's endpoint without a trailing `/`, `/openai` or `/openai/v1`.
    package var endpoint: URL
    /// `nil`: the v1 form, where the body's `model` names the deployment.
    package var deployment: String?
    /// `nil` in the v1 form, which takes no api-version.
    package var apiVersion: String?
    /// `nil` only when nothing is sent (`--offline`).
    package var apiKey: Secret?
    package var apiKeyVariable: String
    /// Where each value came from, named in advice ("check AZURE_OPENAI_ENDPOINT").
    package var endpointSource: String
    package var deploymentSource: String?
    package var apiVersionSource: String?

    package init(
        endpoint: URL, deployment: String? = nil, apiVersion: String? = nil, apiKey: Secret?,
        apiKeyVariable: String = AzureSettings.defaultAPIKeyVariable, endpointSource: String = "--azure-endpoint",
        deploymentSource: String? = nil, apiVersionSource: String? = nil
    ) {
        self.endpoint = endpoint
        self.deployment = deployment
        self.apiVersion = deployment == nil ? nil : (apiVersion ?? Self.defaultAPIVersion)
        self.apiKey = apiKey
        self.apiKeyVariable = apiKeyVariable
        self.endpointSource = endpointSource
        self.deploymentSource = deployment == nil ? nil : (deploymentSource ?? "--azure-deployment")
        self.apiVersionSource = deployment == nil ? nil : (apiVersion == nil ? "the default" : (apiVersionSource ?? "--azure-api-version"))
    }

    /// `{endpoint}/openai/deployments/{deployment}/chat/completions?api-version={v}`, or the v1
    /// form `{endpoint}/openai/v1/chat/completions`. It is the endpoint's identity in cache
    /// keys, so different deployments and API versions never share answers.
    package var chatCompletionsURL: URL {
        let base = endpoint.absoluteString
        guard let deployment, let apiVersion else { return URL(string: base + "/openai/v1/chat/completions")! }
        // Both were checked to hold only URL-safe characters.
        return URL(string: base + "/openai/deployments/\(deployment)/chat/completions?api-version=\(apiVersion)")!
    }

    /// What the banner and advice call this target: "deployment D at ENDPOINT", or the v1 API.
    package var summary: String {
        if let deployment, let apiVersion {
            return "Azure OpenAI deployment \(deployment) at \(endpoint.absoluteString) (api-version \(apiVersion), key from \(apiKeyVariable))"
        }
        return "Azure OpenAI at \(endpoint.absoluteString) (v1 API: each request's model names the deployment; key from \(apiKeyVariable))"
    }

    /// The `azure` object stored with a run (never the key).
    package var recorded: JSONValue {
        var object: [String: JSONValue] = ["endpoint": .string(endpoint.absoluteString)]
        if let deployment { object["deployment"] = .string(deployment) }
        if let apiVersion { object["api_version"] = .string(apiVersion) }
        return .object(object)
    }

    /// The flags that point a run at the Azure endpoint `endpoint` names (a chat-completions
    /// URL as stored in cache keys), or `nil` when it is not an Azure URL.
    package static func flags(forEndpoint endpoint: String) -> String? {
        guard let components = URLComponents(string: endpoint), let host = components.host else { return nil }
        let path = components.path
        var base = "\(components.scheme ?? "https")://\(host)"
        if let port = components.port { base += ":\(port)" }
        if let cut = path.range(of: "/openai/v1/chat/completions"), cut.upperBound == path.endIndex {
            return "--azure-endpoint \(base)\(path[..<cut.lowerBound])"
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let index = parts.lastIndex(of: "deployments"), index >= 1, parts[index - 1] == "openai",
            parts.count == index + 4, parts[index + 2] == "chat", parts[index + 3] == "completions"
        else { return nil }
        let prefix = parts[..<(index - 1)].joined(separator: "/")
        var flags = "--azure-endpoint \(base)\(prefix) --azure-deployment \(parts[index + 1])"
        if let version = components.queryItems?.first(where: { $0.name == "api-version" })?.value {
            flags += " --azure-api-version \(version)"
        }
        return flags
    }

    // MARK: Parsing

    /// An Azure endpoint as altbench reads it: trimmed, with a trailing `/`, `/openai` or
    /// `/openai/v1` dropped; https with a host (http only for a loopback test server), no
    /// credentials, query or fragment. Throws naming `source`.
    package static func parseEndpoint(_ text: String, source: String) throws -> URL {
        let shown = Experiment.withoutCredentials(text)
        let example = "Give the resource's endpoint, e.g. https://my-resource.openai.azure.com."
        var trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines).trimmingTrailingSlashes()
        if trimmed.lowercased().hasSuffix("/chat/completions") { trimmed.removeLast("/chat/completions".count) }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw AltBenchError.invalidSetting(name: source, message: "'\(shown)' is not an https URL. \(example)")
        }
        // Stored with every run and cache key, and shown on the terminal: no secrets in it.
        if url.user != nil || url.password != nil {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "holds a user name or password ('\(shown)'). altbench stores the endpoint with every run, so it takes no credentials: give the key in \(defaultAPIKeyVariable) (or the variable azure.api_key_env names) and the endpoint without them.")
        }
        if url.query != nil || url.fragment != nil {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "has a query or fragment ('\(shown)'). altbench adds the api-version itself (--azure-api-version) and stores the endpoint with every run: \(example)")
        }
        if scheme == "http" && !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased()) {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "'\(shown)' is plain http, which would send the key unencrypted: Azure OpenAI endpoints are https (http is accepted only for a test server on 127.0.0.1). \(example)")
        }
        if url.path.contains("/openai/deployments") {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "'\(shown)' is a deployment's URL, not the resource's endpoint. Give the part before /openai (e.g. https://my-resource.openai.azure.com) and the deployment's name with --azure-deployment (or `deployment` under `azure:`).")
        }
        for suffix in ["/openai/v1", "/openai"] where trimmed.lowercased().hasSuffix(suffix) {
            trimmed.removeLast(suffix.count)
            trimmed = trimmed.trimmingTrailingSlashes()
            break
        }
        guard let endpoint = URL(string: trimmed), endpoint.host != nil else {
            throw AltBenchError.invalidSetting(name: source, message: "'\(shown)' is not an https URL. \(example)")
        }
        return endpoint
    }

    /// A deployment name: it goes in the URL's path, so letters, digits, `-`, `_` and `.` only.
    package static func parseDeployment(_ text: String, source: String) throws -> String {
        let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }),
            name != ".", name != ".."
        else {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "'\(name)' is not a deployment name: use letters, digits, -, _ and . only, as Azure names deployments (e.g. gpt-4o-mini). It is the deployment's name in Azure AI Foundry, not a URL.")
        }
        return name
    }

    /// An api-version such as `2024-10-21` or `2025-04-01-preview`: letters, digits, `-` and `.`.
    package static func parseAPIVersion(_ text: String, source: String) throws -> String {
        let version = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !version.isEmpty, version.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.".contains($0)) }) else {
            throw AltBenchError.invalidSetting(
                name: source,
                message: "'\(version)' is not an Azure api-version: use letters, digits, - and . only, e.g. \(defaultAPIVersion) (the GA version) or 2025-04-01-preview.")
        }
        return version
    }
}

extension Experiment {
    /// How a run would reach Azure, before the provider is chosen: which sources name an
    /// endpoint, and which `--azure-*` flag was given first (for messages).
    struct AzureSources {
        var flag: String?
        var fileEndpoint: String?
        var environmentEndpoint: String?

        init(options: RunOptions, config: ConfigFile, environment: [String: String]) {
            flag = options.azureEndpoint != nil ? "--azure-endpoint"
                : options.azureDeployment != nil ? "--azure-deployment"
                : options.azureAPIVersion != nil ? "--azure-api-version" : nil
            fileEndpoint = Experiment.nonEmpty(config.azure?.endpoint)
            environmentEndpoint = Experiment.nonEmpty(environment[AzureSettings.endpointVariable])
        }
    }

    /// Refuses `--azure-*` flags beside flags that send requests elsewhere (`--base-url`,
    /// `--proxy`, another `--provider`), and `--base-url` with `--provider azure`.
    package static func checkAzureFlags(_ options: RunOptions) throws {
        try checkAzureFlags(options, flag: AzureSources(options: options, config: ConfigFile(), environment: [:]).flag)
    }

    static func checkAzureFlags(_ options: RunOptions, flag: String?) throws {
        if options.provider == .azure, options.baseURL != nil {
            throw AltBenchError.invalidSetting(
                name: "--base-url with --provider azure",
                message: "Azure runs send to the Azure endpoint, so the base URL would be ignored. Drop --base-url and give the endpoint with --azure-endpoint (or AZURE_OPENAI_ENDPOINT).")
        }
        guard let flag else { return }
        if options.baseURL != nil {
            throw AltBenchError.invalidSetting(
                name: "\(flag) with --base-url",
                message: "both say where requests go. Drop --base-url to send to Azure OpenAI, or drop the --azure-* flags to send to the base URL.")
        }
        if options.proxy != nil {
            throw AltBenchError.invalidSetting(
                name: "\(flag) with --proxy",
                message: "both say where requests go. Drop --proxy to send to Azure OpenAI, or drop the --azure-* flags to send through the proxy.")
        }
        if let chosen = options.provider, chosen != .azure {
            throw AltBenchError.invalidSetting(
                name: "\(flag) with --provider \(chosen.rawValue)",
                message: "the --azure-* flags send to Azure OpenAI, which --provider \(chosen.rawValue) contradicts. Drop one of them.")
        }
    }

    /// The Azure settings of a run whose provider is `azure`: endpoint, deployment and
    /// api-version from flag > environment > file, the key from the environment (not needed
    /// `offline`). `name` is what chose azure, blamed when no endpoint is given.
    static func resolveAzure(
        options: RunOptions, config: ConfigFile, environment: [String: String], name: String
    ) throws -> AzureSettings {
        let file = config.azure ?? AzureConfig()
        let environmentEndpoint = nonEmpty(environment[AzureSettings.endpointVariable])
        let endpointText = options.azureEndpoint ?? environmentEndpoint ?? nonEmpty(file.endpoint)
        let endpointSource =
            options.azureEndpoint != nil ? "--azure-endpoint"
            : environmentEndpoint != nil ? AzureSettings.endpointVariable : "endpoint under azure: in altbench.yml"
        guard let endpointText else {
            throw AltBenchError.invalidSetting(
                name: name,
                message: "needs the Azure OpenAI endpoint: pass --azure-endpoint https://RESOURCE.openai.azure.com, export \(AzureSettings.endpointVariable)=https://RESOURCE.openai.azure.com, or set `endpoint` under `azure:` in altbench.yml.")
        }
        let endpoint = try AzureSettings.parseEndpoint(endpointText, source: endpointSource)

        let deploymentSource = options.azureDeployment != nil ? "--azure-deployment" : "deployment under azure: in altbench.yml"
        let deployment = try (options.azureDeployment ?? file.deployment).map {
            try AzureSettings.parseDeployment($0, source: deploymentSource)
        }

        let environmentVersion = nonEmpty(environment[AzureSettings.apiVersionVariable])
        let versionSource =
            options.azureAPIVersion != nil ? "--azure-api-version"
            : environmentVersion != nil ? AzureSettings.apiVersionVariable : "api_version under azure: in altbench.yml"
        var apiVersion: String?
        if deployment != nil {
            apiVersion = try (options.azureAPIVersion ?? environmentVersion ?? file.apiVersion).map {
                try AzureSettings.parseAPIVersion($0, source: versionSource)
            }
        } else if options.azureAPIVersion != nil || file.apiVersion != nil {
            // OPENAI_API_VERSION is often exported for the SDKs' deployment URLs; only a value
            // given for this run is worth refusing.
            throw AltBenchError.invalidSetting(
                name: options.azureAPIVersion != nil ? "--azure-api-version" : "api_version under azure: in altbench.yml",
                message: "applies to a deployment's URL, and no deployment is given: without one altbench uses Azure's v1 API, which takes no api-version (the model names the deployment). Give the deployment with --azure-deployment NAME (or `deployment` under `azure:`), or drop the api-version.")
        }

        let variable = file.apiKeyEnv ?? AzureSettings.defaultAPIKeyVariable
        let key = environment[variable].flatMap { $0.isEmpty ? nil : Secret($0) }
        if key == nil && !options.offline {
            throw AltBenchError.missingAzureKey(variable: variable, endpoint: endpoint.absoluteString)
        }
        return AzureSettings(
            endpoint: endpoint, deployment: deployment, apiVersion: apiVersion, apiKey: options.offline ? nil : key,
            apiKeyVariable: variable, endpointSource: endpointSource, deploymentSource: deploymentSource,
            apiVersionSource: versionSource)
    }
}
