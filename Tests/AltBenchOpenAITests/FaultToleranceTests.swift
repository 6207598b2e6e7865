import AltBenchCore
import AltBenchHTTP
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

// MARK: Helpers

/// `count` Ice Cubes trials whose bodies differ (the prompt names the trial), so the server can
/// tell them apart; `edit` adjusts each request.
private func distinctTrials(_ count: Int, edit: (Int, inout ModelRequest) -> Void = { _, _ in }) -> [Trial] {
    iceCubesTrials(count).map { trial in
        var trial = trial
        var request = iceCubesRequest()
        request.prompt = iceCubesPrompt + " (trial \(trial.id))"
        edit(trial.id, &request)
        trial.request = request
        return trial
    }
}

/// Every `ModelFailure` the wrapped model threw, in order.
private actor FailureLog {
    private(set) var failures: [ModelFailure] = []
    func add(_ failure: ModelFailure) { failures.append(failure) }
}

/// A model that passes calls through and logs the failures, which the runner only shows for
/// the last attempt.
private struct RecordingModel: VisionModel {
    let wrapped: any VisionModel
    let log = FailureLog()

    var endpoint: String { wrapped.endpoint }

    func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        do {
            return try await wrapped.complete(request)
        } catch let failure as ModelFailure {
            await log.add(failure)
            throw failure
        }
    }
}

/// Answers 429 (`retry-after-ms: 200`) to everything for `length` of wall time from its
/// creation, then like the compatible handler.
private actor StormHandler {
    /// The storm starts with the first request, so a slow start under load cannot miss it.
    private var start: ContinuousClock.Instant?
    private let length: Duration
    private let fallback = OpenAITestServer.compatible()
    private(set) var rateLimited = 0

    init(length: Duration) { self.length = length }

    func respond(to request: RecordedRequest) async -> ScriptedResponse {
        let start = self.start ?? ContinuousClock.now
        self.start = start
        if ContinuousClock.now - start < length {
            rateLimited += 1
            return .rateLimited(.retryAfterMilliseconds(200))
        }
        return await fallback(request)
    }

    nonisolated var handler: OpenAITestServer.Handler {
        { request in await self.respond(to: request) }
    }
}

/// Exact backoff (0.5 s, 1 s, 2 s, ...) so waits on a `VirtualClock` can be asserted.
private let exactRetries = RetryPolicy(jitter: false)

// MARK: Tests

@Suite("Fault tolerance against a real server")
struct FaultToleranceTests {
    // MARK: Retryable failures

    @Test(arguments: RateLimitHint.allCases)
    func rateLimitIsRetriedAfterTheServersWait(_ hint: RateLimitHint) async throws {
        let now = Date()
        let server = try await OpenAITestServer.start(handler: ResponseScript([.rateLimited(hint.style(now: now))]).handler)
        let sink = CollectingSink()
        let clock = VirtualClock()
        let runner = Runner(model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: clock)
        let outcome = try await runner.run(iceCubesTrials(1))
        let requests = await server.requests()
        await server.stop()

        let result = try #require(await sink.results.first)
        #expect(requests.count == 2)
        #expect(result.attempts == 2)
        #expect(result.answer?.content?.hasPrefix("A test description") == true)
        #expect(outcome.progress.retries == 1)
        #expect(outcome.pacing.rateLimited == 1)
        if hint == .retryAfterDate {
            // The date has whole seconds: the wait is what was left of it when the 429 came.
            let sleep = try #require(clock.sleeps.first)
            let ahead = RateLimitHint.dateTarget(now).timeIntervalSince(now)
            #expect(clock.sleeps.count == 1)
            // Less whatever the run took before the 429 was read, on a loaded machine too.
            let spent = Date().timeIntervalSince(now)
            #expect(sleep <= .seconds(ahead) && sleep > .seconds(ahead - spent - 1), "\(sleep)")
        } else {
            #expect(clock.sleeps == hint.expectedSleeps)
        }
    }

    @Test func htmlServerErrorThenSuccessIsOneAnswer() async throws {
        let server = try await OpenAITestServer.start(handler: ResponseScript([.html(status: 500)]).handler)
        let sink = CollectingSink()
        let clock = VirtualClock()
        let runner = Runner(model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: clock)
        _ = try await runner.run(iceCubesTrials(1))
        let count = await server.requests().count
        await server.stop()

        let result = try #require(await sink.results.first)
        #expect(count == 2)
        #expect(result.attempts == 2)
        #expect(result.failure == nil)
        #expect(clock.sleeps == [.milliseconds(500)])
    }

