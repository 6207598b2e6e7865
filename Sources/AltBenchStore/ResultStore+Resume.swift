import AltBenchCore
import Foundation
import GRDB

/// What `--resume` needs of a stored run: its settings, the identity of its prompts and
/// images (to refuse a resume whose files changed), and which trials already have answers.
package struct ResumableRun: Sendable {
    package struct Coordinates: Sendable, Hashable {
        package var variant: String
        package var item: String
        package var maxTokens: Int?
        package var repeatIndex: Int

        package init(variant: String, item: String, maxTokens: Int?, repeatIndex: Int) {
            self.variant = variant
            self.item = item
            self.maxTokens = maxTokens
            self.repeatIndex = repeatIndex
        }

        package init(_ trial: Trial) {
            self.init(
                variant: trial.variant.name, item: trial.item.id, maxTokens: trial.maxTokens,
                repeatIndex: trial.repeatIndex)
        }
    }

    package var info: RunResults.Info
    package var plannedTrials: Int
    /// Variant name → SHA-256 of its prompt file, in the run's order.
    package var variantHashes: [(name: String, sha256: String)]
    /// Item id → SHA-256 of its image (nil for remote images and items that had a problem).
    package var itemHashes: [(id: String, sha256: String?)]
    /// Trials recorded with an answer; failed ones are asked again.
    package var answered: Set<Coordinates>
    /// Trials recorded as failed.
    package var failed: Int
}

extension ResultStore {
    /// Reads what resuming run `id` needs.
    package func resumableRun(id: String) async throws -> ResumableRun {
        let loaded = try await loadRun(id: id)
        return try await writer.read { db in
            let variants = try Row.fetchAll(
                db, sql: "SELECT name, file_sha256 FROM variant WHERE run_id = ? ORDER BY position", arguments: [id]
            ).map { (name: $0["name"] as String, sha256: $0["file_sha256"] as String) }
            let items = try Row.fetchAll(
                db, sql: "SELECT item_key, image_sha256 FROM item WHERE run_id = ? ORDER BY position", arguments: [id]
            ).map { (id: $0["item_key"] as String, sha256: $0["image_sha256"] as String?) }
            var answered = Set<ResumableRun.Coordinates>()
            var failed = 0
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT v.name, i.item_key, t.max_tokens, t.repeat_index, t.status FROM trial t
                    JOIN variant v ON v.id = t.variant_id JOIN item i ON i.id = t.item_id WHERE t.run_id = ?
                    """, arguments: [id])
            while let row = try rows.next() {
                if (row["status"] as String) == "answered" {
                    answered.insert(
                        .init(variant: row["name"], item: row["item_key"], maxTokens: row["max_tokens"], repeatIndex: row["repeat_index"]))
                } else {
                    failed += 1
                }
            }
            return ResumableRun(
                info: loaded.info, plannedTrials: loaded.plannedTrials, variantHashes: variants, itemHashes: items,
                answered: answered, failed: failed)
        }
    }

    /// Marks run `id` running again and returns the sink for its remaining trials.
    package func continueRun(id: String, endpoint: String, redactor: Redactor = Redactor(secrets: [])) async throws
        -> RunRecorder
    {
        let (variantIDs, itemIDs) = try await writer.write { db -> ([String: Int64], [String: Int64]) in
            try db.execute(
                sql: "UPDATE run SET status = 'running', status_message = NULL, stopped_by = NULL, finished_at = NULL WHERE id = ?",
                arguments: [id])
            var variantIDs: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, name FROM variant WHERE run_id = ?", arguments: [id]) {
                variantIDs[row["name"]] = row["id"]
            }
            var itemIDs: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, item_key FROM item WHERE run_id = ?", arguments: [id]) {
                itemIDs[row["item_key"]] = row["id"]
            }
            return (variantIDs, itemIDs)
        }
        return RunRecorder(
            writer: writer, runID: id, endpoint: endpoint, variantIDs: variantIDs, itemIDs: itemIDs, redactor: redactor,
            replacesEarlierRows: true)
    }
}
