import Foundation
import Testing

@testable import AltBenchCore

/// `--detail`, `--max-cost` and `prices:`: how they resolve, what the planner does with them,
/// and the errors a bad value in altbench.yml gets.
@Suite("cost settings")
struct CostSettingsTests {
    static func experiment(_ options: RunOptions = RunOptions(), config: ConfigFile = ConfigFile()) throws -> Experiment {
        var options = options
        options.provider = options.provider ?? .mock
        return try Experiment.resolve(options: options, config: config, environment: [:])
    }

    static func parse(_ text: String) throws -> ConfigFile {
        try ConfigFile.parse(text, displayPath: "altbench.yml")
    }

    @Test("--detail wins over detail: in the file, which wins over each prompt's own")
    func detailPrecedence() throws {
        var options = RunOptions()
        let file = try Self.parse("detail: low\n")
        #expect(try Self.experiment(config: file).detail == .low)
        options.detail = .high
        #expect(try Self.experiment(options, config: file).detail == .high)
        #expect(try Self.experiment().detail == nil)
    }

    @Test("--detail replaces each prompt's detail in the request, and so in the cache key")
    func detailInRequestAndKey() throws {
        let variant = PromptVariant(name: "v", file: "v.md", text: "Describe.", detail: .high)
        let item = PlannerTests.item("x")
        let dataset = PlannerTests.dataset([item])
        let own = Planner(experiment: try Self.experiment(), endpoint: "mock").plan(variants: [variant], dataset: dataset)[0]
        var options = RunOptions()
        options.detail = .low
        let low = Planner(experiment: try Self.experiment(options), endpoint: "mock").plan(variants: [variant], dataset: dataset)[0]
        #expect(own.request?.detail == .high)
        #expect(low.request?.detail == .low)
        #expect(low.request?.body(imageURL: "u")["messages"]?[0]?["content"]?[1]?["image_url"]?["detail"] == "low")
        #expect(own.key != low.key)
    }

    @Test("every planned trial carries its request's estimate; a trial without a request has none")
    func trialsCarryEstimates() throws {
        let variant = PromptVariant(name: "v", file: "v.md", text: "Describe.", maxTokens: [50])
        let good = PlannerTests.item("x")
        let bad = PlannerTests.item("bad", problem: .notAnImage(path: "bad.png"))
        let trials = Planner(experiment: try Self.experiment(), endpoint: "mock")
            .plan(variants: [variant], dataset: PlannerTests.dataset([good, bad]))
        let request = try #require(trials[0].request)
        #expect(trials[0].estimate == RequestEstimate.make(request: request, imageWidth: 2, imageHeight: 3))
        #expect(trials[0].estimate?.outputTokensMax == 50)
        #expect(trials[1].estimate == nil)
    }

    @Test("--max-cost wins over max_cost:; both are recorded with the run's settings")
    func maxCostPrecedence() throws {
        let file = try Self.parse("max_cost: 2.5\n")
        #expect(try Self.experiment(config: file).maxCost == 2.5)
        var options = RunOptions()
        options.maxCost = 0.75
        let experiment = try Self.experiment(options, config: file)
        #expect(experiment.maxCost == 0.75)
        #expect(experiment.recordedSettings["max_cost"] == .double(0.75))
    }

    @Test("prices: in the file lie over the built-in table, model by model")
    func pricesOverBuiltIn() throws {
        let file = try Self.parse(
            """
            prices:
              gpt-4o-mini: {input: 1, output: 2}
              my-local-llava: {input: 0, output: 0}
            """)
        let prices = try Self.experiment(config: file).prices
        #expect(prices.price(forModel: "gpt-4o-mini")?.price == ModelPrice(input: 1, output: 2))
        #expect(prices.price(forModel: "my-local-llava")?.price == ModelPrice(input: 0, output: 0))
        #expect(prices.price(forModel: "gpt-4o")?.price == PriceTable.builtIn.price(forModel: "gpt-4o")?.price)
    }

    @Test(
        "a bad detail or max_cost names its line and the fix",
        arguments: [
            ("detail: medium\n", "`detail` must be low, high or auto."),
            ("max_cost: -1\n", "`max_cost` must be a positive number of US dollars"),
            ("max_cost: five\n", "`max_cost` must be a positive number of US dollars"),
            ("model: m\nmax_cost: .nan\n", "`max_cost` must be a positive number of US dollars"),
        ])
    func badValues(text: String, message: String) throws {
        do {
            _ = try Self.parse(text)
            Issue.record("parsed \(text)")
        } catch let error as AltBenchError {
            let description = error.description
            #expect(description.contains(message), "\(description)")
            #expect(description.contains("altbench.yml:\(text.split(separator: "\n").count)"), "\(description)")
        }
    }
}
