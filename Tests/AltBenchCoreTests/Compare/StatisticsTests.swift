import Foundation
import Testing

@testable import AltBenchCore

/// The paired-comparison statistics behind `compare` and `check`, checked against values computed
/// independently of this code (statsmodels 0.15, scipy 1.17, mpmath 1.3 and a separate Python
/// re-implementation of the bootstrap).
@Suite("CompareStatistics")
struct CompareStatisticsTests {
    /// `|actual − expected| ≤ tolerance · max(1, |expected|)`.
    private static func close(_ actual: Double, _ expected: Double, _ tolerance: Double = 1e-12) -> Bool {
        abs(actual - expected) <= tolerance * max(1, abs(expected))
    }

    /// `|actual − expected| ≤ tolerance · |expected|`.
    private static func relativelyClose(_ actual: Double, _ expected: Double, _ tolerance: Double) -> Bool {
        abs(actual - expected) <= tolerance * abs(expected)
    }

    // MARK: - Wilson

    struct WilsonCase: Sendable, CustomTestStringConvertible {
        var successes: Int
        var total: Int
        var z: Double
        var low: Double
        var high: Double
        var testDescription: String { "\(successes)/\(total) z=\(z)" }
    }

    /// Expected bounds from statsmodels 0.15:
    /// `statsmodels.stats.proportion.proportion_confint(k, n, alpha=0.05, method="wilson")`
    /// (alpha=0.10 for the z = 1.6448536269514729 row, which is `scipy.stats.norm.isf(0.05)`).
    static let wilsonCases: [WilsonCase] = [
        WilsonCase(successes: 0, total: 10, z: 1.959963984540054, low: 0.0, high: 0.27753279986288926),
        WilsonCase(successes: 10, total: 10, z: 1.959963984540054, low: 0.7224672001371106, high: 1.0),
        WilsonCase(successes: 5, total: 10, z: 1.959963984540054, low: 0.23659309051256394, high: 0.7634069094874361),
        WilsonCase(successes: 81, total: 263, z: 1.959963984540054, low: 0.2552885198782742, high: 0.36620957698280004),
        WilsonCase(successes: 1, total: 1, z: 1.959963984540054, low: 0.2065493143772374, high: 1.0),
        WilsonCase(successes: 3, total: 7, z: 1.959963984540054, low: 0.15821985525146964, high: 0.7495416354723428),
        WilsonCase(successes: 999, total: 1000, z: 1.959963984540054, low: 0.9943574414020421, high: 0.9998234536293739),
        WilsonCase(successes: 81, total: 263, z: 1.6448536269514729, low: 0.2633136171884814, high: 0.35656634960848815),
    ]

