import Foundation

/// The offline judge: answers a judge request (``JudgeRequest``) with ``MockJudge``'s verdict
/// as JSON, found from the run's item for the request's image and the alt text in the request.
///
/// It sends nothing, so `altbench run --judge` works without a key; its verdicts are a stand-in
/// computed from the references, not a judgement of the image, and reports say so. It reports
/// the usage altbench estimates for the request, like ``MockVisionModel``.
package struct MockJudgeModel: VisionModel {
    package static let endpoint = "mock"

    /// The items by image identity (hash or URL); the first item with an image decides.
    private let items: [String: ScoringItem]
    private let sizes: [String: (width: Int, height: Int)]
    private let settings: ScoringSettings

    package init(results: RunResults) {
        var items: [String: ScoringItem] = [:]
        var sizes: [String: (width: Int, height: Int)] = [:]
        for item in results.items {
            let identity = item.isRemote ? item.image : item.imageSHA256.map { "sha256:" + $0 }
            guard let identity, items[identity] == nil else { continue }
            items[identity] = item.scoringItem
            if let width = item.width, let height = item.height { sizes[identity] = (width, height) }
        }
        self.items = items
        self.sizes = sizes
        settings = ScoringSettings(recorded: results.info.settings)
    }

    package var endpoint: String { Self.endpoint }

    package func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        guard let subject = Self.subject(in: request.prompt) else {
            throw ModelFailure(
                kind: .http, status: 400, message: "the mock judge was sent a request that is not a judge request.",
                retryable: false)
        }
        let item = items[request.imageIdentity] ?? ScoringItem()
        let verdict = MockJudge.verdict(answer: subject.answer, item: item, settings: settings)
        let content = verdict.json
        let size = sizes[request.imageIdentity]
        let estimate = RequestEstimate.make(request: request, imageWidth: size?.width, imageHeight: size?.height)
        let completion = ApproximateTokenizer.pieces(content).count
        return ModelAnswer(
            content: content, finishReason: "stop", responseModel: MockJudge.model,
            promptTokens: estimate.inputTokens, completionTokens: completion,
            totalTokens: estimate.inputTokens + completion, latencyMs: 0, tokenField: request.tokenField.rawValue,
            cachedTokens: 0, imageTokens: estimate.imageTokens)
    }

    /// The alt text (and post) of a judge request's user text: its last line, the JSON object.
    static func subject(in prompt: String) -> (answer: String, context: String?)? {
        guard let line = prompt.split(separator: "\n", omittingEmptySubsequences: true).last,
            let object = try? JSONValue.parse(Data(line.utf8)), let answer = object["alt_text"]?.stringValue
        else { return nil }
        return (answer, object["post"]?.stringValue)
    }
}
