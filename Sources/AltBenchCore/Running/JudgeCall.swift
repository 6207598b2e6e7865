import Foundation

/// One request to the judge about one stored answer: which trial, which repeat, the request
/// itself and the key its answer is cached under.
///
/// Built by the judging pass (``JudgePlan``) from a run's answered trials; the runner sends it
/// like a trial's request (``Runner/judge(_:sink:)``).
package struct JudgeCall: Sendable, Hashable {
    /// The stored trial whose answer is judged (`trial.id` in the store).
    package var trialID: Int64
    /// 0 for the verdict the scores use first; 1... for `--judge-repeats`.
    package var repeatIndex: Int
    package var request: ModelRequest
    /// The cache key of the judge's answer: endpoint, model, rubric, image, answer, context and
    /// language, plus the repeat (``JudgeCacheKey``).
    package var key: String
    /// The request's size, for pacing and the spending limit.
    package var estimate: RequestEstimate

    package init(trialID: Int64, repeatIndex: Int, request: ModelRequest, key: String, estimate: RequestEstimate) {
        self.trialID = trialID
        self.repeatIndex = repeatIndex
        self.request = request
        self.key = key
        self.estimate = estimate
    }
}

/// How one judge call ended, as the runner hands it to the store.
package struct JudgeCallResult: Sendable, Hashable {
    package var call: JudgeCall
    /// The judge's answer (from the store when `cached`), or why there is none.
    package var outcome: TrialOutcome
    /// Requests sent, retries included; 0 for a cached answer.
    package var attempts: Int
    package var startedAt: Date
    package var finishedAt: Date
    /// USD the call cost: 0 when cached or failed, `nil` when unknown.
    package var costUSD: Double? = nil

    package init(call: JudgeCall, outcome: TrialOutcome, attempts: Int, startedAt: Date, finishedAt: Date) {
        self.call = call
        self.outcome = outcome
        self.attempts = attempts
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }
}

/// Where judge results go, and where earlier judge answers are found.
package protocol JudgeSink: Sendable {
    /// A stored judge answer for this key whose verdict could be read, if any.
    func cachedJudgeAnswer(forKey key: String) async throws -> ModelAnswer?
    /// Records one judge call durably before returning.
    func record(_ result: JudgeCallResult) async throws
}

extension TrialOutcome {
    /// The failure, when there was no answer.
    package var failure: ModelFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }

    /// Whether the answer came from the store.
    package var cached: Bool {
        if case .answered(_, let cached) = self { return cached }
        return false
    }
}
