import Foundation
import Testing

@testable import AltBenchCore

/// How a run is pointed at Azure OpenAI: `--azure-*` flags, AZURE_OPENAI_* and
/// OPENAI_API_VERSION in the environment, `azure:` in altbench.yml; the two URL forms; when
/// azure is chosen over OpenAI and the mock; and the errors refused before anything is sent.
@Suite("Azure OpenAI settings")
struct AzureSettingsTests {
    static let azureKey = "azure-key-SECRET-" + String(repeating: "0", count: 8)
    static let openAIKey = "sk" + "-test-openai-0001"
    static let endpoint = "https://my-resource.openai.azure.com"

    static func resolve(_ options: RunOptions = RunOptions(), config: ConfigFile = ConfigFile(), env: [String: String] = [:])
        throws -> Experiment
    {
        try Experiment.resolve(options: options, config: config, environment: env)
    }

    static func options(_ change: (inout RunOptions) -> Void) -> RunOptions {
        var options = RunOptions()
        change(&options)
        return options
    }

    static func config(_ yaml: String) throws -> ConfigFile {
        try ConfigFile.parse(yaml, displayPath: "altbench.yml")
    }

    /// The message of what `body` throws; records an issue when it throws nothing.
    static func message(_ body: () throws -> Experiment) -> String {
        do {
            let experiment = try body()
            Issue.record("resolved to \(experiment.provider)")
            return ""
        } catch {
            return String(describing: error)
        }
    }

    // MARK: - URL forms

    @Test("with a deployment: the classic URL, the GA api-version by default, the key in settings")
    func deploymentURL() throws {
        let experiment = try Self.resolve(
            Self.options { $0.azureEndpoint = Self.endpoint + "/"; $0.azureDeployment = "alt-text.v2" },
            env: ["AZURE_OPENAI_API_KEY": Self.azureKey])
        #expect(experiment.provider == .azure)
        #expect(experiment.providerReason == "--azure-endpoint is set")
        let azure = try #require(experiment.azure)
        #expect(azure.apiVersion == "2024-10-21")
        #expect(azure.apiKey?.value == Self.azureKey)
        #expect(azure.apiKeyVariable == "AZURE_OPENAI_API_KEY")
        let url = "https://my-resource.openai.azure.com/openai/deployments/alt-text.v2/chat/completions?api-version=2024-10-21"
        #expect(experiment.chatCompletionsURL.absoluteString == url)
        #expect(experiment.endpointIdentity == url)
        #expect(experiment.apiKey == nil, "the OpenAI key slot stays empty")
        #expect(azure.summary.contains("deployment alt-text.v2 at https://my-resource.openai.azure.com (api-version 2024-10-21, key from AZURE_OPENAI_API_KEY)"))
    }

    @Test("without a deployment: the v1 URL, with no api-version even when OPENAI_API_VERSION is set")
    func v1URL() throws {
        let experiment = try Self.resolve(
            Self.options { $0.azureEndpoint = Self.endpoint },
            env: ["AZURE_OPENAI_API_KEY": Self.azureKey, "OPENAI_API_VERSION": "2024-06-01"])
        let azure = try #require(experiment.azure)
        #expect(azure.deployment == nil && azure.apiVersion == nil)
        #expect(experiment.chatCompletionsURL.absoluteString == "https://my-resource.openai.azure.com/openai/v1/chat/completions")
        #expect(azure.summary.contains("v1 API"))
    }

    @Test(
        "a pasted /openai, /openai/v1 or chat-completions suffix is dropped from the endpoint",
        arguments: [
            "https://my-resource.openai.azure.com", "https://my-resource.openai.azure.com/",
            "https://my-resource.openai.azure.com/openai", "https://my-resource.openai.azure.com/openai/",
            "https://my-resource.openai.azure.com/openai/v1", " https://my-resource.openai.azure.com/OpenAI/v1/\n",
            "https://my-resource.openai.azure.com/openai/v1/chat/completions",
        ])
    func endpointSuffixes(_ text: String) throws {
        let url = try AzureSettings.parseEndpoint(text, source: "--azure-endpoint")
        #expect(url.absoluteString == Self.endpoint)
    }

