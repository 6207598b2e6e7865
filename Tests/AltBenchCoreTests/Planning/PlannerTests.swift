import Foundation
import Testing

@testable import AltBenchCore

@Suite("Planner and cache keys")
struct PlannerTests {
    static let iceCubesPrompt =
        "What’s in this image? Be brief, it's for image alt description on a social network. Don't write in the first person."

    static func experiment(maxTokens: [Int]? = nil, model: String? = nil, repeats: Int = 1) throws -> Experiment {
        var options = RunOptions()
        options.provider = .mock
        options.maxTokens = maxTokens
        options.model = model
        options.repeats = repeats
        return try Experiment.resolve(options: options, config: ConfigFile(), environment: [:])
    }

    static func item(_ id: String, hash: String = "aa", problem: ImageProblem? = nil) -> DatasetItem {
        DatasetItem(
            id: id, image: .file(path: "\(id).png", url: URL(fileURLWithPath: "/data/\(id).png")),
            imageInfo: problem == nil ? ImageInfo(format: .png, width: 2, height: 3, byteCount: 10, sha256: hash) : nil,
            problem: problem)
    }

    static func dataset(_ items: [DatasetItem]) -> Dataset {
        Dataset(name: "d", path: "d", root: URL(fileURLWithPath: "/data"), items: items)
    }

    @Test func expandsVariantsTokenLimitsItemsAndRepeatsItemByItem() throws {
        let planner = Planner(experiment: try Self.experiment(maxTokens: [30, 50], repeats: 2), endpoint: "mock")
        let variants = [PromptVariant(name: "a", file: "a.md", text: "A"), PromptVariant(name: "b", file: "b.md", text: "B")]
        let trials = planner.plan(variants: variants, dataset: Self.dataset([Self.item("x"), Self.item("y", hash: "bb")]))
        #expect(trials.count == 2 * 2 * 2 * 2)
        #expect(trials.map(\.id) == Array(0..<16))
        // Item-major: the first eight trials all belong to the first image.
        #expect(trials.prefix(8).allSatisfy { $0.item.id == "x" })
        #expect(trials.prefix(4).map(\.variant.name) == ["a", "a", "a", "a"])
        #expect(trials.prefix(4).map(\.maxTokens) == [30, 30, 50, 50])
        #expect(trials.prefix(4).map(\.repeatIndex) == [0, 1, 0, 1])
        #expect(Set(trials.compactMap(\.key)).count == 16)
    }

    @Test func runTokenLimitsOverridePromptsAndPromptsApplyOtherwise() throws {
        let own = PromptVariant(name: "own", file: "own.md", text: "T", maxTokens: [20, 40])
        let none = PromptVariant(name: "none", file: "none.md", text: "T")
        let withRun = Planner(experiment: try Self.experiment(maxTokens: [50]), endpoint: "mock")
        #expect(withRun.tokenLimits(for: own) == [50])
        #expect(withRun.tokenLimits(for: none) == [50])
        let withoutRun = Planner(experiment: try Self.experiment(), endpoint: "mock")
        #expect(withoutRun.tokenLimits(for: own) == [20, 40])
        #expect(withoutRun.tokenLimits(for: none) == [nil])
        let trial = withoutRun.plan(variants: [none], dataset: Self.dataset([Self.item("x")]))[0]
        #expect(trial.request?.maxTokens == nil)
        #expect(trial.request?.body(imageURL: "u")["max_tokens"] == nil)
    }

    @Test func runModelOverridesPromptModelAndDefaultIsIceCubes() throws {
        let pinned = PromptVariant(name: "p", file: "p.md", text: "T", model: "gpt-4.1-mini")
        let free = PromptVariant(name: "f", file: "f.md", text: "T")
        let plain = Planner(experiment: try Self.experiment(), endpoint: "mock")
        #expect(plain.model(for: pinned) == "gpt-4.1-mini")
        #expect(plain.model(for: free) == "gpt-4o-mini")
        let forced = Planner(experiment: try Self.experiment(model: "o4-mini"), endpoint: "mock")
        #expect(forced.model(for: pinned) == "o4-mini")
        let trial = forced.plan(variants: [pinned], dataset: Self.dataset([Self.item("x")]))[0]
        #expect(trial.request?.tokenField == .maxCompletionTokens)
    }

