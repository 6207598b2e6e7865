import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchCore

/// A model that answers from a script, then from a rule over the trial's index (read from
/// the request's image identity, `sha256:INDEX`), counting requests; an optional real pause
/// lets requests overlap at higher concurrency.
private final class PricedModel: VisionModel, @unchecked Sendable {
    let endpoint = "fake"
    private let lock = NSLock()
    private var started = 0
    private var script: [Result<ModelAnswer, ModelFailure>]
    private let rule: @Sendable (Int) -> Result<ModelAnswer, ModelFailure>
    private let pause: Duration
    private let onRequest: (@Sendable () -> Void)?

    init(
        _ script: [Result<ModelAnswer, ModelFailure>] = [], pause: Duration = .zero,
        onRequest: (@Sendable () -> Void)? = nil,
        rule: @escaping @Sendable (Int) -> Result<ModelAnswer, ModelFailure> = { _ in .success(RunnerCostTests.usage()) }
    ) {
        self.script = script
        self.pause = pause
        self.onRequest = onRequest
        self.rule = rule
    }

    var requests: Int { lock.withLock { started } }

    func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        let index = Int(request.imageIdentity.split(separator: ":").last ?? "") ?? -1
        let result: Result<ModelAnswer, ModelFailure> = lock.withLock {
            started += 1
            return script.isEmpty ? rule(index) : script.removeFirst()
        }
        onRequest?()
        if pause > .zero { try await Task.sleep(for: pause) }
        return try result.get()
    }
}

/// Collects results in memory and serves cached answers by key.
private actor Collected: ResultSink {
    var results: [TrialResult] = []
    let cache: [String: ModelAnswer]

    init(cache: [String: ModelAnswer] = [:]) { self.cache = cache }

    func cachedAnswer(forKey key: String) async throws -> ModelAnswer? { cache[key] }
    func record(_ result: TrialResult) async throws { results.append(result) }

    var costSum: Double { results.reduce(0) { $0 + ($1.costUSD ?? 0) } }
}

@Suite("Runner: trial costs and the spending limit")
struct RunnerCostTests {
    /// $1000 per million input tokens ($0.001 each), $500 cached, $2000 output ($0.002 each):
    /// round figures for the arithmetic below.
    static let prices = PriceTable(models: ["m": ModelPrice(input: 1000, cachedInput: 500, output: 2000)])
    /// 1000 input tokens and up to 50 output tokens: $1.10 at most.
    static let estimate = RequestEstimate(textTokens: 200, imageTokens: 800, outputTokensMax: 50)
    static let high = 1.10
    /// What ``usage()`` costs: 1000 prompt tokens and 20 completion tokens.
    static let actual = 1.04

    static func trials(_ count: Int, estimate: (Int) -> RequestEstimate = { _ in RunnerCostTests.estimate }) -> [Trial] {
        RunnerTests.trials(count).map { trial in
            var trial = trial
            trial.estimate = estimate(trial.id)
            return trial
        }
    }

    static func usage(prompt: Int? = 1000, cached: Int? = nil, completion: Int? = 20) -> ModelAnswer {
        var answer = ModelAnswer(
            content: "A cat.", finishReason: "stop", promptTokens: prompt, completionTokens: completion,
            totalTokens: prompt.flatMap { p in completion.map { p + $0 } })
        answer.cachedTokens = cached
        return answer
    }

