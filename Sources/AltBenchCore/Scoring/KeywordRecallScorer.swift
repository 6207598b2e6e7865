/// Grades whether the answer names what a good description of the image names: the share of
/// the dataset's `must_mention` terms found (altbench scoring research, `keyword_recall`).
///
/// Matching ignores case and English inflection: both the terms and the answer are split by
/// ``TermMatching/words(in:splitHashtags:)`` and reduced by ``TermMatching/stem(_:)``, so
/// "dog" is found in "dogs", "dog's" and "dogs’", "puppy" in "puppies", "mouse" in "mice",
/// "run" in "running". A term of several words ("golden retriever", "T-shirt") matches
/// those words in a row in the answer, punctuation between them allowed. Diacritics count
/// ("café" is not "cafe"); the stemmer is English and leaves most other inflections alone.
///
/// `value` is found / terms; `passed` is nil (a graded score); the detail is
/// "missing: cat, red ball" when a term is missing. No score when the item has no terms.
///
public struct KeywordRecallScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let terms = input.item.mustMention.compactMap { term -> (shown: String, stems: [String])? in
            let stems = TermMatching.words(in: term).map(TermMatching.stem)
            return stems.isEmpty ? nil : (Self.trimmed(term), stems)
        }
        guard !terms.isEmpty else { return [] }
        let (words, stems) = input.terms
        let missing = terms.filter { !Self.contains($0.stems, words: words, stems: stems) }.map(\.shown)
        let found = terms.count - missing.count
        return [
            Score(
                name: ScoreName.keywordRecall, value: Double(found) / Double(terms.count), passed: nil,
                detail: missing.isEmpty ? nil : "missing: " + missing.joined(separator: ", "))
        ]
    }

    /// Whether the stems `pattern` occur as consecutive words of an answer, given as its
    /// `words` and their `stems`. A word meets a stem when its stem is that stem and it
    /// starts with the same byte, so "café" precomposed and decomposed, equal strings with
    /// different first bytes, do not meet.
    static func contains(_ pattern: [String], words: [String], stems: [String]) -> Bool {
        guard pattern.count <= words.count else { return false }
        for start in 0...(words.count - pattern.count) {
            let matched = pattern.indices.allSatisfy { k in
                words[start + k].utf8.first == pattern[k].utf8.first && stems[start + k] == pattern[k]
            }
            if matched { return true }
        }
        return false
    }

    /// `term` without leading and trailing whitespace, as the detail shows it.
    static func trimmed(_ term: String) -> String {
        var chars = Substring(term)
        while let first = chars.first, first.isWhitespace { chars.removeFirst() }
        while let last = chars.last, last.isWhitespace { chars.removeLast() }
        return String(chars)
    }
}
