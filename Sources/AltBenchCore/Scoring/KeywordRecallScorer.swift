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
/// The terms are split and stemmed once per item (``Terms``, kept in a small cache); an
/// answer's words are read as bytes and stemmed only when a term could match them.
public struct KeywordRecallScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let mustMention = input.item.mustMention
        guard !mustMention.isEmpty else { return [] }
        let terms = Self.cache.value(for: mustMention) { Terms(mustMention) }
        guard !terms.terms.isEmpty else { return [] }
        let missing = terms.missing(in: input.text)
        let found = terms.terms.count - missing.count
        return [
            Score(
                name: ScoreName.keywordRecall, value: Double(found) / Double(terms.terms.count), passed: nil,
                detail: missing.isEmpty ? nil : "missing: " + missing.joined(separator: ", "))
        ]
    }

    private static let cache = TermMatching.PreparedCache<Terms>()

    /// An item's terms, stemmed, ready to be looked for in answers.
    final class Terms: Sendable {
        /// The terms with words in them, as the detail shows them, and their stems as keys
        /// (``key(id:first:)``).
        let terms: [(shown: String, stems: [Int])]
        /// The distinct stems of all terms.
        let index: TermMatching.WordIndex
        /// Which bytes start a stem, a bit each: a stem keeps the first letter of its word
        /// (irregular plurals included), so a word starting with any other byte needs no
        /// stemming.
        let starts: (UInt64, UInt64, UInt64, UInt64)

        init(_ mustMention: [String]) {
            let stemmed = mustMention.compactMap { term -> (String, [String])? in
                let stems = TermMatching.words(in: term).map(TermMatching.stem)
                return stems.isEmpty ? nil : (KeywordRecallScorer.trimmed(term), stems)
            }
            let index = TermMatching.WordIndex(stemmed.flatMap { $0.1 })
            var offset = 0
            terms = stemmed.map { shown, stems in
                defer { offset += stems.count }
                let keys = zip(stems, index.ids[offset..<(offset + stems.count)]).map { stem, id in
                    Self.key(id: id, first: stem.utf8.first ?? 0)
                }
                return (shown, keys)
            }
            self.index = index
            var starts: [UInt64] = [0, 0, 0, 0]
            for (_, stems) in stemmed {
                for stem in stems {
                    let first = stem.utf8.first ?? 0
                    starts[Int(first >> 6)] |= 1 << UInt64(first & 63)
                }
            }
            self.starts = (starts[0], starts[1], starts[2], starts[3])
        }

        /// Whether a stem starts with `byte`.
        @inline(__always)
        private func mayStart(_ byte: UInt8) -> Bool {
            let bits: UInt64
            switch byte >> 6 {
            case 0: bits = starts.0
            case 1: bits = starts.1
            case 2: bits = starts.2
            default: bits = starts.3
            }
            return bits >> UInt64(byte & 63) & 1 == 1
        }

        /// A stem as the answer's words are matched against it: its id in `index` and its
        /// first byte, which must be the word's. A stem and a word meet when both agree, as
        /// ``AnswerStems/contains(_:)`` compares them (so "café" precomposed and decomposed,
        /// equal strings with different first bytes, do not).
        private static func key(id: Int, first: UInt8) -> Int { id << 8 | Int(first) }

        /// The terms (as shown) whose stems `text` lacks as consecutive words.
        func missing(in text: String) -> [String] {
            let capacity = text.utf8.count + 1
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: capacity) { ids in
                // Each word's stem key, or -1 when it is none of the terms' stems.
                var count = 0
                TermMatching.withWords(in: text) { words in
                    while let word = words.next() {
                        ids[count] = stemID(of: word)
                        count += 1
                    }
                }
                let words = UnsafeBufferPointer(rebasing: ids[..<count])
                var missing: [String] = []
                for (shown, stems) in terms where !Self.contains(stems, in: words) { missing.append(shown) }
                return missing
            }
        }

        private func stemID(of word: UnsafeBufferPointer<UInt8>) -> Int {
            guard let first = word.first, mayStart(first) else { return -1 }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: word.count + TermMatching.stemMargin) {
                buffer in
                let length = TermMatching.stem(word, into: buffer)
                let stem = UnsafeBufferPointer(rebasing: buffer[..<length])
                guard let id = index.id(of: stem) else { return -1 }
                return Self.key(id: id, first: first)
            }
        }

        /// Whether `pattern` occurs as consecutive ids in `words`.
        private static func contains(_ pattern: [Int], in words: UnsafeBufferPointer<Int>) -> Bool {
            guard pattern.count <= words.count else { return false }
            for start in 0...(words.count - pattern.count) {
                var matched = true
                for (k, id) in pattern.enumerated() where words[start + k] != id {
                    matched = false
                    break
                }
                if matched { return true }
            }
            return false
        }
    }

    /// `term` without leading and trailing whitespace, as the detail shows it.
    static func trimmed(_ term: String) -> String {
        var chars = Substring(term)
        while let first = chars.first, first.isWhitespace { chars.removeFirst() }
        while let last = chars.last, last.isWhitespace { chars.removeLast() }
        return String(chars)
    }

    /// The terms of `mustMention` with words in them, and those (as shown) that `text`
    /// lacks, found term by term with strings: what ``Terms/missing(in:)`` finds, kept as its
    /// reference.
    static func missingTerms(_ mustMention: [String], in text: String) -> (terms: Int, missing: [String]) {
        let terms = mustMention.compactMap { term -> (term: String, stems: [String])? in
            let stems = TermMatching.words(in: term).map(TermMatching.stem)
            return stems.isEmpty ? nil : (term, stems)
        }
        var answer = AnswerStems(TermMatching.words(in: text))
        var missing: [String] = []
        for (term, stems) in terms where !answer.contains(stems) {
            missing.append(trimmed(term))
        }
        return (terms.count, missing)
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
