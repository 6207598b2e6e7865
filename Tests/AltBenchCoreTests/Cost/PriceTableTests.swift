import Foundation
import Testing
import Yams

@testable import AltBenchCore

@Suite("prices")
struct PriceTableTests {
    // MARK: - The built-in table

    struct PriceRow: Sendable, CustomTestStringConvertible {
        var model: String
        var input: Double
        var cachedInput: Double?
        var output: Double
        var testDescription: String { model }
        init(_ model: String, _ input: Double, _ cachedInput: Double?, _ output: Double) {
            (self.model, self.input, self.cachedInput, self.output) = (model, input, cachedInput, output)
        }
    }

    /// OpenAI's list prices, 2025-08, as the built-in table carries them.
    static let listPrices: [PriceRow] = [
        PriceRow("gpt-4o", 2.50, 1.25, 10.00),
        PriceRow("gpt-4o-2024-05-13", 5.00, nil, 15.00),
        PriceRow("gpt-4o-mini", 0.15, 0.075, 0.60),
        PriceRow("gpt-4.1", 2.00, 0.50, 8.00),
        PriceRow("gpt-4.1-mini", 0.40, 0.10, 1.60),
        PriceRow("gpt-4.1-nano", 0.10, 0.025, 0.40),
        PriceRow("gpt-4.5-preview", 75, 37.5, 150),
        PriceRow("o1", 15, 7.5, 60),
        PriceRow("o1-pro", 150, nil, 600),
        PriceRow("o3", 2.00, 0.50, 8.00),
        PriceRow("o3-pro", 20, nil, 80),
        PriceRow("o3-mini", 1.10, 0.55, 4.40),
        PriceRow("o4-mini", 1.10, 0.275, 4.40),
        PriceRow("gpt-5", 1.25, 0.125, 10.00),
        PriceRow("gpt-5-mini", 0.25, 0.025, 2.00),
        PriceRow("gpt-5-nano", 0.05, 0.005, 0.40),
    ]

    @Test(arguments: listPrices)
    func builtInPrice(_ row: PriceRow) throws {
        let found = try #require(PriceTable.builtIn.price(forModel: row.model))
        #expect(found.name == row.model)
        #expect(found.price == ModelPrice(input: row.input, cachedInput: row.cachedInput, output: row.output))
    }

    @Test func builtInHoldsNothingElse() {
        #expect(Set(PriceTable.builtIn.models.keys) == Set(Self.listPrices.map(\.model)))
        #expect(PriceTable.builtIn.batchDiscount == 0.5)
    }

    // MARK: - Finding a model's price

    struct LookupRow: Sendable, CustomTestStringConvertible {
        var model: String
        var name: String?
        var testDescription: String { "\(model) → \(name ?? "no price")" }
        init(_ model: String, _ name: String?) { (self.model, self.name) = (model, name) }
    }

