import Foundation
import Testing

@testable import AltBenchCore

@Suite("CostSummary")
struct CostSummaryTests {
    // MARK: - Fixtures

    static let terse = PromptVariant(name: "terse", file: "prompts/terse.md", text: "Describe briefly.")
    static let wordy = PromptVariant(name: "wordy", file: "prompts/wordy.md", text: "Describe in detail.")

    /// gpt-4o-mini's list prices, as a run records them in its settings.
    static let miniPrices: JSONValue = ["gpt-4o-mini": ["input": 0.15, "cached_input": 0.075, "output": 0.6]]

    /// How a trial ended.
    enum End {
        case sent
        case fromStore
        case failed
    }

    /// One trial row with only the fields cost reads.
    static func trial(
        _ end: End = .sent, variant: String = "terse", maxTokens: Int? = 60, model: String? = "gpt-4o-mini",
        prompt: Int? = nil, completion: Int? = nil, cachedTokens: Int? = nil, imageTokens: Int? = nil,
        reasoning: Int? = nil, estimated: Int? = nil, estimatedImage: Int? = nil, cost: Double? = nil
    ) -> RunResults.TrialRow {
        var answer = ModelAnswer(
            content: "A cat.", promptTokens: prompt, completionTokens: completion, reasoningTokens: reasoning)
        answer.cachedTokens = cachedTokens
        answer.imageTokens = imageTokens
        var row = RunResults.TrialRow(
            variant: variant, maxTokens: maxTokens, itemID: "cat", repeatIndex: 0, model: model,
            answer: end == .failed ? nil : answer, cached: end == .fromStore,
            error: end == .failed ? "HTTP 500: server error" : nil)
        row.estimatedInputTokens = estimated
        row.estimatedImageTokens = estimatedImage
        row.costUSD = cost
        return row
    }

    static func run(
        _ trials: [RunResults.TrialRow], provider: Provider = .openai, settings: JSONValue = ["prices": miniPrices],
        variants: [PromptVariant] = [terse, wordy]
    ) -> RunResults {
        let info = RunResults.Info(
            id: "20260101-000000-abcd", startedAt: Date(timeIntervalSince1970: 1_767_225_600), status: "finished",
            provider: provider, providerReason: provider == .mock ? "--provider mock" : "OPENAI_API_KEY is set",
            endpoint: "https://api.openai.com/v1/chat/completions", datasetPath: "datasets/sample", promptsPath: "prompts",
            settings: settings)
        return RunResults(info: info, variants: variants, items: [], trials: trials, plannedTrials: trials.count)
    }

    // MARK: - Figures

    /// What a group of trials should add up to.
    struct Expected: Sendable, CustomTestStringConvertible {
        var name: String
        var trials: [RunResults.TrialRow]
        var sent: Int
        var fromStore: Int
        var failed: Int
        var prompt: Int?
        var completion: Int?
        var estimated: Int?
        var compared: Int?
        var ratio: Double?
        var withoutUsage: Int
        var cost: Double?
        var withoutCost: Int
        var testDescription: String { name }
    }

