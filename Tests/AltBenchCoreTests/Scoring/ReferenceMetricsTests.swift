import Foundation
import Testing

@testable import AltBenchCore

/// The numbers of Fixtures/scoring/reference-metrics.json, written by
/// scripts/reference_goldens.py with pycocoevalcap 1.2.
struct ReferenceGoldens: Decodable, Sendable {
    struct Text: Decodable, Sendable {
        var text: String
        var tokens: [String]
    }

    struct Image: Decodable, Sendable {
        var id: String
        var kind: String
        var candidate: String
        var references: [String]
        var bleu: [Double]
        var rougeL: Double
        var ciderD: Double
    }

    struct Corpus: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var description: String
        var bleu: [Double]
        var rougeL: Double
        var ciderD: Double
        var images: [Image]

        var testDescription: String { name }
    }

    struct Mean: Decodable, Sendable {
        var values: [Double]
        var mean: Double
    }

    var texts: [Text]
    var corpora: [Corpus]
    var numpyMeans: [Mean]

    enum CodingKeys: String, CodingKey {
        case texts, corpora
        case numpyMeans = "numpy_means"
    }

    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Scoring
        .deletingLastPathComponent()  // AltBenchCoreTests
        .appendingPathComponent("Fixtures/scoring/reference-metrics.json")

    static func load() throws -> ReferenceGoldens {
        try JSONDecoder().decode(ReferenceGoldens.self, from: Data(contentsOf: file))
    }

    /// The corpus names, for parameterised tests: a goldens file that does not load fails
    /// the tests that use it, instead of giving them no cases.
    static func corpusNames() throws -> [String] {
        let names = try load().corpora.map(\.name)
        guard !names.isEmpty else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file.path]) }
        return names
    }

    func tokens(of text: String) -> [String] {
        tokenTable[text] ?? []
    }

    var tokenTable: [String: [String]] {
        Dictionary(texts.map { ($0.text, $0.tokens) }, uniquingKeysWith: { a, _ in a })
    }

    func corpus(named name: String) throws -> Corpus {
        try #require(corpora.first { $0.name == name })
    }
}

/// Compares two numbers within 1e-9, naming what is compared.
private func expectClose(
    _ actual: Double, _ expected: Double, _ what: @autoclosure () -> String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(abs(actual - expected) <= 1e-9, "\(what()): \(actual) vs pycocoevalcap \(expected)", sourceLocation: sourceLocation)
}

@Suite("Reference metrics")
struct ReferenceMetricsTests {
    // MARK: - Goldens

