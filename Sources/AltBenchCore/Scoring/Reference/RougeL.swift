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
        return score(CandidateNGrams(candidate, entry: entry, corpus: corpus), entry: entry)
    }

    /// pycocoevalcap's `" ".join(tokens).split(" ")`: no tokens is one empty token.
    static func split(_ tokens: [String]) -> [String] { tokens.isEmpty ? [""] : tokens }

    /// ROUGE-L F of `candidate` against the references of `entry`.
    static func score(_ candidate: CandidateNGrams, entry: ReferenceCorpus.Entry) -> Double {
        let tokens = candidate.numbers
        var precMax = 0.0, recMax = 0.0
        for reference in entry.references {
            let lcs = Double(longestCommonSubsequence(reference.numbers, tokens))
            precMax = max(precMax, lcs / Double(tokens.count))
            recMax = max(recMax, lcs / Double(reference.numbers.count))
        }
        guard precMax != 0 && recMax != 0 else { return 0 }
        let b2 = beta * beta
        return ((1 + b2) * precMax * recMax) / (recMax + b2 * precMax)
    }

    /// `my_lcs`: the length of the longest common subsequence of `a` and `b`, by the dynamic
    /// programme, one row at a time.
    static func longestCommonSubsequence(_ a: [Int32], _ b: [Int32]) -> Int {
        var row = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var diagonal = 0
            for (j, y) in b.enumerated() {
                let up = row[j + 1]
                row[j + 1] = x == y ? diagonal + 1 : max(up, row[j])
                diagonal = up
            }
        }
        return row[b.count]
    }
}
