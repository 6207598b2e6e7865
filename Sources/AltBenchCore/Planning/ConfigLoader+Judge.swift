import Foundation
import Yams

/// `judge:` in altbench.yml: which model judges the answers, where it is reached, with which
/// rubric. Every key is optional; `provider`, `base_url`, `api_key_env` and `proxy` default to
/// the run's own.
package struct JudgeConfig: Sendable, Hashable {
    package var model: String?
    package var provider: Provider?
    package var baseURL: String?
    package var apiKeyEnv: String?
    package var proxy: ProxyConfig?
    /// The rubric file, relative to the working directory; unset, the built-in rubric.
    package var rubric: String?
    package var maxTokens: Int?
    /// How many times each answer is judged (`--judge-repeats`), for the judge's stability.
    package var repeats: Int?
    /// Whether to ask for `response_format: json_schema` (default true); a server that rejects
    /// it is asked again without it either way.
    package var structuredOutput: Bool?

    package init() {}

    static let knownKeys = [
        "model", "provider", "base_url", "api_key_env", "proxy", "rubric", "max_tokens", "repeats", "structured_output",
    ]
}

extension ConfigFile {
    /// `judge:`, each value checked here so that a bad one is reported with its line.
    static func judgeConfig(_ value: Node, line: Int?, displayPath: String) throws -> JudgeConfig {
        guard let entries = value.mapping else {
            throw AltBenchError.configFile(
                file: displayPath, line: line,
                message: "`judge` must map settings to values, e.g. {model: gpt-4o, rubric: judges/strict.md}.")
        }
        var judge = JudgeConfig()
        for (entryNode, entryValue) in entries {
            let entry = entryNode.string ?? ""
            let entryLine = entryNode.mark?.line ?? line
            func entryFail(_ message: String) -> AltBenchError {
                .configFile(file: displayPath, line: entryLine, message: "`judge.\(entry)` \(message)")
            }
            if entry == "proxy" {
                judge.proxy = try proxyConfig(entryValue, line: entryLine, displayPath: displayPath, name: "judge.proxy")
                continue
            }
            guard let text = entryValue.scalar?.string, !text.isEmpty else {
                if JudgeConfig.knownKeys.contains(entry) { throw entryFail("must be a single value, not a list or table.") }
                throw unknownJudgeKey(entry, fail: entryFail)
            }
            func integer(in range: ClosedRange<Int>) throws -> Int {
                guard let value = Int(text), range.contains(value) else {
                    throw entryFail("must be a whole number from \(range.lowerBound) to \(range.upperBound) (got \(text)).")
                }
                return value
            }
            switch entry {
            case "model": judge.model = text
            case "provider":
                guard let provider = Provider(rawValue: text) else { throw entryFail("must be openai, azure, proxy or mock.") }
                judge.provider = provider
            case "base_url": judge.baseURL = text
            case "api_key_env":
                guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                    throw entryFail("names an environment variable (letters, digits and _), not a key. Put the key itself in that variable.")
                }
                judge.apiKeyEnv = text
            case "rubric": judge.rubric = text
            case "max_tokens": judge.maxTokens = try integer(in: JudgeSettings.maxTokensRange)
            case "repeats": judge.repeats = try integer(in: JudgeSettings.repeatsRange)
            case "structured_output":
                guard let flag = entryValue.bool else { throw entryFail("must be true or false.") }
                judge.structuredOutput = flag
            default:
                throw unknownJudgeKey(entry, fail: entryFail)
            }
        }
        return judge
    }

    private static func unknownJudgeKey(_ entry: String, fail: (String) -> AltBenchError) -> AltBenchError {
        let lowered = entry.lowercased()
        let hint =
            lowered.hasSuffix("key") || lowered.hasSuffix("token") || lowered.hasSuffix("secret")
            ? " Never put a key in this file: export it, and name the variable that holds it with `api_key_env`."
            : YAMLDiagnostics.closest(to: entry, in: JudgeConfig.knownKeys).map { " Did you mean `\($0)`?" } ?? ""
        return fail("is not a judge setting.\(hint) Settings: \(JudgeConfig.knownKeys.joined(separator: ", ")).")
    }
}
