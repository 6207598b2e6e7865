import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchCore

/// A model that answers after `delay` (real time), fails as scripted, and counts requests.
private final class SlowModel: VisionModel, @unchecked Sendable {
    let endpoint = "slow"
    let delay: Duration
    private let lock = NSLock()
    private var started = 0
    private var script: [ModelFailure?]
    private let answer: ModelAnswer

    init(delay: Duration, script: [ModelFailure?] = [], answer: ModelAnswer = ModelAnswer(content: "A cat.", finishReason: "stop")) {
        self.delay = delay
        self.script = script
        self.answer = answer
    }

    var requests: Int { lock.withLock { started } }

    func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        let failure: ModelFailure? = lock.withLock {
            started += 1
            return script.isEmpty ? nil : script.removeFirst()
        }
        try await Task.sleep(for: delay)
        if let failure { throw failure }
        return answer
    }
}

/// A clock whose sleeps wait until the test calls `pass()` (or the sleeping task is
/// cancelled); a sleep that starts after that lasts its length in real time (the grace
/// period). Its time stands still at zero.
private final class GateClock: RunClock, @unchecked Sendable {
    private let lock = NSLock()
    private var passed = false
    private var waiting: [UUID: CheckedContinuation<Void, Never>] = [:]

    var now: Duration { .zero }

    func sleep(until deadline: Duration) async throws {
        if lock.withLock({ passed }) {
            try await Task.sleep(for: deadline - now)
            return
        }
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = lock.withLock { () -> Bool in
                    if passed || Task.isCancelled { return true }
                    waiting[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { waiting.removeValue(forKey: id) }?.resume()
        }
        try Task.checkCancellation()
    }

    /// Ends every sleep, now and later.
    func pass() {
        let resumed = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            passed = true
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        for continuation in resumed { continuation.resume() }
    }
}

private actor Recorded: ResultSink {
    var results: [TrialResult] = []
    func cachedAnswer(forKey key: String) async throws -> ModelAnswer? { nil }
    func record(_ result: TrialResult) async throws { results.append(result) }
}

@Suite("Runner: stopping, deadlines and failure classes")
struct RunnerStopTests {
    static func trials(_ count: Int) -> [Trial] { RunnerTests.trials(count) }

    @Test("a stop sends no new request and lets the ones in flight finish and be recorded")
    func gracefulStop() async throws {
        let model = SlowModel(delay: .milliseconds(150))
        let sink = Recorded()
        let control = RunControl()
        let runner = Runner(
            model: model, sink: sink, concurrency: 3, control: control, gracePeriod: .seconds(10),
            onProgress: { progress in
                if progress.done == 4 { control.stop(.interrupted(signal: "SIGINT")) }
            })
        let outcome = try await runner.run(Self.trials(40))
        #expect(outcome.stopReason == .interrupted(signal: "SIGINT"))
        let recorded = await sink.results.count
        #expect(recorded >= 4 && recorded < 40)
        // Every request that started finished within the grace period and was recorded.
        #expect(model.requests == recorded)
        #expect(outcome.progress.done == recorded)
    }

    @Test("when the grace period ends, requests still in flight are cancelled and not recorded")
    func graceExpires() async throws {
        let model = SlowModel(delay: .seconds(300))
        let sink = Recorded()
        let control = RunControl()
        let runner = Runner(model: model, sink: sink, concurrency: 2, control: control, gracePeriod: .milliseconds(100))
        let started = ContinuousClock.now
        Task {
            try await Task.sleep(for: .milliseconds(100))
            control.stop(.interrupted(signal: "SIGTERM"))
        }
        let outcome = try await runner.run(Self.trials(10))
        // Far below the 300 s it cuts short: the whole suite starting at once on two cores can
        // hold the cooperative pool for half a minute (a minute beside other builds), so no tighter.
        #expect(ContinuousClock.now - started < .seconds(150), "the wait it ends is 300 s")
        #expect(outcome.stopReason == .interrupted(signal: "SIGTERM"))
        #expect(await sink.results.isEmpty)
        #expect(model.requests == 1, "only the probe was in flight")
    }

    @Test("abort ends the grace period at once")
    func abort() async throws {
        let model = SlowModel(delay: .seconds(300))
        let control = RunControl()
        let runner = Runner(model: model, sink: Recorded(), concurrency: 2, control: control, gracePeriod: .seconds(600))
        let started = ContinuousClock.now
        Task {
            try await Task.sleep(for: .milliseconds(100))
            control.stop(.interrupted(signal: "SIGINT"))
            try await Task.sleep(for: .milliseconds(100))
            control.abort(.interrupted(signal: "SIGINT"))
        }
        let outcome = try await runner.run(Self.trials(10))
        // Far below the 300 s it cuts short: the whole suite starting at once on two cores can
        // hold the cooperative pool for half a minute (a minute beside other builds), so no tighter.
        #expect(ContinuousClock.now - started < .seconds(150), "the wait it ends is 300 s")
        #expect(outcome.stopReason == .interrupted(signal: "SIGINT"))
    }

