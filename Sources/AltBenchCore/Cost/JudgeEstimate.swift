import Foundation

/// What judging a run's answers would send and cost: one call per answer and repeat, each
/// the rubric, the post, the answer and the same image, by the judge model's own image rule.
///
/// The answers do not exist yet when a run is planned, so the range runs from empty answers
/// (low) to answers at their token ceiling (high; 1,000 tokens without a limit), with the
/// judge's output empty (low) or at its `max_tokens` (high). Every trial is counted as
/// answered, and none as judged already: judging stored answers again costs nothing, but
/// which answers a run will store cannot be known in advance.
package struct JudgeEstimate: Sendable, Hashable {
    package var model: String
    /// Calls: trials × repeats.
    package var calls: Int
    package var inputTokensLow: Int
    package var inputTokensHigh: Int
    /// The images' share of the input, the same at both ends.
    package var imageTokens: Int
    package var outputTokensMax: Int
    /// `nil` when the judge model has no price.
    package var costLow: Double?
    package var costHigh: Double?
    /// Whether the judge is the offline mock, which bills nothing.
    package var isMock: Bool

    package init(
        model: String, calls: Int, inputTokensLow: Int, inputTokensHigh: Int, imageTokens: Int, outputTokensMax: Int,
        costLow: Double?, costHigh: Double?, isMock: Bool
    ) {
        self.model = model
        self.calls = calls
        self.inputTokensLow = inputTokensLow
        self.inputTokensHigh = inputTokensHigh
        self.imageTokens = imageTokens
        self.outputTokensMax = outputTokensMax
        self.costLow = costLow
        self.costHigh = costHigh
        self.isMock = isMock
    }

    /// The estimate for judging the answers of `trials` with `settings` and `rubric`, at
    /// the judge model's batch price when its calls go through the Batch API.
    package static func make(
        trials: [Trial], settings: JudgeSettings, rubric: JudgeRubric, prices: PriceTable
    ) -> JudgeEstimate {
        var low = 0
        var high = 0
        var images = 0
        var calls = 0
        for trial in trials {
            guard let original = trial.request else { continue }
            let empty = JudgeRequest.make(
                model: settings.model, rubric: rubric,
                subject: JudgeSubject(itemID: trial.item.id, answer: "", context: trial.item.context, lang: trial.item.lang),
                image: original.image, imageIdentity: original.imageIdentity, detail: original.detail,
                maxTokens: settings.maxTokens, tokenField: .maxTokens, structuredOutput: settings.structuredOutput)
            let estimate = RequestEstimate.make(
                request: empty, imageWidth: trial.item.imageInfo?.width, imageHeight: trial.item.imageInfo?.height)
            let answerCeiling = original.maxTokens ?? RequestEstimate.assumedOutputCeiling
            calls += settings.repeats
            low += settings.repeats * estimate.inputTokens
            high += settings.repeats * (estimate.inputTokens + answerCeiling)
            images += settings.repeats * estimate.imageTokens
        }
        let output = calls * settings.maxTokens
        let price = (settings.client.batch == nil ? prices : prices.batchTable).price(forModel: settings.model)?.price
        return JudgeEstimate(
            model: settings.model, calls: calls, inputTokensLow: low, inputTokensHigh: high, imageTokens: images,
            outputTokensMax: output, costLow: price.map { $0.cost(inputTokens: low, outputTokens: 0) },
            costHigh: price.map { $0.cost(inputTokens: high, outputTokens: output) }, isMock: settings.isMock)
    }
}
