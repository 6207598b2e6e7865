import Foundation

/// BLEU-1...4, ROUGE-L and CIDEr-D of a set of answers against a run's human references,
/// computed as pycocoevalcap 1.2's `compute_score` functions compute them for a whole run.
///
/// Every answer is one "image" of pycocoevalcap: BLEU sums its counts over all answers
/// (``BLEU``), ROUGE-L and CIDEr-D average the per-answer scores (numpy's pairwise mean, to
/// the last bit). CIDEr-D's document frequencies and `ref_len` always come from the corpus,
/// never from the answers scored, so every model and prompt of a run is weighed with the same
/// idf; when the answers cover each item of the corpus exactly once, that is exactly
/// pycocoevalcap's figure. Answers whose item has no references are skipped and counted. An
/// answer with no tokens is scored as pycocoevalcap scores an empty caption: 0 on all three
/// (its ROUGE-L splits it into one empty token, which only an empty reference matches).
///
/// Texts are tokenized with ``CaptionTokenizer`` (pycocoevalcap's PTB tokenizer); the
/// `tokenized` entry points take the tokens as given, for comparing with pycocoevalcap on
/// identical tokens.
public enum ReferenceMetrics {
    /// The scores of one answer against its own item's references.
    public struct ItemScores: Sendable, Hashable {
        public var itemID: String
        /// BLEU-1...4 of this answer alone: pycocoevalcap's per-image BLEU list.
        public var bleu: [Double]
        public var rougeL: Double
        public var ciderD: Double
        /// The answer's BLEU counts, which the corpus BLEU adds up.
        public var counts: BLEU.Counts

        public var bleu4: Double { bleu[3] }
    }

    /// Corpus figures and the scores of each answer.
    public struct Result: Sendable, Hashable {
        /// Corpus BLEU-1...4 (pycocoevalcap's `Bleu(4)` score).
        public var bleu: [Double]
        /// Mean ROUGE-L F (β = 1.2).
        public var rougeL: Double
        /// Mean CIDEr-D (σ = 6).
        public var ciderD: Double
        /// One entry per scored answer, in input order.
        public var items: [ItemScores]
        /// Answers left out because their item has no references in the corpus.
        public var skipped: Int

        /// Corpus BLEU-4.
        public var bleu4: Double { bleu[3] }
        /// Answers scored.
        public var count: Int { items.count }
    }

    /// Scores `answers` (item id and answer text) against `corpus`; `nil` when no answer's item
    /// has references.
    public static func score(_ answers: [(itemID: String, text: String)], corpus: ReferenceCorpus) -> Result? {
        score(tokenized: answers.map { ($0.itemID, CaptionTokenizer.tokenize($0.text)) }, corpus: corpus)
    }

    /// Scores answers already split into tokens; `nil` when no answer's item has references.
    public static func score(
        tokenized answers: [(itemID: String, tokens: [String])], corpus: ReferenceCorpus
    ) -> Result? {
        var items: [ItemScores] = []
        var skipped = 0
        for answer in answers {
            guard let entry = corpus.entry(answer.itemID) else {
                skipped += 1
                continue
            }
            items.append(itemScores(answer.tokens, itemID: answer.itemID, entry: entry, corpus: corpus))
        }
        guard !items.isEmpty else { return nil }
        return Result(
            bleu: BLEU.corpusScores(items.map(\.counts)), rougeL: numpyMean(items.map(\.rougeL)),
            ciderD: numpyMean(items.map(\.ciderD)), items: items, skipped: skipped)
    }

    /// The scores of the answer `tokens` against `entry`, the references of `itemID`.
    static func itemScores(
        _ tokens: [String], itemID: String, entry: ReferenceCorpus.Entry, corpus: ReferenceCorpus
    ) -> ItemScores {
        let candidate = CandidateNGrams(tokens, entry: entry, corpus: corpus)
        let counts = BLEU.counts(candidate, entry: entry)
        return ItemScores(
            itemID: itemID, bleu: BLEU.sentenceScores(counts), rougeL: RougeL.score(candidate, entry: entry),
            ciderD: CiderD.score(candidate, entry: entry), counts: counts)
    }

    /// pycocoevalcap's whole evaluation on tokens: `candidates[i]` against `references[i]`,
    /// with CIDEr-D's idf over these references alone; `nil` when there is nothing to score.
    public static func evaluate(candidates: [[String]], references: [[[String]]]) -> Result? {
        precondition(candidates.count == references.count, "one candidate per image")
        let ids = candidates.indices.map(String.init)
        let corpus = ReferenceCorpus(tokenizedItems: Array(zip(ids, references)).map { (id: $0.0, references: $0.1) })
        return score(tokenized: Array(zip(ids, candidates)).map { (itemID: $0.0, tokens: $0.1) }, corpus: corpus)
    }

