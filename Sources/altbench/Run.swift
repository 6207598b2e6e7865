import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask a vision model for every (prompt, max_tokens, image), compare the answers, and write the reports (HTML and Markdown).",
            discussion: """
                Settings come from flags, then the environment (OPENAI_API_KEY, OPENAI_BASE_URL), then \
                altbench.yml, then defaults. With --proxy URL (or proxy: in altbench.yml) every request goes \
                through a team's signed proxy, signed with session tokens minted from the app key in \
                ALTBENCH_PROXY_APP_KEY; no OpenAI key is needed. With --azure-endpoint (or AZURE_OPENAI_ENDPOINT \
                when no OpenAI key or base URL is set) requests go to Azure OpenAI, the key from \
                AZURE_OPENAI_API_KEY. Exit status: 0 when every trial got an answer, 3 when some \
                failed or --offline found no stored answer (everything else is still written), 1 when the \
                run could not start (a bad file: altbench.yml, prompts, dataset) or was stopped by a \
                configuration error (bad key, unknown model or URL, no quota, or a server that no request \
                could reach: fix it and start a new run, which reuses every stored answer) or by a server \
                that stopped answering midway (continue with --resume RUN once it is back), or when \
                --max-cost is below the plan's high estimate (nothing is sent; `altbench plan` shows the \
                figures), 4 when --max-cost stopped the run before the next request could pass it, 64 for a bad \
                flag or flag value (nothing is read or sent), 124 when --deadline passed, 130 after Ctrl-C \
                and 143 after SIGTERM (the partial report is written and marked incomplete; continue with \
                --resume RUN).
                """)

        @OptionGroup var flags: RunFlags

        @Flag(
            name: .long,
            help: "Once the run is done, have a vision model judge every answer (judge: in altbench.yml, --judge-model); an offline run gets the mock judge.")
        var judge = false

        @OptionGroup var judgeFlags: JudgeFlags

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Continue an interrupted run in place, asking only what it lacks. Flags that fix the plan may be repeated only with the run's own values.",
                valueName: "run"))
        var resume: String?

        @Flag(name: .customLong("embed-images"), help: "Inline local images in the HTML report as data URLs (a file that travels alone, e.g. a CI artifact).")
        var embedImages = false

        func run() async throws {
            var options = try flags.options()
            options.embedImages = embedImages
            options.judge = judgeFlags.options(enabled: judge)

            try await reportingFailures {
                try await SignalTrap.trapping { control, grace in
                    do {
                        let outcome = try await Evaluation(
                            options: options, configPath: flags.config, resume: resume, control: control, gracePeriod: grace
                        ).run()
                        if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
                    } catch let error as AltBenchError {
                        throw fail(Self.message(for: error))
                    }
                }
            }
        }

        /// The error as printed; a dataset problem stops the run at the first one, so it also
        /// names the command that lists them all.
        static func message(for error: AltBenchError) -> String {
            guard case .manifestLine(let file, _, _) = error else { return error.description }
            let suffix = "/manifest.jsonl"
            let folder = file.hasSuffix(suffix) ? String(file.dropLast(suffix.count)) : file
            return error.description
                + "\nThat is the dataset's first problem; `altbench datasets validate \(shellQuoted(folder.isEmpty ? "/" : folder))` lists them all."
        }

        /// `path` as one shell word: as is when it is plain, else in single quotes.
        static func shellQuoted(_ path: String) -> String {
            let plain = path.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "/._-+,:@%".unicodeScalars.contains(scalar))
            }
            return plain ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
    }
}

