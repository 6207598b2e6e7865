import Foundation
import Testing

@testable import AltBenchCore

/// textstat 0.7.4's numbers for realistic alt texts, written by scripts/readability_goldens.py.
struct ReadabilityGoldens: Decodable {
    struct Text: Decodable, Sendable {
        var source: String
        var text: String
        var syllables: Int
        var words: Int
        var sentences: Int
        var flesch: Double
    }

    var textstat: String
    var texts: [Text]

    static let folder = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Scoring
        .deletingLastPathComponent()  // AltBenchCoreTests
        .appendingPathComponent("Fixtures/scoring", isDirectory: true)

    static func load() throws -> ReadabilityGoldens {
        let data = try Data(contentsOf: folder.appendingPathComponent("readability.json"))
        return try JSONDecoder().decode(ReadabilityGoldens.self, from: data)
    }
}

@Suite("readability")
struct ReadabilityScorerTests {
    // MARK: - textstat's counts and formula

    /// Given textstat's own syllable count, the Flesch Reading Ease, the word count and the
    /// sentence count equal textstat's for every golden text.
    @Test func matchesTextstatGivenItsSyllables() throws {
        let goldens = try ReadabilityGoldens.load()
        #expect(goldens.textstat == "0.7.4")
        #expect(goldens.texts.count >= 200)
        var maxDifference = 0.0
        for golden in goldens.texts {
            let counts = Readability.counts(in: golden.text, syllables: false)
            #expect(counts.words == golden.words, "\(golden.text.debugDescription)")
            #expect(counts.sentences == golden.sentences, "\(golden.text.debugDescription)")
            let value = Readability.fleschReadingEase(golden.text, syllables: golden.syllables)
            let difference = abs(value - golden.flesch)
            maxDifference = max(maxDifference, difference)
            #expect(difference <= 1e-9, "\(golden.text.debugDescription): \(value) vs \(golden.flesch)")
        }
        print("readability goldens: \(goldens.texts.count) texts, max |difference| \(maxDifference)")
    }

    /// How far the scorer's own value (with ``SyllableCounter``) is from textstat's; printed,
    /// and bounded so that a worse syllable counter fails. A syllable per word rounds to 0.1,
    /// so one syllable off in a short text moves the score by 8.46.
    @Test func ownSyllablesStayCloseToTextstat() throws {
        let goldens = try ReadabilityGoldens.load()
        var exactSyllables = 0
        var exactScores = 0
        var totalDifference = 0.0
        for golden in goldens.texts {
            let counts = Readability.counts(in: golden.text, syllables: true)
            if counts.syllables == golden.syllables { exactSyllables += 1 }
            let value = Readability.fleschReadingEase(
                words: counts.words, sentences: counts.sentences, syllables: counts.syllables)
            if abs(value - golden.flesch) <= 1e-9 { exactScores += 1 }
            totalDifference += abs(value - golden.flesch)
        }
        let n = Double(goldens.texts.count)
        let meanDifference = totalDifference / n
        print(
            "readability with SyllableCounter: syllables exact in \(exactSyllables)/\(goldens.texts.count) texts, "
                + "score exact in \(exactScores), mean |difference| \(meanDifference)")
        #expect(Double(exactScores) / n >= 0.6)
        #expect(meanDifference <= 6)
    }

    struct FormulaRow: Sendable, CustomTestStringConvertible {
        var text: String
        var syllables: Int
        var words: Int
        var sentences: Int
        var flesch: Double
        var testDescription: String { text.debugDescription }
    }

    /// The edge cases, each checked against textstat 0.7.4 by hand.
    static let formulaRows: [FormulaRow] = [
        // No words: 0 words per sentence, 0 syllables per word, one sentence.
        FormulaRow(text: "", syllables: 0, words: 0, sentences: 1, flesch: 206.84),
        FormulaRow(text: "\u{1F431}", syllables: 0, words: 0, sentences: 1, flesch: 206.84),
        FormulaRow(text: "...", syllables: 0, words: 0, sentences: 1, flesch: 206.84),
        // Short sentences (two words or fewer) are not counted, but at least one remains.
        FormulaRow(text: "A cat.", syllables: 2, words: 2, sentences: 1, flesch: 120.21),
        FormulaRow(
            text: "Wow! A huge wave crashes over the pier!", syllables: 9, words: 8, sentences: 1, flesch: 105.66),
        // Every "." ends a sentence: "Dr." and "U.S." are sentences of one word each.
        FormulaRow(
            text: "Dr. Smith went to the U.S. in 3.5 hours!", syllables: 9, words: 9, sentences: 1, flesch: 113.1),
        // Hyphens and apostrophes join: "well-known" and "I'm" are one word.
        FormulaRow(text: "well-known T-shirt", syllables: 3, words: 2, sentences: 1, flesch: 77.91),
        // Line breaks do not end a sentence; a dash alone is no word.
        FormulaRow(
            text: "A bridge over a river\nat dusk \u{2014} calm water and a red sky over the hills",
            syllables: 18, words: 16, sentences: 1, flesch: 97.54),
        // Negative values round one step further down (textstat's _legacy_round).
        FormulaRow(
            text: "Photosynthesis transforms electromagnetic radiation into biochemical energy.",
            syllables: 25, words: 7, sentences: 1, flesch: -104.84),
    ]

    @Test(arguments: formulaRows)
    func formulaAndCounts(_ row: FormulaRow) {
        let counts = Readability.counts(in: row.text, syllables: false)
        #expect(counts.words == row.words)
        #expect(counts.sentences == row.sentences)
        #expect(abs(Readability.fleschReadingEase(row.text, syllables: row.syllables) - row.flesch) <= 1e-9)
    }

