import Foundation
import Testing

@testable import AltBenchCore

/// ``JudgeSettings/resolve(judge:runOptions:config:environment:)``: which judge a run gets from
/// the judge flags, `judge:` in altbench.yml and the run's own settings.
@Suite("judge settings")
struct JudgeSettingsTests {
    static let keyValue = "sk" + "-test-judge-settings-0123456789"
    static let key = ["OPENAI_API_KEY": keyValue]

    static func run(_ provider: Provider?, baseURL: String? = nil) -> RunOptions {
        var options = RunOptions()
        options.provider = provider
        options.baseURL = baseURL
        return options
    }

    static func config(_ edit: (inout JudgeConfig) -> Void = { _ in }) -> ConfigFile {
        var judge = JudgeConfig()
        edit(&judge)
        var config = ConfigFile()
        config.judge = judge
        return config
    }

    static func resolve(
        _ flags: JudgeOptions = JudgeOptions(enabled: true), run: RunOptions, config: ConfigFile = ConfigFile(),
        environment: [String: String] = [:]
    ) throws -> JudgeSettings {
        try JudgeSettings.resolve(judge: flags, runOptions: run, config: config, environment: environment)
    }

    @Test("a mock run gets the mock judge without a model, with the defaults")
    func mockRunGetsMockJudge() throws {
        let settings = try Self.resolve(run: Self.run(.mock))
        #expect(settings.isMock)
        #expect(settings.model == MockJudge.model)
        #expect(settings.model == MockJudge.model, "the model the settings name is the one the verdicts name")
        #expect(settings.reason == "the offline mock judge")
        #expect(settings.rubricPath == nil && settings.rubricLabel == "built-in:alt-text")
        #expect(settings.maxTokens == 400)
        #expect(settings.repeats == 1)
        #expect(settings.structuredOutput)
    }

    @Test("a judge model named for a mock run is not called, and the verdicts keep the mock's name")
    func namedModelOnAMockRun() throws {
        let settings = try Self.resolve(JudgeOptions(enabled: true, model: "gpt-4o"), run: Self.run(.mock))
        #expect(settings.isMock && settings.model == MockJudge.model)
        #expect(settings.reason.contains("gpt-4o is not called"))
    }

