import AltBenchCore
import Foundation
import GRDB

/// The sink of one run: writes each trial, its answer and its scores in one transaction as
/// the trial completes, so a crash loses only the requests in flight.
///
/// Only answers are stored as cache entries; a failure is recorded on its trial and never
/// found by `cachedAnswer`, so the next run asks again.
package struct RunRecorder: ResultSink, TransactionalRecorder {
    let writer: any DatabaseWriter
    package let runID: String
    let endpoint: String
    let variantIDs: [String: Int64]
    let itemIDs: [String: Int64]
    let redactor: Redactor
    /// Whether a trial may already have a row (a resumed run asking failed trials again),
    /// which the new result then replaces.
    var replacesEarlierRows = false
    /// Whether answers a test server marked as scripted become cache entries; by default they
    /// are stored under ``scriptedKeyPrefix`` + the key, so no later run replays them.
    package var cachesScripted = false

    /// What a scripted answer's cache key is stored behind.
    package static let scriptedKeyPrefix = "scripted:"

    package func cachedAnswer(forKey key: String) async throws -> ModelAnswer? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM response WHERE cache_key = ? ORDER BY id DESC LIMIT 1", arguments: [key])
                .map(ResponseColumns.answer(from:))
        }
    }

    package func record(_ result: TrialResult) async throws { try await write([result]) }

    /// Records `results` in one transaction: for many at once, such as a batch's output file.
    package func record(_ results: [TrialResult]) async throws { try await write(results) }

    /// Writes one trial, its answer and its scores.
    func insert(_ result: TrialResult, db: Database) throws {
        let trial = result.trial
        guard let variantID = variantIDs[trial.variant.name], let itemID = itemIDs[trial.item.id] else {
            preconditionFailure("trial for a variant or item that beginRun did not record")
        }
        var responseID: Int64?
        switch result.outcome {
        case .answered(_, cached: true):
            // From the store, or shared with a trial of this run that sent the same request
            // (whose answer may be a scripted one, stored apart).
            responseID = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM response WHERE cache_key IN (?, ?) ORDER BY id DESC LIMIT 1"),
                arguments: [trial.key, trial.key.map { Self.scriptedKeyPrefix + $0 }])
        case .answered(let answer, cached: false):
            let key = answer.scripted == true && !cachesScripted ? Self.scriptedKeyPrefix + (trial.key ?? "") : trial.key ?? ""
            responseID = try ResponseColumns.insert(
                answer, key: key, endpoint: endpoint, request: trial.request, at: result.finishedAt,
                redactor: redactor, db: db)
        case .failed:
            responseID = nil
        }
        // A trial asked again (`--resume` after a failure) replaces its earlier row.
        if replacesEarlierRows {
            try db.execute(
            sql: """
                DELETE FROM trial WHERE run_id = ? AND variant_id = ? AND item_id = ? AND max_tokens IS ?
                  AND repeat_index = ?
                """,
                arguments: [runID, variantID, itemID, trial.maxTokens, trial.repeatIndex])
        }
        let failure = result.failure
        try db.cachedStatement(
            sql: """
                INSERT INTO trial (run_id, variant_id, item_id, max_tokens, repeat_index, model, cache_key,
                  response_id, status, cached, attempts, error_kind, error_status, error_code, error, started_at,
                  finished_at, estimated_input_tokens, estimated_image_tokens, cost_usd, batch_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                runID, variantID, itemID, trial.maxTokens, trial.repeatIndex, trial.request?.model, trial.key,
                responseID, failure == nil ? "answered" : "failed", result.cached, result.attempts,
                failure?.kind.rawValue, failure?.status, failure?.code, redactor.redactIfPresent(failure?.message),
                result.startedAt, result.finishedAt, trial.estimate?.inputTokens, trial.estimate?.imageTokens,
                result.costUSD, result.batchID,
            ])
        let trialID = db.lastInsertedRowID
        for score in result.scores {
            try db.cachedStatement(sql: "INSERT INTO score (trial_id, name, value, passed, detail) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [trialID, score.name, score.value, score.passed, redactor.redactIfPresent(score.detail)])
        }
    }
}

/// Maps `response` rows back to `ModelAnswer`, and answers to rows.
enum ResponseColumns {
    /// Stores `answer` to `request` under the cache `key`, secrets removed; its row id.
    static func insert(
        _ answer: ModelAnswer, key: String, endpoint: String, request: ModelRequest?, at date: Date, redactor: Redactor,
        db: Database
    ) throws -> Int64 {
        try db.cachedStatement(
            sql: """
                INSERT INTO response (cache_key, endpoint, model, request, content, refusal, finish_reason,
                  response_model, response_id, request_id, system_fingerprint, prompt_tokens,
                  completion_tokens, total_tokens, reasoning_tokens, cached_tokens, image_tokens, token_field,
                  latency_ms, raw_body, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                key, endpoint, request?.model ?? "", redactor.redact(request?.keyBody().canonicalText ?? "{}"),
                redactor.redactIfPresent(answer.content), redactor.redactIfPresent(answer.refusal), answer.finishReason,
                answer.responseModel, answer.responseID, answer.requestID, answer.systemFingerprint,
                answer.promptTokens, answer.completionTokens, answer.totalTokens, answer.reasoningTokens,
                answer.cachedTokens, answer.imageTokens, answer.tokenField, answer.latencyMs,
                redactor.redactIfPresent(answer.rawBody), date,
            ])
        return db.lastInsertedRowID
    }

    static func answer(from row: Row) -> ModelAnswer {
        ModelAnswer(
            content: row["content"], refusal: row["refusal"], finishReason: row["finish_reason"],
            responseModel: row["response_model"], responseID: row["response_id"], requestID: row["request_id"],
            systemFingerprint: row["system_fingerprint"], promptTokens: row["prompt_tokens"],
            completionTokens: row["completion_tokens"], totalTokens: row["total_tokens"],
            reasoningTokens: row["reasoning_tokens"], latencyMs: row["latency_ms"] ?? 0,
            tokenField: row["token_field"], rawBody: row["raw_body"], cachedTokens: row["cached_tokens"],
            imageTokens: row["image_tokens"])
    }
}
