import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

@Suite("ResultStore")
struct ResultStoreTests {
    typealias F = StoreFixtures

    // MARK: - beginRun

    @Test("beginRun writes the run, its variants and its items in order", arguments: StoreKind.allCases)
    func beginRunWritesRows(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let recorder = try await store.beginRun(
            F.info(), variants: [F.short, F.plain], dataset: F.dataset(), plannedTrials: 16)
        #expect(recorder.runID == "20260101-000000-abcd")

        let (run, variants, items) = try store.writer.read { db in
            (
                try Row.fetchOne(db, sql: "SELECT * FROM run"),
                try Row.fetchAll(
                    db, sql: "SELECT name, position, max_tokens, detail, description FROM variant ORDER BY id"),
                try Row.fetchAll(db, sql: "SELECT item_key, position, image, image_path, problem FROM item ORDER BY id")
            )
        }
        let row = try #require(run)
        #expect(row["status"] as String == "running")
        #expect(row["finished_at"] as Date? == nil)
        #expect(row["started_at"] as Date == F.start)
        #expect(row["planned_trials"] as Int == 16)
        #expect(row["provider"] as String == "openai")
        #expect(row["settings"] as String == #"{"brevity_budget":150,"repeats":1}"#)

        #expect(variants.map { $0["name"] as String } == ["short", "plain"])
        #expect(variants.map { $0["position"] as Int } == [0, 1])
        #expect(variants[0]["max_tokens"] as String? == "[60,120]")
        #expect(variants[1]["max_tokens"] as String? == nil)
        #expect(variants[0]["detail"] as String? == "low")
        #expect(variants[0]["description"] as String? == "A one-sentence prompt keeps answers brief.")
        #expect(variants[1]["description"] as String? == nil)

        #expect(items.map { $0["item_key"] as String } == ["cat", "dog", "broken", "remote"])
        #expect(items.map { $0["position"] as Int } == [0, 1, 2, 3])
        #expect(items[0]["image"] as String == "cat.png")
        #expect(items[0]["image_path"] as String? == "/tmp/altbench-fixtures/datasets/sample/cat.png")
        #expect(items[3]["image"] as String == "https://img.example.test/a.png?w=100")
        #expect(items[3]["image_path"] as String? == nil)
        #expect((items[2]["problem"] as String?)?.contains("broken.png is not an image") == true)
    }

    // MARK: - record

    @Test("a loaded run lists its baseline variant first: the recorded `baseline`, else icecubes, else the first")
    func loadRunOrdersBaselineFirst() async throws {
        let names = ["context", "icecubes-original", "icecubes"]
        let variants = names.map { PromptVariant(name: $0, file: "prompts/\($0).md", text: "Describe.") }
        for (settings, expected) in [
            (JSONValue.object(["repeats": 1]), ["icecubes", "context", "icecubes-original"]),
            (JSONValue.object(["repeats": 1, "baseline": "icecubes-original"]), ["icecubes-original", "context", "icecubes"]),
        ] {
            let (store, folder) = try StoreKind.file.open()
            defer { withExtendedLifetime(folder) {} }
            var info = F.info()
            info.settings = settings
            _ = try await store.beginRun(info, variants: variants, dataset: F.dataset(), plannedTrials: 0)
            #expect(try await store.loadRun(id: info.id).variants.map(\.name) == expected)
        }
    }

