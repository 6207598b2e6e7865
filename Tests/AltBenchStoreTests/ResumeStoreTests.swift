import AltBenchCore
import Foundation
import Testing

@testable import AltBenchStore

private typealias F = StoreFixtures

@Suite("Resuming a stored run")
struct ResumeStoreTests {
    @Test("a resumed run knows its answered trials, and a failed trial asked again replaces its row")
    func resumeReplacesFailedRows() async throws {
        let store = try ResultStore()
        let dataset = F.dataset([F.cat, F.dog])
        let recorder = try await store.beginRun(F.info(), variants: [F.plain], dataset: dataset, plannedTrials: 3)
        let catTrial = F.trial(F.plain, F.cat)
        let dogTrial = F.trial(F.plain, F.dog)
        try await recorder.record(F.answered(catTrial, F.answer("A cat.")))
        try await recorder.record(F.failed(dogTrial, message: "HTTP 503: busy"))
        try await store.finishRun(id: F.info().id, status: "stopped", message: "interrupted by SIGINT")

        let resumable = try await store.resumableRun(id: F.info().id)
        #expect(resumable.answered == [.init(catTrial)])
        #expect(resumable.failed == 1)
        #expect(resumable.plannedTrials == 3)
        #expect(resumable.variantHashes.map(\.name) == ["plain"])
        #expect(resumable.itemHashes.map(\.id) == ["cat", "dog"])
        #expect(resumable.info.status == "stopped")

        let continued = try await store.continueRun(id: F.info().id, endpoint: F.endpoint)
        #expect(try await store.loadRun(id: F.info().id).info.status == "running")
        try await continued.record(F.answered(dogTrial, F.answer("A dog.")))
        let loaded = try await store.loadRun(id: F.info().id)
        #expect(loaded.trials.count == 2)
        #expect(loaded.trials.allSatisfy { !$0.failed })
        #expect(try await F.count(store, "trial") == 2)
        // The failed row had no scores; the answered one brought its own.
        let scoresPerAnswer = ScoringSuite.evaluate(F.answer("A dog.").scoringInput(ScoringSettings())).count
        #expect(try await F.count(store, "score") == 2 * scoresPerAnswer)
    }

    @Test("a new run's recorder does not look for earlier rows: every trial is a new row")
    func newRunsAppend() async throws {
        let store = try ResultStore()
        let recorder = try await store.beginRun(F.info(), variants: [F.plain], dataset: F.dataset([F.cat]), plannedTrials: 1)
        #expect(recorder.replacesEarlierRows == false)
        let resumed = try await store.continueRun(id: F.info().id, endpoint: F.endpoint)
        #expect(resumed.replacesEarlierRows)
    }
}
