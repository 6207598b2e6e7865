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
        let entry = corpus.entries[i]
        return score(CandidateNGrams(candidate, corpus: corpus, entry: entry), entry: entry, corpus: corpus)
    }

    static func score(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry, corpus: ReferenceCorpus) -> Double {
        candidate.withView(for: entry) { score($0, entry: entry, corpus: corpus) }
    }

    /// The doubles `score` works in, for `count` n-grams and `references` references.
    static func scratchSize(_ count: Int, references: Int) -> Int { count + 4 * references + 4 }

    static func score(_ candidate: NGramView, entry: ReferenceCorpus.Entry, corpus: ReferenceCorpus) -> Double {
        let count = candidate.grams.count
        let references = entry.references.count
        if let scratch = candidate.scratch { return score(candidate, entry: entry, corpus: corpus, scratch: scratch) }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: scratchSize(count, references: references)) {
            score(candidate, entry: entry, corpus: corpus, scratch: $0.baseAddress!)
        }
    }

    /// `score(candidate, entry: entry, corpus: corpus)` in `scratch`, of at least
    /// `scratchSize(candidate.grams.count, references: entry.references.count)` doubles.
    static func score(
        _ candidate: NGramView, entry: ReferenceCorpus.Entry, corpus: ReferenceCorpus,
        scratch: UnsafeMutablePointer<Double>
    ) -> Double {
        let grams = candidate.grams
        let count = grams.count
        let references = entry.references.count
        let weights = scratch
        let hypNorm = weights + count
        // Per reference and order, the clipped dot product `Σ min(w_cand, w_ref) · w_ref`.
        let val = hypNorm + 4
        val.initialize(repeating: 0, count: 4 * references)
        corpus.idf.withUnsafeBufferPointer { idf in
            entry.unionIDF.withUnsafeBufferPointer { unionIDF in
                entry.unionWeights.withUnsafeBufferPointer { unionWeights in
                    // counts2vec of the candidate, in pycocoevalcap's n-gram order.
                    for k in 0..<count {
                        let gram = grams[k]
                        // An n-gram no reference holds has df 0: log(max(1, 0)) = 0.
                        let weight = gram.union >= 0 ? unionIDF[Int(gram.union)]
                            : gram.key >= 0 ? idf[Int(gram.key)] : corpus.refLen - 0.0
                        weights[k] = Double(gram.count) * weight
                    }
                    // The norms, sum += pow(w, 2) over each order's n-grams in order; the four
                    // sums side by side.
                    let r0 = candidate.orderRange(0), r1 = candidate.orderRange(1)
                    let r2 = candidate.orderRange(2), r3 = candidate.orderRange(3)
                    var sums = (0.0, 0.0, 0.0, 0.0)
                    for j in 0..<max(r0.count, r1.count, r2.count, r3.count) {
                        if j < r0.count {
                            let w = weights[r0.lowerBound + j]
                            sums.0 += w * w
                        }
                        if j < r1.count {
                            let w = weights[r1.lowerBound + j]
                            sums.1 += w * w
                        }
                        if j < r2.count {
                            let w = weights[r2.lowerBound + j]
                            sums.2 += w * w
                        }
                        if j < r3.count {
                            let w = weights[r3.lowerBound + j]
                            sums.3 += w * w
                        }
                    }
                    hypNorm[0] = sums.0.squareRoot()
                    hypNorm[1] = sums.1.squareRoot()
                    hypNorm[2] = sums.2.squareRoot()
                    hypNorm[3] = sums.3.squareRoot()
                    for order in 0..<4 {
                        dotProducts(
                            grams, weights, candidate.orderRange(order), order: order, unionWeights: unionWeights,
                            references: references, into: val)
                    }
                }
            }
        }
        var score = (0.0, 0.0, 0.0, 0.0)
        entry.referenceNorms.withUnsafeBufferPointer { norms in
            for (r, bigramCount) in entry.referenceBigramCounts.enumerated() {
                let delta = Double(candidate.bigramCount - bigramCount)
                let penalty = Foundation.pow(2.718281828459045, -(delta * delta) / (2 * (sigma * sigma)))
                score.0 += finish(val[4 * r], hypNorm[0], norms[4 * r], penalty)
                score.1 += finish(val[4 * r + 1], hypNorm[1], norms[4 * r + 1], penalty)
                score.2 += finish(val[4 * r + 2], hypNorm[2], norms[4 * r + 2], penalty)
                score.3 += finish(val[4 * r + 3], hypNorm[3], norms[4 * r + 3], penalty)
            }
        }
        // np.mean over the 4 orders, then / len(refs), then * 10.
        var mean = (0.0 + score.0 + score.1 + score.2 + score.3) / 4
        mean /= Double(references)
        mean *= 10.0
        return mean
    }

    /// Adds to `val[4 × r + order]`, for each reference `r`, `min(w_cand, w_ref) · w_ref` over
    /// the candidate's n-grams in `range`, in order. Only n-grams some reference of the item
    /// holds can add to a similarity; a reference without one adds min(w, 0) · 0 = 0,
    /// exactly. Four references at a time, in registers.
    @inline(__always)
    private static func dotProducts(
        _ grams: UnsafeBufferPointer<CandidateNGrams.Gram>, _ weights: UnsafeMutablePointer<Double>, _ range: Range<Int>,
        order: Int, unionWeights: UnsafeBufferPointer<Double>, references: Int, into val: UnsafeMutablePointer<Double>
    ) {
        var first = 0
        while first < references {
            let lanes = min(4, references - first)
            var a0 = val[4 * first + order], a1 = 0.0, a2 = 0.0, a3 = 0.0
            if lanes > 1 { a1 = val[4 * (first + 1) + order] }
            if lanes > 2 { a2 = val[4 * (first + 2) + order] }
            if lanes > 3 { a3 = val[4 * (first + 3) + order] }
            for k in range {
                let u = grams[k].union
                guard u >= 0 else { continue }
                let w = weights[k]
                let row = unionWeights.baseAddress! + Int(u) * references + first
                let r0 = row[0]
                a0 += min(w, r0) * r0
                if lanes > 1 {
                    let r1 = row[1]
                    a1 += min(w, r1) * r1
                }
                if lanes > 2 {
                    let r2 = row[2]
                    a2 += min(w, r2) * r2
                }
                if lanes > 3 {
                    let r3 = row[3]
                    a3 += min(w, r3) * r3
                }
            }
            val[4 * first + order] = a0
            if lanes > 1 { val[4 * (first + 1) + order] = a1 }
            if lanes > 2 { val[4 * (first + 2) + order] = a2 }
            if lanes > 3 { val[4 * (first + 3) + order] = a3 }
            first += 4
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
