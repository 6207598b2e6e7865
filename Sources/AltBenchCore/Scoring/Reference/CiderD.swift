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
        guard let i = corpus.index[itemID] else { return nil }
        return score(CandidateNGrams(candidate, corpus: corpus), entry: corpus.entries[i], corpus: corpus)
    }

    static func score(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry, corpus: ReferenceCorpus) -> Double {
        let grams = candidate.grams
        // Only n-grams some reference of the item holds can add to a similarity (the others
        // add min(w, 0) · 0 = 0, exactly).
        let matches = candidate.matches(in: entry)
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: grams.count + 8) { buffer in
            // counts2vec of the candidate, in pycocoevalcap's n-gram order: weights, then norms.
            let weights = UnsafeMutableBufferPointer(rebasing: buffer[8...])
            for order in 0..<4 {
                var sum = 0.0
                for k in candidate.orderRange(order) {
                    let key = grams[k]
                    // An n-gram no reference holds has df 0: log(max(1, 0)) = 0.
                    let idf = key >= 0 ? corpus.idf[Int(key)] : corpus.refLen - 0.0
                    let w = Double(candidate.counts[k]) * idf
                    weights[k] = w
                    sum += w * w  // pow(w, 2)
                }
                buffer[order] = sum.squareRoot()
            }
            let hypNorm = (buffer[0], buffer[1], buffer[2], buffer[3])
            var score = (0.0, 0.0, 0.0, 0.0)
            for reference in entry.references {
                let delta = Double(candidate.bigramCount - reference.bigramCount)
                let penalty = Foundation.pow(2.718281828459045, -(delta * delta) / (2 * (sigma * sigma)))
                var val = (0.0, 0.0, 0.0, 0.0)
                for match in matches {
                    let id = Int32(grams[match.gram])
                    guard let m = ReferenceCorpus.position(of: id, in: reference.ids) else { continue }
                    let r = reference.weights[m]
                    let term = min(weights[match.gram], r) * r
                    switch corpus.ngramOrder[Int(grams[match.gram])] {
                    case 0: val.0 += term
                    case 1: val.1 += term
                    case 2: val.2 += term
                    default: val.3 += term
                    }
                }
                score.0 += finish(val.0, hypNorm.0, reference.norms.0, penalty)
                score.1 += finish(val.1, hypNorm.1, reference.norms.1, penalty)
                score.2 += finish(val.2, hypNorm.2, reference.norms.2, penalty)
                score.3 += finish(val.3, hypNorm.3, reference.norms.3, penalty)
            }
            // np.mean over the 4 orders, then / len(refs), then * 10.
            var mean = (0.0 + score.0 + score.1 + score.2 + score.3) / 4
            mean /= Double(entry.references.count)
            mean *= 10.0
            return mean
        }
    }

    /// One order's similarity: the clipped dot product over both norms (when neither is 0),
    /// times the length penalty.
    @inline(__always)
    private static func finish(_ dot: Double, _ hypNorm: Double, _ refNorm: Double, _ penalty: Double) -> Double {
        var val = dot
        if hypNorm != 0 && refNorm != 0 { val /= hypNorm * refNorm }
        return val * penalty
    }
}
