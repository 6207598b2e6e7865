/// CIDEr-D (σ = 6) of the answer against its item's human references (`ciderD`), as
/// pycocoevalcap 1.2's `Cider` scores one image within a run, on ``CaptionTokenizer`` tokens.
/// See ``CiderD``.
///
/// The idf comes from the run's ``ReferenceCorpus`` (`input.corpus`) when it holds the item,
/// so an answer's CIDEr-D is the per-image value pycocoevalcap reports when it scores the
/// whole run at once. Without such a corpus the item's references form a corpus of one
/// image, where `ref_len = log 1 = 0` makes every weight 0: the score is then 0 for any
/// answer, by definition, not a judgement. Scale: 0...10 (pycocoevalcap multiplies the
/// cosine similarities by 10; 10 needs a copy of every reference), not 0...1, so `quality`
/// does not weigh it.
///
/// `passed` is nil. No score when the item has no references. An answer with no tokens
/// scores 0, as it does in pycocoevalcap.
public struct CiderDScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let figures = ReferenceMetrics.answerFigures(input) else { return [] }
        return [Score(name: ScoreName.ciderD, value: figures.ciderD)]
    }
}
