/// Flags an answer that echoes the post text it was given instead of describing the image.
///
/// Prompts may pass the post text as context, since context makes better descriptions
/// (Stangl et al., CHI 2020; Srivatsan et al. 2023, "Alt-Text with Context"), but alt text
/// that repeats the post adds nothing for a reader who has just heard it (altbench scoring
/// research, `context_echo`).
///
/// Both texts are split by ``TermMatching/words(in:splitHashtags:)``: lowercased,
/// punctuation and emoji dropped, a hashtag's # dropped and its CamelCase split
/// ("#GoldenRetriever" → "golden retriever"). The answer is flagged when
/// - its words equal the post's words, however few, or
/// - it has at least 3 words and the longest common subsequence of its words and the
///   post's covers a share of its words at or above ``ScoringSettings/contextEchoThreshold``
///   (default 0.8): the answer is the post, a slice of it, or the post with a word or two
///   changed.
///
/// A description that reuses a name or two from the post ("Max, a golden retriever puppy,
/// running on a beach.") stays well under the threshold. The detail gives the share:
/// "copies 92% of the post text". No score when the item has no post text, or post text
/// with no words in it; an empty answer is not an echo.
///
public struct ContextEchoScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let context = input.item.context else { return [] }
        // The run's corpus splits each post once; an item outside it is split here alike.
        let contextWords = input.corpus?.contextWords(of: input.item) ?? Self.words(in: context)
        guard !contextWords.isEmpty else { return [] }
        let share = Self.echoedShare(
            of: Self.words(in: input.text), in: contextWords,
            threshold: input.settings.contextEchoThreshold)
        return [
            .flag(
                ScoreName.contextEcho, share != nil,
                detail: share.map { "copies \(Int(($0 * 100).rounded()))% of the post text" })
        ]
    }

    /// The words of a post or an answer as this check compares them: hashtags split too.
    static func words(in text: String) -> [String] {
        TermMatching.words(in: text, splitHashtags: true)
    }

    /// The share of `answer` found in order in `context` when it makes an echo, else `nil`.
    static func echoedShare(of answer: [String], in context: [String], threshold: Double) -> Double? {
        guard !answer.isEmpty else { return nil }
        if answer == context { return 1 }
        guard answer.count >= 3 else { return nil }

        // Words as small integers: comparisons in the table below are then cheap, and the
        // words missing from the post, which no subsequence can use, are dropped up front.
        var ids: [String: Int] = [:]
        ids.reserveCapacity(context.count)
        let contextIDs = context.map { word in
            if let id = ids[word] { return id }
            let id = ids.count
            ids[word] = id
            return id
        }
        let answerIDs = answer.compactMap { ids[$0] }
        // The words the subsequence needs; the tolerance keeps 7 of 10 at a threshold of 0.7
        // (0.7 × 10 is 7.000000000000001 in binary floating point).
        let needed = threshold * Double(answer.count) - 1e-9
        guard Double(answerIDs.count) >= needed else { return nil }

        let common = longestCommonSubsequence(answerIDs, contextIDs)
        return Double(common) >= needed ? Double(common) / Double(answer.count) : nil
    }

    /// The length of the longest common subsequence of `a` and `b`, in O(|a|·|b|) time and
    /// O(|b|) space.
    static func longestCommonSubsequence(_ a: [Int], _ b: [Int]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var previous = [Int](repeating: 0, count: b.count + 1)
        var current = previous
        for x in a {
            for (j, y) in b.enumerated() {
                current[j + 1] = x == y ? previous[j] + 1 : max(previous[j + 1], current[j])
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
