import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

/// `cacheStatistics()` and `prune(_:now:dryRun:)` on a store with four runs and two stray answers.
@Suite("Cache maintenance")
struct CacheMaintenanceTests {
    typealias F = StoreFixtures

    static let day: TimeInterval = 24 * 60 * 60
    /// The moment the tests prune at: 30 days after the first run.
    static let now = F.start.addingTimeInterval(30 * day)
    static let strayEndpoint = "http://127.0.0.1:8080/v1/chat/completions"

    static let runA = "20260101-000000-aaaa"
    static let runB = "20260111-000000-bbbb"
    static let runC = "20260121-000000-cccc"
    static let runD = "20260130-230000-dddd"

    /// The seeded store, answers named as below (each answer is created a second after its
    /// run starts):
    ///
    /// - A, day 0, finished: cat·short (answer r1), dog·short (r2), broken·short (failed).
    /// - B, day 10, stopped: cat·short from cache (r1), dog·plain (r3).
    /// - C, day 20, finished: cat·short asked again (r4, r1's key), dog·short from cache (r2).
    /// - D, an hour before `now`, still running: dog·short at 120 tokens (r5).
    /// - No trial uses o1 (day 5) or o2 (day 29), at another endpoint and model.
    static func seed(_ store: ResultStore, rawBody: String? = nil) async throws {
        func begin(_ id: String, _ startedAt: Date) async throws -> RunRecorder {
            try await store.beginRun(
                F.info(id: id, startedAt: startedAt), variants: [F.short, F.plain], dataset: F.dataset(),
                plannedTrials: 3)
        }
        func answered(_ trial: Trial, at date: Date, cached: Bool = false) -> TrialResult {
            var result = F.answered(trial, F.answer("An answer.", rawBody: rawBody), cached: cached)
            result.startedAt = date
            result.finishedAt = date.addingTimeInterval(1)
            return result
        }

        let a = try await begin(runA, F.start)
        try await a.record(answered(F.trial(F.short, F.cat), at: F.start))
        try await a.record(answered(F.trial(F.short, F.dog), at: F.start))
        try await a.record(F.badImage(F.trial(F.short, F.broken)))
        try await store.finishRun(id: runA, status: "finished", message: nil)

        let dayTen = F.start.addingTimeInterval(10 * day)
        let b = try await begin(runB, dayTen)
        try await b.record(answered(F.trial(F.short, F.cat), at: dayTen, cached: true))
        try await b.record(answered(F.trial(F.plain, F.dog), at: dayTen))
        try await store.finishRun(id: runB, status: "stopped", message: "401 Unauthorized")

        let dayTwenty = F.start.addingTimeInterval(20 * day)
        let c = try await begin(runC, dayTwenty)
        try await c.record(answered(F.trial(F.short, F.cat), at: dayTwenty))
        try await c.record(answered(F.trial(F.short, F.dog), at: dayTwenty, cached: true))
        try await store.finishRun(id: runC, status: "finished", message: nil)

        let anHourAgo = now.addingTimeInterval(-3600)
        let d = try await begin(runD, anHourAgo)
        try await d.record(answered(F.trial(F.short, F.dog, maxTokens: 120), at: anHourAgo))

        for (key, date) in [("o1", F.start.addingTimeInterval(5 * day)), ("o2", F.start.addingTimeInterval(29 * day))] {
            try await store.writer.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO response (cache_key, endpoint, model, request, content, latency_ms, created_at)
                        VALUES (?, ?, 'llava', '{}', ?, 100, ?)
                        """,
                    arguments: [key, strayEndpoint, "stray \(key)", date])
            }
        }
    }

    /// The answers left, by the names `seed` gives them.
    static func answerNames(_ store: ResultStore) async throws -> [String] {
        try await store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT id, cache_key, content FROM response ORDER BY id").map { row in
                let content: String? = row["content"]
                if let content, content.hasPrefix("stray ") { return String(content.dropFirst(6)) }
                return "r\(row["id"] as Int64)"
            }
        }
    }

    static func runIDs(_ store: ResultStore) async throws -> [String] {
        try await store.runIDs().reversed()
    }

    /// Everything SQLite can check about the file: pages, indexes and foreign keys.
    static func expectIntact(_ store: ResultStore) async throws {
        let (integrity, violations) = try await store.writer.read { db in
            (
                try String.fetchAll(db, sql: "PRAGMA integrity_check"),
                try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map(\.description)
            )
        }
        #expect(integrity == ["ok"])
        #expect(violations == [])
    }

    static func counts(_ store: ResultStore) async throws -> [Int] {
        var counts: [Int] = []
        for table in ["run", "variant", "item", "trial", "score", "response"] {
            counts.append(try await F.count(store, table))
        }
        return counts
    }

    // MARK: - Statistics

    @Test("statistics count runs by status, trials, answers, keys and unused answers", arguments: StoreKind.allCases)
    func statistics(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        try await Self.seed(store)
        let stats = try await store.cacheStatistics()

        #expect(stats.runs == .init(running: 1, finished: 2, stopped: 1))
        #expect(stats.runs.total == 4)
        #expect(stats.trials == 8)
        #expect(stats.answers == 7)
        #expect(stats.cacheKeys == 6, "r4 was asked again under r1's key")
        #expect(stats.unreferencedAnswers == 2)
        #expect(stats.oldestAnswer == F.start.addingTimeInterval(1))
        #expect(stats.newestAnswer == Self.now.addingTimeInterval(-3599))
        #expect(
            stats.byModel == [
                .init(
                    endpoint: Self.strayEndpoint, model: "llava", answers: 2, oldest: F.start.addingTimeInterval(5 * Self.day),
                    newest: F.start.addingTimeInterval(29 * Self.day)),
                .init(
                    endpoint: F.endpoint, model: "gpt-4o", answers: 1, oldest: F.start.addingTimeInterval(10 * Self.day + 1),
                    newest: F.start.addingTimeInterval(10 * Self.day + 1)),
                .init(
                    endpoint: F.endpoint, model: "gpt-4o-mini", answers: 4, oldest: F.start.addingTimeInterval(1),
                    newest: Self.now.addingTimeInterval(-3599)),
            ])
        switch kind {
        case .memory:
            #expect(stats.fileBytes == 0 && stats.walBytes == 0)
        case .file:
            let path = try #require(folder).databaseURL.path
            let file = try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber
            #expect(stats.fileBytes == file?.int64Value)
            #expect(stats.fileBytes > 0)
            #expect(stats.totalBytes == stats.fileBytes + stats.walBytes)
        }
    }

    @Test func statisticsOfAnEmptyStore() async throws {
        let stats = try await ResultStore().cacheStatistics()
        #expect(stats.runs.total == 0)
        #expect(stats.trials == 0 && stats.answers == 0 && stats.cacheKeys == 0 && stats.unreferencedAnswers == 0)
        #expect(stats.oldestAnswer == nil && stats.newestAnswer == nil)
        #expect(stats.byModel.isEmpty)
    }

    // MARK: - Prune selections

    @Test("--older-than deletes older runs and the unused answers from before the cutoff", arguments: StoreKind.allCases)
    func olderThan(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        try await Self.seed(store)
        let outcome = try await store.prune(PruneSelection(olderThan: 15 * Self.day), now: Self.now)

        #expect(outcome.runIDs == [Self.runA, Self.runB])
        #expect(outcome.keptInProgress.isEmpty)
        #expect(outcome.trials == 5)
        #expect(outcome.answers == 3)
        #expect(outcome.cutoff == F.start.addingTimeInterval(15 * Self.day))
        #expect(!outcome.dryRun)
        #expect(try await Self.runIDs(store) == [Self.runC, Self.runD])
        // r2 is old but run C still uses it; o2 is unused but newer than the cutoff.
        #expect(try await Self.answerNames(store) == ["r2", "r4", "r5", "o2"])
        #expect(try await F.count(store, "trial") == 3)
        #expect(try await F.count(store, "variant") == 4)
        #expect(try await F.count(store, "item") == 8)
        try await Self.expectIntact(store)

        // The kept run still loads whole, its cached trial with the old answer.
        let kept = try await store.loadRun(id: Self.runC)
        #expect(kept.trials.count == 2)
        #expect(kept.trials.allSatisfy { $0.answer?.content == "An answer." })
    }

    @Test("--keep-runs counts neither runs without answers nor scratch runs, and never deletes a protected run")
    func keepRunsCountsRealRuns() async throws {
        let store = try ResultStore()
        try await Self.seed(store)
        // Newer than everything: a run whose every trial failed (a wrong key).
        func begin(_ id: String, _ startedAt: Date) async throws -> RunRecorder {
            try await store.beginRun(
                F.info(id: id, startedAt: startedAt), variants: [F.short, F.plain], dataset: F.dataset(), plannedTrials: 3)
        }
        let failedRun = "20260130-235000-eeee"
        let e = try await begin(failedRun, Self.now.addingTimeInterval(-600))
        try await e.record(F.badImage(F.trial(F.short, F.broken)))
        try await store.finishRun(id: failedRun, status: "stopped", message: "401")
        let outcome = try await store.prune(
            PruneSelection(keepRuns: 1, protected: [Self.runA: "the baseline's run"]), now: Self.now, dryRun: true)
        // The failed run is deleted though it is the newest; C is counted; A is protected.
        #expect(outcome.runIDs == [Self.runB, failedRun])
        #expect(outcome.kept.map(\.id) == [Self.runC, Self.runA])
        #expect(outcome.kept.last?.reason == "the baseline's run")
    }

    @Test("--keep-runs keeps the newest finished runs with answers, then deletes every unused answer", arguments: StoreKind.allCases)
    func keepRuns(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        try await Self.seed(store)
        // C is the one finished run counted; D runs; B (stopped) and A are older than C.
        let outcome = try await store.prune(PruneSelection(keepRuns: 1), now: Self.now)
        #expect(outcome.kept.map(\.id) == [Self.runC])

        #expect(outcome.runIDs == [Self.runA, Self.runB])
        #expect(outcome.trials == 5)
        #expect(outcome.answers == 4)
        #expect(outcome.cutoff == nil)
        #expect(try await Self.runIDs(store) == [Self.runC, Self.runD])
        #expect(try await Self.answerNames(store) == ["r2", "r4", "r5"])
        try await Self.expectIntact(store)
    }

    @Test("--keep-runs 0 spares a run that may still be in progress", arguments: StoreKind.allCases)
    func keepNoRunsSparesARecentRunningRun(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        try await Self.seed(store)
        let outcome = try await store.prune(PruneSelection(keepRuns: 0), now: Self.now)

        #expect(outcome.runIDs == [Self.runA, Self.runB, Self.runC])
        #expect(outcome.keptInProgress == [Self.runD])
        #expect(outcome.trials == 7)
        #expect(outcome.answers == 6)
        #expect(try await Self.runIDs(store) == [Self.runD])
        #expect(try await Self.answerNames(store) == ["r5"])
        try await Self.expectIntact(store)
    }

    @Test func aRunningRunOlderThanADayIsPruned() async throws {
        let store = try ResultStore()
        try await Self.seed(store)
        // Two days later, run D is still marked running: it was killed, not in progress.
        let outcome = try await store.prune(PruneSelection(keepRuns: 0), now: Self.now.addingTimeInterval(2 * Self.day))
        #expect(outcome.runIDs == [Self.runA, Self.runB, Self.runC, Self.runD])
        #expect(outcome.keptInProgress.isEmpty)
        #expect(try await Self.counts(store) == [0, 0, 0, 0, 0, 0])
        try await Self.expectIntact(store)
    }

    @Test func olderThanAlsoSparesARecentRunningRun() async throws {
        let store = try ResultStore()
        try await Self.seed(store)
        let outcome = try await store.prune(PruneSelection(olderThan: 60), now: Self.now)
        #expect(outcome.runIDs == [Self.runA, Self.runB, Self.runC])
        #expect(outcome.keptInProgress == [Self.runD])
        #expect(try await Self.answerNames(store) == ["r5"])
    }

    @Test("--unreferenced deletes only the answers no trial uses", arguments: StoreKind.allCases)
    func unreferenced(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        try await Self.seed(store)
        let outcome = try await store.prune(PruneSelection(unreferenced: true), now: Self.now)

        #expect(outcome.runIDs.isEmpty)
        #expect(outcome.trials == 0)
        #expect(outcome.answers == 2)
        #expect(try await Self.runIDs(store) == [Self.runA, Self.runB, Self.runC, Self.runD])
        #expect(try await Self.answerNames(store) == ["r1", "r2", "r3", "r4", "r5"])
        #expect(try await store.cacheStatistics().unreferencedAnswers == 0)
        try await Self.expectIntact(store)
    }

    @Test func criteriaAddUp() async throws {
        let store = try ResultStore()
        try await Self.seed(store)
        // --older-than picks A and B, --keep-runs 3 picks A: A and B go; with --unreferenced,
        // every unused answer goes, o2 included.
        let outcome = try await store.prune(
            PruneSelection(olderThan: 15 * Self.day, keepRuns: 3, unreferenced: true), now: Self.now)
        #expect(outcome.runIDs == [Self.runA, Self.runB])
        #expect(outcome.answers == 4)
        #expect(try await Self.answerNames(store) == ["r2", "r4", "r5"])
        try await Self.expectIntact(store)
    }

    @Test func anEmptySelectionDeletesNothing() async throws {
        let store = try ResultStore()
        try await Self.seed(store)
        let before = try await Self.counts(store)
        let outcome = try await store.prune(PruneSelection(), now: Self.now)
        #expect(PruneSelection().isEmpty)
        #expect(outcome.runIDs.isEmpty && outcome.trials == 0 && outcome.answers == 0)
        #expect(try await Self.counts(store) == before)
    }

    // MARK: - Dry run

    static let selections: [(flags: String, selection: PruneSelection)] = [
        ("--older-than 15d", PruneSelection(olderThan: 15 * day)),
        ("--keep-runs 2", PruneSelection(keepRuns: 2)),
        ("--keep-runs 0", PruneSelection(keepRuns: 0)),
        ("--unreferenced", PruneSelection(unreferenced: true)),
        ("all three", PruneSelection(olderThan: 15 * day, keepRuns: 3, unreferenced: true)),
    ]

    @Test("a dry run names what a real prune deletes and changes nothing", arguments: selections)
    func dryRun(flags: String, selection: PruneSelection) async throws {
        let folder = try TemporaryDirectory()
        let store = try ResultStore(url: folder.databaseURL)
        try await Self.seed(store)
        let before = try await Self.counts(store)
        let statsBefore = try await store.cacheStatistics()

        let dry = try await store.prune(selection, now: Self.now, dryRun: true)
        #expect(dry.dryRun)
        #expect(dry.bytesAfter == dry.bytesBefore)
        #expect(try await Self.counts(store) == before)
        #expect(try await store.cacheStatistics() == statsBefore)

        let real = try await store.prune(selection, now: Self.now)
        #expect(real.runIDs == dry.runIDs)
        #expect(real.keptInProgress == dry.keptInProgress)
        #expect(real.trials == dry.trials)
        #expect(real.answers == dry.answers)
        try await Self.expectIntact(store)
    }

    // MARK: - Size on disk

    @Test func pruningShrinksTheFile() async throws {
        let folder = try TemporaryDirectory()
        let store = try ResultStore(url: folder.databaseURL)
        // Large stored bodies, so the answers take many pages.
        try await Self.seed(store, rawBody: String(repeating: "{\"choices\":[]} ", count: 20_000))
        let outcome = try await store.prune(PruneSelection(keepRuns: 0), now: Self.now)
        #expect(outcome.answers == 6)
        #expect(outcome.bytesAfter < outcome.bytesBefore / 2, "\(outcome.bytesBefore) → \(outcome.bytesAfter)")
        let stats = try await store.cacheStatistics()
        #expect(stats.totalBytes == outcome.bytesAfter)
        #expect(stats.walBytes == 0, "the log is checkpointed and truncated after VACUUM")
        try await Self.expectIntact(store)
    }
}
