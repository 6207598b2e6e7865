import AltBenchCore
import AltBenchOpenAI
import AltBenchReport
import AltBenchStore
import AsyncHTTPClient
import Foundation

/// `altbench run --resume RUN`: the settings a stopped run recorded, what a resume may not
/// change, and the check that the plan is the one it stopped in.
extension Evaluation {
    /// The base URL a chat-completions endpoint was asked under (`…/v1` for `…/v1/chat/completions`).
    static func baseURL(ofEndpoint endpoint: String) -> String {
        endpoint.hasSuffix("/chat/completions") ? String(endpoint.dropLast("/chat/completions".count)) : endpoint
    }

    /// The stored run's plan replaces the flags and the file. A flag that fixes the plan may
    /// be given when it says what the run already says (the command that started the run can
    /// be repeated with `--resume RUN`); one that differs is refused, naming the flag, the
    /// run's value and the given one, since a resumed run must ask the questions it was
    /// started with.
    static func applyResumedSettings(_ run: ResumableRun, to options: inout RunOptions) throws {
        if let difference = resumeConflicts(run.info, options).first {
            throw AltBenchError.cannotResume(
                run: run.info.id,
                reason: "\(difference.flag) \(difference.given) would change what the run asks: the run's own is \(difference.recorded). Drop the flag (a resumed run keeps its own prompts, dataset, model and limits), or start a new run instead (it reuses every stored answer).")
        }
        let settings = run.info.settings
        options.prompts = run.info.promptsPath
        options.dataset = run.info.datasetPath
        options.provider = run.info.provider
        if run.info.provider == .openai, let base = settings["base_url"]?.stringValue, !base.isEmpty {
            options.baseURL = base
        }
        if run.info.provider == .proxy, let proxy = settings["proxy"]?.stringValue, !proxy.isEmpty {
            options.proxy = proxy
            options.baseURL = nil
        }
        if run.info.provider == .azure, let azure = settings["azure"], let endpoint = azure["endpoint"]?.stringValue {
            options.azureEndpoint = endpoint
            options.azureDeployment = azure["deployment"]?.stringValue
            options.azureAPIVersion = azure["api_version"]?.stringValue
            options.baseURL = nil
        }
        options.model = settings["model"]?.stringValue
        options.maxTokens = settings["max_tokens"]?.arrayValue?.compactMap(\.intValue)
        options.repeats = settings["repeats"]?.intValue
        options.tokenField = settings["token_field"]?.stringValue.flatMap(TokenField.init(rawValue:))
        options.brevityBudget = settings["brevity_budget"]?.intValue
        options.detail = settings["detail"]?.stringValue.flatMap(ImageDetail.init(rawValue:))
        if let batch = settings["batch"], batch.objectValue != nil {
            // A run sent through batches continues through them: its batches hold its requests.
            options.batch = true
            options.batchMaxLines = options.batchMaxLines ?? batch["max_lines"]?.intValue
            options.batchMaxBytes = options.batchMaxBytes ?? batch["max_bytes"]?.intValue
            options.batchRetries = options.batchRetries ?? batch["retries"]?.intValue
            options.batchPoll = options.batchPoll ?? batch["poll_seconds"]?.doubleValue
        }
        if let shard = settings["shard"], let index = shard["index"]?.intValue, let count = shard["count"]?.intValue {
            // A shard continues as the same share of the plan.
            options.shard = try Shard(index: index, count: count)
        }
        if options.offline == false, settings["offline"]?.boolValue == true {
            // A run started offline resumes offline unless asked otherwise.
            options.offline = true
        }
    }

    /// A fixed flag whose value differs from the resumed run's own.
    struct ResumeConflict: Equatable {
        var flag: String
        var recorded: String
        var given: String
    }

