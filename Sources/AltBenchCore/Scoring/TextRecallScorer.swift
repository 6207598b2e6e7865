/// Grades how much of the text visible in the image the answer carries: W3C's alt decision
/// tree asks that text in the image be in the alt (altbench scoring research, `text_recall`).
///
/// `value` is the share of the words of the dataset's `expected_text` found in the answer,
/// both sides split and normalised alike by ``TermMatching/words(in:splitHashtags:)``:
/// lowercased, apostrophes made straight, punctuation dropped, diacritics kept, numbers kept
/// as written with their inner separators ("3.5%" → "3.5", "1,000" stays "1,000"), compounds
/// split at hyphens, and a word hyphenated across a line break of the expected text joined
/// again. Line breaks are spaces, so a sign's layout does not matter, nor does word order.
///
/// Matching is by multiset: each word of the answer is used once, so "NO NO NO" needs
/// "no" three times. `passed` is nil (a graded score); the detail lists up to five missing
/// words, once each, as "missing: open, sundays". No score when the item has no expected
/// text, or expected text with no words in it.
///
public struct TextRecallScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let expectedText = input.item.expectedText else { return [] }
        let expected = TermMatching.words(in: expectedText)
        guard !expected.isEmpty else { return [] }
        let (found, missing) = Self.recall(of: expected, in: input.terms.words)
        return [
            Score(
                name: ScoreName.textRecall, value: Double(found) / Double(expected.count), passed: nil,
                detail: missing.isEmpty ? nil : "missing: " + missing.prefix(5).joined(separator: ", "))
        ]
    }

    /// How many of `expected` the multiset `answer` covers, and the missing words once each.
    static func recall(of expected: [String], in answer: [String]) -> (found: Int, missing: [String]) {
        var available: [String: Int] = [:]
        available.reserveCapacity(answer.count)
        for word in answer { available[word, default: 0] += 1 }
        var found = 0
        var missing: [String] = []
        for word in expected {
            if let count = available[word], count > 0 {
                available[word] = count - 1
                found += 1
            } else if !missing.contains(word) {
                missing.append(word)
            }
        }
        return (found, missing)
    }
}
