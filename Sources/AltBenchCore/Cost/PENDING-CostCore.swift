// Signatures the cost helper implements; this file goes once they live in their own files.
import Foundation
import Yams

extension ImageTokenFamily {
    /// The families the formulas are known for, most specific name first where names share
    /// a prefix (gpt-4o-mini before gpt-4o).
    public static var known: [ImageTokenFamily] { fatalError("CostCore") }
    /// The family of `model`: exact name, dated snapshot (`gpt-4o-2024-08-06`), or with a
    /// provider prefix (`openai/gpt-4o`); `nil` when none matches.
    public static func forModel(_ model: String) -> ImageTokenFamily? { fatalError("CostCore") }
}

extension ImageTokenFormula {
    /// Tokens for an image of `width`×`height` pixels sent with `detail` (`nil` = auto).
    public func tokens(width: Int, height: Int, detail: ImageDetail?) -> Int { fatalError("CostCore") }
    /// The most an image can cost at `detail` (a remote image of unknown size).
    public func maximumTokens(detail: ImageDetail?) -> Int { fatalError("CostCore") }
}

extension PriceTable {
    /// The shipped prices (dated in the source).
    public static var builtIn: PriceTable { fatalError("CostCore") }
    /// The price of `model`: exact name, dated snapshot or provider prefix, as for formulas.
    public func price(forModel model: String) -> (name: String, price: ModelPrice)? { fatalError("CostCore") }
    /// This table with `overrides`' models and discount replacing its own.
    public func merging(_ overrides: PriceTable) -> PriceTable { fatalError("CostCore") }
    /// `prices:` in altbench.yml: `{MODEL: {input, cached_input, output}, batch_discount: 0.5}`.
    public static func parse(_ node: Node, line: Int?, displayPath: String) throws -> PriceTable { fatalError("CostCore") }
}

extension ModelPrice {
    /// USD for one answer's reported usage.
    public func cost(_ usage: TokenUsage) -> Double { fatalError("CostCore") }
    /// USD for `inputTokens` (uncached) and `outputTokens`.
    public func cost(inputTokens: Int, outputTokens: Int) -> Double { fatalError("CostCore") }
}

extension RequestEstimate {
    /// The output ceiling assumed for a request without max_tokens.
    public static var assumedOutputCeiling: Int { fatalError("CostCore") }
    /// The estimate for `request`, whose image is `width`×`height` (`nil` when unknown).
    public static func make(request: ModelRequest, imageWidth: Int?, imageHeight: Int?) -> RequestEstimate {
        fatalError("CostCore")
    }
}

extension CostPlan {
    /// The plan of `trials`: `cachedKeys` are the cache keys the store answers (empty with
    /// `--no-cache`); with `sendsNothing` (`--offline`) nothing is to send.
    public static func make(trials: [Trial], cachedKeys: Set<String>, prices: PriceTable, sendsNothing: Bool = false)
        -> CostPlan
    { fatalError("CostCore") }
}