    /// Mean CIDEr-D of `answers` against `corpus` alone (the costliest metric, for benchmarks);
    /// `nil` when no answer's item has references.
    public static func ciderD(_ answers: [(itemID: String, text: String)], corpus: ReferenceCorpus) -> Double? {
        let scores = answers.compactMap { answer in
            corpus.entry(answer.itemID).map { entry in
                CiderD.score(CandidateNGrams(CaptionTokenizer.tokenize(answer.text), entry: entry, corpus: corpus), entry: entry)
            }
        }
        return scores.isEmpty ? nil : numpyMean(scores)
    }

    /// `np.mean` of `values` to the last bit: numpy's pairwise summation (blocks of 8
    /// accumulators up to 128 values, halves above), from 0, divided by the count.
    static func numpyMean(_ values: [Double]) -> Double {
        (0.0 + pairwiseSum(values[...])) / Double(values.count)
    }

    private static func pairwiseSum(_ a: ArraySlice<Double>) -> Double {
        let n = a.count, lo = a.startIndex
        if n < 8 {
            var res = 0.0
            for x in a { res += x }
            return res
        } else if n <= 128 {
            var r = Array(a[lo..<(lo + 8)])
            var i = 8
            while i < n - n % 8 {
                for j in 0..<8 { r[j] += a[lo + i + j] }
                i += 8
            }
            var res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
            while i < n {
                res += a[lo + i]
                i += 1
            }
            return res
        } else {
            var n2 = n / 2
            n2 -= n2 % 8
            return pairwiseSum(a[lo..<(lo + n2)]) + pairwiseSum(a[(lo + n2)...])
        }
    }
}

/// An answer's tokens as the three metrics read them against one item: their numbers in the
/// corpus vocabulary, pycocoevalcap's n-gram counts (``NGram/counts(_:)``), what the item's
/// references hold of each n-gram, and the answer's CIDEr-D vector with the corpus's idf.
struct CandidateNGrams {
    let tokens: [String]
    /// ROUGE-L's tokens (``RougeL/split(_:)``) by their numbers in the corpus
    /// ``ReferenceCorpus/vocabulary``. A token the corpus lacks gets a number past the
    /// vocabulary's, the same for the same token, so that its n-grams still count (matching
    /// nothing, with document frequency 0).
    let numbers: [Int32]
    let ngrams: [NGram]
    /// By n-gram, where the item's references hold it in `entry.held`, or `nil`: looked up
    /// once for BLEU and CIDEr-D.
    let held: [Int?]
    let vector: CiderD.Vector

    init(_ tokens: [String], entry: ReferenceCorpus.Entry, corpus: ReferenceCorpus) {
        self.tokens = tokens
        var unseen: [String: Int32] = [:]
        numbers = RougeL.split(tokens).map { token in
            if let number = corpus.vocabulary[token] ?? unseen[token] { return number }
            unseen[token] = Int32(corpus.vocabulary.count + unseen.count)
            return unseen[token]!
        }
        ngrams = NGram.counts(tokens.isEmpty ? [] : numbers)
        held = ngrams.map { entry.ngrams[$0.key] }
        let frequencies = zip(ngrams, held).map { ngram, held in
            held.map { entry.held[$0].documentFrequency } ?? corpus.documentFrequencies[ngram.key] ?? 0
        }
        vector = CiderD.vector(ngrams, documentFrequencies: frequencies, refLen: corpus.refLen)
    }
}

// MARK: - Per-answer scoring

extension ReferenceMetrics {
    /// What the per-answer reference scorers report: the answer's BLEU-4, ROUGE-L and CIDEr-D
    /// against the references of its item, in the run's corpus when that holds the item,
    /// otherwise in a corpus of this item alone (where CIDEr-D is 0 by definition). An answer
    /// with no tokens scores 0 on all three. `nil` when the item has no references, so the
    /// scorer writes no score. Worked out once per answer, for the three scorers.
    static func answerFigures(_ input: ScoringInput) -> (bleu4: Double, rougeL: Double, ciderD: Double)? {
        input.referenceFigures.value {
            let corpus = input.corpus.flatMap { $0.contains(input.item.id) ? $0 : nil }
                ?? ReferenceCorpus(items: [input.item])
            guard let entry = corpus.entry(input.item.id) else { return nil }
            let tokens = CaptionTokenizer.tokenize(input.text)
            guard !tokens.isEmpty else { return (0, 0, 0) }
            let scores = itemScores(tokens, itemID: input.item.id, entry: entry, corpus: corpus)
            return (scores.bleu4, scores.rougeL, scores.ciderD)
        }
    }
}
