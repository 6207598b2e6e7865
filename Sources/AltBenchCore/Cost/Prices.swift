import Foundation

/// A model's list prices in USD per million tokens.
public struct ModelPrice: Sendable, Hashable, Codable {
    public var input: Double
    /// Prompt tokens served from the provider's prompt cache; `nil` bills them as `input`.
    public var cachedInput: Double?
    public var output: Double
    /// The Batch API's own prices (`batch_input`, `batch_output`); `nil` takes the table's
    /// ``PriceTable/batchDiscount`` off the standard prices.
    public var batchInput: Double?
    public var batchOutput: Double?

    public init(input: Double, cachedInput: Double? = nil, output: Double, batchInput: Double? = nil, batchOutput: Double? = nil) {
        self.input = input
        self.cachedInput = cachedInput
        self.output = output
        self.batchInput = batchInput
        self.batchOutput = batchOutput
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

extension PriceTable {
    /// The shipped prices (dated in the source).
    ///
    /// OpenAI list prices as published at platform.openai.com/docs/pricing, 2025-08, standard
    /// tier, USD per million tokens (input / cached input / output); check before relying on
    /// them, and override in altbench.yml under `prices:`. A model missing here has no price:
    /// a plan shows its tokens and no cost rather than a guess.
    public static var builtIn: PriceTable { shipped }

    private static let shipped = PriceTable(
        models: [
            "gpt-4o": ModelPrice(input: 2.50, cachedInput: 1.25, output: 10.00),
            "gpt-4o-2024-05-13": ModelPrice(input: 5.00, output: 15.00),
            "gpt-4o-mini": ModelPrice(input: 0.15, cachedInput: 0.075, output: 0.60),
            "gpt-4.1": ModelPrice(input: 2.00, cachedInput: 0.50, output: 8.00),
            "gpt-4.1-mini": ModelPrice(input: 0.40, cachedInput: 0.10, output: 1.60),
            "gpt-4.1-nano": ModelPrice(input: 0.10, cachedInput: 0.025, output: 0.40),
            "gpt-4.5-preview": ModelPrice(input: 75.00, cachedInput: 37.50, output: 150.00),
            "o1": ModelPrice(input: 15.00, cachedInput: 7.50, output: 60.00),
            "o1-pro": ModelPrice(input: 150.00, output: 600.00),
            "o3": ModelPrice(input: 2.00, cachedInput: 0.50, output: 8.00),
            "o3-pro": ModelPrice(input: 20.00, output: 80.00),
            "o3-mini": ModelPrice(input: 1.10, cachedInput: 0.55, output: 4.40),
            "o4-mini": ModelPrice(input: 1.10, cachedInput: 0.275, output: 4.40),
            "gpt-5": ModelPrice(input: 1.25, cachedInput: 0.125, output: 10.00),
            "gpt-5-mini": ModelPrice(input: 0.25, cachedInput: 0.025, output: 2.00),
            "gpt-5-nano": ModelPrice(input: 0.05, cachedInput: 0.005, output: 0.40),
        ],
        batchDiscount: 0.5)

    /// The price of `model`: exact name, dated snapshot or provider prefix, as for formulas.
    ///
    /// Matching is ``ModelNameMatch``'s: case-insensitive, provider prefix dropped, the exact
    /// name first (`gpt-4o-2024-05-13` has its own price), else the longest table name the
    /// model starts with followed by `-`. `name` is the table's key as written. `nil` when no
    /// name matches: a price is never guessed.
    /// What a request through the Batch API costs: the model's `batch_input`/`batch_output`
    /// where `prices:` gives them (cached prompt tokens then billed as batch input), else the
    /// table's discount off every standard price; `nil` when neither is known.
    public func batchPrice(of price: ModelPrice) -> ModelPrice? {
        if let input = price.batchInput, let output = price.batchOutput {
            return ModelPrice(input: input, output: output)
        }
        guard let discount = batchDiscount else { return nil }
        let factor = 1 - discount
        return ModelPrice(input: price.input * factor, cachedInput: price.cachedInput.map { $0 * factor }, output: price.output * factor)
    }

    /// The table a run through the Batch API is priced by: each model at its batch price
    /// (``batchPrice(of:)``); a model with none is left unpriced.
    public var batchTable: PriceTable {
        PriceTable(models: models.compactMapValues { batchPrice(of: $0) }, batchDiscount: nil)
    }

    public func price(forModel model: String) -> (name: String, price: ModelPrice)? {
        // Sorted, so that two keys differing only in case resolve the same way every time.
        guard let name = ModelNameMatch.best(for: model, among: models.keys.sorted()), let price = models[name] else {
            return nil
        }
        return (name, price)
    }

    /// This table with `overrides`' models and discount replacing its own.
    ///
    /// An override replaces the table's entry of the same model whatever its case or
    /// provider prefix (`GPT-4o` in altbench.yml replaces the built-in `gpt-4o`), so one
    /// model never has two prices.
    public func merging(_ overrides: PriceTable) -> PriceTable {
        let replaced = Set(overrides.models.keys.map(ModelNameMatch.normalized))
        var models = self.models.filter { !replaced.contains(ModelNameMatch.normalized($0.key)) }
        models.merge(overrides.models) { _, override in override }
        return PriceTable(models: models, batchDiscount: overrides.batchDiscount ?? batchDiscount)
    }
}

extension ModelPrice {
    /// USD for one answer's reported usage.
    ///
    /// Cached prompt tokens are billed at `cachedInput` (at `input` when the model has no
    /// cached price), the rest of the prompt at `input`. A cached count outside 0...prompt,
    /// which no server reports, is clamped so the cost cannot go negative.
    public func cost(_ usage: TokenUsage) -> Double {
        let prompt = max(0, usage.promptTokens)
        let cached = min(max(0, usage.cachedTokens), prompt)
        let dollars =
            Double(prompt - cached) * input + Double(cached) * (cachedInput ?? input)
            + Double(max(0, usage.completionTokens)) * output
        return dollars / 1_000_000
    }

    /// USD for `inputTokens` (uncached) and `outputTokens`.
    public func cost(inputTokens: Int, outputTokens: Int) -> Double {
        (Double(inputTokens) * input + Double(outputTokens) * output) / 1_000_000
    }
}
