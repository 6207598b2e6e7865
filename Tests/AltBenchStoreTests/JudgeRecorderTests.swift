import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

private typealias F = StoreFixtures

/// ``JudgeRecorder`` on a real store: one judge's verdicts per trial, the cache of judge
/// answers, the trial's scores computed again, and what pruning and migration do to them.
@Suite("judge recorder")
struct JudgeRecorderTests {
    static let judgeEndpoint = "http://127.0.0.1:8080/v1/chat/completions"
    static let rubric = JudgeRubric(name: "alt-text.md", text: "Accuracy first.")

    /// A store with one run of two answered trials (cat, dog); the trial ids by item.
    static func store(_ kind: StoreKind = .memory) async throws -> (ResultStore, [String: Int64], TemporaryDirectory?) {
        let (store, folder) = try kind.open()
        let recorder = try await store.beginRun(
            F.info(), variants: [F.short], dataset: F.dataset([F.cat, F.dog]), plannedTrials: 2)
        try await recorder.record(F.answered(F.trial(F.short, F.cat), F.answer("A grey cat asleep on a windowsill.")))
        try await recorder.record(F.answered(F.trial(F.short, F.dog), F.answer("A dog with a ball.")))
        try await store.finishRun(id: F.info().id, status: "finished", message: nil, at: F.start.addingTimeInterval(60))
        let run = try await store.loadRun(id: F.info().id)
        let ids = Dictionary(uniqueKeysWithValues: run.trials.map { ($0.itemID, $0.trialID ?? -1) })
        return (store, ids, folder)
    }

    static func recorder(
        _ store: ResultStore, model: String = "gpt-4o", rubric: JudgeRubric = rubric, repeats: Int = 3,
        redactor: Redactor = Redactor(secrets: [])
    ) -> JudgeRecorder {
        store.judgeRecorder(
            runID: F.info().id, endpoint: judgeEndpoint, model: model, rubric: rubric, rubricName: "judges/\(rubric.name)",
            settings: ScoringSettings(), repeats: repeats, redactor: redactor)
    }

    static func call(_ trialID: Int64, key: String, repeatIndex: Int = 0, model: String = "gpt-4o") -> JudgeCall {
        let request = JudgeRequest.make(
            model: model, rubric: rubric, subject: JudgeSubject(itemID: "cat", answer: "A grey cat."),
            image: .remote(URL(string: "https://img.example.test/cat.png")!), imageIdentity: "sha256:cat", detail: .low,
            maxTokens: 400, tokenField: .maxTokens, structuredOutput: true)
        return JudgeCall(
            trialID: trialID, repeatIndex: repeatIndex, request: request, key: key,
            estimate: RequestEstimate.make(request: request, imageWidth: nil, imageHeight: nil))
    }

