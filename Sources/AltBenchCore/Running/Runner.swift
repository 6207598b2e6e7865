import Foundation

/// Executes trials: cache look-up, pacing through a `RequestGate`, the request with retries,
/// scoring, and hand-off to the sink as each trial completes.
///
/// Failures fall into three classes (`ModelFailure.Severity`): retryable ones are retried
/// under the `RetryPolicy`; item-fatal ones are recorded as the trial's failure; run-fatal
/// ones stop the run. A server that cannot be reached at all stops the run too: until some
/// request reaches the server, `connectFailureLimit` requests in a row (retries included)
/// that could not connect end it as misconfigured, rather than retrying every trial for
/// minutes. Once a request has reached the server, connection failures are retried like any
/// other, but a server that stays gone stops the run as lost (``StopReason/serverLost(_:)``,
/// resumable): `serverLostRequests` requests in a row that could not connect, spread over at
/// least `serverLostAfter`, so a restart of a few seconds costs retries, not the run. A stop — that, a signal, or the deadline — starts no new request and
/// ends every wait at once; requests in flight get `gracePeriod` to finish, then are
/// cancelled. Trials that did not finish are not recorded (a later run or `--resume` asks
/// them again); everything recorded stays recorded.
public struct Runner: Sendable {
    public var model: any VisionModel
    public var sink: any ResultSink
    public var scorers: [any Scorer]
    public var settings: ScoringSettings
    /// The run's references, for CIDEr-D's document frequencies (``ReferenceCorpus``).
    public var corpus: ReferenceCorpus?
    public var retryPolicy: RetryPolicy
    /// The most requests in flight at once (`--concurrency`); the gate adapts below it.
    public var concurrency: Int
    public var requestsPerMinute: Double?
    public var tokensPerMinute: Double?
    public var useCache: Bool
    public var clock: any RunClock
    public var control: RunControl
    /// How long requests in flight may take to finish once the run is stopping.
    public var gracePeriod: Duration
    /// How long the run may take from its start (`--deadline`).
    public var deadline: Duration?
    /// How many requests in a row that could not connect, with none reaching the server
    /// before them, stop the run (``connectFailureLimit(concurrency:)`` by default).
    public var connectFailureLimit: Int
    /// How long a server that had answered may refuse connections (with at least
    /// ``serverLostRequests`` requests in a row failing to connect) before the run stops as
    /// lost.
    public var serverLostAfter: Duration
    public var onProgress: (@Sendable (RunProgress) -> Void)?

    public init(
        model: any VisionModel, sink: any ResultSink, scorers: [any Scorer] = ScoringSuite.standard,
        settings: ScoringSettings = ScoringSettings(), corpus: ReferenceCorpus? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(), concurrency: Int = 4, requestsPerMinute: Double? = nil, tokensPerMinute: Double? = nil,
        useCache: Bool = true, clock: any RunClock = SystemRunClock(), control: RunControl = RunControl(),
        gracePeriod: Duration = .seconds(5), deadline: Duration? = nil, connectFailureLimit: Int? = nil,
        serverLostAfter: Duration = .seconds(30), onProgress: (@Sendable (RunProgress) -> Void)? = nil
    ) {
        self.model = model
        self.sink = sink
        self.scorers = scorers
        self.settings = settings
        self.corpus = corpus
        self.retryPolicy = retryPolicy
        self.concurrency = max(1, concurrency)
        self.requestsPerMinute = requestsPerMinute
        self.tokensPerMinute = tokensPerMinute
        self.useCache = useCache
        self.clock = clock
        self.control = control
        self.gracePeriod = gracePeriod
        self.deadline = deadline
        self.connectFailureLimit = max(1, connectFailureLimit ?? Self.connectFailureLimit(concurrency: concurrency))
        self.serverLostAfter = serverLostAfter
        self.onProgress = onProgress
    }

    /// The rule for a server that cannot be reached: the run's concurrency, at least 3 and at
    /// most 10. At concurrency 4 the first four requests, sent at once, decide within the
    /// time one connection attempt takes; at concurrency 1 the first request and two retries
    /// (0.5 s and 1 s later) give a server that is still starting a moment; above 10, ten
    /// failures are evidence enough.
    public static func connectFailureLimit(concurrency: Int) -> Int {
        min(10, max(3, concurrency))
    }

    /// Requests in a row that could not connect, after the server had answered, that (over
    /// ``serverLostAfter``) make it lost.
    public static let serverLostRequests = 10

