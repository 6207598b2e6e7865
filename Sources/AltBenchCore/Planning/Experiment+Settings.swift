import Foundation

extension Experiment {
    /// A run's numbers: token limits, concurrency, repeats, timeout, retries and rates.
    struct Limits {
        var maxTokens: [Int]?
        var concurrency: Int
        var repeats: Int
        var timeout: Double
        var maxRetries: Int
        var requestsPerMinute: Double?
        var tokensPerMinute: Double?
    }

    /// The run's numbers from flags, else the file, else the defaults; each checked against
    /// its range, the error naming the setting and what it takes.
    static func resolveLimits(options: RunOptions, config: ConfigFile) throws -> Limits {
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
        return Limits(
            maxTokens: maxTokens, concurrency: concurrency, repeats: repeats, timeout: timeout, maxRetries: retries,
            requestsPerMinute: rpm, tokensPerMinute: tpm)
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