    static let figureCases: [Expected] = [
        Expected(
            name: "sent requests add up; the ratio is reported ÷ estimated",
            trials: [
                Self.trial(prompt: 2_900, completion: 40, estimated: 2_871, cost: 0.0005),
                Self.trial(prompt: 2_850, completion: 20, estimated: 2_871, cost: 0.0004),
            ],
            sent: 2, fromStore: 0, failed: 0, prompt: 5_750, completion: 60, estimated: 5_742, compared: 5_750,
            ratio: 5_750.0 / 5_742.0, withoutUsage: 0, cost: 0.0009, withoutCost: 0),
        Expected(
            name: "answers from the store cost 0 and stay out of the token sums",
            trials: [
                Self.trial(prompt: 2_900, completion: 40, estimated: 2_871, cost: 0.0005),
                Self.trial(.fromStore, prompt: 2_900, completion: 40, estimated: 2_871, cost: 0),
            ],
            sent: 1, fromStore: 1, failed: 0, prompt: 2_900, completion: 40, estimated: 2_871, compared: 2_900,
            ratio: 2_900.0 / 2_871.0, withoutUsage: 0, cost: 0.0005, withoutCost: 0),
        Expected(
            name: "a pair answered wholly from the store cost nothing, and says so",
            trials: [Self.trial(.fromStore, prompt: 2_900, completion: 40, estimated: 2_871, cost: 0)],
            sent: 0, fromStore: 1, failed: 0, prompt: nil, completion: nil, estimated: nil, compared: nil, ratio: nil,
            withoutUsage: 0, cost: 0, withoutCost: 0),
        Expected(
            name: "failed trials count as failed, with their estimate left out",
            trials: [Self.trial(prompt: 100, completion: 10, estimated: 90, cost: 0.1), Self.trial(.failed, estimated: 90)],
            sent: 1, fromStore: 0, failed: 1, prompt: 100, completion: 10, estimated: 90, compared: 100,
            ratio: 100.0 / 90.0, withoutUsage: 0, cost: 0.1, withoutCost: 0),
        Expected(
            name: "a sent request without usage has no cost, so the group has none",
            trials: [Self.trial(prompt: 100, completion: 10, estimated: 90, cost: 0.1), Self.trial(estimated: 90)],
            sent: 2, fromStore: 0, failed: 0, prompt: 100, completion: 10, estimated: 90, compared: 100,
            ratio: 100.0 / 90.0, withoutUsage: 1, cost: nil, withoutCost: 1),
        Expected(
            name: "the estimate covers only requests that reported usage and carry one",
            trials: [
                Self.trial(prompt: 100, completion: 10, estimated: 50, cost: 0.1),
                Self.trial(prompt: 300, completion: 10, cost: 0.1),
            ],
            sent: 2, fromStore: 0, failed: 0, prompt: 400, completion: 20, estimated: 50, compared: 100, ratio: 2,
            withoutUsage: 0, cost: 0.2, withoutCost: 0),
        Expected(
            name: "a run stored before costs: reported tokens, no estimate, no cost",
            trials: [Self.trial(prompt: 100, completion: 10), Self.trial(.fromStore, prompt: 100, completion: 10)],
            sent: 1, fromStore: 1, failed: 0, prompt: 100, completion: 10, estimated: nil, compared: nil, ratio: nil,
            withoutUsage: 0, cost: nil, withoutCost: 1),
    ]

    @Test("figures of a group of trials", arguments: figureCases)
    func figures(_ expected: Expected) throws {
        let summary = try #require(CostSummary.make(Self.run(expected.trials)))
        for figures in [summary.total, try #require(summary.pairs.first).figures] {
            #expect(figures.trials == expected.trials.count)
            #expect(figures.sent == expected.sent)
            #expect(figures.fromStore == expected.fromStore)
            #expect(figures.failed == expected.failed)
            #expect(figures.promptTokens == expected.prompt)
            #expect(figures.completionTokens == expected.completion)
            #expect(figures.estimatedInputTokens == expected.estimated)
            #expect(figures.comparedPromptTokens == expected.compared)
            #expect(figures.ratio == expected.ratio)
            #expect(figures.withoutUsage == expected.withoutUsage)
            if let cost = expected.cost {
                #expect(abs((figures.costUSD ?? .nan) - cost) < 1e-12, "\(String(describing: figures.costUSD))")
            } else {
                #expect(figures.costUSD == nil)
            }
            #expect(figures.withoutCost == expected.withoutCost)
        }
    }

