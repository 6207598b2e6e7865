import Foundation
import Testing

@testable import AltBenchCore

@Suite("RunSnapshot")
struct RunSnapshotTests {
    // MARK: - Builders

    static let items = [
        RunResults.Item(
            id: "cat", image: "/data/cat.png", isRemote: false, references: ["A tabby cat asleep on a red sofa."],
            imageSHA256: "aa"),
        RunResults.Item(
            id: "sign", image: "/data/sign.png", isRemote: false, references: ["A shop sign that reads OPEN."],
            expectedText: "OPEN", imageSHA256: "bb"),
        RunResults.Item(id: "web", image: "https://files.example.test/web.jpg", isRemote: true, references: ["A web page."]),
    ]

    /// A trial whose scores come from the real scoring suite.
    static func trial(
        _ variant: String, _ item: String, _ text: String?, repeatIndex: Int = 0, maxTokens: Int? = 50,
        model: String = "gpt-4o-mini", finish: String = "stop"
    ) -> RunResults.TrialRow {
        guard let text else {
            return RunResults.TrialRow(
                variant: variant, maxTokens: maxTokens, itemID: item, repeatIndex: repeatIndex, model: model,
                answer: nil, error: "HTTP 500")
        }
        let scoringItem = items.first { $0.id == item }!.scoringItem
        let scores = ScoringSuite.evaluate(ScoringInput(content: text, finishReason: finish, item: scoringItem))
        return RunResults.TrialRow(
            variant: variant, maxTokens: maxTokens, itemID: item, repeatIndex: repeatIndex, model: model,
            answer: ModelAnswer(content: text, finishReason: finish, latencyMs: 10),
            scores: ScoreSet(scores))
    }

    static func results(
        _ trials: [RunResults.TrialRow], items: [RunResults.Item] = items, provider: Provider = .openai,
        endpoint: String = "https://api.example.test/v1/chat/completions"
    ) -> RunResults {
        RunResults(
            info: RunResults.Info(
                id: "20261121-101500-ab12", startedAt: Date(timeIntervalSince1970: 0), status: "finished",
                provider: provider, providerReason: "test", endpoint: endpoint, datasetPath: "datasets/sample",
                promptsPath: "prompts"),
            variants: ["terse", "wordy"].map { PromptVariant(name: $0, file: "prompts/\($0).md", text: "Describe.") },
            items: items, trials: trials, plannedTrials: trials.count)
    }

    static let run = results([
        trial("terse", "cat", "A tabby cat asleep on a red sofa."),
        trial("terse", "cat", "I see a tabby cat asleep on a red sofa.", repeatIndex: 1),
        trial("terse", "sign", "A shop sign that reads OPEN."),
        trial("terse", "sign", "A shop sign that reads OPEN.", repeatIndex: 1),
        trial("terse", "web", nil),
        trial("terse", "web", "A web page.", repeatIndex: 1),
        trial("wordy", "cat", "This image shows a cat on a", finish: "length"),
        trial("wordy", "cat", "This image shows a cat on a", repeatIndex: 1, finish: "length"),
        trial("wordy", "sign", "A sign.", model: "gpt-4.1-mini"),
        trial("wordy", "sign", "A sign.", repeatIndex: 1, model: "gpt-4.1-mini"),
        trial("wordy", "web", "A web page."),
        trial("wordy", "web", "A web page.", repeatIndex: 1),
    ])

    // MARK: - Contents

    @Test("rows follow the run's pairs and carry the summary's figures with their n")
    func rowsCarryTheSummary() throws {
        let snapshot = RunSnapshot(Self.run)
        let summary = RunSummary(Self.run)
        #expect(snapshot.rows.map(\.label) == ["terse @ 50", "wordy @ 50"])
        for (row, summaryRow) in zip(snapshot.rows, summary.rows) {
            #expect(row.n == summaryRow.n)
            #expect(row.answered == summaryRow.answered)
            #expect(row.errors == summaryRow.errors)
            let quality = try #require(summaryRow.meanQuality)
            #expect(abs(try #require(row.metrics["quality"]) - quality) < 1e-6)
            #expect(row.metrics[ScoreName.firstPerson] == summaryRow.checkRates[ScoreName.firstPerson].map(RunSnapshot.rounded))
        }
        #expect(snapshot.rows[0].n == 6 && snapshot.rows[0].errors == 1)
        #expect(snapshot.rows[1].metrics[ScoreName.truncated] == RunSnapshot.rounded(1.0 / 3.0))
        #expect(snapshot.repeats == 2)
        #expect(snapshot.models == ["gpt-4.1-mini", "gpt-4o-mini"])
        #expect(snapshot.provider == "openai")
        #expect(snapshot.runID == "20261121-101500-ab12")
        #expect(snapshot.dataset.items == 3)
        #expect(snapshot.dataset.path == "datasets/sample")
    }

