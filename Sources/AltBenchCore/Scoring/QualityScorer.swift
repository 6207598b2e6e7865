/// The composite `quality` score: the product of two halves, `form` (how the answer reads as
/// alt text) and `content` (how much of the image it gets right), each 0...1 and each stored,
/// so that style alone cannot win: a fluent, short, well-punctuated sentence about the wrong
/// image has form near 1 and content near 0 (altbench scoring research: "report the parts,
/// not only the sum"; WebAIM and W3C: accuracy comes first).
///
/// Rule:
/// - Every weightable score belongs to exactly one half (``halves``). The weights of
///   ``ScoringSettings/weights`` apply within each half, so one flat map serves both.
/// - `form` is the weighted mean of the form parts present (1 with none). If any score named
///   in ``ScoringSettings/hardFails`` flagged the answer (empty, first person, truncated,
///   ...), `form` is 0, `quality` is 0 and both have `passed` false; the detail names the
///   failed checks.
/// - `content` is the weighted mean of the content parts present. A part with no score (no
///   `expected_text`, so no `text_recall`; no judge call, so no `judge_accuracy`) leaves the
///   mean rather than counting as 0. With no content part at all, there is no `content`
///   score.
/// - `quality` is form × content, or form alone when content is unknown; then its detail
///   starts with "form only", and every report marks it.
///
/// Each score maps to a part in 0...1 by its kind (``part(of:)``): graded scores (brevity,
/// hedging, text_recall, keyword_recall, reference_match, bleu4, rougeL, the judge's) give
/// their value; counts (emoji, social_tokens) give 1 / (1 + count), so one emoji halves the
/// part; pass/fail checks (terminal_punctuation, or a hard check given a weight) give 1 when
/// passed and 0 when not. Figures with no 0...1 reading (length, words, readability, ciderD)
/// and the halves themselves cannot be weighted; the configuration rejects them.
public struct QualityScorer: Sendable {
    public init() {}

    /// How a score becomes a 0...1 part of `quality`.
    public enum PartKind: Sendable {
        case graded, count, check
    }

    /// The half of `quality` a part belongs to.
    public enum Half: String, Sendable {
        case form, content
    }

    /// The content parts; every other weightable score is a form part.
    public static let contentParts: Set<String> = [
        ScoreName.textRecall, ScoreName.keywordRecall, ScoreName.referenceMatch, ScoreName.bleu4,
        ScoreName.rougeL, ScoreName.judgeAccuracy, ScoreName.judgeCompleteness,
    ]

    /// The kind of every score that may carry a weight; the rest are figures.
    public static let partKinds: [String: PartKind] = {
        var kinds: [String: PartKind] = [
            ScoreName.brevity: .graded, ScoreName.hedging: .graded, ScoreName.textRecall: .graded,
            ScoreName.keywordRecall: .graded, ScoreName.referenceMatch: .graded, ScoreName.bleu4: .graded,
            ScoreName.rougeL: .graded, ScoreName.judgeAccuracy: .graded, ScoreName.judgeCompleteness: .graded,
            ScoreName.judgeConcision: .graded,
            ScoreName.emoji: .count, ScoreName.socialTokens: .count,
            ScoreName.terminalPunctuation: .check,
        ]
        for check in ScoringSettings.defaultHardFails { kinds[check] = .check }
        return kinds
    }()

    /// The half of every weightable score: form = brevity, hedging, terminal_punctuation,
    /// emoji, social_tokens, judge_concision and any hard check given a weight; content =
    /// text_recall, keyword_recall, reference_match, bleu4, rougeL, judge_accuracy,
    /// judge_completeness.
    public static let halves: [String: Half] = partKinds.keys.reduce(into: [:]) { halves, id in
        halves[id] = contentParts.contains(id) ? .content : .form
    }

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

    /// What one answer's `quality` is made of: each weighted part present, in score order, and
    /// the hard checks that flagged the answer. `altbench compare` keeps these per answer so that
    /// it can compute `quality` again without a part the other side lacks.
    public struct Parts: Sendable, Hashable {
        /// One part: its score id, its value in 0...1 and its weight (> 0).
        public struct Part: Sendable, Hashable {
            public var name: String
            public var value: Double
            public var weight: Double

            public init(name: String, value: Double, weight: Double) {
                self.name = name
                self.value = value
                self.weight = weight
            }
        }