    @Test("cached, image and reasoning tokens and the image estimate are summed over sent requests")
    func detailSums() throws {
        let summary = try #require(
            CostSummary.make(
                Self.run([
                    Self.trial(
                        prompt: 3_000, completion: 50, cachedTokens: 1_024, imageTokens: 2_833, reasoning: 30, estimated: 2_871,
                        estimatedImage: 2_833, cost: 0.001),
                    Self.trial(prompt: 3_000, completion: 50, cachedTokens: 0, estimated: 2_871, estimatedImage: 2_833, cost: 0.001),
                    Self.trial(.fromStore, prompt: 3_000, cachedTokens: 3_000, imageTokens: 2_833, estimatedImage: 2_833, cost: 0),
                ])))
        #expect(summary.total.cachedTokens == 1_024)
        #expect(summary.total.imageTokens == 2_833)
        #expect(summary.total.reasoningTokens == 30)
        #expect(summary.total.estimatedImageTokens == 5_666)
    }

    @Test("pairs follow the run's variant order, then token limit, no limit last")
    func pairOrder() throws {
        let trials = [
            Self.trial(variant: "wordy", maxTokens: nil, prompt: 1), Self.trial(variant: "terse", maxTokens: 120, prompt: 1),
            Self.trial(variant: "extra", maxTokens: 60, prompt: 1), Self.trial(variant: "wordy", maxTokens: 60, prompt: 1),
            Self.trial(variant: "terse", maxTokens: 60, prompt: 1),
        ]
        let summary = try #require(CostSummary.make(Self.run(trials, variants: [Self.wordy, Self.terse])))
        #expect(
            summary.pairs.map { "\($0.variant)@\($0.maxTokens.map(String.init) ?? "none")" }
                == ["wordy@60", "wordy@none", "terse@60", "terse@120", "extra@60"])
    }

    @Test("a pair names its model, or every model when its trials name several")
    func pairModels() throws {
        let summary = try #require(
            CostSummary.make(
                Self.run([
                    Self.trial(model: "gpt-4o", prompt: 1), Self.trial(model: "gpt-4o-mini", prompt: 1), Self.trial(model: nil, prompt: 1),
                ])))
        #expect(summary.pairs.first?.model == "gpt-4o, gpt-4o-mini")
    }

    // MARK: - Nothing to say

    @Test(
        "a run without usage, estimate or cost has no cost summary",
        arguments: [
            [RunResults.TrialRow](),
            [Self.trial(), Self.trial(.fromStore), Self.trial(.failed)],
        ])
    func nothingRecorded(_ trials: [RunResults.TrialRow]) {
        #expect(CostSummary.make(Self.run(trials, settings: [:])) == nil)
    }

    @Test("a run stored before costs shows reported tokens and says why nothing else")
    func storedBeforeCosts() throws {
        let summary = try #require(
            CostSummary.make(Self.run([Self.trial(prompt: 120, completion: 12), Self.trial(prompt: 130, completion: 9)], settings: [:])))
        #expect(summary.total.promptTokens == 250)
        #expect(summary.total.costUSD == nil)
        #expect(
            summary.notes == [
                "This run was stored before altbench recorded estimates and costs: the tokens are what the server reported, with no estimate or price to set them against."
            ])
    }

    // MARK: - Prices

    @Test("a model without a price has no cost, the run no total, and a note says how to give it one")
    func unpricedModel() throws {
        let trials = [
            Self.trial(prompt: 2_900, completion: 40, estimated: 2_871, cost: 0.0005),
            Self.trial(variant: "wordy", model: "llava-13b", prompt: 700, completion: 80, estimated: 690),
            Self.trial(variant: "wordy", model: "llava-13b", prompt: 705, completion: 60, estimated: 690),
            Self.trial(variant: "wordy", model: "llava-13b", estimated: 690),
        ]
        let summary = try #require(CostSummary.make(Self.run(trials)))
        let terse = try #require(summary.pairs.first { $0.variant == "terse" })
        let wordy = try #require(summary.pairs.first { $0.variant == "wordy" })
        #expect(terse.costUSD == 0.0005)
        #expect(wordy.costUSD == nil)
        #expect(wordy.withoutCost == 3)
        #expect(summary.total.costUSD == nil)
        #expect(summary.total.withoutCost == 3)
        #expect(
            summary.notes == [
                "llava-13b has no price, so the cost of its 3 requests is unknown and the run has no total cost: give it a price under prices: in altbench.yml (USD per million tokens: input, cached_input, output)."
            ])
    }

    @Test("priced requests that reported no usage are named by pair")
    func pricedWithoutUsage() throws {
        let trials = [
            Self.trial(prompt: 2_900, completion: 40, estimated: 2_871, cost: 0.0005), Self.trial(estimated: 2_871),
            Self.trial(maxTokens: nil, estimated: 2_871), Self.trial(maxTokens: nil, estimated: 2_871),
            Self.trial(variant: "wordy", model: "pixtral", prompt: 900, completion: 40, estimated: 880),
        ]
        let summary = try #require(CostSummary.make(Self.run(trials)))
        #expect(
            summary.notes == [
                "pixtral has no price, so the cost of its 1 request is unknown and the run has no total cost: give it a price under prices: in altbench.yml (USD per million tokens: input, cached_input, output).",
                "1 request of terse (max_tokens 60) and 2 requests of terse (no max_tokens) reported no usage, so their cost is unknown and the run has no total cost.",
            ])
    }

    // MARK: - Reported against estimated

    @Test(
        "a pair whose reported prompt tokens miss the estimate by more than 10%, either way, gets a note",
        arguments: [
            (25_890, 2_112, "terse (max_tokens 60): the server counted 25,890 prompt tokens where altbench estimated 2,112 (12.3×): the image formula may not fit gpt-4o-mini, or the server resizes images."),
            (950, 2_112, "terse (max_tokens 60): the server counted 950 prompt tokens where altbench estimated 2,112 (0.45×): the image formula may not fit gpt-4o-mini, or the server resizes images."),
            (2_201, 2_000, "terse (max_tokens 60): the server counted 2,201 prompt tokens where altbench estimated 2,000 (1.10×): the image formula may not fit gpt-4o-mini, or the server resizes images."),
            (2_200, 2_000, nil), (1_800, 2_000, nil), (1_799, 2_000, "terse (max_tokens 60): the server counted 1,799 prompt tokens where altbench estimated 2,000 (0.90×): the image formula may not fit gpt-4o-mini, or the server resizes images."),
            (2_050, 2_000, nil),
        ] as [(Int, Int, String?)])
    func ratioNote(reported: Int, estimated: Int, note: String?) throws {
        let summary = try #require(
            CostSummary.make(Self.run([Self.trial(prompt: reported, completion: 10, estimated: estimated, cost: 0.001)])))
        #expect(summary.notes == (note.map { [$0] } ?? []))
    }

    @Test("each pair is judged on its own figures")
    func ratioPerPair() throws {
        let trials = [
            Self.trial(prompt: 2_000, completion: 10, estimated: 2_000, cost: 0.001),
            Self.trial(variant: "wordy", maxTokens: nil, model: "gpt-4o", prompt: 441, completion: 10, estimated: 1_121, cost: 0.001),
        ]
        let summary = try #require(CostSummary.make(Self.run(trials)))
        #expect(
            summary.notes == [
                "wordy (no max_tokens): the server counted 441 prompt tokens where altbench estimated 1,121 (0.39×): the image formula may not fit gpt-4o, or the server resizes images."
            ])
    }

    // MARK: - The mock

    @Test("a mock run says it billed nothing and what the model would charge, and does not judge the estimate")
    func mock() throws {
        let trials = [
            Self.trial(prompt: 120, completion: 40, estimated: 2_871, cost: 0.00004),
            Self.trial(variant: "wordy", prompt: 118, completion: 60, estimated: 2_871, cost: 0.00005),
        ]
        let summary = try #require(CostSummary.make(Self.run(trials, provider: .mock)))
        #expect(summary.isMock)
        #expect(
            summary.notes == [
                "The mock bills nothing: the costs are what gpt-4o-mini would charge at list prices for the mock's token counts.",
                "The mock reports altbench's own estimate as its usage, so reported/estimated is 1.00× by construction and does not test the estimate; a real server's counts do.",
            ])
        #expect(abs((summary.total.costUSD ?? 0) - 0.00009) < 1e-12)
    }

    @Test("a mock run of a model without a price says the mock bills nothing, and that the model has no price")
    func mockWithoutPrice() throws {
        let summary = try #require(
            CostSummary.make(Self.run([Self.trial(model: "llava", prompt: 120, completion: 40)], provider: .mock, settings: ["prices": .object([:])])))
        #expect(summary.notes.first == "The mock bills nothing.")
        #expect(summary.notes.count == 2, "\(summary.notes)")
        #expect(summary.notes.last?.hasPrefix("llava has no price") == true)
    }

    // MARK: - Spending limit

    @Test(
        "the spending limit and how much of it the run used",
        arguments: [
            (Provider.openai, 0.0127, "The spending limit was $5.00: the run used $0.013 of it (<1%)."),
            (.openai, 1.27, "The spending limit was $5.00: the run used $1.27 of it (25%)."),
            (.mock, 1.27, "The spending limit was $5.00: at list prices the run would have used $1.27 of it (25%)."),
            (.openai, 6, "The spending limit was $5.00: the run used $6.00 of it (120%)."),
        ])
    func spendingLimit(provider: Provider, spent: Double, note: String) throws {
        let summary = try #require(
            CostSummary.make(
                Self.run(
                    [Self.trial(prompt: 2_000, completion: 10, estimated: 2_000, cost: spent)], provider: provider,
                    settings: ["prices": Self.miniPrices, "max_cost": 5])))
        #expect(summary.maxCostUSD == 5)
        #expect(summary.notes.last == note)
    }

    @Test("a spending limit whose use is unknown says why")
    func spendingLimitUnknown() throws {
        let summary = try #require(
            CostSummary.make(
                Self.run(
                    [Self.trial(prompt: 2_000, completion: 10, estimated: 2_000, cost: 0.01), Self.trial(estimated: 2_000)],
                    settings: ["prices": Self.miniPrices, "max_cost": 2.5])))
        #expect(summary.notes.last == "The spending limit was $2.50: how much of it the run used is unknown, since 1 request has no cost.")
    }
}
