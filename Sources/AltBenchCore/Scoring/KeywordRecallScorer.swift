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
public struct KeywordRecallScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let terms = input.item.mustMention.compactMap { term -> (term: String, stems: [String])? in
            let stems = TermMatching.words(in: term).map(TermMatching.stem)
            return stems.isEmpty ? nil : (term, stems)
        }
        guard !terms.isEmpty else { return [] }
        var answer = Self.AnswerStems(TermMatching.words(in: input.text))
        var missing: [String] = []
        for (term, stems) in terms where !answer.contains(stems) {
            missing.append(Self.trimmed(term))
        }
        let found = terms.count - missing.count
        return [
            Score(
                name: ScoreName.keywordRecall, value: Double(found) / Double(terms.count), passed: nil,
                detail: missing.isEmpty ? nil : "missing: " + missing.joined(separator: ", "))
        ]
    }

    /// `term` without leading and trailing whitespace, as the detail shows it.
    static func trimmed(_ term: String) -> String {
        var chars = Substring(term)
        while let first = chars.first, first.isWhitespace { chars.removeFirst() }
        while let last = chars.last, last.isWhitespace { chars.removeLast() }
        return String(chars)
    }

    /// The answer's words, stemmed only when a term could match them: a stem keeps the first
    /// letter of its word (irregular plurals included), so a word whose first letter no
    /// term shares is never stemmed.
    struct AnswerStems {
        let words: [String]
        var stems: [String?]

        init(_ words: [String]) {
            self.words = words
            self.stems = [String?](repeating: nil, count: words.count)
        }

        mutating func stem(at index: Int) -> String {
            if let stem = stems[index] { return stem }
            let stem = TermMatching.stem(words[index])
            stems[index] = stem
            return stem
        }

        /// Whether `pattern` (stems) occurs as consecutive words.
        mutating func contains(_ pattern: [String]) -> Bool {
            guard !pattern.isEmpty, pattern.count <= words.count else { return false }
            for start in 0...(words.count - pattern.count) {
                var matched = true
                for (k, expected) in pattern.enumerated() {
                    let index = start + k
                    guard words[index].utf8.first == expected.utf8.first, stem(at: index) == expected
                    else {
                        matched = false
                        break
                    }
                }
                if matched { return true }
            }
            return false
        }
    }
}
