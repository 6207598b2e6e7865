import Foundation

/// The limits `altbench check` holds a run to, set under `check:` in `altbench.yml`.
public struct CheckThresholds: Sendable, Hashable, Codable {
    /// How far mean `quality` may fall (0.02: from 0.80 to 0.78).
    public var maxQualityDrop: Double
    /// How far each rate may rise, as a share (0.02 is 2 points).
    public var maxFirstPersonRise: Double
    public var maxRefusalRise: Double
    public var maxTruncationRise: Double
    /// Whether any statistically significant regression fails the check.
    public var failOnSignificant: Bool
    /// The level below which a paired test's p-value is significant.
    public var alpha: Double

    enum CodingKeys: String, CodingKey {
        case alpha
        case maxQualityDrop = "max_quality_drop"
        case maxFirstPersonRise = "max_first_person_rise"
        case maxRefusalRise = "max_refusal_rise"
        case maxTruncationRise = "max_truncation_rise"
        case failOnSignificant = "fail_on_significant"
    }

    public init(
        maxQualityDrop: Double = 0.02, maxFirstPersonRise: Double = 0, maxRefusalRise: Double = 0,
        maxTruncationRise: Double = 0.02, failOnSignificant: Bool = true, alpha: Double = 0.05
    ) {
        self.maxQualityDrop = maxQualityDrop
        self.maxFirstPersonRise = maxFirstPersonRise
        self.maxRefusalRise = maxRefusalRise
        self.maxTruncationRise = maxTruncationRise
        self.failOnSignificant = failOnSignificant
        self.alpha = alpha
    }

    /// The keys of `check:` in `altbench.yml`.
    public static let keys = [
        "max_quality_drop", "max_first_person_rise", "max_refusal_rise", "max_truncation_rise", "fail_on_significant",
        "alpha",
    ]
}

/// The outcome of `altbench check`: one result per (pair, check), and what made the
/// comparison invalid, if anything.
public struct CheckVerdict: Sendable, Hashable, Encodable {
    /// One check of one pair.
    public struct Result: Sendable, Hashable, Codable {
        public var variant: String
        public var maxTokens: Int?
        /// `quality`, `first_person`, `refusal`, `truncated` or `significance`.
        public var check: String
        public var passed: Bool
        /// What was measured, and on failure why it fails: "0.812 → 0.781 (−0.031, limit −0.02)".
        public var message: String

        enum CodingKeys: String, CodingKey {
            case variant, check, passed, message
            case maxTokens = "max_tokens"
        }

        public var label: String { "\(variant) @ \(maxTokens.map(String.init) ?? "none")" }
    }

    public enum Status: String, Sendable, Hashable, Codable {
        case pass, regression, error
    }

    public var comparison: Comparison
    public var thresholds: CheckThresholds
    public var results: [Result]
    /// Why the comparison cannot be judged: a provider, model or dataset mismatch, or a pair
    /// the baseline has and the run lacks.
    public var problems: [Problem]

    /// A reason the comparison cannot be judged: `check` names what must hold ("same
    /// provider as the baseline"), `message` says what differs and what to do.
    public struct Problem: Sendable, Hashable, Codable {
        public var check: String
        public var message: String

        public init(check: String, message: String) {
            self.check = check
            self.message = message
        }
    }

    /// The problems' messages.
    public var errors: [String] { problems.map(\.message) }

    public var status: Status {
        if !errors.isEmpty { return .error }
        return results.contains { !$0.passed } ? .regression : .pass
    }

    /// 0 pass, 1 regression, 2 error or misconfiguration.
    public var exitCode: Int32 {
        switch status {
        case .pass: 0
        case .regression: 1
        case .error: 2
        }
    }

    public var failures: [Result] { results.filter { !$0.passed } }

    enum CodingKeys: String, CodingKey {
        case status, headline, errors, results, thresholds, comparison
        case exitCode = "exit_code"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(exitCode, forKey: .exitCode)
        try container.encode(headline, forKey: .headline)
        try container.encode(errors, forKey: .errors)
        try container.encode(results, forKey: .results)
        try container.encode(thresholds, forKey: .thresholds)
        try container.encode(comparison, forKey: .comparison)
    }

    /// The first thing `altbench check` prints: the verdict and its first reason.
    public var headline: String {
        switch status {
        case .pass:
            let pairs = Set(results.map(\.label)).count
            return "altbench check: passed — \(results.count) checks over \(pairs) variant × max_tokens pairs held."
        case .regression:
            let first = failures[0]
            let more = failures.count > 1 ? " (and \(failures.count - 1) more)" : ""
            return "altbench check: regression — \(first.label): \(first.check) \(first.message)\(more)"
        case .error:
            let more = errors.count > 1 ? " (and \(errors.count - 1) more)" : ""
            return "altbench check: cannot compare — \(errors[0])\(more)"
        }
    }

    public init(comparison: Comparison, thresholds: CheckThresholds = CheckThresholds()) {
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
            guard pair.before != nil else { continue }
            guard pair.after != nil else {
                problems.append(
                    Problem(
                        check: "\(pair.label) is in the run",
                        message: "the run has no trials for \(pair.label), which the baseline has. Run it, or save a new baseline without it."))
                continue
            }
            results += Self.judge(pair, thresholds: thresholds)
        }
        self.results = results
        self.problems = problems
    }

    static func judge(_ pair: PairComparison, thresholds: CheckThresholds) -> [Result] {
        var results: [Result] = []
        func add(_ check: String, _ passed: Bool, _ message: String) {
            results.append(Result(variant: pair.variant, maxTokens: pair.maxTokens, check: check, passed: passed, message: message))
        }
        func number(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "–" }
        func points(_ value: Double?) -> String { value.map { String(format: "%.1f%%", $0 * 100) } ?? "–" }

        if let quality = pair.metric("quality") {
            if let delta = quality.delta {
                let passed = delta >= -thresholds.maxQualityDrop - 1e-9
                add(
                    "quality", passed,
                    "\(passed ? "held" : "fell"): \(number(quality.before)) → \(number(quality.after)) (\(String(format: "%+.3f", delta)); may fall \(number(thresholds.maxQualityDrop)))")
            } else {
                add("quality", true, "not measured on both sides")
            }
        }
        for (check, limit) in [
            (ScoreName.firstPerson, thresholds.maxFirstPersonRise), (ScoreName.refusal, thresholds.maxRefusalRise),
            (ScoreName.truncated, thresholds.maxTruncationRise),
        ] {
            guard let metric = pair.metric(check), let delta = metric.delta else {
                add(check, true, "not measured on both sides")
                continue
            }
            let passed = delta <= limit + 1e-9
            let allowed = limit == 0 ? "may not rise" : "may rise \(String(format: "%.1f", limit * 100)) points"
            add(
                check, passed,
                "\(passed ? "held" : "rose"): \(points(metric.before)) → \(points(metric.after)) (\(String(format: "%+.1f", delta * 100)) points; \(allowed))")
        }
        if thresholds.failOnSignificant {
            let regressions = pair.significantRegressions
            if regressions.isEmpty {
                add("significance", true, "no significant regression at p < \(thresholds.alpha)")
            } else {
                let list = regressions.map { metric -> String in
                    let p = metric.test.map { String(format: "%.3g", $0.p) } ?? "?"
                    return "\(metric.name) (p = \(p))"
                }
                add("significance", false, "significantly worse at p < \(thresholds.alpha): \(list.joined(separator: ", "))")
            }
        }
        return results
    }
}