    @Test("judge: with both base_url and proxy is refused, naming the judge's section")
    func baseURLAndProxy() throws {
        var config = ConfigFile()
        var judge = JudgeConfig()
        judge.baseURL = "http://127.0.0.1:8089/v1"
        judge.proxy = ProxyConfig()
        judge.proxy?.url = "http://127.0.0.1:8787"
        config.judge = judge
        #expect {
            try Self.resolve(JudgeOptions(enabled: true, model: "gpt-4o"), run: Self.run(.mock), config: config)
        } throws: { error in
            guard case AltBenchError.invalidSetting(let name, let message) = error else { return false }
            return name == "judge: in altbench.yml" && message.contains("both base_url and proxy")
        }
    }

    @Test("a run that falls back to the mock (no key, no base URL) gets the mock judge too")
    func fallbackMockRun() throws {
        let settings = try Self.resolve(run: Self.run(nil))
        #expect(settings.isMock && settings.model == "mock-judge")
    }

    @Test("an openai run without a judge model is refused, naming --judge-model")
    func openAIWithoutModel() throws {
        #expect {
            try Self.resolve(run: Self.run(.openai), environment: Self.key)
        } throws: { error in
            guard case AltBenchError.invalidSetting(let name, let message) = error else { return false }
            return name == "--judge" && message.contains("--judge-model") && message.contains("`model` under `judge:`")
        }
    }

    @Test("--judge-model beats judge.model, and judge.model serves without the flag")
    func modelPrecedence() throws {
        let config = Self.config { $0.model = "gpt-4.1" }
        let flagged = try Self.resolve(
            JudgeOptions(enabled: true, model: "gpt-4o"), run: Self.run(.openai), config: config, environment: Self.key)
        #expect(flagged.model == "gpt-4o")
        #expect(flagged.client.provider == .openai)
        #expect(flagged.reason == "the run's own provider")
        let fromFile = try Self.resolve(run: Self.run(.openai), config: config, environment: Self.key)
        #expect(fromFile.model == "gpt-4.1")
        #expect(fromFile.client.apiKey?.value == Self.keyValue)
    }

    /// Where `judge.base_url` sends the judge of a mock run, and whether it needs a key.
    struct Elsewhere: Sendable, CustomTestStringConvertible {
        var name: String
        var baseURL: String
        var environment: [String: String]
        /// The chat-completions URL, or `nil` when the judge is refused for want of a key.
        var endpoint: String?
        var keyed: Bool = false
        var testDescription: String { name }
    }

    static let elsewhere: [Elsewhere] = [
        Elsewhere(
            name: "a loopback server needs no key", baseURL: "http://127.0.0.1:8080/v1", environment: [:],
            endpoint: "http://127.0.0.1:8080/v1/chat/completions"),
        Elsewhere(
            name: "a loopback server takes the key when one is set", baseURL: "http://127.0.0.1:8080/v1",
            environment: key, endpoint: "http://127.0.0.1:8080/v1/chat/completions", keyed: true),
        Elsewhere(
            name: "api.openai.com without a key is refused", baseURL: "https://api.openai.com/v1", environment: [:],
            endpoint: nil),
        Elsewhere(
            name: "api.openai.com with a key", baseURL: "https://api.openai.com/v1", environment: key,
            endpoint: "https://api.openai.com/v1/chat/completions", keyed: true),
        // As for a run: any base URL but OpenAI's may be a compatible server without keys.
        Elsewhere(
            name: "another host without a key, like a run's --base-url", baseURL: "https://judge.example.test/v1",
            environment: [:], endpoint: "https://judge.example.test/v1/chat/completions"),
        Elsewhere(
            name: "judge.base_url beats OPENAI_BASE_URL", baseURL: "http://127.0.0.1:8080/v1",
            environment: ["OPENAI_BASE_URL": "http://127.0.0.1:9999/v1"], endpoint: "http://127.0.0.1:8080/v1/chat/completions"),
    ]

    @Test("judge.base_url makes the judge of a mock run openai at that URL", arguments: elsewhere)
    func baseURLWhileRunIsMock(_ row: Elsewhere) throws {
        let config = Self.config {
            $0.baseURL = row.baseURL
            $0.model = "gpt-4o"
        }
        guard let endpoint = row.endpoint else {
            #expect {
                try Self.resolve(run: Self.run(.mock), config: config, environment: row.environment)
            } throws: { error in
                guard case AltBenchError.missingAPIKey(let variable, _) = error else { return false }
                return variable == "OPENAI_API_KEY"
            }
            return
        }
        let settings = try Self.resolve(run: Self.run(.mock), config: config, environment: row.environment)
        #expect(!settings.isMock)
        #expect(settings.client.provider == .openai)
        #expect(settings.client.endpointIdentity == endpoint)
        #expect(settings.model == "gpt-4o")
        #expect(settings.reason == "judge: in altbench.yml")
        #expect((settings.client.apiKey != nil) == row.keyed)
    }

    @Test("judge.base_url without a model is refused like the run's own provider")
    func baseURLWithoutModel() {
        #expect(throws: AltBenchError.self) {
            try Self.resolve(run: Self.run(.mock), config: Self.config { $0.baseURL = "http://127.0.0.1:8080/v1" })
        }
    }

    @Test("judge.proxy sends the judge of a run on a local server through the signed proxy")
    func judgeThroughProxy() throws {
        let appKey = "sk" + "-test-proxy-app-key-13579"
        var proxy = ProxyConfig()
        proxy.url = "http://127.0.0.1:8787"
        let config = Self.config {
            $0.proxy = proxy
            $0.model = "gpt-4o"
        }
        let settings = try Self.resolve(
            run: Self.run(.openai, baseURL: "http://127.0.0.1:8080/v1"), config: config,
            environment: Self.key.merging([ProxySettings.defaultAppKeyVariable: appKey]) { $1 })
        #expect(settings.client.provider == .proxy)
        #expect(settings.client.proxy?.url.absoluteString == "http://127.0.0.1:8787")
        #expect(settings.client.endpointIdentity.hasPrefix("http://127.0.0.1:8787"))
        #expect(settings.reason == "judge: in altbench.yml")
        #expect(!settings.recorded.canonicalText.contains(appKey))
    }

    @Test("judge.base_url judges an Azure run elsewhere: the run's --azure-* flags do not follow the judge")
    func azureRunJudgedElsewhere() throws {
        var run = Self.run(.azure)
        run.azureEndpoint = "https://resource.openai.azure.com"
        run.azureDeployment = "gpt-4o-alt"
        let config = Self.config {
            $0.baseURL = "http://127.0.0.1:8080/v1"
            $0.model = "gpt-4o"
        }
        let settings = try Self.resolve(run: run, config: config, environment: ["AZURE_OPENAI_API_KEY": "x"])
        #expect(settings.client.provider == .openai)
        #expect(settings.client.azure == nil)
        #expect(settings.client.endpointIdentity == "http://127.0.0.1:8080/v1/chat/completions")
    }

    @Test("judge.provider: mock judges an openai run offline")
    func mockJudgeForOpenAIRun() throws {
        let settings = try Self.resolve(
            run: Self.run(.openai, baseURL: "http://127.0.0.1:8080/v1"), config: Self.config { $0.provider = .mock },
            environment: Self.key)
        #expect(settings.isMock)
        #expect(settings.model == "mock-judge")
        #expect(settings.client.endpointIdentity == MockVisionModel.endpoint)
        #expect(settings.reason == "the offline mock judge")
    }

    @Test("judge.api_key_env names the judge's own key variable")
    func ownKeyVariable() throws {
        let judgeKey = "sk" + "-test-other-judge-key-987654"
        let config = Self.config {
            $0.apiKeyEnv = "JUDGE_KEY"
            $0.model = "gpt-4o"
        }
        let settings = try Self.resolve(
            run: Self.run(.openai), config: config, environment: Self.key.merging(["JUDGE_KEY": judgeKey]) { $1 })
        #expect(settings.client.apiKey?.value == judgeKey)
        #expect(settings.client.apiKeyVariable == "JUDGE_KEY")
    }

    /// `--judge-repeats` and `judge.repeats`, and what comes of them.
    static let repeatRows: [(flag: Int?, file: Int?, expected: Int?)] = [
        (nil, nil, 1), (nil, 4, 4), (2, 4, 2), (10, nil, 10), (0, nil, nil), (11, 3, nil), (nil, 11, nil), (-1, nil, nil),
    ]

    @Test("repeats: the flag over the file, 1 by default, out of 1...10 refused", arguments: repeatRows)
    func repeats(flag: Int?, file: Int?, expected: Int?) throws {
        let config = Self.config { $0.repeats = file }
        let flags = JudgeOptions(enabled: true, repeats: flag)
        guard let expected else {
            #expect {
                try Self.resolve(flags, run: Self.run(.mock), config: config)
            } throws: { error in
                guard case AltBenchError.invalidSetting(let name, let message) = error else { return false }
                return name == "--judge-repeats" && message.contains("between 1 and 10")
            }
            return
        }
        #expect(try Self.resolve(flags, run: Self.run(.mock), config: config).repeats == expected)
    }

    @Test("rubric, max_tokens and structured_output: flag over file over default")
    func fileSettings() throws {
        let config = Self.config {
            $0.rubric = "judges/file.md"
            $0.maxTokens = 800
            $0.structuredOutput = false
        }
        let fromFile = try Self.resolve(run: Self.run(.mock), config: config)
        #expect(fromFile.rubricPath == "judges/file.md")
        #expect(fromFile.maxTokens == 800)
        #expect(!fromFile.structuredOutput)
        let flagged = try Self.resolve(JudgeOptions(enabled: true, rubric: "judges/flag.md"), run: Self.run(.mock), config: config)
        #expect(flagged.rubricPath == "judges/flag.md")
        #expect(flagged.rubricLabel == "judges/flag.md")
        #expect(try Self.resolve(run: Self.run(.mock)).rubricPath == nil, "unset: the built-in rubric")
    }

    @Test("recorded names the judge and never its key")
    func recordedHasNoKey() throws {
        let config = Self.config {
            $0.model = "gpt-4o"
            $0.repeats = 2
        }
        let settings = try Self.resolve(run: Self.run(.openai), config: config, environment: Self.key)
        #expect(settings.client.apiKey?.value == Self.keyValue)
        let recorded = settings.recorded
        #expect(recorded["model"]?.stringValue == "gpt-4o")
        #expect(recorded["provider"]?.stringValue == "openai")
        #expect(recorded["endpoint"]?.stringValue == "https://api.openai.com/v1/chat/completions")
        #expect(recorded["rubric"]?.stringValue == "built-in:alt-text")
        #expect(recorded["max_tokens"] == .int(400))
        #expect(recorded["repeats"] == .int(2))
        #expect(recorded["structured_output"] == .bool(true))
        let text = recorded.canonicalText
        #expect(!text.contains(Self.keyValue))
    }
}
