import Foundation

/// Executes trials with a bound on requests in flight: cache look-up, request with retries,
/// scoring, and hand-off to the sink as each trial completes.
///
/// A failure that means the run is misconfigured (401, 403, 404, no quota) stops the run:
/// requests in flight are cancelled and `RunStopped` is thrown; everything recorded so far
/// stays recorded.
public struct Runner: Sendable {
    public var model: any VisionModel
    public var sink: any ResultSink
    public var scorers: [any Scorer]
    public var settings: ScoringSettings
    public var retryPolicy: RetryPolicy
    public var concurrency: Int
    public var useCache: Bool
    public var clock: any Clock<Duration>
    public var onProgress: (@Sendable (RunProgress) -> Void)?

    public init(
        model: any VisionModel, sink: any ResultSink, scorers: [any Scorer] = ScoringSuite.v1,
        settings: ScoringSettings = ScoringSettings(), retryPolicy: RetryPolicy = RetryPolicy(),
        concurrency: Int = 4, useCache: Bool = true, clock: any Clock<Duration> = ContinuousClock(),
        onProgress: (@Sendable (RunProgress) -> Void)? = nil
    ) {
        self.model = model
        self.sink = sink
        self.scorers = scorers
        self.settings = settings
        self.retryPolicy = retryPolicy
        self.concurrency = max(1, concurrency)
        self.useCache = useCache
        self.clock = clock
        self.onProgress = onProgress
    }

    /// Runs every trial; returns the final tally.
    @discardableResult
    public func run(_ trials: [Trial]) async throws -> RunProgress {
        let tally = Tally(total: trials.count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var pending = trials.makeIterator()
            for _ in 0..<concurrency {
                guard let trial = pending.next() else { break }
                group.addTask { try await self.perform(trial, tally: tally) }
            }
            while try await group.next() != nil {
                if let trial = pending.next() {
                    group.addTask { try await self.perform(trial, tally: tally) }
                }
            }
        }
        return await tally.snapshot()
    }

    private func perform(_ trial: Trial, tally: Tally) async throws {
        let started = Date()
        let (outcome, attempts) = try await outcome(for: trial, tally: tally)
        let scores: [Score]
        if case .answered(let answer, _) = outcome {
            scores = ScoringSuite.evaluate(answer.scoringInput(settings), scorers: scorers)
        } else {
            scores = []
        }
        let result = TrialResult(
            trial: trial, outcome: outcome, scores: scores, attempts: attempts, startedAt: started, finishedAt: Date())
        try await sink.record(result)
        let progress = await tally.add(result)
        onProgress?(progress)
    }

    private func outcome(for trial: Trial, tally: Tally) async throws -> (TrialOutcome, Int) {
        guard let request = trial.request, let key = trial.key else {
            let message = trial.item.problem?.message ?? "the image of item '\(trial.item.id)' cannot be sent."
            return (.failed(ModelFailure(kind: .image, message: message, retryable: false)), 0)
        }
        if useCache, let cached = try await sink.cachedAnswer(forKey: key) {
            return (.answered(cached, cached: true), 0)
        }
        var attempt = 0
        while true {
            try Task.checkCancellation()
            attempt += 1
            let failure: ModelFailure
            let start = ContinuousClock.now
            do {
                var answer = try await model.complete(request)
                answer.latencyMs = (ContinuousClock.now - start).milliseconds
                return (.answered(answer, cached: false), attempt)
            } catch let error as ModelFailure {
                failure = error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                failure = ModelFailure(kind: .transport, message: String(describing: error), retryable: true)
            }
            if failure.stopsRun {
                throw RunStopped(failure: failure, progress: await tally.snapshot())
            }
            guard let wait = retryPolicy.delay(afterFailure: failure, retry: attempt - 1) else {
                return (.failed(failure), attempt)
            }
            try await clock.sleep(for: wait, tolerance: nil)
        }
    }
}

/// Counts finished trials for progress lines.
private actor Tally {
    let total: Int
    var done = 0
    var failed = 0
    var cached = 0
    let start = ContinuousClock.now

    init(total: Int) { self.total = total }

    func add(_ result: TrialResult) -> RunProgress {
        done += 1
        if result.failure != nil { failed += 1 }
        if result.cached { cached += 1 }
        return snapshot()
    }

    func snapshot() -> RunProgress {
        RunProgress(done: done, total: total, failed: failed, cached: cached, elapsed: ContinuousClock.now - start)
    }
}

extension Duration {
    /// The duration in (fractional) milliseconds.
    public var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}
