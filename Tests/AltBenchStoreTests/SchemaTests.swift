import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

@Suite("Schema")
struct SchemaTests {
    /// The objects users query with `sqlite3`; GRDB's bookkeeping and SQLite's own tables aside.
    private static func userObjects(_ store: ResultStore) async throws -> [String: String] {
        try await store.writer.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT type, name FROM sqlite_master
                    WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
                    """)
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as String, $0["type"] as String) })
        }
    }

    @Test("the migrator creates exactly the documented tables and the trial_result view", arguments: StoreKind.allCases)
    func createsExactlyTheDocumentedObjects(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let objects = try await Self.userObjects(store)
        #expect(
            objects == [
                "run": "table", "variant": "table", "item": "table", "response": "table", "trial": "table",
                "score": "table", "trial_result": "view", "generation": "table", "judgement": "table",
                "batch_input": "table", "batch_request": "table", "batch_job": "table",
            ])
    }

    @Test("the schema comes from a named migration, recorded as applied")
    func namedMigration() async throws {
        let migrator = Schema.migrator()
        #expect(migrator.migrations.first == "v1: runs, variants, items, responses, trials, scores")
        // A name says what the migration does, so `grdb_migrations` reads as a changelog.
        #expect(migrator.migrations.allSatisfy { $0.contains(":") && Int($0) == nil })
        let store = try ResultStore()
        let applied = try await store.writer.read { db in try migrator.appliedMigrations(db) }
        #expect(applied == migrator.migrations)
        let recorded = try await store.writer.read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(recorded == migrator.migrations)
    }

    @Test("reopening a file store keeps its data and does not migrate again")
    func reopenFileStore() async throws {
        let folder = try TemporaryDirectory()
        do {
            let store = try ResultStore(url: folder.databaseURL)
            _ = try await store.beginRun(
                StoreFixtures.info(), variants: [StoreFixtures.plain], dataset: StoreFixtures.dataset(),
                plannedTrials: 4)
        }
        #expect(FileManager.default.fileExists(atPath: folder.databaseURL.path))
        let reopened = try ResultStore(url: folder.databaseURL)
        #expect(reopened.location == folder.databaseURL.path)
        #expect(try await reopened.runIDs() == ["20260101-000000-abcd"])
        #expect(try await StoreFixtures.count(reopened, "grdb_migrations") == Schema.migrator().migrations.count)
    }

    @Test("migrations come in order: v2 adds the variant's description, v3 the trial indexes, v4 the score ids, v5 what stopped a run, v6 generated images, v7 usage and cost, v8 judgements, v9 Batch API state")
    func migrationOrder() {
        #expect(
            Schema.migrator().migrations == [
                "v1: runs, variants, items, responses, trials, scores", "v2: variant description",
                "v3: trial indexes", "v4: score ids, item text fields", "v5: what stopped a run", "v6: generated images",
                "v7: usage, estimates and cost", "v8: judgements, form and content",
                "v9: Batch API input files and batches",
            ])
    }

    @Test("v4 renames the chars score to length and rebuilds trial_result with a column per score id")
    func upgradesV3ScoreNames() async throws {
        let folder = try TemporaryDirectory()
        try Self.v1Database(at: folder.databaseURL)
        let queue = try DatabaseQueue(path: folder.databaseURL.path)
        try Schema.migrator().migrate(queue, upTo: "v3: trial indexes")
        try await queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO item (run_id, position, item_key, image, reference_texts, tags)
                    VALUES ('20251101-000000-0001', 0, 'cat', 'cat.png', '["A cat."]', '[]');
                    INSERT INTO trial (run_id, variant_id, item_id, max_tokens, repeat_index, status, cached, attempts,
                      started_at, finished_at)
                    VALUES ('20251101-000000-0001', 1, 1, 50, 0, 'answered', 0, 1, '2025-11-01 00:00:00.000',
                      '2025-11-01 00:00:01.000');
                    INSERT INTO score (trial_id, name, value, passed) VALUES (1, 'chars', 6, NULL), (1, 'first_person', 1, 0);
                    """)
        }
        try queue.close()

        let store = try ResultStore(url: folder.databaseURL)
        let (names, length, firstPerson, columns, itemColumns) = try await store.writer.read { db in
            (
                try String.fetchAll(db, sql: "SELECT name FROM score ORDER BY name"),
                try Double.fetchOne(db, sql: "SELECT length FROM trial_result"),
                try Double.fetchOne(db, sql: "SELECT first_person FROM trial_result"),
                try db.columns(in: "trial_result").map(\.name),
                try db.columns(in: "item").map(\.name)
            )
        }
        #expect(names == ["first_person", "length"])
        #expect(length == 6)
        #expect(firstPerson == 1)
        for column in Schema.viewScoreColumns.map(\.column) {
            #expect(columns.contains(column), "trial_result lacks \(column)")
        }
        #expect(!columns.contains("chars"))
        #expect(itemColumns.suffix(2) == ["expected_text", "must_mention"])
        let run = try await store.loadRun(id: "20251101-000000-0001")
        #expect(run.trials.first?.scores[ScoreName.length]?.value == 6)
        #expect(run.items.first?.expectedText == nil)
        #expect(run.items.first?.mustMention == [])
    }

    /// A `results/altbench.sqlite` written before v2: a run with one variant, v1 columns only.
    private static func v1Database(at url: URL) throws {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: url.path)
        try Schema.migrator().migrate(queue, upTo: "v1: runs, variants, items, responses, trials, scores")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO run (id, started_at, status, provider, provider_reason, endpoint, dataset, prompts,
                      settings, planned_trials, altbench_version)
                    VALUES ('20251101-000000-0001', '2025-11-01 00:00:00.000', 'finished', 'mock', '--provider mock',
                      'mock', 'datasets/sample', 'prompts', '{}', 0, '0.1.0');
                    INSERT INTO variant (run_id, position, name, file, file_sha256, prompt, model, max_tokens, detail,
                      temperature, system)
                    VALUES ('20251101-000000-0001', 0, 'icecubes', 'prompts/icecubes.md', 'cccc', 'Describe.',
                      'gpt-4o-mini', '[50]', NULL, NULL, NULL);
                    """)
        }
    }

    @Test("a database made by v1 upgrades in place: old variants have no description, new ones keep theirs")
    func upgradesV1InPlace() async throws {
        let folder = try TemporaryDirectory()
        try Self.v1Database(at: folder.databaseURL)

        let store = try ResultStore(url: folder.databaseURL)
        let migrator = Schema.migrator()
        let (applied, columns) = try await store.writer.read { db in
            (try migrator.appliedMigrations(db), try db.columns(in: "variant").map(\.name))
        }
        #expect(applied == migrator.migrations)
        #expect(columns.last == "description")

        let old = try await store.loadRun(id: "20251101-000000-0001")
        #expect(
            old.variants == [
                PromptVariant(
                    name: "icecubes", file: "prompts/icecubes.md", text: "Describe.", model: "gpt-4o-mini",
                    maxTokens: [50], fileHash: "cccc")
            ])

        _ = try await store.beginRun(
            StoreFixtures.info(), variants: [StoreFixtures.short], dataset: StoreFixtures.dataset(), plannedTrials: 0)
        let new = try await store.loadRun(id: StoreFixtures.info().id)
        #expect(new.variants.map(\.description) == [StoreFixtures.short.description])
        #expect(try await store.runIDs().count == 2)
    }

    @Test("a folder that cannot be created gives a sentence naming the path")
    func cannotOpen() throws {
        let folder = try TemporaryDirectory()
        // A regular file where the database file should be is not a database.
        let file = folder.url.appendingPathComponent("altbench.sqlite")
        try Data("not a database, just text that is long enough to fill a header".utf8).write(to: file)
        #expect {
            _ = try ResultStore(url: file)
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.description.contains(file.path) && error.description.contains("--results")
        }
    }
}