        public var parts: [Part]
        /// The hard checks that flagged the answer, in score order.
        public var failed: [String]

        public init(parts: [Part], failed: [String]) {
            self.parts = parts
            self.failed = failed
        }

        /// These parts without the score ids in `names` (a part, or a hard check).
        public func without(_ names: Set<String>) -> Parts {
            Parts(parts: parts.filter { !names.contains($0.name) }, failed: failed.filter { !names.contains($0) })
        }
    }

    /// The parts of `scores` under `settings`: each score with a weight above 0 and a 0...1
    /// reading, and the hard checks (``ScoringSettings/hardFails``) that flagged the answer.
    /// `form`, `content` and `quality` among `scores` are not parts.
    public static func parts(of scores: [Score], settings: ScoringSettings) -> Parts {
        var parts: [Parts.Part] = []
        var failed: [String] = []
        for score in scores {
            let name = score.name
            if score.isFlagged, settings.hardFails.contains(name) { failed.append(name) }
            guard let weight = settings.weights[name], weight > 0, let kind = partKinds[name],
                let part = part(score, kind: kind)
            else { continue }
            parts.append(Parts.Part(name: name, value: part, weight: weight))
        }
        return Parts(parts: parts, failed: failed)
    }

    /// `form`, `content` (when any content part is present) and `quality` of `scores` under
    /// `settings`, in that order.
    ///
    /// `form`, `content` and `quality` among `scores` are ignored, so the halves can be
    /// computed again from a trial's stored scores alone, e.g. once a judge's scores are
    /// appended to them.
    public static func combine(_ scores: [Score], settings: ScoringSettings) -> [Score] {
        combine(parts(of: scores, settings: settings))
    }

    /// `form`, `content` (when any content part is present) and `quality` of `parts`: the one
    /// rule every `quality` comes from (see the type's documentation).
    public static func combine(_ parts: Parts) -> [Score] {
        var form = Mean()
        var content = Mean()
        for part in parts.parts {
            if contentParts.contains(part.name) {
                content.add(part.name, part.value, weight: part.weight)
            } else {
                form.add(part.name, part.value, weight: part.weight)
            }
        }
        let failed = parts.failed
        let contentValue = content.value
        var result: [Score] = []
        if !failed.isEmpty {
            let detail = "hard fail: " + failed.joined(separator: ", ")
            result.append(Score(name: ScoreName.form, value: 0, passed: false, detail: detail))
            if let contentValue {
                result.append(Score(name: ScoreName.content, value: contentValue, passed: nil, detail: content.detail))
            }
            result.append(
                Score(
                    name: ScoreName.quality, value: 0, passed: false,
                    detail: contentValue == nil ? "form only; " + detail : detail))
            return result
        }
        let formValue = form.value ?? 1
        result.append(Score(name: ScoreName.form, value: formValue, passed: nil, detail: form.detail))
        guard let contentValue else {
            result.append(
                Score(
                    name: ScoreName.quality, value: formValue, passed: true,
                    detail: "form only" + (form.detail.map { ": " + $0 } ?? "")))
            return result
        }
        result.append(Score(name: ScoreName.content, value: contentValue, passed: nil, detail: content.detail))
        result.append(
            Score(
                name: ScoreName.quality, value: formValue * contentValue, passed: true,
                detail: "form \(twoDecimals(formValue)) × content \(twoDecimals(contentValue))"))
        return result
    }

    /// Whether a trial's `quality` came from form alone: it has a `form` score and no
    /// `content` score. A trial scored before the halves existed has neither and is not.
    public static func isFormOnly(_ scores: ScoreSet) -> Bool {
        scores[ScoreName.form] != nil && scores[ScoreName.content] == nil
    }

    /// A weighted mean, with the parts below 1 kept for the detail.
    private struct Mean {
        var total = 0.0
        var weights = 0.0
        var weak: [String] = []

        mutating func add(_ name: String, _ part: Double, weight: Double) {
            total += weight * part
            weights += weight
            if part < 1 { weak.append("\(name) \(QualityScorer.twoDecimals(part))") }
        }

        var value: Double? { weights > 0 ? total / weights : nil }
        var detail: String? { weak.isEmpty ? nil : weak.joined(separator: ", ") }
    }

    static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
