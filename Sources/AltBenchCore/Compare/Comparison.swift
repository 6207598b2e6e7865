import Foundation

/// Two runs side by side (or a baseline and a run): per (variant, max_tokens) pair the change
/// of each figure with its significance, the items whose hard checks flipped, and the items
/// whose repeats disagree. `before` is A (the baseline), `after` is B (the run under review).
///
/// Significance, per pair, over the items both sides answered (repeats folded into each
/// item's mean first, so a repeated trial is not counted as independent evidence):
/// - rates carry Wilson 95% intervals on each side;
/// - each hard check gets a paired per-item test: the exact two-sided sign test on the items
///   whose pass share changed, which is the exact McNemar test when there is one repeat;
/// - `quality`, a continuous score, gets a paired bootstrap of the mean per-item difference
///   (2,000 resamples, fixed seed, so the same runs always give the same p-value).
///
/// Like with like: `quality` is compared on the components both sides have (``QualityBasis``):
/// one only one side has (the judge's grades, `reference_match`, …) is left out of every
/// answer's `quality` on both sides, and a note says so. `judge_accuracy` is compared over the
/// items judged on both sides only.
package struct Comparison: Sendable, Hashable, Encodable {
    /// The two sides as compared: with `quality` computed again when ``basis`` leaves a
    /// component out.
    package var before: RunSnapshot
    package var after: RunSnapshot
    /// What `quality` was compared on.
    package var basis: QualityBasis
    /// Pairs of `after` in its order, then pairs only `before` has.
    package var pairs: [PairComparison]
    /// What makes the two sides answer different questions: another provider, model or
    /// dataset. A check refuses to judge across them.
    package var mismatches: [Mismatch]
    /// Differences worth knowing that do not invalidate the comparison (endpoint host,
    /// altbench version, repeats).
    package var notes: [String]
    /// The level below which a p-value counts as significant.
    package var alpha: Double

    package struct Mismatch: Sendable, Hashable, Codable {
        package var field: String
        package var before: String
        package var after: String

        package init(field: String, before: String, after: String) {
            self.field = field
            self.before = before
            self.after = after
        }
    }

    package init(before original: RunSnapshot, after originalAfter: RunSnapshot, alpha: Double = 0.05) {
        let basis = QualityBasis(before: original, after: originalAfter)
        let (before, after) = basis.apply(before: original, after: originalAfter)
        self.basis = basis
        self.before = before
        self.after = after
        self.alpha = alpha
        var mismatches: [Mismatch] = []
        // A run through a team's signed proxy or Azure OpenAI asks the same API as a direct one
        // (the model and the endpoint host tell them apart): only a change to or from the mock
        // is a mismatch.
        let sameKind = Set([before.provider, after.provider]).isSubset(
            of: [Provider.openai.rawValue, Provider.proxy.rawValue, Provider.azure.rawValue])
        if before.provider != after.provider && !sameKind {
            mismatches.append(Mismatch(field: "provider", before: before.provider, after: after.provider))
        }
        if before.models != after.models {
            mismatches.append(
                Mismatch(
                    field: "model", before: before.models.joined(separator: ", "),
                    after: after.models.joined(separator: ", ")))
        }
        if before.dataset.sha256 != after.dataset.sha256 {
            mismatches.append(
                Mismatch(
                    field: "dataset",
                    before: "\(before.dataset.path) (\(before.dataset.items) items, sha256 \(before.dataset.sha256.prefix(12)))",
                    after: "\(after.dataset.path) (\(after.dataset.items) items, sha256 \(after.dataset.sha256.prefix(12)))"))
        }
        self.mismatches = mismatches
        var notes: [String] = []
        if before.endpointHost != after.endpointHost {
            notes.append("The endpoint host differs: \(before.endpointHost) → \(after.endpointHost).")
        }
        if before.altbenchVersion != after.altbenchVersion {
            notes.append(
                "The altbench version differs: \(before.altbenchVersion) → \(after.altbenchVersion); scorers may have changed.")
        }
        if before.repeats != after.repeats {
            notes.append("Repeats differ: \(before.repeats) → \(after.repeats); items are compared by their mean over repeats.")
        }
        if let note = basis.note { notes.append(note + ".") }
        self.notes = notes

        var pairs = after.rows.map { row in
            PairComparison(
                before: before.row(variant: row.variant, maxTokens: row.maxTokens), after: row, alpha: alpha,
                testQuality: basis.comparable)
        }
        for row in before.rows where after.row(variant: row.variant, maxTokens: row.maxTokens) == nil {
            pairs.append(PairComparison(before: row, after: nil, alpha: alpha, testQuality: basis.comparable))
        }
        for index in pairs.indices {
            pairs[index].requestChange = RequestChange.of(
                variant: pairs[index].variant, maxTokens: pairs[index].maxTokens, before: before, after: after)
        }
        self.pairs = pairs
        if let note = Self.unrecordedRequestNote(before: before, after: after, pairs: pairs) { self.notes.append(note) }
    }

    /// The note, among ``notes``, that says whether prompts and settings changed is unknown;
    /// nil when every pair's is known.
    package var requestNote: String? { Self.unrecordedRequestNote(before: before, after: after, pairs: pairs) }

    /// The note when whether a pair's prompt or settings changed is unknown: a side was saved
    /// by an altbench that did not record what each pair asked.
    static func unrecordedRequestNote(before: RunSnapshot, after: RunSnapshot, pairs: [PairComparison]) -> String? {
        guard pairs.contains(where: { $0.requestChange?.isUnknown == true }) else { return nil }
        func unrecorded(_ side: RunSnapshot) -> Bool {
            side.rows.contains { $0.promptSHA256 == nil || $0.requestSHA256 == nil || $0.requestSettings == nil }
        }
        let sides = [("A", before), ("B", after)].filter { unrecorded($0.1) }.map { "\($0.0) (run \($0.1.runID))" }
        let who = sides.isEmpty ? "a side" : sides.joined(separator: " and ")
        return "Whether prompts and settings changed is unknown: \(who) \(sides.count > 1 ? "were" : "was") saved by an altbench that did not record them. Save the baseline again with `altbench baseline save` to record them."
    }
}

