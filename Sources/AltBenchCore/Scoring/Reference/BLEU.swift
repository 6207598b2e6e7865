import Foundation

/// BLEU-1...4 exactly as pycocoevalcap 1.2's `Bleu(4)` computes them (`bleu/bleu_scorer.py`,
/// David Chiang's scorer as adapted for MS COCO), given the same tokens.
///
/// - N-grams of 1 to 4 tokens; a candidate n-gram counts as correct up to the most times it
///   occurs in any one reference (clipping).
/// - The reference length is the "closest" one: the reference length nearest the candidate's,
///   the shorter on a tie.
/// - Every precision is smoothed as `(correct + 1e-15) / (guess + 1e-9)`, so a candidate too
///   short for 4-grams still gets a small BLEU-4 rather than 0; the brevity penalty
///   `exp(1 − 1/ratio)` applies when `(testlen + 1e-15) / (reflen + 1e-9) < 1`.
/// - Per sentence, BLEU-n is the n-th root of the product of the first n precisions, times
///   the sentence's brevity penalty (the `scores` list `compute_score` returns). The corpus
///   score sums lengths, guesses and correct counts over all sentences first.
public enum BLEU {
    /// What BLEU keeps of one candidate against its references.
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
        return sentenceScores(counts(CandidateNGrams(candidate, corpus: corpus, entry: entry), entry: entry))
    }

    /// BLEU-1...4 of one sentence (pycocoevalcap's per-image list).
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

    /// Corpus BLEU-1...4 over `counts` (pycocoevalcap's `score`).
    public static func corpusScores(_ counts: [Counts]) -> [Double] {
        var testLength = 0, referenceLength = 0
        var guess = [Int](repeating: 0, count: 4), correct = [Int](repeating: 0, count: 4)
        for c in counts {
            testLength += c.testLength
            referenceLength += c.referenceLength
            for k in 0..<4 {
                guess[k] += c.guess[k]
                correct[k] += c.correct[k]
            }
        }
        var scores = [Double](repeating: 0, count: 4)
        var bleu = 1.0
        for k in 0..<4 {
            bleu *= (Double(correct[k]) + tiny) / (Double(guess[k]) + small)
            scores[k] = Foundation.pow(bleu, 1.0 / Double(k + 1))
        }
        let ratio = (Double(testLength) + tiny) / (Double(referenceLength) + small)
        if ratio < 1 {
            for k in 0..<4 { scores[k] *= Foundation.exp(1 - 1 / ratio) }
        }
        return scores
    }

    /// The counts of `candidate` against the references of corpus entry `entry`.
    static func counts(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry) -> Counts {
        candidate.withView(for: entry) { counts($0, entry: entry) }
    }

    static func counts(_ candidate: NGramView, entry: ReferenceCorpus.Entry) -> Counts {
        let length = candidate.length
        let correct = correctCounts(candidate, entry: entry)
        return Counts(
            testLength: length, referenceLength: closestLength(length, entry: entry),
            guess: (0..<4).map { max(0, length - $0) }, correct: [correct.0, correct.1, correct.2, correct.3])
    }

    /// Clipped matching n-grams of each order, 1...4.
    static func correctCounts(_ candidate: NGramView, entry: ReferenceCorpus.Entry) -> (Int, Int, Int, Int) {
        var correct = (0, 0, 0, 0)
        entry.maxCounts.withUnsafeBufferPointer { maxCounts in
            for order in 0..<4 {
                var sum = 0
                for k in candidate.orderRange(order) {
                    let gram = candidate.grams[k]
                    guard gram.union >= 0 else { continue }
                    sum += Int(min(gram.count, maxCounts[Int(gram.union)]))
                }
                switch order {
                case 0: correct.0 = sum
                case 1: correct.1 = sum
                case 2: correct.2 = sum
                default: correct.3 = sum
                }
            }
        }
        return correct
    }

    /// The reference length closest to `length`, the shorter on a tie:
    /// `min((abs(l - testlen), l) for l in reflen)[1]`.
    static func closestLength(_ length: Int, entry: ReferenceCorpus.Entry) -> Int {
        var closest = entry.referenceLengths[0]
        for l in entry.referenceLengths.dropFirst() {
            let d = abs(l - length), best = abs(closest - length)
            if d < best || (d == best && l < closest) { closest = l }
        }
        return closest
    }

    /// BLEU-4 of one sentence: `sentenceScores(counts(candidate, entry: entry))[3]`, with the
    /// same arithmetic, without the arrays.
    static func sentenceBLEU4(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry) -> Double {
        candidate.withView(for: entry) { sentenceBLEU4($0, entry: entry) }
    }

    static func sentenceBLEU4(_ candidate: NGramView, entry: ReferenceCorpus.Entry) -> Double {
        let length = candidate.length
        let correct = correctCounts(candidate, entry: entry)
        var bleu = 1.0
        bleu *= (Double(correct.0) + tiny) / (Double(max(0, length)) + small)
        bleu *= (Double(correct.1) + tiny) / (Double(max(0, length - 1)) + small)
        bleu *= (Double(correct.2) + tiny) / (Double(max(0, length - 2)) + small)
        bleu *= (Double(correct.3) + tiny) / (Double(max(0, length - 3)) + small)
        var score = Foundation.pow(bleu, 1.0 / Double(4))
        let ratio = (Double(length) + tiny) / (Double(closestLength(length, entry: entry)) + small)
        if ratio < 1 { score *= Foundation.exp(1 - 1 / ratio) }
        return score
    }
}
