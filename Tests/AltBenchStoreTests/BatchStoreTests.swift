import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

/// What a run sends through the Batch API is kept as it happens: each input file with its
/// requests, its file id, and each batch as last seen, so a resumed run knows what exists.
@Suite("Batch API state in the store")
struct BatchStoreTests {
    @Test func inputsFileIDsAndBatchesReadBackInOrder() async throws {
        let folder = try TemporaryDirectory()
        let store = try ResultStore(url: folder.databaseURL)
        let run = StoreFixtures.info()
        _ = try await store.beginRun(run, variants: [StoreFixtures.short], dataset: StoreFixtures.dataset(), plannedTrials: 4)
        let first = BatchInputFile(sequence: 1, model: "gpt-4o-mini", url: URL(fileURLWithPath: "/tmp/altbench-\(run.id)-trials-1.jsonl"), customIDs: ["k1", "k2"], bytes: 300)
        let second = BatchInputFile(sequence: 2, model: "gpt-4o", url: URL(fileURLWithPath: "/tmp/altbench-\(run.id)-trials-2.jsonl"), customIDs: ["k3"], bytes: 150)
        try await store.recordBatchInput(runID: run.id, purpose: "trials", file: first, generation: 0, at: StoreFixtures.start)
        try await store.recordBatchInput(runID: run.id, purpose: "trials", file: second, generation: 1, at: StoreFixtures.start)
        #expect(try await store.latestRunWithBatches() == run.id)

        var state = try await store.batchState(runID: run.id, purpose: "trials")
        #expect(state.map(\.sequence) == [1, 2])
        #expect(state.map(\.customIDs) == [["k1", "k2"], ["k3"]])
        #expect(state.map(\.generation) == [0, 1])
        #expect(state.allSatisfy { $0.fileID == nil && $0.jobs.isEmpty })
        #expect(state[0].uploadName == "altbench-\(run.id)-trials-1.jsonl")
        #expect(try await store.batchState(runID: run.id, purpose: "judge").isEmpty)

        try await store.recordBatchFileID("file-abc", runID: run.id, purpose: "trials", sequence: 1)
        let created = StoredBatchJob(batchID: "batch_1", sequence: 1, status: "validating", createdAt: StoreFixtures.start)
        try await store.recordBatchJob(created, runID: run.id, purpose: "trials")
        var seen = created
        seen.status = "completed"
        seen.total = 2
        seen.completed = 2
        seen.failed = 0
        seen.outputFileID = "file-out"
        seen.checkedAt = StoreFixtures.start.addingTimeInterval(60)
        try await store.updateBatchJob(seen)
        state = try await store.batchState(runID: run.id, purpose: "trials")
        #expect(state[0].fileID == "file-abc")
        #expect(state[0].jobs == [seen])
        #expect(state[1].jobs.isEmpty)

        try await store.markBatchImported("batch_1", at: StoreFixtures.start.addingTimeInterval(61))
        let jobs = try await store.batchJobs(runID: run.id)
        #expect(jobs.map(\.job.batchID) == ["batch_1"])
        #expect(jobs[0].job.importedAt == StoreFixtures.start.addingTimeInterval(61))

        // Kept across a reopen: a run killed here continues from what is recorded.
        let reopened = try ResultStore(url: folder.databaseURL)
        #expect(try await reopened.batchState(runID: run.id, purpose: "trials").map(\.fileID) == ["file-abc", nil])
    }

    @Test func aTrialRemembersTheBatchThatAnsweredIt() async throws {
        let store = try ResultStore()
        let run = StoreFixtures.info()
        let recorder = try await store.beginRun(run, variants: [StoreFixtures.short], dataset: StoreFixtures.dataset(), plannedTrials: 1)
        var result = StoreFixtures.answered(StoreFixtures.trial(StoreFixtures.short, StoreFixtures.cat), StoreFixtures.answer("A cat."))
        result.batchID = "batch_9"
        try await recorder.record(result)
        let stored = try await store.writer.read { db in try String.fetchOne(db, sql: "SELECT batch_id FROM trial") }
        #expect(stored == "batch_9")
    }
}
