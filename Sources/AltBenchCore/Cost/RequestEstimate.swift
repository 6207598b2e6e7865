import Foundation

/// What an estimate had to assume; a plan lists each kind once.
public enum EstimateAssumption: Sendable, Hashable, CustomStringConvertible {
    /// A remote image of unknown size, counted at the most its formula can charge.
    case unknownImageSize(model: String)
    /// A model no image formula is known for, counted with another family's formula.
    case unknownModelFamily(model: String, assumed: String)
    /// `detail: auto` (or none sent), counted as `high`: the most the model may charge.
    case detailAutoCountedAsHigh
    /// A patch model, whose image count `detail` does not change.
    case detailIgnoredByPatchModel(model: String)
    /// A request without max_tokens, whose output is counted at an assumed ceiling.
    case noMaxTokens(assumedCeiling: Int)
    /// Text tokens come from an approximate tokenizer, not the model's own.
    case textTokensApproximate

    public var description: String { fatalError("CostCore: description") }
}

/// The tokens one request is expected to use: text and image input, and the output ceiling.
public struct RequestEstimate: Sendable, Hashable {
    /// Prompt, system message and per-message overhead, estimated.
    public var textTokens: Int
    /// By the model family's formula from the image's width, height and `detail`.
    public var imageTokens: Int
    /// `max_tokens`, or the assumed ceiling when the request has none.
    public var outputTokensMax: Int
    /// What this estimate had to assume.
    public var assumptions: [EstimateAssumption]

    public init(textTokens: Int, imageTokens: Int, outputTokensMax: Int, assumptions: [EstimateAssumption] = []) {
        self.textTokens = textTokens
        self.imageTokens = imageTokens
        self.outputTokensMax = outputTokensMax
        self.assumptions = assumptions
    }

    public var inputTokens: Int { textTokens + imageTokens }
}
