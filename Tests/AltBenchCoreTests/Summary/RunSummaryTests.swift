import Foundation
import Testing

@testable import AltBenchCore

@Suite("RunSummary")
struct RunSummaryTests {
    // MARK: - Builders

    private static func results(
        variants: [String], trials: [RunResults.TrialRow], settings: JSONValue = .object([:])
    ) -> RunResults {
        RunResults(
            info: RunResults.Info(
                id: "run", startedAt: Date(timeIntervalSince1970: 0), status: "finished", provider: .openai,
                providerReason: "test", endpoint: "https://api.example.test", datasetPath: "d", promptsPath: "p",
                settings: settings),
            variants: variants.map { PromptVariant(name: $0, file: "prompts/\($0).md", text: "Describe.") },
            items: [], trials: trials, plannedTrials: trials.count)
    }

    /// An answered trial with the scores the summary reads.
    private static func answered(
        _ variant: String = "v", maxTokens: Int? = 100, chars: Double = 50, withinBudget: Bool = true,
        firstPerson: Bool = false, truncated: Bool = false, refusal: Bool = false, completionTokens: Int? = 20,
        latencyMs: Double = 100, item: String = "img"
    ) -> RunResults.TrialRow {
        let scores = [
            Score(name: ScoreName.length, value: chars),
            Score(name: ScoreName.brevity, value: withinBudget ? 1 : 0.5, passed: withinBudget),
            Score.flag(ScoreName.firstPerson, firstPerson, detail: "I"),
            Score.flag(ScoreName.truncated, truncated, detail: "finish_reason length"),
            Score.flag(ScoreName.refusal, refusal, detail: "can't"),
        ]
        return RunResults.TrialRow(
            variant: variant, maxTokens: maxTokens, itemID: item, repeatIndex: 0,
            answer: ModelAnswer(content: "x", completionTokens: completionTokens, latencyMs: latencyMs),
            scores: ScoreSet(scores))
    }

    private static func failed(_ variant: String = "v", maxTokens: Int? = 100) -> RunResults.TrialRow {
        RunResults.TrialRow(
            variant: variant, maxTokens: maxTokens, itemID: "img", repeatIndex: 0, answer: nil, error: "HTTP 500")
    }

    private static func onlyRow(_ trials: [RunResults.TrialRow]) throws -> SummaryRow {
        let rows = RunSummary(results(variants: ["v"], trials: trials)).rows
        try #require(rows.count == 1)
        return rows[0]
    }

    // MARK: - Counts and lengths

    @Test("n counts every recorded trial, errors the ones without an answer")
    func counts() throws {
        let row = try Self.onlyRow([Self.answered(), Self.answered(), Self.failed(), Self.answered(), Self.failed()])
        #expect(row.n == 5)
        #expect(row.errors == 2)
        #expect(row.answered == 3)
    }

    @Test("mean and nearest-rank p90 of the lengths 1...10 are 5.5 and 9")
    func meanAndP90() throws {
        let row = try Self.onlyRow((1...10).map { Self.answered(chars: Double($0)) }.shuffled())
        #expect(row.meanChars == 5.5)
        #expect(row.p90Chars == 9)
    }

    @Test("with one answer, mean and p90 are that answer's length")
    func singleValue() throws {
        let row = try Self.onlyRow([Self.answered(chars: 42), Self.failed()])
        #expect(row.meanChars == 42)
        #expect(row.p90Chars == 42)
        #expect(row.p50LatencyMs == 100)
    }

    @Test("a pair whose trials all failed has counts and no figures")
    func allFailed() throws {
        let row = try Self.onlyRow([Self.failed(), Self.failed()])
        #expect(row.n == 2 && row.errors == 2 && row.answered == 0)
        #expect(row.meanChars == nil && row.p90Chars == nil)
        #expect(row.withinBudget == nil && row.firstPerson == nil && row.truncated == nil && row.refusals == nil)
        #expect(row.meanCompletionTokens == nil && row.p50LatencyMs == nil)
    }

    // MARK: - Rates

    @Test("rates are shares of answered trials; failed trials count in neither part")
    func ratesOverAnsweredOnly() throws {
        let row = try Self.onlyRow([
            Self.answered(withinBudget: false, firstPerson: true, truncated: true),
            Self.answered(truncated: true),
            Self.answered(refusal: true),
            Self.answered(),
            Self.failed(), Self.failed(), Self.failed(), Self.failed(),
        ])
        #expect(row.n == 8)
        #expect(row.withinBudget == 0.75)
        #expect(row.firstPerson == 0.25)
        #expect(row.truncated == 0.5)
        #expect(row.refusals == 0.25)
    }

    @Test("an answered trial without a score is left out of that score's rate only")
    func missingScore() throws {
        var unscored = Self.answered()
        unscored.scores[ScoreName.firstPerson] = nil
        let row = try Self.onlyRow([unscored, Self.answered(firstPerson: true), Self.answered()])
        #expect(row.firstPerson == 0.5)
        #expect(row.truncated == 0)
    }

