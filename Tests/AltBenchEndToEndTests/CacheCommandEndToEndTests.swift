import AltBenchTesting
import Foundation
import GRDB
import Testing

/// `altbench cache stats` and `altbench cache prune` as a user runs them, on two mock runs.
@Suite("altbench cache end to end", .serialized)
struct CacheCommandEndToEndTests {
    static func json(_ output: AltbenchProcess.Output) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    }

    @Test func pruneKeepsTheNewestRunAndItsReport() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        for _ in 0..<2 {
            let run = try await AltbenchProcess.run(["run"], in: workspace.root)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let ids = try await EndToEndTests.database(workspace).read {
            try String.fetchAll($0, sql: "SELECT id FROM run ORDER BY started_at, id")
        }
        try #require(ids.count == 2)

        let stats = try await AltbenchProcess.run(["cache", "stats"], in: workspace.root)
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("Runs:            2 (2 finished)\n"))
        #expect(stats.stdout.contains("Trials:          16\n"))
        #expect(stats.stdout.contains("Cached answers:  8\n"))
        #expect(stats.stdout.contains("\nmock      gpt-4o-mini        8  "))
        let before = try Self.json(try await AltbenchProcess.run(["cache", "stats", "--format", "json"], in: workspace.root))
        #expect(before["runs"] as? Int == 2)
        #expect(before["trials"] as? Int == 16)
        #expect(before["answers"] as? Int == 8)

        let dry = try await AltbenchProcess.run(["cache", "prune", "--keep-runs", "1", "--dry-run"], in: workspace.root)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("Would delete 1 run:\n  \(ids[0])\nWould delete 8 trials and 0 cached answers.\n"))
        #expect(FileManager.default.fileExists(atPath: workspace.url("results/runs/\(ids[0]).md").path))

        let prune = try await AltbenchProcess.run(["cache", "prune", "--keep-runs", "1"], in: workspace.root)
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(prune.stdout.hasPrefix("Deleted 1 run:\n  \(ids[0])\nDeleted 8 trials and 0 cached answers.\n"))
        #expect(prune.stdout.contains("Removed 2 reports:\n  results/runs/\(ids[0]).md\n  results/runs/\(ids[0]).html\n"), "\(prune.stdout)")
        #expect(prune.stdout.contains("results/altbench.sqlite: "))
        let runs = try FileManager.default.contentsOfDirectory(atPath: workspace.url("results/runs").path)
        #expect(runs.sorted() == ["\(ids[1]).html", "\(ids[1]).md"])
        #expect(FileManager.default.fileExists(atPath: workspace.url("results/latest.md").path))

        let after = try Self.json(try await AltbenchProcess.run(["cache", "stats", "--format", "json"], in: workspace.root))
        #expect(after["runs"] as? Int == 1)
        #expect(after["trials"] as? Int == 8)
        #expect(after["answers"] as? Int == 8)
        #expect(after["unreferenced_answers"] as? Int == 0)

        let report = try await AltbenchProcess.run(["report"], in: workspace.root)
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("icecubes"))
        #expect(try workspace.read("results/runs/\(ids[1]).md").hasPrefix("# altbench run "))

        let db = try EndToEndTests.database(workspace)
        let integrity = try await db.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        let violations = try await db.read { try Row.fetchAll($0, sql: "PRAGMA foreign_key_check").count }
        #expect(integrity == ["ok"])
        #expect(violations == 0)
    }

    @Test func badInputExitsNonZeroWithAMessage() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }

        let missing = try await AltbenchProcess.run(["cache", "stats"], in: workspace.root)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("No results database at results/altbench.sqlite. Run `altbench run` first"))
        #expect(!FileManager.default.fileExists(atPath: workspace.url("results").path))

        let run = try await AltbenchProcess.run(["run"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")

        let badAge = try await AltbenchProcess.run(["cache", "prune", "--older-than", "3y"], in: workspace.root)
        #expect(badAge.status != 0)
        #expect(badAge.stderr.contains("90m (minutes), 12h (hours), 30d (days) or 2w (weeks), not '3y'"))

        let nothing = try await AltbenchProcess.run(["cache", "prune"], in: workspace.root)
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("--older-than AGE (e.g. 30d), --keep-runs N, or --unreferenced"))

        let stats = try Self.json(try await AltbenchProcess.run(["cache", "stats", "--format", "json"], in: workspace.root))
        #expect(stats["runs"] as? Int == 1, "failed prunes change nothing")
    }
}
