import Foundation
import Testing

@testable import AltBenchCore

/// ``JudgePlan``: which stored answers of a hand-made run get judge calls, and which are left
/// unjudged with why.
@Suite("judge plan")
struct JudgePlanTests {
    static let rubric = JudgeRubric(name: "alt-text.md", text: "Accuracy first.")
    static let endpoint = "https://judge.example.test/v1/chat/completions"
    static let fixtureImage = judgePackageRoot.appendingPathComponent("Tests/AltBenchCoreTests/Fixtures/images/png.png")

    /// A folder of images for one test, removed when the test lets go of it.
    final class Images: Sendable {
        let folder: URL

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-judgeplan-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(at: folder) }

        /// A local item whose image is a copy of the fixture PNG, with the hash the run recorded.
        func item(_ id: String, context: String? = "A post about \(UUID().uuidString.prefix(4)).", lang: String? = "en") throws -> RunResults.Item {
            let url = folder.appendingPathComponent("\(id).png")
            try FileManager.default.copyItem(at: JudgePlanTests.fixtureImage, to: url)
            let hash = Hashing.sha256Hex(try Data(contentsOf: url))
            return RunResults.Item(
                id: id, image: url.path, isRemote: false, width: 64, height: 48, format: "png", context: context, lang: lang,
                imageSHA256: hash)
        }
    }

    static func trial(
        _ itemID: String, _ content: String?, id: Int64? = 1, variant: String = "short", detail: ImageDetail? = nil,
        judgements: [RunResults.JudgementRow] = []
    ) -> RunResults.TrialRow {
        var row = RunResults.TrialRow(
            variant: variant, maxTokens: 60, itemID: itemID, repeatIndex: 0,
            answer: content.map { ModelAnswer(content: $0) } ?? nil, error: content == nil ? "HTTP 500" : nil)
        row.trialID = id
        row.imageDetail = detail
        row.judgements = judgements
        return row
    }

    static func results(items: [RunResults.Item], trials: [RunResults.TrialRow]) -> RunResults {
        RunResults(
            info: RunResults.Info(
                id: "20260101-000000-plan", startedAt: Date(timeIntervalSince1970: 1_767_225_600), status: "finished",
                provider: .mock, providerReason: "--provider mock", endpoint: "mock", datasetPath: "datasets/sample",
                promptsPath: "prompts"),
            variants: [], items: items, trials: trials, plannedTrials: trials.count)
    }

    static func settings(model: String = "gpt-4o", repeats: Int = 1) throws -> JudgeSettings {
        var options = RunOptions()
        options.provider = .mock
        var settings = try JudgeSettings.resolve(
            judge: JudgeOptions(enabled: true), runOptions: options, config: ConfigFile(), environment: [:])
        settings.model = model
        settings.repeats = repeats
        return settings
    }

    static func plan(_ results: RunResults, model: String = "gpt-4o", repeats: Int = 1) throws -> JudgePlan {
        JudgePlan.make(results, settings: try settings(model: model, repeats: repeats), rubric: rubric, endpoint: endpoint)
    }

    /// A verdict row for `key`, as a stored judgement.
    static func judged(_ key: String, repeatIndex: Int = 0, status: RunResults.JudgementRow.Status = .judged) -> RunResults.JudgementRow {
        RunResults.JudgementRow(
            repeatIndex: repeatIndex, model: "gpt-4o", endpoint: endpoint, rubric: "alt-text.md",
            rubricSHA256: rubric.sha256, cacheKey: key, status: status, cached: false, accuracy: status == .judged ? 4 : nil,
            completeness: status == .judged ? 4 : nil, concision: status == .judged ? 4 : nil)
    }

    @Test("an answer with text gets one call naming its trial, repeat and key")
    func oneAnswerOneCall() throws {
        let images = try Images()
        let cat = try images.item("cat")
        let plan = try Self.plan(Self.results(items: [cat], trials: [Self.trial("cat", "  A grey cat asleep.\n", id: 7)]))
        #expect(plan.answers == 1 && plan.alreadyJudged == 0 && plan.skipped.isEmpty)
        let call = try #require(plan.calls.first)
        #expect(plan.calls.count == 1)
        #expect(call.trialID == 7 && call.repeatIndex == 0)
        #expect(call.key.hasPrefix("judge-v1:"))
        #expect(call.request.imageIdentity == "sha256:" + (cat.imageSHA256 ?? ""))
        #expect(call.request.image == .file(URL(fileURLWithPath: cat.image), .png))
        // The answer is judged as trimmed, as the run scored it.
        #expect(call.request.prompt.contains(
            JudgeRequest.subjectJSON(JudgeSubject(itemID: "cat", answer: "A grey cat asleep.", context: cat.context, lang: "en"))))
        #expect(call.estimate.inputTokens > 0)
    }

    /// Trials that get no judge call, whatever the judge.
    static let notJudged: [(name: String, content: String?, trialID: Int64?)] = [
        ("an empty answer", "", 1),
        ("a whitespace answer", " \n\t ", 2),
        ("a failed trial", nil, 3),
        ("a trial the store gave no id", "A cat.", nil),
    ]

    @Test("no call for an empty, whitespace or failed answer, nor for a trial without an id", arguments: notJudged)
    func noCall(name: String, content: String?, trialID: Int64?) throws {
        let images = try Images()
        let plan = try Self.plan(
            Self.results(items: [try images.item("cat")], trials: [Self.trial("cat", content, id: trialID)]))
        #expect(plan.calls.isEmpty, "\(name)")
        #expect(plan.answers == 0 && plan.alreadyJudged == 0 && plan.skipped.isEmpty)
    }

    @Test("a missing image file is skipped with a reason naming the file, once per item with its trial count")
    func missingImage() throws {
        let images = try Images()
        let cat = try images.item("cat")
        let dog = try images.item("dog")
        try FileManager.default.removeItem(atPath: cat.image)
        let plan = try Self.plan(
            Self.results(
                items: [cat, dog],
                trials: [Self.trial("cat", "A cat.", id: 1), Self.trial("dog", "A dog.", id: 2), Self.trial("cat", "Cat.", id: 3)]))
        #expect(plan.calls.map(\.trialID) == [2])
        #expect(plan.skipped.count == 1)
        let skipped = try #require(plan.skipped.first)
        #expect(skipped.itemID == "cat" && skipped.trials == 2)
        #expect(skipped.reason.contains(cat.image))
        #expect(skipped.reason.contains("cannot be read any more"))
    }

    @Test("an image changed since the run is skipped: the judge must see what the answer describes")
    func changedImage() throws {
        let images = try Images()
        let cat = try images.item("cat")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: cat.image))
        bytes.append(0)
        try bytes.write(to: URL(fileURLWithPath: cat.image))
        let plan = try Self.plan(Self.results(items: [cat], trials: [Self.trial("cat", "A cat.")]))
        #expect(plan.calls.isEmpty && plan.answers == 0)
        let skipped = try #require(plan.skipped.first)
        #expect(skipped.reason.contains(cat.image))
        #expect(skipped.reason.contains("has changed since the run"))
    }

    @Test("an item whose image the run could not read is skipped, saying so")
    func unreadAtRunTime() throws {
        let images = try Images()
        var cat = try images.item("cat")
        cat.imageSHA256 = nil
        let plan = try Self.plan(Self.results(items: [cat], trials: [Self.trial("cat", "A cat.")]))
        #expect(plan.calls.isEmpty)
        #expect(plan.skipped.first?.reason.contains("the run could not read its image") == true)
    }

    @Test("a remote item is judged from its URL")
    func remoteItem() throws {
        let url = "https://img.example.test/a.png?w=100"
        let item = RunResults.Item(id: "remote", image: url, isRemote: true)
        let plan = try Self.plan(Self.results(items: [item], trials: [Self.trial("remote", "A picture.")]))
        let call = try #require(plan.calls.first)
        #expect(call.request.image == .remote(URL(string: url)!))
        #expect(call.request.imageIdentity == url)
    }

    @Test("an answer judged by the same key is not asked again; another key, or an unreadable verdict, is")
    func alreadyJudged() throws {
        let images = try Images()
        let cat = try images.item("cat")
        let first = try Self.plan(Self.results(items: [cat], trials: [Self.trial("cat", "A cat.")]))
        let key = try #require(first.calls.first?.key)

        let same = try Self.plan(Self.results(items: [cat], trials: [Self.trial("cat", "A cat.", judgements: [Self.judged(key)])]))
        #expect(same.calls.isEmpty)
        #expect(same.alreadyJudged == 1 && same.answers == 0)

        let other = try Self.plan(
            Self.results(items: [cat], trials: [Self.trial("cat", "A cat.", judgements: [Self.judged("judge-v1:other")])]))
        #expect(other.calls.map(\.key) == [key])
        #expect(other.alreadyJudged == 0 && other.answers == 1)

        let unreadable = try Self.plan(
            Self.results(items: [cat], trials: [Self.trial("cat", "A cat.", judgements: [Self.judged(key, status: .unreadable)])]))
        #expect(unreadable.calls.map(\.key) == [key])

        let otherModel = try Self.plan(
            Self.results(items: [cat], trials: [Self.trial("cat", "A cat.", judgements: [Self.judged(key)])]), model: "gpt-4.1")
        #expect(otherModel.calls.count == 1 && otherModel.calls.first?.key != key, "another judge model is another key")
    }

    @Test("repeats get distinct keys, and only the repeats not yet judged are asked")
    func repeatKeys() throws {
        let images = try Images()
        let cat = try images.item("cat")
        let plan = try Self.plan(Self.results(items: [cat], trials: [Self.trial("cat", "A cat.")]), repeats: 3)
        #expect(plan.calls.map(\.repeatIndex) == [0, 1, 2])
        #expect(Set(plan.calls.map(\.key)).count == 3)
        let base = plan.calls[0].key
        #expect(plan.calls.map(\.key) == [base, base + "#repeat-2", base + "#repeat-3"])
        #expect(plan.answers == 1)

        let partly = try Self.plan(
            Self.results(items: [cat], trials: [Self.trial("cat", "A cat.", judgements: [Self.judged(base), Self.judged(base + "#repeat-3", repeatIndex: 2)])]),
            repeats: 3)
        #expect(partly.calls.map(\.repeatIndex) == [1])
        #expect(partly.answers == 1 && partly.alreadyJudged == 0)
    }

    @Test("a key asked twice (prompts that answered alike) comes after every first call")
    func duplicateKeysLast() throws {
        let images = try Images()
        let cat = try images.item("cat", context: "Same post.")
        let dog = try images.item("dog")
        let plan = try Self.plan(
            Self.results(
                items: [cat, dog],
                trials: [
                    Self.trial("cat", "A cat.", id: 1, variant: "short"),
                    Self.trial("cat", "A cat.", id: 2, variant: "plain"),
                    Self.trial("dog", "A dog.", id: 3),
                    Self.trial("cat", "Another cat.", id: 4),
                ]))
        #expect(plan.calls.map(\.trialID) == [1, 3, 4, 2])
        #expect(plan.calls[0].key == plan.calls[3].key)
        #expect(Set(plan.calls.prefix(3).map(\.key)).count == 3)
        #expect(plan.answers == 4)
    }

    @Test("the trial's detail and the item's post and language reach the judge", arguments: [ImageDetail.low, .high, nil])
    func detailAndContext(detail: ImageDetail?) throws {
        let images = try Images()
        let cat = try images.item("cat", context: "Chelsea on the sofa again.", lang: "de")
        let plan = try Self.plan(Self.results(items: [cat], trials: [Self.trial("cat", "Eine Katze.", detail: detail)]))
        let request = try #require(plan.calls.first?.request)
        #expect(request.detail == detail)
        #expect(request.prompt.contains(
            JudgeRequest.subjectJSON(JudgeSubject(itemID: "cat", answer: "Eine Katze.", context: "Chelsea on the sofa again.", lang: "de"))))
    }

    /// Judge models and the temperature and token field their requests carry.
    static let models: [(model: String, temperature: Double?, field: TokenField)] = [
        ("gpt-4o", 0, .maxTokens),
        ("gpt-4.1-mini", 0, .maxTokens),
        ("gpt-5", nil, .maxCompletionTokens),
        ("gpt-5-mini", nil, .maxCompletionTokens),
        ("o3", nil, .maxCompletionTokens),
        ("o4-mini", nil, .maxCompletionTokens),
    ]

    @Test("reasoning judges get no temperature, others get 0", arguments: models)
    func temperature(model: String, temperature: Double?, field: TokenField) throws {
        let images = try Images()
        let plan = try Self.plan(
            Self.results(items: [try images.item("cat")], trials: [Self.trial("cat", "A cat.")]), model: model)
        let request = try #require(plan.calls.first?.request)
        #expect(request.model == model)
        #expect(request.temperature == temperature)
        #expect(request.tokenField == field)
        #expect(request.maxTokens == JudgeSettings.defaultMaxTokens)
    }
}
