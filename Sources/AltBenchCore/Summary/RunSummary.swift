import Foundation

/// Figures for one (variant, max_tokens) pair: the rows of the comparison table.
public struct SummaryRow: Sendable, Hashable {
    public var variant: String
    public var maxTokens: Int?
    /// Trials recorded for the pair (fewer than planned when the run stopped early).
    public var n: Int
    /// Trials that got no answer.
    public var errors: Int
    public var answered: Int
    public var meanChars: Double?
    public var p90Chars: Double?
    /// Shares of answered trials, 0...1.
    public var withinBudget: Double?
    public var firstPerson: Double?
    public var truncated: Double?
    public var refusals: Double?
    public var empty: Double?
    public var redundantPrefix: Double?
    public var meanBrevity: Double?
    public var meanCompletionTokens: Double?
    /// Median request latency of the answers, in milliseconds (cached answers keep theirs).
    public var p50LatencyMs: Double?
}

/// Aggregates a run's trials per (variant, max_tokens), in variant then token-limit order.
///
/// Rates count only answered trials: a failed request says nothing about the prompt.
/// Percentiles use the nearest-rank method, so each one is a value that occurred.
public struct RunSummary: Sendable, Hashable {
    public var rows: [SummaryRow]
    public var budget: Int

    public init(_ results: RunResults) {
        budget = results.info.settings["brevity_budget"]?.intValue ?? ScoringSettings().brevityBudget
        var order: [String: Int] = [:]
        for (index, variant) in results.variants.enumerated() { order[variant.name] = index }
        let groups = Dictionary(grouping: results.trials) { GroupKey(variant: $0.variant, maxTokens: $0.maxTokens) }
        let keys = groups.keys.sorted {
            let a = order[$0.variant] ?? Int.max, b = order[$1.variant] ?? Int.max
            if a != b { return a < b }
            if $0.variant != $1.variant { return $0.variant < $1.variant }
            return ($0.maxTokens ?? Int.max) < ($1.maxTokens ?? Int.max)
        }
        rows = keys.map { Self.row($0, trials: groups[$0]!) }
    }

    struct GroupKey: Hashable {
        var variant: String
        var maxTokens: Int?
    }

    static func row(_ key: GroupKey, trials: [RunResults.TrialRow]) -> SummaryRow {
        let answered = trials.filter { !$0.failed }
        func values(_ name: String) -> [Double] { answered.compactMap { $0.scores[name]?.value } }
        func rate(_ name: String) -> Double? {
            let flags = answered.compactMap { $0.scores[name] }
            guard !flags.isEmpty else { return nil }
            return Double(flags.filter(\.isFlagged).count) / Double(flags.count)
        }
        let chars = values(ScoreName.length)
        let budgetPasses = answered.compactMap { $0.scores[ScoreName.brevity]?.passed }
        return SummaryRow(
            variant: key.variant, maxTokens: key.maxTokens, n: trials.count, errors: trials.count - answered.count,
            answered: answered.count, meanChars: Stats.mean(chars), p90Chars: Stats.percentile(chars, 0.9),
            withinBudget: budgetPasses.isEmpty ? nil : Double(budgetPasses.filter { $0 }.count) / Double(budgetPasses.count),
            firstPerson: rate(ScoreName.firstPerson), truncated: rate(ScoreName.truncated),
            refusals: rate(ScoreName.refusal), empty: rate(ScoreName.empty),
            redundantPrefix: rate(ScoreName.redundantPrefix), meanBrevity: Stats.mean(values(ScoreName.brevity)),
            meanCompletionTokens: Stats.mean(answered.compactMap { $0.answer?.completionTokens.map(Double.init) }),
            p50LatencyMs: Stats.percentile(answered.compactMap { $0.answer?.latencyMs }, 0.5))
    }
}

/// Small statistics used by summaries.
public enum Stats {
    public static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// Nearest-rank percentile: the smallest value with at least `p` of the values at or below it.
    public static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