    /// How a run ended.
    public struct Outcome: Sendable {
        public var progress: RunProgress
        /// Why the run stopped early; `nil` when every trial was done.
        public var stopReason: StopReason?
        /// The gate's figures: 429s seen, window decreases, paced waits.
        public var pacing: RequestGate.Statistics
    }

    private enum Role: Sendable {
        case worker, watchdog, timer
    }

    /// Raised inside the run when the grace period ends with requests still in flight.
    private struct GraceExpired: Error {}

    /// Runs every trial (or until stopped) and returns the tally.
    @discardableResult
    public func run(_ trials: [Trial]) async throws -> Outcome {
        let tally = Tally(total: trials.count, start: clock.now, clock: clock)
        let gate = RequestGate(
            settings: .init(
                maxConcurrency: concurrency, requestsPerMinute: requestsPerMinute, tokensPerMinute: tokensPerMinute),
            clock: clock, control: control)
        let queue = TrialQueue(trials, control: control)
        let reach = ServerReach(limit: connectFailureLimit, lostRequests: Self.serverLostRequests, lostAfter: serverLostAfter)
        let workers = min(concurrency, max(trials.count, 1))
        let start = clock.now
        do {
            try await withThrowingTaskGroup(of: Role.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        while let trial = queue.next() {
                            try await self.perform(trial, gate: gate, tally: tally, reach: reach)
                        }
                        return .worker
                    }
                }
                group.addTask {
                    await self.control.wait(for: .stopping)
                    guard !Task.isCancelled else { return .watchdog }
                    await gate.close()
                    await self.graceWait()
                    guard !Task.isCancelled else { return .watchdog }
                    throw GraceExpired()
                }
                if let deadline {
                    group.addTask {
                        // Cancelled once every worker is done.
                        if (try? await self.control.sleep(until: start + deadline, on: self.clock)) == true {
                            self.control.stop(.deadline(deadline))
                        }
                        return .timer
                    }
                }
                var working = workers
                while let role = try await group.next() {
                    guard role == .worker else { continue }
                    working -= 1
                    if working == 0 { group.cancelAll() }
                }
            }
        } catch is GraceExpired {
            // Requests still in flight were cancelled; their trials stay unrecorded.
        } catch is CancellationError where control.isStopping {
        }
        return Outcome(
            progress: await tally.snapshot(), stopReason: control.stopReason, pacing: await gate.statistics)
    }

    /// The grace period, cut short by `abort`.
    private func graceWait() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await self.clock.sleep(for: self.gracePeriod) }
            group.addTask { await self.control.wait(for: .aborting) }
            await group.next()
            group.cancelAll()
        }
    }

    private func perform(_ trial: Trial, gate: RequestGate, tally: Tally, reach: ServerReach) async throws {
        let started = Date()
        guard let (outcome, attempts) = try await outcome(for: trial, gate: gate, tally: tally, reach: reach) else { return }
        let scores: [Score]
        if case .answered(let answer, _) = outcome {
            scores = ScoringSuite.evaluate(answer.scoringInput(settings, item: ScoringItem(trial.item), corpus: corpus), scorers: scorers)
        } else {
            scores = []
        }
        let result = TrialResult(
            trial: trial, outcome: outcome, scores: scores, attempts: attempts, startedAt: started, finishedAt: Date())
        try await sink.record(result)
        let progress = await tally.add(result)
        onProgress?(progress)
    }

    /// The trial's outcome and the requests it took; `nil` when the run stopped first.
    private func outcome(
        for trial: Trial, gate: RequestGate, tally: Tally, reach: ServerReach
    ) async throws -> (TrialOutcome, Int)? {
        guard let request = trial.request, let key = trial.key else {
            let message = trial.item.problem?.message ?? "the image of item '\(trial.item.id)' cannot be sent."
            return (.failed(ModelFailure(kind: .image, message: message, retryable: false)), 0)
        }
        if useCache, let cached = try await sink.cachedAnswer(forKey: key) {
            return (.answered(cached, cached: true), 0)
        }
        let cost = request.estimatedTokens
        var attempt = 0
        while true {
            guard let permit = try await gate.acquire(cost: cost) else { return nil }
            attempt += 1
            let failure: ModelFailure
            let start = ContinuousClock.now
            do {
                var answer = try await model.complete(request)
                answer.latencyMs = (ContinuousClock.now - start).milliseconds
                reach.reached()
                await gate.release(permit, .answered(answer.rateLimit, usedTokens: answer.totalTokens))
                return (.answered(answer, cached: false), attempt)
            } catch let error as ModelFailure {
                failure = error
            } catch {
                if error is CancellationError || Task.isCancelled {
                    await gate.release(permit, .abandoned)
                    throw CancellationError()
                }
                failure = ModelFailure(kind: .transport, message: String(describing: error), retryable: true)
            }
            await gate.release(
                permit,
                failure.isRateLimit
                    ? .rateLimited(retryAfter: failure.retryAfter, failure.rateLimit) : .failed(failure.rateLimit))
            if failure.cannotConnect {
                switch reach.failedToConnect(at: clock.now) {
                case .unreachable:
                    var stop = failure
                    stop.stopsRun = true
                    control.stop(.failure(stop))
                    return nil
                case .lost(let requests, let over):
                    var stop = failure
                    stop.message =
                        "the server stopped answering: \(requests) requests in a row over \(DurationText.format(over)) could not connect, after it had answered. \(failure.message)"
                    control.stop(.serverLost(stop))
                    return nil
                case .retry:
                    break
                }
            } else if failure.kind != .image && failure.kind != .notStored {
                // An HTTP error, a timeout or a connection lost midway: the server is there.
                reach.reached()
            }
            switch failure.severity {
            case .runFatal:
                control.stop(.failure(failure))
                return nil
            case .itemFatal:
                // An image that could not be read, or --offline: nothing was sent.
                let sent = failure.kind == .image || failure.kind == .notStored ? attempt - 1 : attempt
                return (.failed(failure), sent)
            case .retryable:
                guard let wait = retryPolicy.delay(afterFailure: failure, retry: attempt - 1) else {
                    return (.failed(failure), attempt)
                }
                await tally.retried()
                guard try await control.sleep(until: clock.now + wait, on: clock) else { return nil }
            }
        }
    }
}

