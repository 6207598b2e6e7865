import AltBenchCore
import Foundation
import Testing

@Suite("VariantOrder")
struct VariantOrderTests {
    @Test(
        "the baseline is the configured variant, else icecubes, else the first",
        arguments: [
            (["context", "icecubes-original", "icecubes", "language"], nil, "icecubes"),
            (["context", "icecubes-original", "icecubes"], "context", "context"),
            (["context", "icecubes-original", "icecubes"], "gone", "icecubes"),
            (["b", "a"], nil, "b"),
            (["icecubes-original", "short"], nil, "icecubes-original"),
        ] as [([String], String?, String)])
    func baseline(names: [String], configured: String?, expected: String) {
        #expect(VariantOrder.baseline(among: names, configured: configured) == expected)
    }

    @Test("no variants, no baseline")
    func empty() {
        #expect(VariantOrder.baseline(among: []) == nil)
        #expect(VariantOrder.ordered([String](), name: { $0 }).isEmpty)
    }

    @Test("the baseline moves to the top; the others follow by name")
    func ordered() {
        let names = ["context", "icecubes-original", "icecubes", "language", "one-sentence"]
        #expect(
            VariantOrder.ordered(names, name: { $0 })
                == ["icecubes", "context", "icecubes-original", "language", "one-sentence"])
        #expect(
            VariantOrder.ordered(names, name: { $0 }, configured: "language")
                == ["language", "context", "icecubes", "icecubes-original", "one-sentence"])
        // File names put icecubes-original.md before icecubes.md; names do not.
        #expect(
            VariantOrder.ordered(["icecubes-original", "icecubes", "b"], name: { $0 }, configured: "b")
                == ["b", "icecubes", "icecubes-original"])
    }

    @Test("a run's recorded baseline orders its variants and its summary rows")
    func runResults() {
        let variants = ["context", "icecubes-original", "icecubes"].map {
            PromptVariant(name: $0, file: "prompts/\($0).md", text: "Describe.")
        }
        let trials = variants.flatMap { variant in
            [30, 50].map {
                RunResults.TrialRow(
                    variant: variant.name, maxTokens: $0, itemID: "cat", repeatIndex: 0, answer: ModelAnswer(content: "A cat."))
            }
        }
        func results(settings: JSONValue) -> RunResults {
            RunResults(
                info: RunResults.Info(
                    id: "r", startedAt: Date(), status: "finished", provider: .mock, providerReason: "test", endpoint: "mock",
                    datasetPath: "d", promptsPath: "prompts", settings: settings),
                variants: variants, items: [], trials: trials, plannedTrials: trials.count)
        }
        let byDefault = results(settings: .object([:])).orderingVariants()
        #expect(byDefault.baselineVariant == "icecubes")
        #expect(byDefault.variants.map(\.name) == ["icecubes", "context", "icecubes-original"])
        #expect(
            RunSummary(byDefault).rows.map { "\($0.variant)@\($0.maxTokens ?? 0)" }
                == ["icecubes@30", "icecubes@50", "context@30", "context@50", "icecubes-original@30", "icecubes-original@50"])
        let configured = results(settings: .object(["baseline": .string("icecubes-original")])).orderingVariants()
        #expect(configured.baselineVariant == "icecubes-original")
        #expect(configured.variants.map(\.name) == ["icecubes-original", "context", "icecubes"])
    }

    @Test("a baseline that names no prompt is refused with the prompts there are")
    func unknownBaseline() {
        #expect(throws: Never.self) {
            try VariantOrder.check(configured: nil, among: ["a"], configFile: "altbench.yml", promptsPath: "prompts")
            try VariantOrder.check(configured: "a", among: ["a"], configFile: "altbench.yml", promptsPath: "prompts")
        }
        do {
            try VariantOrder.check(
                configured: "icecube", among: ["context", "icecubes"], configFile: "altbench.yml", promptsPath: "prompts")
            Issue.record("no error")
        } catch {
            #expect(
                String(describing: error)
                    == "altbench.yml: `baseline` names 'icecube', which is not a prompt in prompts/. Did you mean `icecubes`? Prompts: context, icecubes.")
        }
    }
}
