/// Flags a refusal: the `refusal` field, a content filter, or an opening apology (altbench research).
///
/// The openings are first-person apologies and inabilities: "I'm sorry", "I apologize", "As
/// an AI", "I can't/cannot/am unable to see, view, describe, identify, help, assist", ...;
/// `finish_reason` "content_filter" counts as a refusal too, with detail "content_filter".
///
/// Only the opening counts, and only in the first person: a refusal is the model speaking
/// before it says anything else. So a shop sign transcribed first ("Sorry, we're closed
/// sign on a door") or quoted (“Sorry, we're closed”) is not a refusal, nor is "I can't"
/// later in the text. A leading "Sorry,", "Unfortunately," or "I'm afraid" is passed over and
/// the words after it must refuse: "Sorry, but I can't help with that." is a refusal.
public struct RefusalScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        if let refusal = input.refusal, refusal.contains(where: { !$0.isWhitespace }) {
            return [.flag(ScoreName.refusal, true, detail: "refusal field")]
        }
        if input.finishReason?.lowercased() == "content_filter" {
            return [.flag(ScoreName.refusal, true, detail: "content_filter")]
        }
        let phrase = Self.refusalPhrase(chars: input.characters, words: input.words.prefix(24))
        return [.flag(ScoreName.refusal, phrase != nil, detail: phrase)]
    }

    /// Openers passed over before the refusal proper; on their own they refuse nothing.
    static let leadIns: [[String]] = [
        ["sorry"], ["unfortunately"], ["apologies"], ["sadly"], ["regrettably"], ["alas"],
        ["but"], ["however"], ["i'm", "afraid"], ["i", "am", "afraid"],
    ]

    /// Openers that refuse by themselves.
    static let apologies: [[String]] = [
        ["i'm", "sorry"], ["i", "am", "sorry"], ["i", "apologize"], ["i", "apologise"],
        ["my", "apologies"], ["as", "an", "ai"], ["as", "a", "language", "model"],
        ["as", "an", "artificial", "intelligence"],
    ]

    /// Inabilities, which refuse when one of ``refusedActions`` follows.
    static let inabilities: [[String]] = [
        ["i", "can't"], ["i", "cannot"], ["i", "can", "not"], ["i", "am", "unable", "to"],
        ["i'm", "unable", "to"], ["i", "am", "not", "able", "to"], ["i'm", "not", "able", "to"],
        ["i", "won't"], ["i", "will", "not"], ["i", "won't", "be", "able", "to"],
        ["i", "will", "not", "be", "able", "to"], ["i", "don't", "have", "the", "ability", "to"],
        ["i", "do", "not", "have", "the", "ability", "to"],
    ]

    /// Adverbs allowed between the inability and the action: "I can't actually see".
    static let adverbs: Set<String> = [
        "actually", "directly", "really", "currently", "physically", "visually",
    ]

    /// What a vision model refuses to do. "read", "tell" and "make out" are left out: "I
    /// can't read the small print, but…" hedges a description rather than refusing one.
    static let refusedActions: Set<String> = [
        "see", "view", "describe", "identify", "help", "assist", "process", "access", "analyze",
        "analyse", "interpret", "open", "display", "provide", "comply", "fulfill", "fulfil",
        "perceive", "look", "do", "recognize", "recognise",
    ]

    /// The refusing opening of `text` as written (e.g. "I'm sorry", "Sorry, but I can't
    /// help"), or `nil`.
    static func refusalPhrase(in text: String) -> String? {
        let chars = Array(text.prefix(240))
        // Lead-ins, the longest inability, an adverb and the action fit in 24 words.
        return refusalPhrase(chars: chars, words: TextAnalysis.words(in: chars, limit: 24)[...])
    }

    /// ``refusalPhrase(in:)`` over the text's `Character`s and (at least) its first 24 words.
    static func refusalPhrase(chars: [Character], words: ArraySlice<TextAnalysis.Word>) -> String? {
        guard TextAnalysis.startsWithWord(chars, words: words) else { return nil }

        func matches(_ pattern: [String], _ from: Int) -> Bool {
            TextAnalysis.matches(pattern, in: words, from: from, chars: chars)
        }

        var position = 0
        var passedLeadIn = true
        while passedLeadIn {
            passedLeadIn = false
            for leadIn in leadIns where matches(leadIn, position) {
                let next = position + leadIn.count
                guard next < words.count else { return nil }
                let separator = chars[words[next - 1].range.upperBound..<words[next].range.lowerBound]
                guard separatorAllowsLeadIn(separator) else { return nil }
                position = next
                passedLeadIn = true
                break
            }
        }

        func phrase(through end: Int) -> String {
            let text = String(chars[words[0].range.lowerBound..<words[end].range.upperBound])
            return text.count > 60 ? String(text.prefix(59)) + "\u{2026}" : text
        }

        for apology in apologies where matches(apology, position) {
            return phrase(through: position + apology.count - 1)
        }
        for inability in inabilities where matches(inability, position) {
            var action = position + inability.count
            if action < words.count, adverbs.contains(words[action].normalized),
                TextAnalysis.areAdjacent(words[action - 1], words[action], in: chars)
            {
                action += 1
            }
            guard action < words.count, refusedActions.contains(words[action].normalized),
                TextAnalysis.areAdjacent(words[action - 1], words[action], in: chars)
            else { continue }
            return phrase(through: action)
        }
        return nil
    }

    /// Between a lead-in and what follows: spaces and , . ! ; : or dashes, never a quote.
    private static func separatorAllowsLeadIn(_ separator: ArraySlice<Character>) -> Bool {
        separator.allSatisfy { c in
            c.isWhitespace || c == "," || c == "." || c == "!" || c == ";" || c == ":"
                || TextAnalysis.isDash(c)
        }
    }
}