    @Test func badImageGetsATrialWithoutRequest() throws {
        let planner = Planner(experiment: try Self.experiment(maxTokens: [50]), endpoint: "mock")
        let bad = Self.item("bad", problem: .notAnImage(path: "d/bad.png"))
        let trials = planner.plan(variants: [PromptVariant(name: "a", file: "a.md", text: "A")], dataset: Self.dataset([bad]))
        #expect(trials.count == 1)
        #expect(trials[0].request == nil)
        #expect(trials[0].key == nil)
    }

    @Test func iceCubesRequestBodyIsExactlyTheAppsRequest() throws {
        let variant = try PromptLoader().parse(
            data: Data("---\nmodel: gpt-4o-mini\nmax_tokens: 50\n---\n\(Self.iceCubesPrompt)\n".utf8), file: "icecubes.md")
        let url = URL(string: "https://files.mastodon.social/media_attachments/files/1/original/a.png")!
        let item = DatasetItem(id: "r", image: .remote(url))
        let planner = Planner(experiment: try Self.experiment(), endpoint: "mock")
        let request = try #require(planner.plan(variants: [variant], dataset: Self.dataset([item]))[0].request)
        let body = request.body(imageURL: try request.image.urlString())
        let expected = """
            {"max_tokens":50,"messages":[{"content":[{"text":"\(Self.iceCubesPrompt)","type":"text"},\
            {"image_url":{"url":"\(url.absoluteString)"},"type":"image_url"}],"role":"user"}],"model":"gpt-4o-mini"}
            """
        #expect(body.canonicalText == expected)
    }

    @Test func bodyCarriesOnlyWhatThePromptSets() {
        let request = ModelRequest(
            model: "m", system: "Be terse.", prompt: "P", image: .remote(URL(string: "https://x/y.png")!),
            imageIdentity: "https://x/y.png", detail: .low, maxTokens: 30, tokenField: .maxCompletionTokens,
            temperature: 0.2)
        let body = request.body(imageURL: "https://x/y.png")
        #expect(body["max_completion_tokens"] == .int(30))
        #expect(body["max_tokens"] == nil)
        #expect(body["temperature"] == .double(0.2))
        #expect(body["messages"]?[0]?["role"] == "system")
        #expect(body["messages"]?[0]?["content"] == "Be terse.")
        #expect(body["messages"]?[1]?["content"]?[1]?["image_url"]?["detail"] == "low")
    }

    static let base = ModelRequest(
        model: "gpt-4o-mini", prompt: "P", image: .remote(URL(string: "https://x/y.png")!),
        imageIdentity: "sha256:aa", maxTokens: 50)

    static let variations: [(String, ModelRequest)] = {
        var list: [(String, ModelRequest)] = []
        var r = base
        r.model = "gpt-4.1-mini"; list.append(("model", r))
        r = base; r.prompt = "P "; list.append(("prompt", r))
        r = base; r.system = "S"; list.append(("system", r))
        r = base; r.imageIdentity = "sha256:ab"; list.append(("image", r))
        r = base; r.detail = .high; list.append(("detail", r))
        r = base; r.maxTokens = 51; list.append(("max_tokens", r))
        r = base; r.maxTokens = nil; list.append(("no max_tokens", r))
        r = base; r.tokenField = .maxCompletionTokens; list.append(("token field", r))
        r = base; r.temperature = 0; list.append(("temperature", r))
        return list
    }()

