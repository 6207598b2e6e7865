import Foundation

/// BLEU-1...4 exactly as pycocoevalcap 1.2's `Bleu(4)` computes them (`bleu/bleu_scorer.py`,
/// David Chiang's scorer as adapted for MS COCO), given the same tokens.
///
/// - N-grams of 1 to 4 tokens; a candidate n-gram counts as correct up to the most times it
///   occurs in any one reference (clipping, `cook_refs`' `maxcounts`).
/// - The reference length is the "closest" one: the reference length nearest the candidate's,
///   the shorter on a tie.
/// - Every precision is smoothed as `(correct + 1e-15) / (guess + 1e-9)`, so a candidate too
///   short for 4-grams still gets a small BLEU-4 rather than 0; the brevity penalty
///   `exp(1 − 1/ratio)` applies when `(testlen + 1e-15) / (reflen + 1e-9) < 1`.
/// - Per sentence, BLEU-n is the n-th root of the product of the first n precisions, times
///   the sentence's brevity penalty (the `scores` list `compute_score` returns). The corpus
///   score sums lengths, guesses and correct counts over all sentences first.
public enum BLEU {
    /// What BLEU keeps of one candidate against its references (`cook_test`).
    public struct Counts: Sendable, Hashable {
        /// Candidate tokens.
        public var testLength: Int
        /// The closest reference length.
        public var referenceLength: Int
        /// Candidate n-grams of each order, 1...4.
        public var guess: [Int]
        /// Clipped matching n-grams of each order, 1...4.
        public var correct: [Int]

        public init(testLength: Int, referenceLength: Int, guess: [Int], correct: [Int]) {
            self.testLength = testLength
            self.referenceLength = referenceLength
            self.guess = guess
            self.correct = correct
        }
    }

    static let tiny = 1e-15
    static let small = 1e-9

    /// BLEU-1...4 of `candidate` against `references`, all as tokens, as one sentence.
    public static func sentenceScores(candidate: [String], references: [[String]]) -> [Double] {
        guard !references.isEmpty else { return [0, 0, 0, 0] }
        let corpus = ReferenceCorpus(tokenizedItems: [(id: "", references: references)])
        let entry = corpus.entries[0]
        return sentenceScores(counts(CandidateNGrams(candidate, entry: entry, corpus: corpus), entry: entry))
    }

    /// BLEU-1...4 of one sentence (pycocoevalcap's per-image list), or of a corpus whose
    /// counts have been added up.
    public static func sentenceScores(_ c: Counts) -> [Double] {
        var scores = [Double](repeating: 0, count: 4)
        var bleu = 1.0
        for k in 0..<4 {
            bleu *= (Double(c.correct[k]) + tiny) / (Double(c.guess[k]) + small)
            scores[k] = Foundation.pow(bleu, 1.0 / Double(k + 1))
        }
        let ratio = (Double(c.testLength) + tiny) / (Double(c.referenceLength) + small)
        if ratio < 1 {
            for k in 0..<4 { scores[k] *= Foundation.exp(1 - 1 / ratio) }
        }
        return scores
    }

    /// Corpus BLEU-1...4 over `counts` (pycocoevalcap's `score`): the sentence formula on the
    /// summed counts.
    public static func corpusScores(_ counts: [Counts]) -> [Double] {
        var total = Counts(testLength: 0, referenceLength: 0, guess: [0, 0, 0, 0], correct: [0, 0, 0, 0])
        for c in counts {
            total.testLength += c.testLength
            total.referenceLength += c.referenceLength
            for k in 0..<4 {
                total.guess[k] += c.guess[k]
                total.correct[k] += c.correct[k]
            }
        }
        return sentenceScores(total)
    }

    /// `cook_test` of `candidate` against the references of `entry`, with the "closest"
    /// reference length: `min((abs(l - testlen), l) for l in reflen)[1]`.
    static func counts(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry) -> Counts {
        let length = candidate.tokens.count
        var correct = [0, 0, 0, 0]
        for (ngram, held) in zip(candidate.ngrams, candidate.held) {
            correct[ngram.order - 1] += min(held.map { entry.held[$0].maxCount } ?? 0, ngram.count)
        }
        let closest = entry.references.map(\.tokens.count).min { (abs($0 - length), $0) < (abs($1 - length), $1) }!
        return Counts(
            testLength: length, referenceLength: closest, guess: (1...4).map { max(0, length - $0 + 1) },
            correct: correct)
    }
}
