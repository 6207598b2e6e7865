import Foundation

/// Which items' repeats disagree, per (variant, max_tokens): asked the same question several
/// times (`--repeats N`), the model passed a check on some answers and failed it on others.
/// A prompt whose verdicts flip between repeats needs more repeats before a comparison means
/// much.
package struct RepeatInstability: Sendable, Hashable {
    package struct Item: Sendable, Hashable {
        package var id: String
        /// Each disagreeing check with the share of answered repeats that passed it.
        package var checks: [(id: String, passed: Double)]

        package static func == (a: Item, b: Item) -> Bool {
            a.id == b.id && a.checks.map(\.id) == b.checks.map(\.id) && a.checks.map(\.passed) == b.checks.map(\.passed)
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            for check in checks {
                hasher.combine(check.id)
                hasher.combine(check.passed)
            }
        }
    }

    package struct Row: Sendable, Hashable {
        package var variant: String
        package var maxTokens: Int?
        /// Items with at least two answered repeats.
        package var repeatedItems: Int
        /// Those of them whose repeats disagree on a check, in item order.
        package var unstable: [Item]
    }

    /// The most repeats any trial of the run has.
    package var repeats: Int
    /// One row per pair, in the summary's order.
    package var rows: [Row]

    package init(_ results: RunResults, summary: RunSummary) {
        repeats = (results.trials.map(\.repeatIndex).max() ?? 0) + 1
        var order: [String: Int] = [:]
        for (index, item) in results.items.enumerated() { order[item.id] = index }
        var groups: [RunSummary.GroupKey: [String: [RunResults.TrialRow]]] = [:]
        for trial in results.trials where !trial.failed {
            groups[RunSummary.GroupKey(variant: trial.variant, maxTokens: trial.maxTokens), default: [:]][
                trial.itemID, default: []
            ].append(trial)
        }
        rows = summary.rows.map { row in
            let items = groups[RunSummary.GroupKey(variant: row.variant, maxTokens: row.maxTokens)] ?? [:]
            let repeated = items.filter { $0.value.count > 1 }
            let unstable = repeated.keys.sorted { (order[$0] ?? .max, $0) < (order[$1] ?? .max, $1) }.compactMap { id -> Item? in
                let answers = repeated[id]!
                let checks = ScoringSettings.checkIDs.compactMap { check -> (id: String, passed: Double)? in
                    let passes = answers.compactMap { $0.scores[check]?.passed }
                    let passed = passes.filter { $0 }.count
                    guard passed > 0, passed < passes.count else { return nil }
                    return (check, Double(passed) / Double(passes.count))
                }
                return checks.isEmpty ? nil : Item(id: id, checks: checks)
            }
            return Row(variant: row.variant, maxTokens: row.maxTokens, repeatedItems: repeated.count, unstable: unstable)
        }
    }
}
