/// Grades hedging: uncertain words beyond the few a sentence may carry.
///
/// Blind readers over-trust captions (MacLeod et al., CHI 2017), so a hedge where the model is
/// unsure is useful, and one per sentence is free (``ScoringSettings/freeHedgesPerSentence``,
/// default 1; a negative setting counts as 0). Piling them up ("It appears to possibly be
/// what seems like a dog") says little and costs listening time (altbench scoring research).
///
/// The hedges, matched as whole words in any case: "appears to", "appear to", "seems",
/// "seem" (and so "seem to"), "seemingly", "apparently", "possibly", "perhaps", "probably",
/// "likely" (so "most likely" is one hedge, and "unlikely" none), "maybe", "may be",
/// "might be", "could be", "looks like". Multi-word hedges need only whitespace between
/// their words.
///
/// Only the model's own voice counts (``TextAnalysis/ownVoice(_:)``): a quoted “Maybe Baby”
/// or a sign reading LOOKS LIKE RAIN is transcription. Two more kinds of transcription are
/// kept out, as in the first-person check: all-caps words (sign text: "MAYBE TOMORROW" on a
/// chalkboard), and a hedge capitalised inside a sentence (a title: "a poster for Maybe
/// Baby").
///
/// Sentences end at . ! ? … (a full stop between two letters or digits, as in "3.5" or
/// "e.g", does not end one) and at line breaks. With `excess` = Σ over sentences of
/// max(0, hedges − free), `value` is 1 / (1 + excess) and `passed` is `excess == 0`; the
/// detail lists the hedges found, once each, when `excess` > 0. An empty text scores 1.
public struct HedgingScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        // Each hedge starts with one of these words; when there are no more of them than a
        // sentence may carry, no sentence can carry too many, and the voice scan is skipped.
        let free = max(input.settings.freeHedgesPerSentence, 0)
        let candidates = input.words.filter { Self.firstWords.contains($0.normalized) }.count
        guard candidates > free else {
            return [Score(name: ScoreName.hedging, value: 1, passed: true)]
        }
        let voice = TermMatching.ownVoice(of: input)
        let (excess, hedges) = Self.excessHedges(in: voice.characters, words: voice.words, free: free)
        return [
            Score(
                name: ScoreName.hedging, value: 1 / (1 + Double(excess)), passed: excess == 0,
                detail: excess == 0 ? nil : hedges.joined(separator: ", "))
        ]
    }

    /// The hedges as normalized word sequences.
    static let hedges: [[String]] = [
        ["appears", "to"], ["appear", "to"], ["seems"], ["seem"], ["seemingly"], ["apparently"],
        ["possibly"], ["perhaps"], ["probably"], ["likely"], ["maybe"], ["may", "be"],
        ["might", "be"], ["could", "be"], ["looks", "like"],
    ]

    /// The first words of ``hedges``.
    static let firstWords: Set<String> = Set(hedges.map { $0[0] })

    /// The excess hedges of `chars` (already reduced to the model's own voice), split into
    /// `words`, over `free` per sentence, and the hedges found, once each, in order.
    static func excessHedges(
        in chars: [Character], words: [TextAnalysis.Word], free: Int
    ) -> (excess: Int, hedges: [String]) {
        var excess = 0
        var found: [String] = []
        var inSentence = 0
        var index = 0
        while index < words.count {
            if index > 0, endsSentence(between: words[index - 1], and: words[index], in: chars) {
                excess += max(0, inSentence - free)
                inSentence = 0
            }
            let word = words[index]
            guard firstWords.contains(word.normalized), counts(word, in: chars) else {
                index += 1
                continue
            }
            guard let hedge = hedges.first(where: { hedge in
                hedge[0] == word.normalized
                    && TextAnalysis.matches(hedge, in: words, from: index, chars: chars)
                    && words[index..<(index + hedge.count)].allSatisfy { !$0.isAllCaps }
            }) else {
                index += 1
                continue
            }
            inSentence += 1
            let shown = hedge.joined(separator: " ")
            if !found.contains(shown) { found.append(shown) }
            index += hedge.count
        }
        excess += max(0, inSentence - free)
        return (excess, found)
    }

    /// Whether `word` is in the model's voice: not shouted, and not capitalised inside a
    /// sentence, where it is part of a title.
    static func counts(_ word: TextAnalysis.Word, in chars: [Character]) -> Bool {
        if word.isAllCaps { return false }
        if word.isCapitalized && !TextAnalysis.isSentenceStart(chars, at: word.range.lowerBound) { return false }
        return true
    }

    /// Whether a sentence ends between two consecutive words: a line break, or . ! ? …
    /// anywhere but right between two word characters ("3.5", "e.g").
    static func endsSentence(
        between first: TextAnalysis.Word, and second: TextAnalysis.Word, in chars: [Character]
    ) -> Bool {
        let gap = first.range.upperBound..<second.range.lowerBound
        if gap.count == 1 && chars[gap.lowerBound] == "." { return false }
        for c in chars[gap] where c.isNewline || TextAnalysis.isSentenceTerminator(c) {
            return true
        }
        return false
    }
}