    // MARK: - Tokens and latency

    @Test("mean completion tokens ignores answers whose usage is missing")
    func meanCompletionTokens() throws {
        let row = try Self.onlyRow([
            Self.answered(completionTokens: 10), Self.answered(completionTokens: nil),
            Self.answered(completionTokens: 30), Self.failed(),
        ])
        #expect(row.meanCompletionTokens == 20)
        let none = try Self.onlyRow([Self.answered(completionTokens: nil)])
        #expect(none.meanCompletionTokens == nil)
    }

    @Test("p50 latency is the nearest-rank median of the answers' latencies")
    func p50Latency() throws {
        let even = try Self.onlyRow([400, 100, 300, 200].map { Self.answered(latencyMs: $0) } + [Self.failed()])
        #expect(even.p50LatencyMs == 200)
        let odd = try Self.onlyRow([900, 100, 250].map { Self.answered(latencyMs: $0) })
        #expect(odd.p50LatencyMs == 250)
    }

    // MARK: - Grouping and order

    @Test("one row per (variant, max_tokens): variants in the given order, then limits ascending, none last")
    func rowOrder() {
        let trials = [
            Self.answered("alpha", maxTokens: nil), Self.answered("alpha", maxTokens: 100),
            Self.answered("zeta", maxTokens: 200), Self.answered("zeta", maxTokens: 50),
            Self.answered("alpha", maxTokens: 50), Self.failed("zeta", maxTokens: 200),
            Self.answered("alpha", maxTokens: 100), Self.answered("zeta", maxTokens: nil),
        ]
        let rows = RunSummary(Self.results(variants: ["zeta", "alpha"], trials: trials.shuffled())).rows
        let pairs = rows.map { "\($0.variant)@\($0.maxTokens.map(String.init) ?? "none")" }
        #expect(pairs == ["zeta@50", "zeta@200", "zeta@none", "alpha@50", "alpha@100", "alpha@none"])
        #expect(rows.map(\.n) == [1, 2, 1, 1, 2, 1])
        #expect(rows[1].errors == 1)
    }

    @Test("trials of a variant the run does not list come after the listed ones, by name")
    func unlistedVariantsLast() {
        let trials = [Self.answered("orphan-b"), Self.answered("listed"), Self.answered("orphan-a")]
        let rows = RunSummary(Self.results(variants: ["listed"], trials: trials)).rows
        #expect(rows.map(\.variant) == ["listed", "orphan-a", "orphan-b"])
    }

    @Test("the brevity budget comes from the run's settings, else the default")
    func budget() {
        #expect(RunSummary(Self.results(variants: [], trials: [], settings: ["brevity_budget": 125])).budget == 125)
        #expect(RunSummary(Self.results(variants: [], trials: [])).budget == ScoringSettings().brevityBudget)
    }

    // MARK: - Stats

    struct PercentileCase: Sendable, CustomTestStringConvertible {
        var values: [Double]
        var p: Double
        var expected: Double?
        var testDescription: String { "p\(Int(p * 100)) of \(values.count) values → \(expected.map { "\($0)" } ?? "nil")" }
    }

    @Test(
        "nearest-rank percentiles",
        arguments: [
            PercentileCase(values: (1...10).map(Double.init), p: 0.9, expected: 9),
            PercentileCase(values: [7], p: 0.9, expected: 7),
            PercentileCase(values: [7], p: 0.5, expected: 7),
            PercentileCase(values: [], p: 0.9, expected: nil),
            PercentileCase(values: [3, 1, 2], p: 0.5, expected: 2),
            PercentileCase(values: [4, 3, 2, 1], p: 0.5, expected: 2),
            PercentileCase(values: (1...20).map(Double.init).reversed(), p: 0.9, expected: 18),
            PercentileCase(values: (1...100).map(Double.init), p: 0.9, expected: 90),
            PercentileCase(values: (1...11).map(Double.init), p: 0.9, expected: 10),
            PercentileCase(values: [5, 1], p: 1, expected: 5),
            PercentileCase(values: [5, 1], p: 0, expected: 1),
        ])
    func percentile(_ case_: PercentileCase) {
        #expect(Stats.percentile(case_.values, case_.p) == case_.expected)
    }

    @Test("p90 is the nearest rank for every count up to 1,000, without floating-point drift")
    func p90Ranks() {
        for n in 1...1000 {
            let values = (1...n).map(Double.init)
            // ceil(0.9 n) in integers.
            let rank = (9 * n + 9) / 10
            #expect(Stats.percentile(values, 0.9) == Double(rank), "n = \(n)")
        }
    }

    @Test("mean of nothing is nil")
    func mean() {
        #expect(Stats.mean([]) == nil)
        #expect(Stats.mean([1, 2, 4]) == 7.0 / 3)
    }
}
