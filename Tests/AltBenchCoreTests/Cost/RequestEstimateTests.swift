import Foundation
import Testing

@testable import AltBenchCore

@Suite("request estimates")
struct RequestEstimateTests {
    static func request(
        model: String = "gpt-4o", prompt: String = "Describe this image for a screen reader.", system: String? = nil,
        remote: Bool = false, detail: ImageDetail? = .high, maxTokens: Int? = 50
    ) -> ModelRequest {
        let image: ImagePayload =
            remote
            ? .remote(URL(string: "https://example.com/cat.jpg")!)
            : .file(URL(fileURLWithPath: "/images/cat.png"), .png)
        return ModelRequest(
            model: model, system: system, prompt: prompt, image: image, imageIdentity: "sha256:00", detail: detail,
            maxTokens: maxTokens)
    }

    /// Text: the approximate count of prompt and system, 3 tokens per message, 3 to prime the reply.
    @Test func textTokens() {
        let prompt = "Describe this image for a screen reader."
        let user = RequestEstimate.make(request: Self.request(prompt: prompt), imageWidth: 512, imageHeight: 512)
        #expect(ApproximateTokenizer.count(prompt) == 8)
        #expect(user.textTokens == 8 + 3 + 3)
        let system = "You write alt text."
        let both = RequestEstimate.make(
            request: Self.request(prompt: prompt, system: system), imageWidth: 512, imageHeight: 512)
        #expect(both.textTokens == 8 + ApproximateTokenizer.count(system) + 3 * 2 + 3)
        #expect(both.inputTokens == both.textTokens + 255)
    }

    @Test func knownSizeAndEverythingSet() {
        let estimate = RequestEstimate.make(request: Self.request(), imageWidth: 1024, imageHeight: 1024)
        #expect(estimate.imageTokens == 765)
        #expect(estimate.outputTokensMax == 50)
        #expect(estimate.assumptions == [.textTokensApproximate])
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var label: String
        var request: ModelRequest
        var width: Int?
        var height: Int?
        var imageTokens: Int
        var outputTokens: Int
        var assumptions: [EstimateAssumption]
        var testDescription: String { label }
    }

    static let rows: [Row] = [
        Row(
            label: "no detail counts as high", request: request(detail: nil), width: 1024, height: 1024,
            imageTokens: 765, outputTokens: 50, assumptions: [.textTokensApproximate, .detailAutoCountedAsHigh]),
        Row(
            label: "detail auto counts as high", request: request(detail: .auto), width: 4000, height: 3000,
            imageTokens: 765, outputTokens: 50, assumptions: [.textTokensApproximate, .detailAutoCountedAsHigh]),
        Row(
            label: "detail low", request: request(detail: .low), width: 4000, height: 3000, imageTokens: 85,
            outputTokens: 50, assumptions: [.textTokensApproximate]),
        Row(
            label: "a patch model ignores low", request: request(model: "gpt-4.1-mini", detail: .low), width: 1024,
            height: 1024, imageTokens: 1659, outputTokens: 50,
            assumptions: [.textTokensApproximate, .detailIgnoredByPatchModel(model: "gpt-4.1-mini")]),
        Row(
            label: "a patch model has no auto to assume", request: request(model: "o4-mini-2025-04-16", detail: nil),
            width: 1024, height: 1024, imageTokens: 1762, outputTokens: 50, assumptions: [.textTokensApproximate]),
        Row(
            label: "an unknown model is counted as gpt-4o", request: request(model: "llava", detail: .high), width: 512,
            height: 512, imageTokens: 255, outputTokens: 50,
            assumptions: [.textTokensApproximate, .unknownModelFamily(model: "llava", assumed: "gpt-4o")]),
        Row(
            label: "a remote image at the maximum", request: request(remote: true, detail: .high), width: nil,
            height: nil, imageTokens: 1445, outputTokens: 50,
            assumptions: [.textTokensApproximate, .unknownImageSize(model: "gpt-4o")]),
        Row(
            label: "a remote image at low detail", request: request(remote: true, detail: .low), width: nil, height: nil,
            imageTokens: 85, outputTokens: 50, assumptions: [.textTokensApproximate, .unknownImageSize(model: "gpt-4o")]),
        Row(
            label: "a remote image on a patch model", request: request(model: "gpt-4.1-nano", remote: true), width: nil,
            height: nil, imageTokens: 3779, outputTokens: 50,
            assumptions: [.textTokensApproximate, .unknownImageSize(model: "gpt-4.1-nano")]),
        Row(
            label: "a width without a height is an unknown size", request: request(), width: 512, height: nil,
            imageTokens: 1445, outputTokens: 50, assumptions: [.textTokensApproximate, .unknownImageSize(model: "gpt-4o")]),
        Row(
            label: "no max_tokens", request: request(maxTokens: nil), width: 512, height: 512, imageTokens: 255,
            outputTokens: 1000, assumptions: [.textTokensApproximate, .noMaxTokens(assumedCeiling: 1000)]),
        Row(
            label: "everything unknown", request: request(model: "gpt-5", remote: true, detail: nil, maxTokens: nil),
            width: nil, height: nil, imageTokens: 1445, outputTokens: 1000,
            assumptions: [
                .textTokensApproximate, .unknownModelFamily(model: "gpt-5", assumed: "gpt-4o"), .detailAutoCountedAsHigh,
                .unknownImageSize(model: "gpt-5"), .noMaxTokens(assumedCeiling: 1000),
            ]),
    ]