    static func answered(
        _ call: JudgeCall, _ content: String?, refusal: String? = nil, cached: Bool = false, cost: Double? = 0.001
    ) -> JudgeCallResult {
        var result = JudgeCallResult(
            call: call,
            outcome: .answered(
                ModelAnswer(content: content, refusal: refusal, finishReason: "stop", responseModel: "gpt-4o-2024-08-06",
                    promptTokens: 900, completionTokens: 40, totalTokens: 940, rawBody: content.map { #"{"content":\#($0.debugDescription)}"# }),
                cached: cached),
            attempts: cached ? 0 : 1, startedAt: F.start.addingTimeInterval(100), finishedAt: F.start.addingTimeInterval(101))
        result.costUSD = cached ? 0 : cost
        return result
    }

    static func failed(_ call: JudgeCall, message: String) -> JudgeCallResult {
        JudgeCallResult(
            call: call, outcome: .failed(ModelFailure(kind: .http, status: 500, message: message, retryable: true)),
            attempts: 3, startedAt: F.start.addingTimeInterval(100), finishedAt: F.start.addingTimeInterval(102))
    }

    static func trial(_ store: ResultStore, _ itemID: String) async throws -> RunResults.TrialRow {
        try #require(try await store.loadRun(id: F.info().id).trials.first { $0.itemID == itemID })
    }

    static func verdict(_ accuracy: Int, _ completeness: Int = 4, _ concision: Int = 4, errors: [String] = []) -> String {
        JudgeVerdict(accuracy: accuracy, completeness: completeness, concision: concision, errors: errors).json
    }

    @Test("a readable verdict is stored as judged, with the judge's scores and quality = form × content", arguments: StoreKind.allCases)
    func judged(kind: StoreKind) async throws {
        let (store, ids, folder) = try await Self.store(kind)
        defer { withExtendedLifetime(folder) {} }
        let cat = try #require(ids["cat"])
        let before = try await Self.trial(store, "cat")
        try await Self.recorder(store).record(
            Self.answered(Self.call(cat, key: "judge-v1:a"), Self.verdict(4, 3, 5, errors: ["misses the window"])))
        let trial = try await Self.trial(store, "cat")
        let row = try #require(trial.judgements.first)
        #expect(trial.judgements.count == 1)
        #expect(row.status == .judged && !row.cached)
        #expect(row.accuracy == 4 && row.completeness == 3 && row.concision == 5)
        #expect(row.errors == ["misses the window"])
        #expect(row.model == "gpt-4o" && row.endpoint == Self.judgeEndpoint)
        #expect(row.rubric == "judges/alt-text.md" && row.rubricSHA256 == Self.rubric.sha256)
        #expect(row.cacheKey == "judge-v1:a")
        #expect(row.promptTokens == 900 && row.completionTokens == 40 && row.costUSD == 0.001)
        #expect(trial.scores[ScoreName.judgeAccuracy]?.value == 0.75)
        #expect(trial.scores[ScoreName.judgeAccuracy]?.detail == "misses the window")
        #expect(trial.scores[ScoreName.judgeCompleteness]?.value == 0.5)
        #expect(trial.scores[ScoreName.judgeConcision]?.value == 1)
        let form = try #require(trial.scores[ScoreName.form]).value
        let content = try #require(trial.scores[ScoreName.content]).value
        #expect(abs(try #require(trial.scores[ScoreName.quality]).value - form * content) < 1e-12)
        // The heuristics stay as the run stored them; the other trial is untouched.
        let derived = JudgeScores.names.union([ScoreName.form, ScoreName.content, ScoreName.quality])
        #expect(trial.scores.values.filter { !derived.contains($0.name) } == before.scores.values.filter { !derived.contains($0.name) })
        #expect(try await Self.trial(store, "dog").judgements.isEmpty)
        #expect(try await Self.trial(store, "dog").scores[ScoreName.judgeAccuracy] == nil)
    }

    @Test("an unreadable verdict is stored with why, its answer kept but never served from the cache")
    func unreadable() async throws {
        let (store, ids, _) = try await Self.store()
        let cat = try #require(ids["cat"])
        let before = try await Self.trial(store, "cat")
        let recorder = Self.recorder(store)
        try await recorder.record(Self.answered(Self.call(cat, key: "judge-v1:u"), "Looks fine to me."))
        let trial = try await Self.trial(store, "cat")
        let row = try #require(trial.judgements.first)
        #expect(row.status == .unreadable)
        #expect(row.error?.isEmpty == false)
        #expect(row.accuracy == nil)
        #expect(trial.scores[ScoreName.judgeAccuracy] == nil)
        #expect(trial.scores[ScoreName.quality] == before.scores[ScoreName.quality])
        #expect(try await recorder.cachedJudgeAnswer(forKey: "judge-v1:u") == nil)
        let stored = try await store.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM response WHERE cache_key = 'judge-v1:u'")
        }
        #expect(stored == 1)
    }

    @Test("a failed call is stored as failed with its message and no answer")
    func failed() async throws {
        let (store, ids, _) = try await Self.store()
        let cat = try #require(ids["cat"])
        try await Self.recorder(store).record(Self.failed(Self.call(cat, key: "judge-v1:f"), message: "The server had an error."))
        let row = try #require(try await Self.trial(store, "cat").judgements.first)
        #expect(row.status == .failed)
        #expect(row.error == "The server had an error.")
        #expect(row.costUSD == nil && row.promptTokens == nil)
        let responses = try await store.writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM response WHERE cache_key = 'judge-v1:f'")
        }
        #expect(responses == 0)
        #expect(try await Self.trial(store, "cat").scores[ScoreName.judgeAccuracy] == nil)
    }

    @Test("cachedJudgeAnswer returns the newest answer whose verdict can be read, and nothing for an unknown key")
    func cachedAnswer() async throws {
        let (store, ids, _) = try await Self.store()
        let recorder = Self.recorder(store)
        let cat = try #require(ids["cat"])
        let dog = try #require(ids["dog"])
        #expect(try await recorder.cachedJudgeAnswer(forKey: "judge-v1:k") == nil)
        try await recorder.record(Self.answered(Self.call(cat, key: "judge-v1:k"), Self.verdict(5)))
        // Another trial asked the same question at the same time and got prose back.
        try await recorder.record(Self.answered(Self.call(dog, key: "judge-v1:k"), "I cannot tell."))
        let cached = try #require(try await recorder.cachedJudgeAnswer(forKey: "judge-v1:k"))
        #expect(cached.content == Self.verdict(5))
        #expect(try await recorder.cachedJudgeAnswer(forKey: "judge-v1:other") == nil)
    }

