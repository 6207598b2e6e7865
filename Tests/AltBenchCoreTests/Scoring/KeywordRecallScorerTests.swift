import Testing

@testable import AltBenchCore

@Suite("keyword_recall")
struct KeywordRecallScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var terms: [String]
        var content: String?
        var value: Double
        var detail: String?

        init(_ terms: [String], _ content: String?, _ value: Double, _ detail: String? = nil) {
            self.terms = terms
            self.content = content
            self.value = value
            self.detail = detail
        }

        var testDescription: String {
            "\(terms) in \(content?.debugDescription ?? "nil") → \(value)"
        }
    }

    static let found: [Row] = [
        // Plurals and possessives, straight and curly.
        Row(["dog"], "Two dogs on a beach.", 1),
        Row(["dog"], "The dog's red ball.", 1),
        Row(["dog"], "The dogs\u{2019} bowls.", 1),
        Row(["dogs"], "A dog.", 1),
        Row(["puppy"], "Three puppies in a basket.", 1),
        Row(["city"], "The cities at night.", 1),
        Row(["box", "glass"], "Boxes of glasses on a shelf.", 1),
        Row(["horse", "church"], "Horses grazing by two churches.", 1),
        // Irregular plurals.
        Row(["mouse"], "Two mice in a cage.", 1),
        Row(["child", "person"], "Children and people in a park.", 1),
        Row(["leaf"], "Autumn leaves.", 1),
        // -ing and -ed.
        Row(["run"], "A woman running on a track.", 1),
        Row(["park"], "Cars parked on a street.", 1),
        Row(["dance"], "Couples dancing.", 1),
        // Several words in a row, any case, hyphens as spaces.
        Row(["golden retriever"], "A Golden Retriever on grass.", 1),
        Row(["golden retriever"], "Two golden retrievers.", 1),
        Row(["Eiffel Tower"], "The EIFFEL TOWER at night.", 1),
        Row(["T-shirt"], "A man in a red t shirt.", 1),
        Row(["ice cream"], "A girl eating ice-cream.", 1),
        // Other languages, matched as written.
        Row(["caf\u{00E9}"], "Un caf\u{00E9} \u{00E0} Paris.", 1),
        Row(["Hund"], "Ein Hund im Schnee.", 1),
        Row(["perro"], "Dos perros en la playa.", 1),
    ]

    static let missing: [Row] = [
        Row(["cat"], "A dog.", 0, "missing: cat"),
        Row(["dog", "red ball"], "A dog with a blue ball.", 0.5, "missing: red ball"),
        Row(["apple", "banana", "cherry"], "An apple.", 1.0 / 3.0, "missing: banana, cherry"),
        // Out of order or apart is not the term.
        Row(["golden retriever"], "A retriever, golden in the sun.", 0, "missing: golden retriever"),
        Row(["golden retriever"], "A golden labrador retriever.", 0, "missing: golden retriever"),
        // A whole word is needed.
        Row(["cat"], "A catalogue on a table.", 0, "missing: cat"),
        Row(["car"], "A cart full of hay.", 0, "missing: car"),
        Row(["sea"], "A seal on a rock.", 0, "missing: sea"),
        Row(["bus"], "A busy street.", 0, "missing: bus"),
        Row(["mice"], "A moose.", 0, "missing: mice"),
        Row(["running"], "A ruined house.", 0, "missing: running"),
        // Diacritics and other languages' inflections are left alone.
        Row(["caf\u{00E9}"], "A cafe.", 0, "missing: caf\u{00E9}"),
        Row(["Hund"], "Ein H\u{00FC}ndchen.", 0, "missing: Hund"),
        Row([" cat "], "", 0, "missing: cat"),
        Row(["cat"], nil, 0, "missing: cat"),
    ]

    @Test(arguments: found + missing)
    func gradesTheShareOfTermsFound(_ row: Row) {
        let input = ScoringInput(content: row.content, item: ScoringItem(mustMention: row.terms))
        let scores = KeywordRecallScorer().score(input)
        #expect(scores.count == 1)
        guard let score = scores.first else { return }
        #expect(score.name == ScoreName.keywordRecall)
        #expect(abs(score.value - row.value) < 1e-12, "detail: \(score.detail ?? "nil")")
        #expect(score.passed == nil)
        #expect(score.detail == row.detail)
    }

    @Test(arguments: [[], [""], ["  ", "!"]] as [[String]])
    func writesNoScoreWithoutTerms(_ terms: [String]) {
        let input = ScoringInput(content: "A dog.", item: ScoringItem(mustMention: terms))
        #expect(KeywordRecallScorer().score(input).isEmpty)
    }

    @Test(arguments: [
        ("dog", "dog"), ("dogs", "dog"), ("dog's", "dog"), ("puppies", "puppi"), ("puppy", "puppi"),
        ("boxes", "box"), ("glasses", "glass"), ("glass", "glass"), ("bus", "bus"), ("buses", "bus"),
        ("horses", "hors"), ("horse", "hors"), ("running", "run"), ("stopped", "stop"), ("falling", "fall"),
        ("making", "mak"), ("make", "mak"), ("mice", "mous"), ("mouse", "mous"), ("tree", "tree"),
        ("speed", "speed"), ("string", "string"), ("red", "red"), ("boy", "boy"), ("1990s", "1990s"),
    ])
    func stemsEnglishInflections(_ word: String, _ stem: String) {
        #expect(TermMatching.stem(word) == stem)
    }
}

// MARK: - Stems on random texts

extension KeywordRecallScorerTests {
    @Test func stemsKeepTheFirstTwoBytesButForIrregularPlurals() {
        var random = RandomAltText(seed: 15)
        var words = Array(TermMatching.irregularPlurals.keys) + TermMatching.irregularPlurals.keys.map { $0 + "'s" }
            + ["x's", "ab's", "abc's", "ies", "eies", "ying", "ssing"]
        for _ in 0..<2000 { words += TermMatching.words(in: random.text(pieces: 10)) }
        for word in words {
            let stem = Array(TermMatching.stem(word).utf8)
            let bytes = Array(word.utf8)
            #expect(stem.first == bytes.first, "\(word)")
            let possessive = word.hasSuffix("'s") ? String(word.dropLast(2)) : word
            guard stem.count >= 2, TermMatching.irregularPlurals[word] == nil,
                TermMatching.irregularPlurals[possessive] == nil
            else { continue }
            #expect(stem[1] == bytes[1], "\(word)")
        }
    }
}
