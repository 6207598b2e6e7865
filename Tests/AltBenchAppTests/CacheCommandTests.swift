import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchApp
@testable import AltBenchCore

/// Captures what a command prints.
private final class Output: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""

    var console: Console {
        Console(
            out: { text in self.lock.withLock { self.outText += text } },
            err: { text in self.lock.withLock { self.errText += text } },
            interactive: false)
    }

    var out: String { lock.withLock { outText } }
}

@Suite("altbench cache")
struct CacheCommandTests {
    /// A workspace with two offline mock runs of the sample at one token limit; the second
    /// run takes every answer from the cache. Returns the folder and the run ids, oldest first.
    static func twoRuns() async throws -> (URL, [String]) {
        let root = try EvaluationTests.workspace()
        var options = RunOptions()
        options.maxTokens = [30]
        var ids: [String] = []
        for _ in 0..<2 {
            let outcome = try await Evaluation(
                options: options, environment: [:], console: Output().console, workingDirectory: root
            ).run()
            ids.append(outcome.runID)
        }
        return (root, ids)
    }

    static func exists(_ root: URL, _ path: String) -> Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path)
    }

    // MARK: - stats

    @Test func statsPrintsTheFiguresAsText() async throws {
        let (root, _) = try await Self.twoRuns()
        defer { try? FileManager.default.removeItem(at: root) }
        let output = Output()
        let stats = try await CacheCommand(console: output.console, workingDirectory: root).stats()
        let answers = stats.answers
        #expect(answers > 0)
        #expect(stats.trials == 2 * answers)
        #expect(stats.unreferencedAnswers == 0)

        let text = output.out
        #expect(text.contains("Database:        results/altbench.sqlite\n"))
        #expect(text.contains("Runs:            2 (2 finished)\n"))
        #expect(text.contains("Trials:          \(2 * answers)\n"))
        #expect(text.contains("Cached answers:  \(answers)\n"))
        #expect(text.contains("Cache keys:      \(answers)\n"))
        #expect(text.contains("Unused answers:  0\n"))
        #expect(text.contains("\nAnswers by endpoint and model:\nendpoint  model        answers  oldest"))
        #expect(text.contains("\nmock      gpt-4o-mini"))
    }

    @Test func statsPrintsJSONForScripts() async throws {
        let (root, _) = try await Self.twoRuns()
        defer { try? FileManager.default.removeItem(at: root) }
        let output = Output()
        let stats = try await CacheCommand(console: output.console, workingDirectory: root).stats(format: .json)

        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.out.utf8)) as? [String: Any])
        #expect(
            json.keys.sorted() == [
                "answers", "answers_by_model", "cache_keys", "database", "database_bytes", "file_bytes",
                "newest_answer", "oldest_answer", "runs", "runs_by_status", "trials", "unreferenced_answers", "wal_bytes",
            ])
        #expect(json["database"] as? String == "results/altbench.sqlite")
        #expect(json["runs"] as? Int == 2)
        #expect(json["runs_by_status"] as? [String: Int] == ["finished": 2, "running": 0, "stopped": 0])
        #expect(json["trials"] as? Int == stats.trials)
        #expect(json["answers"] as? Int == stats.answers)
        #expect(json["cache_keys"] as? Int == stats.cacheKeys)
        #expect(json["unreferenced_answers"] as? Int == 0)
        #expect(json["database_bytes"] as? Int == Int(stats.totalBytes))
        #expect((json["database_bytes"] as? Int ?? 0) > 0)
        #expect((json["oldest_answer"] as? String)?.hasSuffix("Z") == true)
        let groups = try #require(json["answers_by_model"] as? [[String: Any]])
        #expect(groups.count == 1)
        #expect(groups[0].keys.sorted() == ["answers", "endpoint", "model", "newest", "oldest"])
        #expect(groups[0]["endpoint"] as? String == "mock")
        #expect(groups[0]["answers"] as? Int == stats.answers)
        // Keys come out sorted, so the same figures always print the same text.
        let keyOrder = output.out.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.split(separator: "\"")[1] }
        #expect(keyOrder == keyOrder.sorted())
    }

    @Test func statsTextLayout() {
        let day: TimeInterval = 86400
        let start = Date(timeIntervalSince1970: 1_767_225_601)
        let stats = CacheCommand.Statistics(
            fileBytes: 1_228_800, walBytes: 32_992, runs: .init(running: 0, finished: 2, stopped: 1), trials: 48,
            answers: 24, cacheKeys: 16, unreferencedAnswers: 8, oldestAnswer: start,
            newestAnswer: start.addingTimeInterval(20 * day),
            byModel: [
                .init(
                    endpoint: "http://127.0.0.1:8080/v1/chat/completions", model: "llava", answers: 8, oldest: start,
                    newest: start.addingTimeInterval(day)),
                .init(
                    endpoint: "mock", model: "gpt-4o-mini", answers: 16, oldest: start.addingTimeInterval(10 * day),
                    newest: start.addingTimeInterval(20 * day)),
            ])
        #expect(
            CacheCommand.text(stats, database: "results/altbench.sqlite") == """
                Database:        results/altbench.sqlite
                Size on disk:    1.3 MB (1.2 MB + 33.0 kB write-ahead log)
                Runs:            3 (2 finished, 1 stopped)
                Trials:          48
                Cached answers:  24
                Cache keys:      16
                Unused answers:  8 (`altbench cache prune --unreferenced` deletes them)
                Oldest answer:   2026-01-01 00:00:01 UTC
                Newest answer:   2026-01-21 00:00:01 UTC

                Answers by endpoint and model:
                endpoint                                   model        answers  oldest                   newest
                http://127.0.0.1:8080/v1/chat/completions  llava              8  2026-01-01 00:00:01 UTC  2026-01-02 00:00:01 UTC
                mock                                       gpt-4o-mini       16  2026-01-11 00:00:01 UTC  2026-01-21 00:00:01 UTC

                """)
    }

    @Test func withoutADatabaseBothCommandsSayToRunFirst() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let command = CacheCommand(results: "out/", console: Output().console, workingDirectory: root)
        await #expect(throws: CacheCommandError.noDatabase(path: "out/altbench.sqlite")) { try await command.stats() }
        await #expect(throws: CacheCommandError.noDatabase(path: "out/altbench.sqlite")) {
            try await command.prune(.init(unreferenced: true))
        }
        #expect(!Self.exists(root, "out"), "neither command creates a database")
        #expect(CacheCommandError.noDatabase(path: "out/altbench.sqlite").description.contains("Run `altbench run` first"))
    }

    // MARK: - prune

    @Test func pruneDeletesTheOlderRunAndItsReport() async throws {
        let (root, ids) = try await Self.twoRuns()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(Self.exists(root, "results/runs/\(ids[0]).md"))

        let dry = Output()
        let preview = try await CacheCommand(console: dry.console, workingDirectory: root)
            .prune(.init(keepRuns: 1), dryRun: true)
        #expect(preview.outcome.runIDs == [ids[0]])
        #expect(preview.reports == ["results/runs/\(ids[0]).md", "results/runs/\(ids[0]).html"])
        #expect(dry.out.hasPrefix("Dry run: nothing is deleted.\nWould delete 1 run:\n  \(ids[0])\n"))
        #expect(dry.out.contains("Would remove 2 reports:\n  results/runs/\(ids[0]).md\n  results/runs/\(ids[0]).html\n"))
        #expect(Self.exists(root, "results/runs/\(ids[0]).md"))

        let output = Output()
        let result = try await CacheCommand(console: output.console, workingDirectory: root).prune(.init(keepRuns: 1))
        #expect(result.outcome.runIDs == [ids[0]])
        #expect(result.outcome.trials == preview.outcome.trials)
        #expect(result.outcome.answers == 0, "the kept run uses every answer")
        #expect(output.out.hasPrefix("Deleted 1 run:\n  \(ids[0])\nDeleted \(result.outcome.trials) trials and 0 cached answers.\n"))
        #expect(output.out.contains("Removed 2 reports:\n  results/runs/\(ids[0]).md\n  results/runs/\(ids[0]).html\n"))
        #expect(output.out.contains("results/altbench.sqlite: "))
        #expect(output.out.contains(" → "))
        #expect(!Self.exists(root, "results/runs/\(ids[0]).md"))
        #expect(Self.exists(root, "results/runs/\(ids[1]).md"))
        #expect(Self.exists(root, "results/latest.md"))

        let stats = try await CacheCommand(console: Output().console, workingDirectory: root).stats()
        #expect(stats.runs.total == 1)
        // The kept run still renders from the store.
        let report = Output()
        let kept = try await ReportCommand(results: "results", console: report.console, workingDirectory: root).run(id: nil)
        #expect(kept.info.id == ids[1])
        #expect(kept.trials.allSatisfy { $0.answer != nil })
    }

    @Test func prunePrintsTheCutoffAndRunsInProgress() {
        let result = CacheCommand.PruneResult(
            outcome: CacheCommand.Outcome(
                runIDs: [], keptInProgress: ["20260130-230000-dddd"], trials: 0, answers: 3,
                cutoff: Date(timeIntervalSince1970: 1_767_225_600), bytesBefore: 2_000_000, bytesAfter: 900, dryRun: false),
            reports: [])
        #expect(
            CacheCommand.text(result, database: "results/altbench.sqlite") == """
                Cutoff: 2026-01-01 00:00:00 UTC
                Deleted no runs.
                Deleted 0 trials and 3 cached answers.
                Kept 1 run marked running that started in the last 24 hours, as it may be in progress: 20260130-230000-dddd
                results/altbench.sqlite: 2.0 MB → 900 bytes

                """)
    }

    // MARK: - Ages and sizes

    @Test(arguments: [("90m", 5400.0), ("12h", 43200), ("30d", 2_592_000), ("2w", 1_209_600), ("1d", 86400), (" 7d ", 604_800)])
    func agesWithAUnit(text: String, seconds: TimeInterval) throws {
        #expect(try PruneAge.parse(text) == seconds)
    }

    @Test(arguments: ["30", "d", "", "1.5d", "-3d", "+3d", "0d", "3y", "3 d", "3D", "30days", "٣d"])
    func agesRejected(text: String) {
        #expect(throws: CacheCommandError.badAge(text)) { try PruneAge.parse(text) }
        #expect(CacheCommandError.badAge(text).description.contains("90m (minutes), 12h (hours), 30d (days) or 2w (weeks)"))
    }

    @Test func sizes() {
        #expect(CacheCommand.bytes(0) == "0 bytes")
        #expect(CacheCommand.bytes(999) == "999 bytes")
        #expect(CacheCommand.bytes(1000) == "1.0 kB")
        #expect(CacheCommand.bytes(1_234_567) == "1.2 MB")
        #expect(CacheCommand.bytes(999_999) == "1.0 MB")
        #expect(CacheCommand.bytes(3_400_000_000) == "3.4 GB")
    }
}