/// Whether a change is for the better.
package enum Direction: String, Sendable, Hashable, Codable {
    case better, worse, same
    /// A figure with no better side (length), or one side missing.
    case neutral
}

/// One pair of both sides.
package struct PairComparison: Sendable, Hashable, Encodable {
    package var variant: String
    package var maxTokens: Int?
    package var before: RunSnapshot.Row?
    package var after: RunSnapshot.Row?
    package var metrics: [MetricDelta]
    /// Items whose hard check went from passed to failed or back, in item order.
    package var flips: [Flip]
    /// Items of `after` whose repeats disagree on a hard check.
    package var unstable: [UnstableItem]
    /// Items both sides answered, the ones the paired tests use.
    package var pairedItems: Int
    /// Whether the pair's prompt or request settings changed from A to B; nil when the
    /// variant is on one side only.
    package var requestChange: RequestChange? = nil

    enum CodingKeys: String, CodingKey {
        case variant, before, after, metrics, flips, unstable
        case maxTokens = "max_tokens"
        case pairedItems = "paired_items"
        case requestChange = "request_change"
    }

    package var label: String { "\(variant) @ \(maxTokens.map(String.init) ?? "none")" }

    package struct Flip: Sendable, Hashable, Codable {
        package var item: String
        package var check: String
        /// true: passed in A and failed in B (a regression); false: the other way.
        package var regressed: Bool
        package var beforeAnswer: String?
        package var afterAnswer: String?

        enum CodingKeys: String, CodingKey {
            case item, check, regressed
            case beforeAnswer = "before_answer"
            case afterAnswer = "after_answer"
        }
    }

    package struct UnstableItem: Sendable, Hashable, Codable {
        package var item: String
        /// Each disagreeing check with the share of repeats that passed it.
        package var passed: [String: Double]
    }

    init(before: RunSnapshot.Row?, after: RunSnapshot.Row?, alpha: Double, testQuality: Bool = true) {
        let row = after ?? before!
        variant = row.variant
        maxTokens = row.maxTokens
        self.before = before
        self.after = after
        let shared = Set((before?.items ?? [:]).keys).intersection((after?.items ?? [:]).keys).sorted()
        let answeredBoth = shared.filter { (before?.items[$0]?.answered ?? 0) > 0 && (after?.items[$0]?.answered ?? 0) > 0 }
        pairedItems = answeredBoth.count
        metrics = MetricDelta.all(before: before, after: after, items: answeredBoth, alpha: alpha, testQuality: testQuality)

        var flips: [Flip] = []
        if let before, let after {
            for id in answeredBoth {
                let a = before.items[id]!, b = after.items[id]!
                for check in Set(a.passed.keys).intersection(b.passed.keys).sorted() {
                    let was = a.passed[check]!, now = b.passed[check]!
                    guard (was == 1 && now == 0) || (was == 0 && now == 1) else { continue }
                    flips.append(
                        Flip(item: id, check: check, regressed: was == 1, beforeAnswer: a.answer, afterAnswer: b.answer))
                }
            }
        }
        self.flips = flips
        unstable = (after?.items ?? [:]).keys.sorted().compactMap { id in
            let outcome = after!.items[id]!
            let passed = outcome.passed.filter { $0.value > 0 && $0.value < 1 }
            return passed.isEmpty ? nil : UnstableItem(item: id, passed: passed)
        }
    }

    /// The delta of the figure `name`, if compared.
    package func metric(_ name: String) -> MetricDelta? { metrics.first { $0.name == name } }

    /// Figures that got significantly worse.
    package var significantRegressions: [MetricDelta] { metrics.filter(\.isSignificantRegression) }
}