    @Test func legacyRoundingMatchesTextstat() {
        #expect(Readability.legacyRound(2.25, 1) == 2.3)
        #expect(Readability.legacyRound(2.24, 1) == 2.2)
        #expect(Readability.legacyRound(-2.34, 1) == -2.4)
        #expect(Readability.legacyRound(206.835, 2) == 206.84)
        #expect(Readability.legacyRound(0, 2) == 0)
    }

    // MARK: - The scorer

    struct Row: Sendable, CustomTestStringConvertible {
        var content: String?
        var testDescription: String { content?.debugDescription ?? "nil content" }
        init(_ content: String?) { self.content = content }
    }

    /// Plain, short words and sentences: very easy to read (80 or more).
    static let easy: [Row] = [
        Row("A cat sleeping on a sofa."),
        Row("A red bike leans on a wall."),
        Row("Two kids play in the sand at the beach."),
        Row("The sun sets over a calm sea."),
        Row("A dog runs. It has a ball. The grass is green."),
        Row("A sign that says \"Open\" on a shop door."),
        Row("A T-shirt printed with I LOVE NY in big black letters."),
        Row("Tweet by @jane: \"Look at this cat!\" with a photo of a cat in a box."),
        Row("A man in a blue coat waits for the bus at 5 pm."),
        Row("Un chat dort sur un lit."),
        Row("Wow! A huge wave hits the pier! Kids run."),
        Row("small boat on a lake at dawn"),
    ]

    /// Long words and long run-on sentences: very hard to read (30 or less).
    static let hard: [Row] = [
        Row("Photosynthesis transforms electromagnetic radiation into biochemical energy."),
        Row("An unconventional, extraordinarily sophisticated architectural visualization."),
        Row(
            "Interdisciplinary collaboration between computational biologists and experimental "
                + "physicists necessitates unprecedented organizational flexibility."),
        Row(
            "An elaborately decorated multi-tiered wedding cake covered in cascading sugar flowers, "
                + "delicate lace-patterned fondant, shimmering edible pearls and intricate piped scrollwork "
                + "stands on a mirrored pedestal in the middle of a brightly illuminated reception hall "
                + "while guests in formal attire gather around it admiring the craftsmanship."),
        Row("Comprehensive infographic illustrating international telecommunications infrastructure."),
        Row("A SIGN READING \"UNAUTHORIZED VEHICLES PROHIBITED: VIOLATORS PROSECUTED\" ON A FENCE."),
        Row("Quote: \"Unquestionably, individuality necessitates responsibility.\""),
        Row("Vue panoramique exceptionnelle: architecture contemporaine, fondations monumentales."),
        Row("Administrative documentation regarding organizational accountability procedures, 2024."),
        Row("Electroencephalography laboratory instrumentation."),
        Row(
            "A sprawling aerial photograph of a dense tropical rainforest canopy stretching toward the "
                + "horizon, interrupted by a winding muddy river that reflects the pale overcast sky, with "
                + "wisps of low-hanging mist drifting between the tallest emergent trees and a faint "
                + "mountain ridge barely visible in the hazy distance"),
    ]

    static func value(_ content: String?) -> Score? {
        let scores = ReadabilityScorer().score(ScoringInput(content: content))
        #expect(scores.count <= 1)
        return scores.first
    }

    @Test(arguments: easy)
    func easyTextsScoreHigh(_ row: Row) throws {
        let score = try #require(Self.value(row.content))
        #expect(score.name == ScoreName.readability)
        #expect(score.passed == nil)
        #expect(score.detail == nil)
        #expect(score.value >= 80, "\(score.value)")
    }

    @Test(arguments: hard)
    func hardTextsScoreLow(_ row: Row) throws {
        let score = try #require(Self.value(row.content))
        #expect(score.name == ScoreName.readability)
        #expect(score.value <= 30, "\(score.value)")
    }

    /// No score without a word to read.
    @Test(arguments: [Row(nil), Row(""), Row("  \n "), Row("..."), Row("\u{1F431}\u{1F436}"), Row("?!")])
    func noScoreWithoutWords(_ row: Row) {
        #expect(ReadabilityScorer().score(ScoringInput(content: row.content)).isEmpty)
    }

    /// The scorer reads the trimmed text, and its value is the formula on its own counts.
    @Test func valueIsTheFormulaOnTheCounts() throws {
        let text = "  Close-up of a tabby cat with wide green-gold eyes looking off to one side.\n"
        let score = try #require(Self.value(text))
        let counts = Readability.counts(in: text, syllables: true)
        #expect(counts.words == 14)
        #expect(counts.sentences == 1)
        #expect(counts.syllables == SyllableCounter.count(text: text))
        #expect(
            score.value
                == Readability.fleschReadingEase(
                    words: counts.words, sentences: counts.sentences, syllables: counts.syllables))
    }

    /// A string whose UTF-8 is not stored contiguously (bridged or substring-made) counts the same.
    @Test func countsDoNotDependOnStorage() {
        let text = "Vue du Palais d'\u{C9}t\u{E9} \u{E0} P\u{E9}kin. "
            + "\u{732B}\u{304C}\u{5BDD}\u{3066}\u{3044}\u{308B}\u{3002} Caf\u{65}\u{301}!"
        let copy = String(text.unicodeScalars.map(Character.init))
        #expect(Readability.counts(in: text, syllables: true) == Readability.counts(in: copy, syllables: true))
        #expect(Readability.counts(in: text, syllables: false).words == 8)
    }
}
