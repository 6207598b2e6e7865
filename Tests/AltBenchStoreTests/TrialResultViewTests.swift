import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

/// The `trial_result` view, and the queries the README shows `sqlite3` users.
@Suite("trial_result view")
struct TrialResultViewTests {
    /// The names the standard suite writes for an answer whose item has every field.
    static let everyScoreTheSuiteWrites = ScoringSuite.evaluate(
        ScoringInput(
            content: "A glass shop door with a sign reading OPEN.",
            item: ScoringItem(
                id: "sign", references: ["A shop door with a sign reading OPEN."], context: "Back at the bakery!",
                expectedText: "OPEN", mustMention: ["sign", "door"]))
    ).map(\.name)

    typealias F = StoreFixtures

    /// Two variants over two images: five answers (one truncated and in the first person, one
    /// refused) and one failed request.
    private static func recordedStore() async throws -> ResultStore {
        let store = try ResultStore()
        let recorder = try await store.beginRun(
            F.info(), variants: [F.short, F.plain], dataset: F.dataset([F.cat, F.dog]), plannedTrials: 6)
        let results = [
            F.answered(F.trial(F.short, F.cat, maxTokens: 60), F.answer("I see a cat", finishReason: "length")),
            F.answered(F.trial(F.short, F.dog, maxTokens: 60), F.answer("A dog.")),
            F.answered(F.trial(F.short, F.cat, maxTokens: 120), F.answer("A grey cat asleep on a windowsill.")),
            F.answered(F.trial(F.short, F.dog, maxTokens: 120), F.answer("A dog with a ball in the park.")),
            F.answered(F.trial(F.plain, F.cat, maxTokens: nil), F.answer(nil, refusal: "I can't help with that.")),
            F.failed(F.trial(F.plain, F.dog, maxTokens: nil), message: "HTTP 500: server error"),
        ]
        for result in results { try await recorder.record(result) }
        return store
    }

    @Test("one row per trial, with every score id as a column")
    func oneRowPerTrial() async throws {
        let store = try await Self.recordedStore()
        let rows = try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM trial_result ORDER BY trial_id")
        }
        #expect(rows.count == 6)
        // Scores every answer has; the item-dependent ones (references, expected text, ...) and
        // readability (none for an empty answer) may be NULL.
        let optional: Set<String> = [
            "readability", "text_recall", "keyword_recall", "context_echo", "bleu4", "rougeL", "ciderD",
            "reference_match", "content_score", "judge_accuracy", "judge_completeness", "judge_concision",
        ]
        let allScoreColumns = Schema.viewScoreColumns.map(\.column)
        let scoreColumns = allScoreColumns.filter { !optional.contains($0) }
        let columns = Set(try #require(rows.first).columnNames)
        // Every score the suite writes, and the judge's.
        #expect(
            Set(Schema.viewScoreColumns.map(\.name))
                == Set(Self.everyScoreTheSuiteWrites).union([ScoreName.judgeAccuracy, ScoreName.judgeCompleteness, ScoreName.judgeConcision]))
        for column in allScoreColumns + ["run_id", "variant", "max_tokens", "item", "status", "content", "error"] {
            #expect(columns.contains(column), "trial_result lacks \(column)")
        }
        for row in rows.prefix(5) {
            for column in scoreColumns {
                #expect(row[column] as Double? != nil, "\(column) is NULL for trial \(row["trial_id"] as Int64)")
            }
        }
        // A failed trial has no answer and so no scores, but it still has its row and its error.
        let failed = rows[5]
        #expect(failed["status"] as String == "failed")
        #expect(failed["error"] as String? == "HTTP 500: server error")
        for column in scoreColumns { #expect(failed[column] as Double? == nil) }

        let first = rows[0]
        #expect(first["variant"] as String == "short")
        #expect(first["item"] as String == "cat")
        #expect(first["max_tokens"] as Int? == 60)
        #expect(first["length"] as Double? == 11)
        #expect(first["quality"] as Double? == 0)
        #expect(first["perception_meta"] as Double? == 1)
        #expect(rows[2]["quality"] as Double? == 1)
        #expect(first["words"] as Double? == 4)
        #expect(first["first_person"] as Double? == 1)
        #expect(first["truncated"] as Double? == 1)
        #expect(first["finish_reason"] as String? == "length")
        #expect(rows[4]["refused"] as Double? == 1)
        #expect(rows[4]["refusal_text"] as String? == "I can't help with that.")
        #expect(rows[4]["empty"] as Double? == 1)
    }

    /// README: "Which token limit cuts answers off?"
    static let truncationRateSQL = """
        SELECT variant, max_tokens, COUNT(*) AS answered, ROUND(100.0 * AVG(truncated), 1) AS truncated_pct
        FROM trial_result
        WHERE run_id = (SELECT id FROM run ORDER BY started_at DESC LIMIT 1) AND status = 'answered'
        GROUP BY variant, max_tokens
        ORDER BY variant, max_tokens
        """

    /// README: "Show me the longest answers."
    static let longestAnswersSQL = """
        SELECT variant, max_tokens, item, length, content
        FROM trial_result
        WHERE status = 'answered'
        ORDER BY length DESC
        LIMIT 3
        """

    @Test("README query: truncation rate per variant and max_tokens")
    func truncationRateQuery() async throws {
        let store = try await Self.recordedStore()
        let rows = try store.writer.read { db in try Row.fetchAll(db, sql: Self.truncationRateSQL) }
        let table = rows.map { row in
            "\(row["variant"] as String) \(row["max_tokens"] as Int? ?? -1) \(row["answered"] as Int) \(row["truncated_pct"] as Double)"
        }
        #expect(table == ["plain -1 1 0.0", "short 60 2 50.0", "short 120 2 0.0"])
    }

    @Test("README query: the longest answers")
    func longestAnswersQuery() async throws {
        let store = try await Self.recordedStore()
        let rows = try store.writer.read { db in try Row.fetchAll(db, sql: Self.longestAnswersSQL) }
        let table = rows.map { row in
            "\(row["variant"] as String) \(row["max_tokens"] as Int? ?? -1) \(row["item"] as String) \(Int(row["length"] as Double)) \(row["content"] as String? ?? "")"
        }
        #expect(
            table == [
                "short 120 cat 34 A grey cat asleep on a windowsill.",
                "short 120 dog 30 A dog with a ball in the park.",
                "short 60 cat 11 I see a cat",
            ])
    }

    /// README: "Mean quality per prompt and limit, with the parts that pull it down."
    static let qualitySQL = """
        SELECT variant, max_tokens, round(avg(quality), 3) AS quality,
               round(avg(text_recall), 3) AS text_recall, round(avg(brevity), 3) AS brevity,
               round(100.0 * avg(quality = 0), 1) AS zero_pct
        FROM trial_result
        WHERE status = 'answered'
        GROUP BY variant, max_tokens ORDER BY quality DESC
        """

    @Test("README query: mean quality per variant and max_tokens")
    func qualityQuery() async throws {
        let store = try await Self.recordedStore()
        let rows = try store.writer.read { db in try Row.fetchAll(db, sql: Self.qualitySQL) }
        let table = rows.map { row in
            "\(row["variant"] as String) \(row["max_tokens"] as Int? ?? -1) \(row["quality"] as Double) \(row["zero_pct"] as Double)"
        }
        // short@120: two good answers; short@60: one truncated first-person answer of two;
        // plain: a refusal with no content.
        #expect(table == ["short 120 1.0 0.0", "short 60 0.5 50.0", "plain -1 0.0 100.0"])
    }
}
