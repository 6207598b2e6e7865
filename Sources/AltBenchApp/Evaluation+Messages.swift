import AltBenchCore
import AltBenchOpenAI
import AltBenchReport
import AltBenchStore
import AsyncHTTPClient
import Foundation

/// What `altbench run` says at the end: failures by reason, the plan's shape, the settings it
/// records, the spending limit, exit codes, and why `--offline` found no answer.
extension Evaluation {
    /// The failed trials' most common reasons, most frequent first (three, then a count of
    /// the rest), for the end of a run with failures.
    static func failureSummary(_ failed: [RunResults.TrialRow], of total: Int) -> String {
        let reasons = Dictionary(grouping: failed) { TerminalText.line($0.error ?? $0.errorKind ?? "unknown failure") }
            .map { (reason: $0.key, count: $0.value.count) }
            .sorted { ($0.count, $1.reason) > ($1.count, $0.reason) }
        var text = "\(failed.count) of \(total) trials failed; the most common reasons:\n"
        for reason in reasons.prefix(3) {
            let shown = reason.reason.count > 300 ? String(reason.reason.prefix(300)) + "…" : reason.reason
            text += "  \(reason.count) × \(shown)\n"
        }
        if reasons.count > 3 {
            let rest = reasons.dropFirst(3).reduce(0) { $0 + $1.count }
            text += "  and \(rest) more with \(reasons.count - 3) other reason\(reasons.count == 4 ? "" : "s"); the report lists each trial's.\n"
        }
        return text
    }

    /// What the trial count is made of, for the line that starts a run: "2 prompts × 4 token
    /// limits × 27 images × 3 repeats". A run without token limits says so ("no token
    /// limit"); when prompts bring different numbers of their own limits, the factor is the
    /// number of (prompt, token limit) pairs.
    static func planShape(prompts: [PromptVariant], planner: Planner, images: Int, repeats: Int) -> String {
        let plural = { (count: Int, one: String, many: String) in "\(count) \(count == 1 ? one : many)" }
        let limits = prompts.map { planner.tokenLimits(for: $0) }
        var parts = [plural(prompts.count, "prompt", "prompts")]
        var suffix = ""
        if limits.allSatisfy({ $0 == [nil] }) {
            suffix = ", no token limit"
        } else if let first = limits.first, limits.allSatisfy({ $0.count == first.count }) {
            parts.append(plural(first.count, "token limit", "token limits"))
        } else {
            parts = [
                "\(limits.reduce(0) { $0 + $1.count }) (prompt, token limit) pairs from \(plural(prompts.count, "prompt", "prompts"))"
            ]
        }
        parts.append(plural(images, "image", "images"))
        if repeats > 1 { parts.append(plural(repeats, "repeat", "repeats")) }
        return parts.joined(separator: " × ") + suffix
    }

    /// The run's settings as stored, with the price of each model it asks (so a report can say
    /// what the costs were computed from).
    static func recordedSettings(_ experiment: Experiment, models: [String], plannedTotal: Int? = nil) -> JSONValue {
        guard case .object(var object) = experiment.recordedSettings else { return experiment.recordedSettings }
        if let shard = experiment.shard { object["shard"] = shard.recorded(plannedTotal: plannedTotal ?? 0) }
        var prices: [String: JSONValue] = [:]
        for model in Set(models) {
            guard let (_, price) = experiment.prices.price(forModel: model) else { continue }
            var entry: [String: JSONValue] = ["input": .double(price.input), "output": .double(price.output)]
            if let cached = price.cachedInput { entry["cached_input"] = .double(cached) }
            prices[model] = .object(entry)
        }
        if !prices.isEmpty { object["prices"] = .object(prices) }
        return .object(object)
    }

    /// What a run stopped by its spending limit prints: what it spent of the limit, that what
    /// it recorded is kept, and (`resumeCommand`, when trials are left) how to continue.
    static func costLimitMessage(limit: Double, spent: Double, recorded: Int, planned: Int, resumeCommand: String?) -> String {
        let spentText: String
        if spent > limit + 0.005 {
            // Over the limit: what was in flight when it was reached still came back and was
            // billed, or answers used more tokens than their estimate.
            spentText =
                "spent \(CostSummary.usd(spent)), \(CostSummary.usd(spent - limit)) over the \(CostSummary.usd(limit)) limit: requests already in flight when it was reached were answered and billed, or the server reported more tokens than estimated"
        } else {
            spentText = "spent \(CostSummary.usd(spent)) of \(CostSummary.usd(limit))"
        }
        var text =
            "altbench: stopped before the next request could pass the spending limit: \(spentText); \(recorded) of \(planned) trials recorded, and their answers are kept. The report is marked incomplete.\n"
        if let resumeCommand {
            text +=
                "Continue this run with a limit for what is left: \(resumeCommand) --max-cost USD (the stored answers are not asked again).\n"
        }
        return text
    }

    /// The exit status of a run that stopped early.
    package static func exitCode(for reason: StopReason) -> Int32 {
        switch reason {
        case .failure, .serverLost: return stoppedExitCode
        case .costLimit: return costLimitExitCode
        case .deadline: return deadlineExitCode
        case .interrupted(let signal): return signal == "SIGTERM" ? 128 + 15 : 128 + 2
        }
    }

    /// Lists what `--offline` could not answer: the first 20, then a count.
    func reportNotStored(
        _ trials: [RunResults.TrialRow], endpoint: String, otherEndpoints: [(endpoint: String, answers: Int)] = [],
        otherProxy: String? = nil, promptChanges: [String] = []
    ) {
        var lines = ["--offline: \(trials.count) trial\(trials.count == 1 ? "" : "s") had no stored answer from \(endpoint):"]
        for trial in trials.prefix(20) {
            let limit = trial.maxTokens.map { " @ max_tokens \($0)" } ?? ""
            let repeatText = trial.repeatIndex > 0 ? " (repeat \(trial.repeatIndex + 1))" : ""
            lines.append("  \(trial.variant)\(limit) × \(trial.itemID)\(repeatText)")
        }
        if trials.count > 20 { lines.append("  … and \(trials.count - 20) more (the report lists them all)") }
        lines.append("Record them with a run that can reach the model (the same prompts, dataset and settings, without --offline).")
        lines.append(contentsOf: promptChanges)
        if let most = otherEndpoints.first {
            let listed = otherEndpoints.prefix(3).map { "\($0.endpoint) (\($0.answers) answer\($0.answers == 1 ? "" : "s"))" }
            let flags = otherProxy.map { "--proxy \($0)" } ?? AzureSettings.flags(forEndpoint: most.endpoint)
                ?? "--base-url \(Self.baseURL(ofEndpoint: most.endpoint))"
            lines.append("The store holds answers from \(listed.joined(separator: ", ")). The endpoint is part of each answer's cache key: to replay those, add \(flags).")
        }
        console.err(lines.joined(separator: "\n") + "\n")
    }
}