    @Test("each item's hard checks are folded over its repeats; disagreeing repeats are unstable")
    func itemOutcomesFoldRepeats() throws {
        let terse = try #require(RunSnapshot(Self.run).row(variant: "terse", maxTokens: 50))
        let cat = try #require(terse.items["cat"])
        #expect(cat.passed[ScoreName.firstPerson] == 0.5)
        #expect(cat.passed[ScoreName.truncated] == 1)
        #expect(cat.answer == "A tabby cat asleep on a red sofa.")
        #expect(cat.answered == 2 && cat.repeats == 2)
        #expect(cat.quality.map { $0 > 0 && $0 < 1 } == true, "one repeat hard-fails, one does not")

        let web = try #require(terse.items["web"])
        #expect(web.answered == 1 && web.repeats == 2)
        #expect(web.answer == "A web page.", "the first answered repeat, not the failed one")
        #expect(web.passed.values.allSatisfy { $0 == 0 || $0 == 1 })

        let wordy = try #require(RunSnapshot(Self.run).row(variant: "wordy", maxTokens: 50))
        #expect(wordy.items["cat"]?.passed[ScoreName.truncated] == 0)
        #expect(wordy.items["cat"]?.passed[ScoreName.redundantPrefix] == 0)
        #expect(wordy.items["cat"]?.quality == 0)
        // Only hard checks are kept per item; terminal_punctuation is not one by default.
        #expect(wordy.items["cat"]?.passed[ScoreName.terminalPunctuation] == nil)
    }

    @Test(arguments: [
        ("https://api.openai.com/v1/chat/completions", Provider.openai, "api.openai.com"),
        ("http://127.0.0.1:8080/v1/chat/completions", .openai, "127.0.0.1:8080"),
        ("https://proxy.example.test:8443/v1/chat/completions?signature=abc123", .openai, "proxy.example.test:8443"),
        ("mock://altbench", .mock, "mock"),
        ("not a url", .openai, "unknown"),
    ])
    func endpointHostKeepsOnlyTheHost(endpoint: String, provider: Provider, host: String) {
        #expect(RunSnapshot.host(of: endpoint, provider: provider) == host)
    }

    @Test("the dataset hash follows the content, not the order or the folder")
    func datasetHash() {
        let base = RunSnapshot.datasetHash(Self.items)
        #expect(base.count == 64)
        #expect(RunSnapshot.datasetHash(Self.items.reversed()) == base)
        var moved = Self.items
        moved[0].image = "/elsewhere/cat.png"
        #expect(RunSnapshot.datasetHash(moved) == base, "same bytes in another folder")
        var edited = Self.items
        edited[1].references[0] = "A shop sign that reads CLOSED."
        #expect(RunSnapshot.datasetHash(edited) != base)
        var swapped = Self.items
        swapped[0].imageSHA256 = "cc"
        #expect(RunSnapshot.datasetHash(swapped) != base)
        #expect(RunSnapshot.datasetHash(Array(Self.items.prefix(2))) != base)
    }

    // MARK: - The file