    /// The metrics on exactly the tokens pycocoevalcap scored.
    @Test(arguments: try ReferenceGoldens.corpusNames())
    func matchesPycocoevalcapOnTokens(_ name: String) throws {
        let goldens = try ReferenceGoldens.load()
        let golden = try goldens.corpus(named: name)
        let table = goldens.tokenTable
        let corpus = ReferenceCorpus(tokenizedItems: golden.images.map { image in
            (id: image.id, references: image.references.map { table[$0]! })
        })
        let result = try #require(
            ReferenceMetrics.score(tokenized: golden.images.map { (itemID: $0.id, tokens: table[$0.candidate]!) }, corpus: corpus))
        check(result, against: golden)
    }

    /// The same runs from the raw texts, through ``CaptionTokenizer``.
    @Test(arguments: try ReferenceGoldens.corpusNames())
    func matchesPycocoevalcapOnTexts(_ name: String) throws {
        let golden = try ReferenceGoldens.load().corpus(named: name)
        let corpus = ReferenceCorpus(items: golden.images.map { ScoringItem(id: $0.id, references: $0.references) })
        let result = try #require(ReferenceMetrics.score(golden.images.map { ($0.id, $0.candidate) }, corpus: corpus))
        check(result, against: golden)
    }

    private func check(_ result: ReferenceMetrics.Result, against golden: ReferenceGoldens.Corpus) {
        #expect(result.count == golden.images.count)
        #expect(result.skipped == 0)
        for n in 0..<4 { expectClose(result.bleu[n], golden.bleu[n], "corpus BLEU-\(n + 1)") }
        expectClose(result.rougeL, golden.rougeL, "corpus ROUGE-L")
        expectClose(result.ciderD, golden.ciderD, "corpus CIDEr-D")
        for (item, image) in zip(result.items, golden.images) {
            #expect(item.itemID == image.id)
            for n in 0..<4 { expectClose(item.bleu[n], image.bleu[n], "\(image.id) (\(image.kind)) BLEU-\(n + 1)") }
            expectClose(item.rougeL, image.rougeL, "\(image.id) (\(image.kind)) ROUGE-L")
            expectClose(item.ciderD, image.ciderD, "\(image.id) (\(image.kind)) CIDEr-D")
        }
    }

    /// The per-answer scorers give each image's value within the run's corpus.
    @Test(arguments: try ReferenceGoldens.corpusNames())
    func perAnswerScorersMatchPerImageValues(_ name: String) throws {
        let golden = try ReferenceGoldens.load().corpus(named: name)
        let items = golden.images.map { ScoringItem(id: $0.id, references: $0.references) }
        let corpus = ReferenceCorpus(items: items)
        for (item, image) in zip(items, golden.images) {
            let input = ScoringInput(content: image.candidate, item: item, corpus: corpus)
            let bleu = Bleu4Scorer().score(input), rouge = RougeLScorer().score(input), cider = CiderDScorer().score(input)
            try #require(bleu.count == 1 && rouge.count == 1 && cider.count == 1)
            expectClose(bleu[0].value, image.bleu[3], "\(image.id) bleu4")
            expectClose(rouge[0].value, image.rougeL, "\(image.id) rougeL")
            expectClose(cider[0].value, image.ciderD, "\(image.id) ciderD")
            #expect(bleu[0].name == ScoreName.bleu4 && rouge[0].name == ScoreName.rougeL && cider[0].name == ScoreName.ciderD)
            #expect(bleu[0].passed == nil && rouge[0].passed == nil && cider[0].passed == nil)
        }
    }

    @Test func goldensCoverTheCasesAsked() throws {
        let goldens = try ReferenceGoldens.load()
        #expect(goldens.corpora.contains { $0.images.count >= 24 })
        let referenceCounts = Set(goldens.corpora.flatMap { $0.images.map(\.references.count) })
        #expect(referenceCounts.isSuperset(of: [1, 5]))
        let kinds = Set(goldens.corpora.flatMap { $0.images.map(\.kind) })
        #expect(kinds.isSuperset(of: ["identical", "truncated", "shuffled", "near-copy", "unrelated", "one-token", "repeated"]))
    }

    /// numpy's pairwise mean, to the last bit.
    @Test func meanMatchesNumpyExactly() throws {
        let goldens = try ReferenceGoldens.load()
        #expect(goldens.numpyMeans.contains { $0.values.count > 128 })
        for mean in goldens.numpyMeans {
            #expect(ReferenceMetrics.numpyMean(mean.values) == mean.mean, "\(mean.values.count) values")
        }
    }

    // MARK: - Hand-checkable cases

    static func words(_ text: String) -> [String] { text.split(separator: " ").map(String.init) }

    @Test func identicalCandidate() throws {
        let caption = Self.words("a tabby cat sleeping on a grey sofa")
        let result = try #require(ReferenceMetrics.evaluate(candidates: [caption], references: [[caption]]))
        let item = result.items[0]
        for n in 0..<4 { #expect(abs(item.bleu[n] - 1) < 1e-9) }
        #expect(item.rougeL == 1)
        // One image: ref_len = log 1 = 0, so every tf-idf weight and CIDEr-D are 0.
        #expect(item.ciderD == 0)
        #expect(result.ciderD == 0)
    }

    @Test func disjointCandidate() throws {
        let result = try #require(
            ReferenceMetrics.evaluate(
                candidates: [Self.words("a dog runs"), Self.words("red car")],
                references: [[Self.words("the cat sleeps")], [Self.words("blue sky")]]))
        for item in result.items {
            // Smoothing leaves BLEU a hair above 0: (0 + 1e-15) / (guess + 1e-9) per order.
            for n in 0..<4 { #expect(item.bleu[n] < 1e-9) }
            #expect(item.rougeL == 0)
            #expect(item.ciderD == 0)
        }
        #expect(result.bleu4 < 1e-9)
    }

    /// "a cat on a mat" against "a cat on the mat": 4/5 unigrams, 2/4 bigrams, 1/3 trigrams
    /// and 0/2 4-grams match; LCS 4 of 5 tokens each way.
    @Test func bleuAndRougeByHand() throws {
        let result = try #require(
            ReferenceMetrics.evaluate(candidates: [Self.words("a cat on a mat")], references: [[Self.words("a cat on the mat")]]))
        let bleu = result.items[0].bleu
        #expect(abs(bleu[0] - 0.8) < 1e-9)
        #expect(abs(bleu[1] - (0.8 * 0.5).squareRoot()) < 1e-9)
        #expect(abs(bleu[2] - Foundation.pow(0.8 * 0.5 / 3, 1.0 / 3)) < 1e-9)
        // No 4-gram matches: (1e-15 / 2) smoothing, not 0.
        #expect(abs(bleu[3] - Foundation.pow(0.8 * 0.5 / 3 * (1e-15 / 2), 0.25)) < 1e-12)
        #expect(bleu[3] > 0 && bleu[3] < 1e-3)
        #expect(abs(result.items[0].rougeL - 0.8) < 1e-12)
        #expect(result.bleu == bleu)  // one sentence: corpus BLEU is the sentence's
        #expect(BLEU.sentenceScores(candidate: Self.words("a cat on a mat"), references: [Self.words("a cat on the mat")]) == bleu)
    }

    /// ROUGE-L takes the best precision and the best recall, possibly from different
    /// references.
    @Test func rougeTakesBestPrecisionAndRecallSeparately() {
        // Against "a b": precision 2/2... candidate "a b" has LCS 2 with both; recall 2/2 from
        // the first, 2/8 from the second.
        let score = RougeL.score(candidate: ["a", "b"], references: [["a", "b"], Self.words("a x x x x x x b")])
        #expect(score == 1)
        let mixed = RougeL.score(candidate: Self.words("a b c d"), references: [Self.words("a b"), Self.words("c d e f g h")])
        // prec_max = 2/4 (both), rec_max = 2/2 (first): F = 2.44 · 0.5 · 1 / (1 + 1.44 · 0.5).
        #expect(abs(mixed - 2.44 * 0.5 / (1 + 1.44 * 0.5)) < 1e-12)
    }

    /// Two images with disjoint words: every n-gram has df 1, idf log 2. A copy of a 4-token
    /// reference matches all 4 orders fully: 10 · (1 + 1 + 1 + 1) / 4 = 10. "e f g x" matches
    /// 3/4 of the unigram vector, 2/3 of the bigram one, 1/2 of the trigram one, none of the
    /// 4-gram: 10 · (3/4 + 2/3 + 1/2) / 4 = 230/48.
    @Test func ciderDByHand() throws {
        let result = try #require(
            ReferenceMetrics.evaluate(
                candidates: [Self.words("a b c d"), Self.words("e f g x")],
                references: [[Self.words("a b c d")], [Self.words("e f g h")]]))
        #expect(abs(result.items[0].ciderD - 10) < 1e-12)
        #expect(abs(result.items[1].ciderD - 230.0 / 48) < 1e-12)
        #expect(abs(result.ciderD - (10 + 230.0 / 48) / 2) < 1e-12)
    }

    /// δ counts bigrams: 4 tokens against 10 gives δ = 3 − 9 = −6 and a penalty e^(−36/72).
    @Test func ciderDLengthPenalty() throws {
        let short = Self.words("a b c d")
        let long = Self.words("a b c d w x y z u v")
        let corpus = ReferenceCorpus(tokenizedItems: [(id: "1", references: [long]), (id: "2", references: [Self.words("p q r s")])])
        let withPenalty = try #require(CiderD.score(candidate: short, itemID: "1", corpus: corpus))
        // Without the penalty: the cosine of each order between the 4-token and 10-token
        // vectors (all weights log 2): orders 1...4 have 4/√40, 3/√27, 2/√16... over norms.
        let cosines = [4 / (4.0.squareRoot() * 10.0.squareRoot()), 3 / (3.0.squareRoot() * 9.0.squareRoot()),
                       2 / (2.0.squareRoot() * 8.0.squareRoot()), 1 / (1.0.squareRoot() * 7.0.squareRoot())]
        let expected = 10 * cosines.reduce(0, +) / 4 * Foundation.exp(-0.5)
        #expect(abs(withPenalty - expected) < 1e-12)
    }

    /// An n-gram every image's references hold has idf log(N) − log(N) = 0 and weighs nothing.
    @Test func ciderDIgnoresNGramsOfEveryImage() throws {
        let corpus = ReferenceCorpus(tokenizedItems: [
            (id: "1", references: [Self.words("a photo of a cat")]),
            (id: "2", references: [Self.words("a photo of a dog")]),
        ])
        #expect(corpus.documentFrequency(of: ["a", "photo"]) == 2)
        #expect(corpus.documentFrequency(of: ["cat"]) == 1)
        #expect(corpus.documentFrequency(of: ["horse"]) == 0)
        let shared = try #require(CiderD.score(candidate: Self.words("a photo of a"), itemID: "1", corpus: corpus))
        #expect(shared == 0)
        let specific = try #require(CiderD.score(candidate: Self.words("a photo of a cat"), itemID: "1", corpus: corpus))
        #expect(abs(specific - 10) < 1e-12)
    }

    /// pycocoevalcap splits an empty candidate into one empty token: ROUGE-L 0, BLEU 0.
    @Test func emptyCandidateInTheRun() throws {
        let result = try #require(ReferenceMetrics.evaluate(candidates: [[]], references: [[Self.words("a cat")]]))
        #expect(result.items[0].bleu == [0, 0, 0, 0])
        #expect(result.items[0].rougeL == 0)
        #expect(result.items[0].ciderD == 0)
    }

    // MARK: - Corpus

    @Test func corpusHoldsItemsWithReferencesFirstIDWins() throws {
        let corpus = ReferenceCorpus(items: [
            ScoringItem(id: "a", references: ["A cat on a sofa."]),
            ScoringItem(id: "b", references: []),
            ScoringItem(id: "c", references: ["  ", "\n"]),
            ScoringItem(id: "a", references: ["A dog."]),
            ScoringItem(id: "d", references: ["", "Two dogs' bowls."]),
            ScoringItem(id: "b", references: ["A bird."]),
        ])
        #expect(corpus.count == 2)
        #expect(corpus.contains("a") && corpus.contains("d"))
        #expect(!corpus.contains("b") && !corpus.contains("c"))
        #expect(corpus.references(of: "a") == [["a", "cat", "on", "a", "sofa"]])
        #expect(corpus.references(of: "d") == [["two", "dogs", "bowls"]])
        #expect(corpus.references(of: "b") == nil)
        #expect(corpus.documentFrequency(of: ["a"]) == 1)
    }

    @Test func answersWithoutReferencesAreSkippedAndCounted() throws {
        let corpus = ReferenceCorpus(items: [
            ScoringItem(id: "cat", references: ["A cat on a sofa."]),
            ScoringItem(id: "dog", references: ["A dog in a park."]),
        ])
        let result = try #require(
            ReferenceMetrics.score(
                [("cat", "A cat on a sofa."), ("none", "Anything."), ("dog", "A dog."), ("cat", "A cat.")], corpus: corpus))
        #expect(result.count == 3)
        #expect(result.skipped == 1)
        #expect(result.items.map(\.itemID) == ["cat", "dog", "cat"])
        #expect(ReferenceMetrics.score([("none", "Anything.")], corpus: corpus) == nil)
        #expect(ReferenceMetrics.ciderD([("none", "Anything.")], corpus: corpus) == nil)
    }

    /// Two models answering the same items: the idf stays the run's, so each answer scores as
    /// it would alone, and the corpus figures are the means over all answers.
    @Test func severalAnswersPerItemShareTheRunsIDF() throws {
        let items = [
            ScoringItem(id: "cat", references: ["A tabby cat asleep on a sofa.", "A cat sleeping on a grey couch."]),
            ScoringItem(id: "dog", references: ["A dog catching a frisbee.", "A golden retriever leaps for a frisbee."]),
            ScoringItem(id: "bike", references: ["A red bike by a wall."]),
        ]
        let corpus = ReferenceCorpus(items: items)
        let modelA = [("cat", "A cat asleep on a sofa."), ("dog", "A dog with a frisbee."), ("bike", "A bike.")]
        let modelB = [("cat", "A grey cat."), ("dog", "A golden retriever catching a frisbee."), ("bike", "A red bike by a brick wall.")]
        let a = try #require(ReferenceMetrics.score(modelA, corpus: corpus))
        let b = try #require(ReferenceMetrics.score(modelB, corpus: corpus))
        let both = try #require(ReferenceMetrics.score(modelA + modelB, corpus: corpus))
        #expect(both.items.map(\.ciderD) == a.items.map(\.ciderD) + b.items.map(\.ciderD))
        #expect(abs(both.ciderD - (a.ciderD + b.ciderD) / 2) < 1e-12)
        #expect(abs(both.rougeL - (a.rougeL + b.rougeL) / 2) < 1e-12)
        #expect(ReferenceMetrics.ciderD(modelA, corpus: corpus) == a.ciderD)
    }

}