    @Test("a cached verdict is recorded as cached, at no cost, pointing at the answer it came from")
    func cachedRecord() async throws {
        let (store, ids, _) = try await Self.store()
        let recorder = Self.recorder(store)
        let cat = try #require(ids["cat"])
        let dog = try #require(ids["dog"])
        try await recorder.record(Self.answered(Self.call(cat, key: "judge-v1:k"), Self.verdict(5)))
        // A newer answer for the same key that gave no verdict.
        try await recorder.record(Self.answered(Self.call(cat, key: "judge-v1:k", repeatIndex: 1), "Not sure."))
        let answer = try #require(try await recorder.cachedJudgeAnswer(forKey: "judge-v1:k"))
        var result = Self.answered(Self.call(dog, key: "judge-v1:k"), answer.content, cached: true)
        result.outcome = .answered(answer, cached: true)
        try await recorder.record(result)
        let row = try #require(try await Self.trial(store, "dog").judgements.first)
        #expect(row.status == .judged && row.cached && row.accuracy == 5 && row.costUSD == 0)
        let (responseContent, readableID, pointedID) = try await store.writer.read { db in
            let pointed = try Int64.fetchOne(db, sql: "SELECT response_id FROM judgement WHERE trial_id = ?", arguments: [dog])
            let content = try String.fetchOne(
                db, sql: "SELECT r.content FROM judgement j JOIN response r ON r.id = j.response_id WHERE j.trial_id = ?",
                arguments: [dog])
            let readable = try Int64.fetchOne(
                db, sql: "SELECT response_id FROM judgement WHERE trial_id = ? AND repeat_index = 0", arguments: [cat])
            return (content, readable, pointed)
        }
        #expect(responseContent == Self.verdict(5), "the judgement points at the answer its verdict was read from")
        #expect(pointedID == readableID)
    }

    @Test("a second judge replaces the first's verdicts for that trial, every repeat, and its scores")
    func secondJudgeReplaces() async throws {
        let (store, ids, _) = try await Self.store()
        let cat = try #require(ids["cat"])
        let dog = try #require(ids["dog"])
        let first = Self.recorder(store)
        try await first.record(Self.answered(Self.call(cat, key: "judge-v1:first"), Self.verdict(5, 5, 5)))
        try await first.record(Self.answered(Self.call(cat, key: "judge-v1:first#repeat-2", repeatIndex: 1), Self.verdict(5, 5, 5)))
        try await first.record(Self.answered(Self.call(dog, key: "judge-v1:first-dog"), Self.verdict(5, 5, 5)))
        let judgedByFirst = try await Self.trial(store, "cat")
        #expect(judgedByFirst.judgements.count == 2)
        #expect(judgedByFirst.scores[ScoreName.judgeAccuracy]?.value == 1)

        let second = Self.recorder(store, model: "gpt-4.1")
        try await second.record(
            Self.answered(Self.call(cat, key: "judge-v1:second", model: "gpt-4.1"), Self.verdict(1, 2, 4, errors: ["not a cat"])))
        let cat2 = try await Self.trial(store, "cat")
        #expect(cat2.judgements.map(\.model) == ["gpt-4.1"])
        #expect(cat2.judgements.map(\.repeatIndex) == [0])
        #expect(cat2.scores[ScoreName.judgeAccuracy]?.value == 0)
        #expect(cat2.scores[ScoreName.judgeAccuracy]?.detail == "not a cat")
        #expect(cat2.scores[ScoreName.quality]?.value ?? 1 < judgedByFirst.scores[ScoreName.quality]?.value ?? 0)
        // The other trial keeps the first judge's verdict, and its answers stay in the cache.
        #expect(try await Self.trial(store, "dog").judgements.map(\.model) == ["gpt-4o"])
        #expect(try await first.cachedJudgeAnswer(forKey: "judge-v1:first")?.content == Self.verdict(5, 5, 5))
    }

