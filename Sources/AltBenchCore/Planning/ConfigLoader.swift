import Foundation
import Yams

extension ConfigFile {
    /// Reads `altbench.yml`. A missing file is an empty configuration; a broken one is an error
    /// that names the line.
    package static func load(from url: URL, displayPath: String) throws -> ConfigFile {
        guard FileManager.default.fileExists(atPath: url.path) else { return ConfigFile() }
        let data = try Data(contentsOf: url)
        guard let text = String(data: data, encoding: .utf8) else {
            throw AltBenchError.configFile(
                file: displayPath, line: nil, message: "the file is not UTF-8 text. Save it as UTF-8.")
        }
        return try parse(text, displayPath: displayPath)
    }

    package static func parse(_ text: String, displayPath: String) throws -> ConfigFile {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw AltBenchError.configFile(
                file: displayPath, line: YAMLDiagnostics.line(of: error),
                message: "not valid YAML (\(YAMLDiagnostics.summary(of: error))).")
        }
        var config = ConfigFile()
        guard let node else { return config }
        guard let mapping = node.mapping else {
            throw AltBenchError.configFile(file: displayPath, line: 1, message: "the file must hold `key: value` lines.")
        }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let line = keyNode.mark?.line
            func fail(_ message: String) -> AltBenchError {
                .configFile(file: displayPath, line: line, message: "`\(key)` \(message)")
            }
            func text() throws -> String {
                guard let string = value.scalar?.string, !string.isEmpty else { throw fail("must be a text value.") }
                return string
            }
            // Ranges are checked here as well as in Experiment.resolve, so that a bad value is
            // reported with its line in the file rather than as a bare setting name.
            func integer(in range: ClosedRange<Int>) throws -> Int {
                guard let number = value.scalar.flatMap({ Int($0.string) }) else { throw fail("must be a whole number.") }
                guard range.contains(number) else {
                    throw fail("must be between \(range.lowerBound) and \(range.upperBound) (got \(number)).")
                }
                return number
            }
            func positiveInteger() throws -> Int {
                guard let number = value.scalar.flatMap({ Int($0.string) }) else { throw fail("must be a whole number.") }
                guard number > 0 else { throw fail("must be a positive whole number (got \(number)).") }
                return number
            }
            switch key {
            case "prompts": config.prompts = try text()
            case "dataset": config.dataset = try text()
            case "results": config.results = try text()
            case "baseline": config.baseline = try text()
            case "model": config.model = try text()
            case "base_url": config.baseURL = try text()
            case "api_key_env": config.apiKeyEnv = try text()
            case "provider":
                guard let provider = Provider(rawValue: try text()) else { throw fail("must be openai, azure, proxy or mock.") }
                config.provider = provider
            case "max_tokens":
                let nodes = value.sequence.map(Array.init) ?? [value]
                let limits = nodes.compactMap { $0.scalar.flatMap { Int($0.string) } }
                guard !nodes.isEmpty, limits.count == nodes.count, limits.allSatisfy({ $0 > 0 }) else {
                    throw fail("must be a positive whole number or a list of them, e.g. [30, 50, 100].")
                }
                config.maxTokens = limits
            case "repeats": config.repeats = try integer(in: Experiment.repeatsRange)
            case "concurrency": config.concurrency = try integer(in: Experiment.concurrencyRange)
            case "max_retries": config.maxRetries = try integer(in: Experiment.retriesRange)
            case "rpm", "tpm":
                guard let number = value.scalar.flatMap({ Double($0.string) }), number > 0, number.isFinite else {
                    throw fail("must be a positive number per minute, e.g. 500.")
                }
                if key == "rpm" { config.requestsPerMinute = number } else { config.tokensPerMinute = number }
            case "deadline":
                guard let duration = value.scalar.flatMap({ DurationText.parse($0.string) }) else {
                    throw fail("must be a duration such as 90s, 30m or 2h (or a number of seconds).")
                }
                config.deadline = duration
            case "brevity_budget": config.brevityBudget = try positiveInteger()
            case "platform_limit": config.platformLimit = try positiveInteger()
            case "free_hedges_per_sentence": config.freeHedgesPerSentence = try integer(in: 0...100)
            case "context_echo_threshold":
                guard let number = value.scalar.flatMap({ Double($0.string) }), number > 0, number <= 1 else {
                    throw fail("must be a share above 0 and at most 1, e.g. 0.8.")
                }
                config.contextEchoThreshold = number
            case "quality_weights":
                guard let entries = value.mapping else {
                    throw fail("must map score ids to weights, e.g. {text_recall: 2, brevity: 1}.")
                }
                var weights: [String: Double] = [:]
                for (idNode, weightNode) in entries {
                    let id = idNode.string ?? ""
                    let entryLine = idNode.mark?.line ?? line
                    guard QualityScorer.partKinds[id] != nil else {
                        let hint = YAMLDiagnostics.closest(to: id, in: Array(QualityScorer.partKinds.keys)).map {
                            " Did you mean `\($0)`?"
                        } ?? ""
                        throw AltBenchError.configFile(
                            file: displayPath, line: entryLine,
                            message: "`quality_weights` has `\(id)`, which is not a 0...1 score.\(hint) Weighable: \(QualityScorer.partKinds.keys.sorted().joined(separator: ", ")).")
                    }
                    guard let weight = weightNode.scalar.flatMap({ Double($0.string) }), weight >= 0, weight.isFinite else {
                        throw AltBenchError.configFile(
                            file: displayPath, line: entryLine,
                            message: "`quality_weights.\(id)` must be a number of 0 or more (0 leaves the part out).")
                    }
                    weights[id] = weight
                }
                config.qualityWeights = weights
            case "hard_fails":
                let nodes = value.sequence.map(Array.init) ?? []
                let ids = nodes.compactMap { $0.scalar?.string }
                guard value.sequence != nil, ids.count == nodes.count else {
                    throw fail("must be a list of check ids, e.g. [empty, first_person, truncated], or [] for none.")
                }
                for id in ids where !ScoringSettings.checkIDs.contains(id) {
                    let hint = YAMLDiagnostics.closest(to: id, in: ScoringSettings.checkIDs).map { " Did you mean `\($0)`?" } ?? ""
                    throw fail("lists `\(id)`, which is not a pass/fail check.\(hint) Checks: \(ScoringSettings.checkIDs.joined(separator: ", ")).")
                }
                config.hardFails = ids
            case "check":
                guard let entries = value.mapping else {
                    throw fail("must map limits to values, e.g. {max_quality_drop: 0.02, max_truncation_rise: 0.02}.")
                }
                for (entryNode, entryValue) in entries {
                    let entry = entryNode.string ?? ""
                    let entryLine = entryNode.mark?.line ?? line
                    func entryFail(_ message: String) -> AltBenchError {
                        .configFile(file: displayPath, line: entryLine, message: "`check.\(entry)` \(message)")
                    }
                    func share() throws -> Double {
                        guard let number = entryValue.scalar.flatMap({ Double($0.string) }), number >= 0, number <= 1 else {
                            throw entryFail("must be a share from 0 to 1, e.g. 0.02 for 2 points.")
                        }
                        return number
                    }
                    switch entry {
                    case "max_error_rise": config.check.maxErrorRise = try share()
                    case "max_quality_drop": config.check.maxQualityDrop = try share()
                    case "max_first_person_rise": config.check.maxFirstPersonRise = try share()
                    case "max_refusal_rise": config.check.maxRefusalRise = try share()
                    case "max_truncation_rise": config.check.maxTruncationRise = try share()
                    case "max_judge_accuracy_drop": config.check.maxJudgeAccuracyDrop = try share()
                    case "fail_on_significant":
                        guard let flag = entryValue.scalar.flatMap({ Bool($0.string) }) else {
                            throw entryFail("must be true or false.")
                        }
                        config.check.failOnSignificant = flag
                    case "alpha":
                        guard let number = entryValue.scalar.flatMap({ Double($0.string) }), number > 0, number < 1 else {
                            throw entryFail("must be a level between 0 and 1, e.g. 0.05.")
                        }
                        config.check.alpha = number
                    default:
                        let hint = YAMLDiagnostics.closest(to: entry, in: CheckThresholds.keys).map { " Did you mean `\($0)`?" } ?? ""
                        throw entryFail("is not a check setting.\(hint) Settings: \(CheckThresholds.keys.joined(separator: ", ")).")
                    }
                }
            case "proxy":
                config.proxy = try proxyConfig(value, line: line, displayPath: displayPath)
            case "detail":
                guard let detail = ImageDetail(rawValue: try text()) else { throw fail("must be low, high or auto.") }
                config.detail = detail
            case "max_cost":
                guard let number = value.scalar.flatMap({ Double($0.string) }), number > 0, number.isFinite else {
                    throw fail("must be a positive number of US dollars, e.g. 5 or 0.50.")
                }
                config.maxCost = number
            case "prices":
                config.prices = try PriceTable.parse(value, line: line, displayPath: displayPath)
            case "batch":
                guard let flag = value.scalar.flatMap({ Bool($0.string) }) else {
                    throw fail("must be true or false: true sends every run through the provider's Batch API (as --batch does).")
                }
                config.batch = flag
            case "azure":
                config.azure = try azureConfig(value, line: line, displayPath: displayPath)
            case "judge":
                config.judge = try judgeConfig(value, line: line, displayPath: displayPath)
            case "timeout":
                guard let seconds = value.scalar.flatMap({ Double($0.string) }), Experiment.isValidTimeout(seconds) else {
                    throw fail("must be a positive number of seconds, at most \(Int(Experiment.maxTimeout)).")
                }
                config.timeout = seconds
            case "token_field":
                let raw = try text()
                if raw == "auto" { config.tokenField = nil; continue }
                guard let field = TokenField(rawValue: raw) else {
                    throw fail("must be auto, max_tokens or max_completion_tokens.")
                }
                config.tokenField = field
            default:
                // `api_key`, `openai_api_key`, ...: someone is about to commit a key. Say where it goes.
                let hint =
                    key.lowercased().hasSuffix("key")
                    ? " Never put a key in this file: export it as OPENAI_API_KEY, or name the variable that holds it with `api_key_env`."
                    : YAMLDiagnostics.closest(to: key, in: knownKeys).map { " Did you mean `\($0)`?" } ?? ""
                throw AltBenchError.configFile(
                    file: displayPath, line: line,
                    message: "unknown key `\(key)`.\(hint) Known keys: \(knownKeys.joined(separator: ", ")).")
            }
        }
        return config
    }
    /// `proxy:`: `url`, `app_key_env`, and the header names and token route for a proxy that
    /// differs from the reference protocol. `name` is where the table stands (`proxy`,
    /// `judge.proxy`), for the errors.
    static func proxyConfig(_ value: Node, line: Int?, displayPath: String, name: String = "proxy") throws -> ProxyConfig {
        guard let entries = value.mapping else {
            throw AltBenchError.configFile(
                file: displayPath, line: line,
                message: "`\(name)` must map settings to values, e.g. {url: https://proxy.example.com, app_key_env: ALTBENCH_PROXY_APP_KEY}.")
        }
        var proxy = ProxyConfig()
        for (entryNode, entryValue) in entries {
            let entry = entryNode.string ?? ""
            let entryLine = entryNode.mark?.line ?? line
            func entryFail(_ message: String) -> AltBenchError {
                .configFile(file: displayPath, line: entryLine, message: "`\(name).\(entry)` \(message)")
            }
            guard let text = entryValue.scalar?.string, !text.isEmpty else {
                if ProxyConfig.knownKeys.contains(entry) { throw entryFail("must be a text value.") }
                throw unknownProxyKey(entry, fail: entryFail)
            }
            // Header names go on the wire as given: letters, digits and dashes only.
            func headerName() throws -> String {
                guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                    throw entryFail("must be an HTTP header name (letters, digits and dashes), e.g. x-signature.")
                }
                return text.lowercased()
            }
            switch entry {
            case "url": proxy.url = text
            case "app_key_env":
                guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                    throw entryFail("names an environment variable (letters, digits and _), not a key. Put the key itself in that variable.")
                }
                proxy.appKeyEnv = text
            case "auth_path":
                guard text.hasPrefix("/"), !text.contains("?"), !text.contains("#"),
                    text.allSatisfy({ $0.isASCII && !$0.isWhitespace })
                else {
                    throw entryFail("must be a path on the proxy starting with /, e.g. /auth_token.")
                }
                proxy.protocolSettings.authPath = text
            case "session_header": proxy.protocolSettings.sessionHeader = try headerName()
            case "timestamp_header": proxy.protocolSettings.timestampHeader = try headerName()
            case "signature_header": proxy.protocolSettings.signatureHeader = try headerName()
            default:
                throw unknownProxyKey(entry, fail: entryFail)
            }
        }
        return proxy
    }

    private static func unknownProxyKey(_ entry: String, fail: (String) -> AltBenchError) -> AltBenchError {
        let hint =
            entry.lowercased().hasSuffix("key") || entry.lowercased().hasSuffix("token")
            ? " Never put a key in this file: export it as ALTBENCH_PROXY_APP_KEY, or name the variable that holds it with `app_key_env`."
            : YAMLDiagnostics.closest(to: entry, in: ProxyConfig.knownKeys).map { " Did you mean `\($0)`?" } ?? ""
        return fail("is not a proxy setting.\(hint) Settings: \(ProxyConfig.knownKeys.joined(separator: ", ")).")
    }
}
