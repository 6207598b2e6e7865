/// The composite `quality` score: a weighted mean of the 0...1 parts, forced to 0 by any hard
/// fail (altbench scoring research: "report the parts, not only the sum").
///
/// Rule:
/// - If any score named in ``ScoringSettings/hardFails`` flagged the answer (empty, first
///   person, truncated, ...), `quality` is 0 and `passed` is false; the detail names the
///   failed checks.
/// - Otherwise `quality` is Σ wᵢ·partᵢ / Σ wᵢ over the parts present with a weight above 0
///   (``ScoringSettings/weights``), and `passed` is true. A part with no score (no
///   `expected_text`, so no `text_recall`) leaves the mean rather than counting as 0. With
///   no weighted part at all, `quality` is 1.
///
/// Each score maps to a part in 0...1 by its kind (``part(of:)``): graded scores (brevity,
/// hedging, text_recall, keyword_recall, bleu4, rougeL) give their value; counts (emoji,
/// social_tokens) give 1 / (1 + count), so one emoji halves the part; pass/fail checks
/// (terminal_punctuation, or a hard check given a weight) give 1 when passed and 0 when not.
/// Figures with no 0...1 reading (length, words, readability, ciderD) cannot be weighted;
/// the configuration rejects them.
public struct QualityScorer: Sendable {
    public init() {}

    /// How a score becomes a 0...1 part of `quality`.
    public enum PartKind: Sendable {
        case graded, count, check
    }

    /// The kind of every score that may carry a weight; the rest are figures.
    public static let partKinds: [String: PartKind] = {
        var kinds: [String: PartKind] = [
            ScoreName.brevity: .graded, ScoreName.hedging: .graded, ScoreName.textRecall: .graded,
            ScoreName.keywordRecall: .graded, ScoreName.bleu4: .graded, ScoreName.rougeL: .graded,
            ScoreName.emoji: .count, ScoreName.socialTokens: .count,
            ScoreName.terminalPunctuation: .check,
        ]
        for check in ScoringSettings.defaultHardFails { kinds[check] = .check }
        return kinds
    }()

    /// `score` as a part in 0...1, or `nil` when it is a figure.
    public static func part(of score: Score) -> Double? {
        switch partKinds[score.name] {
        case .graded: min(max(score.value, 0), 1)
        case .count: 1 / (1 + max(score.value, 0))
        case .check: score.passed.map { $0 ? 1 : 0 }
        case nil: nil
        }
    }

    /// `quality` from the other scores of one answer.
    public func combine(_ scores: [Score], settings: ScoringSettings) -> Score {
        let failed = scores.filter { $0.isFlagged && settings.hardFails.contains($0.name) }.map(\.name)
        if !failed.isEmpty {
            return Score(
                name: ScoreName.quality, value: 0, passed: false,
                detail: "hard fail: " + failed.joined(separator: ", "))
        }
        var total = 0.0
        var weights = 0.0
        var weak: [String] = []
        for score in scores {
            guard let weight = settings.weights[score.name], weight > 0, let part = Self.part(of: score) else {
                continue
            }
            total += weight * part
            weights += weight
            if part < 1 { weak.append("\(score.name) \(Self.twoDecimals(part))") }
        }
        return Score(
            name: ScoreName.quality, value: weights > 0 ? total / weights : 1, passed: true,
            detail: weak.isEmpty ? nil : weak.joined(separator: ", "))
    }

    static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