// MARK: - Per-answer scorers

/// A small run of alt-text items with human references, for the per-answer scorer tables.
enum ReferenceScorerFixtures {
    static let items: [ScoringItem] = [
        ScoringItem(id: "cat", references: [
            "A tabby cat sleeping on a grey sofa.", "A striped cat curled up asleep on a grey couch.",
            "Tabby cat asleep on a sofa.",
        ]),
        ScoringItem(id: "sign", references: [
            "A shop door with a sign that reads CLOSED FOR LUNCH, BACK AT 2 PM.",
            "A hand-written sign on a door says closed for lunch, back at 2 pm.", "Door sign: closed for lunch, back at 2pm.",
        ]),
        ScoringItem(id: "coffee", references: [
            "A cup of espresso on a saucer with a small spoon, on a wooden table.",
            "Top-down view of an espresso cup and saucer with a spoon on wood.", "An espresso in a red cup on a wooden table.",
        ]),
        ScoringItem(id: "tweet", references: [
            "Screenshot of a post that says \u{201C}Our new bakery opens on Monday!\u{201D} with a photo of bread.",
            "A social media post announcing a new bakery opening Monday, with a photo of loaves of bread.",
            "Post: our new bakery opens on Monday, above a photo of bread.",
        ]),
        ScoringItem(id: "chart", references: [
            "A bar chart of monthly sales from January to June, rising from 41% to 71%.",
            "Bar chart showing sales growing each month from January (41%) to June (71%).",
            "Chart of sales rising from 41% in January to 71% in June.",
        ]),
        ScoringItem(id: "beach", references: [
            "Two children building a sandcastle on a sunny beach.", "Kids making a sand castle at the beach on a sunny day.",
            "Two kids build a sandcastle by the sea.",
        ]),
        ScoringItem(id: "rocket", references: [
            "A rocket lifting off from a launch pad in a cloud of smoke.",
            "Rocket launch: a white rocket rises above the pad on a column of fire and smoke.", "A rocket taking off at night.",
        ]),
        ScoringItem(id: "tshirt", references: [
            "A man wearing a black T-shirt that says I LOVE NY.", "A man in a black T-shirt printed with I love NY.",
            "Man in an I love NY T-shirt.",
        ]),
        ScoringItem(id: "menu", references: [
            "A chalkboard menu listing soup of the day, tomato, for $4.50.", "Chalkboard menu: tomato soup of the day, $4.50.",
            "A caf\u{00E9} chalkboard offering tomato soup for 4.50 dollars.",
        ]),
        ScoringItem(id: "dog", references: [
            "A golden retriever catching a red frisbee in a park.", "A dog leaps to catch a red frisbee on the grass.",
            "Golden retriever jumping for a frisbee.",
        ]),
        ScoringItem(id: "city", references: [
            "A city skyline at night with lit skyscrapers reflected in a river.",
            "Skyscrapers lit up at night, reflected in the river below.", "Night view of a city skyline over a river.",
        ]),
        ScoringItem(id: "bike", references: [
            "A red bicycle leaning against a brick wall.", "Red bike propped against an old brick wall.",
            "A bicycle parked by a brick wall.",
        ]),
        ScoringItem(id: "none", references: []),
        ScoringItem(id: "blank", references: ["  ", ""]),
    ]

