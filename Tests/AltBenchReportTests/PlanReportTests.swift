import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

/// `altbench plan`'s text and JSON, from plans built by hand (the plan's arithmetic is
/// CostPlan's own and tested there).
@Suite("PlanReport")
struct PlanReportTests {
    typealias Pair = CostPlan.Pair

    /// 2 prompts × 2 token limits × 27 images of gpt-4o-mini at `detail: low` (2,833 image
    /// tokens each), 3 answers already stored for one pair.
    static func pair(_ variant: String, _ maxTokens: Int?, cached: Int = 0, model: String = "gpt-4o-mini", priced: Bool = true)
        -> Pair
    {
        let toSend = 27 - cached
        let input = toSend * 2_871, image = toSend * 2_833, output = toSend * (maxTokens ?? 4_096)
        return Pair(
            variant: variant, maxTokens: maxTokens, model: model, trials: 27, cached: cached, toSend: toSend,
            inputTokens: input, imageTokens: image, outputTokensMax: output,
            costLow: priced ? Double(input) * 0.15 / 1_000_000 : nil,
            costHigh: priced ? (Double(input) * 0.15 + Double(output) * 0.6) / 1_000_000 : nil)
    }

    static let assumptions = [
        "detail auto is counted as high: the most the model may charge.",
        "Text tokens come from an approximate tokenizer, not the model's own.",
    ]

    static let plan = CostPlan(
        pairs: [pair("icecubes", 60), pair("icecubes", 120, cached: 3), pair("icecubes-original", 60), pair("icecubes-original", 120)],
        items: [
            CostPlan.ItemCost(id: "cat", model: "gpt-4o-mini", width: 640, height: 480, detail: "low", imageTokens: 2_833),
            CostPlan.ItemCost(id: "remote", model: "gpt-4o-mini", width: nil, height: nil, detail: "low", imageTokens: 2_833),
        ],
        assumptions: assumptions, unpricedModels: [], batchDiscount: 0.5)

    static let header = ["Plan for 2 prompts × 2 token limits × 27 images, model gpt-4o-mini, endpoint api.openai.com"]

    // MARK: - Text

    @Test("the text: header, a two-line column heading, a row per pair, the total, the Batch API, assumptions, notes")
    func text() {
        let text = PlanReport.text(Self.plan, header: Self.header, notes: ["Nothing is sent: this is a plan."])
        let expected = """
            Plan for 2 prompts × 2 token limits × 27 images, model gpt-4o-mini, endpoint api.openai.com

                                  max                    to  input tokens  of which   output           cost
            variant            tokens  trials  cached  send        (est.)     image  ceiling            USD
            -----------------  ------  ------  ------  ----  ------------  --------  -------  -------------
            icecubes               60      27       0    27        77,517    76,491    1,620  $0.012–$0.013
            icecubes              120      27       3    24        68,904    67,992    2,880  $0.010–$0.012
            icecubes-original      60      27       0    27        77,517    76,491    1,620  $0.012–$0.013
            icecubes-original     120      27       0    27        77,517    76,491    3,240  $0.012–$0.014
            -----------------  ------  ------  ------  ----  ------------  --------  -------  -------------
            total                         108       3   105       301,455   297,465    9,360  $0.045–$0.051

            with the Batch API (−50%): $0.023–$0.025

            Assumptions:
              - detail auto is counted as high: the most the model may charge.
              - Text tokens come from an approximate tokenizer, not the model's own.

            Nothing is sent: this is a plan.

            """
        #expect(text == expected, "\n\(text)")
        #expect(text.split(separator: "\n").allSatisfy { $0.count <= 100 }, "fits a 100-column terminal")
    }

    @Test("a model without a price shows tokens and no cost; the total has none and no Batch API line")
    func unpriced() {
        let plan = CostPlan(
            pairs: [Self.pair("icecubes", 60), Self.pair("icecubes", nil, model: "llava-13b", priced: false)], items: [],
            assumptions: [], unpricedModels: ["llava-13b"], batchDiscount: 0.5)
        let lines = PlanReport.text(plan, header: [], notes: []).components(separatedBy: "\n")
        // Two models: a model column.
        #expect(lines[1].hasPrefix("variant   tokens  model "))
        #expect(lines[3].hasSuffix("$0.012–$0.013"))
        #expect(lines[4].contains("llava-13b") && lines[4].hasSuffix("no price"))
        #expect(lines[6].hasPrefix("total") && lines[6].hasSuffix("no price"))
        #expect(!lines.contains { $0.contains("Batch API") })
        #expect(!lines.contains("Assumptions:"))
    }

    @Test("names from prompt files cannot move the cursor or break the table")
    func hostileNames() {
        let plan = CostPlan(
            pairs: [Self.pair("evil\u{1B}[2J\nline", 60)], items: [], assumptions: ["an assumption\u{07}"], unpricedModels: [],
            batchDiscount: nil)
        let text = PlanReport.text(plan, header: ["Plan for evil\u{1B}]0;title\u{07}"], notes: ["note\r\nforged line"])
        #expect(!text.contains("\u{1B}"))
        #expect(!text.contains("\u{07}"))
        #expect(text.contains("evil\\x1B[2J line"))
        #expect(text.contains("note  forged line"))
        #expect(text.components(separatedBy: "\n").count == 14, "\(text)")
    }

