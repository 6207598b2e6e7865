import Foundation
import Testing

@testable import AltBenchCore

/// `judge:` in altbench.yml: every key read into ``JudgeConfig``, and every bad value refused
/// with its line and key.
@Suite("judge: in altbench.yml")
struct JudgeConfigTests {
    static func parse(_ text: String) throws -> JudgeConfig? {
        try ConfigFile.parse(text, displayPath: "altbench.yml").judge
    }

    @Test("every key is read, proxy as a nested table")
    func everyKey() throws {
        let judge = try #require(
            try Self.parse(
                """
                model: gpt-4o-mini
                judge:
                  model: gpt-4.1
                  provider: openai
                  base_url: http://127.0.0.1:8080/v1
                  api_key_env: JUDGE_OPENAI_KEY
                  proxy:
                    url: https://proxy.example.test
                    app_key_env: JUDGE_PROXY_APP_KEY
                  rubric: judges/strict.md
                  max_tokens: 600
                  repeats: 3
                  structured_output: false
                """))
        #expect(judge.model == "gpt-4.1")
        #expect(judge.provider == .openai)
        #expect(judge.baseURL == "http://127.0.0.1:8080/v1")
        #expect(judge.apiKeyEnv == "JUDGE_OPENAI_KEY")
        #expect(judge.proxy?.url == "https://proxy.example.test")
        #expect(judge.proxy?.appKeyEnv == "JUDGE_PROXY_APP_KEY")
        #expect(judge.rubric == "judges/strict.md")
        #expect(judge.maxTokens == 600)
        #expect(judge.repeats == 3)
        #expect(judge.structuredOutput == false)
    }

    @Test("a file without judge: has no judge settings, and an empty-ish judge: has all unset")
    func absentAndMinimal() throws {
        #expect(try Self.parse("model: gpt-4o\n") == nil)
        let minimal = try #require(try Self.parse("judge:\n  structured_output: true\n"))
        var expected = JudgeConfig()
        expected.structuredOutput = true
        #expect(minimal == expected)
    }

    @Test("the ends of each range are accepted", arguments: [("repeats", 1), ("repeats", 10), ("max_tokens", 16), ("max_tokens", 4096)])
    func rangeEnds(key: String, value: Int) throws {
        let judge = try #require(try Self.parse("judge:\n  \(key): \(value)\n"))
        #expect((key == "repeats" ? judge.repeats : judge.maxTokens) == value)
    }

    /// A bad `judge:` and what its error must say.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var yaml: String
        var line: Int
        var saying: String
        var also: [String] = []
        var secrets: [String] = []
        var testDescription: String { name }
    }

    static let fakeKey = "sk" + "-proj-judge0123456789abcdef"

    static let refusals: [Refusal] = [
        Refusal(
            name: "judge is a single value, not a table", yaml: "model: gpt-4o\njudge: gpt-4o\n", line: 2,
            saying: "`judge` must map settings to values"),
        Refusal(
            name: "judge is a list", yaml: "judge:\n  - gpt-4o\n", line: 1, saying: "`judge` must map settings to values"),
        Refusal(
            name: "an unknown key with a near miss", yaml: "judge:\n  model: gpt-4o\n  rubirc: judges/a.md\n", line: 3,
            saying: "`judge.rubirc` is not a judge setting. Did you mean `rubric`?", also: ["Settings: model, provider"]),
        Refusal(
            name: "an unknown key far from any", yaml: "judge:\n  colour: blue\n", line: 2,
            saying: "`judge.colour` is not a judge setting. Settings:"),
        Refusal(
            name: "api_key, a key in the file", yaml: "judge:\n  api_key: \(fakeKey)\n", line: 2,
            saying: "`judge.api_key` is not a judge setting. Never put a key in this file", also: ["`api_key_env`"],
            secrets: [fakeKey]),
        Refusal(
            name: "a token-like key", yaml: "judge:\n\n  access_token: abc\n", line: 3,
            saying: "Never put a key in this file"),
        Refusal(
            name: "repeats 0", yaml: "judge:\n  repeats: 0\n", line: 2,
            saying: "`judge.repeats` must be a whole number from 1 to 10 (got 0)."),
        Refusal(
            name: "repeats 11", yaml: "judge:\n  model: m\n  repeats: 11\n", line: 3,
            saying: "`judge.repeats` must be a whole number from 1 to 10 (got 11)."),
        Refusal(
            name: "repeats not a number", yaml: "judge:\n  repeats: three\n", line: 2,
            saying: "`judge.repeats` must be a whole number from 1 to 10 (got three)."),
        Refusal(
            name: "max_tokens 15", yaml: "judge:\n  max_tokens: 15\n", line: 2,
            saying: "`judge.max_tokens` must be a whole number from 16 to 4096 (got 15)."),
        Refusal(
            name: "max_tokens 4097", yaml: "judge:\n  max_tokens: 4097\n", line: 2,
            saying: "`judge.max_tokens` must be a whole number from 16 to 4096 (got 4097)."),
        Refusal(
            name: "structured_output not a boolean", yaml: "judge:\n  structured_output: sometimes\n", line: 2,
            saying: "`judge.structured_output` must be true or false."),
        Refusal(
            name: "structured_output a number", yaml: "judge:\n  structured_output: 2\n", line: 2,
            saying: "`judge.structured_output` must be true or false."),
        Refusal(
            name: "provider unknown", yaml: "judge:\n  provider: anthropic\n", line: 2,
            saying: "`judge.provider` must be openai, azure, proxy or mock."),
        Refusal(
            name: "api_key_env holds a key", yaml: "judge:\n  api_key_env: \(fakeKey)\n", line: 2,
            saying: "`judge.api_key_env` names an environment variable (letters, digits and _), not a key.",
            secrets: [fakeKey]),
        Refusal(
            name: "a known key given a list", yaml: "judge:\n  model: [gpt-4o, gpt-4.1]\n", line: 2,
            saying: "`judge.model` must be a single value, not a list or table."),
        Refusal(
            name: "an empty value", yaml: "judge:\n  rubric: \"\"\n", line: 2,
            saying: "`judge.rubric` must be a single value"),
        Refusal(
            name: "a bad key inside judge.proxy", yaml: "judge:\n  proxy:\n    url: https://p.example.test\n    app_key: x\n",
            line: 4, saying: "`judge.proxy.app_key` is not a proxy setting. Never put a key in this file"),
        Refusal(
            name: "judge.proxy not a table", yaml: "judge:\n  proxy: https://p.example.test\n", line: 2,
            saying: "`judge.proxy` must map settings to values"),
    ]

    @Test("a bad judge: is refused with its line and key", arguments: refusals)
    func refused(_ refusal: Refusal) {
        expectConfigRefused(refusal.yaml, line: refusal.line, saying: refusal.saying, withoutEchoing: refusal.secrets)
        for text in refusal.also {
            expectConfigRefused(refusal.yaml, line: refusal.line, saying: text, withoutEchoing: refusal.secrets)
        }
    }
}
