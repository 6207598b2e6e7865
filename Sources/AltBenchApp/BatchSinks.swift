import AltBenchCore
import AltBenchOpenAI
import AltBenchStore
import Foundation

/// The kinds of request a run sends through the Batch API, as `batch_input.purpose` names
/// them.
enum BatchPurpose {
    static let trials = "trials"
    static let judge = "judge"
}

/// What a ``BatchRun`` sends and where each answer goes: the one orchestration (files,
/// uploads, batches, polls, imports, resubmissions) serves a run's trials
/// (``TrialBatchSink``) and a judging pass's calls (``JudgeBatchSink``).
protocol BatchSink: Sendable {
    /// One thing to ask: a trial, a judge call.
    associatedtype Unit: Sendable
    /// How one ended, as the store records it.
    associatedtype Result: Sendable

    /// `batch_input.purpose` (``BatchPurpose``), also part of each input file's name.
    var purpose: String { get }
    /// What the progress line counts: "trials", "judge calls".
    var noun: String { get }
    /// Whether an answer the store holds for a unit's key is taken instead of asking.
    var useCache: Bool { get }
    /// The prices a batch answer is costed by (at the batch price); `nil` leaves costs unknown.
    var prices: PriceTable? { get }

    /// The command (or commands, each in backquotes) that continue a pass stopped while its
    /// batches run.
    func resumeCommand(runID: String) -> String
    /// The unit's cache key, which is its custom id in the input files.
    func key(of unit: Unit) -> String?
    /// The request a live pass would send for the unit; `nil` when it cannot be sent.
    func request(of unit: Unit) -> ModelRequest?
    /// Why a unit without a request or key fails.
    func unsendable(_ unit: Unit) -> ModelFailure
    /// What a message calls the unit's image: "item 'chelsea'".
    func imageOwner(_ unit: Unit) -> String
    /// A stored answer for `key`, if the store has one it would reuse.
    func cachedAnswer(forKey key: String) async throws -> ModelAnswer?
    /// The unit's outcome as a result to record: `batchID` when a batch answered it, `costUSD`
    /// its cost at the batch price.
    func result(_ unit: Unit, _ outcome: TrialOutcome, batchID: String?, costUSD: Double?) -> Result
    /// Records `results` durably, in order (a unit sharing an earlier one's answer finds it),
    /// before returning.
    func record(_ results: [Result]) async throws
}

/// A run's trials through the Batch API (`altbench run --batch`): each answer scored by the
/// run's scorers and recorded as a live answer is (the same rows, scores and cache entry),
/// with the batch's id.
struct TrialBatchSink: BatchSink {
    let recorder: RunRecorder
    /// The run's scoring rule (``Runner/scoredResult(_:outcome:attempts:startedAt:)``) and cache use.
    let runner: Runner
    let prices: PriceTable?

    var purpose: String { BatchPurpose.trials }
    var noun: String { "trials" }
    var useCache: Bool { runner.useCache }

    func resumeCommand(runID: String) -> String { "`altbench run --resume \(runID)`" }

    func key(of trial: Trial) -> String? { trial.key }

    func request(of trial: Trial) -> ModelRequest? { trial.request }

    func unsendable(_ trial: Trial) -> ModelFailure {
        ModelFailure(
            kind: .image, message: trial.item.problem?.message ?? "the image of item '\(trial.item.id)' cannot be sent.",
            retryable: false)
    }

    func imageOwner(_ trial: Trial) -> String { "item '\(trial.item.id)'" }

    func cachedAnswer(forKey key: String) async throws -> ModelAnswer? {
        try await recorder.cachedAnswer(forKey: key)
    }

    func result(_ trial: Trial, _ outcome: TrialOutcome, batchID: String?, costUSD: Double?) -> TrialResult {
        var result = runner.scoredResult(trial, outcome: outcome, attempts: batchID == nil ? 0 : 1, startedAt: Date())
        result.batchID = batchID
        result.costUSD = costUSD
        return result
    }

    func record(_ results: [TrialResult]) async throws {
        try await recorder.record(results)
    }
}

/// A judging pass's calls through the Batch API (`run --judge --batch`, `altbench judge
/// --batch`): each answer stored as the judge's answer with the verdict read from it, as a
/// live call's is (``JudgeRecorder``).
struct JudgeBatchSink: BatchSink {
    let recorder: JudgeRecorder
    let prices: PriceTable?
    let useCache: Bool

    var purpose: String { BatchPurpose.judge }
    var noun: String { "judge calls" }

    func resumeCommand(runID: String) -> String { "`altbench judge \(runID) --batch` (or `altbench run --resume \(runID)`)" }

    func key(of call: JudgeCall) -> String? { call.key }

    func request(of call: JudgeCall) -> ModelRequest? { call.request }

    func unsendable(_ call: JudgeCall) -> ModelFailure {
        ModelFailure(kind: .image, message: "the image of the judged answer cannot be sent.", retryable: false)
    }

    func imageOwner(_ call: JudgeCall) -> String {
        if case .file(let url, _) = call.request.image { return "the judged answer (\(url.path))" }
        return "the judged answer"
    }

    func cachedAnswer(forKey key: String) async throws -> ModelAnswer? {
        try await recorder.cachedJudgeAnswer(forKey: key)
    }

    func result(_ call: JudgeCall, _ outcome: TrialOutcome, batchID: String?, costUSD: Double?) -> JudgeCallResult {
        var result = JudgeCallResult(
            call: call, outcome: outcome, attempts: batchID == nil ? 0 : 1, startedAt: Date(), finishedAt: Date())
        result.costUSD = costUSD
        return result
    }

    func record(_ results: [JudgeCallResult]) async throws {
        try await recorder.record(results)
    }
}

extension BatchRun where Sink == TrialBatchSink {
    /// A batch run of a run's trials, recorded by `recorder` and scored by `runner`.
    init(
        client: BatchClient, store: ResultStore, recorder: RunRecorder, runner: Runner, runID: String, folder: URL,
        limits: BatchLimits, retries: Int, longestPoll: Duration, prices: PriceTable?, console: Console,
        control: RunControl, clock: any RunClock, deadline: Duration?, redactor: Redactor, cancelling: Bool = false
    ) {
        self.init(
            client: client, store: store, sink: TrialBatchSink(recorder: recorder, runner: runner, prices: prices),
            runID: runID, folder: folder, limits: limits, retries: retries, longestPoll: longestPoll, console: console,
            control: control, clock: clock, deadline: deadline, redactor: redactor, cancelling: cancelling)
    }
}
