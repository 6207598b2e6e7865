import AltBenchCore
import Foundation
import GRDB

extension ResultStore {
    /// Reads a whole run back: its settings, variants (baseline first, ``VariantOrder``), items,
    /// trials, answers and scores.
    package func loadRun(id: String) async throws -> RunResults {
        try await writer.read { db in
            guard let run = try Row.fetchOne(db, sql: "SELECT * FROM run WHERE id = ?", arguments: [id]) else {
                throw AltBenchError.runNotFound(id: id, database: self.location)
            }
            let settingsText: String = run["settings"]
            let info = RunResults.Info(
                id: run["id"], startedAt: run["started_at"], finishedAt: run["finished_at"], status: run["status"],
                statusMessage: run["status_message"], stoppedBy: run["stopped_by"], provider: Provider(rawValue: run["provider"]) ?? .openai,
                providerReason: run["provider_reason"], endpoint: run["endpoint"], datasetPath: run["dataset"],
                promptsPath: run["prompts"],
                settings: (try? JSONValue.parse(Data(settingsText.utf8))) ?? .object([:]),
                version: run["altbench_version"])

            let variants = try Row.fetchAll(
                db, sql: "SELECT * FROM variant WHERE run_id = ? ORDER BY position", arguments: [id]
            ).map { row in
                PromptVariant(
                    name: row["name"], file: row["file"], text: row["prompt"], model: row["model"],
                    maxTokens: (row["max_tokens"] as String?).flatMap { try? JSONValue.parse(Data($0.utf8)) }?
                        .arrayValue?.compactMap(\.intValue),
                    detail: (row["detail"] as String?).flatMap(ImageDetail.init(rawValue:)),
                    temperature: row["temperature"], system: row["system"], description: row["description"],
                    fileHash: row["file_sha256"])
            }

            let items = try Row.fetchAll(
                db, sql: "SELECT * FROM item WHERE run_id = ? ORDER BY position", arguments: [id]
            ).map { row in
                let path: String? = row["image_path"]
                func strings(_ column: String) -> [String] {
                    guard let text: String = row[column] else { return [] }
                    return ((try? JSONValue.parse(Data(text.utf8)))?.arrayValue ?? []).compactMap(\.stringValue)
                }
                var item = RunResults.Item(
                    id: row["item_key"], image: path ?? row["image"], isRemote: path == nil, width: row["width"],
                    height: row["height"], format: row["format"], problem: row["problem"],
                    references: strings("reference_texts"), context: row["context"], lang: row["lang"],
                    expectedText: row["expected_text"], mustMention: strings("must_mention"),
                    imageSHA256: row["image_sha256"])
                item.tags = strings("tags")
                return item
            }

            var scores: [Int64: [Score]] = [:]
            let scoreRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT s.* FROM score s JOIN trial t ON t.id = s.trial_id WHERE t.run_id = ?
                    """, arguments: [id])
            while let row = try scoreRows.next() {
                let score = Score(name: row["name"], value: row["value"], passed: row["passed"], detail: row["detail"])
                scores[row["trial_id"], default: []].append(score)
            }

            var judgements: [Int64: [RunResults.JudgementRow]] = [:]
            let judgementRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT j.*, r.prompt_tokens, r.completion_tokens FROM judgement j
                    JOIN trial t ON t.id = j.trial_id
                    LEFT JOIN response r ON r.id = j.response_id
                    WHERE t.run_id = ? ORDER BY j.trial_id, j.repeat_index
                    """, arguments: [id])
            while let row = try judgementRows.next() {
                judgements[row["trial_id"], default: []].append(JudgementColumns.judgement(from: row))
            }

            // A cursor, one row at a time: a large run's requests are parsed and let go row by
            // row, and each answer's raw body stays in the database (no report reads it).
            let trialRows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT t.id AS trial_id, t.max_tokens AS trial_max_tokens, t.repeat_index, t.model AS trial_model,
                      t.status, t.cached, t.error, t.error_kind, t.estimated_input_tokens, t.estimated_image_tokens,
                      t.cost_usd, t.batch_id, v.name AS variant_name, i.item_key,
                      r.request, r.content, r.refusal, r.finish_reason, r.response_model, r.response_id, r.request_id,
                      r.system_fingerprint, r.prompt_tokens, r.completion_tokens, r.total_tokens, r.reasoning_tokens,
                      r.cached_tokens, r.image_tokens, r.token_field, r.latency_ms
                    FROM trial t
                    JOIN variant v ON v.id = t.variant_id
                    JOIN item i ON i.id = t.item_id
                    LEFT JOIN response r ON r.id = t.response_id
                    WHERE t.run_id = ?
                    ORDER BY i.position, v.position, t.max_tokens IS NULL, t.max_tokens, t.repeat_index
                    """, arguments: [id])
            var trials: [RunResults.TrialRow] = []
            while let row = try trialRows.next() {
                let answered = (row["status"] as String) == "answered"
                let trialID: Int64 = row["trial_id"]
                var trial = RunResults.TrialRow(
                    variant: row["variant_name"], maxTokens: row["trial_max_tokens"], itemID: row["item_key"],
                    repeatIndex: row["repeat_index"], model: row["trial_model"],
                    answer: answered ? ResponseColumns.answer(from: row) : nil, cached: row["cached"],
                    error: row["error"], errorKind: row["error_kind"], scores: ScoreSet(scores.removeValue(forKey: trialID) ?? []))
                trial.estimatedInputTokens = row["estimated_input_tokens"]
                trial.estimatedImageTokens = row["estimated_image_tokens"]
                trial.costUSD = row["cost_usd"]
                trial.batchID = row["batch_id"]
                trial.trialID = trialID
                trial.imageDetail = (row["request"] as String?).flatMap(Self.imageDetail(inRequest:))
                trial.judgements = judgements[trialID] ?? []
                trials.append(trial)
            }
            let planned: Int = run["planned_trials"]
            // Every table is read against the baseline variant, so it is listed first.
            return RunResults(info: info, variants: variants, items: items, trials: trials, plannedTrials: planned)
                .orderingVariants()
        }
    }

    /// The `detail` of the image part of a stored request body, if it set one.
    static func imageDetail(inRequest text: String) -> ImageDetail? {
        guard let body = try? JSONValue.parse(Data(text.utf8)), let messages = body["messages"]?.arrayValue else { return nil }
        for message in messages.reversed() {
            for part in message["content"]?.arrayValue ?? [] {
                if let detail = part["image_url"]?["detail"]?.stringValue { return ImageDetail(rawValue: detail) }
            }
        }
        return nil
    }
}
