import Foundation

/// A model's list prices in USD per million tokens.
public struct ModelPrice: Sendable, Hashable, Codable {
    public var input: Double
    /// Prompt tokens served from the provider's prompt cache; `nil` bills them as `input`.
    public var cachedInput: Double?
    public var output: Double

    public init(input: Double, cachedInput: Double? = nil, output: Double) {
        self.input = input
        self.cachedInput = cachedInput
        self.output = output
    }
}

/// Prices per model (`prices:` in altbench.yml over the built-in table) and the Batch API's
/// discount.
public struct PriceTable: Sendable, Hashable {
    /// Keyed by model name as written (`gpt-4o-mini`); dated snapshots and provider prefixes
    /// find their model (``price(forModel:)``).
    public var models: [String: ModelPrice]
    /// The share the Batch API takes off (0.5 for half price); `nil` when unknown.
    public var batchDiscount: Double?

    public init(models: [String: ModelPrice] = [:], batchDiscount: Double? = nil) {
        self.models = models
        self.batchDiscount = batchDiscount
    }
}

/// Tokens one answer used, as the server reported them.
public struct TokenUsage: Sendable, Hashable {
    public var promptTokens: Int
    /// Of `promptTokens`, those served from the prompt cache.
    public var cachedTokens: Int
    public var completionTokens: Int

    public init(promptTokens: Int, cachedTokens: Int = 0, completionTokens: Int) {
        self.promptTokens = promptTokens
        self.cachedTokens = cachedTokens
        self.completionTokens = completionTokens
    }
}
