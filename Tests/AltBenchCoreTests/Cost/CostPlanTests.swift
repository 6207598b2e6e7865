import Foundation
import Testing

@testable import AltBenchCore

@Suite("cost plan")
struct CostPlanTests {
    // MARK: - Small trials built by hand

    static func item(_ id: String, width: Int = 1024, height: Int = 1024) -> DatasetItem {
        DatasetItem(
            id: id, image: .file(path: "\(id).png", url: URL(fileURLWithPath: "/data/\(id).png")),
            imageInfo: ImageInfo(format: .png, width: width, height: height, byteCount: 1000, sha256: id))
    }

    static func remoteItem(_ id: String) -> DatasetItem {
        DatasetItem(id: id, image: .remote(URL(string: "https://example.com/\(id).jpg")!))
    }

    static func brokenItem(_ id: String) -> DatasetItem {
        DatasetItem(
            id: id, image: .file(path: "\(id).bmp", url: URL(fileURLWithPath: "/data/\(id).bmp")),
            problem: .unsupportedFormat(path: "\(id).bmp", format: "BMP"))
    }

    static let prompt = "Describe this image for a screen reader."

    /// A trial as the planner builds it: a request unless the item has a problem, keyed by
    /// variant, limit, item and repeat.
    static func trial(
        _ id: Int, variant: String, item: DatasetItem, maxTokens: Int? = 50, model: String = "gpt-4o",
        detail: ImageDetail? = .high, repeatIndex: Int = 0
    ) -> Trial {
        let variant = PromptVariant(name: variant, file: "prompts/\(variant).md", text: prompt)
        var request: ModelRequest?
        if item.problem == nil {
            let payload: ImagePayload =
                switch item.image {
                case .remote(let url): .remote(url)
                case .file(_, let url): .file(url, .png)
                }
            request = ModelRequest(
                model: model, prompt: prompt, image: payload, imageIdentity: item.imageIdentity ?? item.id, detail: detail,
                maxTokens: maxTokens)
        }
        return Trial(
            id: id, variant: variant, item: item, maxTokens: maxTokens, repeatIndex: repeatIndex, request: request,
            key: request.map { _ in "\(variant.name)|\(maxTokens.map(String.init) ?? "-")|\(item.id)|\(repeatIndex)" })
    }

    /// Text tokens of one request with the prompt above and no system message.
    static let text = ApproximateTokenizer.count(prompt) + 3 + 3

    // MARK: - Pairs and counts

    @Test func pairsGroupInOrderOfFirstAppearance() throws {
        let a = Self.item("a"), b = Self.item("b", width: 512, height: 512)
        // Item by item, as the planner orders them.
        let trials = [
            Self.trial(0, variant: "short", item: a, maxTokens: 50),
            Self.trial(1, variant: "short", item: a, maxTokens: 100),
            Self.trial(2, variant: "long", item: a, maxTokens: 50),
            Self.trial(3, variant: "short", item: b, maxTokens: 50),
            Self.trial(4, variant: "short", item: b, maxTokens: 100),
            Self.trial(5, variant: "long", item: b, maxTokens: 50),
        ]
        let plan = CostPlan.make(trials: trials, cachedKeys: [], prices: .builtIn)
        #expect(plan.pairs.map(\.variant) == ["short", "short", "long"])
        #expect(plan.pairs.map(\.maxTokens) == [50, 100, 50])
        let first = plan.pairs[0]
        #expect(first.model == "gpt-4o")
        #expect((first.trials, first.cached, first.toSend) == (2, 0, 2))
        #expect(first.imageTokens == 765 + 255)
        #expect(first.inputTokens == 2 * Self.text + 765 + 255)
        #expect(first.outputTokensMax == 100)
        let price = try #require(PriceTable.builtIn.price(forModel: "gpt-4o")).price
        let low = try #require(first.costLow), high = try #require(first.costHigh)
        #expect(abs(low - price.cost(inputTokens: first.inputTokens, outputTokens: 0)) < 1e-15)
        #expect(abs(high - price.cost(inputTokens: first.inputTokens, outputTokens: 100)) < 1e-15)
        #expect(plan.pairs[1].outputTokensMax == 200)
        // Totals add the pairs.
        #expect(plan.trials == 6 && plan.toSend == 6 && plan.cached == 0)
        #expect(plan.imageTokens == 3 * (765 + 255))
        #expect(plan.outputTokensMax == 50 * 4 + 100 * 2)
        let total = try #require(plan.costHigh)
        #expect(abs(total - plan.pairs.compactMap(\.costHigh).reduce(0, +)) < 1e-15)
        #expect(plan.batchDiscount == 0.5)
        #expect(plan.unpricedModels.isEmpty)
    }