    @Test("the deadline stops the run like a signal, keeping what finished")
    func deadline() async throws {
        let model = SlowModel(delay: .milliseconds(100))
        let sink = Recorded()
        // The deadline passes when the test says so, after two trials are recorded: on a
        // machine whose cooperative pool other suites hold for seconds, a deadline in real
        // time could pass before the first request starts.
        let clock = GateClock()
        let runner = Runner(model: model, sink: sink, concurrency: 1, clock: clock, deadline: .seconds(1))
        let run = Task { try await runner.run(Self.trials(100)) }
        while await sink.results.count < 2 { try await Task.sleep(for: .milliseconds(10)) }
        clock.pass()
        let outcome = try await run.value
        #expect(outcome.stopReason == .deadline(.seconds(1)))
        let recorded = await sink.results.count
        // What finished is kept, with the request in flight at the deadline (it finishes
        // within the grace period); far from all 100, which take 100 ms each, one at a time.
        #expect(recorded >= 2 && recorded < 100)
        #expect(model.requests == recorded)
    }

    @Test("a run that finishes before its deadline is complete")
    func deadlineNotReached() async throws {
        let runner = Runner(model: SlowModel(delay: .zero), sink: Recorded(), deadline: .seconds(60))
        let outcome = try await runner.run(Self.trials(5))
        #expect(outcome.stopReason == nil)
        #expect(outcome.progress.done == 5)
    }

    @Test("a retry wait ends when the run stops, leaving the trial unrecorded for a resume")
    func retryWaitEnds() async throws {
        let busy = ModelFailure(kind: .http, status: 503, message: "busy", retryable: true, retryAfter: .seconds(300))
        let model = SlowModel(delay: .zero, script: [busy])
        let sink = Recorded()
        let control = RunControl()
        let runner = Runner(
            model: model, sink: sink, retryPolicy: RetryPolicy(maxDelay: .seconds(600), jitter: false), concurrency: 1,
            control: control)
        Task {
            try await Task.sleep(for: .milliseconds(100))
            control.stop(.interrupted(signal: "SIGINT"))
        }
        let started = ContinuousClock.now
        let outcome = try await runner.run(Self.trials(3))
        // Far below the 300 s it cuts short: the whole suite starting at once on two cores can
        // hold the cooperative pool for half a minute (a minute beside other builds), so no tighter.
        #expect(ContinuousClock.now - started < .seconds(150), "the wait it ends is 300 s")
        #expect(outcome.stopReason != nil)
        #expect(await sink.results.isEmpty)
        #expect(model.requests == 1)
    }

    @Test("the three failure classes: retried, recorded for the item, or stopping the run")
    func failureClasses() async throws {
        let retryable = ModelFailure(kind: .http, status: 500, message: "oops", retryable: true)
        let itemFatal = ModelFailure(kind: .http, status: 400, message: "bad image", retryable: false)
        let runFatal = ModelFailure(kind: .http, status: 404, message: "no such model", retryable: false, stopsRun: true)
        #expect(retryable.severity == .retryable)
        #expect(itemFatal.severity == .itemFatal)
        #expect(runFatal.severity == .runFatal)

        // Trial 0: 500 then an answer. Trial 1: 400. Trial 2: 404 stops the run.
        let model = SlowModel(delay: .zero, script: [retryable, nil, itemFatal, runFatal])
        let sink = Recorded()
        let clock = VirtualClock()
        let outcome = try await Runner(
            model: model, sink: sink, retryPolicy: RetryPolicy(jitter: false), concurrency: 1, clock: clock
        ).run(Self.trials(10))
        let results = await sink.results
        #expect(results.count == 2)
        #expect(results[0].attempts == 2)
        #expect(results[0].answer != nil)
        #expect(results[1].failure?.status == 400)
        #expect(results[1].attempts == 1)
        #expect(outcome.stopReason == .failure(runFatal))
        #expect(model.requests == 4)
        #expect(outcome.progress.retries == 1)
        #expect(clock.sleeps == [.milliseconds(500)])
    }

    @Test("--max-retries 0 sends each request once")
    func noRetries() async throws {
        let retryable = ModelFailure(kind: .timeout, message: "slow", retryable: true)
        let model = SlowModel(delay: .zero, script: [retryable])
        let sink = Recorded()
        try await Runner(model: model, sink: sink, retryPolicy: RetryPolicy(maxRetries: 0), clock: VirtualClock())
            .run(Self.trials(1))
        #expect(await sink.results.first?.failure?.kind == .timeout)
        #expect(model.requests == 1)
    }