    static let corpus = ReferenceCorpus(items: items)

    static func item(_ id: String) -> ScoringItem { items.first { $0.id == id }! }
}

/// One row of a per-answer reference scorer table: an answer to an item, and whether its
/// score must be high or low.
struct ReferenceScoreCase: Sendable, CustomTestStringConvertible {
    var itemID: String
    var content: String?
    var high: Bool

    static func high(_ itemID: String, _ content: String?) -> Self { Self(itemID: itemID, content: content, high: true) }
    static func low(_ itemID: String, _ content: String?) -> Self { Self(itemID: itemID, content: content, high: false) }

    var input: ScoringInput {
        ScoringInput(content: content, item: ReferenceScorerFixtures.item(itemID), corpus: ReferenceScorerFixtures.corpus)
    }

    var testDescription: String {
        "\(itemID): \(content.map(\.debugDescription) ?? "nil content") \(high ? "high" : "low")"
    }
}

/// Runs a reference scorer on `row` and checks its one score against the thresholds.
func expectReferenceScore(
    _ scorer: some Scorer, name: String, _ row: ReferenceScoreCase, high: Double, low: Double,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let scores = scorer.score(row.input)
    #expect(scores.count == 1, sourceLocation: sourceLocation)
    guard let score = scores.first else { return }
    #expect(score.name == name, sourceLocation: sourceLocation)
    #expect(score.passed == nil, sourceLocation: sourceLocation)
    if row.high {
        #expect(score.value >= high, "\(name) \(score.value)", sourceLocation: sourceLocation)
    } else {
        #expect(score.value <= low, "\(name) \(score.value)", sourceLocation: sourceLocation)
    }
}