    @Test("the JSON is stable: sorted keys, snake_case, a final newline, identical when saved again")
    func jsonIsStable() throws {
        let snapshot = RunSnapshot(Self.run)
        let data = try snapshot.encodedJSON()
        let text = String(decoding: data, as: UTF8.self)
        #expect(try snapshot.encodedJSON() == data)
        #expect(try RunSnapshot(Self.results(Self.run.trials.reversed())).encodedJSON() == data, "trial order does not matter")
        #expect(text.hasSuffix("}\n"))
        for key in ["\"altbench_version\"", "\"run_id\"", "\"endpoint_host\"", "\"max_tokens\" : 50", "\"sha256\""] {
            #expect(text.contains(key), "\(key)")
        }
        let top = ["altbench_version", "dataset", "endpoint_host", "format", "models", "provider", "repeats", "rows", "run_id"]
        let positions = top.map { text.range(of: "\n  \"\($0)\"")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        // Everything reads back but the failure reason, which stays out of the file.
        var written = snapshot
        for index in written.rows.indices { written.rows[index].firstError = nil }
        #expect(try JSONDecoder().decode(RunSnapshot.self, from: data) == written)
    }

    @Test("format 2 is written: each item's checks are named `passed`, with the share of repeats that passed")
    func writesFormatTwo() throws {
        let snapshot = RunSnapshot(Self.run)
        #expect(snapshot.format == 2)
        let text = String(decoding: try snapshot.encodedJSON(), as: UTF8.self)
        #expect(text.contains("\"format\" : 2,"))
        #expect(text.contains("\"passed\" : {"))
        #expect(!text.contains("\"checks\""))
        let object = try #require(try JSONValue.parse(Data(text.utf8)).objectValue)
        let cat = object["rows"]?[0]?["items"]?["cat"]
        #expect(cat?["passed"]?[ScoreName.firstPerson]?.doubleValue == 0.5, "one of two repeats spoke in the first person")
        // The row's failure rate and the item's pass share say the same thing from both sides.
        #expect(object["rows"]?[0]?["metrics"]?[ScoreName.firstPerson]?.doubleValue == RunSnapshot.rounded(1.0 / 5.0))
        // A failed trial's reason is kept with its pair for the check, but not written to the file.
        #expect(snapshot.rows[0].firstError == "HTTP 500")
        #expect(snapshot.rows[1].firstError == nil)
        #expect(!text.contains("HTTP 500") && !text.contains("first_error"))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-format2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("baseline.json")
        try snapshot.encodedJSON().write(to: url)
        var written = snapshot
        written.rows[0].firstError = nil
        #expect(try RunSnapshot.load(from: url) == written)
    }

    /// `Fixtures/baseline/format-1.json`: a baseline as format 1 wrote it, committed.
    static let formatOneFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/baseline/format-1.json")

    @Test("a format 1 baseline is read by its own field names and compares like a format 2 one")
    func readsFormatOne() throws {
        let old = try RunSnapshot.load(from: Self.formatOneFile, displayPath: "format-1.json")
        #expect(old.format == RunSnapshot.currentFormat, "upgraded as it is read")
        #expect(old.rows.map(\.label) == ["terse @ 50", "wordy @ 50"])
        let terse = try #require(old.row(variant: "terse", maxTokens: 50))
        #expect(terse.items["cat"]?.passed == [ScoreName.empty: 1, ScoreName.firstPerson: 1, ScoreName.refusal: 1, ScoreName.truncated: 1])
        #expect(terse.items["web"]?.passed[ScoreName.truncated] == 0)
        #expect(terse.items["cat"]?.answer == "A tabby cat asleep on a red sofa.")
        #expect(terse.metrics[ScoreName.firstPerson] == 0)

        // Saved again it is format 2, and reads back the same.
        let upgraded = String(decoding: try old.encodedJSON(), as: UTF8.self)
        #expect(upgraded.contains("\"format\" : 2,") && upgraded.contains("\"passed\" : {") && !upgraded.contains("\"checks\""))

        // A run in which the cat's answer speaks in the first person regresses against it.
        var run = old
        run.runID = "20261102-090000-f2f2"
        run.rows[0].items["cat"]?.passed[ScoreName.firstPerson] = 0
        run.rows[0].items["cat"]?.answer = "I see a tabby cat asleep on a red sofa."
        run.rows[0].metrics[ScoreName.firstPerson] = RunSnapshot.rounded(1.0 / 3.0)
        let verdict = CheckVerdict(comparison: Comparison(before: old, after: run), thresholds: CheckThresholds(failOnSignificant: false))
        #expect(verdict.status == .regression)
        #expect(verdict.failures.map(\.label) == ["terse @ 50"])
        #expect(verdict.failures.map(\.check) == [ScoreName.firstPerson])
        let flips = verdict.comparison.pairs[0].flips
        #expect(flips.count == 1)
        #expect(flips.first?.item == "cat" && flips.first?.check == ScoreName.firstPerson && flips.first?.regressed == true)
        #expect(verdict.comparison.pairs[1].flips.isEmpty)
        // The same file against itself: nothing moved.
        #expect(CheckVerdict(comparison: Comparison(before: old, after: old)).status == .pass)
    }

    @Test("a baseline that cannot be used names the file and the field, and says what to do")
    func loadErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-snapshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func message(_ contents: String?) -> String {
            let url = folder.appendingPathComponent("baseline.json")
            try? FileManager.default.removeItem(at: url)
            if let contents { try? Data(contents.utf8).write(to: url) }
            do {
                _ = try RunSnapshot.load(from: url, displayPath: "results/baseline.json")
                return "loaded"
            } catch {
                return String(describing: error)
            }
        }
        #expect(message(nil).contains("results/baseline.json cannot be read"))
        #expect(message("{ nope").contains("is not JSON"))
        var object = try #require(try JSONValue.parse(RunSnapshot(Self.run).encodedJSON()).objectValue)
        object["rows"] = nil
        #expect(message(JSONValue.object(object).canonicalText).contains("lacks `rows`"))
        object["rows"] = .string("x")
        #expect(message(JSONValue.object(object).canonicalText).contains("bad value at rows"))
        object["format"] = .int(RunSnapshot.currentFormat + 1)
        let future = message(JSONValue.object(object).canonicalText)
        #expect(future.contains("results/baseline.json has format 3, written by a newer altbench; this altbench reads formats 1 to 2."), "\(future)")
        #expect(future.contains("Update altbench"))
        object["format"] = .int(0)
        #expect(message(JSONValue.object(object).canonicalText).contains("results/baseline.json has format 0, which no altbench writes"))
        let good = String(decoding: try RunSnapshot(Self.run).encodedJSON(), as: UTF8.self)
        #expect(message(good) == "loaded")
    }
}
