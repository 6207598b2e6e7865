import Testing

@testable import AltBenchCore

@Suite("quality")
struct QualityScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var label: String
        var scores: [Score]
        var settings = ScoringSettings()
        var value: Double
        var passed: Bool
        var detail: String?
        var testDescription: String { label }
    }

    static func flag(_ name: String, _ flagged: Bool) -> Score { .flag(name, flagged, detail: "x") }
    static func graded(_ name: String, _ value: Double) -> Score { Score(name: name, value: value, passed: nil) }

    static let rows: [Row] = [
        // Every hard fail forces 0, whatever the parts.
        Row(label: "first person", scores: [graded(ScoreName.brevity, 1), flag(ScoreName.firstPerson, true)],
            value: 0, passed: false, detail: "hard fail: first_person"),
        Row(label: "two hard fails, in score order",
            scores: [flag(ScoreName.empty, true), graded(ScoreName.textRecall, 1), flag(ScoreName.truncated, true)],
            value: 0, passed: false, detail: "hard fail: empty, truncated"),
        Row(label: "a soft check is not a hard fail",
            scores: [graded(ScoreName.brevity, 1), flag(ScoreName.terminalPunctuation, true)],
            value: (1 + 0.5 * 0) / 1.5, passed: true, detail: "terminal_punctuation 0.00"),
        Row(label: "a check dropped from hard_fails only weighs in when weighted",
            scores: [graded(ScoreName.brevity, 0.5), flag(ScoreName.truncated, true)],
            settings: ScoringSettings(hardFails: []), value: 0.5, passed: true, detail: "brevity 0.50"),
        Row(label: "a hard check given a weight counts as a part",
            scores: [graded(ScoreName.brevity, 1), flag(ScoreName.truncated, true)],
            settings: ScoringSettings(weights: [ScoreName.brevity: 1, ScoreName.truncated: 3], hardFails: []),
            value: 0.25, passed: true, detail: "truncated 0.00"),
        // The weighted mean, over the parts present.
        Row(label: "all parts perfect", scores: [
            graded(ScoreName.brevity, 1), graded(ScoreName.textRecall, 1), graded(ScoreName.keywordRecall, 1),
            graded(ScoreName.hedging, 1), flag(ScoreName.terminalPunctuation, false),
            Score(name: ScoreName.emoji, value: 0, passed: true), Score(name: ScoreName.socialTokens, value: 0, passed: true),
        ], value: 1, passed: true),
        Row(label: "text recall weighs double", scores: [graded(ScoreName.brevity, 1), graded(ScoreName.textRecall, 0.5)],
            value: (1 + 2 * 0.5) / 3, passed: true, detail: "text_recall 0.50"),
        Row(label: "a missing part leaves the mean", scores: [graded(ScoreName.brevity, 0.8)],
            value: 0.8, passed: true, detail: "brevity 0.80"),
        Row(label: "one emoji halves its part", scores: [graded(ScoreName.brevity, 1), Score(name: ScoreName.emoji, value: 1, passed: false)],
            value: (1 + 0.5 * 0.5) / 1.5, passed: true, detail: "emoji 0.50"),
        Row(label: "three social tokens leave a quarter",
            scores: [Score(name: ScoreName.socialTokens, value: 3, passed: false)], value: 0.25, passed: true,
            detail: "social_tokens 0.25"),
        Row(label: "figures never weigh in", scores: [
            graded(ScoreName.brevity, 1), Score(name: ScoreName.length, value: 4000), Score(name: ScoreName.readability, value: -50),
            Score(name: ScoreName.ciderD, value: 7.5),
        ], value: 1, passed: true),
        Row(label: "no weighted part at all", scores: [Score(name: ScoreName.length, value: 10)], value: 1, passed: true),
        Row(label: "a zero weight leaves a part out", scores: [graded(ScoreName.brevity, 0.2), graded(ScoreName.hedging, 1)],
            settings: ScoringSettings(weights: [ScoreName.brevity: 0, ScoreName.hedging: 1]), value: 1, passed: true),
        Row(label: "reference metrics weigh in when configured", scores: [graded(ScoreName.bleu4, 0.3), graded(ScoreName.rougeL, 0.7)],
            settings: ScoringSettings(weights: [ScoreName.bleu4: 1, ScoreName.rougeL: 1]), value: 0.5, passed: true,
            detail: "bleu4 0.30, rougeL 0.70"),
        Row(label: "graded values are clamped to 0...1", scores: [graded(ScoreName.brevity, 1.7)], value: 1, passed: true),
    ]

    @Test(arguments: rows)
    func combines(_ row: Row) {
        let score = QualityScorer().combine(row.scores, settings: row.settings)
        #expect(score.name == ScoreName.quality)
        #expect(abs(score.value - row.value) < 1e-12, "value \(score.value)")
        #expect(score.passed == row.passed)
        #expect(score.detail == row.detail)
    }

    @Test("the suite appends quality after every other score, from the same settings")
    func suiteAppendsQuality() {
        let good = ScoringSuite.evaluate(ScoringInput(content: "A tabby cat asleep on a red sofa.", finishReason: "stop"))
        #expect(good.last?.name == ScoreName.quality)
        #expect(good.last?.value == 1)
        let bad = ScoringSuite.evaluate(ScoringInput(content: "I see a cat on the", finishReason: "length"))
        #expect(bad.last?.value == 0)
        #expect(bad.last?.detail == "hard fail: first_person, perception_meta, truncated")
        let lenient = ScoringSettings(hardFails: [])
        let forgiven = ScoringSuite.evaluate(ScoringInput(content: "I see a cat on the", finishReason: "length", settings: lenient))
        #expect(forgiven.last?.passed == true)
    }

    @Test("every default weight and hard fail names a score the suite writes")
    func defaultsNameRealScores() {
        let written = Set(
            ScoringSuite.evaluate(
                ScoringInput(
                    content: "A cat.", item: ScoringItem(
                        id: "x", references: ["A cat."], context: "My cat.", expectedText: "OPEN", mustMention: ["cat"]))
            ).map(\.name))
        for id in ScoringSettings.defaultWeights.keys { #expect(written.contains(id), "\(id)") }
        for id in ScoringSettings.defaultHardFails { #expect(written.contains(id), "\(id)") }
        for id in ScoringSettings.checkIDs { #expect(written.contains(id), "\(id)") }
    }

    @Test("settings changed after a composite was computed are what the next composite uses")
    func changedSettingsAreHonoured() {
        let scores = [
            Score(name: ScoreName.brevity, value: 0.5),
            Score.flag(ScoreName.truncated, true),
            Score(name: "house_style", value: 0.25),
        ]
        var settings = ScoringSettings(weights: [ScoreName.brevity: 1])
        #expect(QualityScorer().combine(scores, settings: settings).value == 0)
        settings.hardFails = []
        #expect(QualityScorer().combine(scores, settings: settings).value == 0.5)
        settings.weights = [ScoreName.brevity: 1, ScoreName.truncated: 1]
        #expect(QualityScorer().combine(scores, settings: settings).value == 0.25)
        // Out of report order and outside the standard ids, names are still found.
        let reordered = [scores[2], scores[1], scores[0]]
        #expect(QualityScorer().combine(reordered, settings: settings).value == 0.25)
        #expect(settings == ScoringSettings(weights: [ScoreName.brevity: 1, ScoreName.truncated: 1], hardFails: []))
    }
}
