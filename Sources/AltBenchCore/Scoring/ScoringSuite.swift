/// The scorers altbench runs on every answer, and the way to run them.
public enum ScoringSuite {
    /// The v1 scorers, in the order their scores are reported: empty, chars, words, brevity,
    /// over_limit, first_person, truncated, refusal, redundant_prefix.
    public static let v1: [any Scorer] = [
        EmptyScorer(),
        LengthScorer(),
        BrevityScorer(),
        OverLimitScorer(),
        FirstPersonScorer(),
        TruncationScorer(),
        RefusalScorer(),
        RedundantPrefixScorer(),
    ]

    /// Every score of `scorers` on `input`, in scorer order.
    ///
    /// Names are unique in the result, because the store keeps one value per name: should two
    /// scorers write the same name, the first one's score is kept.
    public static func evaluate(_ input: ScoringInput, scorers: [any Scorer] = v1) -> [Score] {
        var names = Set<String>()
        var scores: [Score] = []
        for scorer in scorers {
            for score in scorer.score(input) where names.insert(score.name).inserted {
                scores.append(score)
            }
        }
        return scores
    }
}