/// Answers every reference scorer must rank high or low, with the traps real alt text meets:
/// quoted and unquoted sign text, all-caps signs and T-shirts, quoted posts, numbers,
/// non-English text, refusals, emoji, empty and nil content.
enum ReferenceScoreCases {
    static let high: [ReferenceScoreCase] = [
        .high("cat", "A tabby cat sleeping on a grey sofa."),
        .high("cat", "a tabby cat sleeping on a grey sofa"),
        .high("sign", "A shop door with a sign that reads \u{201C}CLOSED FOR LUNCH, BACK AT 2 PM\u{201D}."),
        .high("sign", "A hand-written sign on a door says CLOSED FOR LUNCH, BACK AT 2 PM."),
        .high("coffee", "Top-down view of an espresso cup and saucer with a spoon on a wooden table."),
        .high("tweet", "Screenshot of a post that says \"Our new bakery opens on Monday!\" with a photo of bread."),
        .high("chart", "A bar chart of monthly sales from January to June, rising from 41% to 71%."),
        .high("beach", "Two children building a sandcastle on a sunny beach!"),
        .high("rocket", "Rocket launch: a white rocket rises above the pad on a column of fire and smoke."),
        .high("tshirt", "A man wearing a black T-shirt that says 'I LOVE NY'."),
        .high("menu", "A chalkboard menu listing soup of the day, tomato, for $4.50."),
        .high("dog", "A golden retriever catching a red frisbee in the park."),
        .high("city", "A city skyline at night with lit skyscrapers reflected in a river."),
        .high("bike", "A red bicycle leaning against a brick wall."),
    ]