    @Test("Wilson interval matches statsmodels", arguments: wilsonCases)
    func wilsonMatchesStatsmodels(_ example: WilsonCase) throws {
        let interval = try #require(
            CompareStatistics.wilson(successes: example.successes, total: example.total, z: example.z))
        #expect(Self.close(interval.low, example.low), "low \(interval.low) vs \(example.low)")
        #expect(Self.close(interval.high, example.high), "high \(interval.high) vs \(example.high)")
    }

    @Test("Wilson default z is the 95% quantile")
    func wilsonDefaultIs95() throws {
        let interval = try #require(CompareStatistics.wilson(successes: 81, total: 263))
        // statsmodels proportion_confint(81, 263, method="wilson")
        #expect(Self.close(interval.low, 0.2552885198782742))
        #expect(Self.close(interval.high, 0.36620957698280004))
        // z95 is the standard normal's 97.5% quantile: Φ(z95) = 0.975.
        #expect(abs(0.5 * (1 + erf(CompareStatistics.z95 / 2.0.squareRoot())) - 0.975) < 1e-12)
    }

    @Test("Wilson with no trials or impossible counts is nil")
    func wilsonRejectsEmptyAndImpossible() {
        #expect(CompareStatistics.wilson(successes: 0, total: 0) == nil)
        #expect(CompareStatistics.wilson(successes: 3, total: 2) == nil)
        #expect(CompareStatistics.wilson(successes: -1, total: 5) == nil)
    }

    // MARK: - Exact McNemar

    struct McNemarCase: Sendable, CustomTestStringConvertible {
        var b: Int
        var c: Int
        var p: Double
        var testDescription: String { "b=\(b) c=\(c)" }
    }

    /// Expected p-values from scipy 1.17: `scipy.stats.binomtest(min(b, c), b + c, 0.5).pvalue`.
    /// The 40000/40500 and 50/80 rows were also checked with mpmath at 40 digits
    /// (`2 * sum(binomial(n, j) for j in range(k + 1)) / 2**n` = 0.07862036880510799590… and
    /// 0.01069405512382941342…), both within 1e-13 of scipy.
    static let mcNemarCases: [McNemarCase] = [
        McNemarCase(b: 0, c: 0, p: 1.0),
        McNemarCase(b: 0, c: 5, p: 0.0625),
        McNemarCase(b: 1, c: 9, p: 0.021484375),
        McNemarCase(b: 3, c: 12, p: 0.03515625),
        McNemarCase(b: 7, c: 3, p: 0.34375),
        McNemarCase(b: 10, c: 10, p: 1.0),
        McNemarCase(b: 0, c: 1, p: 1.0),
        McNemarCase(b: 2, c: 3, p: 1.0),
        McNemarCase(b: 50, c: 80, p: 0.010694055123829345),
        McNemarCase(b: 40000, c: 40500, p: 0.07862036880511007),
        McNemarCase(b: 49700, c: 50300, p: 0.058197353110190364),
    ]

    @Test("exact McNemar matches scipy binomtest", arguments: mcNemarCases)
    func exactMcNemarMatchesScipy(_ example: McNemarCase) {
        let p = CompareStatistics.exactMcNemar(b: example.b, c: example.c)
        #expect(Self.relativelyClose(p, example.p, 1e-9), "p \(p) vs \(example.p)")
    }

    @Test("exact McNemar is symmetric in b and c", arguments: mcNemarCases)
    func exactMcNemarIsSymmetric(_ example: McNemarCase) {
        #expect(
            CompareStatistics.exactMcNemar(b: example.b, c: example.c)
                == CompareStatistics.exactMcNemar(b: example.c, c: example.b))
    }

    @Test("exact McNemar stays finite and in range for large counts")
    func exactMcNemarLargeCounts() {
        let p = CompareStatistics.exactMcNemar(b: 40000, c: 40500)
        #expect(p.isFinite)
        #expect(p > 0 && p <= 1)

        // True value is 2^-99999, which underflows; it must come back as 0, not NaN or a crash.
        let extreme = CompareStatistics.exactMcNemar(b: 0, c: 100_000)
        #expect(extreme.isFinite)
        #expect(extreme >= 0 && extreme < 1e-300)

        // Equal counts at the top of the range: the doubled tail is above 1, so p is exactly 1.
        #expect(CompareStatistics.exactMcNemar(b: 60000, c: 60000) == 1)
    }

    // MARK: - Sign test

    @Test("sign test drops ties and counts directions")
    func signTestCounts() {
        // 0.0, 1e-13 and -5e-13 are ties (|d| < 1e-12); NaN is dropped too.
        let differences = [0.2, -0.1, 0.0, 1e-13, -5e-13, 0.5, 0.3, 0.05, .nan]
        let result = CompareStatistics.signTest(differences)
        #expect(result.improved == 4)
        #expect(result.worsened == 1)
        // scipy.stats.binomtest(1, 5, 0.5).pvalue
        #expect(Self.relativelyClose(result.p, 0.375, 1e-12))
        #expect(result.p == CompareStatistics.exactMcNemar(b: 1, c: 4))
    }

    @Test("sign test counts a difference of exactly the tolerance")
    func signTestToleranceBoundary() {
        let result = CompareStatistics.signTest([1e-12, -1e-12, 9e-13])
        #expect(result.improved == 1)
        #expect(result.worsened == 1)
        #expect(result.p == 1)
    }

    @Test("sign test with only ties or no input has p = 1")
    func signTestAllTies() {
        let ties = CompareStatistics.signTest([0, 0, 1e-15])
        #expect(ties.improved == 0 && ties.worsened == 0 && ties.p == 1)
        let empty = CompareStatistics.signTest([])
        #expect(empty.improved == 0 && empty.worsened == 0 && empty.p == 1)
    }

    @Test("sign test with mostly worse items")
    func signTestWorse() {
        let result = CompareStatistics.signTest([-0.1, -0.2, -0.3, -0.05, -0.4, -0.1, -0.2, -0.3, -0.2, 0.1])
        #expect(result.improved == 1)
        #expect(result.worsened == 9)
        // scipy.stats.binomtest(1, 10, 0.5).pvalue
        #expect(Self.relativelyClose(result.p, 0.021484375, 1e-12))
    }

    // MARK: - Paired bootstrap

    /// 30 items, all improved by about 0.1 (between 0.085 and 0.115).
    static let positiveShift: [Double] = (0..<30).map { 0.1 + Double($0 % 7 - 3) * 0.005 }

    /// A mixed set with no real effect (mean 0.0058).
    static let mixed: [Double] = [0.3, -0.2, 0.1, -0.4, 0.25, -0.05, 0.0, 0.15, -0.3, 0.2, -0.1, 0.12]

    struct BootstrapCase: Sendable, CustomTestStringConvertible {
        var name: String
        var differences: [Double]
        var resamples: Int
        var seed: UInt64
        var mean: Double
        var low: Double
        var high: Double
        var p: Double
        var testDescription: String { name }
    }

    /// Expected values from an independent Python re-implementation of the documented procedure
    /// (SplitMix64 seeded with `seed`, Lemire multiply-and-reject indices, left-to-right sums,
    /// `numpy.percentile(means, [2.5, 97.5])` with its default linear interpolation, and
    /// `p = min(1, 2 * min(#(m <= 0), #(m >= 0)) / B)`). Any change to the generator, the index
    /// mapping or the percentile rule changes these numbers.
    static let bootstrapCases: [BootstrapCase] = [
        BootstrapCase(
            name: "small mixed, default seed", differences: [0.5, -0.25, 1.0, 0.0, 0.75, -0.5, 0.25],
            resamples: 2000, seed: 0x5EED,
            mean: 0.25, low: -0.10714285714285714, high: 0.6071428571428571, p: 0.224),
        BootstrapCase(
            name: "one to five, seed 42", differences: [1, 2, 3, 4, 5], resamples: 2000, seed: 42,
            mean: 3.0, low: 1.8, high: 4.2, p: 0.0),
        BootstrapCase(
            name: "ten resamples, seed 1", differences: [0.1, 0.2, 0.3], resamples: 10, seed: 1,
            mean: 0.20000000000000004, low: 0.13333333333333333, high: 0.25916666666666666, p: 0.0),
        BootstrapCase(
            name: "positive shift", differences: positiveShift, resamples: 2000, seed: 0x5EED,
            mean: 0.09916666666666667, low: 0.09566666666666666, high: 0.10283333333333333, p: 0.0),
        BootstrapCase(
            name: "no effect", differences: mixed, resamples: 2000, seed: 0x5EED,
            mean: 0.005833333333333332, low: -0.1150416666666667, high: 0.11583333333333333, p: 0.938),
    ]

    @Test("paired bootstrap matches the reference implementation", arguments: bootstrapCases)
    func bootstrapMatchesReference(_ example: BootstrapCase) throws {
        let result = try #require(
            CompareStatistics.pairedBootstrap(
                example.differences, resamples: example.resamples, seed: example.seed))
        #expect(Self.close(result.meanDifference, example.mean))
        #expect(Self.close(result.low, example.low), "low \(result.low) vs \(example.low)")
        #expect(Self.close(result.high, example.high), "high \(result.high) vs \(example.high)")
        #expect(Self.close(result.p, example.p), "p \(result.p) vs \(example.p)")
        #expect(result.resamples == example.resamples)
    }

    @Test("paired bootstrap is deterministic and depends on the seed")
    func bootstrapIsDeterministic() throws {
        let first = try #require(CompareStatistics.pairedBootstrap(Self.mixed))
        let second = try #require(CompareStatistics.pairedBootstrap(Self.mixed))
        #expect(first == second)
        #expect(first.resamples == 2000)

        let otherSeed = try #require(CompareStatistics.pairedBootstrap(Self.mixed, seed: 7))
        #expect(otherSeed.meanDifference == first.meanDifference)
        #expect(otherSeed.low != first.low || otherSeed.high != first.high || otherSeed.p != first.p)
    }

    @Test("paired bootstrap of all-zero differences")
    func bootstrapAllZero() throws {
        let result = try #require(CompareStatistics.pairedBootstrap(Array(repeating: 0, count: 20)))
        #expect(result.meanDifference == 0)
        #expect(result.low == 0)
        #expect(result.high == 0)
        #expect(result.p == 1)
    }

    @Test("paired bootstrap finds a clear positive shift")
    func bootstrapPositiveShift() throws {
        let result = try #require(CompareStatistics.pairedBootstrap(Self.positiveShift))
        #expect(result.low > 0)
        #expect(result.p < 0.01)
        #expect(result.low <= result.meanDifference && result.meanDifference <= result.high)
    }

    @Test("paired bootstrap finds no effect in a mixed set")
    func bootstrapNoEffect() throws {
        let result = try #require(CompareStatistics.pairedBootstrap(Self.mixed))
        #expect(result.low < 0 && result.high > 0)
        #expect(result.p > 0.05)
        #expect(result.low <= result.meanDifference && result.meanDifference <= result.high)
    }

    @Test("paired bootstrap of a clear negative shift mirrors the positive one")
    func bootstrapNegativeShift() throws {
        let result = try #require(CompareStatistics.pairedBootstrap(Self.positiveShift.map { -$0 }))
        #expect(result.high < 0)
        #expect(result.p < 0.01)
        #expect(result.low <= result.meanDifference && result.meanDifference <= result.high)
    }

    @Test("paired bootstrap of a single item collapses to that item")
    func bootstrapSingleItem() throws {
        let result = try #require(CompareStatistics.pairedBootstrap([0.3]))
        #expect(result.meanDifference == 0.3 && result.low == 0.3 && result.high == 0.3)
        #expect(result.p == 0)
    }

    @Test("paired bootstrap of nothing is nil")
    func bootstrapEmpty() {
        #expect(CompareStatistics.pairedBootstrap([]) == nil)
        #expect(CompareStatistics.pairedBootstrap([0.1, 0.2], resamples: 0) == nil)
    }

    // MARK: - Folding repeats

    @Test("folding repeats averages per item and sorts by id")
    func foldRepeatsAverages() {
        let folded = CompareStatistics.foldRepeats([
            (item: "b", value: 1.0),
            (item: "a", value: 2.0),
            (item: "b", value: 3.0),
            (item: "c", value: 0.5),
            (item: "a", value: 4.0),
            (item: "b", value: 0.5),
        ])
        #expect(folded.map(\.item) == ["a", "b", "c"])
        #expect(folded.map(\.value) == [3.0, 1.5, 0.5])
    }

    @Test("folding nothing gives nothing")
    func foldRepeatsEmpty() {
        #expect(CompareStatistics.foldRepeats([]).isEmpty)
    }
}