    @Test(arguments: variations.map(\.0))
    func cacheKeyChangesWithEverythingThatChangesTheAnswer(_ name: String) {
        let changed = Self.variations.first { $0.0 == name }!.1
        #expect(
            TrialKey.make(endpoint: "e", request: changed, repeatIndex: 0)
                != TrialKey.make(endpoint: "e", request: Self.base, repeatIndex: 0))
    }

    @Test func cacheKeyChangesWithEndpointAndRepeatButIsStable() {
        let key = TrialKey.make(endpoint: "e", request: Self.base, repeatIndex: 0)
        #expect(key == TrialKey.make(endpoint: "e", request: Self.base, repeatIndex: 0))
        #expect(key.count == 64)
        #expect(key != TrialKey.make(endpoint: "f", request: Self.base, repeatIndex: 0))
        #expect(key != TrialKey.make(endpoint: "e", request: Self.base, repeatIndex: 1))
        // The image's location does not matter, only its bytes (identity).
        var moved = Self.base
        moved.image = .file(URL(fileURLWithPath: "/elsewhere/y.png"), .png)
        #expect(key == TrialKey.make(endpoint: "e", request: moved, repeatIndex: 0))
    }

    @Test func cacheKeyIgnoresKeyConcurrencyAndTimeout() throws {
        var one = RunOptions()
        one.concurrency = 1
        one.timeout = 5
        var two = RunOptions()
        two.concurrency = 8
        two.timeout = 90
        let a = try Experiment.resolve(options: one, config: ConfigFile(), environment: ["OPENAI_API_KEY": "sk-aaaaaaaaaaaa"])
        let b = try Experiment.resolve(options: two, config: ConfigFile(), environment: ["OPENAI_API_KEY": "sk-bbbbbbbbbbbb"])
        let variant = PromptVariant(name: "a", file: "a.md", text: "A")
        let keyA = Planner(experiment: a, endpoint: a.endpointIdentity).plan(variants: [variant], dataset: Self.dataset([Self.item("x")]))[0].key
        let keyB = Planner(experiment: b, endpoint: b.endpointIdentity).plan(variants: [variant], dataset: Self.dataset([Self.item("x")]))[0].key
        #expect(keyA != nil)
        #expect(keyA == keyB)
    }

    // MARK: - Templates

    static func post(_ id: String, hash: String = "aa", context: String? = nil, lang: String? = nil) -> DatasetItem {
        var item = Self.item(id, hash: hash)
        item.context = context
        item.lang = lang
        return item
    }

    static func prompt(_ text: String, system: String? = nil) throws -> PromptVariant {
        var source = text + "\n"
        if let system { source = "---\nsystem: \"\(system)\"\n---\n" + source }
        return try PromptLoader().parse(data: Data(source.utf8), file: "prompts/t.md")
    }

    /// The user message's text and the system message, as sent.
    static func sent(_ trial: Trial) throws -> (prompt: String?, system: String?) {
        let request = try #require(trial.request)
        let body = request.body(imageURL: "u")
        let messages = body["messages"]?.arrayValue ?? []
        let user = messages.last?["content"]?[0]?["text"]?.stringValue
        let system = messages.count == 2 ? messages[0]["content"]?.stringValue : nil
        #expect(user == request.prompt)
        #expect(system == request.system)
        return (user, system)
    }

    @Test func thePromptIsRenderedForEachItemAndTheVariantKeepsTheTemplate() throws {
        let variant = try Self.prompt("Describe it.{{#context}} The post says: {{context}}{{/context}}")
        let planner = Planner(experiment: try Self.experiment(maxTokens: [30, 50]), endpoint: "mock")
        let trials = planner.plan(
            variants: [variant], dataset: Self.dataset([Self.post("x", context: "Café ☕"), Self.post("y", hash: "bb")]))
        #expect(try trials.map { try Self.sent($0).prompt } == [
            "Describe it. The post says: Café ☕", "Describe it. The post says: Café ☕", "Describe it.", "Describe it.",
        ])
        #expect(trials.allSatisfy { $0.variant == variant })
        #expect(trials.allSatisfy { $0.variant.text == "Describe it.{{#context}} The post says: {{context}}{{/context}}" })
    }

    @Test(arguments: [("fr", "French"), ("de", "German"), ("es", "Spanish")])
    func languageIsTheEnglishNameOfTheItemsLang(lang: String, name: String) throws {
        let variant = try Self.prompt("Write the alt text in {{language}} ({{lang}}).")
        let planner = Planner(experiment: try Self.experiment(), endpoint: "mock")
        let trial = planner.plan(variants: [variant], dataset: Self.dataset([Self.post("x", lang: lang)]))[0]
        #expect(try Self.sent(trial).prompt == "Write the alt text in \(name) (\(lang)).")
    }

    @Test func theSystemMessageIsRenderedToo() throws {
        let variant = try Self.prompt(
            "Describe it.", system: "You write alt text{{#lang}} in {{language}}{{/lang}}.{{^context}} The post has no text.{{/context}}")
        let planner = Planner(experiment: try Self.experiment(), endpoint: "mock")
        let trials = planner.plan(
            variants: [variant],
            dataset: Self.dataset([Self.post("x", context: "Salut", lang: "fr"), Self.post("y", hash: "bb")]))
        #expect(try Self.sent(trials[0]).system == "You write alt text in French.")
        #expect(try Self.sent(trials[1]).system == "You write alt text. The post has no text.")
        #expect(try Self.sent(trials[0]).prompt == "Describe it.")
    }

    @Test func cacheKeysFollowTheRenderedText() throws {
        let template = try Self.prompt("Describe it. Post: {{context}}")
        let literal = try Self.prompt("Describe it.")
        let planner = Planner(experiment: try Self.experiment(), endpoint: "mock")
        // The same image (same bytes) in three posts: two with one text, one with another.
        let items = [
            Self.post("a", context: "First post."), Self.post("b", context: "Second post."),
            Self.post("c", context: "First post."),
        ]
        let keys = planner.plan(variants: [template], dataset: Self.dataset(items)).map(\.key)
        #expect(keys[0] != keys[1])
        #expect(keys[0] == keys[2])
        // A prompt that uses no field asks the same question whatever the post says.
        let literalKeys = Set(planner.plan(variants: [literal], dataset: Self.dataset(items)).map(\.key))
        #expect(literalKeys.count == 1)
        // A field the template does not use changes nothing either.
        let langOnly = planner.plan(
            variants: [template], dataset: Self.dataset([Self.post("a", context: "P", lang: "fr"), Self.post("b", context: "P")]))
        #expect(langOnly[0].key == langOnly[1].key)
    }

    /// The key v1 (before templates) stored for Ice Cubes' first prompt on the sample's chelsea
    /// image at 10 tokens in a mock run: a literal prompt's key must never change, or every
    /// stored answer would be asked again.
    @Test func aLiteralPromptsCacheKeyIsTheOneV1Computed() throws {
        let variant = try PromptLoader().parse(
            data: Data("---\nmodel: gpt-4o-mini\nmax_tokens: 50\n---\nWhat\u{2019}s in this image?\n".utf8),
            file: "prompts/icecubes-original.md")
        let hash = "596aa1e7cb875eb79f437e310381d26b338a81c2da23439704a73c4651e8c4bb"
        let planner = Planner(experiment: try Self.experiment(maxTokens: [10]), endpoint: "mock")
        let trial = planner.plan(
            variants: [variant], dataset: Self.dataset([Self.post("chelsea", hash: hash, context: "A cat.", lang: "en")]))[0]
        #expect(trial.request?.prompt == variant.text)
        #expect(trial.key == "ed83f1cf1d272ef08e83b5ddd5971f5ca963a2f7eec78326c874f020864f4cf4")
        let canonical = """
            {"endpoint":"mock","repeat":0,"request":{"max_tokens":10,"messages":[{"content":[{"text":"What\u{2019}s in this image?",\
            "type":"text"},{"image_url":{"url":"sha256:\(hash)"},"type":"image_url"}],"role":"user"}],"model":"gpt-4o-mini"}}
            """
        #expect(trial.key == Hashing.sha256Hex(canonical))
    }

    @Test func aVariantBuiltInCodeWithABadTemplateIsSentAsWritten() throws {
        let variant = PromptVariant(name: "v", file: "v.md", text: "Keep {{ this", system: "{{#context}}")
        let planner = Planner(experiment: try Self.experiment(), endpoint: "mock")
        let trial = planner.plan(variants: [variant], dataset: Self.dataset([Self.post("x", context: "P")]))[0]
        #expect(try Self.sent(trial).prompt == "Keep {{ this")
        #expect(try Self.sent(trial).system == "{{#context}}")
    }

    @Test(arguments: [
        ("gpt-4o-mini", TokenField.maxTokens), ("gpt-4o", .maxTokens), ("gpt-4.1-mini", .maxTokens),
        ("o1", .maxCompletionTokens), ("o3-mini", .maxCompletionTokens), ("o4-mini", .maxCompletionTokens),
        ("gpt-5", .maxCompletionTokens), ("gpt-5.1", .maxCompletionTokens), ("gpt-5-mini", .maxCompletionTokens),
        ("openai/o4-mini", .maxCompletionTokens), ("llava:13b", .maxTokens), ("omni-vision", .maxTokens),
        ("o1x", .maxTokens),
    ])
    func tokenFieldFollowsTheModel(_ model: String, _ field: TokenField) {
        #expect(TokenField.preferred(forModel: model) == field)
    }
}