    @Test("a server that answers only 5xx stops the run as misconfigured, naming the status and what it said")
    func onlyServerErrorsStop() async throws {
        let down = ModelFailure(
            kind: .http, status: 502, message: "the proxy could not reach its upstream", code: "upstream_unreachable",
            retryable: true)
        let model = SlowModel(delay: .zero, script: Array(repeating: down, count: 1000))
        let sink = Recorded()
        let clock = VirtualClock()
        let control = RunControl()
        let outcome = try await Runner(
            model: model, sink: sink, retryPolicy: RetryPolicy(jitter: false), concurrency: 4, clock: clock, control: control
        ).run(Self.trials(27))
        guard case .failure(let failure) = outcome.stopReason else {
            Issue.record("expected a misconfiguration stop, got \(String(describing: outcome.stopReason))")
            return
        }
        #expect(failure.status == 502)
        #expect(failure.message.contains("502"), "\(failure.message)")
        #expect(failure.message.contains("upstream_unreachable"), "\(failure.message)")
        #expect(failure.message.contains("upstream URL"), "\(failure.message)")
        // Four in a row over at least 2 s of backoff (0.5 + 1 + 2 s), not 27 trials × 5 attempts.
        #expect(model.requests < 20, "\(model.requests)")
        #expect(clock.now <= .seconds(10))
        #expect(await sink.results.isEmpty, "nothing is recorded as the trials' failure")
    }

    @Test("5xx answers after the server has answered are retried as usual")
    func serverErrorsAfterAnAnswerAreRetried() async throws {
        let busy = ModelFailure(kind: .http, status: 503, message: "busy", retryable: true)
        let model = SlowModel(delay: .zero, script: [nil] + Array(repeating: busy, count: 10))
        let sink = Recorded()
        let outcome = try await Runner(
            model: model, sink: sink, retryPolicy: RetryPolicy(jitter: false), concurrency: 1, clock: VirtualClock()
        ).run(Self.trials(2))
        #expect(outcome.stopReason == nil)
        #expect(await sink.results.count == 2)
        #expect(model.requests == 6, "one answer, then five attempts for the second trial")
    }

    @Test("a 429 while other requests are answered does not use up an attempt")
    func rateLimitsWhileOthersSucceedAreFree() async throws {
        let limited = ModelFailure(kind: .http, status: 429, message: "slow down", retryable: true, retryAfter: .milliseconds(10))
        // Every other request is a 429: with no retries allowed, each trial still gets its answer.
        let model = SlowModel(delay: .zero, script: Array(repeating: [limited, nil], count: 20).flatMap { $0 })
        let sink = Recorded()
        let outcome = try await Runner(
            model: model, sink: sink, retryPolicy: RetryPolicy(maxRetries: 0, jitter: false), concurrency: 1,
            clock: VirtualClock()
        ).run(Self.trials(10))
        #expect(outcome.stopReason == nil)
        let results = await sink.results
        #expect(results.count == 10)
        #expect(results.filter { $0.failure != nil }.count == 1, "only the first trial's 429 came before any answer")
        // While nothing is answered, a 429 counts: a server that only answers 429 fails the trial.
        let only = SlowModel(delay: .zero, script: Array(repeating: limited, count: 10))
        let failing = Recorded()
        try await Runner(
            model: only, sink: failing, retryPolicy: RetryPolicy(maxRetries: 2, jitter: false), concurrency: 1,
            clock: VirtualClock()
        ).run(Self.trials(1))
        #expect(await failing.results.first?.failure?.status == 429)
        #expect(only.requests == 3)
    }

    @Test("the default policy tries five times in all, with growing waits")
    func defaultRetries() async throws {
        // Timeouts: 5xx answers with nothing ever answered stop the run instead (below).
        let busy = ModelFailure(kind: .timeout, message: "slow", retryable: true)
        let model = SlowModel(delay: .zero, script: Array(repeating: busy, count: 10))
        let sink = Recorded()
        let clock = VirtualClock()
        try await Runner(model: model, sink: sink, retryPolicy: RetryPolicy(jitter: false), clock: clock).run(Self.trials(1))
        #expect(model.requests == 5)
        #expect(await sink.results.first?.attempts == 5)
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)])
    }

    @Test("empty content cut by the token limit is recorded as an empty, truncated answer")
    func emptyAtTheLimit() async throws {
        let answer = ModelAnswer(content: "", finishReason: "length", completionTokens: 50, reasoningTokens: 50)
        let sink = Recorded()
        try await Runner(model: SlowModel(delay: .zero, answer: answer), sink: sink).run(Self.trials(1))
        let result = try #require(await sink.results.first)
        let scores = Dictionary(uniqueKeysWithValues: result.scores.map { ($0.name, $0) })
        #expect(result.answer != nil)
        #expect(scores[ScoreName.empty]?.isFlagged == true)
        #expect(scores[ScoreName.empty]?.detail?.contains("token limit ran out") == true)
        #expect(scores[ScoreName.truncated]?.isFlagged == true)
    }
}
