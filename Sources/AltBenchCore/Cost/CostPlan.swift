import Foundation

/// What a run would send and spend, worked out before anything is sent (`altbench plan`,
/// and `run`'s `--max-cost` check).
public struct CostPlan: Sendable, Hashable {
    /// One (variant, max_tokens) pair of the plan.
    public struct Pair: Sendable, Hashable {
        public var variant: String
        public var maxTokens: Int?
        /// The model the pair's requests name (the first, if its trials name several).
        public var model: String
        public var trials: Int
        /// Trials the store already answers (0 with `--no-cache`).
        public var cached: Int
        /// Requests a run would send: trials neither cached nor unsendable (a bad image).
        public var toSend: Int
        /// Estimated input tokens of the requests to send: text (estimated) plus image tokens.
        public var inputTokens: Int
        /// The image tokens within `inputTokens`.
        public var imageTokens: Int
        /// max_tokens × requests to send: the most the answers can bill.
        public var outputTokensMax: Int
        /// USD with every answer empty (input only) and with every answer at its ceiling;
        /// `nil` when the model has no price.
        public var costLow: Double?
        public var costHigh: Double?

        public init(
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
    public struct ItemCost: Sendable, Hashable {
        public var id: String
        public var model: String
        /// `nil` for a remote image of unknown size.
        public var width: Int?
        public var height: Int?
        /// `low`, `high` or `auto` (`auto` when the request sends none).
        public var detail: String
        public var imageTokens: Int

        public init(id: String, model: String, width: Int?, height: Int?, detail: String, imageTokens: Int) {
            self.id = id
            self.model = model
            self.width = width
            self.height = height
            self.detail = detail
            self.imageTokens = imageTokens
        }
    }

    public var pairs: [Pair]
    public var items: [ItemCost]
    /// Each kind of assumption once, as sentences.
    public var assumptions: [String]
    /// Models requests would go to that have no price: their pairs show tokens and no cost.
    public var unpricedModels: [String]
    /// The Batch API's discount, when the price table has one (for the "with the Batch API" line).
    public var batchDiscount: Double?

    public init(
        pairs: [Pair], items: [ItemCost], assumptions: [String], unpricedModels: [String], batchDiscount: Double?
    ) {
        self.pairs = pairs
        self.items = items
        self.assumptions = assumptions
        self.unpricedModels = unpricedModels
        self.batchDiscount = batchDiscount
    }

    public var trials: Int { pairs.reduce(0) { $0 + $1.trials } }
    public var cached: Int { pairs.reduce(0) { $0 + $1.cached } }
    public var toSend: Int { pairs.reduce(0) { $0 + $1.toSend } }
    public var inputTokens: Int { pairs.reduce(0) { $0 + $1.inputTokens } }
    public var imageTokens: Int { pairs.reduce(0) { $0 + $1.imageTokens } }
    public var outputTokensMax: Int { pairs.reduce(0) { $0 + $1.outputTokensMax } }

    /// The total's range; `nil` when any pair with requests to send has no price (a total
    /// that left them out would understate the cost).
    public var costLow: Double? { total(\.costLow) }
    public var costHigh: Double? { total(\.costHigh) }

    private func total(_ part: KeyPath<Pair, Double?>) -> Double? {
        var sum = 0.0
        for pair in pairs where pair.toSend > 0 {
            guard let cost = pair[keyPath: part] else { return nil }
            sum += cost
        }
        return sum
    }
}