    static let low: [ReferenceScoreCase] = [
        .low("cat", nil),
        .low("cat", ""),
        .low("cat", "   "),
        .low("cat", "I'm sorry, but I can't help with that."),
        .low("cat", "Eine getigerte Katze schl\u{00E4}ft auf einem grauen Sofa."),
        .low("cat", "\u{1F63A}\u{1F63A}\u{1F63A}"),
        .low("cat", "..."),
        .low("dog", "A tabby cat sleeping on a grey sofa."),
        .low("bike", "#caturday @catlover https://example.com/cats"),
        .low("chart", "Numbers: 12, 19, 33, 58."),
        .low("city", "Un gratte-ciel la nuit."),
        .low("rocket", "A bowl of soup."),
    ]
}

@Suite("bleu4")
struct Bleu4ScorerTests {
    @Test(arguments: ReferenceScoreCases.high + ReferenceScoreCases.low + [
        .high("cat", "A TABBY CAT SLEEPING ON A GREY SOFA."),
        .low("cat", "Cat."),
        .low("cat", "sofa grey a on sleeping cat tabby A"),
    ])
    func scores(_ row: ReferenceScoreCase) {
        expectReferenceScore(Bleu4Scorer(), name: ScoreName.bleu4, row, high: 0.6, low: 0.1)
    }
}

