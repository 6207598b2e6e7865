import Foundation
import Testing

@testable import AltBenchCore

/// Resolving a run: flags > environment > altbench.yml > defaults, the provider choice, and
/// the key that must never print.
@Suite("run settings")
struct ExperimentTests {
    static let fakeKey = "sk-test-SECRET123456"

    static func resolve(
        _ options: RunOptions = RunOptions(), config: ConfigFile = ConfigFile(), env: [String: String] = [:]
    ) throws -> Experiment {
        try Experiment.resolve(options: options, config: config, environment: env)
    }

    static func options(_ change: (inout RunOptions) -> Void) -> RunOptions {
        var options = RunOptions()
        change(&options)
        return options
    }

    static func config(_ change: (inout ConfigFile) -> Void) -> ConfigFile {
        var config = ConfigFile()
        change(&config)
        return config
    }

    // MARK: - Defaults and precedence

    @Test("with nothing set: the documented defaults and the offline mock")
    func defaults() throws {
        let experiment = try Self.resolve()
        #expect(experiment.provider == .mock)
        #expect(experiment.providerReason.contains("no OPENAI_API_KEY and no base URL"))
        #expect(experiment.promptsPath == "prompts")
        #expect(experiment.datasetPath == "datasets/sample")
        #expect(experiment.resultsPath == "results")
        #expect(experiment.concurrency == 4)
        #expect(experiment.repeats == 1)
        #expect(experiment.scoring.brevityBudget == 150)
        #expect(experiment.scoring.platformLimit == 1500)
        #expect(experiment.timeout == 120)
        #expect(experiment.maxRetries == 4)
        #expect(experiment.requestsPerMinute == nil)
        #expect(experiment.tokensPerMinute == nil)
        #expect(experiment.deadline == nil)
        #expect(experiment.offline == false)
        #expect(experiment.model == nil)
        #expect(experiment.maxTokens == nil)
        #expect(experiment.tokenField == nil)
        #expect(experiment.baseURL == Experiment.defaultBaseURL)
        #expect(experiment.baseURLConfigured == false)
        #expect(experiment.apiKey == nil)
        #expect(experiment.apiKeyVariable == "OPENAI_API_KEY")
        #expect(experiment.useCache)
        #expect(experiment.endpointIdentity == MockVisionModel.endpoint)
    }

    @Test("altbench.yml replaces the defaults")
    func configOverDefaults() throws {
        let config = Self.config {
            $0.prompts = "p"
            $0.dataset = "d"
            $0.results = "r"
            $0.model = "m"
            $0.maxTokens = [20]
            $0.repeats = 2
            $0.concurrency = 3
            $0.timeout = 9
            $0.maxRetries = 1
            $0.requestsPerMinute = 30
            $0.tokensPerMinute = 1000
            $0.deadline = .seconds(60)
            $0.tokenField = .maxTokens
            $0.brevityBudget = 100
            $0.platformLimit = 500
        }
        let experiment = try Self.resolve(config: config)
        #expect(experiment.promptsPath == "p")
        #expect(experiment.datasetPath == "d")
        #expect(experiment.resultsPath == "r")
        #expect(experiment.model == "m")
        #expect(experiment.maxTokens == [20])
        #expect(experiment.repeats == 2)
        #expect(experiment.concurrency == 3)
        #expect(experiment.timeout == 9)
        #expect(experiment.maxRetries == 1)
        #expect(experiment.requestsPerMinute == 30)
        #expect(experiment.tokensPerMinute == 1000)
        #expect(experiment.deadline == .seconds(60))
        #expect(experiment.tokenField == .maxTokens)
        #expect(experiment.scoring == ScoringSettings(brevityBudget: 100, platformLimit: 500))
    }

