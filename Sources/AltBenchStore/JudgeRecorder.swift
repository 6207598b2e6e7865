import AltBenchCore
import Foundation
import GRDB

/// The sink of a judging pass over one run: stores each judge answer as a `response` (so a
/// later pass finds it by key), the verdict read from it in `judgement`, and the trial's
/// judge scores with `form`, `content` and `quality` computed again — in one transaction per
/// call, so a stop loses only the calls in flight.
///
/// A trial holds one judge's verdicts: recording a call from another judge (model, endpoint
/// or rubric) removes the verdicts of the one before; its answers stay in the cache.
package struct JudgeRecorder: JudgeSink, TransactionalRecorder {
    let writer: any DatabaseWriter
    package let runID: String
    /// The judge's endpoint identity, model and rubric, as the judgement rows name them.
    let endpoint: String
    let model: String
    let rubric: JudgeRubric
    let rubricName: String
    /// The run's scoring settings, for `quality`.
    let settings: ScoringSettings
    /// Verdicts per answer (`--judge-repeats`); a trial's verdicts from more repeats of an
    /// earlier pass go.
    var repeats: Int = 1
    let redactor: Redactor

    package func cachedJudgeAnswer(forKey key: String) async throws -> ModelAnswer? {
        try await writer.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM response WHERE cache_key = ? ORDER BY id DESC", arguments: [key])
            // An answer whose verdict could not be read is asked again.
            return rows.map(ResponseColumns.answer(from:)).first { answer in
                (try? JudgeVerdict.parse(content: answer.content, refusal: answer.refusal).get()) != nil
            }
        }
    }

    package func record(_ result: JudgeCallResult) async throws { try await write([result]) }

    /// Records `results` in one transaction: for many at once, such as a judge batch's output.
    package func record(_ results: [JudgeCallResult]) async throws { try await write(results) }

    /// Writes one call's answer, its judgement and the trial's scores computed again.
    func insert(_ result: JudgeCallResult, db: Database) throws {
        let call = result.call
        var responseID: Int64?
        var status: RunResults.JudgementRow.Status
        var verdict: JudgeVerdict?
        var error: String?
        switch result.outcome {
        case .answered(let answer, let cached):
            if cached {
                // The answer the verdict was read from, which need not be the newest for
                // its key (a call in flight at the same time may have stored prose since).
                responseID = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT id FROM response WHERE cache_key = ?
                        ORDER BY (content IS ? AND refusal IS ?) DESC, id DESC LIMIT 1
                        """,
                    arguments: [call.key, answer.content, answer.refusal])
            } else {
                responseID = try ResponseColumns.insert(
                    answer, key: call.key, endpoint: endpoint, request: call.request, at: result.finishedAt,
                    redactor: redactor, db: db)
            }
            switch JudgeVerdict.parse(content: answer.content, refusal: answer.refusal) {
            case .success(let read):
                status = .judged
                verdict = read
            case .failure(let problem):
                status = .unreadable
                error = problem.description
            }
        case .failed(let failure):
            status = .failed
            error = failure.message
        }
        // One judge's verdicts per trial: another judge's go, and so do repeats beyond
        // this pass's; this repeat is replaced.
        try db.execute(
            sql: """
                DELETE FROM judgement WHERE trial_id = ?
                  AND (repeat_index = ? OR repeat_index >= ? OR model != ? OR endpoint != ? OR rubric_sha256 != ?)
                """,
            arguments: [call.trialID, call.repeatIndex, repeats, model, endpoint, rubric.sha256])
        let errors = verdict.map { JSONValue.array($0.errors.map { .string(redactor.redact($0)) }).canonicalText }
        try db.execute(
            sql: """
                INSERT INTO judgement (trial_id, repeat_index, model, endpoint, rubric, rubric_sha256, cache_key,
                  response_id, status, cached, attempts, accuracy, completeness, concision, errors, error, cost_usd,
                  started_at, finished_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                call.trialID, call.repeatIndex, model, endpoint, rubricName, rubric.sha256, call.key, responseID,
                status.rawValue, result.outcome.cached, result.attempts, verdict?.accuracy, verdict?.completeness,
                verdict?.concision, errors, redactor.redactIfPresent(error), result.costUSD, result.startedAt,
                result.finishedAt,
            ])
        try Self.rescore(trialID: call.trialID, settings: settings, redactor: redactor, db: db)
    }

    /// Writes the trial's judge scores from its judgements, and `form`, `content` and
    /// `quality` computed again with them.
    static func rescore(trialID: Int64, settings: ScoringSettings, redactor: Redactor, db: Database) throws {
        let judgements = try Row.fetchAll(
            db, sql: "SELECT * FROM judgement WHERE trial_id = ? ORDER BY repeat_index", arguments: [trialID]
        ).map(JudgementColumns.judgement(from:))
        let stored = try Row.fetchAll(db, sql: "SELECT * FROM score WHERE trial_id = ?", arguments: [trialID]).map {
            Score(name: $0["name"], value: $0["value"], passed: $0["passed"], detail: $0["detail"])
        }
        let judge = JudgeScores.scores(from: judgements)
        let rescored = JudgeScores.rescored(stored, judge: judge, settings: settings)
        let derived = JudgeScores.names.union([ScoreName.form, ScoreName.content, ScoreName.quality])
        try db.execute(
            sql: "DELETE FROM score WHERE trial_id = ? AND name IN (\(derived.map { _ in "?" }.joined(separator: ", ")))",
            arguments: StatementArguments([trialID] + derived.sorted().map { $0 as (any DatabaseValueConvertible) }))
        for score in rescored where derived.contains(score.name) {
            try db.execute(
                sql: "INSERT INTO score (trial_id, name, value, passed, detail) VALUES (?, ?, ?, ?, ?)",
                arguments: [trialID, score.name, score.value, score.passed, redactor.redactIfPresent(score.detail)])
        }
    }
}

