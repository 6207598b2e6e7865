import Foundation

/// The statistics behind `altbench compare` and `altbench check`: how sure we can be that one
/// prompt differs from another when both were run over the same items.
///
/// Everything here is pure and deterministic. The bootstrap draws from a small seeded generator
/// defined in this file, so the same input always gives the same output on every platform.
package enum CompareStatistics {
    /// The normal quantile for a two-sided 95% interval, `Φ⁻¹(0.975)`.
    package static let z95 = 1.959963984540054

    /// Differences whose magnitude is below this count as ties in `signTest`.
    package static let tieTolerance = 1e-12

    /// log(2).
    private static let ln2 = 0.693147180559945309417232121458176568

    // MARK: - Wilson score interval

    /// Wilson score interval for `successes` out of `total`.
    ///
    /// Rule (Wilson 1927, "Probable inference, the law of succession, and statistical inference",
    /// JASA 22:209–212; recommended over the Wald interval by Newcombe 1998, "Two-sided confidence
    /// intervals for the single proportion: comparison of seven methods", Stat. Med. 17:857–872):
    ///
    ///     p̂ = k / n
    ///     centre = (p̂ + z² / 2n) / (1 + z² / n)
    ///     half   = z · √(p̂(1 − p̂) / n + z² / 4n²) / (1 + z² / n)
    ///     interval = [centre − half, centre + half], clamped to [0, 1]
    ///
    /// The default `z` gives a 95% interval. Returns nil when `total` is 0 (or the counts are
    /// impossible: negative, or more successes than trials).
    package static func wilson(
        successes: Int, total: Int, z: Double = 1.959963984540054
    ) -> (low: Double, high: Double)? {
        guard total > 0, successes >= 0, successes <= total else { return nil }
        let n = Double(total)
        let proportion = Double(successes) / n
        let z2 = z * z
        let denominator = 1 + z2 / n
        let centre = (proportion + z2 / (2 * n)) / denominator
        let half = z * (proportion * (1 - proportion) / n + z2 / (4 * n * n)).squareRoot() / denominator
        return (low: max(0, centre - half), high: min(1, centre + half))
    }

    // MARK: - Exact McNemar / sign test

    /// Exact two-sided McNemar test on the discordant pairs of a paired pass/fail comparison.
    ///
    /// `b` counts pairs that went pass → fail (A passed, B failed) and `c` pairs that went
    /// fail → pass. Under the null hypothesis each discordant pair is equally likely to go either
    /// way, so the exact form of McNemar's test (McNemar 1947, "Note on the sampling error of the
    /// difference between correlated proportions or percentages", Psychometrika 12:153–157) is the
    /// binomial sign test:
    ///
    ///     X ~ Binomial(b + c, 0.5)
    ///     p = min(1, 2 · P(X ≤ min(b, c)))
    ///     p = 1 when b + c == 0
    ///
    /// Because Binomial(n, 0.5) is symmetric this equals the two-sided p-value of
    /// `scipy.stats.binomtest(min(b, c), b + c, 0.5)`.
    ///
    /// The tail is computed in log space: the probability at `min(b, c)` comes from Loader's
    /// saddle-point form (Loader 2000, "Fast and accurate computation of binomial probabilities",
    /// the method behind R's `dbinom`), and the rest of the tail is summed downwards with the
    /// recurrence `P(k − 1) = P(k) · k / (n − k + 1)` until the terms stop mattering. This stays
    /// accurate to about 1e-12 relative for `b + c` in the hundreds of thousands and never overflows.
    package static func exactMcNemar(b: Int, c: Int) -> Double {
        precondition(b >= 0 && c >= 0, "discordant pair counts cannot be negative")
        let n = b + c
        if n == 0 { return 1 }
        let k = min(b, c)
        if 2 * k >= n { return 1 }  // P(X ≤ n/2) ≥ 1/2, so the doubled tail is at least 1.

        // Sum P(X = j) / P(X = k) for j = k, k − 1, …, 0. Terms shrink monotonically because
        // k < n/2, so stop once a term can no longer change the sum.
        var ratioSum = 1.0
        var term = 1.0
        var j = k
        while j > 0 {
            term *= Double(j) / Double(n - j + 1)
            ratioSum += term
            if term < ratioSum * 1e-18 { break }
            j -= 1
        }
        let logTail = logBinomialHalf(k, n) + log(ratioSum)
        return min(1, exp(ln2 + logTail))
    }

    /// Sign test on paired differences (`after − before` per item).
    ///
    /// Differences with `|d| < tieTolerance` (1e-12) are ties and are dropped, as are NaNs; the rest
    /// count as improved (`d > 0`) or worsened (`d < 0`). The p-value is
    /// `exactMcNemar(b: worsened, c: improved)`, the exact binomial sign test (Dixon & Mood 1946).
    package static func signTest(_ differences: [Double]) -> (improved: Int, worsened: Int, p: Double) {
        var improved = 0
        var worsened = 0
        for difference in differences {
            if difference.isNaN || abs(difference) < tieTolerance { continue }
            if difference > 0 {
                improved += 1
            } else {
                worsened += 1
            }
        }
        return (improved: improved, worsened: worsened, p: exactMcNemar(b: worsened, c: improved))
    }

    // MARK: - Paired bootstrap

    /// Paired bootstrap of the mean difference (`after − before`) over items.
    ///
    /// Rule (Efron & Tibshirani 1993, *An Introduction to the Bootstrap*, ch. 6 and 13 for the
    /// percentile interval, ch. 15–16 for bootstrap significance):
    ///
    /// 1. `meanDifference` is the plain mean of `differences`.
    /// 2. Draw `resamples` bootstrap samples: each picks `differences.count` items uniformly with
    ///    replacement and records its mean. Draws come from SplitMix64 seeded with `seed`, mapped to
    ///    an index by Lemire's unbiased multiply-and-reject method, so results are reproducible.
    /// 3. The interval is the 2.5th and 97.5th percentiles of the sorted resampled means, by
    ///    **linear interpolation** between order statistics (Hyndman & Fan type 7, numpy's default):
    ///    for sorted means `m[0…B−1]` and fraction `q`, `h = (B − 1)·q`, value
    ///    `m[⌊h⌋] + (h − ⌊h⌋)·(m[⌊h⌋ + 1] − m[⌊h⌋])`.
    /// 4. The two-sided p-value is
    ///    `p = min(1, 2 · min(#{means ≤ 0} / B, #{means ≥ 0} / B))` — the achieved significance level
    ///    read off the same bootstrap distribution the percentile interval uses, so `p < 0.05` goes
    ///    with a 95% interval that excludes 0. When every difference is 0 both shares are 1 and
    ///    `p = 1`. When no resampled mean reaches 0 the p-value is 0; report it as `< 1 / B`.
    ///
    /// Returns nil for empty input or `resamples < 1`. Differences are expected to be finite.
    package static func pairedBootstrap(
        _ differences: [Double], resamples: Int = 2000, seed: UInt64 = 0x5EED
    ) -> PairedBootstrap? {
        guard !differences.isEmpty, resamples >= 1 else { return nil }
        let count = differences.count
        let observed = mean(differences)

        var generator = SplitMix64(seed: seed)
        var means: [Double] = []
        means.reserveCapacity(resamples)
        for _ in 0..<resamples {
            var sum = 0.0
            for _ in 0..<count {
                sum += differences[generator.nextIndex(below: count)]
            }
            means.append(sum / Double(count))
        }
        means.sort()

        let atOrBelowZero = means.count(where: { $0 <= 0 })
        let atOrAboveZero = means.count(where: { $0 >= 0 })
        let smallerShare = Double(min(atOrBelowZero, atOrAboveZero)) / Double(resamples)

        return PairedBootstrap(
            meanDifference: observed,
            low: percentile(sortedValues: means, fraction: 0.025),
            high: percentile(sortedValues: means, fraction: 0.975),
            p: min(1, 2 * smallerShare),
            resamples: resamples)
    }

    // MARK: - Folding repeats

    /// Folds repeated runs of the same item into one value per item.
    ///
    /// Groups `values` by item id, averages each item's repeats (summed in input order) and returns
    /// one `(item, mean)` per item, sorted by item id (plain `String` ordering). Paired statistics
    /// then treat each item once, however many repeats it had.
    package static func foldRepeats(_ values: [(item: String, value: Double)]) -> [(item: String, value: Double)] {
        var totals: [String: (sum: Double, count: Int)] = [:]
        for entry in values {
            let current = totals[entry.item, default: (sum: 0, count: 0)]
            totals[entry.item] = (sum: current.sum + entry.value, count: current.count + 1)
        }
        return totals.keys.sorted().map { item in
            let total = totals[item]!
            return (item: item, value: total.sum / Double(total.count))
        }
    }

    // MARK: - Helpers

    /// Plain left-to-right mean.
    private static func mean(_ values: [Double]) -> Double {
        var sum = 0.0
        for value in values { sum += value }
        return sum / Double(values.count)
    }

    /// Percentile of already-sorted values by linear interpolation (Hyndman & Fan type 7).
    private static func percentile(sortedValues: [Double], fraction: Double) -> Double {
        let position = Double(sortedValues.count - 1) * fraction
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sortedValues.count - 1)
        let weight = position - Double(lower)
        return sortedValues[lower] + weight * (sortedValues[upper] - sortedValues[lower])
    }

    /// `log P(X = k)` for `X ~ Binomial(n, 0.5)`, by Loader's saddle-point expansion:
    ///
    ///     log P = stirlerr(n) − stirlerr(k) − stirlerr(n − k) − bd0(k, n/2) − bd0(n − k, n/2)
    ///             − ½ · log(2π · k · (1 − k/n))
    ///
    /// which avoids the cancellation between huge `lgamma` values.
    private static func logBinomialHalf(_ k: Int, _ n: Int) -> Double {
        if k == 0 || k == n { return -Double(n) * ln2 }
        let x = Double(k)
        let size = Double(n)
        let half = size / 2
        let correction = stirlingError(n) - stirlingError(k) - stirlingError(n - k)
        let deviance = devianceTerm(x, half) + devianceTerm(size - x, half)
        let logBase = log(2 * Double.pi) + log(x) + log1p(-x / size)
        return correction - deviance - 0.5 * logBase
    }

    /// Stirling's error `log(n!) − [(n + ½)·log n − n + ½·log(2π)]` for n ≥ 1. Small n use lgamma
    /// directly (the values are small, so no precision is lost); larger n use the asymptotic series.
    private static func stirlingError(_ n: Int) -> Double {
        let x = Double(n)
        if n <= 15 {
            return lgamma(x + 1) - (x + 0.5) * log(x) + x - 0.5 * log(2 * Double.pi)
        }
        let s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680, s4 = 1.0 / 1188
        let xx = x * x
        if n > 500 { return (s0 - s1 / xx) / x }
        if n > 80 { return (s0 - (s1 - s2 / xx) / xx) / x }
        if n > 35 { return (s0 - (s1 - (s2 - s3 / xx) / xx) / xx) / x }
        return (s0 - (s1 - (s2 - (s3 - s4 / xx) / xx) / xx) / xx) / x
    }

    /// Loader's deviance term `x·log(x/m) + m − x`, computed by a series when x is close to m so
    /// the result keeps full relative precision.
    private static func devianceTerm(_ x: Double, _ m: Double) -> Double {
        if abs(x - m) < 0.1 * (x + m) {
            var v = (x - m) / (x + m)
            var sum = (x - m) * v
            var term = 2 * x * v
            v *= v
            var j = 1.0
            while true {
                term *= v
                let next = sum + term / (2 * j + 1)
                if next == sum { return next }
                sum = next
                j += 1
            }
        }
        return x * log(x / m) + m - x
    }
}

