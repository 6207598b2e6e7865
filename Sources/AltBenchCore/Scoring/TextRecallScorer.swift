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
/// The expected text is split once per item (``Expected``, kept in a small cache); each
/// answer's words are then looked up by their bytes as they are read, without being made
/// strings.
public struct TextRecallScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let expectedText = input.item.expectedText else { return [] }
        let expected = Self.cache.value(for: expectedText) { Expected(expectedText) }
        guard !expected.words.isEmpty else { return [] }
        let (found, missing) = expected.recall(in: input.text)
        return [
            Score(
                name: ScoreName.textRecall, value: Double(found) / Double(expected.words.count), passed: nil,
                detail: missing.isEmpty ? nil : "missing: " + missing.prefix(5).joined(separator: ", "))
        ]
    }

    private static let cache = TermMatching.PreparedCache<Expected>()

    /// An expected text's words, ready to be counted in answers.
    final class Expected: Sendable {
        /// The words of the expected text, in order.
        let words: [String]
        let index: TermMatching.WordIndex
        /// How many times each distinct word (by id) occurs.
        let counts: [Int]
        /// Where each distinct word occurs in `words`, in order.
        let positions: [[Int]]

        init(_ text: String) {
            words = TermMatching.words(in: text)
            index = TermMatching.WordIndex(words)
            var positions = [[Int]](repeating: [], count: index.words.count)
            for (position, id) in index.ids.enumerated() { positions[id].append(position) }
            self.positions = positions
            counts = positions.map(\.count)
        }

        /// ``TextRecallScorer/recall(of:in:)`` of these words in the words of `text`.
        func recall(in text: String) -> (found: Int, missing: [String]) {
            let distinct = counts.count
            let index = index
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: distinct) { available in
                available.initialize(repeating: 0)
                TermMatching.withWords(in: text) { words in
                    while let word = words.next() {
                        if let id = index.id(of: word) { available[id] += 1 }
                    }
                }
                // Each word of the expected text takes one of the answer's: the first
                // `available[id]` occurrences of a word are found, and the next one, if
                // any, is where it goes missing.
                var found = 0
                var missingAt: [(position: Int, id: Int)] = []
                for id in 0..<distinct {
                    found += min(available[id], counts[id])
                    if available[id] < counts[id] { missingAt.append((positions[id][available[id]], id)) }
                }
                guard !missingAt.isEmpty else { return (found, []) }
                missingAt.sort { $0.position < $1.position }
                return (found, missingAt.map { words[$0.position] })
            }
        }
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