    // MARK: - JSON

    @Test("the JSON has every key, parses back, and keeps key order stable")
    func json() throws {
        let text = PlanReport.json(Self.plan, notes: ["a note"])
        let root = try JSONValue.parse(Data(text.utf8))
        #expect(
            Set(root.objectValue?.keys.map { $0 } ?? []) == [
                "trials", "cached", "to_send", "input_tokens", "image_tokens", "output_tokens_max", "cost_usd", "pairs",
                "items", "assumptions", "unpriced_models", "batch_discount", "notes", "judge",
            ])
        // Without --judge there is no judge estimate.
        #expect(root["judge"] == .null)
        #expect(root["trials"] == .int(108))
        #expect(root["cached"] == .int(3))
        #expect(root["to_send"] == .int(105))
        #expect(root["input_tokens"] == .int(301_455))
        #expect(root["image_tokens"] == .int(297_465))
        #expect(root["output_tokens_max"] == .int(9_360))
        #expect(abs((root["cost_usd"]?["low"]?.doubleValue ?? 0) - 301_455 * 0.15 / 1_000_000) < 1e-12)
        #expect(abs((root["cost_usd"]?["high"]?.doubleValue ?? 0) - (301_455 * 0.15 + 9_360 * 0.6) / 1_000_000) < 1e-12)
        #expect(root["batch_discount"]?.doubleValue == 0.5)
        #expect(root["assumptions"]?.arrayValue?.compactMap(\.stringValue) == Self.assumptions)
        #expect(root["unpriced_models"] == .array([]))
        #expect(root["notes"] == ["a note"])

        let pair = try #require(root["pairs"]?[1])
        #expect(
            Set(pair.objectValue?.keys.map { $0 } ?? []) == [
                "variant", "max_tokens", "model", "trials", "cached", "to_send", "input_tokens", "image_tokens",
                "output_tokens_max", "cost_usd",
            ])
        #expect(pair["variant"] == "icecubes")
        #expect(pair["max_tokens"] == .int(120))
        #expect(pair["model"] == "gpt-4o-mini")
        #expect(pair["cached"] == .int(3))
        #expect(pair["to_send"] == .int(24))
        #expect(pair["cost_usd"]?["low"]?.doubleValue != nil)

        let items = try #require(root["items"]?.arrayValue)
        #expect(Set(items[0].objectValue?.keys.map { $0 } ?? []) == ["id", "model", "width", "height", "detail", "image_tokens"])
        #expect(items[0]["width"] == .int(640))
        #expect(items[1]["width"] == .null)
        #expect(items[1]["height"] == .null)
        #expect(items[1]["image_tokens"] == .int(2_833))

        // Keys sorted at every level, so the same plan always prints the same bytes.
        #expect(text == PlanReport.json(Self.plan, notes: ["a note"]))
        let keys = text.matches(of: /\n  "([a-z_]+)"/).map { String($0.output.1) }
        #expect(keys == keys.sorted())
        #expect(keys.first == "assumptions")
    }

    @Test("an unpriced model's pair, and then the total, have null cost; no max_tokens is null")
    func jsonUnpriced() throws {
        let plan = CostPlan(
            pairs: [Self.pair("icecubes", 60), Self.pair("icecubes", nil, model: "llava-13b", priced: false)], items: [],
            assumptions: [], unpricedModels: ["llava-13b"], batchDiscount: nil)
        let root = try JSONValue.parse(Data(PlanReport.json(plan, notes: []).utf8))
        #expect(root["cost_usd"] == .null)
        #expect(root["pairs"]?[0]?["cost_usd"]?["high"]?.doubleValue != nil)
        #expect(root["pairs"]?[1]?["cost_usd"] == .null)
        #expect(root["pairs"]?[1]?["max_tokens"] == .null)
        #expect(root["unpriced_models"] == ["llava-13b"])
        #expect(root["batch_discount"] == .null)
    }

    @Test("with --judge, the text has the judge's line and the JSON its figures")
    func judgeEstimate() throws {
        let judge = JudgeEstimate(
            model: "gpt-4o", calls: 216, inputTokensLow: 200_000, inputTokensHigh: 221_600, imageTokens: 150_000,
            outputTokensMax: 86_400, costLow: 0.5, costHigh: 1.418, isMock: false)
        let text = PlanReport.text(Self.plan, header: [], notes: [], judge: judge)
        #expect(text.contains("judge (--judge): 216 calls to gpt-4o, input 200,000–221,600 tokens (est.; of which image 150,000), output ceiling 86,400; $0.50–$1.42"))
        let root = try JSONValue.parse(Data(PlanReport.json(Self.plan, notes: [], judge: judge).utf8))
        #expect(root["judge"]?["calls"] == .int(216))
        #expect(root["judge"]?["input_tokens"]?["high"] == .int(221_600))
        #expect(root["judge"]?["cost_usd"]?["high"]?.doubleValue == 1.418)
        var mock = judge
        mock.isMock = true
        mock.model = "mock-judge"
        #expect(PlanReport.text(Self.plan, header: [], notes: [], judge: mock).contains("the mock judge bills nothing"))
    }
}