    @Test("record writes an answered trial with its response and its scores", arguments: StoreKind.allCases)
    func recordAnswered(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let recorder = try await store.beginRun(F.info(), variants: [F.short], dataset: F.dataset(), plannedTrials: 1)
        let trial = F.trial(F.short, F.cat)
        let result = F.answered(trial, F.answer("A grey cat asleep on a windowsill."))
        try await recorder.record(result)

        #expect(try await F.count(store, "response") == 1)
        #expect(try await F.count(store, "trial") == 1)
        #expect(try await F.count(store, "score") == result.scores.count)
        let row = try #require(
            try store.writer.read { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT t.status, t.cached, t.attempts, t.cache_key, t.max_tokens, t.error, r.content,
                          r.cache_key AS response_key, r.completion_tokens, r.request
                        FROM trial t JOIN response r ON r.id = t.response_id
                        """)
            })
        #expect(row["status"] as String == "answered")
        #expect(row["cached"] as Bool == false)
        #expect(row["attempts"] as Int == 1)
        #expect(row["cache_key"] as String? == trial.key)
        #expect(row["response_key"] as String? == trial.key)
        #expect(row["max_tokens"] as Int? == 60)
        #expect(row["error"] as String? == nil)
        #expect(row["content"] as String? == "A grey cat asleep on a windowsill.")
        #expect(row["completion_tokens"] as Int? == 12)
        // The request is stored as the cache key saw it: the image by its hash, not its bytes.
        let request: String = row["request"]
        #expect(request.contains("sha256:"))
        #expect(!request.contains("base64"))
    }

    @Test("record writes a failed trial with its error and no response", arguments: StoreKind.allCases)
    func recordFailed(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let recorder = try await store.beginRun(F.info(), variants: [F.short], dataset: F.dataset(), plannedTrials: 2)
        try await recorder.record(F.failed(F.trial(F.short, F.dog), message: "HTTP 500: server error", code: "server_error"))
        try await recorder.record(F.badImage(F.trial(F.short, F.broken)))

        #expect(try await F.count(store, "response") == 0)
        #expect(try await F.count(store, "score") == 0)
        let rows = try store.writer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT i.item_key, t.status, t.cached, t.attempts, t.cache_key, t.response_id, t.error_kind,
                      t.error_status, t.error_code, t.error
                    FROM trial t JOIN item i ON i.id = t.item_id ORDER BY t.id
                    """)
        }
        try #require(rows.count == 2)
        #expect(rows[0]["status"] as String == "failed")
        #expect(rows[0]["error_kind"] as String? == "http")
        #expect(rows[0]["error_status"] as Int? == 500)
        #expect(rows[0]["error_code"] as String? == "server_error")
        #expect(rows[0]["error"] as String? == "HTTP 500: server error")
        #expect(rows[0]["attempts"] as Int == 3)
        #expect(rows[0]["response_id"] as Int64? == nil)

