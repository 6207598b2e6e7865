import Foundation
import Testing

@testable import AltBenchCore

/// What each pair asked, recorded in a snapshot, and what changed between two sides.
@Suite("Prompt and settings changes")
struct RequestChangeTests {
    // MARK: - Builders

    static let item = RunResults.Item(
        id: "cat", image: "/data/cat.png", isRemote: false, references: ["A tabby cat asleep on a red sofa."],
        imageSHA256: "aa")

    static func trial(_ variant: String, maxTokens: Int? = 50) -> RunResults.TrialRow {
        let text = "A tabby cat asleep on a red sofa."
        let scores = ScoringSuite.evaluate(ScoringInput(content: text, finishReason: "stop", item: item.scoringItem))
        return RunResults.TrialRow(
            variant: variant, maxTokens: maxTokens, itemID: "cat", repeatIndex: 0, model: "gpt-4o-mini",
            answer: ModelAnswer(content: text, finishReason: "stop", latencyMs: 10),
            scores: ScoreSet(scores))
    }

    /// A stored run of `variants`, each at `limits`, with the run-wide `settings` it recorded.
    static func results(
        _ variants: [PromptVariant], limits: [Int?] = [50], settings: JSONValue = .object([:])
    ) -> RunResults {
        RunResults(
            info: RunResults.Info(
                id: "20261121-101500-ab12", startedAt: Date(timeIntervalSince1970: 0), status: "finished",
                provider: .openai, providerReason: "test", endpoint: "https://api.example.test/v1/chat/completions",
                datasetPath: "datasets/sample", promptsPath: "prompts", settings: settings),
            variants: variants, items: [item],
            trials: variants.flatMap { variant in limits.map { trial(variant.name, maxTokens: $0) } },
            plannedTrials: variants.count * limits.count)
    }

    static let terse = PromptVariant(name: "terse", file: "prompts/terse.md", text: "Describe {{context}} briefly.")
    static let wordy = PromptVariant(name: "wordy", file: "prompts/wordy.md", text: "Describe it.", model: "gpt-4.1-mini")

    static func snapshot(
        _ variants: [PromptVariant] = [terse, wordy], limits: [Int?] = [50], settings: JSONValue = .object([:])
    ) -> RunSnapshot {
        RunSnapshot(results(variants, limits: limits, settings: settings))
    }

    static func change(_ before: RunSnapshot, _ after: RunSnapshot, _ variant: String, _ maxTokens: Int? = 50) -> RequestChange? {
        Comparison(before: before, after: after).pairs.first { $0.variant == variant && $0.maxTokens == maxTokens }?.requestChange
    }

    // MARK: - Hashes in the snapshot

    @Test("each row records the SHA-256 of its prompt text and of the request the planner builds, image aside")
    func rowsRecordPromptAndRequestHashes() throws {
        let row = try #require(Self.snapshot().row(variant: "terse", maxTokens: 50))
        #expect(row.promptSHA256 == Hashing.sha256Hex("Describe {{context}} briefly."))
        let request = RequestRule().templateRequest(variant: Self.terse, maxTokens: 50)
        #expect(row.requestSHA256 == Hashing.sha256Hex(request.keyBody().canonicalText))
        #expect(row.requestSettings == ["model": "gpt-4o-mini", "max_tokens": "50", "token_field": "max_tokens"])
        // The template's placeholders stay unfilled, and the image is a placeholder.
        let body = request.keyBody().canonicalText
        #expect(body.contains("{{context}}"))
        #expect(body.contains(RequestRule.imagePlaceholder))

        let wordy = try #require(Self.snapshot().row(variant: "wordy", maxTokens: 50))
        #expect(wordy.requestSettings?["model"] == "gpt-4.1-mini", "the prompt's own model")
        #expect(wordy.requestSHA256 != row.requestSHA256)
    }