    @Test("different deployments and api-versions are different endpoints in the cache key")
    func endpointIdentity() throws {
        func identity(_ deployment: String?, _ version: String?) throws -> String {
            try Self.resolve(
                Self.options {
                    $0.azureEndpoint = Self.endpoint
                    $0.azureDeployment = deployment
                    $0.azureAPIVersion = version
                }, env: ["AZURE_OPENAI_API_KEY": Self.azureKey]
            ).endpointIdentity
        }
        let identities = try [identity("a", nil), identity("b", nil), identity("a", "2025-04-01-preview"), identity(nil, nil)]
        #expect(Set(identities).count == 4)
    }

    // MARK: - Sources and precedence

    @Test("the environment alone: endpoint, key and OPENAI_API_VERSION, with the file's deployment")
    func environment() throws {
        let config = try Self.config("azure:\n  deployment: gpt-4o-mini\n  api_version: 2024-06-01\n")
        let experiment = try Self.resolve(
            config: config,
            env: [
                "AZURE_OPENAI_ENDPOINT": Self.endpoint, "AZURE_OPENAI_API_KEY": Self.azureKey,
                "OPENAI_API_VERSION": "2025-04-01-preview",
            ])
        #expect(experiment.provider == .azure)
        #expect(experiment.providerReason == "AZURE_OPENAI_ENDPOINT is set")
        #expect(experiment.azure?.apiVersion == "2025-04-01-preview", "the environment outranks the file")
        #expect(experiment.azure?.apiVersionSource == "OPENAI_API_VERSION")
        #expect(experiment.azure?.endpointSource == "AZURE_OPENAI_ENDPOINT")
        #expect(
            experiment.chatCompletionsURL.absoluteString
                == "https://my-resource.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions?api-version=2025-04-01-preview")
    }

    @Test("flags outrank the environment, which outranks the file")
    func precedence() throws {
        let config = try Self.config(
            """
            azure:
              endpoint: https://file.openai.azure.com
              deployment: from-file
              api_version: 2024-02-01
              api_key_env: TEAM_AZURE_KEY
            """)
        let env = [
            "AZURE_OPENAI_ENDPOINT": "https://env.openai.azure.com", "OPENAI_API_VERSION": "2024-06-01",
            "TEAM_AZURE_KEY": Self.azureKey, "AZURE_OPENAI_API_KEY": "not-this-one-0000",
        ]
        let fromFile = try Self.resolve(config: config, env: env)
        #expect(fromFile.providerReason == "endpoint under azure: in altbench.yml is set")
        #expect(fromFile.azure?.endpoint.absoluteString == "https://env.openai.azure.com")
        #expect(fromFile.azure?.deployment == "from-file")
        #expect(fromFile.azure?.apiVersion == "2024-06-01")
        #expect(fromFile.azure?.apiKey?.value == Self.azureKey)
        #expect(fromFile.azure?.apiKeyVariable == "TEAM_AZURE_KEY")

        let fromFlags = try Self.resolve(
            Self.options {
                $0.azureEndpoint = "https://flag.openai.azure.com"
                $0.azureDeployment = "from-flag"
                $0.azureAPIVersion = "2025-01-01-preview"
            }, config: config, env: env)
        #expect(
            fromFlags.chatCompletionsURL.absoluteString
                == "https://flag.openai.azure.com/openai/deployments/from-flag/chat/completions?api-version=2025-01-01-preview")
        #expect(fromFlags.azure?.deploymentSource == "--azure-deployment")

        var fileOnly = env
        fileOnly["AZURE_OPENAI_ENDPOINT"] = nil
        fileOnly["OPENAI_API_VERSION"] = nil
        let file = try Self.resolve(config: config, env: fileOnly)
        #expect(
            file.chatCompletionsURL.absoluteString
                == "https://file.openai.azure.com/openai/deployments/from-file/chat/completions?api-version=2024-02-01")
        #expect(file.azure?.endpointSource == "endpoint under azure: in altbench.yml")
    }

    // MARK: - Provider choice

    @Test("AZURE_OPENAI_ENDPOINT alone chooses azure only where the run would fall back to the mock")
    func environmentChoosesAzureOnlyInsteadOfTheMock() throws {
        let azureEnv = ["AZURE_OPENAI_ENDPOINT": Self.endpoint, "AZURE_OPENAI_API_KEY": Self.azureKey]
        #expect(try Self.resolve(env: azureEnv).provider == .azure)
        // In CI, where no key would be an error, the Azure settings are enough.
        #expect(try Self.resolve(env: azureEnv.merging(["CI": "true"]) { $1 }).provider == .azure)

        let withOpenAIKey = try Self.resolve(env: azureEnv.merging(["OPENAI_API_KEY": Self.openAIKey]) { $1 })
        #expect(withOpenAIKey.provider == .openai && withOpenAIKey.azure == nil)
        #expect(withOpenAIKey.providerReason == "OPENAI_API_KEY is set")
        let withBase = try Self.resolve(env: azureEnv.merging(["OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"]) { $1 })
        #expect(withBase.provider == .openai)
        let withProxy = try Self.resolve(
            Self.options { $0.proxy = "http://127.0.0.1:8787" }, env: azureEnv.merging(["ALTBENCH_PROXY_APP_KEY": "app-key-0000"]) { $1 })
        #expect(withProxy.provider == .proxy && withProxy.azure == nil)
        // Without the endpoint, the Azure key alone chooses nothing.
        #expect(try Self.resolve(env: ["AZURE_OPENAI_API_KEY": Self.azureKey]).provider == .mock)
    }

    @Test("--provider azure, provider: azure and any --azure-* flag choose azure even beside an OpenAI key")
    func explicitChoices() throws {
        let env = ["AZURE_OPENAI_ENDPOINT": Self.endpoint, "AZURE_OPENAI_API_KEY": Self.azureKey, "OPENAI_API_KEY": Self.openAIKey]
        let flag = try Self.resolve(Self.options { $0.provider = .azure }, env: env)
        #expect(flag.provider == .azure && flag.providerReason == "--provider azure")
        let file = try Self.resolve(config: try Self.config("provider: azure\n"), env: env)
        #expect(file.providerReason == "provider: azure in altbench.yml")
        let deployment = try Self.resolve(Self.options { $0.azureDeployment = "d" }, env: env)
        #expect(deployment.provider == .azure && deployment.providerReason == "--azure-deployment is set")
        #expect(deployment.apiKey == nil, "the OpenAI key is not used for an Azure run")
        // --provider openai outranks the file's azure: section.
        let openai = try Self.resolve(
            Self.options { $0.provider = .openai }, config: try Self.config("azure:\n  endpoint: \(Self.endpoint)\n"), env: env)
        #expect(openai.provider == .openai && openai.azure == nil)
        // --base-url outranks the file's azure: section too.
        let base = try Self.resolve(
            Self.options { $0.baseURL = "http://127.0.0.1:8080/v1" }, config: try Self.config("azure:\n  endpoint: \(Self.endpoint)\n"))
        #expect(base.provider == .openai)
    }

    @Test("--offline needs no key and replays from the Azure endpoint the settings name")
    func offline() throws {
        let experiment = try Self.resolve(
            Self.options { $0.offline = true; $0.azureDeployment = "d" }, env: ["AZURE_OPENAI_ENDPOINT": Self.endpoint])
        #expect(experiment.provider == .azure)
        #expect(experiment.azure?.apiKey == nil)
        #expect(experiment.providerReason == "--offline: answers replayed from the store")
        #expect(experiment.endpointIdentity.hasPrefix("https://my-resource.openai.azure.com/openai/deployments/d/"))
    }

    @Test("recorded settings hold endpoint, deployment and api-version, never the key")
    func recorded() throws {
        let experiment = try Self.resolve(
            Self.options { $0.azureEndpoint = Self.endpoint; $0.azureDeployment = "d" }, env: ["AZURE_OPENAI_API_KEY": Self.azureKey])
        let settings = experiment.recordedSettings
        #expect(settings["provider"]?.stringValue == "azure")
        #expect(settings["base_url"]?.stringValue == "")
        #expect(settings["azure"]?["endpoint"]?.stringValue == Self.endpoint)
        #expect(settings["azure"]?["deployment"]?.stringValue == "d")
        #expect(settings["azure"]?["api_version"]?.stringValue == "2024-10-21")
        #expect(!settings.canonicalText.contains(Self.azureKey))
        #expect(!String(describing: experiment).contains(Self.azureKey))
        #expect(!String(reflecting: experiment).contains(Self.azureKey))
    }

    @Test("the stored endpoint gives back the flags that ask it again")
    func flagsForEndpoint() {
        #expect(
            AzureSettings.flags(forEndpoint: "https://r.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21")
                == "--azure-endpoint https://r.openai.azure.com --azure-deployment d --azure-api-version 2024-10-21")
        #expect(
            AzureSettings.flags(forEndpoint: "http://127.0.0.1:8089/openai/v1/chat/completions")
                == "--azure-endpoint http://127.0.0.1:8089")
        #expect(AzureSettings.flags(forEndpoint: "http://127.0.0.1:8089/v1/chat/completions") == nil)
        #expect(AzureSettings.flags(forEndpoint: "mock") == nil)
    }

    // MARK: - Errors

    @Test("azure without an endpoint names the three ways to give one")
    func missingEndpoint() {
        let message = Self.message {
            try Self.resolve(Self.options { $0.provider = .azure }, env: ["AZURE_OPENAI_API_KEY": Self.azureKey])
        }
        #expect(message.hasPrefix("--provider azure: needs the Azure OpenAI endpoint"), "\(message)")
        for way in ["--azure-endpoint", "AZURE_OPENAI_ENDPOINT", "`endpoint` under `azure:` in altbench.yml"] {
            #expect(message.contains(way), "\(message)")
        }
        let deploymentOnly = Self.message { try Self.resolve(Self.options { $0.azureDeployment = "d" }) }
        #expect(deploymentOnly.hasPrefix("--azure-deployment: needs the Azure OpenAI endpoint"), "\(deploymentOnly)")
    }

    @Test("without the key the run stops before sending, naming the variable and the endpoint")
    func missingKey() throws {
        let error = try #require(throws: AltBenchError.self) {
            try Self.resolve(env: ["AZURE_OPENAI_ENDPOINT": Self.endpoint, "CI": "true"])
        }
        guard case .missingAzureKey(let variable, let endpoint) = error else {
            Issue.record("not a missing key: \(error)")
            return
        }
        #expect(variable == "AZURE_OPENAI_API_KEY")
        #expect(endpoint.contains(Self.endpoint))
        #expect(error.description.hasPrefix("AZURE_OPENAI_API_KEY is not set, and the Azure OpenAI endpoint \(Self.endpoint) needs it"))
        #expect(!error.description.contains("OPENAI_BASE_URL"), "no OpenAI advice for an Azure key")

        let configured = Self.message {
            try Self.resolve(
                config: try Self.config("azure:\n  endpoint: \(Self.endpoint)\n  api_key_env: TEAM_AZURE_KEY\n"),
                env: ["AZURE_OPENAI_API_KEY": Self.azureKey])
        }
        #expect(configured.hasPrefix("TEAM_AZURE_KEY is not set"), "\(configured)")
    }

    struct Conflict: Sendable, CustomTestStringConvertible {
        var label: String
        var edit: @Sendable (inout RunOptions) -> Void
        var expected: String
        var testDescription: String { label }
    }

    static let conflicts: [Conflict] = [
        Conflict(
            label: "--azure-endpoint with --base-url",
            edit: { $0.azureEndpoint = endpoint; $0.baseURL = "http://127.0.0.1:8080/v1" },
            expected: "--azure-endpoint with --base-url: both say where requests go. Drop --base-url"),
        Conflict(
            label: "--azure-deployment with --proxy",
            edit: { $0.azureDeployment = "d"; $0.proxy = "http://127.0.0.1:8787" },
            expected: "--azure-deployment with --proxy: both say where requests go. Drop --proxy"),
        Conflict(
            label: "--azure-api-version with --provider openai",
            edit: { $0.azureAPIVersion = "2024-10-21"; $0.provider = .openai },
            expected: "--azure-api-version with --provider openai: the --azure-* flags send to Azure OpenAI, which --provider openai contradicts. Drop one of them."),
        Conflict(
            label: "--provider azure with --base-url",
            edit: { $0.provider = .azure; $0.baseURL = "http://127.0.0.1:8080/v1" },
            expected: "--base-url with --provider azure: Azure runs send to the Azure endpoint"),
        Conflict(
            label: "--azure-api-version without a deployment",
            edit: { $0.azureEndpoint = endpoint; $0.azureAPIVersion = "2024-10-21" },
            expected: "--azure-api-version: applies to a deployment's URL, and no deployment is given"),
    ]

    @Test("flags that contradict each other are refused, saying which to drop", arguments: conflicts)
    func conflicting(_ conflict: Conflict) {
        let message = Self.message {
            try Self.resolve(Self.options(conflict.edit), env: ["AZURE_OPENAI_API_KEY": Self.azureKey])
        }
        #expect(message.hasPrefix(conflict.expected), "\(message)")
    }

    @Test("proxy.url and azure.endpoint both in the file are refused unless a flag chooses")
    func proxyAndAzureInTheFile() throws {
        let config = try Self.config("proxy:\n  url: http://127.0.0.1:8787\nazure:\n  endpoint: \(Self.endpoint)\n")
        let env = ["AZURE_OPENAI_API_KEY": Self.azureKey, "ALTBENCH_PROXY_APP_KEY": "app-key-0000"]
        let message = Self.message { try Self.resolve(config: config, env: env) }
        #expect(message.contains("sets both proxy.url and azure.endpoint"), "\(message)")
        #expect(try Self.resolve(Self.options { $0.provider = .azure }, config: config, env: env).provider == .azure)
        #expect(try Self.resolve(Self.options { $0.provider = .proxy }, config: config, env: env).provider == .proxy)
    }

    @Test(
        "endpoints that cannot work are refused with the fix, never echoing a secret",
        arguments: [
            ("my-resource.openai.azure.com", "is not an https URL"),
            ("ftp://my-resource.openai.azure.com", "is not an https URL"),
            ("http://my-resource.openai.azure.com", "plain http, which would send the key unencrypted"),
            ("https://user:pw@my-resource.openai.azure.com", "user name or password"),
            ("https://my-resource.openai.azure.com/?api-key=abc", "query or fragment"),
            ("https://my-resource.openai.azure.com/openai/deployments/d/chat/completions", "is a deployment's URL"),
        ])
    func badEndpoints(_ text: String, _ expected: String) {
        do {
            _ = try AzureSettings.parseEndpoint(text, source: "--azure-endpoint")
            Issue.record("accepted \(text)")
        } catch {
            let message = String(describing: error)
            #expect(message.hasPrefix("--azure-endpoint: "), "\(message)")
            #expect(message.contains(expected), "\(message)")
            #expect(!message.contains("pw@") && !message.contains("api-key=abc"))
        }
    }

    @Test("http is accepted for a test server on 127.0.0.1")
    func loopbackHTTP() throws {
        #expect(try AzureSettings.parseEndpoint("http://127.0.0.1:8089", source: "--azure-endpoint").absoluteString == "http://127.0.0.1:8089")
    }

    @Test(
        "deployment names and api-versions are checked before they go in the URL",
        arguments: [
            ("deployment", "my deployment", "letters, digits, -, _ and . only"),
            ("deployment", "a/b", "letters, digits, -, _ and . only"),
            ("deployment", "..", "letters, digits, -, _ and . only"),
            ("deployment", "gpt?x=1", "letters, digits, -, _ and . only"),
            ("api_version", "2024-10-21&x=1", "letters, digits, - and . only"),
            ("api_version", "2024 10 21", "letters, digits, - and . only"),
        ])
    func badNames(_ kind: String, _ value: String, _ expected: String) {
        do {
            if kind == "deployment" {
                _ = try AzureSettings.parseDeployment(value, source: "--azure-deployment")
            } else {
                _ = try AzureSettings.parseAPIVersion(value, source: "--azure-api-version")
            }
            Issue.record("accepted \(value)")
        } catch {
            #expect(String(describing: error).contains(expected), "\(error)")
        }
        #expect((try? AzureSettings.parseDeployment("gpt-4o_mini.v2", source: "x")) == "gpt-4o_mini.v2")
        #expect((try? AzureSettings.parseAPIVersion("2025-04-01-preview", source: "x")) == "2025-04-01-preview")
    }

    @Test("an environment value is blamed as the environment's")
    func badEnvironmentValues() {
        let endpoint = Self.message {
            try Self.resolve(env: ["AZURE_OPENAI_ENDPOINT": "my-resource.openai.azure.com", "AZURE_OPENAI_API_KEY": Self.azureKey])
        }
        #expect(endpoint.hasPrefix("AZURE_OPENAI_ENDPOINT: "), "\(endpoint)")
        let version = Self.message {
            try Self.resolve(
                Self.options { $0.azureDeployment = "d" },
                env: ["AZURE_OPENAI_ENDPOINT": Self.endpoint, "AZURE_OPENAI_API_KEY": Self.azureKey, "OPENAI_API_VERSION": "v1?x"])
        }
        #expect(version.hasPrefix("OPENAI_API_VERSION: "), "\(version)")
    }

    @Test(
        "a bad azure: section names the line and the fix",
        arguments: [
            ("azure: https://r.openai.azure.com", 1, "`azure` must map settings"),
            ("azure:\n  endpoint: https://r.openai.azure.com\n  api_key: abc123", 3, "Never put a key in this file: export it as AZURE_OPENAI_API_KEY"),
            ("azure:\n  deploymnet: d", 2, "Did you mean `deployment`?"),
            ("azure:\n  api_key_env: sk-abc-123", 2, "names an environment variable"),
            ("azure:\n  deployment: a/b", 2, "`azure.deployment` 'a/b' is not a deployment name"),
            ("azure:\n  endpoint: http://r.openai.azure.com", 2, "`azure.endpoint` 'http://r.openai.azure.com' is plain http"),
            ("azure:\n  api_version: '2024 10'", 2, "`azure.api_version`"),
            ("azure:\n  deployment: [a]", 2, "`azure.deployment` must be a text value"),
        ])
    func badFile(_ text: String, _ line: Int, _ expected: String) {
        expectConfigRefused(text, line: line, saying: expected, withoutEchoing: ["sk-abc-123", "abc123"])
    }

    @Test("the file's azure: section is read")
    func fileSection() throws {
        let config = try Self.config(
            "azure:\n  endpoint: https://r.openai.azure.com/openai\n  deployment: d\n  api_version: 2024-10-21\n  api_key_env: K\n")
        #expect(config.azure?.endpoint == "https://r.openai.azure.com/openai")
        #expect(config.azure?.deployment == "d")
        #expect(config.azure?.apiVersion == "2024-10-21")
        #expect(config.azure?.apiKeyEnv == "K")
    }

    // MARK: - compare and check

    @Test("an Azure run is checked against an OpenAI or proxy baseline, and back; the host is a note")
    func azureRunsCompare() {
        let azure = ComparisonTests.snapshot(provider: "azure", host: "my-resource.openai.azure.com")
        for other in [ComparisonTests.snapshot(), ComparisonTests.snapshot(provider: "proxy", host: "proxy.example.test")] {
            for verdict in [ComparisonTests.verdict(other, azure), ComparisonTests.verdict(azure, other)] {
                #expect(verdict.status == .pass, "\(verdict.headline)")
                #expect(verdict.comparison.mismatches.isEmpty)
                #expect(verdict.comparison.notes.contains { $0.hasPrefix("The endpoint host differs") })
            }
        }
        let mock = ComparisonTests.verdict(azure, ComparisonTests.snapshot(provider: "mock", host: "mock"))
        #expect(mock.status == .error)
    }
}