    @Test func fiveHTMLServerErrorsFailTheTrialWithThePageTitle() async throws {
        let page = ScriptedResponse.html(
            status: 500,
            body: "<!DOCTYPE html><html><head><title>Upstream Exploded</title><style>h1{}</style></head>"
                + "<body><h1>Oops</h1><p>nginx</p></body></html>")
        // The first request is answered, so the 500s are the server's moods, not a server that
        // only fails (which stops the run).
        let answer = ScriptedResponse.chatCompletion(content: "A cat.")
        let server = try await OpenAITestServer.start(handler: { request in request.number == 1 ? answer : page })
        let sink = CollectingSink()
        let clock = VirtualClock()
        let runner = Runner(model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: clock)
        let outcome = try await runner.run(iceCubesTrials(2))
        let count = await server.requests().count
        await server.stop()

        let result = try #require(await sink.results.last)
        let failure = try #require(result.failure)
        #expect(count == 6)
        #expect(result.attempts == 5)
        #expect(failure.status == 500)
        #expect(failure.message.contains("HTML page: Upstream Exploded"), "\(failure.message)")
        #expect(!failure.message.contains("<"), "\(failure.message)")
        #expect(!failure.message.contains("Oops"), "\(failure.message)")
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)])
        #expect(outcome.progress.failed == 1)
        #expect(outcome.stopReason == nil)
    }

    @Test func everyRequestGets503ThenSuccessAtConcurrencyFour() async throws {
        let sequences = RequestSequences([.html(status: 503)])
        let server = try await OpenAITestServer.start(handler: sequences.handler)
        let sink = CollectingSink()
        let runner = Runner(
            model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 4, clock: VirtualClock())
        let outcome = try await runner.run(distinctTrials(12))
        let count = await server.requests().count
        let counts = await sequences.counts
        await server.stop()

        let results = await sink.results
        #expect(count == 24)
        #expect(counts.count == 12)
        #expect(counts.values.allSatisfy { $0 == 2 }, "\(counts.values)")
        #expect(results.count == 12)
        #expect(results.allSatisfy { $0.answer != nil && $0.attempts == 2 })
        #expect(Set(results.map(\.trial.id)) == Set(0..<12))
        #expect(outcome.progress.retries == 12)
        #expect(outcome.stopReason == nil)
    }

    @Test func slowAnswerTimesOutAndIsRetried() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([ScriptedResponse.chatCompletion(content: "slow").delayed(by: .seconds(300))]).handler)
        // 3 s: far below the server's 300 s. Only the first answer is slow; a machine loaded
        // enough to cut off a fast one too only adds a retry, which the checks below allow.
        let recording = RecordingModel(wrapped: model(server, timeout: .seconds(3)))
        let sink = CollectingSink()
        let runner = Runner(model: recording, sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: VirtualClock())
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await runner.run(iceCubesTrials(1))
        let elapsed = clock.now - start
        let count = await server.requests().count
        await server.stop()

        let failures = await recording.log.failures
        let result = try #require(await sink.results.first)
        #expect(failures.first?.kind == .timeout)
        #expect(failures.allSatisfy { $0.kind == .timeout && $0.severity == .retryable }, "\(failures)")
        #expect(result.attempts >= 2 && result.attempts == failures.count + 1)
        #expect(count == result.attempts, "one request per attempt")
        #expect(result.answer?.content?.hasPrefix("A test description") == true)
        // The client gave up long before the server's 300 s.
        #expect(elapsed < .seconds(150), "gave up before the server's 300 s, with room for a loaded machine")
    }

    @Test func connectionClosedMidBodyIsATransportFailureAndRetried() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([ScriptedResponse.chatCompletion(content: "cut").closingConnectionMidBody()]).handler)
        let recording = RecordingModel(wrapped: model(server))
        let sink = CollectingSink()
        let runner = Runner(model: recording, sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: VirtualClock())
        _ = try await runner.run(iceCubesTrials(1))
        let count = await server.requests().count
        await server.stop()

        let failures = await recording.log.failures
        let result = try #require(await sink.results.first)
        #expect(failures.map(\.kind) == [.transport], "\(failures.map(\.message))")
        #expect(failures.first?.severity == .retryable)
        #expect(count == 2)
        #expect(result.attempts == 2)
        #expect(result.answer?.content?.hasPrefix("A test description") == true)
    }

    @Test(arguments: malformedCases)
    func unreadable200IsRetried(_ malformed: MalformedCase) async throws {
        let server = try await OpenAITestServer.start(handler: ResponseScript([malformed.response]).handler)
        let recording = RecordingModel(wrapped: model(server))
        let sink = CollectingSink()
        let runner = Runner(model: recording, sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: VirtualClock())
        _ = try await runner.run(iceCubesTrials(1))
        let count = await server.requests().count
        await server.stop()

        let failures = await recording.log.failures
        let result = try #require(await sink.results.first)
        #expect(failures.map(\.kind) == [.malformed])
        #expect(failures.first?.severity == .retryable)
        #expect(count == 2)
        #expect(result.attempts == 2)
        #expect(result.answer?.content?.hasPrefix("A test description") == true)
    }

    @Test func shouldRetryTrueMakesA400Retried() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .error(status: 400, message: "Try again.", headers: [("x-should-retry", "true")])
            ]).handler)
        let sink = CollectingSink()
        let runner = Runner(
            model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: VirtualClock())
        _ = try await runner.run(iceCubesTrials(1))
        let count = await server.requests().count
        await server.stop()

        let result = try #require(await sink.results.first)
        #expect(count == 2)
        #expect(result.attempts == 2)
        #expect(result.answer != nil)
    }

    @Test func shouldRetryFalseMakesA503Final() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([.html(status: 503, headers: [("x-should-retry", "false")])]).handler)
        let sink = CollectingSink()
        let clock = VirtualClock()
        let runner = Runner(model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: clock)
        let outcome = try await runner.run(iceCubesTrials(1))
        let count = await server.requests().count
        await server.stop()

        let result = try #require(await sink.results.first)
        #expect(count == 1)
        #expect(result.attempts == 1)
        #expect(result.failure?.status == 503)
        #expect(result.failure?.severity == .itemFatal)
        #expect(clock.sleeps.isEmpty)
        #expect(outcome.stopReason == nil)
    }

    // MARK: Item- and run-fatal failures

    @Test(arguments: itemFatalCases)
    func itemFatalFailsOneTrialOnly(_ rejection: ItemFatalCase) async throws {
        let compatible = OpenAITestServer.compatible()
        let server = try await OpenAITestServer.start(handler: { request in
            request.bodyText.contains("(trial 2)") ? rejection.response : await compatible(request)
        })
        let sink = CollectingSink()
        let clock = VirtualClock()
        let runner = Runner(model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 2, clock: clock)
        let outcome = try await runner.run(distinctTrials(4))
        let count = await server.requests().count
        await server.stop()

        let results = await sink.results
        let rejected = try #require(results.first { $0.trial.id == 2 })
        let failure = try #require(rejected.failure)
        #expect(failure.status == rejection.status)
        #expect(failure.severity == .itemFatal)
        #expect(failure.message.contains(rejection.serverMessage), "\(failure.message)")
        #expect(rejected.attempts == 1)
        #expect(results.count == 4)
        #expect(results.filter { $0.trial.id != 2 }.allSatisfy { $0.answer != nil })
        #expect(count == 4)
        #expect(clock.sleeps.isEmpty)
        #expect(outcome.stopReason == nil)
        #expect(outcome.progress.failed == 1)
    }

    @Test(arguments: runFatalCases)
    func runFatalStopsAfterTheProbe(_ fatal: RunFatalCase) async throws {
        let server = try await OpenAITestServer.start(handler: { _ in fatal.response })
        let sink = CollectingSink()
        let runner = Runner(
            model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 8, clock: VirtualClock())
        let outcome = try await runner.run(iceCubesTrials(20))
        let count = await server.requests().count
        await server.stop()

        guard case .failure(let failure) = outcome.stopReason else {
            Issue.record("expected a run-fatal stop, got \(String(describing: outcome.stopReason))")
            return
        }
        #expect(failure.status == fatal.status)
        #expect(failure.severity == .runFatal)
        #expect(failure.message.hasPrefix("HTTP \(fatal.status) from \(server.baseURL)/chat/completions: "), "\(failure.message)")
        #expect(failure.message.contains(fatal.fix), "\(failure.message)")
        // The first request probes alone, so its answer stops the run before any other leaves.
        #expect(count == 1)
        #expect(await sink.results.isEmpty)
        #expect(outcome.progress.done == 0)
    }

    // MARK: Pacing

    @Test func rateLimitStormSlowsTheWholeRunDown() async throws {
        let storm = StormHandler(length: .milliseconds(600))
        let server = try await OpenAITestServer.start(handler: storm.handler)
        let sink = CollectingSink()
        // A timeout far above any answer: the test is about 429s, and a loaded CI machine must not
        // add timeouts of its own.
        let runner = Runner(
            model: model(server, timeout: .seconds(120)), sink: sink,
            retryPolicy: RetryPolicy(maxRetries: 6, jitter: false), concurrency: 16)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await runner.run(distinctTrials(48))
        let elapsed = clock.now - start
        let count = await server.requests().count
        let rateLimited = await storm.rateLimited
        await server.stop()

        let results = await sink.results
        #expect(results.count == 48)
        #expect(results.allSatisfy { $0.answer != nil }, "\(results.compactMap { $0.failure?.message })")
        // Every attempt is one request, and every 429 was one of the retried attempts.
        #expect(count == results.reduce(0) { $0 + $1.attempts })
        #expect(count == 48 + rateLimited, "\(results.compactMap { $0.attempts > 1 ? $0.attempts : nil })")
        // Each 429 pauses everyone and halves the window: 1 + 8 + 4 + 2 at most, where 16
        // requests retrying on their own would send 3 each.
        #expect(rateLimited >= 1)
        #expect(rateLimited < 16, "\(rateLimited) 429s")
        #expect(outcome.pacing.rateLimited == rateLimited)
        #expect(outcome.pacing.windowDecreases >= 1)
        #expect(outcome.pacing.smallestWindow < 16)
        // A bound against a stuck run, not a speed target: a 2-core CI machine building beside
        // the tests takes 30 s and more for what takes 2 s alone.
        #expect(elapsed < .seconds(90))
    }

    @Test func serverHeadersPaceTheRunBeforeAny429() async throws {
        let limiter = TokenBucketServerLimiter(
            requestsPerSecond: 20, burst: 5, wrapping: OpenAITestServer.fixedCompletion())
        let server = try await OpenAITestServer.start(handler: limiter.handler)
        let sink = CollectingSink()
        let runner = Runner(model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 10)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = try await runner.run(iceCubesTrials(30))
        let elapsed = clock.now - start
        let stats = await limiter.stats
        await server.stop()

        let results = await sink.results
        #expect(results.count == 30)
        #expect(results.allSatisfy { $0.answer != nil })
        #expect(stats.succeeded == 30)
        #expect(stats.rateLimited <= 2, "\(stats)")
        #expect(outcome.pacing.pacedWaits >= 1)
        // 25 requests beyond the burst of 5, at 20 per second.
        #expect(elapsed >= .seconds(1), "\(elapsed)")
        // A bound against a stuck run, not a speed target: a 2-core CI machine building beside
        // the tests takes 30 s and more for what takes 2 s alone.
        #expect(elapsed < .seconds(90))
    }

    /// A server enforcing 20 requests a second in bursts of 20 while its headers announce a
    /// per-minute window of 1,200 (OpenAI's quantized limits, proxies, Azure), mix a per-minute
    /// limit with the bucket's own remaining and reset, or say nothing at all: believing the
    /// headers sends a whole window at once and keeps hitting the real bucket. The run must
    /// learn the rate from the 429s, and no trial may fail for them. Counts only: how long it
    /// takes depends on the machine.
    @Test(arguments: [TokenBucketServerLimiter.Announcement.perMinute, .quantized, .none])
    func headersThatDoNotDescribeTheBucketCostFew429s(_ announcement: TokenBucketServerLimiter.Announcement) async throws {
        let limiter = TokenBucketServerLimiter(
            requestsPerSecond: 20, burst: 20, announcing: announcement,
            wrapping: OpenAITestServer.withLatency(.milliseconds(100), OpenAITestServer.fixedCompletion()))
        let server = try await OpenAITestServer.start(handler: limiter.handler)
        // As `altbench run` makes it: one connection per request in flight.
        let client = HTTPClients.make(maxConnections: 50)
        let sink = CollectingSink()
        // No retries at all: a 429 while others are answered must not use an attempt up.
        let runner = Runner(
            model: OpenAIVisionModel(baseURL: URL(string: server.baseURL)!, apiKey: nil, httpClient: client), sink: sink,
            retryPolicy: RetryPolicy(maxRetries: 0, jitter: false), concurrency: 50)
        let outcome = try await runner.run(distinctTrials(100))
        let stats = await limiter.stats
        try await client.shutdown()
        await server.stop()

        let results = await sink.results
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0.answer != nil }, "\(results.compactMap { $0.failure?.message })")
        #expect(outcome.progress.failed == 0)
        #expect(stats.succeeded == 100)
        // Believing the headers (or opening the whole window at once without them), the first
        // wave alone draws 29 429s, and the run about 40% of its requests. Learning from them:
        // a few while the window opens, then next to none. A machine starved by a whole test
        // suite bunches the paced requests, so the bound is 25%: well under what believing the
        // headers costs; the 5% target is the benchmark's.
        #expect(stats.rateLimited * 100 <= stats.requests * 25, "\(stats), pacing \(outcome.pacing)")
        #expect(outcome.pacing.rateLimited == stats.rateLimited)
        if stats.rateLimited > 0 {
            #expect(outcome.pacing.rateMeasurements >= 1, "\(outcome.pacing)")
        }
    }

    // MARK: Token limits

    @Test func rejectedTokenFieldCostsOneRequestPerRun() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(reasoningModels: ["o4-mini"]))
        let sink = CollectingSink()
        let runner = Runner(
            model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 4, clock: VirtualClock())
        let outcome = try await runner.run(
            distinctTrials(5) { _, request in
                request.model = "o4-mini"
                request.tokenField = .maxTokens
                request.maxTokens = 300
            })
        let requests = await server.requests()
        await server.stop()

        // The probe's fallback is remembered before the other trials start.
        let bodies = try requests.map { try $0.json() }
        #expect(requests.count == 6)
        #expect(bodies.filter { $0["max_tokens"] != nil }.count == 1)
        #expect(bodies.filter { $0["max_completion_tokens"] == .int(300) }.count == 5)
        let results = await sink.results
        #expect(results.count == 5)
        #expect(results.allSatisfy { $0.answer?.tokenField == "max_completion_tokens" })
        #expect(outcome.stopReason == nil)
    }

    @Test func reasoningModelOutOfBudgetIsAnEmptyTruncatedAnswer() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(reasoningModels: ["o4-mini"]))
        let sink = CollectingSink()
        let runner = Runner(
            model: model(server), sink: sink, retryPolicy: exactRetries, concurrency: 1, clock: VirtualClock())
        var trial = try #require(iceCubesTrials(1).first)
        trial.request?.model = "o4-mini"
        trial.request?.tokenField = .maxCompletionTokens
        trial.request?.maxTokens = 10
        let outcome = try await runner.run([trial])
        let count = await server.requests().count
        await server.stop()

        let result = try #require(await sink.results.first)
        let answer = try #require(result.answer)
        #expect(count == 1)
        #expect(result.attempts == 1)
        #expect(answer.content == "")
        #expect(answer.finishReason == "length")
        #expect(answer.reasoningTokens == 10)
        let empty = try #require(result.scores.first { $0.name == ScoreName.empty })
        let truncated = try #require(result.scores.first { $0.name == ScoreName.truncated })
        #expect(empty.isFlagged)
        #expect(empty.detail == "no visible text: the token limit ran out first")
        #expect(truncated.isFlagged)
        #expect(outcome.progress.failed == 0)
    }

    // MARK: Offline

    @Test func offlineModelFailsEveryTrialWithoutARequest() async throws {
        let server = try await OpenAITestServer.start()
        let offline = StoreOnlyModel(endpoint: model(server).endpoint)
        let sink = CollectingSink()
        let clock = VirtualClock()
        let runner = Runner(model: offline, sink: sink, retryPolicy: exactRetries, concurrency: 4, clock: clock)
        let outcome = try await runner.run(distinctTrials(6))
        let count = await server.requests().count
        await server.stop()

        let results = await sink.results
        #expect(count == 0)
        #expect(results.count == 6)
        #expect(results.allSatisfy { $0.failure?.kind == .notStored && $0.failure?.severity == .itemFatal })
        #expect(results.allSatisfy { $0.failure?.message.contains("--offline") == true })
        #expect(results.allSatisfy { $0.attempts == 0 }, "nothing was sent")
        #expect(outcome.progress.retries == 0)
        #expect(outcome.progress.failed == 6)
        #expect(clock.sleeps.isEmpty)
        #expect(outcome.stopReason == nil)
    }
}

