import Foundation

/// CIDEr-D exactly as pycocoevalcap 1.2's `Cider` computes it (`cider/cider_scorer.py`,
/// Vedantam et al. 2015, with the "-D" changes: clipping and a length penalty), given the same
/// tokens and the same corpus.
///
/// - Each sentence is a tf-idf vector per n-gram order (n = 1...4): weight
///   `tf × (ref_len − log max(1, df))`, where `df` counts the images whose references contain
///   the n-gram and `ref_len = log(number of images)` (``ReferenceCorpus``). An n-gram no
///   reference contains gets the full `ref_len`.
/// - Against one reference, order n scores `Σ min(w_cand, w_ref) · w_ref` over the
///   candidate's n-grams (the clipping), divided by both norms when neither is 0, times the
///   Gaussian length penalty `e^(−δ² / 2σ²)` with σ = 6. Quirk kept: δ is the difference of
///   the sentences' *bigram* counts (pycocoevalcap's `counts2vec` adds up `length` at order
///   index 1), i.e. of their token counts whenever both have at least one bigram.
/// - The image's score is the mean over the 4 orders, summed over the references, divided by
///   the number of references, times 10. The corpus figure is the mean over images.
public enum CiderD {
    public static let sigma = 6.0

    /// CIDEr-D of `candidate` (tokens) for the corpus item `itemID`, with the corpus's idf;
    /// `nil` when the corpus does not hold the item.
    public static func score(candidate: [String], itemID: String, corpus: ReferenceCorpus) -> Double? {
        guard let entry = corpus.entry(itemID) else { return nil }
        return score(CandidateNGrams(candidate, entry: entry, corpus: corpus), entry: entry)
    }

    /// A sentence's tf-idf vector, as `counts2vec` makes it.
    struct Vector: Sendable {
        /// The weight of each n-gram, in the order of the n-grams given.
        var weights: [Double]
        /// The vector's norm for each order.
        var norms: [Double]
        /// The number of bigrams.
        var length: Int
    }

    /// `counts2vec` of `ngrams` (``NGram/counts(_:)``, in its order), given the document
    /// frequency of each and the corpus's `ref_len`.
    static func vector(_ ngrams: [NGram], documentFrequencies: [Int], refLen: Double) -> Vector {
        var vector = Vector(weights: [], norms: [0, 0, 0, 0], length: 0)
        for (ngram, documentFrequency) in zip(ngrams, documentFrequencies) {
            let df = Foundation.log(max(1.0, Double(documentFrequency)))
            let weight = Double(ngram.count) * (refLen - df)
            vector.weights.append(weight)
            vector.norms[ngram.order - 1] += weight * weight
            if ngram.order == 2 { vector.length += ngram.count }
        }
        vector.norms = vector.norms.map { $0.squareRoot() }
        return vector
    }

    /// CIDEr-D of `candidate` against the references of `entry` (`compute_cider` for one
    /// image, with `sim` against each reference).
    static func score(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry) -> Double {
        let hyp = candidate.vector
        // sim's clipped dot products, reference r's order n at 4r + n, over the candidate's
        // n-grams in order. One no reference holds would add min(w, 0) · 0 = 0 to each.
        var val = [Double](repeating: 0, count: 4 * entry.references.count)
        for (k, ngram) in candidate.ngrams.enumerated() {
            guard let held = candidate.held[k] else { continue }
            for r in entry.references.indices {
                let ref = entry.held[held].weights[r]
                val[4 * r + ngram.order - 1] += min(hyp.weights[k], ref) * ref
            }
        }
        var score = [0.0, 0.0, 0.0, 0.0]
        for (r, reference) in entry.references.enumerated() {
            let delta = Double(hyp.length - reference.length)
            // np.e ** (-(delta ** 2) / (2 * sigma ** 2))
            let penalty = Foundation.pow(2.718281828459045, -(delta * delta) / (2 * (sigma * sigma)))
            for n in 0..<4 {
                var v = val[4 * r + n]
                if hyp.norms[n] != 0 && reference.norms[n] != 0 { v /= hyp.norms[n] * reference.norms[n] }
                v *= penalty
                score[n] += v
            }
        }
        // np.mean over the 4 orders, then / len(refs), then * 10.
        var mean = (0.0 + score[0] + score[1] + score[2] + score[3]) / 4
        mean /= Double(entry.references.count)
        mean *= 10.0
        return mean
    }
}