/// The result of `CompareStatistics.pairedBootstrap`: the observed mean difference, its 95%
/// percentile interval, the bootstrap p-value and how many resamples produced them.
package struct PairedBootstrap: Sendable, Hashable {
    package var meanDifference: Double
    package var low: Double
    package var high: Double
    package var p: Double
    package var resamples: Int

    package init(meanDifference: Double, low: Double, high: Double, p: Double, resamples: Int) {
        self.meanDifference = meanDifference
        self.low = low
        self.high = high
        self.p = p
        self.resamples = resamples
    }
}

/// SplitMix64 (Steele, Lea & Flood 2014; constants from Vigna's reference implementation):
/// a tiny, fast generator whose whole state is one 64-bit word. Used so bootstrap results,
/// generated test images and simulated orders are reproducible; it is not meant for anything
/// security-related. The one seeded generator of the package.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform index in `0..<bound` by Lemire's multiply-and-reject method (Lemire 2019,
    /// "Fast random integer generation in an interval"), which has no modulo bias.
    mutating func nextIndex(below bound: Int) -> Int {
        precondition(bound > 0)
        let range = UInt64(bound)
        var product = next().multipliedFullWidth(by: range)
        if product.low < range {
            let threshold = (0 &- range) % range
            while product.low < threshold {
                product = next().multipliedFullWidth(by: range)
            }
        }
        return Int(product.high)
    }
}