    @Test("another rubric is another judge; the same judge's repeat is replaced in place")
    func rubricAndRepeat() async throws {
        let (store, ids, _) = try await Self.store()
        let cat = try #require(ids["cat"])
        let recorder = Self.recorder(store)
        try await recorder.record(Self.answered(Self.call(cat, key: "judge-v1:a"), Self.verdict(2)))
        try await recorder.record(Self.answered(Self.call(cat, key: "judge-v1:b", repeatIndex: 1), Self.verdict(4)))
        #expect(try await Self.trial(store, "cat").scores[ScoreName.judgeAccuracy]?.value == 0.5)
        // Repeat 0 asked again (say its verdict was unreadable before): replaced, repeat 1 kept.
        try await recorder.record(Self.answered(Self.call(cat, key: "judge-v1:a"), Self.verdict(4)))
        let again = try await Self.trial(store, "cat")
        #expect(again.judgements.map(\.repeatIndex) == [0, 1])
        #expect(again.scores[ScoreName.judgeAccuracy]?.value == 0.75)

        // The same judge with fewer repeats: the verdicts beyond them go, and no longer count.
        let once = Self.recorder(store, repeats: 1)
        try await once.record(Self.answered(Self.call(cat, key: "judge-v1:a"), Self.verdict(2)))
        let single = try await Self.trial(store, "cat")
        #expect(single.judgements.map(\.repeatIndex) == [0])
        #expect(single.scores[ScoreName.judgeAccuracy]?.value == 0.25)

        let strict = Self.recorder(store, rubric: JudgeRubric(name: "strict.md", text: "Be strict."))
        try await strict.record(Self.answered(Self.call(cat, key: "judge-v1:s"), Self.verdict(1)))
        let judged = try await Self.trial(store, "cat")
        #expect(judged.judgements.map(\.rubric) == ["judges/strict.md"])
        #expect(judged.scores[ScoreName.judgeAccuracy]?.value == 0)
    }

    @Test("a judge answer survives cache prune --unreferenced while a judgement points at it")
    func pruneKeepsReferencedJudgeAnswers() async throws {
        let (store, ids, _) = try await Self.store()
        let cat = try #require(ids["cat"])
        let first = Self.recorder(store)
        try await first.record(Self.answered(Self.call(cat, key: "judge-v1:first"), Self.verdict(5)))
        #expect(try await store.cacheStatistics().unreferencedAnswers == 0)
        let kept = try await store.prune(PruneSelection(unreferenced: true), now: F.start.addingTimeInterval(86_400))
        #expect(kept.answers == 0)
        #expect(try await first.cachedJudgeAnswer(forKey: "judge-v1:first") != nil)

        // Once another judge's verdict replaces it, nothing points at it and it may go.
        try await Self.recorder(store, model: "gpt-4.1").record(
            Self.answered(Self.call(cat, key: "judge-v1:second", model: "gpt-4.1"), Self.verdict(3)))
        #expect(try await store.cacheStatistics().unreferencedAnswers == 1)
        let pruned = try await store.prune(PruneSelection(unreferenced: true), now: F.start.addingTimeInterval(86_400))
        #expect(pruned.answers == 1)
        #expect(try await first.cachedJudgeAnswer(forKey: "judge-v1:first") == nil)
        #expect(try await first.cachedJudgeAnswer(forKey: "judge-v1:second") != nil)
        #expect(try await Self.trial(store, "cat").judgements.first?.accuracy == 3)
    }

    @Test("pruning a judged run deletes its judgements, then their answers")
    func pruneJudgedRun() async throws {
        let (store, ids, _) = try await Self.store()
        try await Self.recorder(store).record(
            Self.answered(Self.call(try #require(ids["cat"]), key: "judge-v1:first"), Self.verdict(5)))
        let outcome = try await store.prune(PruneSelection(keepRuns: 0), now: F.start.addingTimeInterval(86_400))
        #expect(outcome.runIDs == [F.info().id])
        #expect(try await F.count(store, "judgement") == 0)
        #expect(try await F.count(store, "response") == 0)
    }

    @Test("secrets given to the redactor never reach the stored rows")
    func secretsRedacted() async throws {
        let (store, ids, _) = try await Self.store()
        let secret = "sk" + "-test-judge-recorder-secret-42"
        let cat = try #require(ids["cat"])
        let dog = try #require(ids["dog"])
        let recorder = Self.recorder(store, redactor: Redactor(secrets: [secret]))
        try await recorder.record(
            Self.answered(Self.call(cat, key: "judge-v1:s"), Self.verdict(2, errors: ["the key \(secret) is in the image"])))
        try await recorder.record(
            Self.answered(Self.call(cat, key: "judge-v1:s2", repeatIndex: 1), "My key is \(secret), no verdict."))
        try await recorder.record(Self.failed(Self.call(dog, key: "judge-v1:f"), message: "Incorrect API key provided: \(secret)."))
        let dump = try await store.writer.read { db -> String in
            var text = ""
            for table in ["judgement", "response", "score"] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table)") {
                    text += row.description + "\n"
                }
            }
            return text
        }
        #expect(dump.contains("is in the image"), "the rows were read")
        #expect(dump.contains(Redactor.placeholder))
        #expect(!dump.contains(secret))
    }

