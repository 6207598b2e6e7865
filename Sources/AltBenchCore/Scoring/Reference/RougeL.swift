/// ROUGE-L exactly as pycocoevalcap 1.2's `Rouge` computes it (`rouge/rouge.py`, Lin and
/// Hovy 2004, β = 1.2 "based on discussion with Hovy"), given the same tokens.
///
/// For each reference, precision = LCS / candidate tokens and recall = LCS / reference tokens,
/// with LCS the length of the longest common token subsequence. The maxima over the
/// references, `prec_max` and `rec_max`, give
/// `F = (1 + β²) · prec_max · rec_max / (rec_max + β² · prec_max)`, or 0 when either is 0.
/// Note the maxima are taken separately, possibly from different references. The corpus
/// figure is the mean over images.
///
/// pycocoevalcap splits a sentence with `split(" ")`, so an empty sentence is one empty
/// token: an empty candidate scores 0 (or 1 against an empty reference) and never divides by
/// zero. The token-level functions here do the same.
public enum RougeL {
    public static let beta = 1.2

    /// ROUGE-L F of `candidate` against `references`, all as tokens.
    public static func score(candidate: [String], references: [[String]]) -> Double {
        guard !references.isEmpty else { return 0 }
        let corpus = ReferenceCorpus(tokenizedItems: [(id: "", references: references)])
        let entry = corpus.entries[0]
        return score(CandidateNGrams(candidate, corpus: corpus, entry: entry), entry: entry)
    }

    static func score(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry) -> Double {
        candidate.withView(for: entry) { score($0, entry: entry) }
    }

    static func score(_ candidate: NGramView, entry: ReferenceCorpus.Entry) -> Double {
        let m = candidate.length
        // split(" ") of an empty sentence is one empty token, equal only to another: LCS 1
        // against an empty reference, 0 against any other.
        let candidateCount = max(m, 1)
        let words = (m + 63) >> 6
        let unigrams = candidate.orderEnds.0
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: unigrams * words + words + 1) { buffer in
            // For each unigram of the candidate, the positions holding it, as bits: a
            // reference token matches exactly these.
            let masks = buffer.baseAddress!
            let v = masks + unigrams * words
            masks.initialize(repeating: 0, count: unigrams * words)
            for j in 0..<m {
                masks[Int(candidate.tokenGrams[j]) * words + j >> 6] |= 1 << UInt64(j & 63)
            }
            var precMax = 0.0, recMax = 0.0
            var start = 0
            return entry.referenceTokenUnions.withUnsafeBufferPointer { tokenUnions in
                for (r, end) in entry.referenceTokenEnds.enumerated() {
                    let lcs: Int
                    let referenceCount: Int
                    if end == start {
                        lcs = m == 0 ? 1 : 0
                        referenceCount = 1
                    } else {
                        lcs = m == 0 ? 0 : longestCommonSubsequence(
                            UnsafeBufferPointer(rebasing: tokenUnions[start..<end]), candidate.unionGrams, masks, v,
                            words: words, length: m)
                        referenceCount = end - start
                    }
                    start = end
                    let first = r == 0
                    let prec = Double(lcs) / Double(candidateCount)
                    let rec = Double(lcs) / Double(referenceCount)
                    if first || prec > precMax { precMax = prec }
                    if first || rec > recMax { recMax = rec }
                }
                guard precMax != 0 && recMax != 0 else { return 0 }
                let b2 = beta * beta
                return ((1 + b2) * precMax * recMax) / (recMax + b2 * precMax)
            }
        }
    }

    /// The length of the longest common subsequence of the reference `a` (union indices) and
    /// the candidate of `length` tokens whose positions of each unigram are `masks` (`words`
    /// 64-bit words each, by index in the candidate's n-grams, which `unionGrams` gives for
    /// a union index), bit-parallel (Crochemore et al. 2001): a bit vector `v` over the
    /// candidate positions, all ones at first, becomes `(v + (v & m)) | (v & ~m)` for the
    /// match mask `m` of each reference token in turn (a token the candidate lacks leaves it
    /// as it is); its zeros among the first `length` bits then count the LCS, as the dynamic
    /// programme's last row would.
    static func longestCommonSubsequence(
        _ a: UnsafeBufferPointer<Int32>, _ unionGrams: UnsafeBufferPointer<Int32>, _ masks: UnsafeMutablePointer<UInt64>,
        _ v: UnsafeMutablePointer<UInt64>, words: Int, length: Int
    ) -> Int {
        if words == 1 {
            // One word: `v` in a register, no carry between words.
            var v = UInt64.max
            for x in a {
                let g = unionGrams[Int(x)]
                guard g >= 0 else { continue }
                let m = masks[Int(g)]
                v = (v &+ (v & m)) | (v & ~m)
            }
            let valid: UInt64 = length == 64 ? .max : (1 << UInt64(length)) - 1
            return length - (v & valid).nonzeroBitCount
        }
        v.update(repeating: .max, count: words)
        for x in a {
            let g = unionGrams[Int(x)]
            guard g >= 0 else { continue }
            let m = masks + Int(g) * words
            var carry: UInt64 = 0
            for w in 0..<words {
                let vw = v[w], mw = m[w]
                let u = vw & mw
                let (s1, o1) = vw.addingReportingOverflow(u)
                let (s2, o2) = s1.addingReportingOverflow(carry)
                carry = (o1 || o2) ? 1 : 0
                v[w] = s2 | (vw & ~mw)
            }
        }
        var ones = 0
        for w in 0..<words {
            let bits = min(64, length - w * 64)
            let valid: UInt64 = bits == 64 ? .max : (1 << UInt64(bits)) - 1
            ones += (v[w] & valid).nonzeroBitCount
        }
        return length - ones
    }

    /// The length of the longest common subsequence of `a` and `b`, one DP row at a time (the
    /// definition, for checking the bit-parallel form).
    static func longestCommonSubsequenceByRows(_ a: [Int32], _ b: [Int32]) -> Int {
        let m = b.count
        guard m > 0 else { return 0 }
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: m + 1) { row in
            row.initialize(repeating: 0)
            for x in a {
                var diagonal: Int32 = 0
                for j in 1...m {
                    let up = row[j]
                    row[j] = x == b[j - 1] ? diagonal + 1 : max(up, row[j - 1])
                    diagonal = up
                }
            }
            return Int(row[m])
        }
    }
}
