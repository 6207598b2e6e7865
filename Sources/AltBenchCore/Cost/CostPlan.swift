import Foundation

/// What a run would send and spend, worked out before anything is sent (`altbench plan`,
/// and `run`'s `--max-cost` check).
package struct CostPlan: Sendable, Hashable {
    /// One (variant, max_tokens) pair of the plan.
    package struct Pair: Sendable, Hashable {
        package var variant: String
        package var maxTokens: Int?
        /// The model the pair's requests name (the first, if its trials name several).
        package var model: String
        package var trials: Int
        /// Trials the store already answers (0 with `--no-cache`).
        package var cached: Int
        /// Requests a run would send: trials neither cached nor unsendable (a bad image).
        package var toSend: Int
        /// Estimated input tokens of the requests to send: text (estimated) plus image tokens.
        package var inputTokens: Int
        /// The image tokens within `inputTokens`.
        package var imageTokens: Int
        /// max_tokens × requests to send: the most the answers can bill.
        package var outputTokensMax: Int
        /// USD with every answer empty (input only) and with every answer at its ceiling;
        /// `nil` when the model has no price.
        package var costLow: Double?
        package var costHigh: Double?

        package init(
            variant: String, maxTokens: Int?, model: String, trials: Int, cached: Int, toSend: Int, inputTokens: Int,
            imageTokens: Int, outputTokensMax: Int, costLow: Double?, costHigh: Double?
        ) {
            self.variant = variant
            self.maxTokens = maxTokens
            self.model = model
            self.trials = trials
            self.cached = cached
            self.toSend = toSend
            self.inputTokens = inputTokens
            self.imageTokens = imageTokens
            self.outputTokensMax = outputTokensMax
            self.costLow = costLow
            self.costHigh = costHigh
        }
    }

    /// One image as one model sees it at one detail.
    package struct ItemCost: Sendable, Hashable {
        package var id: String
        package var model: String
        /// `nil` for a remote image of unknown size.
        package var width: Int?
        package var height: Int?
        /// `low`, `high` or `auto` (`auto` when the request sends none).
        package var detail: String
        package var imageTokens: Int

        package init(id: String, model: String, width: Int?, height: Int?, detail: String, imageTokens: Int) {
            self.id = id
            self.model = model
            self.width = width
            self.height = height
            self.detail = detail
            self.imageTokens = imageTokens
        }
    }

    package var pairs: [Pair]
    package var items: [ItemCost]
    /// Each kind of assumption once, as sentences.
    package var assumptions: [String]
    /// Models requests would go to that have no price: their pairs show tokens and no cost.
    package var unpricedModels: [String]
    /// The Batch API's discount, when the price table has one (for the "with the Batch API" line).
    package var batchDiscount: Double?

    package init(
        pairs: [Pair], items: [ItemCost], assumptions: [String], unpricedModels: [String], batchDiscount: Double?
    ) {
        self.pairs = pairs
        self.items = items
        self.assumptions = assumptions
        self.unpricedModels = unpricedModels
        self.batchDiscount = batchDiscount
    }

    package var trials: Int { pairs.reduce(0) { $0 + $1.trials } }
    package var cached: Int { pairs.reduce(0) { $0 + $1.cached } }
    package var toSend: Int { pairs.reduce(0) { $0 + $1.toSend } }
    package var inputTokens: Int { pairs.reduce(0) { $0 + $1.inputTokens } }
    package var imageTokens: Int { pairs.reduce(0) { $0 + $1.imageTokens } }
    package var outputTokensMax: Int { pairs.reduce(0) { $0 + $1.outputTokensMax } }

    /// The total's range; `nil` when any pair with requests to send has no price (a total
    /// that left them out would understate the cost).
    package var costLow: Double? { total(\.costLow) }
    package var costHigh: Double? { total(\.costHigh) }

    private func total(_ part: KeyPath<Pair, Double?>) -> Double? {
        var sum = 0.0
        for pair in pairs where pair.toSend > 0 {
            guard let cost = pair[keyPath: part] else { return nil }
            sum += cost
        }
        return sum
    }
}
