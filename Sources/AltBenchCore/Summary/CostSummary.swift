import Foundation

/// What a run's requests used and cost, per (variant, max_tokens) pair and in total, with
/// notes that say how to read the figures: the cost section of every report.
///
/// Only requests that were sent count: an answer from the store sent nothing and cost
/// nothing, and a failed trial reported nothing. Reported tokens are summed over the sent
/// requests that reported them, and the plan's estimate over the same requests, so
/// reported ÷ estimated compares like for like. A cost is a sum only when every sent request
/// has one: a total that left some out would understate what was spent.
package struct CostSummary: Sendable, Hashable {
    /// Counts, token sums and cost over a group of trials (a pair, or the whole run).
    package struct Figures: Sendable, Hashable {
        package var trials = 0
        /// Requests sent and answered: answered trials not taken from the store.
        package var sent = 0
        /// Trials answered from the store: no request, no cost.
        package var fromStore = 0
        package var failed = 0
        /// Sums over the sent requests that reported each figure; `nil` when none did.
        package var promptTokens: Int?
        package var completionTokens: Int?
        package var cachedTokens: Int?
        package var imageTokens: Int?
        package var reasoningTokens: Int?
        /// The plan's input estimate, summed over the sent requests that reported prompt tokens
        /// and carry an estimate; `nil` when none does.
        package var estimatedInputTokens: Int?
        /// The image part of ``estimatedInputTokens``, over the same requests.
        package var estimatedImageTokens: Int?
        /// The reported prompt tokens of exactly the requests ``estimatedInputTokens`` covers:
        /// the numerator of ``ratio`` (equal to ``promptTokens`` when every request that
        /// reported usage has an estimate).
        package var comparedPromptTokens: Int?
        /// Sent requests that reported neither prompt nor completion tokens.
        package var withoutUsage = 0
        /// USD the group's requests cost; `nil` when a sent request has no cost (no price, or
        /// no usage reported), or when the run recorded no cost at all.
        package var costUSD: Double?
        /// Sent requests without a cost.
        package var withoutCost = 0

        package init() {}

        /// Reported prompt tokens ÷ estimated input tokens over the same requests; `nil`
        /// without an estimate.
        package var ratio: Double? {
            guard let estimated = estimatedInputTokens, estimated > 0, let reported = comparedPromptTokens else {
                return nil
            }
            return Double(reported) / Double(estimated)
        }

        /// The figures of `trials`.
        init(_ trials: [RunResults.TrialRow]) {
            self.trials = trials.count
            func add(_ sum: inout Int?, _ value: Int?) {
                if let value { sum = (sum ?? 0) + value }
            }
            var cost = 0.0
            var anyCost = false
            for trial in trials {
                if let costUSD = trial.costUSD {
                    cost += costUSD
                    anyCost = true
                }
                guard let answer = trial.answer else {
                    failed += 1
                    continue
                }
                if trial.cached {
                    fromStore += 1
                    continue
                }
                sent += 1
                if trial.costUSD == nil { withoutCost += 1 }
                if answer.promptTokens == nil && answer.completionTokens == nil { withoutUsage += 1 }
                add(&promptTokens, answer.promptTokens)
                add(&completionTokens, answer.completionTokens)
                add(&cachedTokens, answer.cachedTokens)
                add(&imageTokens, answer.imageTokens)
                add(&reasoningTokens, answer.reasoningTokens)
                if let reported = answer.promptTokens, let estimated = trial.estimatedInputTokens {
                    add(&comparedPromptTokens, reported)
                    add(&estimatedInputTokens, estimated)
                    add(&estimatedImageTokens, trial.estimatedImageTokens)
                }
            }
            costUSD = withoutCost == 0 && anyCost ? cost : nil
        }
    }

    /// One (variant, max_tokens) pair; its figures read through (`pair.sent`).
    @dynamicMemberLookup
    package struct Pair: Sendable, Hashable {
        package var variant: String
        package var maxTokens: Int?
        /// The models the pair's trials named, by name (one, unless the run mixed them).
        package var models: [String]
        package var figures: Figures

        package init(variant: String, maxTokens: Int?, models: [String], figures: Figures) {
            self.variant = variant
            self.maxTokens = maxTokens
            self.models = models
            self.figures = figures
        }

        /// The models as one name for a table cell: "gpt-4o-mini", "gpt-4o, gpt-4o-mini".
        package var model: String? { models.isEmpty ? nil : models.joined(separator: ", ") }

        package subscript<T>(dynamicMember path: KeyPath<Figures, T>) -> T { figures[keyPath: path] }
    }

    /// In the run's variant order, then by token limit (as ``RunSummary`` orders its rows).
    package var pairs: [Pair]
    package var total: Figures
    /// Whether the run used the offline mock: nothing was billed, costs are at list prices.
    package var isMock: Bool
    /// `max_cost` when the run had a spending limit, in USD.
    package var maxCostUSD: Double?
    /// Sentences on how to read the figures: the mock, models without a price, estimates
    /// that missed by more than 10% (``missesEstimate(reported:estimated:)``), the spending limit.
    package var notes: [String]

    /// Whether reported prompt tokens differ from the estimate by more than 10% of it, either
    /// way: then a note names the pair. In whole numbers, so exactly 10% is not a miss.
    package static func missesEstimate(reported: Int, estimated: Int) -> Bool {
        abs(reported - estimated) * 10 > estimated
    }

    package init(pairs: [Pair], total: Figures, isMock: Bool, maxCostUSD: Double?, notes: [String]) {
        self.pairs = pairs
        self.total = total
        self.isMock = isMock
        self.maxCostUSD = maxCostUSD
        self.notes = notes
    }

    /// The summary of `results`; `nil` when no trial holds any usage, estimate or cost (a
    /// scored file, or a run whose answers reported nothing), so reports leave the section out
    /// rather than show zeros that look like data.
    package static func make(_ results: RunResults) -> CostSummary? {
        let holdsAny = results.trials.contains { trial in
            if trial.estimatedInputTokens != nil || trial.estimatedImageTokens != nil || trial.costUSD != nil { return true }
            guard let answer = trial.answer else { return false }
            return answer.promptTokens != nil || answer.completionTokens != nil || answer.cachedTokens != nil
                || answer.imageTokens != nil
        }
        guard holdsAny else { return nil }

        let pairs = results.trialsByPair().map { group in
            Pair(
                variant: group.key.variant, maxTokens: group.key.maxTokens,
                models: Set(group.trials.compactMap(\.model)).sorted(), figures: Figures(group.trials))
        }
        let total = Figures(results.trials)
        let maxCost = results.info.settings["max_cost"]?.doubleValue
        let notes = Self.notes(results, pairs: pairs, total: total, maxCost: maxCost)
        return CostSummary(pairs: pairs, total: total, isMock: results.info.isMock, maxCostUSD: maxCost, notes: notes)
    }

    // MARK: - Notes

    private static func notes(_ results: RunResults, pairs: [Pair], total: Figures, maxCost: Double?) -> [String] {
        var notes: [String] = []
        let sent = results.trials.filter { !$0.failed && !$0.cached }
        // Runs stored before altbench recorded estimates and costs still have the tokens the
        // server reported: say why the rest is empty rather than leave it to guesswork.
        let recordsCost = results.trials.contains { $0.costUSD != nil || $0.estimatedInputTokens != nil }
            || results.info.settings["prices"] != nil
        if !recordsCost {
            notes.append(
                "This run was stored before altbench recorded estimates and costs: the tokens are what the server reported, with no estimate or price to set them against.")
        }
        // Models with a price: those the run recorded one for, and any whose requests have a cost.
        var priced = Set(results.info.settings["prices"]?.objectValue?.keys.map { $0 } ?? [])
        for trial in sent where trial.costUSD != nil {
            if let model = trial.model { priced.insert(model) }
        }

        let batched = sent.filter { $0.batchID != nil }
        if !batched.isEmpty {
            let batches = Set(batched.compactMap(\.batchID)).count
            notes.append(
                "\(batched.count == sent.count ? "Every request" : "\(batched.count) of the \(sent.count) requests") went through the Batch API (\(batches) batch\(batches == 1 ? "" : "es"); `altbench batches \(results.info.id)` lists them) and \(batched.count == 1 ? "is" : "are") priced at the batch price.")
        }

        if results.info.isMock {
            let models = priced.intersection(Set(sent.compactMap(\.model))).sorted()
            if models.isEmpty {
                notes.append("The mock bills nothing.")
            } else {
                notes.append(
                    "The mock bills nothing: the costs are what \(list(models)) would charge at list prices for the mock's token counts.")
            }
            if total.ratio != nil {
                notes.append(
                    "The mock reports altbench's own estimate as its usage, so reported/estimated is 1.00× by construction and does not test the estimate; a real server's counts do.")
            }
        }

        if recordsCost {
            let unknown = sent.filter { $0.costUSD == nil }
            func isUnpriced(_ trial: RunResults.TrialRow) -> Bool { trial.model.map { !priced.contains($0) } ?? false }
            let unpriced = unknown.filter(isUnpriced)
            let unpricedModels = Set(unpriced.compactMap(\.model)).sorted()
            if !unpricedModels.isEmpty {
                let have = unpricedModels.count == 1 ? "has" : "have"
                let their = unpricedModels.count == 1 ? "its" : "their"
                notes.append(
                    "\(list(unpricedModels)) \(have) no price, so the cost of \(their) \(requests(unpriced.count)) is unknown and the run has no total cost: give \(unpricedModels.count == 1 ? "it" : "them") a price under prices: in altbench.yml (USD per million tokens: input, cached_input, output).")
            }
            // Priced requests without a cost reported no usage; named by pair, in table order.
            let withoutUsage = Dictionary(grouping: unknown.filter { !isUnpriced($0) }) {
                RunSummary.GroupKey(variant: $0.variant, maxTokens: $0.maxTokens)
            }
            let noUsage = pairs.compactMap { pair -> String? in
                guard let count = withoutUsage[RunSummary.GroupKey(variant: pair.variant, maxTokens: pair.maxTokens)]?.count else { return nil }
                return "\(requests(count)) of \(pairName(pair))"
            }
            if !noUsage.isEmpty {
                let one = noUsage.count == 1 && noUsage[0].hasPrefix("1 request ")
                notes.append(
                    "\(list(noUsage)) reported no usage, so \(one ? "its" : "their") cost is unknown and the run has no total cost.")
            }
        }

        if !results.info.isMock {
            for pair in pairs {
                guard let ratio = pair.ratio, let reported = pair.comparedPromptTokens,
                    let estimated = pair.estimatedInputTokens, missesEstimate(reported: reported, estimated: estimated)
                else { continue }
                let model = pair.model ?? "this model"
                notes.append(
                    "\(pairName(pair)): the server counted \(count(reported)) prompt tokens where altbench estimated \(count(estimated)) (\(Self.ratio(ratio))): the image formula may not fit \(model), or the server resizes images.")
            }
        }

        if let maxCost {
            let limit = "The spending limit was \(usd(maxCost))"
            if let spent = total.costUSD {
                let share = maxCost > 0 ? " (\(percent(spent / maxCost)))" : ""
                notes.append(
                    results.info.isMock
                        ? "\(limit): at list prices the run would have used \(usd(spent)) of it\(share)."
                        : "\(limit): the run used \(usd(spent)) of it\(share).")
            } else if total.withoutCost > 0 {
                notes.append(
                    "\(limit): how much of it the run used is unknown, since \(requests(total.withoutCost)) \(total.withoutCost == 1 ? "has" : "have") no cost.")
            } else {
                notes.append("\(limit): how much of it the run used is unknown, since no request recorded a cost.")
            }
        }
        return notes
    }

    /// "short (max_tokens 60)", "plain (no max_tokens)".
    static func pairName(_ pair: Pair) -> String {
        "\(pair.variant) (\(pair.maxTokens.map { "max_tokens \($0)" } ?? "no max_tokens"))"
    }

    static func requests(_ n: Int) -> String { n == 1 ? "1 request" : "\(count(n)) requests" }

    static func list(_ names: [String]) -> String {
        switch names.count {
        case 0: ""
        case 1: names[0]
        default: names.dropLast().joined(separator: ", ") + " and " + names.last!
        }
    }

    static func percent(_ share: Double) -> String {
        let value = share * 100
        if value > 0 && value < 0.5 { return "<1%" }
        return "\(Int(value.rounded()))%"
    }
}

