import Foundation

/// The limits `altbench check` holds a run to, set under `check:` in `altbench.yml`.
package struct CheckThresholds: Sendable, Hashable, Codable {
    /// How far the share of failed trials (no answer: a transport error, an HTTP error, no
    /// stored answer offline) may rise, as a share of the pair's trials; 0: not at all.
    package var maxErrorRise: Double
    /// How far mean `quality` may fall (0.02: from 0.80 to 0.78).
    package var maxQualityDrop: Double
    /// How far each rate may rise, as a share (0.02 is 2 points).
    package var maxFirstPersonRise: Double
    package var maxRefusalRise: Double
    package var maxTruncationRise: Double
    /// How far the judge's mean accuracy (0...1) may fall; checked over the items judged on
    /// both sides, skipped when only one side was judged.
    package var maxJudgeAccuracyDrop: Double
    /// Whether any statistically significant regression fails the check.
    package var failOnSignificant: Bool
    /// The level below which a paired test's p-value is significant.
    package var alpha: Double

    enum CodingKeys: String, CodingKey {
        case alpha
        case maxErrorRise = "max_error_rise"
        case maxQualityDrop = "max_quality_drop"
        case maxFirstPersonRise = "max_first_person_rise"
        case maxRefusalRise = "max_refusal_rise"
        case maxTruncationRise = "max_truncation_rise"
        case maxJudgeAccuracyDrop = "max_judge_accuracy_drop"
        case failOnSignificant = "fail_on_significant"
    }

    package init(
        maxErrorRise: Double = 0, maxQualityDrop: Double = 0.02, maxFirstPersonRise: Double = 0, maxRefusalRise: Double = 0,
        maxTruncationRise: Double = 0.02, maxJudgeAccuracyDrop: Double = 0.05, failOnSignificant: Bool = true,
        alpha: Double = 0.05
    ) {
        self.maxJudgeAccuracyDrop = maxJudgeAccuracyDrop
        self.maxErrorRise = maxErrorRise
        self.maxQualityDrop = maxQualityDrop
        self.maxFirstPersonRise = maxFirstPersonRise
        self.maxRefusalRise = maxRefusalRise
        self.maxTruncationRise = maxTruncationRise
        self.failOnSignificant = failOnSignificant
        self.alpha = alpha
    }

    /// The keys of `check:` in `altbench.yml`.
    package static let keys = [
        "max_error_rise", "max_quality_drop", "max_first_person_rise", "max_refusal_rise", "max_truncation_rise",
        "max_judge_accuracy_drop", "fail_on_significant", "alpha",
    ]
}

