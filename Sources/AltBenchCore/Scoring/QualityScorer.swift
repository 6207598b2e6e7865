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
        partKinds[score.name].flatMap { part(score, kind: $0) }
    }

    static func part(_ score: Score, kind: PartKind) -> Double? {
        switch kind {
        case .graded: min(max(score.value, 0), 1)
        case .count: 1 / (1 + max(score.value, 0))
        case .check: score.passed.map { $0 ? 1 : 0 }
        }
    }

    /// The composite of `scores` under `settings`.
    ///
    /// Each score's weight, kind and hard-fail standing come from the settings' table by the
    /// score's position among the standard ids (``ScoreIndex``), so a composite costs no
    /// hashing; a name outside them is looked up in the settings themselves.
    public func combine(_ scores: [Score], settings: ScoringSettings) -> Score {
        let plan = settings.qualityPlan
        var failed: [String] = []
        var total = 0.0
        var weights = 0.0
        var weak: [(name: String, part: Double)] = []
        var hint = 0
        for score in scores {
            let weight: Double
            let kind: PartKind?
            let hardFail: Bool
            if let position = ScoreIndex.position(of: score.name, hint: &hint) {
                (weight, kind, hardFail) = (plan.weights[position], plan.kinds[position], plan.hardFails[position])
            } else {
                weight = settings.weights[score.name] ?? 0
                kind = Self.partKinds[score.name]
                hardFail = settings.hardFails.contains(score.name)
            }
            if hardFail, score.isFlagged { failed.append(score.name) }
            guard failed.isEmpty, weight > 0, let kind, let part = Self.part(score, kind: kind) else { continue }
            total += weight * part
            weights += weight
            if part < 1 { weak.append((score.name, part)) }
        }
        if !failed.isEmpty {
            return Score(
                name: ScoreName.quality, value: 0, passed: false,
                detail: "hard fail: " + failed.joined(separator: ", "))
        }
        return Score(
            name: ScoreName.quality, value: weights > 0 ? total / weights : 1, passed: true,
            detail: weak.isEmpty ? nil : weak.map { "\($0.name) \(Self.twoDecimals($0.part))" }.joined(separator: ", "))
    }

    static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Each standard score id's weight, part kind and hard-fail standing under one
/// ``ScoringSettings``, by the id's position in ``ScoringSuite/scoreIDs``.
struct QualityPlan: Sendable {
    var weights: [Double]
    var kinds: [QualityScorer.PartKind?]
    var hardFails: [Bool]

    init(weights: [String: Double], hardFails: Set<String>) {
        let ids = ScoreIndex.ids
        self.weights = ids.map { weights[$0] ?? 0 }
        self.kinds = ids.map { QualityScorer.partKinds[$0] }
        self.hardFails = ids.map { hardFails.contains($0) }
    }
}

/// Positions of score names among the standard ids, found without hashing.
///
/// The scorers write their scores in report order, so the search starts where the last one
/// ended (`hint`) and usually matches at once; comparing two equal ids is one comparison of
/// their bits, as both come from ``ScoreName``.
enum ScoreIndex {
    static let ids: [String] = ScoringSuite.scoreIDs

    @inline(__always)
    static func position(of name: String, hint: inout Int) -> Int? {
        let count = ids.count
        var index = hint < count ? hint : 0
        for _ in 0..<count {
            if ids[index] == name {
                hint = index + 1
                return index
            }
            index = index + 1 == count ? 0 : index + 1
        }
        return nil
    }
}