    /// Every fixed flag in `options` whose value is not the run's own, in the order of the
    /// command's help. Paths compare without a trailing slash or leading `./`; base URLs as
    /// `--base-url` reads them (trailing slashes and `/chat/completions` dropped, scheme and
    /// host in any case); token limits as lists.
    static func resumeConflicts(_ run: RunResults.Info, _ options: RunOptions) -> [ResumeConflict] {
        let settings = run.settings
        var conflicts: [ResumeConflict] = []
        /// Records `flag` when it was given (`given` is its text) and `same` says it differs.
        func check(_ flag: String, _ given: String?, recorded: String, same: (String) -> Bool) {
            guard let given, !same(given) else { return }
            conflicts.append(ResumeConflict(flag: flag, recorded: recorded, given: given))
        }
        let path = { (text: String) -> String in
            var text = text
            while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
            while text.hasPrefix("./") { text.removeFirst(2) }
            return text.isEmpty ? "." : text
        }
        let list = { (limits: [Int]) in limits.map(String.init).joined(separator: ",") }
        check("--prompts", options.prompts, recorded: run.promptsPath) { path($0) == path(run.promptsPath) }
        check("--dataset", options.dataset, recorded: run.datasetPath) { path($0) == path(run.datasetPath) }
        let limits = settings["max_tokens"]?.arrayValue?.compactMap(\.intValue)
        check("--max-tokens", options.maxTokens.map(list), recorded: limits.map(list) ?? "each prompt's own") { _ in
            options.maxTokens == limits
        }
        let model = settings["model"]?.stringValue
        check("--model", options.model, recorded: model ?? "each prompt's own") { $0 == model }
        let base = settings["base_url"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        check("--base-url", options.baseURL, recorded: base ?? "none (provider \(run.provider.rawValue))") { given in
            guard let base, let a = try? Experiment.parseBaseURL(given, source: "--base-url"),
                let b = try? Experiment.parseBaseURL(base, source: "--base-url")
            else { return false }
            return normalised(a) == normalised(b)
        }
        let proxy = settings["proxy"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        check("--proxy", options.proxy, recorded: proxy ?? "none (provider \(run.provider.rawValue))") { given in
            guard let proxy, let a = try? Experiment.parseProxyURL(given, source: "--proxy"),
                let b = try? Experiment.parseProxyURL(proxy, source: "--proxy")
            else { return false }
            return normalised(a) == normalised(b)
        }
        check("--provider", options.provider?.rawValue, recorded: run.provider.rawValue) { $0 == run.provider.rawValue }
        let azure = settings["azure"]
        let azureEndpoint = azure?["endpoint"]?.stringValue
        check("--azure-endpoint", options.azureEndpoint, recorded: azureEndpoint ?? "none (provider \(run.provider.rawValue))") { given in
            guard let azureEndpoint, let a = try? AzureSettings.parseEndpoint(given, source: "--azure-endpoint"),
                let b = try? AzureSettings.parseEndpoint(azureEndpoint, source: "--azure-endpoint")
            else { return false }
            return normalised(a) == normalised(b)
        }
        let deployment = azure?["deployment"]?.stringValue
        check("--azure-deployment", options.azureDeployment, recorded: deployment ?? "none (the v1 API)") { $0 == deployment }
        let apiVersion = azure?["api_version"]?.stringValue
        check("--azure-api-version", options.azureAPIVersion, recorded: apiVersion ?? "none") { $0 == apiVersion }
        let shard = settings["shard"].flatMap { shard -> String? in
            guard let index = shard["index"]?.intValue, let count = shard["count"]?.intValue else { return nil }
            return "\(index)/\(count)"
        }
        check("--shard", options.shard?.description, recorded: shard ?? "none (the whole plan)") { $0 == shard }
        let repeats = settings["repeats"]?.intValue ?? 1
        check("--repeats", options.repeats.map(String.init), recorded: String(repeats)) { _ in options.repeats == repeats }
        let field = settings["token_field"]?.stringValue
        check("--token-field", options.tokenField?.rawValue, recorded: field ?? "auto (by model name)") { $0 == field }
        let detail = settings["detail"]?.stringValue
        check("--detail", options.detail?.rawValue, recorded: detail ?? "each prompt's own") { $0 == detail }
        let budget = settings["brevity_budget"]?.intValue ?? ScoringSettings().brevityBudget
        check("--brevity-budget", options.brevityBudget.map(String.init), recorded: String(budget)) { _ in
            options.brevityBudget == budget
        }
        return conflicts
    }

    /// A base URL for comparison: scheme and host lowercased, the default port dropped.
    static func normalised(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        parts.scheme = parts.scheme?.lowercased()
        parts.host = parts.host?.lowercased()
        if (parts.scheme == "http" && parts.port == 80) || (parts.scheme == "https" && parts.port == 443) { parts.port = nil }
        return parts.string ?? url.absoluteString
    }

    /// Refuses a resume whose prompts, images or endpoint changed since the run began: its
    /// stored answers and the new ones would not be comparable.
    static func checkUnchanged(
        _ run: ResumableRun, prompts: [PromptVariant], dataset: Dataset, plannedTrials: Int, endpoint: String
    ) throws {
        let fail = { (reason: String) in AltBenchError.cannotResume(run: run.info.id, reason: reason) }
        let stored = Dictionary(run.variantHashes.map { ($0.name, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        for variant in prompts where stored[variant.name] != variant.fileHash {
            throw fail(
                stored[variant.name] == nil
                    ? "the prompt '\(variant.name)' (\(variant.file)) is new since the run began. Start a new run instead (it reuses every stored answer)."
                    : "the prompt file \(variant.file) changed since the run began. Restore it, or start a new run (it reuses every stored answer).")
        }
        if prompts.count != run.variantHashes.count {
            let missing = run.variantHashes.map(\.name).filter { name in !prompts.contains { $0.name == name } }
            throw fail("the prompt '\(missing.first ?? "?")' is gone since the run began. Restore it, or start a new run.")
        }
        let items = Dictionary(run.itemHashes.map { ($0.id, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        for item in dataset.items {
            guard let hash = items[item.id] else {
                throw fail("the dataset item '\(item.id)' is new since the run began. Start a new run instead.")
            }
            if hash != item.imageInfo?.sha256 {
                throw fail("the image of dataset item '\(item.id)' changed since the run began. Restore it, or start a new run.")
            }
        }
        if dataset.items.count != run.itemHashes.count {
            throw fail("the dataset has \(dataset.items.count) items now, \(run.itemHashes.count) when the run began. Restore it, or start a new run.")
        }
        if endpoint != run.info.endpoint {
            throw fail("it asked \(run.info.endpoint), and this run would ask \(endpoint). Resume with the same endpoint (or --offline), or start a new run.")
        }
        if plannedTrials != run.plannedTrials {
            throw fail("it planned \(run.plannedTrials) trials and now plans \(plannedTrials). Start a new run instead.")
        }
    }
}
