/// BLEU-4 of the answer against its item's human references (`bleu4`), as pycocoevalcap 1.2
/// scores one image: the per-image BLEU-4 of `Bleu(4).compute_score` (index 3 of its score
/// list), on ``CaptionTokenizer`` tokens. See ``BLEU`` for the formula; the run-level corpus
/// BLEU-4 is ``ReferenceMetrics``'s.
///
/// The value is a figure in 0...1 (`passed` is nil). No score when the item has no
/// references. An answer with no tokens (empty, or punctuation only) scores 0, as it does in
/// pycocoevalcap. The references come pre-tokenized from the run's ``ReferenceCorpus`` when it
/// holds the item; otherwise they are tokenized for this answer alone.
public struct Bleu4Scorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let figures = ReferenceMetrics.answerFigures(input) else { return [] }
        return [Score(name: ScoreName.bleu4, value: figures.bleu4)]
    }
}