    static let lookups: [LookupRow] = [
        // A dated snapshot with its own price beats the model's.
        LookupRow("gpt-4o-2024-05-13", "gpt-4o-2024-05-13"),
        LookupRow("gpt-4o-2024-08-06", "gpt-4o"),
        LookupRow("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        LookupRow("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        LookupRow("o3-mini-2025-01-31", "o3-mini"),
        LookupRow("o3-2025-04-16", "o3"),
        LookupRow("gpt-5-mini-2025-08-07", "gpt-5-mini"),
        LookupRow("gpt-4.5-preview-2025-02-27", "gpt-4.5-preview"),
        LookupRow("openai/gpt-4o", "gpt-4o"),
        LookupRow("azure/GPT-4.1-Nano", "gpt-4.1-nano"),
        LookupRow("GPT-4O-2024-05-13", "gpt-4o-2024-05-13"),
        LookupRow("o1-pro", "o1-pro"),
        LookupRow("o1-pro-2025-03-19", "o1-pro"),
        LookupRow("chatgpt-4o-latest", nil),
        // No price is invented, and a variant with a name of its own is not its neighbour:
        // o1-pro is not o1, the realtime, audio and search models are not gpt-4o.
        LookupRow("o1-preview", nil),
        LookupRow("gpt-4o-realtime-preview", nil),
        LookupRow("gpt-4o-audio-preview-2024-12-17", nil),
        LookupRow("gpt-4o-mini-search-preview", nil),
        LookupRow("gpt-4o-latest", "gpt-4o"),
        LookupRow("llava", nil),
        LookupRow("claude-3-5-sonnet", nil),
        LookupRow("gpt-4-turbo", nil),
        LookupRow("gpt-4.5", nil),
        LookupRow("gpt-4omni", nil),
        LookupRow("gpt-4o1", nil),
        LookupRow("my-gpt-4o", nil),
        LookupRow("o4", nil),
        LookupRow("", nil),
    ]

    @Test(arguments: lookups)
    func lookup(_ row: LookupRow) {
        #expect(PriceTable.builtIn.price(forModel: row.model)?.name == row.name)
    }

    /// A key written with capitals or a provider prefix in altbench.yml still finds its
    /// model, and the name returned is the key as written.
    @Test func tableKeysMatchAsNamesDo() {
        let table = PriceTable(models: ["OpenAI/My-Vision": ModelPrice(input: 1, output: 2)])
        #expect(table.price(forModel: "my-vision")?.name == "OpenAI/My-Vision")
        #expect(table.price(forModel: "azure/my-vision-2025-01-01")?.name == "OpenAI/My-Vision")
        #expect(table.price(forModel: "my-visionary") == nil)
    }

    // MARK: - Merging overrides

    @Test func overridesReplaceModelsAndDiscount() throws {
        let overrides = PriceTable(
            models: [
                "GPT-4o": ModelPrice(input: 3, output: 12),
                "llava": ModelPrice(input: 0, output: 0),
            ])
        let merged = PriceTable.builtIn.merging(overrides)
        // One price per model: the override's, under its own spelling.
        let gpt4o = try #require(merged.price(forModel: "gpt-4o-2024-08-06"))
        #expect(gpt4o.name == "GPT-4o")
        #expect(gpt4o.price == ModelPrice(input: 3, output: 12))
        #expect(merged.models["gpt-4o"] == nil)
        #expect(merged.price(forModel: "llava")?.price == ModelPrice(input: 0, output: 0))
        // The rest of the table stays, the snapshot with its own price too.
        #expect(merged.price(forModel: "gpt-4o-2024-05-13")?.name == "gpt-4o-2024-05-13")
        #expect(merged.models.count == PriceTable.builtIn.models.count + 1)
        // No discount in the overrides keeps the table's; one set wins.
        #expect(merged.batchDiscount == 0.5)
        #expect(PriceTable.builtIn.merging(PriceTable(batchDiscount: 0.25)).batchDiscount == 0.25)
        #expect(PriceTable().merging(PriceTable()).batchDiscount == nil)
    }

    // MARK: - Costs

    @Test func costOfUsage() throws {
        let gpt4o = try #require(PriceTable.builtIn.price(forModel: "gpt-4o")).price
        // 600 × 2.50 + 400 × 1.25 + 100 × 10.00 = 3000 micro-dollars.
        #expect(abs(gpt4o.cost(TokenUsage(promptTokens: 1000, cachedTokens: 400, completionTokens: 100)) - 0.003) < 1e-12)
        // 1000 × 2.50 + 100 × 10.00.
        #expect(abs(gpt4o.cost(TokenUsage(promptTokens: 1000, completionTokens: 100)) - 0.0035) < 1e-12)
        // Without a cached price, cached tokens bill as input: 1000 × 5 + 100 × 15.
        let old = try #require(PriceTable.builtIn.price(forModel: "gpt-4o-2024-05-13")).price
        #expect(abs(old.cost(TokenUsage(promptTokens: 1000, cachedTokens: 400, completionTokens: 100)) - 0.0065) < 1e-12)
        // A cached count above the prompt (no server sends one) cannot make a cost negative.
        #expect(abs(gpt4o.cost(TokenUsage(promptTokens: 100, cachedTokens: 500, completionTokens: 0)) - 0.000125) < 1e-12)
    }

    @Test func costOfA765TokenGpt4oRequest() throws {
        let gpt4o = try #require(PriceTable.builtIn.price(forModel: "gpt-4o")).price
        #expect(abs(gpt4o.cost(inputTokens: 765, outputTokens: 0) - 0.0019125) < 1e-15)
        // With a 50-token answer: + 50 × 10.00.
        #expect(abs(gpt4o.cost(inputTokens: 765, outputTokens: 50) - 0.0024125) < 1e-15)
        #expect(gpt4o.cost(inputTokens: 0, outputTokens: 0) == 0)
    }

    // MARK: - prices: in altbench.yml

    /// `prices:` of a whole altbench.yml text, as ConfigLoader hands it over.
    static func parse(_ yaml: String) throws -> PriceTable {
        let root = try #require(try Yams.compose(yaml: yaml)?.mapping)
        let entry = try #require(root.first { $0.key.string == "prices" })
        return try PriceTable.parse(entry.value, line: entry.key.mark?.line, displayPath: "altbench.yml")
    }

    @Test func goodTable() throws {
        let table = try Self.parse(
            """
            model: gpt-4o
            prices:
              gpt-4o: {input: 3, cached_input: 1.5, output: 12}
              llava-13b:
                input: 0
                output: 0
              azure/my-deployment: {input: 2.5, output: 10.0}
              batch_discount: 0.4
            """)
        #expect(
            table.models == [
                "gpt-4o": ModelPrice(input: 3, cachedInput: 1.5, output: 12),
                "llava-13b": ModelPrice(input: 0, output: 0),
                "azure/my-deployment": ModelPrice(input: 2.5, output: 10),
            ])
        #expect(table.batchDiscount == 0.4)
        #expect(table.price(forModel: "my-deployment")?.name == "azure/my-deployment")
        #expect(try Self.parse("prices: {}\n") == PriceTable())
        #expect(try Self.parse("prices: {batch_discount: 0}\n").batchDiscount == 0)
        #expect(
            try Self.parse("prices:\n  gpt-4o: {input: 2.5, output: 10, batch_input: 1.25, batch_output: 5}\n").models["gpt-4o"]
                == ModelPrice(input: 2.5, output: 10, batchInput: 1.25, batchOutput: 5))
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var label: String
        var yaml: String
        var line: Int
        var mentions: [String]
        var testDescription: String { label }
    }

    static let errors: [ErrorCase] = [
        ErrorCase(
            label: "a batch price without its pair", yaml: "prices:\n  gpt-4o: {input: 2.5, output: 10, batch_input: 1.25}\n",
            line: 2, mentions: ["prices.gpt-4o", "batch_output", "batch_discount"]),
        ErrorCase(
            label: "a list instead of models", yaml: "prices: [gpt-4o]\n", line: 1,
            mentions: ["`prices` must map model names to prices", "{gpt-4o: {input: 2.5"]),
        ErrorCase(
            label: "a price as text", yaml: "model: gpt-4o\nprices:\n  gpt-4o: {input: cheap, output: 10}\n", line: 3,
            mentions: ["`prices.gpt-4o.input` must be a number of US dollars per million tokens, e.g. 2.5."]),
        ErrorCase(
            label: "a negative price names its own line", yaml: "prices:\n  gpt-4o:\n    input: 2.5\n    output: -1\n",
            line: 4, mentions: ["`prices.gpt-4o.output`", "0 or more (got -1.0)"]),
        ErrorCase(
            label: "a negative cached price", yaml: "prices:\n  gpt-4o: {input: 2.5, cached_input: -0.5, output: 10}\n",
            line: 2, mentions: ["`prices.gpt-4o.cached_input`", "0 or more"]),
        ErrorCase(
            label: "not a number", yaml: "prices:\n  gpt-4o: {input: .nan, output: 10}\n", line: 2,
            mentions: ["`prices.gpt-4o.input` must be a number"]),
        ErrorCase(
            label: "nan", yaml: "prices:\n  gpt-4o: {input: nan, output: 10}\n", line: 2,
            mentions: ["`prices.gpt-4o.input` must be a number"]),
        ErrorCase(
            label: "infinite", yaml: "prices:\n  gpt-4o: {input: 1e400, output: 10}\n", line: 2,
            mentions: ["`prices.gpt-4o.input` must be a number"]),
        ErrorCase(
            label: "an empty price", yaml: "prices:\n  gpt-4o: {input: , output: 10}\n", line: 2,
            mentions: ["`prices.gpt-4o.input` must be a number"]),
        ErrorCase(
            label: "output missing", yaml: "prices:\n  gpt-4o:\n    input: 2.5\n", line: 2,
            mentions: ["`prices.gpt-4o` needs `output`", "cached_input is optional", "{input: 2.5, cached_input: 1.25, output: 10}"]),
        ErrorCase(
            label: "both missing", yaml: "prices:\n  llava: {}\n", line: 2,
            mentions: ["`prices.llava` needs `input` and `output`"]),
        ErrorCase(
            label: "a misspelt setting", yaml: "prices:\n  gpt-4o:\n    input: 2.5\n    ouput: 10\n", line: 4,
            mentions: ["`prices.gpt-4o.ouput` is not a price setting.", "Did you mean `output`?", "Settings: input, cached_input, output, batch_input, batch_output."]),
        ErrorCase(
            label: "a far-off setting gets no guess", yaml: "prices:\n  gpt-4o: {input: 1, output: 2, currency: eur}\n",
            line: 2, mentions: ["`prices.gpt-4o.currency` is not a price setting. Settings:"]),
        ErrorCase(
            label: "a key inside a model's prices", yaml: "prices:\n  gpt-4o: {api_key: abc, input: 1, output: 2}\n",
            line: 2, mentions: ["`prices.gpt-4o.api_key` is not a price setting.", "Never put a key in this file"]),
        ErrorCase(
            label: "a key instead of a model", yaml: "prices:\n  openai_api_key: abc\n", line: 2,
            mentions: ["`prices.openai_api_key` is not a model price.", "Never put a key in this file"]),
        ErrorCase(
            label: "one number for a model", yaml: "prices:\n  gpt-4o: 2.5\n", line: 2,
            mentions: ["`prices.gpt-4o` must map input, cached_input and output", "e.g. {input: 2.5"]),
        ErrorCase(
            label: "a discount of 1", yaml: "prices:\n  batch_discount: 1\n", line: 2,
            mentions: ["`prices.batch_discount` must be the share the Batch API takes off", "e.g. 0.5"]),
        ErrorCase(
            label: "a negative discount", yaml: "prices:\n  gpt-4o: {input: 1, output: 2}\n  batch_discount: -0.1\n",
            line: 3, mentions: ["`prices.batch_discount`"]),
        ErrorCase(
            label: "a discount in words", yaml: "prices:\n  batch_discount: half\n", line: 2,
            mentions: ["`prices.batch_discount`"]),
        ErrorCase(
            label: "one model twice, in another case",
            yaml: "prices:\n  gpt-4o: {input: 1, output: 2}\n  GPT-4o: {input: 1, output: 2}\n", line: 3,
            mentions: ["`prices.GPT-4o` prices the same model as `prices.gpt-4o`", "Keep one"]),
        ErrorCase(
            label: "one model twice, with a provider prefix",
            yaml: "prices:\n  gpt-4o: {input: 1, output: 2}\n  openai/gpt-4o: {input: 1, output: 2}\n", line: 3,
            mentions: ["`prices.openai/gpt-4o` prices the same model as `prices.gpt-4o`"]),
        ErrorCase(
            label: "no model name", yaml: "prices:\n  \"\": {input: 1, output: 2}\n", line: 2,
            mentions: ["`prices` has an entry without a model name"]),
    ]

    @Test("a bad prices: table names the file, the line and the key", arguments: errors)
    func error(_ row: ErrorCase) throws {
        let error = #expect(throws: AltBenchError.self) { try Self.parse(row.yaml) }
        guard case .configFile(let file, let line, _) = error else {
            Issue.record("expected a config file error, got \(String(describing: error))")
            return
        }
        #expect(file == "altbench.yml")
        #expect(line == row.line)
        let message = String(describing: error!)
        #expect(message.hasPrefix("altbench.yml:\(row.line): "), "\(message)")
        for word in row.mentions {
            #expect(message.contains(word), "\(message)")
        }
        // A value that might be a key is never echoed back.
        #expect(!message.contains("abc"), "\(message)")
    }
}
