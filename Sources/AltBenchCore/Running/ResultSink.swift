import Foundation

/// How one trial ended.
public enum TrialOutcome: Sendable, Hashable {
    /// The model answered; `cached` when the answer came from the store, not a request.
    case answered(ModelAnswer, cached: Bool)
    /// No answer: the image could not be sent, or every attempt failed.
    case failed(ModelFailure)
}

/// A finished trial, as the runner hands it to the store.
public struct TrialResult: Sendable, Hashable {
    public var trial: Trial
    public var outcome: TrialOutcome
    public var scores: [Score]
    /// Tries of this trial: requests sent, retries included (a token-field fallback's second
    /// request is part of its try). 0 when the answer came from the store, or when nothing
    /// could be sent (a bad image, `--offline`).
    public var attempts: Int
    public var startedAt: Date
    public var finishedAt: Date
    /// USD this trial's request cost, from the usage the server reported and the model's
    /// price; 0 for an answer from the store; `nil` when the model has no price or nothing
    /// was reported.
    public var costUSD: Double? = nil
    /// The Batch API batch that answered it; `nil` for a live request or an answer from the store.
    public var batchID: String? = nil

    public init(trial: Trial, outcome: TrialOutcome, scores: [Score], attempts: Int, startedAt: Date, finishedAt: Date) {
        self.trial = trial
        self.outcome = outcome
        self.scores = scores
        self.attempts = attempts
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    public var answer: ModelAnswer? {
        if case .answered(let answer, _) = outcome { return answer }
        return nil
    }

    public var failure: ModelFailure? {
        if case .failed(let failure) = outcome { return failure }
        return nil
    }

    public var cached: Bool {
        if case .answered(_, let cached) = outcome { return cached }
        return false
    }
}

/// Where results go as they arrive, and where earlier answers are found.
public protocol ResultSink: Sendable {
    /// A stored answer for this cache key, if any.
    func cachedAnswer(forKey key: String) async throws -> ModelAnswer?
    /// Records one finished trial durably before returning.
    func record(_ result: TrialResult) async throws
}

/// A snapshot of a run's progress.
public struct RunProgress: Sendable, Hashable {
    public var done: Int
    public var total: Int
    public var failed: Int
    public var cached: Int
    public var elapsed: Duration
    /// Requests sent again after a retryable failure.
    public var retries: Int

    public init(done: Int, total: Int, failed: Int, cached: Int, elapsed: Duration, retries: Int = 0) {
        self.done = done
        self.total = total
        self.failed = failed
        self.cached = cached
        self.elapsed = elapsed
        self.retries = retries
    }
}

