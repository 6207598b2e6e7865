import Foundation
import Testing

@testable import AltBenchCore

@Suite("reference_match")
struct ReferenceMatchScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var label: String
        var answer: String
        var references: [String]
        var lang: String? = nil
        /// The value's bounds, inclusive; `nil`: no score.
        var range: ClosedRange<Double>?
        var detail: String? = nil
        var testDescription: String { label }
    }

    static let chelsea = [
        "Close-up of a tabby cat's face. Its wide green-gold eyes look just past the camera, above a pink nose and long white whiskers, against a soft blurred background.",
        "A brown striped tabby cat photographed up close, gazing to one side with large yellow-green eyes, a pink nose and long white whiskers.",
        "Close-up of a tabby cat with wide green-gold eyes looking off to one side.",
    ]

    static let rows: [Row] = [
        Row(label: "a short correct paraphrase reads high",
            answer: "A tabby cat's face up close, with green eyes and white whiskers.", references: chelsea,
            range: 0.6...0.99),
        Row(label: "a reference itself reads high, below 1: the other references say more",
            answer: chelsea[2], references: chelsea, range: 0.8...0.999, detail: "best: reference 3"),
        Row(label: "an answer equal to the only reference reads 1", answer: chelsea[2], references: [chelsea[2]],
            range: 1...1),
        Row(label: "a fluent sentence about another image is low",
            answer: "A person smiling at the camera in a park.", references: chelsea, range: 0...0.2),
        Row(label: "a sentence sharing no content word is 0",
            answer: "A test description of the image.", references: chelsea, range: 0...0,
            detail: "no content word in common with a reference"),
        Row(label: "inflections and stop words do not matter",
            answer: "Tabby cats, wide eyes.", references: ["The tabby cat with the wide eye."], range: 1...1,
            detail: "best: reference 1"),
        Row(label: "one reference: METEOR's F-mean through the curve",
            answer: "A tabby cat on a red sofa.", references: ["A tabby cat asleep in the sun."],
            // Content stems: {tabbi, cat, red, sofa} against {tabbi, cat, asleep, sun}: P = R = 0.5,
            // F = 0.5, and 1 − 0.5³ = 0.875.
            range: 0.875...0.875),
        Row(label: "blank references are no references", answer: "A cat.", references: ["", "  \n", "A."], range: nil),
        Row(label: "a blank reference is skipped, the others count",
            answer: "A tabby cat.", references: ["", "A tabby cat."], range: 1...1, detail: "best: reference 2"),
        Row(label: "no references, no score", answer: "A cat.", references: [], range: nil),
        Row(label: "an empty answer is 0", answer: "", references: chelsea, range: 0...0),
        Row(label: "French: elided articles and stop words are set aside",
            answer: "La façade d'une boulangerie avec l'enseigne « Pain chaud ».",
            references: [
                "Façade d'une boulangerie : l'enseigne indique « Pain chaud » au-dessus de la vitrine.",
                "Une boulangerie dont l'enseigne annonce « Pain chaud ».",
            ], lang: "fr", range: 0.75...1),
        Row(label: "German: a wrong English sentence is 0",
            answer: "A cat sits on a sofa by the window.",
            references: ["Ein Schild am Teich: „Bitte die Enten nicht füttern“.", "Schild: Enten bitte nicht füttern."],
            lang: "de", range: 0...0),
    ]

    @Test(arguments: rows)
    func scores(_ row: Row) {
        let input = ScoringInput(
            content: row.answer, finishReason: "stop",
            item: ScoringItem(id: "x", references: row.references, lang: row.lang))
        let scores = ReferenceMatchScorer().score(input)
        guard let range = row.range else {
            #expect(scores.isEmpty)
            return
        }
        #expect(scores.count == 1)
        guard let score = scores.first else { return }
        #expect(score.name == ScoreName.referenceMatch)
        #expect(range.contains(score.value), "value \(score.value)")
        #expect(score.passed == nil)
        if let detail = row.detail { #expect(score.detail == detail) }
    }

    @Test("F-mean weighs recall nine times precision, as METEOR does")
    func fMean() {
        let bag: (String) -> ReferenceMatchScorer.Bag = { ReferenceMatchScorer.bag($0) }
        let half: Double = ReferenceMatchScorer.fMean(bag("A tabby cat."), bag("A tabby dog."))
        #expect(abs(half - 0.5) < 1e-12)
        // All of the reference and more (P 2/3, R 1) beats half of it with nothing else (P 1, R 1/2).
        let covers: Double = ReferenceMatchScorer.fMean(bag("A tabby cat, red."), bag("A tabby cat."))
        let partial: Double = ReferenceMatchScorer.fMean(bag("A tabby."), bag("A tabby cat."))
        #expect(abs(covers - (2.0 / 3) / (0.9 * 2 / 3 + 0.1)) < 1e-12)
        #expect(abs(partial - 0.5 / (0.9 + 0.05)) < 1e-12)
        #expect(covers > partial)
        #expect(ReferenceMatchScorer.curve(0) == 0)
        #expect(ReferenceMatchScorer.curve(1) == 1)
    }

    @Test("every stop-word table holds only lowercase words; elisions are dropped")
    func stopWords() {
        for word in StopWords.all { #expect(word == word.lowercased(), "\(word)") }
        #expect(ReferenceMatchScorer.dropElision("l'eau") == "eau")
        #expect(ReferenceMatchScorer.dropElision("qu'il") == "il")
        #expect(ReferenceMatchScorer.dropElision("don't") == "don't")
        #expect(ReferenceMatchScorer.dropElision("l'") == "l'")
    }
}

/// `quality` on the bundled sample under the built-in defaults: a wrong sentence given for
/// every image stays low, a correct description high (``QualityCalibration``).
@Suite("quality calibration on the sample")
struct QualityCalibrationTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Scoring
        .deletingLastPathComponent()  // AltBenchCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("datasets/sample", isDirectory: true)

    @Test("a wrong sentence scores ≤ 0.35 and a correct description ≥ 0.75 on average")
    func bounds() throws {
        let independent = try QualityCalibration.descriptions(
            from: Self.folder.deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Tests/Corpus/sample-independent.jsonl"))
        #expect(independent.count == 27)
        let figures = try QualityCalibration.measure(directory: Self.folder, independent: independent)
        #expect(figures.items == 27)
        let other = try #require(figures.independent)
        #expect(other.quality >= QualityCalibration.independentBound, "another author: \(other.quality)")
        #expect(figures.pairs == 81)
        #expect(figures.wrong.count == 3)
        for wrong in figures.wrong {
            #expect(wrong.quality <= QualityCalibration.wrongBound, "\(wrong.sentence): \(wrong.quality)")
        }
        #expect(figures.correct >= QualityCalibration.correctBound, "correct: \(figures.correct)")
        #expect(figures.holds)
    }

    @Test("style-only weights would not hold: the calibration can fail")
    func failsWithoutContent() {
        let item = DatasetItem(
            id: "cat", image: .remote(URL(string: "https://media.example/cat.png")!),
            references: ["A tabby cat asleep.", "A sleeping tabby cat."], mustMention: ["cat"])
        let formOnly = ScoringSettings(weights: [ScoreName.brevity: 1])
        let figures = QualityCalibration.measure([item], settings: formOnly)
        #expect(!figures.holds)
        #expect(figures.worstWrong == 1)
    }
}
