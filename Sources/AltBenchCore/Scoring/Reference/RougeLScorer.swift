/// ROUGE-L F (β = 1.2) of the answer against its item's human references (`rougeL`), as
/// pycocoevalcap 1.2's `Rouge` scores one image, on ``CaptionTokenizer`` tokens: the longest
/// common subsequence gives a precision and a recall per reference, and the best precision
/// and best recall combine into F. See ``RougeL``.
///
/// The value is a figure in 0...1 (`passed` is nil). No score when the item has no
/// references. An answer with no tokens (empty, or punctuation only) scores 0: pycocoevalcap
/// splits it into one empty token, which matches nothing, so it agrees except against a
/// reference that is itself empty of tokens (there it would give 1). The references come
/// pre-tokenized from the run's ``ReferenceCorpus`` when it holds the item.
public struct RougeLScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let figures = ReferenceMetrics.answerFigures(input) else { return [] }
        return [Score(name: ScoreName.rougeL, value: figures.rougeL)]
    }
}
