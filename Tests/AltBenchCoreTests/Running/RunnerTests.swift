import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchCore

/// A model whose answers and failures a test scripts, and which counts requests in flight.
private actor ScriptedModel {
    var script: [Result<ModelAnswer, ModelFailure>]
    var fallback: Result<ModelAnswer, ModelFailure>
    var calls = 0
    var inFlight = 0
    var maxInFlight = 0
    let delay: Duration

    init(_ script: [Result<ModelAnswer, ModelFailure>] = [], fallback: Result<ModelAnswer, ModelFailure> = .success(ModelAnswer(content: "A cat.", finishReason: "stop")), delay: Duration = .zero) {
        self.script = script
        self.fallback = fallback
        self.delay = delay
    }

    func begin() -> Result<ModelAnswer, ModelFailure> {
        calls += 1
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
        return script.isEmpty ? fallback : script.removeFirst()
    }

    func end() { inFlight -= 1 }
}

private struct FakeModel: VisionModel {
    let state: ScriptedModel
    var endpoint: String { "fake" }

    func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        let result = await state.begin()
        let delay = state.delay
        if delay > .zero { try? await Task.sleep(for: delay) }
        await state.end()
        return try result.get()
    }
}

/// Collects results in memory and serves cached answers by key.
private actor MemorySink: ResultSink {
    var results: [TrialResult] = []
    var cache: [String: ModelAnswer] = [:]

    init(cache: [String: ModelAnswer] = [:]) { self.cache = cache }

    func cachedAnswer(forKey key: String) async throws -> ModelAnswer? { cache[key] }
    func record(_ result: TrialResult) async throws { results.append(result) }
}

/// Records slowly what it has to store (an answer that was sent), at once what it points at
/// (a cached answer): as a database does, a cached answer can only point at a stored one.
private actor SlowStoreSink: ResultSink {
    var stored: Set<String> = []
    var dangling: [Int] = []
    var count = 0

    func cachedAnswer(forKey key: String) async throws -> ModelAnswer? { nil }
    func record(_ result: TrialResult) async throws {
        count += 1
        guard let key = result.trial.key, result.answer != nil else { return }
        if result.cached {
            if !stored.contains(key) { dangling.append(result.trial.id) }
        } else {
            try await Task.sleep(for: .milliseconds(30))
            stored.insert(key)
        }
    }
}

@Suite("Runner")
struct RunnerTests {
    static func trials(_ count: Int, badEvery: Int? = nil) -> [Trial] {
        (0..<count).map { index in
            let bad = badEvery.map { index % $0 == 0 } ?? false
            let item = DatasetItem(
                id: "item\(index)", image: .file(path: "i\(index).png", url: URL(fileURLWithPath: "/i\(index).png")),
                problem: bad ? .notAnImage(path: "d/i\(index).png") : nil)
            let request = ModelRequest(
                model: "m", prompt: "P", image: .file(URL(fileURLWithPath: "/i\(index).png"), .png),
                imageIdentity: "sha256:\(index)", maxTokens: 50)
            return Trial(
                id: index, variant: PromptVariant(name: "v", file: "v.md", text: "P"), item: item, maxTokens: 50,
                repeatIndex: 0, request: bad ? nil : request,
                key: bad ? nil : TrialKey.make(endpoint: "fake", request: request, repeatIndex: 0))
        }
    }

    static func failure(status: Int, retryable: Bool, stops: Bool = false, retryAfter: Duration? = nil) -> ModelFailure {
        ModelFailure(kind: .http, status: status, message: "HTTP \(status)", retryable: retryable, retryAfter: retryAfter, stopsRun: stops)
    }