// MARK: - Formatting

extension CostSummary {
    /// An amount in USD as JSON carries it: rounded to a ten-billionth of a dollar, so sums
    /// of per-token prices print as 0.0721026, not 0.07210259999999999.
    package static func roundedUSD(_ amount: Double) -> Double {
        guard amount.isFinite else { return amount }
        return (amount * 1e10).rounded() / 1e10
    }

    /// USD as a reader wants it: cents from a dollar up, with thousands separators
    /// ("$1,234.50", "$1.27"), and two significant digits below a dollar, so a small sum is not
    /// rounded away ("$0.42", "$0.042", "$0.0042"); below a millionth, "<$0.000001".
    ///
    /// The one money format of every report, note and plan (``AltBenchReport``'s `Format.usd`
    /// calls it), so a figure reads the same wherever it appears.
    package static func usd(_ amount: Double) -> String {
        guard amount.isFinite else { return "–" }
        let sign = amount < 0 ? "-" : ""
        let magnitude = abs(amount)
        if magnitude == 0 { return "$0.00" }
        var decimals = 2
        if magnitude < 1 {
            func digits(_ value: Double) -> Int { max(2, 1 - Int(floor(log10(value)))) }
            decimals = digits(magnitude)
            // Rounding can reach the next power of ten (0.00999 → 0.0100): count again.
            let scale = pow(10, Double(decimals))
            let rounded = (magnitude * scale).rounded() / scale
            if rounded > 0 { decimals = digits(rounded) }
            if decimals > 6 {
                return magnitude < 0.000_000_5 ? "\(sign)<$0.000001" : "\(sign)$" + String(format: "%.6f", magnitude)
            }
        }
        let text = String(format: "%.\(decimals)f", magnitude)
        let parts = text.split(separator: ".", maxSplits: 1)
        let whole = Int(parts[0]).map(count) ?? String(parts[0])
        return "\(sign)$\(whole)" + (parts.count > 1 ? ".\(parts[1])" : "")
    }

    /// A whole number with thousands separators: "25,890".
    package static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// Reported ÷ estimated: "1.02×", "0.45×", "12.3×" (one decimal from ten up).
    package static func ratio(_ value: Double) -> String {
        guard value.isFinite else { return "–" }
        return String(format: value >= 9.995 ? "%.1f" : "%.2f", value) + "×"
    }
}
