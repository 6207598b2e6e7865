import Foundation

/// An offline stand-in for the vision judge: it grades an answer from the dataset's text
/// alone, deterministically, without the image.
///
/// It exists so that the whole judge path (requests, parsing, caching, storing, reports) runs
/// in tests and with `--mock` without a network or a key. It is not a judgement: it cannot see
/// the image, so it rewards repeating the references' words and cannot tell a correct detail
/// the references leave out from an invented one. Its grades:
///
/// - accuracy: the share of the answer's distinct content words (``TermMatching`` words, stemmed,
///   without ``StopWords``) found in the item's references, `must_mention` and
///   `expected_text`, on ``grade(_:)``'s cut points;
/// - completeness: the mean recall of what the item has of the `must_mention` terms, the
///   `expected_text` words, and the content words of the reference the answer covers best;
/// - concision: the answer's length in Unicode scalars against the brevity budget: 5 within
///   it, 4 within 1.5 times, 3 within twice, 2 within three times, 1 beyond.
///
/// An item with nothing to compare against gets accuracy 3 and completeness 3 and the error
/// "mock judge: no references to compare with". Errors name concrete misses ("does not
/// mention: tabby", "words not in any reference: sofa, window").
public enum MockJudge {
    /// The model name a mock judgement is recorded under.
    public static let model = "mock-judge"

    /// How many missed words an error lists before "…".
    static let listLimit = 8

    /// The mock's verdict on `answer` for `item`.
    public static func verdict(
        answer: String, item: ScoringItem, settings: ScoringSettings = ScoringSettings()
    ) -> JudgeVerdict {
        let text = TextAnalysis.trimmed(answer)
        guard !text.isEmpty else {
            return JudgeVerdict(accuracy: 1, completeness: 1, concision: 1, errors: ["mock judge: the answer is empty"])
        }
        var errors: [String] = []
        let answerWords = contentWords(text)
        let answerStems = Set(answerWords.map(\.stem))
        let references = item.references.filter { !TextAnalysis.trimmed($0).isEmpty }
        let expectedText = item.expectedText.map(TextAnalysis.trimmed).flatMap { $0.isEmpty ? nil : $0 }
        let mustMention = item.mustMention.filter { !TextAnalysis.trimmed($0).isEmpty }

        let accuracy: Int
        let completeness: Int
        if references.isEmpty && expectedText == nil && mustMention.isEmpty {
            accuracy = 3
            completeness = 3
            errors.append("mock judge: no references to compare with")
        } else {
            // Accuracy: the answer's words that some reference text holds.
            let known = Set((references + mustMention + [expectedText ?? ""]).flatMap { contentWords($0).map(\.stem) })
            let unknown = unique(answerWords.filter { !known.contains($0.stem) }).map(\.word)
            if answerWords.isEmpty {
                accuracy = 1
                errors.append("mock judge: the answer has no words to check")
            } else {
                let distinct = unique(answerWords)
                accuracy = grade(Double(distinct.count - unknown.count) / Double(distinct.count))
                if !unknown.isEmpty { errors.append("words not in any reference: " + list(unknown)) }
            }

            // Completeness: recall of each kind of target the item has.
            var recalls: [Double] = []
            if !mustMention.isEmpty {
                let missing = mustMention.filter { term in
                    let stems = contentWords(term).map(\.stem)
                    let needed = stems.isEmpty ? TermMatching.words(in: term).map(TermMatching.stem) : stems
                    return !needed.allSatisfy(answerStems.contains)
                }
                recalls.append(Double(mustMention.count - missing.count) / Double(mustMention.count))
                if !missing.isEmpty { errors.append("does not mention: " + list(missing)) }
            }
            if let expectedText {
                let words = unique(contentWords(expectedText))
                if !words.isEmpty {
                    let missing = words.filter { !answerStems.contains($0.stem) }.map(\.word)
                    recalls.append(Double(words.count - missing.count) / Double(words.count))
                    if !missing.isEmpty { errors.append("leaves out visible text: " + list(missing)) }
                }
            }
            let referenceRecalls: [(recall: Double, missing: [String])] = references.compactMap { reference in
                let words = unique(contentWords(reference))
                guard !words.isEmpty else { return nil }
                let missing = words.filter { !answerStems.contains($0.stem) }.map(\.word)
                return (Double(words.count - missing.count) / Double(words.count), missing)
            }
            // The first of the best, so that ties never depend on anything but the order.
            if let best = referenceRecalls.enumerated().max(by: {
                $0.element.recall < $1.element.recall || ($0.element.recall == $1.element.recall && $0.offset > $1.offset)
            })?.element {
                recalls.append(best.recall)
                if best.recall < 0.5 { errors.append("leaves out what the references say: " + list(best.missing)) }
            }
            completeness = recalls.isEmpty ? 3 : grade(recalls.reduce(0, +) / Double(recalls.count))
        }

        let length = text.unicodeScalars.count
        let budget = max(1, settings.brevityBudget)
        let concision: Int
        switch Double(length) / Double(budget) {
        case ...1: concision = 5
        case ...1.5: concision = 4
        case ...2: concision = 3
        case ...3: concision = 2
        default: concision = 1
        }
        if length > budget { errors.append("longer than the brevity budget: \(length) of \(budget) characters") }

        return JudgeVerdict(
            accuracy: accuracy, completeness: completeness, concision: concision,
            errors: Array(errors.map(JudgeVerdict.cleanError).prefix(JudgeVerdict.maxErrors)))
    }

    /// A share in 0...1 as a grade: 5 from 0.85, 4 from 0.65, 3 from 0.45, 2 from 0.25, else 1.
    static func grade(_ share: Double) -> Int {
        switch share {
        case 0.85...: return 5
        case 0.65...: return 4
        case 0.45...: return 3
        case 0.25...: return 2
        default: return 1
        }
    }

    /// A word as written (lowercased) and its stem.
    struct ContentWord: Hashable {
        var word: String
        var stem: String
    }

    /// The words of `text` that carry content, in order.
    static func contentWords(_ text: String) -> [ContentWord] {
        TermMatching.words(in: text, splitHashtags: true).compactMap { word in
            StopWords.all.contains(word) ? nil : ContentWord(word: word, stem: TermMatching.stem(word))
        }
    }

    /// The first word of each stem, in order.
    private static func unique(_ words: [ContentWord]) -> [ContentWord] {
        var seen: Set<String> = []
        return words.filter { seen.insert($0.stem).inserted }
    }

    /// Items joined with ", ", at most ``listLimit`` of them, then "…".
    private static func list(_ items: [String]) -> String {
        items.count > listLimit ? items.prefix(listLimit).joined(separator: ", ") + ", …" : items.joined(separator: ", ")
    }
}
