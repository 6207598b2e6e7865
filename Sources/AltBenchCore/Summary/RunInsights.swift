import Foundation

/// The answer a report opens with: for each token limit, which variant scores best (mean
/// `quality` with a 95% interval), or that none is ahead (``isAhead(_:others:)``), how each variant differs from the baseline variant over the
/// same images (a paired bootstrap, the statistics `altbench compare` uses), and from which
/// token limit on answers stop being cut off.
package struct RunInsights: Sendable {
    /// The variant with the highest mean quality at one token limit, and whether it is ahead.
    package struct Best: Sendable, Hashable {
        package var maxTokens: Int?
        package var variant: String
        package var meanQuality: Double
        /// The 95% bootstrap interval of the mean over images.
        package var low: Double
        package var high: Double
        package var images: Int
        /// Other variants whose interval overlaps this one's: the lead may not be real.
        package var tiedWith: [String]
        /// Whether the variant is ahead (``isAhead(_:others:)``): only then do reports call it
        /// best and mark it ★.
        package var ahead: Bool = true
        /// Every variant at this limit, highest mean first (the best first), for the reports'
        /// "no variant is ahead" line.
        package var ranking: [Standing] = []

        /// The best variant's own standing.
        package var standing: Standing {
            Standing(variant: variant, meanQuality: meanQuality, low: low, high: high, images: images)
        }
    }

    /// One variant's mean quality at a token limit, with its 95% interval over images.
    package struct Standing: Sendable, Hashable {
        package var variant: String
        package var meanQuality: Double
        package var low: Double
        package var high: Double
        package var images: Int
    }

    /// Whether `top` is ahead of `others` at a limit. It is not when there is no other variant,
    /// when its lead over the runner-up is 0.00 at the two decimals reports show (or both
    /// means show the same), or when its mean lies inside the 95% interval of every other
    /// variant.
    package static func isAhead(_ top: Standing, others: [Standing]) -> Bool {
        guard let runnerUp = others.max(by: { $0.meanQuality < $1.meanQuality }) else { return false }
        func shown(_ value: Double) -> String { String(format: "%.2f", value) }
        let lead = top.meanQuality - runnerUp.meanQuality
        if shown(lead) == "0.00" || shown(lead) == "-0.00" || shown(top.meanQuality) == shown(runnerUp.meanQuality) {
            return false
        }
        return !others.allSatisfy { $0.low <= top.meanQuality && top.meanQuality <= $0.high }
    }

    /// One variant against the baseline variant at the same token limit, over the images both
    /// answered.
    package struct Difference: Sendable, Hashable {
        package var variant: String
        package var maxTokens: Int?
        package var meanDifference: Double
        package var low: Double
        package var high: Double
        package var p: Double
        package var images: Int
        /// `p < alpha`: the interval excludes 0.
        package var significant: Bool
    }

    /// From which token limit a variant's truncated share stays at or under the limit.
    package struct Truncation: Sendable, Hashable {
        package var variant: String
        /// The smallest limit from which every larger limit keeps truncation at or under
        /// ``RunInsights/truncationLimit``; nil when even the largest does not.
        package var fromMaxTokens: Int?
        /// The truncated share at each limit, in limit order.
        package var shares: [(maxTokens: Int, share: Double)]

        package static func == (a: Truncation, b: Truncation) -> Bool {
            a.variant == b.variant && a.fromMaxTokens == b.fromMaxTokens
                && a.shares.map(\.maxTokens) == b.shares.map(\.maxTokens) && a.shares.map(\.share) == b.shares.map(\.share)
        }
        package func hash(into hasher: inout Hasher) {
            hasher.combine(variant)
            hasher.combine(fromMaxTokens)
        }
    }

    package var baseline: String?
    package var best: [Best]
    package var differences: [Difference]
    package var truncation: [Truncation]
    /// The truncated share a limit may keep (`check.max_truncation_rise`, default 0.02).
    package var truncationLimit: Double
    package var alpha: Double

    package init(_ results: RunResults, truncationLimit: Double = CheckThresholds().maxTruncationRise, alpha: Double = 0.05) {
        self.truncationLimit = truncationLimit
        self.alpha = alpha
        let ordered = results.orderingVariants()
        let names = ordered.variants.map(\.name)
        baseline = results.baselineVariant
        let limits = Self.limits(in: results)
        // Each pair's answered trials, grouped once: every figure below reads one pair.
        let trials = results.trials
        var answeredByPair: [RunSummary.GroupKey: [Int]] = [:]
        for (index, trial) in trials.enumerated() where !trial.failed {
            answeredByPair[RunSummary.GroupKey(variant: trial.variant, maxTokens: trial.maxTokens), default: []].append(index)
        }
        var perImageCache: [RunSummary.GroupKey: [String: Double]] = [:]

        /// Mean quality per image (repeats folded), for one variant at one limit.
        func perImage(_ variant: String, _ limit: Int?) -> [String: Double] {
            let key = RunSummary.GroupKey(variant: variant, maxTokens: limit)
            if let cached = perImageCache[key] { return cached }
            let values = (answeredByPair[key] ?? [])
                .compactMap { index in trials[index].scores[ScoreName.quality].map { (item: trials[index].itemID, value: $0.value) } }
            let folded = Dictionary(uniqueKeysWithValues: CompareStatistics.foldRepeats(values).map { ($0.item, $0.value) })
            perImageCache[key] = folded
            return folded
        }

        var best: [Best] = []
        var differences: [Difference] = []
        for limit in limits {
            var intervals: [(variant: String, mean: Double, low: Double, high: Double, n: Int)] = []
            for name in names {
                let values = perImage(name, limit)
                guard let interval = CompareStatistics.pairedBootstrap(values.keys.sorted().map { values[$0]! }) else { continue }
                intervals.append((name, interval.meanDifference, interval.low, interval.high, values.count))
            }
            // Ties go to the variant listed first (the baseline).
            if let top = intervals.enumerated().max(by: { ($0.element.mean, -$0.offset) < ($1.element.mean, -$1.offset) })?.element {
                let tied = intervals.filter { $0.variant != top.variant && $0.high >= top.low }.map(\.variant)
                let standings = intervals.map { Standing(variant: $0.variant, meanQuality: $0.mean, low: $0.low, high: $0.high, images: $0.n) }
                let ranking = [standings.first { $0.variant == top.variant }!]
                    + standings.filter { $0.variant != top.variant }.enumerated()
                    .sorted { ($0.element.meanQuality, -$0.offset) > ($1.element.meanQuality, -$1.offset) }.map(\.element)
                var entry = Best(
                    maxTokens: limit, variant: top.variant, meanQuality: top.mean, low: top.low, high: top.high, images: top.n,
                    tiedWith: tied)
                entry.ranking = ranking
                entry.ahead = Self.isAhead(ranking[0], others: Array(ranking.dropFirst()))
                best.append(entry)
            }
            guard let baseline else { continue }
            let reference = perImage(baseline, limit)
            for name in names where name != baseline {
                let values = perImage(name, limit)
                let shared = values.keys.filter { reference[$0] != nil }.sorted()
                guard let test = CompareStatistics.pairedBootstrap(shared.map { values[$0]! - reference[$0]! }) else { continue }
                differences.append(
                    Difference(
                        variant: name, maxTokens: limit, meanDifference: test.meanDifference, low: test.low, high: test.high, p: test.p,
                        images: shared.count, significant: test.p < alpha))
            }
        }
        self.best = best
        self.differences = differences

        let numbered = limits.compactMap { $0 }
        truncation = names.compactMap { name in
            let shares: [(maxTokens: Int, share: Double)] = numbered.compactMap { limit in
                let flags = (answeredByPair[RunSummary.GroupKey(variant: name, maxTokens: limit)] ?? [])
                    .compactMap { trials[$0].scores[ScoreName.truncated]?.passed }
                guard !flags.isEmpty else { return nil }
                return (limit, Double(flags.filter { !$0 }.count) / Double(flags.count))
            }
            guard !shares.isEmpty else { return nil }
            // The first limit from which no larger limit goes over.
            var from: Int?
            for index in shares.indices.reversed() {
                guard shares[index].share <= truncationLimit else { break }
                from = shares[index].maxTokens
            }
            return Truncation(variant: name, fromMaxTokens: from, shares: shares)
        }
    }

    /// The run's token limits, ascending, with "no limit" last.
    package static func limits(in results: RunResults) -> [Int?] {
        let all = Set(results.trials.map(\.maxTokens))
        return all.compactMap { $0 }.sorted() + (all.contains(nil) ? [nil] : [])
    }
}