/// Hands out trials in plan order until the run starts stopping.
private final class TrialQueue: @unchecked Sendable {
    private let lock = NSLock()
    private let trials: [Trial]
    private var position = 0
    private let control: RunControl

    init(_ trials: [Trial], control: RunControl) {
        self.trials = trials
        self.control = control
    }

    func next() -> Trial? {
        if control.isStopping { return nil }
        return lock.withLock {
            guard position < trials.count else { return nil }
            defer { position += 1 }
            return trials[position]
        }
    }
}

/// Whether any request has reached the server yet, and how many requests in a row could not
/// connect (and since when): the evidence for stopping a run whose server is not there, or
/// is gone.
private final class ServerReach: @unchecked Sendable {
    enum Verdict {
        /// Retry under the policy.
        case retry
        /// The server was never reached: the run is misconfigured.
        case unreachable
        /// The server had answered and has refused connections for this many requests, over
        /// this long.
        case lost(requests: Int, over: Duration)
    }

    private let lock = NSLock()
    private let limit: Int
    private let lostRequests: Int
    private let lostAfter: Duration
    private var hasReached = false
    private var failures = 0
    private var failingSince: Duration?

    init(limit: Int, lostRequests: Int, lostAfter: Duration) {
        self.limit = limit
        self.lostRequests = lostRequests
        self.lostAfter = lostAfter
    }

    /// A request got an answer (of any kind) from the server: the streak of connection
    /// failures ends.
    func reached() {
        lock.withLock {
            hasReached = true
            failures = 0
            failingSince = nil
        }
    }

    /// Counts a request that could not connect at `now`; says whether the run should stop.
    func failedToConnect(at now: Duration) -> Verdict {
        lock.withLock {
            failures += 1
            let since = failingSince ?? now
            failingSince = since
            if !hasReached { return failures >= limit ? .unreachable : .retry }
            guard failures >= lostRequests, now - since >= lostAfter else { return .retry }
            return .lost(requests: failures, over: now - since)
        }
    }
}

/// Counts finished trials for progress lines.
private actor Tally {
    let total: Int
    let start: Duration
    let clock: any RunClock
    var done = 0
    var failed = 0
    var cached = 0
    var retries = 0

    init(total: Int, start: Duration, clock: any RunClock) {
        self.total = total
        self.start = start
        self.clock = clock
    }

    func add(_ result: TrialResult) -> RunProgress {
        done += 1
        if result.failure != nil { failed += 1 }
        if result.cached { cached += 1 }
        return snapshot()
    }

    func retried() { retries += 1 }

    func snapshot() -> RunProgress {
        RunProgress(
            done: done, total: total, failed: failed, cached: cached, elapsed: clock.now - start, retries: retries)
    }
}

extension Duration {
    /// The duration in (fractional) milliseconds.
    public var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}