    static let timeout = ModelFailure(kind: .timeout, message: "no answer within 60s", retryable: true)
    static let fastRetries = RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(100), jitter: false)

    static func close(_ a: Double?, _ b: Double) -> Bool {
        guard let a else { return false }
        return abs(a - b) < 1e-9
    }

    // MARK: Each trial's cost

    @Test(arguments: [
        ("usage at the list price", Result<ModelAnswer, ModelFailure>.success(usage()), Optional(1.04)),
        ("cached prompt tokens at the cached price", .success(usage(cached: 400)), 0.84),
        ("no usage reported", .success(usage(prompt: nil, completion: nil)), nil),
        ("no completion tokens reported", .success(usage(completion: nil)), nil),
        ("an HTTP error, which is not billed", .failure(RunnerTests.failure(status: 400, retryable: false)), 0),
        ("a timeout after the last retry", .failure(timeout), 0),
    ])
    func eachTrialCarriesItsCost(_ name: String, answer: Result<ModelAnswer, ModelFailure>, expected: Double?) async throws {
        let sink = Collected()
        try await Runner(
            model: PricedModel([answer]), sink: sink, retryPolicy: RetryPolicy(maxRetries: 0), concurrency: 1,
            clock: VirtualClock(), prices: Self.prices
        ).run(Self.trials(1))
        let result = try #require(await sink.results.first)
        if let expected {
            #expect(Self.close(result.costUSD, expected), "\(name): \(String(describing: result.costUSD))")
        } else {
            #expect(result.costUSD == nil, "\(name)")
        }
    }

    @Test func anAnswerFromTheStoreCostsNothing() async throws {
        let trials = Self.trials(2)
        let sink = Collected(cache: [trials[0].key!: Self.usage()])
        try await Runner(model: PricedModel(), sink: sink, concurrency: 1, prices: Self.prices).run(trials)
        let results = await sink.results.sorted { $0.trial.id < $1.trial.id }
        #expect(results.map(\.costUSD) == [0, Self.actual])
    }

    @Test func withoutAPriceAnAnswerHasNoCostAndTheRestStayZero() async throws {
        let trials = Self.trials(3)
        let sink = Collected(cache: [trials[0].key!: Self.usage()])
        try await Runner(
            model: PricedModel([.success(Self.usage()), .failure(RunnerTests.failure(status: 400, retryable: false))]),
            sink: sink, concurrency: 1
        ).run(trials)
        let results = await sink.results.sorted { $0.trial.id < $1.trial.id }
        #expect(results.map(\.costUSD) == [0, nil, 0])
    }

    @Test("a request model without a price is priced by the model the answer names (Azure's v1 API, proxies)")
    func pricedByTheAnsweringModel() async throws {
        let table = PriceTable(models: ["gpt-4o": ModelPrice(input: 1000, cachedInput: 500, output: 2000)])
        var named = Self.usage()
        named.responseModel = "gpt-4o-2024-08-06"
        var unknown = Self.usage()
        unknown.responseModel = "alt-text-deployment"
        let sink = Collected()
        try await Runner(
            model: PricedModel([.success(named), .success(unknown)]), sink: sink, concurrency: 1, prices: table
        ).run(Self.trials(2))
        let results = await sink.results.sorted { $0.trial.id < $1.trial.id }
        #expect(Self.close(results[0].costUSD, Self.actual))
        #expect(results[1].costUSD == nil)
    }

    // MARK: The spending limit, one request at a time

    @Test(arguments: [1, 2, 5])
    func aLimitThatAllowsExactlyNRequestsSendsNThenTheRestCompleteWithAHigherOne(_ allowed: Int) async throws {
        // Each answer costs $1.04 and reserves $1.10 before it is sent: N requests fit when
        // (N − 1) answers and one more reservation do.
        let limit = Self.actual * Double(allowed - 1) + Self.high
        let trials = Self.trials(8)
        let model = PricedModel()
        let sink = Collected()
        let first = try await Runner(
            model: model, sink: sink, concurrency: 1, clock: VirtualClock(), prices: Self.prices, maxCost: limit
        ).run(trials)
        #expect(model.requests == allowed)
        #expect(await sink.results.count == allowed)
        guard case .costLimit(let stopLimit, let spent) = first.stopReason else {
            Issue.record("expected a cost-limit stop, got \(String(describing: first.stopReason))")
            return
        }
        #expect(stopLimit == limit)
        #expect(Self.close(spent, Self.actual * Double(allowed)))
        #expect(Self.close(first.spentUSD, Self.actual * Double(allowed)))
        #expect(Self.close(await sink.costSum, Self.actual * Double(allowed)))

        // The trial that did not fit was not recorded: a second run asks it and the rest.
        let done = Set(await sink.results.map(\.trial.id))
        let rest = trials.filter { !done.contains($0.id) }
        let second = try await Runner(
            model: model, sink: sink, concurrency: 1, clock: VirtualClock(), prices: Self.prices, maxCost: 100
        ).run(rest)
        #expect(second.stopReason == nil)
        #expect(model.requests == 8)
        #expect(Set(await sink.results.map(\.trial.id)) == Set(trials.map(\.id)))
        #expect(Self.close(second.spentUSD, Self.actual * Double(8 - allowed)))
    }

    @Test func aLimitATenthOfACentShortSendsOneRequestFewer() async throws {
        let model = PricedModel()
        let outcome = try await Runner(
            model: model, sink: Collected(), concurrency: 1, clock: VirtualClock(), prices: Self.prices,
            maxCost: Self.actual * 2 + Self.high - 0.001
        ).run(Self.trials(8))
        #expect(model.requests == 2)
        #expect(outcome.stopReason?.kind == "cost_limit")
    }

    @Test func nothingStartsAfterTheStopEvenARequestThatWouldStillFit() async throws {
        // Trial 0 and 2 reserve $0.30, trial 1 $1.10. Under a $1 limit trial 1 stops the run;
        // trial 2 would fit the $0.70 left but is not sent.
        let small = RequestEstimate(textTokens: 100, imageTokens: 100, outputTokensMax: 50)
        let model = PricedModel(rule: { _ in .success(Self.usage(prompt: 200, completion: 50)) })
        let sink = Collected()
        let outcome = try await Runner(
            model: model, sink: sink, concurrency: 1, clock: VirtualClock(), prices: Self.prices, maxCost: 1
        ).run(Self.trials(3) { $0 == 1 ? Self.estimate : small })
        #expect(model.requests == 1)
        #expect(await sink.results.map(\.trial.id) == [0])
        #expect(outcome.stopReason == .costLimit(limit: 1, spent: 0.3))
    }

    @Test func cachedAnswersNeedNoRoomInTheBudget() async throws {
        let trials = Self.trials(3)
        let sink = Collected(cache: [trials[0].key!: Self.usage(), trials[2].key!: Self.usage()])
        let model = PricedModel()
        let outcome = try await Runner(
            model: model, sink: sink, concurrency: 1, clock: VirtualClock(), prices: Self.prices, maxCost: 0.5
        ).run(trials)
        // Trial 0 comes from the store; trial 1 cannot be afforded and stops the run there.
        #expect(model.requests == 0)
        #expect(await sink.results.map(\.trial.id) == [0])
        #expect(outcome.stopReason == .costLimit(limit: 0.5, spent: 0))
        #expect(outcome.spentUSD == 0)
    }

    @Test func anAnswerWithoutUsageCountsItsWholeReservation() async throws {
        let model = PricedModel(rule: { _ in .success(Self.usage(prompt: nil, completion: nil)) })
        let sink = Collected()
        let outcome = try await Runner(
            model: model, sink: sink, concurrency: 1, clock: VirtualClock(), prices: Self.prices, maxCost: 3.5
        ).run(Self.trials(6))
        // $1.10 each, as far as anyone knows: three fit in $3.50.
        #expect(model.requests == 3)
        #expect(await sink.results.allSatisfy { $0.costUSD == nil })
        #expect(Self.close(outcome.spentUSD, 3.3))
        guard case .costLimit(_, let spent) = outcome.stopReason else {
            Issue.record("expected a cost-limit stop, got \(String(describing: outcome.stopReason))")
            return
        }
        #expect(Self.close(spent, 3.3))
    }

    @Test func aTimeoutCountsItsReservationAndTheRetryReservesAgain() async throws {
        let model = PricedModel([.failure(Self.timeout)])
        let sink = Collected()
        let outcome = try await Runner(
            model: model, sink: sink, retryPolicy: Self.fastRetries, concurrency: 1, clock: VirtualClock(),
            prices: Self.prices, maxCost: 10
        ).run(Self.trials(1))
        let result = try #require(await sink.results.first)
        #expect(result.attempts == 2)
        // The answer's own cost; the timed-out request may have been billed too, which only
        // the budget counts (at its high estimate).
        #expect(Self.close(result.costUSD, Self.actual))
        #expect(Self.close(outcome.spentUSD, Self.high + Self.actual))
        #expect(outcome.stopReason == nil)
    }

    @Test func aRetryAfterATimeoutThatNoLongerFitsStopsTheRun() async throws {
        let model = PricedModel([.failure(Self.timeout)])
        let sink = Collected()
        let outcome = try await Runner(
            model: model, sink: sink, retryPolicy: Self.fastRetries, concurrency: 1, clock: VirtualClock(),
            prices: Self.prices, maxCost: 2
        ).run(Self.trials(2))
        #expect(model.requests == 1)
        #expect(await sink.results.isEmpty, "the trial is left for a later run")
        #expect(outcome.stopReason == .costLimit(limit: 2, spent: Self.high))
        #expect(outcome.spentUSD == Self.high)
    }

    @Test func aRetryAfterAnHTTPErrorKeepsItsReservation() async throws {
        // A limit of one request: the 503 is not billed, so its retry needs no second $1.10.
        let model = PricedModel([.failure(RunnerTests.failure(status: 503, retryable: true))])
        let sink = Collected()
        let outcome = try await Runner(
            model: model, sink: sink, retryPolicy: Self.fastRetries, concurrency: 1, clock: VirtualClock(),
            prices: Self.prices, maxCost: Self.high
        ).run(Self.trials(1))
        #expect(outcome.stopReason == nil)
        #expect(try #require(await sink.results.first).attempts == 2)
        #expect(Self.close(outcome.spentUSD, Self.actual))
    }

    @Test func aFailedTrialSpendsNothing() async throws {
        let model = PricedModel(rule: { _ in .failure(RunnerTests.failure(status: 400, retryable: false)) })
        let sink = Collected()
        let outcome = try await Runner(
            model: model, sink: sink, concurrency: 1, clock: VirtualClock(), prices: Self.prices, maxCost: Self.high
        ).run(Self.trials(5))
        #expect(model.requests == 5)
        #expect(outcome.stopReason == nil)
        #expect(outcome.spentUSD == 0)
        #expect(await sink.results.allSatisfy { $0.costUSD == 0 })
    }

    @Test func aRequestCutOffAtTheEndOfTheGracePeriodCountsItsReservation() async throws {
        // The model stops the run as its request starts and never answers; with the virtual
        // clock the grace period ends at once and the request is cancelled in flight.
        let control = RunControl()
        let model = PricedModel(pause: .seconds(3600), onRequest: { control.stop(.interrupted(signal: "SIGINT")) })
        let sink = Collected()
        let outcome = try await Runner(
            model: model, sink: sink, concurrency: 1, clock: VirtualClock(), control: control, gracePeriod: .seconds(5),
            prices: Self.prices, maxCost: 10
        ).run(Self.trials(3))
        #expect(model.requests == 1)
        #expect(await sink.results.isEmpty)
        #expect(outcome.stopReason == .interrupted(signal: "SIGINT"))
        #expect(outcome.spentUSD == Self.high)
    }

    @Test func withoutALimitNoSpendStopsTheRun() async throws {
        let model = PricedModel()
        let sink = Collected()
        let outcome = try await Runner(model: model, sink: sink, concurrency: 4, prices: Self.prices).run(Self.trials(30))
        #expect(outcome.stopReason == nil)
        #expect(outcome.spentUSD == nil)
        #expect(model.requests == 30)
        #expect(Self.close(await sink.costSum, Self.actual * 30))
    }

    // MARK: The spending limit, many requests at once

    @Test(arguments: [0.5, 1.1, 3.3, 7.77, 20.0, 41.5, 100.0])
    func atConcurrencyEightSpendingNeverPassesTheLimit(_ limit: Double) async throws {
        // Answers cost $1.00 to $1.10 (0 to 50 completion tokens), so requests in flight give
        // back part of their reservation as they settle.
        let model = PricedModel(pause: .milliseconds(2), rule: { index in .success(Self.usage(completion: (index * 7) % 51)) })
        let sink = Collected()
        let outcome = try await Runner(model: model, sink: sink, concurrency: 8, prices: Self.prices, maxCost: limit)
            .run(Self.trials(60))
        let results = await sink.results
        let recorded = await sink.costSum
        #expect(recorded <= limit + 1e-9, "recorded \(recorded) of \(limit)")
        let spent = try #require(outcome.spentUSD)
        #expect(spent <= limit + 1e-9)
        #expect(Self.close(spent, recorded), "every cost was reported, so the budget spent what was recorded")
        // Every request sent finished within the grace period and was recorded.
        #expect(model.requests == results.count)
        if limit >= 66 {
            #expect(outcome.stopReason == nil)
            #expect(results.count == 60)
        } else {
            guard case .costLimit(let stopLimit, let committed) = outcome.stopReason else {
                Issue.record("expected a cost-limit stop, got \(String(describing: outcome.stopReason))")
                return
            }
            #expect(stopLimit == limit)
            #expect(committed + Self.high > limit, "the request refused did not fit")
            #expect(results.count < 60)
        }
    }
}