    @Test("the template request is the planned trials' request with the item's text and image left out")
    func templateRequestFollowsThePlannersRule() throws {
        var options = RunOptions()
        options.provider = .mock
        options.model = "o4-mini"
        options.detail = .low
        let experiment = try Experiment.resolve(options: options, config: ConfigFile(), environment: [:])
        let variant = PromptVariant(name: "v", file: "v.md", text: "Describe.", temperature: 0.2, system: "Be terse.")
        let item = DatasetItem(
            id: "x", image: .file(path: "x.png", url: URL(fileURLWithPath: "/data/x.png")),
            imageInfo: ImageInfo(format: .png, width: 2, height: 3, byteCount: 10, sha256: "aa"))
        let trial = Planner(experiment: experiment, endpoint: "mock").plan(
            variants: [variant], dataset: Dataset(name: "d", path: "d", root: URL(fileURLWithPath: "/data"), items: [item]))[0]
        let planned = try #require(trial.request)
        // The stored run's recorded settings rebuild the same rule.
        let template = RequestRule(recorded: experiment.recordedSettings).templateRequest(variant: variant, maxTokens: nil)
        #expect(template.settings == planned.settings)
        #expect(template.keyBody() == planned.body(imageURL: RequestRule.imagePlaceholder))
        #expect(template.settings["model"] == "o4-mini")
        #expect(template.settings["detail"] == "low")
        #expect(template.settings["temperature"] == "0.2")
        #expect(template.settings["system_sha256"] == Hashing.sha256Hex("Be terse."))
    }

    @Test("the same run gives the same hashes; a prompt edit changes both, a detail edit only the request's")
    func hashesAreStableAndSpecific() throws {
        let same = try #require(Self.snapshot().row(variant: "terse", maxTokens: 50))
        #expect(same == Self.snapshot().row(variant: "terse", maxTokens: 50))
        var edited = Self.terse
        edited.text = "Describe {{context}} in one sentence."
        let prompt = try #require(Self.snapshot([edited]).row(variant: "terse", maxTokens: 50))
        #expect(prompt.promptSHA256 != same.promptSHA256)
        #expect(prompt.requestSHA256 != same.requestSHA256)
        var detailed = Self.terse
        detailed.detail = .high
        let detail = try #require(Self.snapshot([detailed]).row(variant: "terse", maxTokens: 50))
        #expect(detail.promptSHA256 == same.promptSHA256)
        #expect(detail.requestSHA256 != same.requestSHA256)
        // The run's --model, as the run recorded it, is part of the request.
        let model = try #require(Self.snapshot(settings: ["model": "gpt-4.1"]).row(variant: "terse", maxTokens: 50))
        #expect(model.promptSHA256 == same.promptSHA256)
        #expect(model.requestSettings?["model"] == "gpt-4.1")
    }

