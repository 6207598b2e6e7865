import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

/// Migration v7: the usage servers report beyond prompt and completion tokens, the plan's
/// estimate and the cost of each trial, and runs that stop at their spending limit.
@Suite("Store: usage, estimates and cost")
struct CostColumnsTests {
    static func pricedTrial(_ item: DatasetItem = StoreFixtures.cat) -> Trial {
        var trial = StoreFixtures.trial(StoreFixtures.short, item)
        trial.estimate = RequestEstimate(textTokens: 40, imageTokens: 765, outputTokensMax: 60)
        return trial
    }

    @Test("a trial's estimate, cost and the answer's cached and image tokens are stored and read back")
    func roundTrip() async throws {
        let store = try ResultStore()
        let recorder = try await store.beginRun(
            StoreFixtures.info(), variants: [StoreFixtures.short], dataset: StoreFixtures.dataset(), plannedTrials: 3)
        var answer = StoreFixtures.answer("A grey cat asleep.")
        answer.promptTokens = 812
        answer.cachedTokens = 256
        answer.imageTokens = 765
        var result = StoreFixtures.answered(Self.pricedTrial(), answer)
        result.costUSD = 0.0021
        try await recorder.record(result)
        // The same answer from the store: no request, no cost, the same reported usage.
        var again = StoreFixtures.answered(Self.pricedTrial(), answer, cached: true)
        again.trial.repeatIndex = 1
        again.costUSD = 0
        try await recorder.record(again)
        let dogTrial = StoreFixtures.trial(StoreFixtures.short, StoreFixtures.dog)
        try await recorder.record(StoreFixtures.failed(dogTrial, message: "boom"))

        let run = try await store.loadRun(id: StoreFixtures.info().id)
        let cat = try #require(run.trials.first { $0.itemID == "cat" && $0.repeatIndex == 0 })
        let fromStore = try #require(run.trials.first { $0.itemID == "cat" && $0.repeatIndex == 1 })
        #expect(fromStore.cached)
        #expect(fromStore.costUSD == 0)
        #expect(fromStore.answer?.cachedTokens == 256)
        #expect(cat.estimatedInputTokens == 805)
        #expect(cat.estimatedImageTokens == 765)
        #expect(cat.costUSD == 0.0021)
        #expect(cat.answer?.cachedTokens == 256)
        #expect(cat.answer?.imageTokens == 765)
        #expect(cat.answer?.promptTokens == 812)
        let dog = try #require(run.trials.first { $0.itemID == "dog" })
        #expect(dog.estimatedInputTokens == nil)
        #expect(dog.costUSD == nil)

        let cached = try store.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT cached_tokens, image_tokens, estimated_input_tokens, cost_usd FROM trial_result WHERE item = 'cat' AND repeat_index = 0")
        }
        #expect(cached?["cached_tokens"] as Int? == 256)
        #expect(cached?["image_tokens"] as Int? == 765)
        #expect(cached?["estimated_input_tokens"] as Int? == 805)
        #expect(cached?["cost_usd"] as Double? == 0.0021)
    }

    @Test("a run can stop at its spending limit: stopped_by cost_limit is kept and read back")
    func costLimitStop() async throws {
        let store = try ResultStore()
        _ = try await store.beginRun(
            StoreFixtures.info(), variants: [StoreFixtures.short], dataset: StoreFixtures.dataset(), plannedTrials: 4)
        try await store.finishRun(
            id: StoreFixtures.info().id, status: "stopped", message: "the spending limit would be passed",
            stoppedBy: "cost_limit")
        let run = try await store.loadRun(id: StoreFixtures.info().id)
        #expect(run.info.stoppedBy == "cost_limit")
        // The CHECK still refuses what no code writes.
        await #expect(throws: (any Error).self) {
            try await store.finishRun(id: StoreFixtures.info().id, status: "stopped", message: nil, stoppedBy: "whim")
        }
    }

    @Test("a database made before v7 upgrades in place: its runs, variants, items, trials and answers stay, with no usage details")
    func upgradesV6InPlace() async throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            at: folder.databaseURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            let queue = try DatabaseQueue(path: folder.databaseURL.path)
            try Schema.migrator().migrate(queue, upTo: "v6: generated images")
            try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO run (id, started_at, status, provider, provider_reason, endpoint, dataset, prompts,
                          settings, planned_trials, altbench_version, stopped_by)
                        VALUES ('20261101-000000-0001', '2026-11-01 00:00:00.000', 'stopped', 'openai', 'key set',
                          'https://api.openai.com/v1/chat/completions', 'datasets/sample', 'prompts', '{}', 1, '0.1.0',
                          'deadline');
                        INSERT INTO variant (run_id, position, name, file, file_sha256, prompt)
                        VALUES ('20261101-000000-0001', 0, 'icecubes', 'prompts/icecubes.md', 'cccc', 'Describe.');
                        INSERT INTO item (run_id, position, item_key, image, reference_texts, tags)
                        VALUES ('20261101-000000-0001', 0, 'cat', 'cat.png', '["A cat."]', '[]');
                        INSERT INTO response (cache_key, endpoint, model, request, content, prompt_tokens,
                          completion_tokens, latency_ms, created_at)
                        VALUES ('k1', 'https://api.openai.com/v1/chat/completions', 'gpt-4o-mini', '{}', 'A cat.', 25530, 4,
                          900, '2026-11-01 00:00:01.000');
                        INSERT INTO trial (run_id, variant_id, item_id, max_tokens, repeat_index, model, cache_key,
                          response_id, status, cached, attempts, started_at, finished_at)
                        VALUES ('20261101-000000-0001', 1, 1, 50, 0, 'gpt-4o-mini', 'k1', 1, 'answered', 0, 1,
                          '2026-11-01 00:00:00.000', '2026-11-01 00:00:01.000');
                        """)
            }
            try queue.close()
        }
        let store = try ResultStore(url: folder.databaseURL)
        let run = try await store.loadRun(id: "20261101-000000-0001")
        #expect(run.info.stoppedBy == "deadline")
        #expect(run.trials.count == 1)
        #expect(run.trials.first?.answer?.promptTokens == 25530)
        #expect(run.trials.first?.answer?.cachedTokens == nil)
        #expect(run.trials.first?.costUSD == nil)
        #expect(run.trials.first?.estimatedInputTokens == nil)
        // Deleting the run still cascades to its rows: the rebuilt table kept the references.
        let violations = try store.writer.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") }
        #expect(violations.isEmpty)
        try await store.writer.write { db in try db.execute(sql: "DELETE FROM run") }
        #expect(try await StoreFixtures.count(store, "trial") == 0)
        #expect(try await StoreFixtures.count(store, "variant") == 0)
    }
}
