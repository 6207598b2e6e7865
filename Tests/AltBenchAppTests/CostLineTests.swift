import AltBenchCore
import Foundation
import Testing

@testable import AltBenchApp

/// The one line `run` and `report` print about what a run cost.
@Suite("run: the cost line")
struct CostLineTests {
    static let variant = PromptVariant(name: "terse", file: "prompts/terse.md", text: "Describe briefly.")

    static func row(cached: Bool = false, model: String = "gpt-4o-mini", prompt: Int? = 900, cost: Double?) -> RunResults.TrialRow {
        var row = RunResults.TrialRow(
            variant: "terse", maxTokens: 50, itemID: "cat", repeatIndex: 0, model: model,
            answer: ModelAnswer(content: "A cat.", promptTokens: prompt, completionTokens: prompt.map { _ in 10 }),
            cached: cached)
        row.costUSD = cost
        row.estimatedInputTokens = 900
        return row
    }

    static func run(_ rows: [RunResults.TrialRow], provider: Provider = .openai, priced: [String] = ["gpt-4o-mini"]) -> RunResults {
        let prices = JSONValue.object(Dictionary(uniqueKeysWithValues: priced.map { ($0, ["input": 0.15, "output": 0.6] as JSONValue) }))
        let info = RunResults.Info(
            id: "20260101-000000-abcd", startedAt: Date(timeIntervalSince1970: 1_767_225_600), status: "finished",
            provider: provider, providerReason: "test", endpoint: "https://api.openai.com/v1/chat/completions",
            datasetPath: "datasets/sample", promptsPath: "prompts", settings: ["prices": prices])
        return RunResults(info: info, variants: [variant], items: [], trials: rows, plannedTrials: rows.count)
    }

    @Test("a billed run says what it spent from the reported usage, and what the store answered")
    func billed() {
        let line = Reporting.costLine(Self.run([Self.row(cost: 0.0021), Self.row(cost: 0.0021), Self.row(cached: true, cost: 0)]))
        #expect(line == "cost: $0.0042 for 2 requests, 1 answered from the store, from the usage the server reported.")
    }

    @Test("the mock says what the model would have charged, and that nothing was billed")
    func mock() {
        let line = Reporting.costLine(Self.run([Self.row(cost: 1.5), Self.row(cost: 0.8)], provider: .mock))
        #expect(line == "cost: $2.30 for 2 requests, at gpt-4o-mini's list prices; the mock bills nothing.")
    }

    @Test("everything from the store costs nothing, and says so")
    func allStored() {
        let line = Reporting.costLine(Self.run([Self.row(cached: true, cost: 0)]))
        #expect(line == "cost: $0.00: the one answer came from the store, and no request was sent.")
        let two = Reporting.costLine(Self.run([Self.row(cached: true, cost: 0), Self.row(cached: true, cost: 0)]))
        #expect(two == "cost: $0.00: all 2 answers came from the store, and no request was sent.")
    }

    @Test("an unknown cost names the model without a price, or the answers without usage")
    func unknown() {
        let unpriced = Reporting.costLine(Self.run([Self.row(model: "llava", cost: nil)], priced: []))
        #expect(unpriced == "cost: unknown for 1 request: llava has no price (add it under prices: in altbench.yml).")
        let noUsage = Reporting.costLine(Self.run([Self.row(prompt: nil, cost: nil), Self.row(cost: 0.001)]))
        #expect(noUsage == "cost: unknown for 2 requests: 1 answer reported no usage.")
    }
}