    @Test(arguments: rows)
    func estimate(_ row: Row) {
        let estimate = RequestEstimate.make(request: row.request, imageWidth: row.width, imageHeight: row.height)
        #expect(estimate.imageTokens == row.imageTokens)
        #expect(estimate.outputTokensMax == row.outputTokens)
        #expect(estimate.assumptions == row.assumptions)
    }

    @Test func assumedCeiling() {
        #expect(RequestEstimate.assumedOutputCeiling == 1000)
    }

    static let everyAssumption: [EstimateAssumption] = [
        .unknownImageSize(model: "gpt-4o"), .unknownImageSize(model: "llava"),
        .unknownModelFamily(model: "llava", assumed: "gpt-4o"), .detailAutoCountedAsHigh,
        .detailIgnoredByPatchModel(model: "gpt-4.1-mini"), .noMaxTokens(assumedCeiling: 1000), .textTokensApproximate,
    ]

    /// One plain sentence each, naming the model where there is one.
    @Test(arguments: everyAssumption)
    func sentence(_ assumption: EstimateAssumption) {
        let text = assumption.description
        #expect(text.first?.isLetter == true, "\(text)")
        #expect(text.hasSuffix("."), "\(text)")
        #expect(!text.contains("\n"))
        #expect(text.filter { $0 == "." }.count == 1 || text.contains("4.1"), "one sentence: \(text)")
        switch assumption {
        case .unknownImageSize(let model), .detailIgnoredByPatchModel(let model), .unknownModelFamily(let model, _):
            #expect(text.contains(model), "\(text)")
        case .noMaxTokens: #expect(text.contains("1,000"), "\(text)")
        default: break
        }
    }

    @Test func sentencesSayWhatWasAssumed() {
        #expect(
            EstimateAssumption.unknownImageSize(model: "gpt-4o").description
                == "A remote image of unknown size is counted at the most gpt-4o can charge for one image.")
        // A model without a formula does not charge by gpt-4o's rule; the sentence says whose rule it is.
        #expect(
            EstimateAssumption.unknownImageSize(model: "llava").description
                == "A remote image of unknown size for llava is counted at the most gpt-4o's formula can charge for one image.")
        #expect(
            EstimateAssumption.unknownModelFamily(model: "llava", assumed: "gpt-4o").description
                == "No image formula is known for llava; its images are counted with gpt-4o's.")
    }

    @Test(arguments: [(0, "0"), (7, "7"), (999, "999"), (1000, "1,000"), (1445, "1,445"), (25_501, "25,501"), (1_234_567, "1,234,567"), (-1445, "-1,445")])
    func grouped(_ number: Int, _ text: String) {
        #expect(EstimateAssumption.grouped(number) == text)
    }
}