@Suite("rougeL")
struct RougeLScorerTests {
    @Test(arguments: ReferenceScoreCases.high + ReferenceScoreCases.low + [
        .high("cat", "A tabby cat on a sofa."),
        .high("dog", "A dog leaps to catch a red frisbee on grass."),
        .low("cat", "Cat."),
    ])
    func scores(_ row: ReferenceScoreCase) {
        expectReferenceScore(RougeLScorer(), name: ScoreName.rougeL, row, high: 0.7, low: 0.3)
    }
}

@Suite("ciderD")
struct CiderDScorerTests {
    @Test(arguments: ReferenceScoreCases.high + ReferenceScoreCases.low + [
        .high("cat", "A tabby cat asleep on a grey couch."),
        .high("dog", "A golden retriever leaps to catch a red frisbee."),
        .low("cat", "A photo of a bowl."),
    ])
    func scores(_ row: ReferenceScoreCase) {
        expectReferenceScore(CiderDScorer(), name: ScoreName.ciderD, row, high: 2.0, low: 0.5)
    }

    /// Without a run corpus holding the item, its references are a corpus of one image, where
    /// CIDEr-D is 0 for any answer; BLEU-4 and ROUGE-L do not need the corpus.
    @Test func scoresZeroWithoutTheRunsCorpus() {
        let item = ReferenceScorerFixtures.item("cat")
        for corpus in [nil, ReferenceCorpus(items: [ReferenceScorerFixtures.item("dog")])] {
            let input = ScoringInput(content: "A tabby cat sleeping on a grey sofa.", item: item, corpus: corpus)
            #expect(CiderDScorer().score(input).map(\.value) == [0])
            let withRun = ScoringInput(content: input.content, item: item, corpus: ReferenceScorerFixtures.corpus)
            #expect(Bleu4Scorer().score(input) == Bleu4Scorer().score(withRun))
            #expect(RougeLScorer().score(input) == RougeLScorer().score(withRun))
        }
    }
}

@Suite("Reference scorers without references")
struct ReferenceScorersWithoutReferencesTests {
    static let inputs: [ScoringInput] = [
        ScoringInput(content: "A cat."),
        ScoringInput(content: "A cat.", item: ReferenceScorerFixtures.item("none"), corpus: ReferenceScorerFixtures.corpus),
        ScoringInput(content: "A cat.", item: ReferenceScorerFixtures.item("blank"), corpus: ReferenceScorerFixtures.corpus),
        ScoringInput(content: nil, item: ReferenceScorerFixtures.item("none")),
    ]

    @Test func writeNoScore() {
        for input in Self.inputs {
            #expect(Bleu4Scorer().score(input).isEmpty)
            #expect(RougeLScorer().score(input).isEmpty)
            #expect(CiderDScorer().score(input).isEmpty)
        }
    }
}