/// The outcome of `altbench check`: one result per (pair, check), and what made the
/// comparison invalid, if anything.
package struct CheckVerdict: Sendable, Hashable, Encodable {
    /// One check of one pair.
    package struct Result: Sendable, Hashable, Encodable {
        /// Whether a check held. A check that could not be measured is never `passed`: it
        /// fails when the baseline measured it and the run did not, and is `skipped` when the
        /// baseline has nothing to hold the run to.
        package enum Outcome: String, Sendable, Hashable, Codable {
            case passed, failed, skipped
        }

        package var variant: String
        package var maxTokens: Int?
        /// `errors`, `quality`, `first_person`, `refusal`, `truncated` or `significance`.
        package var check: String
        package var outcome: Outcome
        /// What was measured, and on failure why it fails and what to do: "fell: 0.812 → 0.781
        /// (-0.031; may fall 0.020)".
        package var message: String
        /// The measurement alone, without the advice, as the headline quotes it.
        package var summary: String

        package init(variant: String, maxTokens: Int?, check: String, outcome: Outcome, message: String, summary: String? = nil) {
            self.variant = variant
            self.maxTokens = maxTokens
            self.check = check
            self.outcome = outcome
            self.message = message
            self.summary = summary ?? message
        }

        package var passed: Bool { outcome == .passed }
        package var failed: Bool { outcome == .failed }
        package var skipped: Bool { outcome == .skipped }

        enum CodingKeys: String, CodingKey {
            case variant, check, outcome, passed, message
            case maxTokens = "max_tokens"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(variant, forKey: .variant)
            try container.encode(maxTokens, forKey: .maxTokens)
            try container.encode(check, forKey: .check)
            try container.encode(outcome, forKey: .outcome)
            try container.encode(passed, forKey: .passed)
            try container.encode(message, forKey: .message)
        }

        package var label: String { "\(variant) @ \(maxTokens.map(String.init) ?? "none")" }
    }

    package enum Status: String, Sendable, Hashable, Codable {
        case pass, regression, error
    }

    package var comparison: Comparison
    package var thresholds: CheckThresholds
    package var results: [Result]
    /// Why the comparison cannot be judged: a provider, model or dataset mismatch, or a pair
    /// the baseline has and the run lacks.
    package var problems: [Problem]

    /// A reason the comparison cannot be judged: `check` names what must hold ("same
    /// provider as the baseline"), `message` says what differs and what to do.
    package struct Problem: Sendable, Hashable, Codable {
        package var check: String
        package var message: String

        package init(check: String, message: String) {
            self.check = check
            self.message = message
        }
    }

    /// The problems' messages.
    package var errors: [String] { problems.map(\.message) }

    package var status: Status {
        if !errors.isEmpty { return .error }
        return results.contains(where: \.failed) ? .regression : .pass
    }

    /// 0 pass, 1 regression, 2 error or misconfiguration.
    package var exitCode: Int32 {
        switch status {
        case .pass: 0
        case .regression: 1
        case .error: 2
        }
    }

    package var failures: [Result] { results.filter(\.failed) }
    package var skipped: [Result] { results.filter(\.skipped) }

    /// One line per pair, in the comparison's order (the run's, then pairs only the baseline
    /// has): what the terminal table and the JSON's `pairs` show.
    package var pairSummaries: [PairSummary] {
        comparison.pairs.map { pair in
            let mine = results.filter { $0.variant == pair.variant && $0.maxTokens == pair.maxTokens }
            return PairSummary(
                variant: pair.variant, maxTokens: pair.maxTokens, before: pair.before.map(PairSummary.Side.init),
                after: pair.after.map(PairSummary.Side.init), failedChecks: mine.filter(\.failed).map(\.check),
                skippedChecks: mine.filter(\.skipped).map(\.check), requestChange: pair.requestChange)
        }
    }

    /// A pair in one line: trials answered and failed on each side, mean quality, and the
    /// checks that failed or were skipped.
    package struct PairSummary: Sendable, Hashable, Encodable {
        package var variant: String
        package var maxTokens: Int?
        /// nil: the side has no trials for the pair.
        package var before: Side?
        package var after: Side?
        package var failedChecks: [String]
        package var skippedChecks: [String]
        /// Whether the pair's prompt or request settings changed since the baseline
        /// (``PairComparison/requestChange``): shown beside the verdict, never part of it.
        package var requestChange: RequestChange? = nil

        package struct Side: Sendable, Hashable, Encodable {
            package var trials: Int
            package var answered: Int
            package var failed: Int
            package var quality: Double?
            /// The share of answered trials whose quality is form alone (no content part);
            /// nil when none is, so that reports mark the pair's quality only then.
            package var formOnly: Double?

            init(_ row: RunSnapshot.Row) {
                trials = row.n
                answered = row.answered
                failed = row.errors
                quality = row.metrics["quality"]
                formOnly = row.metrics["form_only"]
            }

            enum CodingKeys: String, CodingKey {
                case trials, answered, failed, quality
                case formOnly = "form_only"
            }
        }

        enum CodingKeys: String, CodingKey {
            case variant, before, after
            case maxTokens = "max_tokens"
            case failedChecks = "failed_checks"
            case skippedChecks = "skipped_checks"
            case requestChange = "request_change"
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(variant, forKey: .variant)
            try container.encode(maxTokens, forKey: .maxTokens)
            try container.encode(before, forKey: .before)
            try container.encode(after, forKey: .after)
            try container.encode(failedChecks, forKey: .failedChecks)
            try container.encode(skippedChecks, forKey: .skippedChecks)
            try container.encode(requestChange, forKey: .requestChange)
        }

        package var label: String { "\(variant) @ \(maxTokens.map(String.init) ?? "none")" }
    }

    enum CodingKeys: String, CodingKey {
        case status, headline, errors, results, thresholds, comparison, pairs
        case exitCode = "exit_code"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(exitCode, forKey: .exitCode)
        try container.encode(headline, forKey: .headline)
        try container.encode(errors, forKey: .errors)
        try container.encode(pairSummaries, forKey: .pairs)
        try container.encode(results, forKey: .results)
        try container.encode(thresholds, forKey: .thresholds)
        try container.encode(comparison, forKey: .comparison)
    }

    /// The first thing `altbench check` prints: the verdict and its first reason.
    package var headline: String {
        switch status {
        case .pass:
            let pairs = Set(results.map(\.label)).count
            let held = results.filter(\.passed).count
            let skipped = skipped.count
            let skippedText = skipped == 0 ? "" : ", \(skipped) skipped (not measured in the baseline)"
            return "altbench check: passed — \(held) check\(held == 1 ? "" : "s") over \(pairs) variant × max_tokens pair\(pairs == 1 ? "" : "s") held\(skippedText)."
        case .regression:
            let first = failures[0]
            let more = failures.count > 1 ? " (and \(failures.count - 1) more)" : ""
            return "altbench check: regression — \(first.label): \(first.check) \(first.summary)\(more)"
        case .error:
            let more = errors.count > 1 ? " (and \(errors.count - 1) more)" : ""
            return "altbench check: cannot compare — \(errors[0])\(more)"
        }
    }

    package init(comparison: Comparison, thresholds: CheckThresholds = CheckThresholds()) {
        self.comparison = comparison
        self.thresholds = thresholds
        var problems: [Problem] = comparison.mismatches.map { mismatch in
            let message = switch mismatch.field {
            case "provider" where mismatch.before == "mock" || mismatch.after == "mock":
                "the baseline's provider is \(mismatch.before) and the run's is \(mismatch.after): a mock run says nothing about a real model. Check a run of the same provider, or save a new baseline."
            case "dataset":
                "the dataset differs: baseline \(mismatch.before), run \(mismatch.after). Run on the baseline's dataset, or save a new baseline."
            default:
                "the \(mismatch.field) differs: baseline \(mismatch.before), run \(mismatch.after). Run with the baseline's \(mismatch.field), or save a new baseline."
            }
            return Problem(check: "same \(mismatch.field) as the baseline", message: message)
        }
        var results: [Result] = []
        for pair in comparison.pairs {
            guard let before = pair.before else { continue }
            guard let after = pair.after else {
                problems.append(
                    Problem(
                        check: "\(pair.label) is in the run",
                        message: "the run has no trials for \(pair.label), which the baseline has. Run it, or save a new baseline without it."))
                continue
            }
            results += Self.judge(pair, before: before, after: after, thresholds: thresholds, basis: comparison.basis)
        }
        self.results = results
        self.problems = problems
    }

    static func judge(
        _ pair: PairComparison, before: RunSnapshot.Row, after: RunSnapshot.Row, thresholds: CheckThresholds,
        basis: QualityBasis = .same
    ) -> [Result] {
        var results: [Result] = []
        func add(_ check: String, _ outcome: Result.Outcome, _ message: String, summary: String? = nil) {
            results.append(
                Result(
                    variant: pair.variant, maxTokens: pair.maxTokens, check: check, outcome: outcome, message: message,
                    summary: summary))
        }
        func number(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "–" }
        func points(_ value: Double?) -> String { value.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }
        func allowance(_ limit: Double) -> String {
            limit == 0 ? "may not rise" : "may rise \(String(format: "%.1f", limit * 100)) points"
        }
        /// Why a figure the baseline has is missing from the run, and what to do.
        var missingInRun: String {
            after.answered == 0
                ? "the run answered none of this pair's \(after.n) trials: fix what made them fail (see `errors`) and run again."
                : "the run's scoring differs from the baseline's. Run with the baseline's `hard_fails` and scoring settings, or save a new baseline."
        }
        /// A check the baseline did not measure: skipped, never held.
        func skip(_ check: String, run value: String?) {
            let message =
                if before.answered == 0 {
                    "not measured in the baseline, which answered none of this pair's \(before.n) trials. Save a baseline from a run that answered them."
                } else if let value {
                    "not measured in the baseline (the run measured \(value)). Save a new baseline to check it."
                } else {
                    "measured on neither side: neither run scored it."
                }
            add(check, .skipped, message)
        }

        // Failed trials first: when a pair got no answers, that is the cause of everything else.
        let failedBefore = before.n > 0 ? Double(before.errors) / Double(before.n) : 0
        let failedAfter = after.n > 0 ? Double(after.errors) / Double(after.n) : 0
        let errorRise = failedAfter - failedBefore
        let errorsHeld = errorRise <= thresholds.maxErrorRise + 1e-9
        let errorSummary =
            "\(errorsHeld ? "held" : "rose"): \(before.errors) of \(before.n) trials failed in the baseline, \(after.errors) of \(after.n) in the run (\(String(format: "%+.1f", errorRise * 100)) points; \(allowance(thresholds.maxErrorRise)))"
        var errorMessage = errorSummary
        if !errorsHeld {
            errorMessage += after.answered == 0 ? ". The run got no answer for this pair" : ". \(after.answered) of \(after.n) trials answered"
            if let reason = after.firstError {
                errorMessage += "; first reason: \(reason.trimmingCharacters(in: CharacterSet(charactersIn: ". \n")))"
            }
            errorMessage += ". Fix the cause (the run's report gives each trial's reason) and run again."
        }
        add("errors", errorsHeld ? .passed : .failed, errorMessage, summary: errorSummary)

        if let quality = pair.metric("quality") {
            switch (quality.before, quality.after) {
            case (.some, .some) where !basis.comparable:
                add("quality", .skipped, "not compared: \(basis.note ?? "the two sides were not scored alike").")
            case (let was?, let now?):
                let delta = now - was
                let held = delta >= -thresholds.maxQualityDrop - 1e-9
                add(
                    "quality", held ? .passed : .failed,
                    "\(held ? "held" : "fell"): \(number(was)) → \(number(now)) (\(String(format: "%+.3f", delta)); may fall \(number(thresholds.maxQualityDrop)))"
                )
            case (let was?, nil):
                add("quality", .failed, "not measured: the baseline measured \(number(was)), but \(missingInRun)")
            case (nil, let now):
                skip("quality", run: now.map(number))
            }
        }
        for (check, limit) in [
            (ScoreName.firstPerson, thresholds.maxFirstPersonRise), (ScoreName.refusal, thresholds.maxRefusalRise),
            (ScoreName.truncated, thresholds.maxTruncationRise),
        ] {
            let metric = pair.metric(check)
            switch (metric?.before, metric?.after) {
            case (let was?, let now?):
                let delta = now - was
                let held = delta <= limit + 1e-9
                add(
                    check, held ? .passed : .failed,
                    "\(held ? "held" : "rose"): \(points(was)) → \(points(now)) (\(String(format: "%+.1f", delta * 100)) points; \(allowance(limit)))"
                )
            case (let was?, nil):
                add(check, .failed, "not measured: the baseline measured \(points(was)), but \(missingInRun)")
            case (nil, let now):
                skip(check, run: now.map(points))
            }
        }
        judgeGate(pair, before: before, after: after, thresholds: thresholds, missingInRun: missingInRun, add: add)
        if thresholds.failOnSignificant {
            let regressions = pair.significantRegressions
            if pair.pairedItems == 0 {
                if before.answered > 0 {
                    add(
                        "significance", .failed,
                        "not measured: no item was answered on both sides, so no paired test ran; \(after.answered == 0 ? missingInRun : "the run answered other items than the baseline. Run on the baseline's items.")"
                    )
                } else {
                    skip("significance", run: nil)
                }
            } else if regressions.isEmpty {
                add("significance", .passed, "no significant regression at p < \(thresholds.alpha)")
            } else {
                let list = regressions.map { metric -> String in
                    "\(metric.name) (\(metric.test.map { SignificanceTest.describe(p: $0.p) } ?? "p = ?"))"
                }
                add("significance", .failed, "significantly worse at p < \(thresholds.alpha): \(list.joined(separator: ", "))")
            }
        }
        return results
    }

    /// The judge's accuracy, held to the baseline's over the items judged on both sides;
    /// skipped, with the reason, when only one side was judged or no item was judged on both.
    /// A run that answered none of the pair's trials fails, as every other figure does.
    static func judgeGate(
        _ pair: PairComparison, before: RunSnapshot.Row, after: RunSnapshot.Row, thresholds: CheckThresholds,
        missingInRun: String, add: (String, Result.Outcome, String, String?) -> Void
    ) {
        func number(_ value: Double) -> String { String(format: "%.3f", value) }
        let check = ScoreName.judgeAccuracy
        let baselineJudged = before.metrics[check], runJudged = after.metrics[check]
        let judge = pair.metric(check)
        switch (judge?.before, judge?.after) {
        case (let was?, let now?):
            let delta = now - was
            let held = delta >= -thresholds.maxJudgeAccuracyDrop - 1e-9
            let items = judge?.test.map { $0.items < pair.pairedItems ? " over the \($0.items) items judged on both sides" : "" } ?? ""
            add(
                check, held ? .passed : .failed,
                "\(held ? "held" : "fell"): \(number(was)) → \(number(now))\(items) (\(String(format: "%+.3f", delta)); may fall \(number(thresholds.maxJudgeAccuracyDrop)))",
                nil)
        case _ where baselineJudged != nil && runJudged != nil:
            add(check, .skipped, "not compared: no item was judged on both sides. Judge the same items in both runs to check it.", nil)
        case _ where baselineJudged != nil && after.answered == 0:
            add(check, .failed, "not measured: the baseline's judge gave \(number(baselineJudged!)), but \(missingInRun)", nil)
        case _ where baselineJudged != nil:
            add(
                check, .skipped,
                "not compared: only the baseline was judged (\(number(baselineJudged!))), the run has no judge verdicts. Run with --judge (or altbench judge RUN) and the baseline's judge to check it.",
                nil)
        case _ where runJudged != nil:
            add(
                check, .skipped,
                before.answered == 0
                    ? "not measured in the baseline, which answered none of this pair's \(before.n) trials. Save a baseline from a run that answered them."
                    : "not compared: only the run was judged (\(number(runJudged!))), the baseline has no judge verdicts. Save a new baseline from a judged run to check it.",
                nil)
        default:
            break
        }
    }
}