    @Test("flags replace altbench.yml")
    func flagsOverConfig() throws {
        let config = Self.config {
            $0.prompts = "p"
            $0.dataset = "d"
            $0.results = "r"
            $0.model = "m"
            $0.maxTokens = [20]
            $0.repeats = 2
            $0.concurrency = 3
            $0.timeout = 9
            $0.maxRetries = 1
            $0.requestsPerMinute = 30
            $0.deadline = .seconds(60)
            $0.tokenField = .maxTokens
            $0.brevityBudget = 100
            $0.provider = .openai
        }
        let options = Self.options {
            $0.prompts = "flag-p"
            $0.dataset = "flag-d"
            $0.results = "flag-r"
            $0.model = "flag-m"
            $0.maxTokens = [30, 60]
            $0.repeats = 5
            $0.concurrency = 7
            $0.timeout = 3
            $0.maxRetries = 4
            $0.requestsPerMinute = 90
            $0.deadline = .seconds(5)
            $0.tokenField = .maxCompletionTokens
            $0.brevityBudget = 90
            $0.noCache = true
            $0.provider = .mock
        }
        let experiment = try Self.resolve(options, config: config)
        #expect(experiment.promptsPath == "flag-p")
        #expect(experiment.datasetPath == "flag-d")
        #expect(experiment.resultsPath == "flag-r")
        #expect(experiment.model == "flag-m")
        #expect(experiment.maxTokens == [30, 60])
        #expect(experiment.repeats == 5)
        #expect(experiment.concurrency == 7)
        #expect(experiment.timeout == 3)
        #expect(experiment.maxRetries == 4)
        #expect(experiment.requestsPerMinute == 90)
        #expect(experiment.deadline == .seconds(5))
        #expect(experiment.tokenField == .maxCompletionTokens)
        #expect(experiment.scoring.brevityBudget == 90)
        #expect(experiment.useCache == false)
        #expect(experiment.provider == .mock)
    }

    struct BaseURLSource: Sendable, CustomTestStringConvertible {
        var flag: String?
        var env: String?
        var file: String?
        var expected: String
        var testDescription: String {
            "flag \(flag ?? "-"), env \(env ?? "-"), file \(file ?? "-")"
        }
    }

    static let baseURLSources: [BaseURLSource] = [
        BaseURLSource(flag: "http://flag/v1", env: "http://env/v1", file: "http://file/v1", expected: "http://flag/v1"),
        BaseURLSource(flag: nil, env: "http://env/v1", file: "http://file/v1", expected: "http://env/v1"),
        BaseURLSource(flag: nil, env: nil, file: "http://file/v1", expected: "http://file/v1"),
        BaseURLSource(flag: nil, env: "", file: "http://file/v1", expected: "http://file/v1"),
        BaseURLSource(flag: nil, env: "  ", file: "http://file/v1", expected: "http://file/v1"),
        BaseURLSource(flag: "http://flag/v1", env: nil, file: nil, expected: "http://flag/v1"),
    ]

    @Test("the base URL: flag, then OPENAI_BASE_URL, then altbench.yml", arguments: baseURLSources)
    func baseURLPrecedence(_ row: BaseURLSource) throws {
        var env: [String: String] = [:]
        env["OPENAI_BASE_URL"] = row.env
        let experiment = try Self.resolve(
            Self.options { $0.baseURL = row.flag }, config: Self.config { $0.baseURL = row.file }, env: env)
        #expect(experiment.baseURL.absoluteString == row.expected)
        #expect(experiment.baseURLConfigured)
        #expect(experiment.provider == .openai)
        #expect(experiment.apiKey == nil)
    }

    // MARK: - Choosing the provider

    @Test("a key selects OpenAI and is kept for the request")
    func keySelectsOpenAI() throws {
        let experiment = try Self.resolve(env: ["OPENAI_API_KEY": Self.fakeKey])
        #expect(experiment.provider == .openai)
        #expect(experiment.providerReason.contains("OPENAI_API_KEY is set"))
        #expect(experiment.apiKey?.value == Self.fakeKey)
        #expect(experiment.baseURL == Experiment.defaultBaseURL)
        #expect(experiment.endpointIdentity == "https://api.openai.com/v1/chat/completions")
    }

    @Test("an empty key counts as no key")
    func emptyKey() throws {
        let experiment = try Self.resolve(env: ["OPENAI_API_KEY": ""])
        #expect(experiment.provider == .mock)
        #expect(experiment.apiKey == nil)
    }

