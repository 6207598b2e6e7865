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
        return score(CandidateNGrams(candidate, corpus: corpus), entry: corpus.entries[0])
    }

    static func score(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry) -> Double {
        // split(" ") of an empty sentence is one empty token, equal only to another.
        let empty = Int64.min
        let c = candidate.tokens.isEmpty ? [empty] : candidate.tokens
        var precMax = 0.0, recMax = 0.0
        var first = true
        for reference in entry.references {
            let lcs: Int
            let referenceCount: Int
            if reference.tokens.isEmpty {
                lcs = c == [empty] ? 1 : 0
                referenceCount = 1
            } else {
                lcs = longestCommonSubsequence(reference.tokens, c)
                referenceCount = reference.tokens.count
            }
            let prec = Double(lcs) / Double(c.count)
            let rec = Double(lcs) / Double(referenceCount)
            if first || prec > precMax { precMax = prec }
            if first || rec > recMax { recMax = rec }
            first = false
        }
        guard precMax != 0 && recMax != 0 else { return 0 }
        let b2 = beta * beta
        return ((1 + b2) * precMax * recMax) / (recMax + b2 * precMax)
    }

    /// The length of the longest common subsequence of `a` and `b`, one DP row at a time.
    static func longestCommonSubsequence(_ a: [Int32], _ b: [Int64]) -> Int {
        let m = b.count
        return withUnsafeTemporaryAllocation(of: Int32.self, capacity: m + 1) { row in
            row.initialize(repeating: 0)
            for x in a {
                let x = Int64(x)
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
