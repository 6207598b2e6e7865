import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

/// The runner records trials from many tasks at once, and a crash must lose only the trials
/// still in flight.
@Suite("Store under concurrency and interruption")
struct StoreDurabilityTests {
    typealias F = StoreFixtures

    /// 200 distinct trials: 2 variants × 10 items × 10 repeats.
    private static func plan() -> (Dataset, [Trial]) {
        let items = (0..<10).map { F.fileItem("img\($0)", references: ["Picture \($0)."]) }
        var trials: [Trial] = []
        for item in items {
            for variant in [F.short, F.plain] {
                for repeatIndex in 0..<10 {
                    trials.append(F.trial(variant, item, maxTokens: 60, repeatIndex: repeatIndex, id: trials.count))
                }
            }
        }
        return (F.dataset(items), trials)
    }

    @Test("200 trials recorded from concurrent tasks all land", arguments: StoreKind.allCases)
    func concurrentRecords(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let (dataset, trials) = Self.plan()
        let recorder = try await store.beginRun(
            F.info(), variants: [F.short, F.plain], dataset: dataset, plannedTrials: trials.count)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for trial in trials {
                group.addTask {
                    // Every fifth trial fails, so failures and answers interleave too.
                    let result = trial.id % 5 == 4
                        ? F.failed(trial, message: "HTTP 503 for trial \(trial.id)")
                        : F.answered(trial, F.answer("Answer \(trial.id)."))
                    try await recorder.record(result)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await F.count(store, "trial") == 200)
        #expect(try await F.count(store, "response") == 160)
        let loaded = try await store.loadRun(id: "20260101-000000-abcd")
        #expect(loaded.trials.count == 200)
        #expect(loaded.trials.filter(\.failed).count == 40)
        let contents = Set(loaded.trials.compactMap { $0.answer?.content })
        #expect(contents.count == 160)
        // Each answer sits on the trial that produced it, however the writes interleaved.
        let byKey = Dictionary(uniqueKeysWithValues: trials.map { ($0.key!, $0.id) })
        let pairs = try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT t.cache_key, r.content FROM trial t JOIN response r ON r.id = t.response_id")
        }
        for row in pairs {
            let id = try #require(byKey[row["cache_key"] as String])
            #expect(row["content"] as String? == "Answer \(id).")
        }
    }

    @Test("each recorded trial is visible at once from a second connection to the file")
    func visibleFromSecondConnection() async throws {
        let folder = try TemporaryDirectory()
        let store = try ResultStore(url: folder.databaseURL)
        let (dataset, trials) = Self.plan()
        let recorder = try await store.beginRun(
            F.info(), variants: [F.short, F.plain], dataset: dataset, plannedTrials: trials.count)
        // Another process (sqlite3, a report, the next run after a crash) opens the file on its own.
        let observer = try DatabaseQueue(path: folder.databaseURL.path)
        #expect(try await observer.read { db in try String.fetchOne(db, sql: "SELECT status FROM run") } == "running")
        for (index, trial) in trials.prefix(12).enumerated() {
            let result = index.isMultiple(of: 3)
                ? F.failed(trial, message: "timeout") : F.answered(trial, F.answer("Answer \(index)."))
            try await recorder.record(result)
            let seen = try await observer.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM trial") ?? 0,
                    try String.fetchOne(
                        db, sql: "SELECT status FROM trial WHERE cache_key = ?", arguments: [trial.key])
                )
            }
            #expect(seen.0 == index + 1)
            #expect(seen.1 == (result.failure == nil ? "answered" : "failed"))
        }
        // The interrupted run still reads back: the report of a crashed run shows what finished.
        let loaded = try await store.loadRun(id: "20260101-000000-abcd")
        #expect(loaded.info.status == "running")
        #expect(loaded.trials.count == 12)
        #expect(loaded.plannedTrials == 200)
    }
}