    @Test("api_key_env names the variable the key is read from")
    func customKeyVariable() throws {
        let config = Self.config { $0.apiKeyEnv = "ALT_KEY" }
        let withKey = try Self.resolve(config: config, env: ["ALT_KEY": Self.fakeKey])
        #expect(withKey.provider == .openai)
        #expect(withKey.apiKeyVariable == "ALT_KEY")
        #expect(withKey.apiKey?.value == Self.fakeKey)
        #expect(withKey.providerReason.contains("ALT_KEY is set"))

        // OPENAI_API_KEY is not read when another variable is named.
        let other = try Self.resolve(config: config, env: ["OPENAI_API_KEY": Self.fakeKey])
        #expect(other.provider == .mock)
        #expect(other.providerReason.contains("no ALT_KEY"))
    }

    @Test("a base URL alone selects OpenAI-compatible without a key")
    func baseURLWithoutKey() throws {
        let experiment = try Self.resolve(env: ["OPENAI_BASE_URL": "http://127.0.0.1:9/v1"])
        #expect(experiment.provider == .openai)
        #expect(experiment.apiKey == nil)
        #expect(experiment.providerReason.contains("base URL"))
        #expect(experiment.baseURL.absoluteString == "http://127.0.0.1:9/v1")
        #expect(experiment.endpointIdentity == "http://127.0.0.1:9/v1/chat/completions")
    }