/// The change of one figure of a pair, with its significance.
package struct MetricDelta: Sendable, Hashable, Encodable {
    package enum Kind: String, Sendable, Hashable, Codable {
        /// A share of answered trials, 0...1.
        case rate
        /// A mean over answered trials.
        case mean
    }

    package var name: String
    package var kind: Kind
    /// nil: neither direction is better (length).
    package var higherIsBetter: Bool?
    package var before: Double?
    package var after: Double?
    /// Wilson 95% intervals of a rate on each side.
    package var beforeInterval: ClosedRange<Double>?
    package var afterInterval: ClosedRange<Double>?
    package var test: SignificanceTest?

    enum CodingKeys: String, CodingKey {
        case name, kind, before, after, delta, direction, test
        case higherIsBetter = "higher_is_better"
        case beforeInterval = "before_interval"
        case afterInterval = "after_interval"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(higherIsBetter, forKey: .higherIsBetter)
        try container.encodeIfPresent(before, forKey: .before)
        try container.encodeIfPresent(after, forKey: .after)
        try container.encodeIfPresent(delta, forKey: .delta)
        try container.encode(direction, forKey: .direction)
        try container.encodeIfPresent(beforeInterval, forKey: .beforeInterval)
        try container.encodeIfPresent(afterInterval, forKey: .afterInterval)
        try container.encodeIfPresent(test, forKey: .test)
    }

    package var delta: Double? {
        guard let before, let after else { return nil }
        return after - before
    }

    package var direction: Direction {
        guard let delta, let higherIsBetter else { return .neutral }
        if abs(delta) < 1e-9 { return .same }
        return (delta > 0) == higherIsBetter ? .better : .worse
    }

    /// Significant at the comparison's level, and for the worse.
    package var isSignificantRegression: Bool {
        guard let test, test.significant else { return false }
        return test.favours == .worse
    }

    /// The figures a comparison shows, in order: the composite, then each check's rate, then
    /// length and the reference metrics. Checks are compared when either side has them.
    /// `judge_accuracy` is compared over the items judged on both sides; `testQuality` false
    /// shows `quality` without a test (its sides were not scored alike).
    static func all(
        before: RunSnapshot.Row?, after: RunSnapshot.Row?, items: [String], alpha: Double, testQuality: Bool = true
    ) -> [MetricDelta] {
        var result: [MetricDelta] = []
        func value(_ row: RunSnapshot.Row?, _ name: String) -> Double? { row?.metrics[name] }

        /// A per-item mean, with a paired bootstrap of the per-item differences.
        func pairedMean(_ name: String, _ perItem: (RunSnapshot.ItemOutcome) -> Double?) -> MetricDelta {
            var delta = MetricDelta(
                name: name, kind: .mean, higherIsBetter: true, before: value(before, name), after: value(after, name))
            guard let before, let after else { return delta }
            let differences = items.compactMap { id -> Double? in
                guard let a = before.items[id].flatMap(perItem), let b = after.items[id].flatMap(perItem) else { return nil }
                return b - a
            }
            if let bootstrap = CompareStatistics.pairedBootstrap(differences) {
                delta.test = SignificanceTest(
                    method: .pairedBootstrap, p: bootstrap.p, items: differences.count, alpha: alpha,
                    favours: bootstrap.meanDifference > 1e-12 ? .better : bootstrap.meanDifference < -1e-12 ? .worse : .same,
                    meanDifference: bootstrap.meanDifference, interval: bootstrap.low...bootstrap.high)
            }
            return delta
        }

        var quality = pairedMean("quality", \.quality)
        if !testQuality { quality.test = nil }
        result.append(quality)
        // The judge's accuracy, paired per item like quality, when either side was judged; when
        // both were, each side's figure is its mean over the items judged on both.
        if value(before, ScoreName.judgeAccuracy) != nil || value(after, ScoreName.judgeAccuracy) != nil {
            var judge = pairedMean(ScoreName.judgeAccuracy, \.judgeAccuracy)
            if judge.before != nil, judge.after != nil, let before, let after {
                let judged = items.filter { before.items[$0]?.judgeAccuracy != nil && after.items[$0]?.judgeAccuracy != nil }
                judge.before = Stats.mean(judged.compactMap { before.items[$0]?.judgeAccuracy }).map(RunSnapshot.rounded)
                judge.after = Stats.mean(judged.compactMap { after.items[$0]?.judgeAccuracy }).map(RunSnapshot.rounded)
            }
            result.append(judge)
        }

        var hardFails = MetricDelta(
            name: "hard_fails", kind: .rate, higherIsBetter: false, before: value(before, "hard_fails"),
            after: value(after, "hard_fails"))
        hardFails.beforeInterval = wilson(hardFails.before, before)
        hardFails.afterInterval = wilson(hardFails.after, after)
        result.append(hardFails)

        for check in ScoringSettings.checkIDs where value(before, check) != nil || value(after, check) != nil {
            var delta = MetricDelta(
                name: check, kind: .rate, higherIsBetter: false, before: value(before, check), after: value(after, check))
            delta.beforeInterval = wilson(delta.before, before)
            delta.afterInterval = wilson(delta.after, after)
            if let before, let after {
                // Pass shares per item: a rise is an improvement.
                let differences = items.compactMap { id -> Double? in
                    guard let a = before.items[id]?.passed[check], let b = after.items[id]?.passed[check] else { return nil }
                    return b - a
                }
                if !differences.isEmpty {
                    let sign = CompareStatistics.signTest(differences)
                    delta.test = SignificanceTest(
                        method: .exactMcNemar, p: sign.p, items: differences.count, alpha: alpha,
                        favours: sign.improved > sign.worsened ? .better : sign.worsened > sign.improved ? .worse : .same,
                        improved: sign.improved, worsened: sign.worsened)
                }
            }
            result.append(delta)
        }

        result.append(
            MetricDelta(
                name: "length_mean", kind: .mean, higherIsBetter: nil, before: value(before, "length_mean"),
                after: value(after, "length_mean")))
        var budget = MetricDelta(
            name: "within_budget", kind: .rate, higherIsBetter: true, before: value(before, "within_budget"),
            after: value(after, "within_budget"))
        budget.beforeInterval = wilson(budget.before, before)
        budget.afterInterval = wilson(budget.after, after)
        result.append(budget)
        for name in [ScoreName.bleu4, ScoreName.rougeL, ScoreName.ciderD] where value(before, name) != nil || value(after, name) != nil {
            result.append(
                MetricDelta(name: name, kind: .mean, higherIsBetter: true, before: value(before, name), after: value(after, name)))
        }
        return result
    }

    /// The Wilson interval of a rate over the row's answered trials.
    static func wilson(_ rate: Double?, _ row: RunSnapshot.Row?) -> ClosedRange<Double>? {
        guard let rate, let row, row.answered > 0 else { return nil }
        let successes = Int((rate * Double(row.answered)).rounded())
        return CompareStatistics.wilson(successes: successes, total: row.answered).map { $0.low...$0.high }
    }
}