// MARK: Cases

extension FaultToleranceTests {
    /// The wait hints a 429 can carry.
    enum RateLimitHint: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case retryAfterMs, retryAfterSeconds, retryAfterDate, rateLimitResets, noHint

        var testDescription: String { rawValue }

        /// The 429's header style; a date is the first whole second at least 10 s from now,
        /// far enough that a loaded machine reads the 429 before it passes.
        func style(now: Date) -> RateLimitHeaderStyle {
            switch self {
            case .retryAfterMs: return .retryAfterMilliseconds(1500)
            case .retryAfterSeconds: return .retryAfterSeconds(2)
            case .retryAfterDate: return .retryAfterDate(Self.dateTarget(now))
            case .rateLimitResets: return .rateLimitReset(requests: "6m0s", tokens: "120ms")
            case .noHint: return .none
            }
        }

        /// 50 s ahead: under the 60 s cap on waits, and far enough that a starved test machine
        /// still reads the 429 before the date has passed (the wait is on a virtual clock).
        static func dateTarget(_ now: Date) -> Date {
            Date(timeIntervalSince1970: (now.timeIntervalSince1970 + 50).rounded(.up))
        }

        /// Every sleep of a one-trial run at concurrency 1 (the date's is checked apart).
        var expectedSleeps: [Duration] {
            switch self {
            // The gate pauses for the same wait the retry sleeps, so it adds none.
            case .retryAfterMs: return [.milliseconds(1500)]
            case .retryAfterSeconds: return [.seconds(2)]
            case .retryAfterDate: return []
            // The larger reset (6 min) capped at 60 s; then the gate's model of the requests
            // bucket (3 per 6 min, empty) holds the retry until a whole request has refilled:
            // 120 s after the 429, so 60 s more.
            case .rateLimitResets: return [.seconds(60), .seconds(60)]
            // Backoff of 0.5 s, then the rest of the gate's default 1 s pause.
            case .noHint: return [.milliseconds(500), .milliseconds(500)]
            }
        }
    }

    /// Run-fatal answers: the run stops after the probe, and the message says what to fix.
    struct RunFatalCase: Sendable, CustomTestStringConvertible {
        var name: String
        var response: ScriptedResponse
        var status: Int
        /// Part of the advice the message must carry.
        var fix: String
        var testDescription: String { name }
    }

    static let runFatalCases: [RunFatalCase] = [
        RunFatalCase(
            name: "401 invalid key", response: .fixture("07_401_invalid_api_key", status: 401), status: 401,
            fix: "check OPENAI_API_KEY"),
        RunFatalCase(
            name: "403 no access",
            response: .error(
                status: 403, message: "Project `proj_1` does not have access to model `gpt-4o-mini`", code: "model_not_found"),
            status: 403, fix: "check the key's project and --model"),
        RunFatalCase(
            name: "404 model_not_found",
            response: .error(
                status: 404, message: "The model `gpt-4o-mini` does not exist or you do not have access to it.",
                code: "model_not_found"),
            status: 404, fix: "check --base-url"),
        RunFatalCase(
            name: "429 insufficient_quota", response: .insufficientQuota(), status: 429, fix: "check billing"),
        RunFatalCase(
            name: "429 request too large", response: .requestTooLarge(), status: 429, fix: "lower max_tokens"),
    ]

    /// Answers that fail one trial only.
    struct ItemFatalCase: Sendable, CustomTestStringConvertible {
        var name: String
        var response: ScriptedResponse
        var status: Int
        var serverMessage: String
        var testDescription: String { name }
    }

    static let itemFatalCases: [ItemFatalCase] = [
        ItemFatalCase(
            name: "400 invalid image",
            response: .error(
                status: 400, message: "Failed to download image from IMG_9660.gif. Image size exceeds the limit.",
                code: "invalid_image"),
            status: 400, serverMessage: "Failed to download image from IMG_9660.gif. Image size exceeds the limit."),
        ItemFatalCase(
            name: "422 unprocessable",
            response: .json(status: 422, #"{"detail":"Image could not be decoded: height is 0."}"#),
            status: 422, serverMessage: "Image could not be decoded: height is 0."),
    ]

    /// 200 answers that are not chat completions.
    struct MalformedCase: Sendable, CustomTestStringConvertible {
        var name: String
        var response: ScriptedResponse
        var testDescription: String { name }
    }

    static let malformedCases: [MalformedCase] = [
        MalformedCase(name: "malformed JSON", response: .malformedJSON()),
        MalformedCase(name: "truncated JSON", response: .truncatedJSON()),
    ]
}