    static let fastRetries = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(100), maxDelay: .seconds(8), jitter: false)

    @Test func boundsRequestsInFlight() async throws {
        let state = ScriptedModel(delay: .milliseconds(20))
        let sink = MemorySink()
        let runner = Runner(model: FakeModel(state: state), sink: sink, concurrency: 3)
        let tally = try await runner.run(Self.trials(12)).progress
        #expect(tally.done == 12)
        #expect(tally.failed == 0)
        #expect(await state.calls == 12)
        #expect(await state.maxInFlight <= 3)
        #expect(await state.maxInFlight >= 2)
        #expect(await sink.results.count == 12)
    }

    @Test func scoresEveryAnswer() async throws {
        let sink = MemorySink()
        let state = ScriptedModel(fallback: .success(ModelAnswer(content: "I see my cat on the", finishReason: "length")))
        try await Runner(model: FakeModel(state: state), sink: sink).run(Self.trials(1))
        let scores = Dictionary(uniqueKeysWithValues: try #require(await sink.results.first).scores.map { ($0.name, $0) })
        #expect(scores[ScoreName.firstPerson]?.isFlagged == true)
        #expect(scores[ScoreName.truncated]?.isFlagged == true)
        #expect(scores[ScoreName.length]?.value == 19)
    }

    @Test func reusesCachedAnswersWithoutARequest() async throws {
        let trials = Self.trials(3)
        let cached = ModelAnswer(content: "Cached cat.", finishReason: "stop", latencyMs: 420)
        let sink = MemorySink(cache: [trials[1].key!: cached])
        let state = ScriptedModel()
        let tally = try await Runner(model: FakeModel(state: state), sink: sink, concurrency: 1).run(trials).progress
        #expect(await state.calls == 2)
        #expect(tally.cached == 1)
        let results = await sink.results
        let hit = try #require(results.first { $0.trial.id == 1 })
        #expect(hit.cached)
        #expect(hit.attempts == 0)
        #expect(hit.answer?.content == "Cached cat.")
        #expect(hit.answer?.latencyMs == 420)
    }

    @Test(arguments: [true, false])
    func identicalRequestsAreSentOnce(useCache: Bool) async throws {
        // Two prompts that render the same request for every item (no post to differ by):
        // the same cache keys, asked at once by different workers.
        let first = Self.trials(3)
        let second = first.map { trial -> Trial in
            var copy = trial
            copy.variant = PromptVariant(name: "w", file: "w.md", text: "P")
            copy.id += 100
            return copy
        }
        let state = ScriptedModel(delay: .milliseconds(20))
        let sink = MemorySink()
        try await Runner(model: FakeModel(state: state), sink: sink, concurrency: 6, useCache: useCache)
            .run(zip(first, second).flatMap { [$0, $1] })
        #expect(await state.calls == 3)
        let results = await sink.results
        #expect(results.count == 6)
        #expect(results.allSatisfy { $0.answer?.content == "A cat." })
        #expect(results.filter(\.cached).count == 3, "the second of each pair took the first's answer")
        #expect(results.filter(\.cached).allSatisfy { $0.costUSD == 0 && $0.attempts == 0 })
    }

    /// The trials that took a shared answer are recorded after the trial that sent it, so
    /// that the store has the answer they point at.
    @Test func aSharedAnswerIsRecordedBeforeTheTrialsThatTookIt() async throws {
        let first = Self.trials(3)
        let others = (1...3).flatMap { copy in
            first.map { trial -> Trial in
                var trial = trial
                trial.variant = PromptVariant(name: "w\(copy)", file: "w\(copy).md", text: "P")
                trial.id += 100 * copy
                return trial
            }
        }
        let sink = SlowStoreSink()
        try await Runner(model: FakeModel(state: ScriptedModel()), sink: sink, concurrency: 8).run(first + others)
        #expect(await sink.count == 12)
        let dangling = await sink.dangling
        #expect(dangling.isEmpty, "recorded before the answer they share was stored: \(dangling)")
    }

    @Test func noCacheAsksAgain() async throws {
        let trials = Self.trials(2)
        let sink = MemorySink(cache: [trials[0].key!: ModelAnswer(content: "old")])
        let state = ScriptedModel()
        try await Runner(model: FakeModel(state: state), sink: sink, useCache: false).run(trials)
        #expect(await state.calls == 2)
        #expect(await sink.results.allSatisfy { !$0.cached })
    }

    @Test func retriesRetryableFailuresWithBackoffAndServerWaits() async throws {
        let clock = VirtualClock()
        let state = ScriptedModel([
            .failure(Self.failure(status: 429, retryable: true, retryAfter: .milliseconds(1234))),
            .failure(Self.failure(status: 500, retryable: true)),
        ])
        let sink = MemorySink()
        try await Runner(model: FakeModel(state: state), sink: sink, retryPolicy: Self.fastRetries, clock: clock).run(Self.trials(1))
        let result = try #require(await sink.results.first)
        #expect(result.answer?.content == "A cat.")
        #expect(result.attempts == 3)
        // The server's wait first, then exponential backoff for the second retry (0.1 s · 2).
        #expect(clock.sleeps == [.milliseconds(1234), .milliseconds(200)])
    }

    @Test func givesUpAfterTheRetryBudget() async throws {
        let clock = VirtualClock()
        let state = ScriptedModel(fallback: .failure(Self.failure(status: 503, retryable: true)))
        let sink = MemorySink()
        let tally = try await Runner(model: FakeModel(state: state), sink: sink, retryPolicy: Self.fastRetries, clock: clock)
            .run(Self.trials(1)).progress
        #expect(tally.failed == 1)
        let result = try #require(await sink.results.first)
        #expect(result.attempts == 3)
        #expect(result.failure?.status == 503)
        #expect(clock.sleeps == [.milliseconds(100), .milliseconds(200)])
    }

    @Test func doesNotRetryABadRequest() async throws {
        let state = ScriptedModel(fallback: .failure(Self.failure(status: 400, retryable: false)))
        let sink = MemorySink()
        try await Runner(model: FakeModel(state: state), sink: sink, retryPolicy: Self.fastRetries, clock: VirtualClock())
            .run(Self.trials(2))
        #expect(await state.calls == 2)
        #expect(await sink.results.allSatisfy { $0.attempts == 1 && $0.failure?.status == 400 })
    }

    @Test func aMisconfiguredRunStopsAtOnce() async throws {
        let state = ScriptedModel(fallback: .failure(Self.failure(status: 401, retryable: false, stops: true)))
        let sink = MemorySink()
        let runner = Runner(model: FakeModel(state: state), sink: sink, concurrency: 2)
        let outcome = try await runner.run(Self.trials(50))
        guard case .failure(let failure) = outcome.stopReason else {
            Issue.record("expected a run-fatal stop")
            return
        }
        #expect(failure.status == 401)
        // The first request goes alone, so a misconfiguration costs one request.
        #expect(await state.calls == 1)
        #expect(await sink.results.isEmpty)
    }

    static let refused = ModelFailure(
        kind: .transport,
        message: "could not connect to 127.0.0.1:8099 (connection refused): is the server running, and is --base-url right?",
        retryable: true, cannotConnect: true)

    @Test func theConnectStopRuleIsTheConcurrencyBetweenThreeAndTen() {
        #expect(Runner.connectFailureLimit(concurrency: 1) == 3)
        #expect(Runner.connectFailureLimit(concurrency: 3) == 3)
        #expect(Runner.connectFailureLimit(concurrency: 4) == 4)
        #expect(Runner.connectFailureLimit(concurrency: 10) == 10)
        #expect(Runner.connectFailureLimit(concurrency: 50) == 10)
        #expect(Runner(model: FakeModel(state: ScriptedModel()), sink: MemorySink(), concurrency: 8).connectFailureLimit == 8)
    }

    @Test func aServerThatWasNeverReachedStopsTheRunAsMisconfigured() async throws {
        let clock = VirtualClock()
        let state = ScriptedModel(fallback: .failure(Self.refused))
        let sink = MemorySink()
        let outcome = try await Runner(
            model: FakeModel(state: state), sink: sink, retryPolicy: RetryPolicy(jitter: false), concurrency: 1, clock: clock
        ).run(Self.trials(20))
        guard case .failure(let failure) = outcome.stopReason else {
            Issue.record("expected a run-fatal stop, got \(String(describing: outcome.stopReason))")
            return
        }
        #expect(failure.message == Self.refused.message)
        #expect(failure.severity == .runFatal)
        // Three requests (the first and two retries) instead of 20 trials × 5 attempts.
        #expect(await state.calls == 3)
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
        #expect(await sink.results.isEmpty, "the trial that tripped the rule is left for a later run")
    }

    @Test func atConcurrencyFourTheFirstFourRequestsDecide() async throws {
        let state = ScriptedModel(fallback: .failure(Self.refused))
        let outcome = try await Runner(
            model: FakeModel(state: state), sink: MemorySink(), retryPolicy: RetryPolicy(jitter: false), concurrency: 4,
            clock: VirtualClock()
        ).run(Self.trials(40))
        #expect(outcome.stopReason == .failure({ var stop = Self.refused; stop.stopsRun = true; return stop }()))
        // Four failures stop it; a request or two may already be on its way.
        let calls = await state.calls
        #expect(calls >= 4 && calls <= 8, "\(calls) requests")
    }

    @Test(arguments: [
        ("an answer", Result<ModelAnswer, ModelFailure>.success(ModelAnswer(content: "A cat.", finishReason: "stop"))),
        ("a 503", .failure(RunnerTests.failure(status: 503, retryable: true))),
    ])
    func aServerThatAnsweredOnceIsRetriedNotStopped(_ name: String, first: Result<ModelAnswer, ModelFailure>) async throws {
        // The server answers the first request, then goes away for good.
        let state = ScriptedModel([first], fallback: .failure(Self.refused))
        let sink = MemorySink()
        let outcome = try await Runner(
            model: FakeModel(state: state), sink: sink, retryPolicy: Self.fastRetries, concurrency: 1, clock: VirtualClock()
        ).run(Self.trials(6))
        #expect(outcome.stopReason == nil, "\(name)")
        let results = await sink.results
        #expect(results.count == 6)
        let refusedTrials = results.filter { $0.failure?.cannotConnect == true }
        #expect(refusedTrials.count == (name == "an answer" ? 5 : 6))
        #expect(refusedTrials.allSatisfy { $0.attempts == 3 }, "each retried under the policy")
    }

    @Test func aServerThatStaysGoneForThirtySecondsStopsTheRunAsLost() async throws {
        // The server answers the first request, then refuses every connection.
        let clock = VirtualClock()
        let state = ScriptedModel([.success(ModelAnswer(content: "A cat.", finishReason: "stop"))], fallback: .failure(Self.refused))
        let sink = MemorySink()
        let outcome = try await Runner(
            model: FakeModel(state: state), sink: sink, retryPolicy: RetryPolicy(jitter: false), concurrency: 1, clock: clock
        ).run(Self.trials(50))
        guard case .serverLost(let failure) = outcome.stopReason else {
            Issue.record("expected the server to be lost, got \(String(describing: outcome.stopReason))")
            return
        }
        #expect(failure.message == "the server stopped answering: 20 requests in a row over 30s could not connect, after it had answered. \(Self.refused.message)")
        // Each trial: the request and 4 retries, 0.5 + 1 + 2 + 4 s apart, 7.5 s a trial; the
        // 20th failure in a row comes 30 s after the first, and the run stops there.
        #expect(await state.calls == 21)
        let results = await sink.results
        #expect(results.count == 4, "the answer and three trials that failed after their retries")
        #expect(results.filter { $0.failure?.cannotConnect == true }.count == 3)
    }

    @Test func aFewRefusedConnectionsInARowAreRetriedWhenTheyPassQuickly() async throws {
        // Ten refusals in a row, but over less than 30 s: a restart, not a lost server.
        let answer = Result<ModelAnswer, ModelFailure>.success(ModelAnswer(content: "A cat.", finishReason: "stop"))
        let script = [answer] + Array(repeating: Result<ModelAnswer, ModelFailure>.failure(Self.refused), count: 12) + [answer]
        let state = ScriptedModel(script)
        let outcome = try await Runner(
            model: FakeModel(state: state), sink: MemorySink(), retryPolicy: Self.fastRetries, concurrency: 1,
            clock: VirtualClock()
        ).run(Self.trials(8))
        #expect(outcome.stopReason == nil)
    }

    @Test func cachedAnswersAndBadImagesDoNotCountAsReachingTheServer() async throws {
        let trials = Self.trials(8, badEvery: 4)
        let sink = MemorySink(cache: [trials[1].key!: ModelAnswer(content: "Cached cat.")])
        let state = ScriptedModel(fallback: .failure(Self.refused))
        let outcome = try await Runner(
            model: FakeModel(state: state), sink: sink, retryPolicy: RetryPolicy(maxRetries: 0), concurrency: 1,
            clock: VirtualClock()
        ).run(trials)
        #expect(outcome.stopReason != nil)
        #expect(await state.calls == 3)
    }

    @Test func badImagesFailOnlyTheirOwnTrialsWithoutARequest() async throws {
        let state = ScriptedModel()
        let sink = MemorySink()
        let tally = try await Runner(model: FakeModel(state: state), sink: sink).run(Self.trials(6, badEvery: 3)).progress
        #expect(tally.done == 6)
        #expect(tally.failed == 2)
        #expect(await state.calls == 4)
        let failures = await sink.results.compactMap(\.failure)
        #expect(failures.count == 2)
        #expect(failures.allSatisfy { $0.kind == .image && $0.message.contains("is not an image") })
    }

    @Test func reportsProgressForEveryTrial() async throws {
        let seen = Mutex<[Int]>([])
        let runner = Runner(
            model: FakeModel(state: ScriptedModel()), sink: MemorySink(), concurrency: 2,
            onProgress: { progress in seen.withLock { $0.append(progress.done) } })
        try await runner.run(Self.trials(5))
        #expect(seen.withLock { $0.sorted() } == [1, 2, 3, 4, 5])
    }

    @Test func retryPolicyHonoursLimits() {
        let policy = RetryPolicy(maxRetries: 3, initialDelay: .milliseconds(500), maxDelay: .seconds(8), jitter: false)
        let retryable = Self.failure(status: 500, retryable: true)
        #expect(policy.delay(afterFailure: retryable, retry: 0) == .milliseconds(500))
        #expect(policy.delay(afterFailure: retryable, retry: 2) == .seconds(2))
        #expect(policy.delay(afterFailure: retryable, retry: 3) == nil)
        #expect(RetryPolicy(maxRetries: 9, jitter: false).delay(afterFailure: retryable, retry: 6) == .seconds(32))
        #expect(RetryPolicy(maxRetries: 9, jitter: false).delay(afterFailure: retryable, retry: 8) == .seconds(60))
        #expect(policy.delay(afterFailure: Self.failure(status: 400, retryable: false), retry: 0) == nil)
        #expect(policy.delay(afterFailure: Self.failure(status: 429, retryable: true, retryAfter: .seconds(3)), retry: 0) == .seconds(3))
        // A server wait beyond the cap is cut to the cap.
        #expect(policy.delay(afterFailure: Self.failure(status: 429, retryable: true, retryAfter: .seconds(600)), retry: 0) == .seconds(8))
        #expect(RetryPolicy().maxRetries == 4)
        #expect(RetryPolicy().delay(afterFailure: Self.failure(status: 429, retryable: true, retryAfter: .seconds(600)), retry: 0) == .seconds(60))
        #expect(RetryPolicy(maxRetries: 0).delay(afterFailure: retryable, retry: 0) == nil)
        let jittered = RetryPolicy(maxRetries: 2).delay(afterFailure: retryable, retry: 1)!
        #expect(jittered <= .seconds(1) && jittered >= .milliseconds(750))
    }
}

