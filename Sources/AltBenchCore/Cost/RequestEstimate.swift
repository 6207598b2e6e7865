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

    /// One plain sentence for the plan. A plan that counts how often an assumption was made
    /// words it itself (``CostPlan/make(trials:cachedKeys:prices:sendsNothing:)``).
    public var description: String {
        switch self {
        case .unknownImageSize(let model):
            return "A remote image of unknown size is counted at the most \(Self.formulaOwner(model)) can charge for one image."
        case .unknownModelFamily(let model, let assumed):
            return "No image formula is known for \(model); its images are counted with \(assumed)'s."
        case .detailAutoCountedAsHigh:
            return "Images sent with detail auto (or no detail) are counted as detail high, the most the model may charge."
        case .detailIgnoredByPatchModel(let model):
            return "\(model) counts images in 32-pixel patches whatever the detail, so detail low does not lower its count."
        case .noMaxTokens(let ceiling):
            return "A request without max_tokens is counted at \(Self.grouped(ceiling)) output tokens; its answer can be longer."
        case .textTokensApproximate:
            return "Text tokens are estimated (about one per word or punctuation mark), not counted with the model's tokenizer; image tokens follow the model's published formula."
        }
    }

    /// "gpt-4o", or "gpt-4o's formula" for a model counted with another family's formula.
    static func formulaOwner(_ model: String) -> String {
        ImageTokenFamily.forModel(model) == nil ? "\(ImageTokenFamily.fallback.name)'s formula" : model
    }

    /// 1445 as "1,445": counts in sentences read like the rest of the plan.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return number < 0 ? "-" + out : out
    }
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

extension RequestEstimate {
    /// The output ceiling assumed for a request without max_tokens.
    ///
    /// Such an answer can run to the model's own limit, which no table here knows; 1,000
    /// tokens is well above any alt text, and the plan says it was assumed.
    public static var assumedOutputCeiling: Int { 1000 }

    /// Tokens each chat message adds around its content, and those that prime the reply
    /// (OpenAI's published chat overhead).
    static let tokensPerMessage = 3
    static let replyPriming = 3

    /// The estimate for `request`, whose image is `width`×`height` (`nil` when unknown).
    ///
    /// Text: the prompt and system message by ``ApproximateTokenizer``, plus 3 tokens per
    /// message and 3 for the reply. Image: the model family's formula (gpt-4o's for an
    /// unknown model), at the formula's maximum when the size is unknown (a remote image).
    /// Output: max_tokens, else ``assumedOutputCeiling``. Each fallback is recorded as an
    /// assumption.
    public static func make(request: ModelRequest, imageWidth: Int?, imageHeight: Int?) -> RequestEstimate {
        var assumptions: [EstimateAssumption] = [.textTokensApproximate]

        let messages = request.system == nil ? 1 : 2
        let text =
            ApproximateTokenizer.count(request.prompt) + ApproximateTokenizer.count(request.system ?? "")
            + tokensPerMessage * messages + replyPriming

        let family: ImageTokenFamily
        if let known = ImageTokenFamily.forModel(request.model) {
            family = known
        } else {
            family = .fallback
            assumptions.append(.unknownModelFamily(model: request.model, assumed: family.name))
        }
        switch (family.formula, request.detail) {
        case (.tiles, nil), (.tiles, .auto?): assumptions.append(.detailAutoCountedAsHigh)
        case (.patches, .low?): assumptions.append(.detailIgnoredByPatchModel(model: request.model))
        default: break
        }
        let image: Int
        if let imageWidth, let imageHeight {
            image = family.formula.tokens(width: imageWidth, height: imageHeight, detail: request.detail)
        } else {
            image = family.formula.maximumTokens(detail: request.detail)
            assumptions.append(.unknownImageSize(model: request.model))
        }

        let output: Int
        if let maxTokens = request.maxTokens {
            output = maxTokens
        } else {
            output = assumedOutputCeiling
            assumptions.append(.noMaxTokens(assumedCeiling: output))
        }
        return RequestEstimate(textTokens: text, imageTokens: image, outputTokensMax: output, assumptions: assumptions)
    }
}