    @Test func cachedUnsendableAndToSend() {
        let trials = [
            Self.trial(0, variant: "v", item: Self.item("a"), repeatIndex: 0),
            Self.trial(1, variant: "v", item: Self.item("a"), repeatIndex: 1),
            Self.trial(2, variant: "v", item: Self.brokenItem("bad")),
            Self.trial(3, variant: "v", item: Self.item("c")),
        ]
        #expect(trials[2].request == nil && trials[2].key == nil)
        let cached: Set<String> = [trials[0].key!, trials[3].key!]
        let plan = CostPlan.make(trials: trials, cachedKeys: cached, prices: .builtIn)
        let pair = plan.pairs[0]
        #expect((pair.trials, pair.cached, pair.toSend) == (4, 2, 1))
        // Only the request to send adds tokens.
        #expect(pair.imageTokens == 765)
        #expect(pair.inputTokens == Self.text + 765)
        #expect(pair.outputTokensMax == 50)
        // A key nobody has does not count as cached.
        let none = CostPlan.make(trials: trials, cachedKeys: ["elsewhere"], prices: .builtIn)
        #expect((none.cached, none.toSend) == (0, 3))
    }

    @Test func aRequestTwoTrialsWouldSendAlikeIsPlannedOnce() {
        let first = Self.trial(0, variant: "v", item: Self.item("a"))
        var twin = Self.trial(1, variant: "w", item: Self.item("a"))
        twin.key = first.key
        let plan = CostPlan.make(trials: [first, twin], cachedKeys: [], prices: .builtIn)
        #expect((plan.cached, plan.toSend) == (1, 1))
        #expect(plan.pairs[1].cached == 1 && plan.pairs[1].inputTokens == 0)
    }

    /// `--offline`: nothing to send, so no tokens and no cost; cached answers still count.
    @Test func sendsNothing() {
        let trials = [
            Self.trial(0, variant: "v", item: Self.item("a")),
            Self.trial(1, variant: "v", item: Self.item("b")),
            Self.trial(2, variant: "w", item: Self.item("a"), model: "llava"),
        ]
        let plan = CostPlan.make(trials: trials, cachedKeys: [trials[0].key!], prices: .builtIn, sendsNothing: true)
        #expect((plan.trials, plan.cached, plan.toSend) == (3, 1, 0))
        #expect(plan.inputTokens == 0 && plan.outputTokensMax == 0 && plan.imageTokens == 0)
        #expect(plan.pairs[0].costLow == 0 && plan.pairs[0].costHigh == 0)
        // An unpriced model with nothing to send costs nothing the total would miss.
        #expect(plan.pairs[1].costLow == nil)
        #expect(plan.costLow == 0 && plan.costHigh == 0)
        #expect(plan.unpricedModels.isEmpty)
        #expect(plan.assumptions.isEmpty)
        // The images are still listed: the plan shows what each would cost.
        #expect(plan.items.count == 3)
    }

