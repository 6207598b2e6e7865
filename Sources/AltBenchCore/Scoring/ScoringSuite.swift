/// The scorers altbench runs on every answer, and the way to run them.
public enum ScoringSuite {
    /// Every per-answer scorer, in the order their scores are reported. The composite
    /// `quality` is computed from their scores by ``evaluate(_:scorers:)``.
    public static let standard: [any Scorer] = [
        EmptyScorer(),
        LengthScorer(),
        BrevityScorer(),
        OverLimitScorer(),
        FirstPersonScorer(),
        TruncationScorer(),
        RefusalScorer(),
        RedundantPrefixScorer(),
    ]

    /// Every score of `scorers` on `input`, in scorer order, then `quality` over them.
    ///
    /// Names are unique in the result, because the store keeps one value per name: should two
    /// scorers write the same name, the first one's score is kept.
    public static func evaluate(_ input: ScoringInput, scorers: [any Scorer] = standard) -> [Score] {
        var names = Set<String>()
        var scores: [Score] = []
        for scorer in scorers {
            for score in scorer.score(input) where names.insert(score.name).inserted {
                scores.append(score)
            }
        }
        if !names.contains(ScoreName.quality) {
            scores.append(QualityScorer().combine(scores, settings: input.settings))
        }
        return scores
    }
}