/// A tiny lock-protected box for values written from `@Sendable` callbacks.
private final class Mutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// Holds the first `held` results it is given until ``release()``; records the rest at once.
private actor HoldingSink: ResultSink {
    let held: Int
    var holding = 0
    var results: [TrialResult] = []
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(held: Int) { self.held = held }

    func cachedAnswer(forKey key: String) async throws -> ModelAnswer? { nil }
    func record(_ result: TrialResult) async throws {
        if holding < held {
            holding += 1
            await withCheckedContinuation { waiting.append($0) }
        }
        results.append(result)
    }

    func release() {
        for waiter in waiting { waiter.resume() }
        waiting.removeAll()
    }
}

extension ScriptedModel {
    func resetMaxInFlight() { maxInFlight = inFlight }
}

extension RunnerTests {
    @Test func spareWorkersAboveEight() {
        #expect(Runner.workers(concurrency: 1) == 1)
        #expect(Runner.workers(concurrency: 4) == 4)
        #expect(Runner.workers(concurrency: 7) == 7)
        #expect(Runner.workers(concurrency: 8) == 9)
        #expect(Runner.workers(concurrency: 16) == 18)
        #expect(Runner.workers(concurrency: 50) == 56)
    }

    /// Two answers whose storing is held up do not hold two of the sixteen request slots: the
    /// spare workers keep all sixteen busy, and never more. Each request waits (up to 2 s) for
    /// sixteen to be in flight; the test watches until sixteen are (a loaded machine takes
    /// longer to open the window) or the run ends without it.
    @Test func slowStoringDoesNotIdleRequestSlots() async throws {
        let gauge = SlotGauge(target: 16)
        let sink = HoldingSink(held: 2)
        let runner = Runner(model: GaugedModel(gauge: gauge), sink: sink, concurrency: 16)
        let run = Task { try await runner.run(Self.trials(120)) }
        while await sink.holding < 2 { try await Task.sleep(for: .milliseconds(5)) }
        await gauge.resetPeak()
        let deadline = ContinuousClock.now + .seconds(90)
        while await gauge.peak < 16, await gauge.calls < 118, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let peak = await gauge.peak
        await sink.release()
        let tally = try await run.value.progress
        #expect(peak == 16, "with two workers storing, the other requests in flight at most: \(peak)")
        #expect(await gauge.highest <= 16)
        #expect(tally.done == 120)
        #expect(await sink.results.count == 120)
    }
}

/// Counts requests in flight; each waits until `target` are in flight together (or 2 s pass).
private actor SlotGauge {
    let target: Int
    var inFlight = 0
    var calls = 0
    var peak = 0
    var highest = 0

    init(target: Int) { self.target = target }

    func enter() {
        calls += 1
        inFlight += 1
        peak = max(peak, inFlight)
        highest = max(highest, inFlight)
    }

    func leave() { inFlight -= 1 }
    func resetPeak() { peak = inFlight }
}

private struct GaugedModel: VisionModel {
    let gauge: SlotGauge
    var endpoint: String { "gauged" }

    func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        await gauge.enter()
        let deadline = ContinuousClock.now + .seconds(2)
        while await gauge.inFlight < gauge.target, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        try? await Task.sleep(for: .milliseconds(5))
        await gauge.leave()
        return ModelAnswer(content: "A cat.", finishReason: "stop")
    }
}