    @Test func unpricedModelLeavesCostsOpen() {
        let trials = [
            Self.trial(0, variant: "cheap", item: Self.item("a"), model: "gpt-4o-mini"),
            Self.trial(1, variant: "local", item: Self.item("a"), model: "llava"),
            Self.trial(2, variant: "local2", item: Self.item("a"), model: "claude-3-5-sonnet"),
            Self.trial(3, variant: "local3", item: Self.item("b"), model: "llava"),
        ]
        let plan = CostPlan.make(trials: trials, cachedKeys: [], prices: .builtIn)
        #expect(plan.pairs[0].costLow != nil && plan.pairs[0].costHigh != nil)
        #expect(plan.pairs[1].costLow == nil && plan.pairs[1].costHigh == nil)
        // Tokens are still counted, with gpt-4o's formula for a model without one.
        #expect(plan.pairs[1].imageTokens == 765)
        #expect(plan.costLow == nil && plan.costHigh == nil)
        #expect(plan.unpricedModels == ["claude-3-5-sonnet", "llava"])
        // A price in altbench.yml closes the gap.
        let priced = PriceTable.builtIn.merging(
            PriceTable(models: [
                "llava": ModelPrice(input: 0, output: 0), "claude-3-5-sonnet": ModelPrice(input: 3, output: 15),
            ]))
        let plan2 = CostPlan.make(trials: trials, cachedKeys: [], prices: priced)
        #expect(plan2.unpricedModels.isEmpty)
        #expect(plan2.pairs[1].costHigh == 0)
        #expect(plan2.costHigh != nil)
        // All of an unpriced pair cached: nothing to send, so the total stands.
        let cached = CostPlan.make(trials: trials, cachedKeys: Set([1, 2, 3].map { trials[$0].key! }), prices: .builtIn)
        #expect(cached.unpricedModels.isEmpty)
        #expect(cached.costHigh != nil)
    }

    @Test func costOfAKnownRequest() throws {
        // One gpt-4o request: 765 image tokens and the prompt, up to 50 output tokens.
        let plan = CostPlan.make(trials: [Self.trial(0, variant: "v", item: Self.item("a"))], cachedKeys: [], prices: .builtIn)
        let input = Double(Self.text + 765)
        #expect(abs(try #require(plan.costLow) - input * 2.5 / 1e6) < 1e-15)
        #expect(abs(try #require(plan.costHigh) - (input * 2.5 + 50 * 10) / 1e6) < 1e-15)
    }

    /// A planner-made estimate is used as is.
    @Test func trialEstimateWins() {
        var trial = Self.trial(0, variant: "v", item: Self.item("a"))
        trial.estimate = RequestEstimate(textTokens: 10, imageTokens: 20, outputTokensMax: 30)
        let plan = CostPlan.make(trials: [trial], cachedKeys: [], prices: .builtIn)
        #expect(plan.inputTokens == 30 && plan.imageTokens == 20 && plan.outputTokensMax == 30)
        #expect(plan.items.map(\.imageTokens) == [20])
        #expect(plan.assumptions.isEmpty)
    }

    /// A pair whose trials are all unsendable has no request and so no model to name.
    @Test func pairWithoutRequests() {
        let plan = CostPlan.make(
            trials: [Self.trial(0, variant: "v", item: Self.brokenItem("x"))], cachedKeys: [], prices: .builtIn)
        #expect(plan.pairs.count == 1)
        #expect(plan.pairs[0].model == "")
        #expect((plan.pairs[0].trials, plan.pairs[0].toSend) == (1, 0))
        #expect(plan.items.isEmpty)
        #expect(plan.costHigh == 0)
    }

    // MARK: - Items

