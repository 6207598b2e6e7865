import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

/// Collects what the runner records, in order.
actor CollectingSink: ResultSink {
    private(set) var results: [TrialResult] = []

    func cachedAnswer(forKey key: String) async throws -> ModelAnswer? { nil }

    func record(_ result: TrialResult) async throws { results.append(result) }
}

/// `count` trials of the Ice Cubes prompt on the Mastodon image, each with its own key.
func iceCubesTrials(_ count: Int) -> [Trial] {
    let variant = PromptVariant(name: "icecubes", file: "prompts/icecubes.md", text: iceCubesPrompt, model: "gpt-4o-mini")
    let item = DatasetItem(id: "mastodon-x", image: .remote(mastodonImage))
    return (0..<count).map { index in
        Trial(
            id: index, variant: variant, item: item, maxTokens: 50, repeatIndex: index,
            request: iceCubesRequest(), key: "key-\(index)")
    }
}

/// Fast, exact waits so retries cost milliseconds.
let quickRetries = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(1), jitter: false)

@Suite("Runner with OpenAIVisionModel")
struct RunnerIntegrationTests {
    @Test func rateLimitThenServerErrorThenSuccessIsOneAnswer() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .error(
                    status: 429, message: "Rate limit reached for gpt-4o-mini", type: "requests", code: "rate_limit_exceeded",
                    headers: [("retry-after-ms", "10")]),
                .fixture("10_500_server_error", status: 500),
            ]).handler)
        let sink = CollectingSink()
        let runner = Runner(model: model(server), sink: sink, retryPolicy: quickRetries, concurrency: 1)
        let progress = try await runner.run(iceCubesTrials(1)).progress
        let requests = await server.requests()
        await server.stop()

        let results = await sink.results
        let result = try #require(results.first)
        #expect(results.count == 1)
        #expect(requests.count == 3)
        #expect(result.attempts == 3)
        #expect(result.answer?.content?.hasPrefix("A test description") == true)
        #expect(result.answer?.requestID == "req_test_3")
        #expect(result.failure == nil)
        #expect(progress.done == 1)
        #expect(progress.failed == 0)
    }

    @Test func threeServerErrorsAreOneFailedTrial() async throws {
        let serverError = ScriptedResponse.fixture("10_500_server_error", status: 500)
        // One answer first: 5xx answers from a server that has answered are retried (a server
        // that answers nothing but 5xx stops the run instead; RunnerStopTests).
        let answer = ScriptedResponse.chatCompletion(content: "A cat.")
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([answer, serverError, serverError, serverError]).handler)
        let sink = CollectingSink()
        let runner = Runner(model: model(server), sink: sink, retryPolicy: quickRetries, concurrency: 1)
        let progress = try await runner.run(Array(iceCubesTrials(2))).progress
        let requests = await server.requests()
        await server.stop()

        let result = try #require(await sink.results.last)
        #expect(requests.count == 4)
        #expect(result.attempts == 3)
        #expect(result.failure?.status == 500)
        #expect(result.failure?.retryable == true)
        #expect(result.scores.isEmpty)
        #expect(progress.failed == 1)
    }

    @Test func wrongKeyStopsTheWholeRunAtOnce() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: testKey))
        let sink = CollectingSink()
        let runner = Runner(
            model: model(server, key: "sk" + "-wrong-altbench-9876543210fedcba"), sink: sink, retryPolicy: quickRetries,
            concurrency: 4)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await runner.run(iceCubesTrials(20))
        let elapsed = clock.now - start
        let requests = await server.requests()
        await server.stop()

        guard case .failure(let failure) = outcome.stopReason else {
            Issue.record("expected a run-fatal stop, got \(String(describing: outcome.stopReason))")
            return
        }
        #expect(failure.status == 401)
        #expect(failure.severity == .runFatal)
        #expect(failure.message.contains("OPENAI_API_KEY"))
        #expect(!failure.message.contains("sk-"))
        // The first request probes alone; its 401 stops the run before any other is sent,
        // and a trial stopped by a misconfiguration is not recorded as the item's failure.
        #expect(requests.count == 1)
        #expect(await sink.results.isEmpty)
        #expect(outcome.progress.done == 0)
        // One request means no retry backoff (0.5 + 1 + 2 + 4 s) was waited; the bound only
        // guards against a stuck run on a loaded machine.
        #expect(elapsed < .seconds(30))
    }

    @Test func trialsFinishedBeforeTheStopStayRecorded() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript(
                [.chatCompletion(content: "A cat."), .chatCompletion(content: "A dog.")],
                then: OpenAITestServer.compatible(apiKey: testKey)
            ).handler)
        let sink = CollectingSink()
        let runner = Runner(
            model: model(server, key: "sk" + "-wrong-altbench-9876543210fedcba"), sink: sink, retryPolicy: quickRetries,
            concurrency: 1)
        let outcome = try await runner.run(iceCubesTrials(20))
        let requests = await server.requests()
        await server.stop()

        #expect(requests.count == 3)
        #expect(await sink.results.map { $0.answer?.content } == ["A cat.", "A dog."])
        #expect(outcome.progress.done == 2)
        #expect(outcome.progress.total == 20)
        #expect(outcome.stopReason != nil)
    }
}
