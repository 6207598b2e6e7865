import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

/// `runListings()`: one row per run in a real SQLite file, newest first, with its trials
/// counted by outcome and its status as the `run` table holds it.
@Suite("Run listings")
struct RunListingTests {
    typealias F = StoreFixtures

    static let hour: TimeInterval = 3600

    @Test func everyRunNewestFirstWithItsCountsStatusAndModels() async throws {
        let folder = try TemporaryDirectory()
        let store = try ResultStore(url: folder.databaseURL)

        // Finished: two answers and a bad image, of three planned.
        let finished = try await store.beginRun(
            F.info(id: "20260101-000000-aaaa"), variants: [F.short], dataset: F.dataset(), plannedTrials: 3)
        try await finished.record(F.answered(F.trial(F.short, F.cat), F.answer("A cat.")))
        try await finished.record(F.answered(F.trial(F.short, F.dog), F.answer("A dog.")))
        try await finished.record(F.badImage(F.trial(F.short, F.broken)))
        try await store.finishRun(id: "20260101-000000-aaaa", status: "finished", message: nil)

        // Stopped by the server, an hour later: one failure, with the reason.
        let stopped = try await store.beginRun(
            F.info(id: "20260101-010000-bbbb", startedAt: F.start.addingTimeInterval(Self.hour)), variants: [F.plain],
            dataset: F.dataset(), plannedTrials: 4)
        try await stopped.record(F.failed(F.trial(F.plain, F.cat), message: "HTTP 401: Incorrect API key provided"))
        try await store.finishRun(
            id: "20260101-010000-bbbb", status: "stopped", message: "HTTP 401: Incorrect API key provided")

        // Never closed (its process was killed) and without a trial, two hours later: the
        // mock, with the run's own model setting.
        _ = try await store.beginRun(
            F.info(
                id: "20260101-020000-cccc", startedAt: F.start.addingTimeInterval(2 * Self.hour), provider: .mock,
                settings: ["model": "gpt-4.1-nano"]),
            variants: [F.short, F.plain], dataset: F.dataset(), plannedTrials: 8)

        let runs = try await store.runListings()
        #expect(runs.map(\.id) == ["20260101-020000-cccc", "20260101-010000-bbbb", "20260101-000000-aaaa"])
        #expect(runs.map(\.id) == (try await store.runIDs()), "the order every other command resolves runs in")

        let running = runs[0]
        #expect(running.status == "running")
        #expect(running.provider == .mock)
        #expect(running.finishedAt == nil)
        #expect(running.lastTrialAt == nil)
        #expect((running.answered, running.failed, running.planned) == (0, 0, 8))
        #expect(running.models == ["gpt-4.1-nano"], "before any trial: the model the run was set to ask")

        let stop = runs[1]
        #expect(stop.status == "stopped")
        #expect(stop.statusMessage == "HTTP 401: Incorrect API key provided")
        #expect((stop.answered, stop.failed, stop.planned) == (0, 1, 4))
        #expect(stop.models == ["gpt-4o"], "the model its failed trial asked")

        let done = runs[2]
        #expect(done.status == "finished")
        #expect(done.statusMessage == nil)
        #expect(done.provider == .openai)
        #expect(done.endpoint == F.endpoint)
        #expect(done.dataset == "datasets/sample")
        #expect(done.prompts == "prompts")
        #expect(done.version == "0.1.0")
        #expect(done.startedAt == F.start)
        #expect(done.finishedAt != nil)
        #expect(done.lastTrialAt == F.start.addingTimeInterval(2), "the bad image's trial finished last")
        #expect((done.answered, done.failed, done.planned) == (2, 1, 3))
        #expect(done.models == ["gpt-4o-mini"], "the model its trials asked")
    }

    @Test func modelsAreTheTrialsOwnSortedAndDistinct() async throws {
        let folder = try TemporaryDirectory()
        let store = try ResultStore(url: folder.databaseURL)
        var other = F.plain
        other.model = "gpt-4.1-mini"
        other.name = "other"
        let recorder = try await store.beginRun(
            F.info(settings: ["model": "ignored-once-trials-exist"]), variants: [F.short, other], dataset: F.dataset(),
            plannedTrials: 3)
        try await recorder.record(F.answered(F.trial(F.short, F.cat), F.answer("A cat.")))
        try await recorder.record(F.answered(F.trial(F.short, F.dog), F.answer("A dog.")))
        try await recorder.record(F.answered(F.trial(other, F.cat), F.answer("A cat.")))
        // Before any trial and without a run-wide model: each prompt's own, else the default.
        _ = try await store.beginRun(
            F.info(id: "20260101-000000-zzzz", settings: [:]), variants: [other, F.plain], dataset: F.dataset(),
            plannedTrials: 8)
        let runs = try await store.runListings()
        #expect(runs.count == 2)
        #expect(runs[0].id == "20260101-000000-zzzz", "same start: the larger id first, as runIDs() orders them")
        #expect(runs[0].models == ["gpt-4.1-mini", Experiment.defaultModel])
        #expect(runs[0].answered == 0)
        #expect(runs.map(\.id) == (try await store.runIDs()))
        let recorderRun = runs[1]
        #expect(recorderRun.models == ["gpt-4.1-mini", "gpt-4o-mini"])
        #expect(recorderRun.status == "running")
        #expect(recorderRun.answered == 3)
    }

    @Test func anEmptyDatabaseListsNothing() async throws {
        let folder = try TemporaryDirectory()
        let store = try ResultStore(url: folder.databaseURL)
        #expect(try await store.runListings().isEmpty)
    }
}