    @Test("recordJudge writes the judge into the run's settings and keeps the rest")
    func recordJudgeSettings() async throws {
        let (store, _, _) = try await Self.store()
        try await store.recordJudge(runID: F.info().id, judge: ["model": "gpt-4o", "repeats": 2])
        let settings = try await store.loadRun(id: F.info().id).info.settings
        #expect(settings["judge"]?["model"]?.stringValue == "gpt-4o")
        #expect(settings["brevity_budget"] == .int(150))
        await #expect(throws: AltBenchError.self) {
            try await store.recordJudge(runID: "20990101-000000-none", judge: ["model": "gpt-4o"])
        }
    }

    @Test("migration v8 upgrades a v7 database in place: its rows stay, and its trials can be judged")
    func migratesFromV7() async throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            at: folder.databaseURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let v7 = "v7: usage, estimates and cost"
        do {
            let queue = try DatabaseQueue(path: folder.databaseURL.path)
            try Schema.migrator().migrate(queue, upTo: v7)
            try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO run (id, started_at, status, provider, provider_reason, endpoint, dataset, prompts,
                          settings, planned_trials, altbench_version)
                        VALUES ('20251201-000000-0007', '2025-12-01 00:00:00.000', 'finished', 'mock', '--provider mock',
                          'mock', 'datasets/sample', 'prompts', '{}', 1, '0.1.0');
                        INSERT INTO variant (run_id, position, name, file, file_sha256, prompt, model, max_tokens)
                        VALUES ('20251201-000000-0007', 0, 'plain', 'prompts/plain.md', 'bbbb', 'Describe.', 'gpt-4o-mini', '[60]');
                        INSERT INTO item (run_id, position, item_key, image, reference_texts, tags)
                        VALUES ('20251201-000000-0007', 0, 'cat', 'cat.png', '["A cat."]', '[]');
                        INSERT INTO response (cache_key, endpoint, model, request, content, latency_ms, created_at, cached_tokens)
                        VALUES ('v1:cat', 'mock', 'gpt-4o-mini', '{}', 'A grey cat.', 5, '2025-12-01 00:00:00.000', 0);
                        INSERT INTO trial (run_id, variant_id, item_id, max_tokens, repeat_index, cache_key, response_id, status,
                          cached, attempts, started_at, finished_at, cost_usd)
                        VALUES ('20251201-000000-0007', 1, 1, 60, 0, 'v1:cat', 1, 'answered', 0, 1, '2025-12-01 00:00:00.000',
                          '2025-12-01 00:00:01.000', 0.0001);
                        INSERT INTO score (trial_id, name, value, passed) VALUES (1, 'length', 11, NULL), (1, 'quality', 0.8, 1);
                        """)
            }
            let applied = try await queue.read { db in try Schema.migrator().appliedMigrations(db) }
            #expect(applied.last == v7)
            try queue.close()
        }

        let store = try ResultStore(url: folder.databaseURL)
        let applied = try await store.writer.read { db in try Schema.migrator().appliedMigrations(db) }
        #expect(applied.contains("v8: judgements, form and content"))
        #expect(applied == Schema.migrator().migrations)
        let run = try await store.loadRun(id: "20251201-000000-0007")
        let trial = try #require(run.trials.first)
        #expect(run.trials.count == 1)
        #expect(trial.answer?.content == "A grey cat.")
        #expect(trial.costUSD == 0.0001)
        #expect(trial.scores[ScoreName.length]?.value == 11)
        #expect(trial.judgements.isEmpty)
        let viewColumns = try await store.writer.read { db in try db.columns(in: "trial_result").map(\.name) }
        #expect(viewColumns.contains("judge_accuracy") && viewColumns.contains("form"))

        let recorder = store.judgeRecorder(
            runID: run.info.id, endpoint: "mock", model: MockJudge.model, rubric: Self.rubric, rubricName: "judges/alt-text.md",
            settings: ScoringSettings())
        try await recorder.record(Self.answered(Self.call(try #require(trial.trialID), key: "judge-v1:m"), Self.verdict(5)))
        let judged = try #require(try await store.loadRun(id: run.info.id).trials.first)
        #expect(judged.judgements.map(\.status) == [.judged])
        #expect(judged.scores[ScoreName.length]?.value == 11)
        #expect(judged.scores[ScoreName.judgeAccuracy]?.value == 1)
    }
}