    @Test("baseline.json carries the hashes with sorted keys, and a file without them still loads")
    func fileFormat() throws {
        let snapshot = Self.snapshot()
        let data = try snapshot.encodedJSON()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"prompt_sha256\" : \"\(Hashing.sha256Hex("Describe {{context}} briefly."))\""))
        #expect(text.contains("\"request_sha256\""))
        #expect(text.contains("\"request_settings\" : {\n        \"max_tokens\" : \"50\",\n        \"model\" : \"gpt-4o-mini\","))
        #expect(try Self.snapshot().encodedJSON() == data, "the same run saves the same bytes")
        #expect(RunSnapshot.currentFormat == 2, "optional fields need no new format")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-request-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let new = folder.appendingPathComponent("new.json")
        try data.write(to: new)
        #expect(try RunSnapshot.load(from: new) == snapshot)

        // An older file: the same rows without the three fields.
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["rows"] = (object["rows"] as? [[String: Any]])?.map { row in
            row.filter { !["prompt_sha256", "request_sha256", "request_settings"].contains($0.key) }
        }
        let old = folder.appendingPathComponent("old.json")
        try JSONSerialization.data(withJSONObject: object).write(to: old)
        let loaded = try RunSnapshot.load(from: old)
        #expect(loaded.rows.allSatisfy { $0.promptSHA256 == nil && $0.requestSHA256 == nil && $0.requestSettings == nil })
        #expect(loaded.rows.map(\.metrics) == snapshot.rows.map(\.metrics))
    }

    // MARK: - Marks

    @Test("an unchanged pair has no mark; an edited prompt is marked on its own pairs only")
    func promptChanged() throws {
        let before = Self.snapshot()
        let unchanged = try #require(Self.change(before, Self.snapshot(), "terse"))
        #expect(unchanged == RequestChange(prompt: .same, settings: .same))
        #expect(unchanged.marks.isEmpty && unchanged.text == nil)

        var edited = Self.terse
        edited.text = "Describe {{context}} in one sentence."
        let after = Self.snapshot([edited, Self.wordy])
        let change = try #require(Self.change(before, after, "terse"))
        #expect(change.prompt == .changed)
        #expect(change.settings == .same)
        #expect(change.marks == ["prompt changed"])
        #expect(Self.change(before, after, "wordy")?.marks == [])
    }

    @Test("settings that changed while the prompt did not are named")
    func settingsChanged() throws {
        let before = Self.snapshot()
        var detailed = Self.terse
        detailed.detail = .high
        detailed.temperature = 0.7
        let detail = try #require(Self.change(before, Self.snapshot([detailed, Self.wordy]), "terse"))
        #expect(detail.prompt == .same)
        #expect(detail.marks == ["settings changed (detail, temperature)"])

        // The run's --model changes every pair's model (and a reasoning model's token field).
        let model = try #require(Self.change(before, Self.snapshot(settings: ["model": "o4-mini"]), "terse"))
        #expect(model.marks == ["settings changed (model, token_field)"])

        var both = Self.terse
        both.text = "Say what it shows."
        both.system = "You write alt text."
        let prompt = try #require(Self.change(before, Self.snapshot([both, Self.wordy]), "terse"))
        #expect(prompt.text == "prompt changed; settings changed (system message)")
    }

    @Test("another token limit pairs nothing, yet each side's pair says max_tokens changed")
    func tokenLimitChanged() throws {
        let before = Self.snapshot(limits: [50])
        let after = Self.snapshot(limits: [80])
        let new = try #require(Self.change(before, after, "terse", 80))
        #expect(new.marks == ["settings changed (max_tokens)"])
        let gone = try #require(Self.change(before, after, "terse", 50))
        #expect(gone.marks == ["settings changed (max_tokens)"])
        // A limit added beside one both sides have: the new pair has no change of its own.
        let added50 = Self.snapshot(limits: [50, 100])
        #expect(Self.change(before, added50, "terse", 100) == nil)
        #expect(Self.change(before, added50, "terse", 50)?.marks == [])
        #expect(Self.change(added50, before, "terse", 100) == nil)
        // A variant only one side has is new, not changed.
        let added = Self.snapshot([Self.terse, Self.wordy, PromptVariant(name: "new", file: "new.md", text: "N")])
        #expect(Comparison(before: before, after: added).pairs.first { $0.variant == "new" }?.requestChange == nil)
    }

    @Test("a side that did not record its requests is unknown, not same or changed, and a note says so")
    func unknownWithoutHashes() throws {
        var old = Self.snapshot()
        old.runID = "old"
        for index in old.rows.indices {
            old.rows[index].promptSHA256 = nil
            old.rows[index].requestSHA256 = nil
            old.rows[index].requestSettings = nil
        }
        let comparison = Comparison(before: old, after: Self.snapshot())
        let change = try #require(comparison.pairs.first?.requestChange)
        #expect(change.prompt == .unknown && change.settings == .unknown)
        #expect(change.marks.isEmpty)
        let note = try #require(comparison.requestNote)
        #expect(note.hasPrefix("Whether prompts and settings changed is unknown: A (run old)"))
        #expect(comparison.notes.contains(note))
        #expect(Comparison(before: Self.snapshot(), after: Self.snapshot()).requestNote == nil)
    }

    @Test("a change is shown beside the verdict and never alters it")
    func verdictIgnoresChanges() throws {
        var edited = Self.terse
        edited.text = "Describe {{context}} in one sentence."
        edited.detail = .low
        let changed = CheckVerdict(comparison: Comparison(before: Self.snapshot(), after: Self.snapshot([edited, Self.wordy])))
        let same = CheckVerdict(comparison: Comparison(before: Self.snapshot(), after: Self.snapshot()))
        #expect(changed.status == same.status)
        #expect(changed.exitCode == same.exitCode)
        #expect(changed.results == same.results)
        let summary = try #require(changed.pairSummaries.first { $0.variant == "terse" })
        #expect(summary.requestChange?.text == "prompt changed; settings changed (detail)")

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(changed), as: UTF8.self)
        #expect(json.contains("\"request_change\":{\"changed_settings\":[\"detail\"],\"prompt\":\"changed\",\"settings\":\"changed\"}"))
    }
}