    @Test("a base URL pointing at api.openai.com still needs a key")
    func openAIBaseURLNeedsKey() throws {
        let error = #expect(throws: AltBenchError.self) {
            try Self.resolve(env: ["OPENAI_BASE_URL": "https://api.openai.com/v1"])
        }
        guard case .missingAPIKey(let variable, _) = error else {
            Issue.record("expected missingAPIKey, got \(String(describing: error))")
            return
        }
        #expect(variable == "OPENAI_API_KEY")
    }

    static let ciValues = ["true", "TRUE", "1", "yes"]

    @Test("in CI, no key and no base URL is an error, not a silent mock", arguments: ciValues)
    func ciWithoutKey(_ ci: String) throws {
        let error = #expect(throws: AltBenchError.self) { try Self.resolve(env: ["CI": ci]) }
        guard case .missingAPIKey(let variable, let reason) = error else {
            Issue.record("expected missingAPIKey, got \(String(describing: error))")
            return
        }
        #expect(variable == "OPENAI_API_KEY")
        #expect(reason.contains("CI"))
        let message = String(describing: error!)
        #expect(message.contains("Export OPENAI_API_KEY"))
        #expect(message.contains("--provider mock"))
    }

    @Test("CI=false is not CI")
    func ciFalse() throws {
        #expect(try Self.resolve(env: ["CI": "false"]).provider == .mock)
    }

    @Test("in CI, an explicit mock is allowed (flag or file)")
    func ciExplicitMock() throws {
        let byFlag = try Self.resolve(Self.options { $0.provider = .mock }, env: ["CI": "true"])
        #expect(byFlag.provider == .mock)
        #expect(byFlag.providerReason.contains("--provider mock"))
        let byFile = try Self.resolve(config: Self.config { $0.provider = .mock }, env: ["CI": "true"])
        #expect(byFile.provider == .mock)
        #expect(byFile.providerReason.contains("altbench.yml"), "\(byFile.providerReason)")
    }

    @Test("in CI, a key or a base URL is enough")
    func ciWithKeyOrBase() throws {
        #expect(try Self.resolve(env: ["CI": "true", "OPENAI_API_KEY": Self.fakeKey]).provider == .openai)
        #expect(try Self.resolve(env: ["CI": "true", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"]).provider == .openai)
    }

    @Test("--provider openai with no key and no base URL is an error")
    func explicitOpenAIWithoutKey() throws {
        let error = #expect(throws: AltBenchError.self) {
            try Self.resolve(Self.options { $0.provider = .openai })
        }
        guard case .missingAPIKey(let variable, let reason) = error else {
            Issue.record("expected missingAPIKey, got \(String(describing: error))")
            return
        }
        #expect(variable == "OPENAI_API_KEY")
        #expect(reason.contains("--provider openai"))
        #expect(String(describing: error!).contains("OPENAI_API_KEY is not set"))
    }

    @Test("--provider openai with only a local base URL needs no key")
    func explicitOpenAIWithBase() throws {
        let experiment = try Self.resolve(
            Self.options {
                $0.provider = .openai
                $0.baseURL = "http://127.0.0.1:9/v1"
            })
        #expect(experiment.provider == .openai)
        #expect(experiment.apiKey == nil)
    }

    @Test("provider openai from altbench.yml says where it came from")
    func openAIFromFile() throws {
        let experiment = try Self.resolve(
            config: Self.config { $0.provider = .openai }, env: ["OPENAI_API_KEY": Self.fakeKey])
        #expect(experiment.provider == .openai)
        #expect(experiment.providerReason.contains("altbench.yml"), "\(experiment.providerReason)")
    }

    @Test("provider openai from altbench.yml with no key blames the file")
    func openAIFromFileWithoutKey() throws {
        let error = #expect(throws: AltBenchError.self) {
            try Self.resolve(config: Self.config { $0.provider = .openai })
        }
        let message = error.map { String(describing: $0) } ?? ""
        #expect(message.contains("provider: openai in altbench.yml needs it"), "\(message)")
    }

    @Test("an explicit mock drops a key that is present")
    func explicitMockDropsKey() throws {
        let experiment = try Self.resolve(
            Self.options { $0.provider = .mock },
            env: ["OPENAI_API_KEY": Self.fakeKey, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"])
        #expect(experiment.provider == .mock)
        #expect(experiment.apiKey == nil)
        #expect(experiment.endpointIdentity == MockVisionModel.endpoint)
        #expect(experiment.recordedSettings["base_url"] == "")
    }

    @Test("a flag provider beats the file's")
    func providerFlagOverFile() throws {
        let experiment = try Self.resolve(
            Self.options { $0.provider = .mock }, config: Self.config { $0.provider = .openai })
        #expect(experiment.provider == .mock)
    }

    // MARK: - The key never prints

    @Test("the API key never appears when an Experiment is printed, dumped or recorded")
    func keyNeverPrinted() throws {
        let experiment = try Self.resolve(
            Self.options { $0.model = "gpt-4o-mini" },
            env: ["OPENAI_API_KEY": Self.fakeKey, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"])
        #expect(experiment.apiKey?.value == Self.fakeKey)

        var dumped = ""
        dump(experiment, to: &dumped)
        let renderings = [
            String(describing: experiment),
            String(reflecting: experiment),
            "\(experiment)",
            dumped,
            experiment.recordedSettings.canonicalText,
            String(describing: experiment.recordedSettings),
            String(describing: experiment.apiKey as Any),
            "\(experiment.apiKey!)",
        ]
        for text in renderings {
            #expect(!text.contains("SECRET123456"), "\(text)")
            #expect(!text.contains(Self.fakeKey))
        }
        #expect(dumped.contains(Redactor.placeholder))
        #expect(String(describing: experiment).contains(Redactor.placeholder))
    }

    @Test("recorded settings hold what changes a run, and no key")
    func recordedSettings() throws {
        let experiment = try Self.resolve(
            Self.options {
                $0.model = "gpt-4o-mini"
                $0.maxTokens = [30, 50]
                $0.tokenField = .maxTokens
            },
            env: ["OPENAI_API_KEY": Self.fakeKey])
        let settings = experiment.recordedSettings
        #expect(settings["provider"] == "openai")
        #expect(settings["base_url"] == "https://api.openai.com/v1")
        #expect(settings["model"] == "gpt-4o-mini")
        #expect(settings["max_tokens"] == [30, 50])
        #expect(settings["token_field"] == "max_tokens")
        #expect(settings["prompts"] == "prompts")
        #expect(settings["dataset"] == "datasets/sample")
        #expect(settings["repeats"] == 1)
        #expect(settings["concurrency"] == 4)
        #expect(settings["timeout"] == 120.0)
        #expect(settings["max_retries"] == 4)
        #expect(settings["cache"] == true)
        #expect(settings["brevity_budget"] == 150)
        #expect(settings["platform_limit"] == 1500)
        let keys = Set(settings.objectValue?.keys.map { $0 } ?? [])
        #expect(keys.allSatisfy { !$0.contains("key") })
    }

    @Test("unset model and limits are left out of the recorded settings")
    func recordedSettingsOmitUnset() throws {
        let settings = try Self.resolve().recordedSettings
        #expect(settings["model"] == nil)
        #expect(settings["max_tokens"] == nil)
        #expect(settings["token_field"] == nil)
    }

    // MARK: - Base URLs

    struct Normalisation: Sendable, CustomTestStringConvertible {
        var given: String
        var base: String
        var testDescription: String { given }
    }

    static let normalisations: [Normalisation] = [
        Normalisation(given: "http://127.0.0.1:9/v1", base: "http://127.0.0.1:9/v1"),
        Normalisation(given: "http://127.0.0.1:9/v1/", base: "http://127.0.0.1:9/v1"),
        Normalisation(given: "http://127.0.0.1:9/v1//", base: "http://127.0.0.1:9/v1"),
        Normalisation(given: "http://127.0.0.1:9/v1/chat/completions", base: "http://127.0.0.1:9/v1"),
        Normalisation(given: "http://127.0.0.1:9/v1/chat/completions/", base: "http://127.0.0.1:9/v1"),
        Normalisation(given: "  https://example.com/openai/v1  ", base: "https://example.com/openai/v1"),
        Normalisation(given: "https://example.com/openai/v1\n", base: "https://example.com/openai/v1"),
        Normalisation(given: "HTTPS://example.com/v1", base: "HTTPS://example.com/v1"),
        Normalisation(given: "http://localhost:11434/v1", base: "http://localhost:11434/v1"),
    ]

    @Test("base URLs lose a trailing slash and a trailing /chat/completions", arguments: normalisations)
    func baseURLNormalisation(_ row: Normalisation) throws {
        let experiment = try Self.resolve(Self.options { $0.baseURL = row.given })
        #expect(experiment.baseURL.absoluteString == row.base)
        #expect(experiment.chatCompletionsURL.absoluteString == row.base + "/chat/completions")
    }

    struct BadBaseURL: Sendable, CustomTestStringConvertible {
        var value: String
        var via: Via
        var source: String
        enum Via: Sendable { case flag, env, file }
        var testDescription: String { "\(value.debugDescription) via \(source)" }
    }

    static let badBaseURLs: [BadBaseURL] = [
        BadBaseURL(value: "ftp://example.com/v1", via: .flag, source: "--base-url"),
        BadBaseURL(value: "localhost:8080/v1", via: .flag, source: "--base-url"),
        BadBaseURL(value: "not a url", via: .flag, source: "--base-url"),
        BadBaseURL(value: "", via: .flag, source: "--base-url"),
        BadBaseURL(value: "http://", via: .flag, source: "--base-url"),
        BadBaseURL(value: "127.0.0.1:8080", via: .env, source: "OPENAI_BASE_URL"),
        BadBaseURL(value: "file:///tmp/v1", via: .file, source: "base_url in altbench.yml"),
    ]

    @Test("a base URL that is not http(s) is an error naming where it came from", arguments: badBaseURLs)
    func badBaseURL(_ row: BadBaseURL) throws {
        var options = RunOptions()
        var config = ConfigFile()
        var env: [String: String] = [:]
        switch row.via {
        case .flag: options.baseURL = row.value
        case .env: env["OPENAI_BASE_URL"] = row.value
        case .file: config.baseURL = row.value
        }
        let error = #expect(throws: AltBenchError.self) { try Self.resolve(options, config: config, env: env) }
        guard case .invalidSetting(let name, let message) = error else {
            Issue.record("expected invalidSetting, got \(String(describing: error))")
            return
        }
        #expect(name == row.source)
        #expect(message.contains("'\(row.value)' is not an http(s) URL"))
        #expect(message.contains("http://127.0.0.1:8080/v1"))
    }

    @Test(
        "a base URL carrying a secret is refused without repeating the secret",
        arguments: [
            ("http://user:pw123secret@127.0.0.1:8331/v1", "user name or password", "'http://…@127.0.0.1:8331/v1'"),
            ("https://proxy.example/v1?sig=TOPSECRETSIG", "query or fragment", "'https://proxy.example/v1…'"),
            ("https://proxy.example/v1#TOPSECRETSIG", "query or fragment", "'https://proxy.example/v1…'"),
            ("http://pw123secret@[bad", "is not an http(s) URL", "'http://…@[bad'"),
        ])
    func secretsInTheBaseURL(url: String, problem: String, shown: String) throws {
        for (options, env) in [
            ({ var o = RunOptions(); o.baseURL = url; return o }(), [String: String]()),
            (RunOptions(), ["OPENAI_BASE_URL": url]),
        ] {
            let error = #expect(throws: AltBenchError.self) { try Self.resolve(options, env: env) }
            let message = String(describing: error)
            #expect(message.contains(problem), "\(message)")
            #expect(message.contains(shown), "\(message)")
            for secret in ["pw123secret", "TOPSECRETSIG", "user:"] {
                #expect(!message.contains(secret), "\(message)")
            }
        }
    }

    @Test("a bad base URL in altbench.yml is blamed on the file when OPENAI_BASE_URL is empty")
    func badFileBaseURLWithEmptyEnv() throws {
        let error = #expect(throws: AltBenchError.self) {
            try Self.resolve(config: Self.config { $0.baseURL = "ftp://x" }, env: ["OPENAI_BASE_URL": ""])
        }
        guard case .invalidSetting(let name, _) = error else {
            Issue.record("expected invalidSetting, got \(String(describing: error))")
            return
        }
        #expect(name == "base_url in altbench.yml")
    }

    // MARK: - Invalid settings

    struct InvalidCase: Sendable, CustomTestStringConvertible {
        var label: String
        var options: RunOptions
        var config: ConfigFile
        var name: String
        var testDescription: String { label }

        init(_ label: String, name: String, options: RunOptions = RunOptions(), config: ConfigFile = ConfigFile()) {
            self.label = label
            self.options = options
            self.config = config
            self.name = name
        }
    }

    static let invalid: [InvalidCase] = [
        InvalidCase("concurrency 0", name: "concurrency", options: options { $0.concurrency = 0 }),
        InvalidCase("concurrency 257", name: "concurrency", options: options { $0.concurrency = 257 }),
        InvalidCase("concurrency 0 in the file", name: "concurrency", config: config { $0.concurrency = 0 }),
        InvalidCase("repeats 0", name: "repeats", options: options { $0.repeats = 0 }),
        InvalidCase("repeats 1001", name: "repeats", options: options { $0.repeats = 1001 }),
        InvalidCase("max retries -1", name: "max_retries", options: options { $0.maxRetries = -1 }),
        InvalidCase("max retries 21", name: "max_retries", options: options { $0.maxRetries = 21 }),
        InvalidCase("rpm 0", name: "rpm", options: options { $0.requestsPerMinute = 0 }),
        InvalidCase("tpm NaN", name: "tpm", options: options { $0.tokensPerMinute = .nan }),
        InvalidCase("offline without the cache", name: "--offline", options: options {
            $0.offline = true
            $0.noCache = true
        }),
        InvalidCase("timeout 0", name: "timeout", options: options { $0.timeout = 0 }),
        InvalidCase("timeout infinite", name: "timeout", options: options { $0.timeout = .infinity }),
        InvalidCase("max_tokens []", name: "max_tokens", options: options { $0.maxTokens = [] }),
        InvalidCase("max_tokens [50, 0]", name: "max_tokens", options: options { $0.maxTokens = [50, 0] }),
        InvalidCase("brevity 0", name: "brevity_budget", options: options { $0.brevityBudget = 0 }),
        InvalidCase("brevity at the platform limit", name: "brevity_budget", options: options { $0.brevityBudget = 1500 }),
        InvalidCase(
            "brevity above a smaller platform limit", name: "brevity_budget",
            options: options { $0.brevityBudget = 200 }, config: config { $0.platformLimit = 200 }),
        InvalidCase("blank model", name: "model", options: options { $0.model = "  " }),
    ]

    @Test("settings that cannot work are errors naming the setting", arguments: invalid)
    func invalidSetting(_ row: InvalidCase) throws {
        let error = #expect(throws: AltBenchError.self) { try Self.resolve(row.options, config: row.config) }
        guard case .invalidSetting(let name, let message) = error else {
            Issue.record("expected invalidSetting, got \(String(describing: error))")
            return
        }
        #expect(name == row.name)
        #expect(!message.isEmpty)
        #expect(String(describing: error!).hasPrefix("\(row.name): "))
    }

    @Test("limits at the edges of their ranges are accepted")
    func rangeEdges() throws {
        let low = try Self.resolve(
            Self.options {
                $0.concurrency = 1
                $0.repeats = 1
                $0.maxRetries = 0
                $0.brevityBudget = 1
                $0.maxTokens = [1]
            })
        #expect(low.concurrency == 1)
        let high = try Self.resolve(
            Self.options {
                $0.concurrency = 256
                $0.repeats = 1000
                $0.maxRetries = 20
                $0.brevityBudget = 1499
            })
        #expect(high.concurrency == 256)
        #expect(high.repeats == 1000)
    }
    // MARK: - Batch API

    @Test("--batch: the provider's limits, lowered by the flags, and refused where there is no Batch API")
    func batchSettings() throws {
        let key = ["OPENAI_API_KEY": Self.fakeKey]
        #expect(try Self.resolve(env: key).batch == nil)
        let openAI = try #require(try Self.resolve(Self.options { $0.batch = true }, env: key).batch)
        #expect(openAI == BatchSettings(limits: .openAI))
        let fromFile = try Self.resolve(config: Self.config { $0.batch = true }, env: key).batch
        #expect(fromFile == openAI)
        let lowered = try #require(
            try Self.resolve(
                Self.options {
                    $0.batch = true
                    $0.batchMaxLines = 10
                    $0.batchMaxBytes = 4096
                    $0.batchRetries = 0
                    $0.batchPoll = 0.5
                }, env: key
            ).batch)
        #expect(lowered == BatchSettings(limits: BatchLimits(maxLines: 10, maxBytes: 4096), retries: 0, longestPoll: .milliseconds(500)))
        #expect(try Self.resolve(Self.options { $0.batch = true }, env: key).recordedSettings["batch"]?["max_lines"]?.intValue == 50_000)

        func refusal(_ options: RunOptions, env: [String: String] = key) -> String {
            do {
                _ = try Self.resolve(options, env: env)
                return "accepted"
            } catch {
                return String(describing: error)
            }
        }
        #expect(refusal(Self.options { $0.batch = true }, env: [:]).contains("mock has none"))
        #expect(refusal(Self.options { $0.batch = true; $0.offline = true }).contains("--offline"))
        #expect(refusal(Self.options { $0.batch = true; $0.batchMaxLines = 60_000 }).contains("--batch-max-lines"))
        #expect(refusal(Self.options { $0.batch = true; $0.batchMaxBytes = 10 }).contains("--batch-max-bytes"))
        #expect(refusal(Self.options { $0.batch = true; $0.batchRetries = 11 }).contains("--batch-retries"))
        #expect(refusal(Self.options { $0.batch = true; $0.batchPoll = 0 }).contains("--batch-poll"))
        #expect(refusal(Self.options { $0.batchMaxLines = 5 }).contains("add --batch"))
        #expect(
            refusal(
                Self.options {
                    $0.batch = true
                    $0.proxy = "http://127.0.0.1:8787"
                }, env: ["ALTBENCH_PROXY_APP_KEY": "k"]
            ).contains("signed proxy"))
    }
}
