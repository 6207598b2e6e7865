import Foundation
import Testing

@testable import AltBenchCore

/// ``MockJudgeModel``: the offline judge answers judge requests with ``MockJudge``'s verdict
/// for the request's item, and refuses anything else.
@Suite("mock judge model")
struct MockJudgeModelTests {
    static let hash = String(repeating: "ab", count: 32)
    static let image = judgePackageRoot.appendingPathComponent("Tests/AltBenchCoreTests/Fixtures/images/png.png")
    static let cat = RunResults.Item(
        id: "cat", image: image.path, isRemote: false, width: 640, height: 480, format: "png",
        references: ["A grey cat asleep on a windowsill.", "Sleeping grey cat."], context: "Our cat.", lang: "en",
        imageSHA256: hash)
    static let remote = RunResults.Item(
        id: "remote", image: "https://img.example.test/sign.png", isRemote: true, references: ["A sign saying CLOSED."],
        expectedText: "CLOSED")

    static func results(settings: JSONValue = ["brevity_budget": 150]) -> RunResults {
        RunResults(
            info: RunResults.Info(
                id: "20260101-000000-mock", startedAt: Date(timeIntervalSince1970: 1_767_225_600), status: "finished",
                provider: .mock, providerReason: "--provider mock", endpoint: "mock", datasetPath: "datasets/sample",
                promptsPath: "prompts", settings: settings),
            variants: [], items: [cat, remote], trials: [], plannedTrials: 0)
    }

    static func request(_ answer: String, item: RunResults.Item, identity: String) -> ModelRequest {
        JudgeRequest.make(
            model: MockJudge.model, rubric: JudgeRubric(name: "alt-text.md", text: "Accuracy first."),
            subject: JudgeSubject(itemID: item.id, answer: answer, context: item.context, lang: item.lang),
            image: item.isRemote ? .remote(URL(string: item.image)!) : .file(image, .png), imageIdentity: identity,
            detail: .low, maxTokens: 400, tokenField: .maxTokens, structuredOutput: true)
    }

    /// Answers and items, each with the verdict the mock must give.
    static let cases: [(answer: String, item: RunResults.Item, identity: String)] = [
        ("A grey cat asleep on a windowsill.", cat, "sha256:" + hash),
        ("A red bus on a bridge.", cat, "sha256:" + hash),
        ("A cat.\nIt sleeps on a sill.", cat, "sha256:" + hash),
        ("A sign saying CLOSED.", remote, "https://img.example.test/sign.png"),
        ("A sign.", remote, "https://img.example.test/sign.png"),
    ]

    @Test("a judge request about a known image gets MockJudge's verdict for that item", arguments: cases)
    func knownImage(answer: String, item: RunResults.Item, identity: String) async throws {
        let results = Self.results()
        let reply = try await MockJudgeModel(results: results).complete(Self.request(answer, item: item, identity: identity))
        let expected = MockJudge.verdict(
            answer: answer, item: item.scoringItem, settings: ScoringSettings(recorded: results.info.settings))
        #expect(reply.content == expected.json)
        #expect(try JudgeVerdict.parse(content: reply.content, refusal: nil).get() == expected)
        #expect(reply.responseModel == MockJudge.model)
        #expect(reply.finishReason == "stop")
    }

    @Test("a wrong answer gets a lower accuracy than the reference itself")
    func wrongAnswerLower() async throws {
        let model = MockJudgeModel(results: Self.results())
        let identity = "sha256:" + Self.hash
        let right = try JudgeVerdict.parse(
            content: try await model.complete(Self.request("A grey cat asleep on a windowsill.", item: Self.cat, identity: identity)).content,
            refusal: nil
        ).get()
        let wrong = try JudgeVerdict.parse(
            content: try await model.complete(Self.request("A red bus on a bridge.", item: Self.cat, identity: identity)).content,
            refusal: nil
        ).get()
        #expect(right.accuracy > wrong.accuracy)
    }

    @Test("an image the run does not know is judged as an item without references")
    func unknownImage() async throws {
        let reply = try await MockJudgeModel(results: Self.results()).complete(
            Self.request("A cat.", item: Self.cat, identity: "sha256:" + String(repeating: "cd", count: 32)))
        #expect(reply.content == MockJudge.verdict(answer: "A cat.", item: ScoringItem()).json)
    }

    @Test("a request that is not a judge request is refused with a 400 that is not retried")
    func notAJudgeRequest() async throws {
        let plain = ModelRequest(
            model: "gpt-4o-mini", prompt: "Describe the image.", image: .file(Self.image, .png),
            imageIdentity: "sha256:" + Self.hash, maxTokens: 60)
        let failure = try await #require(throws: ModelFailure.self) {
            try await MockJudgeModel(results: Self.results()).complete(plain)
        }
        #expect(failure.status == 400)
        #expect(failure.kind == .http)
        #expect(!failure.retryable)
        #expect(failure.message.contains("not a judge request"))
    }

    @Test("the answer reports usage: the estimate for the request, and the verdict's tokens")
    func usage() async throws {
        let request = Self.request("A grey cat.", item: Self.cat, identity: "sha256:" + Self.hash)
        let reply = try await MockJudgeModel(results: Self.results()).complete(request)
        let estimate = RequestEstimate.make(request: request, imageWidth: 640, imageHeight: 480)
        #expect(reply.promptTokens == estimate.inputTokens)
        #expect(reply.imageTokens == estimate.imageTokens)
        let completion = try #require(reply.completionTokens)
        #expect(completion > 0)
        #expect(reply.totalTokens == estimate.inputTokens + completion)
        #expect(reply.tokenField == "max_tokens")
        #expect(MockJudgeModel(results: Self.results()).endpoint == "mock")
    }
}