    @Test func itemsAreDistinctByImageModelAndDetail() {
        let a = Self.item("a", width: 4000, height: 3000)
        let trials = [
            Self.trial(0, variant: "v", item: a, maxTokens: 50),
            Self.trial(1, variant: "v", item: a, maxTokens: 100),  // same image, model, detail
            Self.trial(2, variant: "v", item: a, maxTokens: 50, repeatIndex: 1),
            Self.trial(3, variant: "low", item: a, detail: .low),
            Self.trial(4, variant: "auto", item: a, detail: nil),
            Self.trial(5, variant: "mini", item: a, model: "gpt-4.1-mini"),
            Self.trial(6, variant: "v", item: Self.remoteItem("r")),
            Self.trial(7, variant: "v", item: Self.brokenItem("bad")),
        ]
        let plan = CostPlan.make(trials: trials, cachedKeys: [trials[0].key!], prices: .builtIn)
        #expect(
            plan.items == [
                CostPlan.ItemCost(id: "a", model: "gpt-4o", width: 4000, height: 3000, detail: "high", imageTokens: 765),
                CostPlan.ItemCost(id: "a", model: "gpt-4o", width: 4000, height: 3000, detail: "low", imageTokens: 85),
                CostPlan.ItemCost(id: "a", model: "gpt-4o", width: 4000, height: 3000, detail: "auto", imageTokens: 765),
                CostPlan.ItemCost(id: "a", model: "gpt-4.1-mini", width: 4000, height: 3000, detail: "high", imageTokens: 2353),
                CostPlan.ItemCost(id: "r", model: "gpt-4o", width: nil, height: nil, detail: "high", imageTokens: 1445),
            ])
    }

    // MARK: - Assumptions

    @Test func assumptionsOnceEachWithCounts() {
        let trials = [
            Self.trial(0, variant: "v", item: Self.remoteItem("r1"), maxTokens: nil, detail: nil),
            Self.trial(1, variant: "v", item: Self.remoteItem("r1"), maxTokens: nil, detail: nil, repeatIndex: 1),
            Self.trial(2, variant: "v", item: Self.remoteItem("r2"), maxTokens: nil, detail: nil),
            Self.trial(3, variant: "v", item: Self.remoteItem("r3"), maxTokens: nil, detail: nil),
            Self.trial(4, variant: "v", item: Self.item("a"), maxTokens: nil, detail: nil),
            Self.trial(5, variant: "w", item: Self.remoteItem("r1"), model: "llava", detail: .high),
            Self.trial(6, variant: "m", item: Self.item("a"), model: "gpt-4.1-mini", detail: .low),
            Self.trial(7, variant: "m", item: Self.item("b"), model: "gpt-4.1-mini", detail: .low),
            // Cached: its assumptions are not the plan's.
            Self.trial(8, variant: "x", item: Self.remoteItem("r9"), model: "o1", detail: .low),
        ]
        let plan = CostPlan.make(trials: trials, cachedKeys: [trials[8].key!], prices: .builtIn)
        #expect(
            plan.assumptions == [
                "Text tokens are estimated (about one per word or punctuation mark), not counted with the model's tokenizer; image tokens follow the model's published formula.",
                "Images sent with detail auto (or no detail) are counted as detail high, the most the model may charge.",
                "3 remote images of unknown size are counted at the most gpt-4o can charge for one image (1,445 tokens).",
                "5 requests without max_tokens are counted at 1,000 output tokens each; their answers can be longer.",
                "No image formula is known for llava; its images are counted with gpt-4o's.",
                "1 remote image of unknown size for llava is counted at the most gpt-4o's formula can charge for one image (1,445 tokens).",
                "gpt-4.1-mini counts images in 32-pixel patches whatever the detail, so detail low does not lower its count.",
            ])
        #expect(!plan.assumptions.contains { $0.contains("o1") })
    }

    /// Remote images at two details are counted at two maxima: one sentence for each.
    @Test func unknownSizesAtTwoDetails() {
        let trials = [
            Self.trial(0, variant: "high", item: Self.remoteItem("r1"), detail: .high),
            Self.trial(1, variant: "low", item: Self.remoteItem("r1"), detail: .low),
            Self.trial(2, variant: "low", item: Self.remoteItem("r2"), detail: .low),
        ]
        let plan = CostPlan.make(trials: trials, cachedKeys: [], prices: .builtIn)
        #expect(
            plan.assumptions.filter { $0.contains("unknown size") } == [
                "1 remote image of unknown size is counted at the most gpt-4o can charge for one image (1,445 tokens).",
                "2 remote images of unknown size are counted at the most gpt-4o can charge for one image (85 tokens).",
            ])
    }

    @Test func oneRequestWithoutMaxTokens() {
        let plan = CostPlan.make(
            trials: [Self.trial(0, variant: "v", item: Self.item("a"), maxTokens: nil)], cachedKeys: [], prices: .builtIn)
        #expect(plan.assumptions.contains("1 request without max_tokens is counted at 1,000 output tokens; its answer can be longer."))
        #expect(plan.outputTokensMax == 1000)
        #expect(plan.pairs[0].maxTokens == nil)
    }
}