        #expect(rows[1]["item_key"] as String == "broken")
        #expect(rows[1]["status"] as String == "failed")
        #expect(rows[1]["error_kind"] as String? == "image")
        #expect(rows[1]["cache_key"] as String? == nil)
        #expect(rows[1]["attempts"] as Int == 0)
        #expect((rows[1]["error"] as String?)?.contains("broken.png is not an image") == true)
    }

    @Test("errors are never cached: a later run finds no answer for a trial that failed", arguments: StoreKind.allCases)
    func errorsAreNotCached(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let trial = F.trial(F.short, F.dog)
        let first = try await store.beginRun(F.info(), variants: [F.short], dataset: F.dataset(), plannedTrials: 1)
        try await first.record(F.failed(trial, message: "HTTP 503: busy"))
        let second = try await store.beginRun(
            F.info(id: "20260101-000001-abcd"), variants: [F.short], dataset: F.dataset(), plannedTrials: 1)
        #expect(try await second.cachedAnswer(forKey: trial.key!) == nil)
        try await second.record(F.answered(trial, F.answer("A dog.")))
        #expect(try await second.cachedAnswer(forKey: trial.key!)?.content == "A dog.")
    }

    @Test("a trial, its response and its scores are written together or not at all")
    func recordIsOneTransaction() async throws {
        let store = try ResultStore()
        let recorder = try await store.beginRun(F.info(), variants: [F.short], dataset: F.dataset(), plannedTrials: 1)
        var result = F.answered(F.trial(F.short, F.cat), F.answer("A cat."))
        // Two scores with one name break the score table's primary key after the response and
        // the trial rows went in: those rows must roll back with it.
        result.scores.append(Score(name: ScoreName.length, value: 99))
        await #expect(throws: DatabaseError.self) { try await recorder.record(result) }
        #expect(try await F.count(store, "response") == 0)
        #expect(try await F.count(store, "trial") == 0)
        #expect(try await F.count(store, "score") == 0)
    }

    // MARK: - Cache

    @Test("cachedAnswer returns the newest answer stored for a key, nil for an unknown key", arguments: StoreKind.allCases)
    func cachedAnswerNewest(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let trial = F.trial(F.short, F.cat)
        let key = try #require(trial.key)

        let first = try await store.beginRun(
            F.info(id: "run-1"), variants: [F.short], dataset: F.dataset(), plannedTrials: 1)
        #expect(try await first.cachedAnswer(forKey: key) == nil)
        try await first.record(F.answered(trial, F.answer("First answer.", latencyMs: 100)))

        // A later run with the cache off asks again and stores a second answer for the key.
        let second = try await store.beginRun(
            F.info(id: "run-2", startedAt: F.start.addingTimeInterval(60)), variants: [F.short],
            dataset: F.dataset(), plannedTrials: 1)
        let newer = F.answer("Second answer.", finishReason: "length", completionTokens: 60, latencyMs: 300)
        try await second.record(F.answered(trial, newer))

        #expect(try await first.cachedAnswer(forKey: key) == newer)
        #expect(try await second.cachedAnswer(forKey: key) == newer)
        #expect(try await second.cachedAnswer(forKey: "no-such-key") == nil)
        #expect(try await second.cachedAnswer(forKey: "") == nil)
    }

    @Test("a cached trial links to the earlier response row instead of copying it", arguments: StoreKind.allCases)
    func cachedTrialLinksResponse(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let trial = F.trial(F.short, F.cat)
        let key = try #require(trial.key)
        let first = try await store.beginRun(F.info(id: "run-1"), variants: [F.short], dataset: F.dataset(), plannedTrials: 1)
        try await first.record(F.answered(trial, F.answer("A cat.")))

        let second = try await store.beginRun(
            F.info(id: "run-2", startedAt: F.start.addingTimeInterval(60)), variants: [F.short],
            dataset: F.dataset(), plannedTrials: 1)
        let cached = try #require(try await second.cachedAnswer(forKey: key))
        try await second.record(F.answered(trial, cached, cached: true))

        #expect(try await F.count(store, "response") == 1)
        let rows = try store.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT run_id, response_id, cached, attempts FROM trial ORDER BY id")
        }
        try #require(rows.count == 2)
        #expect(rows[1]["response_id"] as Int64? == rows[0]["response_id"] as Int64?)
        #expect(rows[1]["response_id"] as Int64? != nil)
        #expect(rows[1]["cached"] as Bool == true)
        #expect(rows[1]["attempts"] as Int == 0)

        let loaded = try await store.loadRun(id: "run-2")
        #expect(loaded.trials.count == 1)
        #expect(loaded.trials[0].cached)
        #expect(loaded.trials[0].answer?.content == "A cat.")
    }

    // MARK: - loadRun

    @Test("loadRun reads back variants, items, trials, answers, scores and errors", arguments: StoreKind.allCases)
    func loadRunRoundTrip(kind: StoreKind) async throws {
        let (store, folder) = try kind.open()
        defer { withExtendedLifetime(folder) {} }
        let info = F.info()
        let recorder = try await store.beginRun(
            info, variants: [F.short, F.plain], dataset: F.dataset(), plannedTrials: 9)
        // Recorded out of order, as concurrent trials finish; loading puts them in plan order.
        let catShort120 = F.answered(
            F.trial(F.short, F.cat, maxTokens: 120), F.answer("A grey cat asleep.", completionTokens: nil))
        let catShort60 = F.answered(
            F.trial(F.short, F.cat, maxTokens: 60), F.answer("I see a cat", finishReason: "length"))
        let catPlain = F.answered(
            F.trial(F.plain, F.cat, maxTokens: nil), F.answer(nil, refusal: "I can't help with that."))
        let dogPlain = F.failed(F.trial(F.plain, F.dog, maxTokens: nil), message: "HTTP 429: rate limited")
        let broken = F.badImage(F.trial(F.plain, F.broken, maxTokens: nil))
        for result in [dogPlain, catShort120, broken, catPlain, catShort60] {
            try await recorder.record(result)
        }
        try await store.finishRun(id: info.id, status: "finished", message: nil, at: F.start.addingTimeInterval(30))

        let loaded = try await store.loadRun(id: info.id)
        #expect(loaded.info.id == info.id)
        #expect(loaded.info.startedAt == F.start)
        #expect(loaded.info.finishedAt == F.start.addingTimeInterval(30))
        #expect(loaded.info.status == "finished")
        #expect(loaded.info.provider == .openai)
        #expect(loaded.info.providerReason == info.providerReason)
        #expect(loaded.info.endpoint == info.endpoint)
        #expect(loaded.info.datasetPath == "datasets/sample")
        #expect(loaded.info.promptsPath == "prompts")
        #expect(loaded.info.settings == info.settings)
        #expect(loaded.info.version == "0.1.0")
        #expect(loaded.plannedTrials == 9)

        #expect(loaded.variants == [F.short, F.plain])
        #expect(loaded.variants.map(\.description) == ["A one-sentence prompt keeps answers brief.", nil])

        #expect(loaded.items.map(\.id) == ["cat", "dog", "broken", "remote"])
        let cat = loaded.items[0]
        #expect(cat.image == "/tmp/altbench-fixtures/datasets/sample/cat.png")
        #expect(cat.image.hasPrefix("/"))
        #expect(!cat.isRemote)
        #expect(cat.width == 640 && cat.height == 480 && cat.format == "png")
        #expect(cat.references == ["A grey cat asleep on a windowsill.", "Sleeping cat."])
        #expect(cat.problem == nil)
        #expect(loaded.items[2].problem == ImageProblem.notAnImage(path: "broken.png").message)
        #expect(loaded.items[3].isRemote)
        #expect(loaded.items[3].image == "https://img.example.test/a.png?w=100")

        let order = loaded.trials.map { "\($0.itemID)/\($0.variant)/\($0.maxTokens.map(String.init) ?? "none")" }
        #expect(order == ["cat/short/60", "cat/short/120", "cat/plain/none", "dog/plain/none", "broken/plain/none"])

        let first = loaded.trials[0]
        // Everything but the raw body, which stays in the database for `sqlite3` users.
        var expected = catShort60.answer
        expected?.rawBody = nil
        #expect(first.answer == expected)
        #expect(first.model == "gpt-4o-mini")
        #expect(first.repeatIndex == 0)
        #expect(!first.cached)
        #expect(first.error == nil)
        #expect(first.scores == ScoreSet(catShort60.scores))
        #expect(first.scores[ScoreName.firstPerson]?.isFlagged == true)
        #expect(first.scores[ScoreName.truncated]?.isFlagged == true)

        #expect(loaded.trials[1].answer?.completionTokens == nil)
        #expect(loaded.trials[2].answer?.refusal == "I can't help with that.")
        #expect(loaded.trials[2].answer?.content == nil)
        #expect(loaded.trials[2].scores[ScoreName.refusal]?.isFlagged == true)

        let dog = loaded.trials[3]
        #expect(dog.failed)
        #expect(dog.error == "HTTP 429: rate limited")
        #expect(dog.scores.isEmpty)
        #expect(loaded.trials[4].failed)
        #expect(loaded.trials[4].error == ImageProblem.notAnImage(path: "broken.png").message)
        #expect(loaded.trials[4].model == nil)
    }

    @Test("loadRun of an unknown id says so")
    func loadUnknownRun() async throws {
        let store = try ResultStore()
        await #expect(throws: AltBenchError.runNotFound(id: "nope", database: ":memory:")) {
            _ = try await store.loadRun(id: "nope")
        }
    }

    @Test("loadRun keeps each run's trials to itself")
    func runsAreSeparate() async throws {
        let store = try ResultStore()
        let one = try await store.beginRun(F.info(id: "run-1"), variants: [F.plain], dataset: F.dataset(), plannedTrials: 1)
        let two = try await store.beginRun(F.info(id: "run-2"), variants: [F.plain], dataset: F.dataset(), plannedTrials: 1)
        try await one.record(F.answered(F.trial(F.plain, F.cat, maxTokens: nil), F.answer("One.")))
        try await two.record(F.answered(F.trial(F.plain, F.dog, maxTokens: nil), F.answer("Two.")))
        #expect(try await store.loadRun(id: "run-1").trials.map(\.itemID) == ["cat"])
        #expect(try await store.loadRun(id: "run-2").trials.map(\.itemID) == ["dog"])
    }

    // MARK: - Finding runs

    @Test("resolveRunID: an empty database has no runs")
    func resolveEmpty() async throws {
        let store = try ResultStore()
        await #expect(throws: AltBenchError.noRuns(database: ":memory:")) { _ = try await store.resolveRunID(nil) }
        await #expect(throws: AltBenchError.noRuns(database: ":memory:")) { _ = try await store.resolveRunID("2026") }
    }

    /// An argument to `resolveRunID` and the run it must find, or `nil` for "not found".
    struct Resolution: Sendable, CustomTestStringConvertible {
        var argument: String?
        var expected: String?
        var ambiguous: [String]? = nil
        var testDescription: String {
            "\(argument ?? "nil") → \(expected ?? (ambiguous == nil ? "runNotFound" : "ambiguousRun"))"
        }
    }

    @Test(
        "resolveRunID finds the newest run, an exact id or a unique prefix",
        arguments: [
            Resolution(argument: nil, expected: "20260102-090000-bbbb"),
            Resolution(argument: "20260101-120000-aaaa", expected: "20260101-120000-aaaa"),
            Resolution(argument: "20260102", expected: "20260102-090000-bbbb"),
            Resolution(argument: "20260101-12", expected: "20260101-120000-aaaa"),
            // An exact id wins even when it is also the prefix of a longer id.
            Resolution(argument: "20260101-080000", expected: "20260101-080000"),
            // A prefix of several ids names none of them, and says which it matched.
            Resolution(argument: "20260101", expected: nil, ambiguous: [
                "20260101-120000-aaaa", "20260101-080000-cccc", "20260101-080000",
            ]),
            Resolution(argument: "", expected: nil),
            Resolution(argument: "1999", expected: nil),
        ])
    func resolve(_ case_: Resolution) async throws {
        let store = try ResultStore()
        let runs: [(String, TimeInterval)] = [
            ("20260101-080000", 8 * 3600), ("20260101-080000-cccc", 8 * 3600 + 1),
            ("20260101-120000-aaaa", 12 * 3600), ("20260102-090000-bbbb", 33 * 3600),
        ]
        for (id, offset) in runs {
            _ = try await store.beginRun(
                F.info(id: id, startedAt: F.start.addingTimeInterval(offset)), variants: [], dataset: F.dataset([]),
                plannedTrials: 0)
        }
        if let expected = case_.expected {
            #expect(try await store.resolveRunID(case_.argument) == expected)
        } else if let matches = case_.ambiguous {
            await #expect(throws: AltBenchError.ambiguousRun(id: case_.argument ?? "", matches: matches)) {
                _ = try await store.resolveRunID(case_.argument)
            }
        } else {
            await #expect(throws: AltBenchError.runNotFound(id: case_.argument ?? "", database: ":memory:")) {
                _ = try await store.resolveRunID(case_.argument)
            }
        }
    }

    @Test("runIDs lists the newest run first")
    func runIDsNewestFirst() async throws {
        let store = try ResultStore()
        for (id, offset) in [("b", 0.0), ("c", 120.0), ("a", 60.0)] {
            _ = try await store.beginRun(
                F.info(id: id, startedAt: F.start.addingTimeInterval(offset)), variants: [], dataset: F.dataset([]),
                plannedTrials: 0)
        }
        #expect(try await store.runIDs() == ["c", "a", "b"])
    }

    // MARK: - finishRun

    @Test("finishRun records the status, its reason and the time", arguments: ["finished", "stopped"])
    func finishRun(status: String) async throws {
        let store = try ResultStore()
        _ = try await store.beginRun(F.info(), variants: [], dataset: F.dataset([]), plannedTrials: 3)
        let message = status == "stopped" ? "HTTP 401: invalid API key" : nil
        let stoppedBy = status == "stopped" ? "configuration" : nil
        try await store.finishRun(
            id: "20260101-000000-abcd", status: status, message: message, stoppedBy: stoppedBy,
            at: F.start.addingTimeInterval(75))
        let info = try await store.loadRun(id: "20260101-000000-abcd").info
        #expect(info.status == status)
        #expect(info.statusMessage == message)
        #expect(info.stoppedBy == stoppedBy)
        #expect(info.finishedAt == F.start.addingTimeInterval(75))
    }

    @Test("a status outside running/finished/stopped is refused by the schema")
    func finishRunRejectsUnknownStatus() async throws {
        let store = try ResultStore()
        _ = try await store.beginRun(F.info(), variants: [], dataset: F.dataset([]), plannedTrials: 0)
        await #expect(throws: DatabaseError.self) {
            try await store.finishRun(id: "20260101-000000-abcd", status: "done", message: nil)
        }
        await #expect(throws: DatabaseError.self) {
            try await store.finishRun(id: "20260101-000000-abcd", status: "stopped", message: nil, stoppedBy: "tired")
        }
    }
}
