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

    /// A set of bytes, a bit each.
    struct ByteSet: Sendable {
        private let bits: (UInt64, UInt64, UInt64, UInt64)

        init(_ bytes: some Sequence<UInt8>) {
            var bits: [UInt64] = [0, 0, 0, 0]
            for byte in bytes { bits[Int(byte >> 6)] |= 1 << UInt64(byte & 63) }
            self.bits = (bits[0], bits[1], bits[2], bits[3])
        }

        @inline(__always)
        func contains(_ byte: UInt8) -> Bool {
            let low = byte & 0x40 == 0 ? bits.0 : bits.1
            let high = byte & 0x40 == 0 ? bits.2 : bits.3
            return (byte < 0x80 ? low : high) >> UInt64(byte & 63) & 1 == 1
        }
    }

    /// An item's terms, stemmed, ready to be looked for in answers.
    final class Terms: Sendable {
        /// The terms with words in them, as the detail shows them, and their stems as keys
        /// (``key(id:first:)``).
        let terms: [(shown: String, stems: [Int])]
        /// The distinct stems of all terms.
        let index: TermMatching.WordIndex
        /// Which bytes start a stem: a stem keeps the first letter of its word (irregular
        /// plurals included), so a word starting with any other byte needs no stemming.
        let starts: ByteSet
        /// The first two bytes of each stem, folded (``pair(_:_:)``; with any second byte for a
        /// stem of one byte). A stem of two bytes or more keeps the first two bytes of its
        /// word, but for an irregular plural: the steps only cut or change bytes from the
        /// third on, and a possessive "'s" goes only from a word of three bytes or more.
        let prefixes: ByteSet
        /// The stems of one byte.
        let singles: ByteSet

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
            let stems = stemmed.flatMap { $0.1 }.map { Array($0.utf8) }
            starts = ByteSet(stems.map { $0.first ?? 0 })
            prefixes = ByteSet(stems.flatMap { stem -> [UInt8] in
                let first = stem.first ?? 0
                return stem.count > 1 ? [Self.pair(first, stem[1])] : (0...255).map { Self.pair(first, $0) }
            })
            singles = ByteSet(stems.filter { $0.count == 1 }.map { $0[0] })
        }

        /// The first two bytes of a word or stem folded into one, for ``prefixes``.
        @inline(__always)
        private static func pair(_ first: UInt8, _ second: UInt8) -> UInt8 { first &* 31 &+ second }

        /// Whether `word`'s stem may be one of the terms' stems: the same first byte and,
        /// unless the word is an irregular plural (or its possessive), the same first two
        /// bytes as far as ``prefixes`` tells.
        @inline(__always)
        private func mayMatch(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let first = word.first, starts.contains(first) else { return false }
            let n = word.count
            // A word of one byte is its own stem.
            if n == 1 { return singles.contains(first) }
            if prefixes.contains(Self.pair(first, word[1])) { return true }
            if TermMatching.irregularSingular(of: word) != nil { return true }
            return n > 2 && word[n - 1] == UInt8(ascii: "s") && word[n - 2] == UInt8(ascii: "'")
                && TermMatching.irregularSingular(of: UnsafeBufferPointer(rebasing: word[..<(n - 2)])) != nil
        }

        /// A stem as the answer's words are matched against it: its id in `index` (equal
        /// strings share one) and its first byte, which must be the word's: a stem and a
        /// word's stem meet when both agree, so "café" precomposed and decomposed, equal
        /// strings with different first bytes, do not.
        private static func key(id: Int, first: UInt8) -> Int { id << 8 | Int(first) }

        /// The terms (as shown) whose stems `text` lacks as consecutive words.
        func missing(in text: String) -> [String] {
            let capacity = text.utf8.count + 1
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: capacity) { ids in
                // Each word's stem key, or -1 when it is none of the terms' stems.
                var count = 0
                let starts = starts
                TermMatching.withWords(in: text) { words in
                    while let word = words.next() {
                        // Most words start with a byte no stem does.
                        ids[count] = starts.contains(word[0]) ? stemID(of: word) : -1
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
            guard mayMatch(word), let first = word.first else { return -1 }
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
}
