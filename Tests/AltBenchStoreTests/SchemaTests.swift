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
                "score": "table", "trial_result": "view",
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
        #expect(try await StoreFixtures.count(reopened, "grdb_migrations") == 1)
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