/// The flags `run` and `plan` share: everything that shapes the plan and where it is sent.
/// `plan` takes them all, so a `run` command line becomes a `plan` one by changing the verb.
struct RunFlags: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Configuration file.", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Folder of prompt files (*.md). Default: prompts.", valueName: "dir"))
    var prompts: String?

    @Option(name: .long, help: ArgumentHelp("Dataset folder (manifest.jsonl or images). Default: datasets/sample.", valueName: "dir"))
    var dataset: String?

    @Option(
        name: .customLong("max-tokens"),
        help: ArgumentHelp("Token limits to compare, e.g. 30,50,100. Replaces each prompt's own max_tokens.", valueName: "list"))
    var maxTokens: String?

    @Option(name: .long, help: ArgumentHelp("Model for every prompt (replaces each prompt's own). Default: gpt-4o-mini.", valueName: "name"))
    var model: String?

    @Option(name: .customLong("base-url"), help: ArgumentHelp("OpenAI-compatible API base, e.g. http://127.0.0.1:8080/v1.", valueName: "url"))
    var baseURL: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A team's signed proxy, e.g. https://proxy.example.com: requests are signed with a session token minted from the app key in ALTBENCH_PROXY_APP_KEY; no OpenAI key is needed.",
            valueName: "url"))
    var proxy: String?

    @Option(
        name: .customLong("azure-endpoint"),
        help: ArgumentHelp(
            "An Azure OpenAI resource's endpoint, e.g. https://my-resource.openai.azure.com (else AZURE_OPENAI_ENDPOINT); the key comes from AZURE_OPENAI_API_KEY.",
            valueName: "url"))
    var azureEndpoint: String?

    @Option(
        name: .customLong("azure-deployment"),
        help: ArgumentHelp(
            "The Azure deployment to ask (its name in Azure, not the model's). Without one, Azure's v1 API is used and --model names the deployment.",
            valueName: "name"))
    var azureDeployment: String?

    @Option(
        name: .customLong("azure-api-version"),
        help: ArgumentHelp("The api-version of the deployment's URL (else OPENAI_API_VERSION). Default: 2024-10-21.", valueName: "version"))
    var azureAPIVersion: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "openai, azure, proxy or mock. Default: proxy when a proxy URL is set, azure when an Azure endpoint is (AZURE_OPENAI_ENDPOINT only without an OpenAI key or base URL), openai when a key or base URL is set, else mock.",
            valueName: "name"))
    var provider: String?

    @Option(name: .long, help: ArgumentHelp("Requests in flight at once. Default: 4.", valueName: "n"))
    var concurrency: Int?

    @Option(name: .long, help: ArgumentHelp("Times to ask each question (for variance). Default: 1.", valueName: "n"))
    var repeats: Int?

    @Option(name: .long, help: ArgumentHelp("Seconds before a request is abandoned (and retried). Default: 120.", valueName: "seconds"))
    var timeout: Double?

    @Option(
        name: [.customLong("max-retries"), .customLong("retries")],
        help: ArgumentHelp("Retries of a retryable failure (429, 5xx, timeouts, lost connections); 0 for none. Default: 4.", valueName: "n"))
    var maxRetries: Int?

    @Option(name: .long, help: ArgumentHelp("At most this many requests per minute.", valueName: "n"))
    var rpm: Double?

    @Option(name: .long, help: ArgumentHelp("At most this many (estimated) tokens per minute.", valueName: "n"))
    var tpm: Double?

    @Option(
        name: .long,
        help: ArgumentHelp("Stop the run after this long (e.g. 90s, 30m, 2h), writing an incomplete report.", valueName: "duration"))
    var deadline: String?

    @Flag(name: .long, help: "Answer only from the stored answers; send nothing. Lists the trials it could not answer.")
    var offline = false

    @OptionGroup var batch: BatchFlags

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Ask only share K of N of the trials (by trial key: the same share on every machine), into this results folder; altbench merge joins the shares.",
            valueName: "K/N"))
    var shard: String?

    @Option(
        name: .customLong("token-field"),
        help: ArgumentHelp("max_tokens, max_completion_tokens or auto (by model name). Default: auto.", valueName: "field"))
    var tokenField: String?

    @Option(name: .customLong("brevity-budget"), help: ArgumentHelp("Characters an answer may use and count as brief. Default: 150.", valueName: "n"))
    var brevityBudget: Int?

    @Option(name: .long, help: ArgumentHelp("Results folder (altbench.sqlite, latest.md, runs/). Default: results.", valueName: "dir"))
    var results: String?

    @Flag(name: .customLong("no-cache"), help: "Ask again even when the store has an answer for a trial.")
    var noCache = false

    @Flag(
        name: .customLong("cache-scripted"),
        help: "Store answers altbench-test-server --script marks as scripted as cache entries (by default a later run never replays them).")
    var cacheScripted = false

    @Option(
        name: .long,
        help: ArgumentHelp("low, high or auto: the image detail for every prompt (replaces each prompt's own; changes what an image costs).", valueName: "level"))
    var detail: String?

    // `.unconditional`: `--max-cost -1` is a value to refuse with its own message, not a flag.
    @Option(
        name: .customLong("max-cost"), parsing: .unconditional,
        help: ArgumentHelp("Refuse to start when the estimate's high end is above this many USD, and stop sending before spending would pass it.", valueName: "usd"))
    var maxCost: Double?

    func validate() throws {
        if let provider, Provider(rawValue: provider) == nil {
            throw ValidationError("--provider must be openai, azure, proxy or mock, not '\(provider)'.")
        }
        if let tokenField, tokenField != "auto", TokenField(rawValue: tokenField) == nil {
            throw ValidationError("--token-field must be max_tokens, max_completion_tokens or auto.")
        }
        _ = try parsedMaxTokens()
        _ = try parsedDeadline()
        if let shard {
            do {
                _ = try Shard(parsing: shard)
            } catch let error as AltBenchError {
                throw ValidationError(error.description)
            }
        }
        for (name, value) in [("--rpm", rpm), ("--tpm", tpm)] {
            if let value, !(value > 0 && value.isFinite) {
                throw ValidationError("\(name) takes a positive number per minute (got \(value)).")
            }
        }
        // Out-of-range numbers are usage errors (exit 64) like unknown flags; the same
        // values in altbench.yml stay file errors (exit 1), checked with the file's line.
        for (name, value, range) in [
            ("--concurrency", concurrency, Experiment.concurrencyRange), ("--repeats", repeats, Experiment.repeatsRange),
            ("--max-retries", maxRetries, Experiment.retriesRange),
        ] {
            if let value, !range.contains(value) {
                throw ValidationError("\(name) must be between \(range.lowerBound) and \(range.upperBound) (got \(value)).")
            }
        }
        if let timeout, !Experiment.isValidTimeout(timeout) {
            throw ValidationError("--timeout takes a positive number of seconds, at most \(Int(Experiment.maxTimeout)) (got \(timeout)).")
        }
        if let brevityBudget, brevityBudget <= 0 {
            throw ValidationError("--brevity-budget takes a positive number of characters (got \(brevityBudget)).")
        }
        if let model, model.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--model needs a model name, e.g. --model gpt-4o-mini.")
        }
        if let baseURL {
            do {
                _ = try Experiment.parseBaseURL(baseURL, source: "--base-url")
            } catch let error as AltBenchError {
                throw ValidationError(error.description)
            }
        }
        if let proxy {
            do {
                _ = try Experiment.parseProxyURL(proxy, source: "--proxy")
            } catch let error as AltBenchError {
                throw ValidationError(error.description)
            }
            if baseURL != nil {
                throw ValidationError("--proxy and --base-url both say where requests go. Give --proxy URL for a signed proxy, or --base-url URL for an API reached with a key.")
            }
            if let provider, provider != Provider.proxy.rawValue {
                throw ValidationError("--proxy sends every request through a signed proxy, which --provider \(provider) contradicts. Drop one of them.")
            }
        }
        do {
            if let azureEndpoint { _ = try AzureSettings.parseEndpoint(azureEndpoint, source: "--azure-endpoint") }
            if let azureDeployment { _ = try AzureSettings.parseDeployment(azureDeployment, source: "--azure-deployment") }
            if let azureAPIVersion { _ = try AzureSettings.parseAPIVersion(azureAPIVersion, source: "--azure-api-version") }
            try Experiment.checkAzureFlags(try options())
        } catch let error as AltBenchError {
            throw ValidationError(error.description)
        }
        if offline && noCache {
            throw ValidationError("--offline answers only from the store, which --no-cache turns off. Give one of them.")
        }
        if let detail, ImageDetail(rawValue: detail) == nil {
            throw ValidationError("--detail must be low, high or auto, not '\(detail)'.")
        }
        if let maxCost, !(maxCost > 0 && maxCost.isFinite) {
            throw ValidationError("--max-cost takes a positive number of US dollars, e.g. --max-cost 5 (got \(maxCost)).")
        }
    }

    func parsedDeadline() throws -> Duration? { try parseDeadline(deadline) }

    func parsedMaxTokens() throws -> [Int]? {
        guard let maxTokens else { return nil }
        let parts = maxTokens.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let limits = parts.compactMap { Int($0) }
        guard !parts.isEmpty, limits.count == parts.count, limits.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--max-tokens takes positive whole numbers separated by commas, e.g. 30,50,100 (got '\(maxTokens)').")
        }
        return limits
    }

    /// The flags as run options (`resume` and reporting flags are the command's own).
    func options() throws -> RunOptions {
        var options = RunOptions()
        options.prompts = prompts
        options.dataset = dataset
        options.results = results
        options.model = model
        options.baseURL = baseURL
        options.proxy = proxy
        options.azureEndpoint = azureEndpoint
        options.azureDeployment = azureDeployment
        options.azureAPIVersion = azureAPIVersion
        options.provider = provider.flatMap(Provider.init(rawValue:))
        options.maxTokens = try parsedMaxTokens()
        options.concurrency = concurrency
        options.repeats = repeats
        options.timeout = timeout
        options.maxRetries = maxRetries
        options.requestsPerMinute = rpm
        options.tokensPerMinute = tpm
        options.deadline = try parsedDeadline()
        options.offline = offline
        options.tokenField = tokenField.flatMap(TokenField.init(rawValue:))
        options.noCache = noCache
        options.cacheScripted = cacheScripted
        options.brevityBudget = brevityBudget
        options.detail = detail.flatMap(ImageDetail.init(rawValue:))
        options.maxCost = maxCost
        batch.apply(to: &options)
        options.shard = try shard.map(Shard.init(parsing:))
        return options
    }
}