extension ResultStore {
    /// The sink of a judging pass over run `runID` by `model` at `endpoint` with `rubric`.
    package func judgeRecorder(
        runID: String, endpoint: String, model: String, rubric: JudgeRubric, rubricName: String,
        settings: ScoringSettings, repeats: Int = 1, redactor: Redactor = Redactor(secrets: [])
    ) -> JudgeRecorder {
        JudgeRecorder(
            writer: writer, runID: runID, endpoint: endpoint, model: model, rubric: rubric, rubricName: rubricName,
            settings: settings, repeats: repeats, redactor: redactor)
    }
}

/// Maps `judgement` rows back to ``RunResults/JudgementRow``; the response's token counts when
/// the row was read joined with its `response` (none for a verdict from the store, which cost
/// nothing).
enum JudgementColumns {
    static func judgement(from row: Row) -> RunResults.JudgementRow {
        let cached: Bool = row["cached"]
        let errors = (row["errors"] as String?).flatMap { try? JSONValue.parse(Data($0.utf8)) }?.arrayValue?
            .compactMap(\.stringValue) ?? []
        return RunResults.JudgementRow(
            repeatIndex: row["repeat_index"], model: row["model"], endpoint: row["endpoint"], rubric: row["rubric"],
            rubricSHA256: row["rubric_sha256"], cacheKey: row["cache_key"],
            status: RunResults.JudgementRow.Status(rawValue: row["status"]) ?? .failed, cached: cached,
            accuracy: row["accuracy"], completeness: row["completeness"], concision: row["concision"], errors: errors,
            error: row["error"], promptTokens: cached || !row.hasColumn("prompt_tokens") ? nil : row["prompt_tokens"],
            completionTokens: cached || !row.hasColumn("completion_tokens") ? nil : row["completion_tokens"],
            costUSD: row["cost_usd"])
    }
}
