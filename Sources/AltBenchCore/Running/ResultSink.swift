import Foundation

/// How one trial ended.
package enum TrialOutcome: Sendable, Hashable {
    /// The model answered; `cached` when the answer came from the store, not a request.
    case answered(ModelAnswer, cached: Bool)
    /// No answer: the image could not be sent, or every attempt failed.
    case failed(ModelFailure)
}

/// A finished trial, as the runner hands it to the store.
package struct TrialResult: Sendable, Hashable {
    package var trial: Trial
    package var outcome: TrialOutcome
    package var scores: [Score]
    /// Tries of this trial: requests sent, retries included (a token-field fallback's second
    /// request is part of its try). 0 when the answer came from the store, or when nothing
    /// could be sent (a bad image, `--offline`).
    package var attempts: Int
    package var startedAt: Date
    package var finishedAt: Date
    /// USD this trial's request cost, from the usage the server reported and the model's
    /// price; 0 for an answer from the store; `nil` when the model has no price or nothing
    /// was reported.
    package var costUSD: Double? = nil
    /// The Batch API batch that answered it; `nil` for a live request or an answer from the store.
    package var batchID: String? = nil

    package init(trial: Trial, outcome: TrialOutcome, scores: [Score], attempts: Int, startedAt: Date, finishedAt: Date) {
        self.trial = trial
        self.outcome = outcome
        self.scores = scores
        self.attempts = attempts
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    package var answer: ModelAnswer? {
        if case .answered(let answer, _) = outcome { return answer }
        return nil
    }

    package var failure: ModelFailure? {
        if case .failed(let failure) = outcome { return failure }
        return nil
    }

    package var cached: Bool {
        if case .answered(_, let cached) = outcome { return cached }
        return false
    }
}

/// Where results go as they arrive, and where earlier answers are found.
package protocol ResultSink: Sendable {
    /// A stored answer for this cache key, if any.
    func cachedAnswer(forKey key: String) async throws -> ModelAnswer?
    /// Records one finished trial durably before returning.
    func record(_ result: TrialResult) async throws
}

/// A snapshot of a run's progress.
package struct RunProgress: Sendable, Hashable {
    package var done: Int
    package var total: Int
    package var failed: Int
    package var cached: Int
    package var elapsed: Duration
    /// Requests sent again after a retryable failure.
    package var retries: Int

    package init(done: Int, total: Int, failed: Int, cached: Int, elapsed: Duration, retries: Int = 0) {
        self.done = done
        self.total = total
        self.failed = failed
        self.cached = cached
        self.elapsed = elapsed
        self.retries = retries
    }
}