/// A paired test of one figure between the two sides.
package struct SignificanceTest: Sendable, Hashable, Encodable {
    package enum Method: String, Sendable, Hashable, Codable {
        /// The exact two-sided sign test on items whose pass share changed (exact McNemar).
        case exactMcNemar = "exact_mcnemar"
        /// A paired bootstrap of the mean per-item difference.
        case pairedBootstrap = "paired_bootstrap"
    }

    package var method: Method
    package var p: Double
    /// Items the test paired.
    package var items: Int
    /// Whether `p` is below the comparison's level.
    package var significant: Bool
    /// Which way the items moved.
    package var favours: Direction
    /// The observed mean per-item difference, B − A (bootstrap).
    package var meanDifference: Double?
    /// 95% interval of the mean difference (bootstrap).
    package var interval: ClosedRange<Double>?
    /// Items that got better and worse (sign test).
    package var improved: Int?
    package var worsened: Int?

    /// A p-value as every report writes it: "p = 0.031", or "p < 0.001" for anything smaller
    /// (a bootstrap in which no resample reached 0 gives 0, which only means "below 1 / 2,000").
    package static func describe(p: Double) -> String {
        p < 0.001 ? "p < 0.001" : String(format: "p = %.3f", p)
    }

    init(
        method: Method, p: Double, items: Int, alpha: Double, favours: Direction, meanDifference: Double? = nil,
        interval: ClosedRange<Double>? = nil, improved: Int? = nil, worsened: Int? = nil
    ) {
        self.meanDifference = meanDifference
        self.method = method
        self.p = p
        self.items = items
        self.significant = p < alpha
        self.favours = favours
        self.interval = interval
        self.improved = improved
        self.worsened = worsened
    }
}
