import Foundation
import Testing

@testable import AltBenchCore

/// `altbench.yml`: every key is optional; unknown keys and bad values name the line.
@Suite("altbench.yml")
struct ConfigTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Planning
        .deletingLastPathComponent()  // AltBenchCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    static func parse(_ text: String) throws -> ConfigFile {
        try ConfigFile.parse(text, displayPath: "altbench.yml")
    }

    @Test("the repository's own altbench.yml parses and resolves to the mock offline")
    func repositoryConfig() throws {
        let config = try ConfigFile.load(
            from: Self.repositoryRoot.appendingPathComponent("altbench.yml"), displayPath: "altbench.yml")
        #expect(config.prompts == "prompts")
        #expect(config.dataset == "datasets/sample")
        #expect(config.results == "results")
        #expect(config.concurrency == 4)
        #expect(config.repeats == 1)
        #expect(config.timeout == 120)
        #expect(config.maxRetries == 4)
        #expect(config.requestsPerMinute == nil)
        #expect(config.deadline == nil)
        #expect(config.brevityBudget == 150)
        #expect(config.platformLimit == 1500)
        // The default run sweeps four token limits over every prompt.
        #expect(config.maxTokens == [30, 50, 80, 150])
        // The commented-out keys stay unset, so prompts keep their own model.
        #expect(config.model == nil)
        #expect(config.baseURL == nil)
        #expect(config.apiKeyEnv == nil)
        #expect(config.provider == nil)
        #expect(config.tokenField == nil)

        let experiment = try Experiment.resolve(options: RunOptions(), config: config, environment: [:])
        #expect(experiment.provider == .mock)
        #expect(experiment.datasetPath == "datasets/sample")
    }

    @Test("every key is read")
    func allKeys() throws {
        let config = try Self.parse(
            """
            prompts: my-prompts
            dataset: datasets/mine
            results: out
            model: gpt-4.1-mini
            base_url: http://127.0.0.1:8080/v1
            api_key_env: MY_KEY
            provider: openai
            max_tokens: [30, 50, 100]
            repeats: 3
            concurrency: 8
            timeout: 12.5
            max_retries: 0
            rpm: 60
            tpm: 90000.5
            deadline: 1h30m
            token_field: max_completion_tokens
            brevity_budget: 120
            platform_limit: 500
            """)
        #expect(config.prompts == "my-prompts")
        #expect(config.dataset == "datasets/mine")
        #expect(config.results == "out")
        #expect(config.model == "gpt-4.1-mini")
        #expect(config.baseURL == "http://127.0.0.1:8080/v1")
        #expect(config.apiKeyEnv == "MY_KEY")
        #expect(config.provider == .openai)
        #expect(config.maxTokens == [30, 50, 100])
        #expect(config.repeats == 3)
        #expect(config.concurrency == 8)
        #expect(config.timeout == 12.5)
        #expect(config.maxRetries == 0)
        #expect(config.requestsPerMinute == 60)
        #expect(config.tokensPerMinute == 90000.5)
        #expect(config.deadline == .seconds(5400))
        #expect(config.tokenField == .maxCompletionTokens)
        #expect(config.brevityBudget == 120)
        #expect(config.platformLimit == 500)
    }

    @Test("the known keys are exactly the documented ones")
    func knownKeys() {
        #expect(
            Set(ConfigFile.knownKeys) == [
                "prompts", "dataset", "results", "model", "base_url", "api_key_env", "provider", "max_tokens",
                "repeats", "concurrency", "timeout", "max_retries", "rpm", "tpm", "deadline", "token_field",
                "brevity_budget", "platform_limit", "free_hedges_per_sentence", "context_echo_threshold",
                "quality_weights", "hard_fails", "check", "baseline", "proxy", "detail", "max_cost", "prices",
                "azure", "judge", "batch",
            ])
    }

    struct ValueCase: Sendable, CustomTestStringConvertible {
        var yaml: String
        var check: @Sendable (ConfigFile) -> Bool
        var testDescription: String { yaml }
    }

    static let values: [ValueCase] = [
        ValueCase(yaml: "max_tokens: 50", check: { $0.maxTokens == [50] }),
        ValueCase(yaml: "max_tokens:\n  - 30\n  - 60", check: { $0.maxTokens == [30, 60] }),
        ValueCase(yaml: "token_field: auto", check: { $0.tokenField == nil }),
        ValueCase(yaml: "token_field: max_tokens", check: { $0.tokenField == .maxTokens }),
        ValueCase(yaml: "provider: mock", check: { $0.provider == .mock }),
        ValueCase(yaml: "baseline: icecubes-original", check: { $0.baseline == "icecubes-original" }),
        ValueCase(yaml: "timeout: 30", check: { $0.timeout == 30 }),
        ValueCase(yaml: "timeout: 0.5", check: { $0.timeout == 0.5 }),
        ValueCase(yaml: "max_retries: 0", check: { $0.maxRetries == 0 }),
        ValueCase(yaml: "rpm: 500", check: { $0.requestsPerMinute == 500 }),
        ValueCase(yaml: "tpm: 200000", check: { $0.tokensPerMinute == 200_000 }),
        ValueCase(yaml: "deadline: 30m", check: { $0.deadline == .seconds(1800) }),
        ValueCase(yaml: "deadline: 90", check: { $0.deadline == .seconds(90) }),
        ValueCase(yaml: "model: \"gpt-4o\"  # a comment", check: { $0.model == "gpt-4o" }),
        ValueCase(yaml: "", check: { $0 == ConfigFile() }),
        ValueCase(yaml: "# only comments\n\n# here", check: { $0 == ConfigFile() }),
    ]

    @Test("values", arguments: values)
    func value(_ row: ValueCase) throws {
        let config = try Self.parse(row.yaml)
        #expect(row.check(config), "got \(config)")
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var label: String
        var yaml: String
        var line: Int?
        var mentions: [String]
        var testDescription: String { label }
    }

    static let errors: [ErrorCase] = [
        ErrorCase(
            label: "unknown key with a hint", yaml: "prompts: prompts\n\nconcurency: 4\n", line: 3,
            mentions: ["unknown key `concurency`", "Did you mean `concurrency`?", "Known keys: prompts, dataset"]),
        ErrorCase(
            label: "unknown key in a CRLF file", yaml: "prompts: p\r\n\r\nconcurency: 4\r\n", line: 3,
            mentions: ["Did you mean `concurrency`?"]),
        ErrorCase(
            label: "unknown key: max_token", yaml: "# comment\nmax_token: 50\n", line: 2,
            mentions: ["Did you mean `max_tokens`?"]),
        ErrorCase(
            label: "unknown key without a hint", yaml: "scorer_weights: {}\n", line: 1,
            mentions: ["unknown key `scorer_weights`", "Known keys"]),
        ErrorCase(
            label: "an API key in the file is an unknown key", yaml: "api_key: sk-not-here\n", line: 1,
            mentions: ["unknown key `api_key`", "Never put a key in this file", "OPENAI_API_KEY", "`api_key_env`"]),
        ErrorCase(
            label: "so is openai_api_key", yaml: "model: m\nOPENAI_API_KEY: sk-not-here\n", line: 2,
            mentions: ["unknown key `OPENAI_API_KEY`", "Never put a key in this file"]),
        ErrorCase(
            label: "repeats as text", yaml: "repeats: many\n", line: 1, mentions: ["`repeats` must be a whole number"]),
        ErrorCase(
            label: "repeats 0", yaml: "model: m\nrepeats: 0\n", line: 2, mentions: ["`repeats`", "1"]),
        ErrorCase(
            label: "concurrency 1.5", yaml: "concurrency: 1.5\n", line: 1,
            mentions: ["`concurrency` must be a whole number"]),
        ErrorCase(
            label: "concurrency 0", yaml: "concurrency: 0\n", line: 1, mentions: ["`concurrency`", "1"]),
        ErrorCase(
            label: "max_retries -1", yaml: "max_retries: -1\n", line: 1, mentions: ["`max_retries`"]),
        ErrorCase(
            label: "rpm 0", yaml: "rpm: 0\n", line: 1, mentions: ["`rpm`", "per minute"]),
        ErrorCase(
            label: "deadline soon", yaml: "deadline: soon\n", line: 1, mentions: ["`deadline`", "30m"]),
        ErrorCase(
            label: "the old retries key", yaml: "retries: 2\n", line: 1, mentions: ["unknown key `retries`", "max_retries"]),
        ErrorCase(
            label: "brevity_budget 0", yaml: "brevity_budget: 0\n", line: 1, mentions: ["`brevity_budget`"]),
        ErrorCase(
            label: "platform_limit -5", yaml: "platform_limit: -5\n", line: 1, mentions: ["`platform_limit`"]),
        ErrorCase(
            label: "provider bedrock", yaml: "provider: bedrock\n", line: 1, mentions: ["`provider` must be openai, azure, proxy or mock"]),
        ErrorCase(
            label: "max_tokens 0", yaml: "max_tokens: 0\n", line: 1,
            mentions: ["`max_tokens` must be a positive whole number", "[30, 50, 100]"]),
        ErrorCase(
            label: "max_tokens [50, x]", yaml: "\nmax_tokens: [50, x]\n", line: 2, mentions: ["`max_tokens`"]),
        ErrorCase(
            label: "max_tokens fifty", yaml: "max_tokens: fifty\n", line: 1, mentions: ["`max_tokens`"]),
        ErrorCase(
            label: "timeout 0", yaml: "timeout: 0\n", line: 1, mentions: ["`timeout` must be a positive number of seconds"]),
        ErrorCase(
            label: "timeout soon", yaml: "timeout: soon\n", line: 1, mentions: ["`timeout`"]),
        ErrorCase(
            label: "timeout infinite", yaml: "timeout: .inf\n", line: 1, mentions: ["`timeout`"]),
        ErrorCase(
            label: "token_field max", yaml: "token_field: max\n", line: 1,
            mentions: ["`token_field` must be auto, max_tokens or max_completion_tokens"]),
        ErrorCase(
            label: "prompts as a list", yaml: "prompts: [a, b]\n", line: 1, mentions: ["`prompts` must be a text value"]),
        ErrorCase(
            label: "empty model", yaml: "model: \"\"\n", line: 1, mentions: ["`model` must be a text value"]),
        ErrorCase(
            label: "bad YAML on line 3", yaml: "prompts: p\ndataset: d\nmodel: a: b\n", line: 3,
            mentions: ["not valid YAML"]),
        ErrorCase(
            label: "an unclosed quote is blamed on its own line", yaml: "prompts: p\nmodel: \"gpt\nrepeats: 1\n",
            line: 2, mentions: ["not valid YAML"]),
        ErrorCase(
            label: "a list instead of keys", yaml: "- prompts\n- dataset\n", line: 1, mentions: ["`key: value` lines"]),
        ErrorCase(
            label: "quality_weights as a list", yaml: "quality_weights: [brevity]\n", line: 1,
            mentions: ["`quality_weights` must map score ids to weights"]),
        ErrorCase(
            label: "a misspelt weight names its line and the closest id", yaml: "quality_weights:\n  brevity: 1\n  text_recal: 2\n",
            line: 3, mentions: ["`text_recal`", "Did you mean `text_recall`?", "Weighable:"]),
        ErrorCase(
            label: "a figure cannot be weighted", yaml: "quality_weights: {length: 1}\n", line: 1,
            mentions: ["`length`, which is not a 0...1 score"]),
        ErrorCase(
            label: "a half of quality cannot be weighted", yaml: "quality_weights:\n  brevity: 1\n  content: 2\n", line: 3,
            mentions: ["`content`, which is not a 0...1 score"]),
        ErrorCase(
            label: "quality itself cannot be weighted", yaml: "quality_weights: {quality: 1}\n", line: 1,
            mentions: ["`quality`, which is not a 0...1 score"]),
        ErrorCase(
            label: "CIDEr-D is a figure", yaml: "quality_weights: {ciderD: 1}\n", line: 1,
            mentions: ["`ciderD`, which is not a 0...1 score"]),
        ErrorCase(
            label: "a negative weight", yaml: "quality_weights:\n  brevity: -1\n", line: 2,
            mentions: ["`quality_weights.brevity` must be a number of 0 or more"]),
        ErrorCase(
            label: "hard_fails as text", yaml: "hard_fails: first_person\n", line: 1, mentions: ["`hard_fails` must be a list"]),
        ErrorCase(
            label: "hard_fails with a figure", yaml: "hard_fails: [empty, readability]\n", line: 1,
            mentions: ["`hard_fails` lists `readability`, which is not a pass/fail check"]),
        ErrorCase(
            label: "context_echo_threshold above 1", yaml: "context_echo_threshold: 80\n", line: 1,
            mentions: ["`context_echo_threshold` must be a share"]),
        ErrorCase(
            label: "free_hedges_per_sentence -1", yaml: "free_hedges_per_sentence: -1\n", line: 1,
            mentions: ["`free_hedges_per_sentence`"]),
    ]

    @Test("scoring settings: weights merge over the defaults, hard_fails replaces them, and a run records both")
    func scoringSettings() throws {
        let config = try Self.parse(
            """
            quality_weights:
              bleu4: 1.5
              emoji: 0
            hard_fails: [empty, refusal]
            free_hedges_per_sentence: 2
            context_echo_threshold: 0.9
            brevity_budget: 120
            """)
        let settings = try config.scoringSettings()
        #expect(settings.weights[ScoreName.bleu4] == 1.5)
        #expect(settings.weights[ScoreName.emoji] == 0)
        #expect(settings.weights[ScoreName.textRecall] == ScoringSettings.defaultWeights[ScoreName.textRecall])
        #expect(settings.hardFails == [ScoreName.empty, ScoreName.refusal])
        #expect(settings.freeHedgesPerSentence == 2 && settings.contextEchoThreshold == 0.9 && settings.brevityBudget == 120)
        #expect(try config.scoringSettings(brevityBudget: 90).brevityBudget == 90)

        // What a run records reads back as the same settings, zero weights aside.
        var expected = settings
        expected.weights[ScoreName.emoji] = nil
        #expect(ScoringSettings(recorded: .object(settings.recorded)) == expected)
        // An older run that recorded only the budget gets the defaults for the rest.
        let old = ScoringSettings(recorded: .object(["brevity_budget": .int(100)]))
        #expect(old == ScoringSettings(brevityBudget: 100))
    }

    @Test("the reference and judge scores take a weight in the one flat map")
    func newWeights() throws {
        let config = try Self.parse(
            """
            quality_weights:
              reference_match: 3
              judge_accuracy: 4
              judge_completeness: 0
              judge_concision: 0.5
            """)
        let settings = try config.scoringSettings()
        #expect(settings.weights[ScoreName.referenceMatch] == 3)
        #expect(settings.weights[ScoreName.judgeAccuracy] == 4)
        #expect(settings.weights[ScoreName.judgeCompleteness] == 0)
        #expect(settings.weights[ScoreName.judgeConcision] == 0.5)
        #expect(settings.weights[ScoreName.brevity] == ScoringSettings.defaultWeights[ScoreName.brevity])
    }

    @Test("bad configuration names the file, the key and the line", arguments: errors)
    func error(_ row: ErrorCase) throws {
        let error = #expect(throws: AltBenchError.self) { try Self.parse(row.yaml) }
        guard case .configFile(let file, let line, _) = error else {
            Issue.record("expected a config file error, got \(String(describing: error))")
            return
        }
        #expect(file == "altbench.yml")
        #expect(line == row.line)
        let message = String(describing: error!)
        let location = row.line.map { "altbench.yml:\($0): " } ?? "altbench.yml: "
        #expect(message.hasPrefix(location), "\(message)")
        for word in row.mentions {
            #expect(message.contains(word), "\(message)")
        }
    }

    @Test("a duplicated key is an error")
    func duplicateKey() throws {
        let error = #expect(throws: AltBenchError.self) { try Self.parse("repeats: 1\nrepeats: 2\n") }
        let message = error.map { String(describing: $0) } ?? ""
        #expect(message.hasPrefix("altbench.yml"))
        #expect(message.contains("repeats"))
    }

    // MARK: - Files

    @Test("a missing file is an empty configuration")
    func missingFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-\(UUID().uuidString).yml")
        #expect(try ConfigFile.load(from: url, displayPath: "altbench.yml") == ConfigFile())
    }

    @Test("a file is read from disk, and a non-UTF-8 one is an error naming it")
    func fromDisk() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("altbench-config-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let good = folder.appendingPathComponent("good.yml")
        try Data("repeats: 2\n".utf8).write(to: good)
        #expect(try ConfigFile.load(from: good, displayPath: "good.yml").repeats == 2)

        let bad = folder.appendingPathComponent("bad.yml")
        try Data([0x6D, 0x6F, 0x64, 0x65, 0x6C, 0x3A, 0x20, 0xE9, 0x0A]).write(to: bad)
        let error = #expect(throws: AltBenchError.self) { try ConfigFile.load(from: bad, displayPath: "bad.yml") }
        let message = error.map { String(describing: $0) } ?? ""
        #expect(message.hasPrefix("bad.yml: "), "\(message)")
        #expect(message.contains("Save it as UTF-8"))
    }

    @Test("check: sets the limits of altbench check; unset ones keep their defaults")
    func checkLimits() throws {
        let config = try ConfigFile.parse(
            "check:\n  max_quality_drop: 0.05\n  max_truncation_rise: 0\n  fail_on_significant: false\n  max_error_rise: 0.1\n",
            displayPath: "altbench.yml")
        #expect(config.check.maxErrorRise == 0.1)
        #expect(config.check.maxQualityDrop == 0.05)
        #expect(config.check.maxTruncationRise == 0)
        #expect(config.check.failOnSignificant == false)
        #expect(config.check.maxFirstPersonRise == 0)
        #expect(config.check.alpha == 0.05)
        #expect(try ConfigFile.parse("model: gpt-4o\n", displayPath: "altbench.yml").check == CheckThresholds())
        #expect(CheckThresholds().maxErrorRise == 0, "by default the share of failed trials may not rise")
    }

    @Test(arguments: [
        ("check: 3\n", "altbench.yml:1: `check` must map limits to values"),
        ("check:\n  max_quality_drop: lots\n", "altbench.yml:2: `check.max_quality_drop` must be a share from 0 to 1"),
        ("check:\n  max_refusal_rise: 1.5\n", "altbench.yml:2: `check.max_refusal_rise` must be a share from 0 to 1"),
        ("check:\n  alpha: 0.05\n  max_error_rise: -0.1\n", "altbench.yml:3: `check.max_error_rise` must be a share from 0 to 1"),
        ("check:\n  max_error_rise: all\n", "altbench.yml:2: `check.max_error_rise` must be a share from 0 to 1"),
        ("check:\n  max_errors_rise: 0.1\n", "Did you mean `max_error_rise`?"),
        ("check:\n  alpha: 0\n", "altbench.yml:2: `check.alpha` must be a level between 0 and 1"),
        ("check:\n  fail_on_significant: maybe\n", "altbench.yml:2: `check.fail_on_significant` must be true or false"),
        ("check:\n  max_quality_dorp: 0.1\n", "Did you mean `max_quality_drop`?"),
    ])
    func badCheckLimitsNameTheLine(text: String, message: String) {
        do {
            _ = try ConfigFile.parse(text, displayPath: "altbench.yml")
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect(String(describing: error).contains(message), "\(error)")
        }
    }
}

