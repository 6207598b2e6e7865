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

    /// Rows with no content part: quality is form alone and says so.
    static let rows: [Row] = [
        // Every hard fail forces 0, whatever the parts.
        Row(label: "first person", scores: [graded(ScoreName.brevity, 1), flag(ScoreName.firstPerson, true)],
            value: 0, passed: false, detail: "form only; hard fail: first_person"),
        Row(label: "two hard fails, in score order",
            scores: [flag(ScoreName.empty, true), graded(ScoreName.brevity, 1), flag(ScoreName.truncated, true)],
            value: 0, passed: false, detail: "form only; hard fail: empty, truncated"),
        Row(label: "a soft check is not a hard fail",
            scores: [graded(ScoreName.brevity, 1), flag(ScoreName.terminalPunctuation, true)],
            value: (1 + 0.5 * 0) / 1.5, passed: true, detail: "form only: terminal_punctuation 0.00"),
        Row(label: "a check dropped from hard_fails only weighs in when weighted",
            scores: [graded(ScoreName.brevity, 0.5), flag(ScoreName.truncated, true)],
            settings: ScoringSettings(hardFails: []), value: 0.5, passed: true, detail: "form only: brevity 0.50"),
        Row(label: "a hard check given a weight counts as a form part",
            scores: [graded(ScoreName.brevity, 1), flag(ScoreName.truncated, true)],
            settings: ScoringSettings(weights: [ScoreName.brevity: 1, ScoreName.truncated: 3], hardFails: []),
            value: 0.25, passed: true, detail: "form only: truncated 0.00"),
        Row(label: "all form parts perfect", scores: [
            graded(ScoreName.brevity, 1), graded(ScoreName.hedging, 1), flag(ScoreName.terminalPunctuation, false),
            Score(name: ScoreName.emoji, value: 0, passed: true), Score(name: ScoreName.socialTokens, value: 0, passed: true),
        ], value: 1, passed: true, detail: "form only"),
        Row(label: "one emoji halves its part", scores: [graded(ScoreName.brevity, 1), Score(name: ScoreName.emoji, value: 1, passed: false)],
            value: (1 + 0.5 * 0.5) / 1.5, passed: true, detail: "form only: emoji 0.50"),
        Row(label: "three social tokens leave a quarter",
            scores: [Score(name: ScoreName.socialTokens, value: 3, passed: false)], value: 0.25, passed: true,
            detail: "form only: social_tokens 0.25"),
        Row(label: "figures never weigh in", scores: [
            graded(ScoreName.brevity, 1), Score(name: ScoreName.length, value: 4000), Score(name: ScoreName.readability, value: -50),
            Score(name: ScoreName.ciderD, value: 7.5),
        ], value: 1, passed: true, detail: "form only"),
        Row(label: "no weighted part at all", scores: [Score(name: ScoreName.length, value: 10)], value: 1, passed: true,
            detail: "form only"),
        Row(label: "a zero weight leaves a part out", scores: [graded(ScoreName.brevity, 0.2), graded(ScoreName.hedging, 1)],
            settings: ScoringSettings(weights: [ScoreName.brevity: 0, ScoreName.hedging: 1]), value: 1, passed: true,
            detail: "form only"),
        Row(label: "graded values are clamped to 0...1", scores: [graded(ScoreName.brevity, 1.7)], value: 1, passed: true,
            detail: "form only"),
        Row(label: "a content part with weight 0 leaves content unknown",
            scores: [graded(ScoreName.brevity, 1), graded(ScoreName.textRecall, 0.2)],
            settings: ScoringSettings(weights: [ScoreName.brevity: 1, ScoreName.textRecall: 0]), value: 1, passed: true,
            detail: "form only"),
    ]

    @Test(arguments: rows)
    func formOnly(_ row: Row) {
        let scores = QualityScorer.combine(row.scores, settings: row.settings)
        #expect(scores.map(\.name) == [ScoreName.form, ScoreName.quality])
        let quality = scores[1]
        #expect(abs(quality.value - row.value) < 1e-12, "value \(quality.value)")
        #expect(quality.value == scores[0].value)
        #expect(quality.passed == row.passed)
        #expect(quality.detail == row.detail)
        #expect(scores[0].passed == (row.passed ? nil : false))
        #expect(QualityScorer.isFormOnly(ScoreSet(scores)))
    }

    /// A row with content: form, content and their product.
    struct Halves: Sendable, CustomTestStringConvertible {
        var label: String
        var scores: [Score]
        var settings = ScoringSettings()
        var form: Double
        var content: Double
        var quality: Double
        var passed = true
        var testDescription: String { label }
    }

    static let halves: [Halves] = [
        Halves(label: "right style, wrong image: form 1, content near 0",
               scores: [graded(ScoreName.brevity, 1), flag(ScoreName.terminalPunctuation, false),
                        graded(ScoreName.referenceMatch, 0.05), graded(ScoreName.keywordRecall, 0)],
               form: 1, content: (2 * 0.05) / 3, quality: (2 * 0.05) / 3),
        Halves(label: "text recall weighs double within content",
               scores: [graded(ScoreName.brevity, 1), graded(ScoreName.textRecall, 0.5), graded(ScoreName.keywordRecall, 1)],
               form: 1, content: (2 * 0.5 + 1) / 3, quality: (2 * 0.5 + 1) / 3),
        Halves(label: "a long answer keeps its content but loses form",
               scores: [graded(ScoreName.brevity, 0.5), flag(ScoreName.terminalPunctuation, false),
                        graded(ScoreName.referenceMatch, 1)],
               form: (0.5 + 0.5) / 1.5, content: 1, quality: (0.5 + 0.5) / 1.5),
        Halves(label: "a hard fail zeroes form and quality, content still shown",
               scores: [graded(ScoreName.brevity, 1), flag(ScoreName.truncated, true), graded(ScoreName.referenceMatch, 0.9)],
               form: 0, content: 0.9, quality: 0, passed: false),
        Halves(label: "weights apply within each half",
               scores: [graded(ScoreName.brevity, 0.5), graded(ScoreName.hedging, 1),
                        graded(ScoreName.textRecall, 1), graded(ScoreName.referenceMatch, 0.5)],
               settings: ScoringSettings(weights: [
                   ScoreName.brevity: 3, ScoreName.hedging: 1, ScoreName.textRecall: 1, ScoreName.referenceMatch: 3,
               ]),
               form: (3 * 0.5 + 1) / 4, content: (1 + 3 * 0.5) / 4, quality: (2.5 / 4) * (2.5 / 4)),
        Halves(label: "reference metrics are content parts when weighted",
               scores: [graded(ScoreName.bleu4, 0.3), graded(ScoreName.rougeL, 0.7)],
               settings: ScoringSettings(weights: [ScoreName.bleu4: 1, ScoreName.rougeL: 1]),
               form: 1, content: 0.5, quality: 0.5),
        Halves(label: "judge scores: accuracy and completeness are content, concision form",
               scores: [graded(ScoreName.brevity, 1), graded(ScoreName.referenceMatch, 1),
                        graded(ScoreName.judgeAccuracy, 0.25), graded(ScoreName.judgeCompleteness, 1),
                        graded(ScoreName.judgeConcision, 0.5)],
               form: (1 + 0.5) / 2, content: (2 + 2 * 0.25 + 1) / 5, quality: 0.75 * 0.7),
    ]

    @Test(arguments: halves)
    func formTimesContent(_ row: Halves) {
        let scores = QualityScorer.combine(row.scores, settings: row.settings)
        #expect(scores.map(\.name) == [ScoreName.form, ScoreName.content, ScoreName.quality])
        #expect(abs(scores[0].value - row.form) < 1e-12, "form \(scores[0].value)")
        #expect(abs(scores[1].value - row.content) < 1e-12, "content \(scores[1].value)")
        #expect(abs(scores[2].value - row.quality) < 1e-12, "quality \(scores[2].value)")
        #expect(scores[2].passed == row.passed)
        #expect(scores[1].passed == nil)
        #expect(scores[2].detail?.hasPrefix("form only") == false)
    }

    @Test("every weightable score is in exactly one half, as the table says")
    func halvesTable() {
        let form: Set = [
            ScoreName.brevity, ScoreName.hedging, ScoreName.terminalPunctuation, ScoreName.emoji, ScoreName.socialTokens,
            ScoreName.judgeConcision,
        ]
        let content: Set = [
            ScoreName.textRecall, ScoreName.keywordRecall, ScoreName.referenceMatch, ScoreName.bleu4, ScoreName.rougeL,
            ScoreName.judgeAccuracy, ScoreName.judgeCompleteness,
        ]
        #expect(Set(QualityScorer.halves.keys) == Set(QualityScorer.partKinds.keys))
        for (id, half) in QualityScorer.halves {
            #expect(half == (content.contains(id) ? .content : .form), "\(id)")
            if half == .form { #expect(form.contains(id) || ScoringSettings.defaultHardFails.contains(id), "\(id)") }
        }
        for id in [ScoreName.form, ScoreName.content, ScoreName.quality, ScoreName.length, ScoreName.ciderD] {
            #expect(QualityScorer.halves[id] == nil, "\(id) is a figure")
        }
    }

    @Test("judge scores appended to stored scores change content and quality")
    func judgeScoresAppended() {
        let input = ScoringInput(
            content: "A tabby cat with green eyes.", finishReason: "stop",
            item: ScoringItem(id: "cat", references: ["A tabby cat with wide green eyes.", "Close-up of a tabby cat."],
                              mustMention: ["cat"]))
        let stored = ScoringSuite.evaluate(input)
        let before = Dictionary(uniqueKeysWithValues: stored.map { ($0.name, $0) })
        // Recomputed from the stored scores alone, the halves are what the suite wrote.
        let again = QualityScorer.combine(stored, settings: input.settings)
        #expect(again == [before[ScoreName.form]!, before[ScoreName.content]!, before[ScoreName.quality]!])
        let judged = stored + [
            Score(name: ScoreName.judgeAccuracy, value: 0), Score(name: ScoreName.judgeCompleteness, value: 0),
        ]
        let after = Dictionary(uniqueKeysWithValues: QualityScorer.combine(judged, settings: input.settings).map { ($0.name, $0) })
        #expect(after[ScoreName.form] == before[ScoreName.form])
        #expect(after[ScoreName.content]!.value < before[ScoreName.content]!.value)
        #expect(after[ScoreName.quality]!.value < before[ScoreName.quality]!.value)
        // Judge scores alone give content to an item that had none.
        let bare = ScoringSuite.evaluate(ScoringInput(content: "A cat.", finishReason: "stop"))
        #expect(!bare.contains { $0.name == ScoreName.content })
        let judgedBare = QualityScorer.combine(bare + [Score(name: ScoreName.judgeAccuracy, value: 0.5)], settings: ScoringSettings())
        #expect(judgedBare.map(\.name) == [ScoreName.form, ScoreName.content, ScoreName.quality])
        #expect(judgedBare[1].value == 0.5)
    }

    @Test("the suite appends quality after every other score, from the same settings")
    func suiteAppendsQuality() {
        let good = ScoringSuite.evaluate(ScoringInput(content: "A tabby cat asleep on a red sofa.", finishReason: "stop"))
        #expect(good.suffix(2).map(\.name) == [ScoreName.form, ScoreName.quality])
        #expect(good.last?.value == 1)
        #expect(good.last?.detail == "form only")
        let bad = ScoringSuite.evaluate(ScoringInput(content: "I see a cat on the", finishReason: "length"))
        #expect(bad.last?.value == 0)
        #expect(bad.last?.detail == "form only; hard fail: first_person, perception_meta, redundant_prefix, truncated")
        let withItem = ScoringSuite.evaluate(
            ScoringInput(
                content: "A tabby cat asleep on a red sofa.", finishReason: "stop",
                item: ScoringItem(id: "cat", references: ["A tabby cat sleeping on a red sofa."])))
        #expect(withItem.suffix(4).map(\.name) == [ScoreName.referenceMatch, ScoreName.form, ScoreName.content, ScoreName.quality])
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
        let judge: Set = [ScoreName.judgeAccuracy, ScoreName.judgeCompleteness, ScoreName.judgeConcision]
        for id in ScoringSettings.defaultWeights.keys where !judge.contains(id) { #expect(written.contains(id), "\(id)") }
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
        func quality(_ scores: [Score], _ settings: ScoringSettings) -> Double? {
            QualityScorer.combine(scores, settings: settings).last?.value
        }
        var settings = ScoringSettings(weights: [ScoreName.brevity: 1])
        #expect(quality(scores, settings) == 0)
        settings.hardFails = []
        #expect(quality(scores, settings) == 0.5)
        settings.weights = [ScoreName.brevity: 1, ScoreName.truncated: 1]
        #expect(quality(scores, settings) == 0.25)
        // Out of report order and outside the standard ids, names are still found.
        let reordered = [scores[2], scores[1], scores[0]]
        #expect(quality(reordered, settings) == 0.25)
        #expect(settings == ScoringSettings(weights: [ScoreName.brevity: 1, ScoreName.truncated: 1], hardFails: []))
    }
}
