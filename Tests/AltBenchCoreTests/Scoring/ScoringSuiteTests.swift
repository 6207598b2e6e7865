import Testing

@testable import AltBenchCore

@Suite("ScoringSuite")
struct ScoringSuiteTests {
    /// Every score id the standard suite writes, in report order (`words` is `length`'s
    /// second figure; the halves and `quality` come last). The judge's scores are not among
    /// them: they are written after a judge call, not by the suite.
    static let reportOrder: [String] = [
        ScoreName.empty, ScoreName.length, ScoreName.words, ScoreName.brevity, ScoreName.overLimit,
        ScoreName.firstPerson, ScoreName.perceptionMeta, ScoreName.redundantPrefix, ScoreName.metaLabel,
        ScoreName.refusal, ScoreName.truncated, ScoreName.terminalPunctuation, ScoreName.filename,
        ScoreName.markdown, ScoreName.emoji, ScoreName.socialTokens, ScoreName.hedging, ScoreName.readability,
        ScoreName.textRecall, ScoreName.keywordRecall, ScoreName.contextEcho, ScoreName.bleu4, ScoreName.rougeL,
        ScoreName.ciderD, ScoreName.referenceMatch, ScoreName.form, ScoreName.content, ScoreName.quality,
    ]

    /// Scores every answer gets, whatever its item: all but readability (none for text with
    /// no words), the scorers that need a dataset field and `content` (none when no content
    /// scorer wrote).
    static let alwaysWritten = Self.reportOrder.filter {
        ![ScoreName.readability, ScoreName.textRecall, ScoreName.keywordRecall, ScoreName.contextEcho,
          ScoreName.bleu4, ScoreName.rougeL, ScoreName.ciderD, ScoreName.referenceMatch, ScoreName.content].contains($0)
    }

    /// An item with every field, so that every scorer writes.
    static let fullItem = ScoringItem(
        id: "sign", references: ["A shop door with a sign reading OPEN.", "A sign on a glass door says OPEN."],
        context: "Finally back at my favourite bakery!", expectedText: "OPEN", mustMention: ["sign", "door"])

    /// Whether `names` follows the suite's report order.
    static func inReportOrder(_ names: [String]) -> Bool {
        let positions = names.compactMap { Self.reportOrder.firstIndex(of: $0) }
        return positions.count == names.count && positions == positions.sorted()
    }

    static let inputs: [ScoringInput] = [
        ScoringInput(content: nil),
        ScoringInput(content: ""),
        ScoringInput(content: "A cat."),
        ScoringInput(content: nil, refusal: "I can't help with that."),
        ScoringInput(content: String(repeating: "a ", count: 2000), finishReason: "length"),
    ]

    @Test(arguments: inputs)
    func writesEveryScoreOnceInAFixedOrder(_ input: ScoringInput) {
        let scores = ScoringSuite.evaluate(input)
        let names = scores.map(\.name)
        #expect(Set(names).count == scores.count)
        #expect(Self.inReportOrder(names), "\(names)")
        for name in Self.alwaysWritten { #expect(names.contains(name), "\(name) missing") }
        #expect(names.last == ScoreName.quality)
    }

    @Test func anItemWithEveryFieldGetsEveryScore() {
        let input = ScoringInput(content: "A glass shop door with a sign reading OPEN.", item: Self.fullItem)
        let scores = ScoringSuite.evaluate(input)
        #expect(scores.map(\.name) == Self.reportOrder)
        let byName = Dictionary(uniqueKeysWithValues: scores.map { ($0.name, $0) })
        #expect(byName[ScoreName.textRecall]?.value == 1)
        #expect(byName[ScoreName.keywordRecall]?.value == 1)
        #expect(byName[ScoreName.contextEcho]?.isFlagged == false)
        #expect((byName[ScoreName.rougeL]?.value ?? 0) > 0.5)
        // The references say more than the answer: reference_match is high, not 1.
        #expect((byName[ScoreName.quality]?.value ?? 0) > 0.99)
    }

    @Test("scoring many inputs in parallel gives the same scores, in input order")
    func parallelMatchesSerial() {
        let inputs = (0..<500).map { index in
            ScoringInput(
                content: index % 7 == 0 ? "I see a cat on the" : "A sign reading OPEN on door \(index).",
                finishReason: index % 5 == 0 ? "length" : "stop", item: Self.fullItem)
        }
        let serial = inputs.map { ScoringSuite.evaluate($0) }
        #expect(ScoringSuite.evaluateAll(inputs, threads: 4) == serial)
        #expect(ScoringSuite.evaluateAll(inputs, threads: 1) == serial)
        #expect(ScoringSuite.evaluateAll([]).isEmpty)
    }

    @Test func judgesATypicalBadAnswer() {
        let input = ScoringInput(content: "This image shows my dog running on the", finishReason: "length")
        let scores = Dictionary(uniqueKeysWithValues: ScoringSuite.evaluate(input).map { ($0.name, $0) })
        #expect(scores[ScoreName.empty]?.isFlagged == false)
        #expect(scores[ScoreName.length]?.value == 38)
        #expect(scores[ScoreName.words]?.value == 8)
        #expect(scores[ScoreName.brevity]?.value == 1)
        #expect(scores[ScoreName.overLimit]?.isFlagged == false)
        #expect(scores[ScoreName.firstPerson]?.detail == "my")
        #expect(scores[ScoreName.truncated]?.detail == "finish_reason length")
        #expect(scores[ScoreName.refusal]?.isFlagged == false)
        #expect(scores[ScoreName.redundantPrefix]?.detail == "This image shows")
    }

    @Test func aGoodAnswerPassesEveryCheck() {
        let scores = ScoringSuite.evaluate(ScoringInput(content: "A tabby cat asleep on a red sofa.", finishReason: "stop"))
        #expect(scores.allSatisfy { $0.passed != false })
        // Flags are 0 when passed; brevity, hedging and quality are 1 at best.
        let best: Set<String> = [ScoreName.brevity, ScoreName.hedging, ScoreName.form, ScoreName.quality]
        #expect(scores.filter { $0.passed != nil }.allSatisfy { $0.value == (best.contains($0.name) ? 1 : 0) })
    }

    @Test func aRefusalWithoutContentIsEmptyAndARefusal() {
        let scores = ScoringSuite.evaluate(ScoringInput(content: nil, refusal: "I can't help with that."))
        let flagged = scores.filter(\.isFlagged).map(\.name)
        #expect(flagged == [ScoreName.empty, ScoreName.refusal, ScoreName.form, ScoreName.quality])
    }

    /// Pieces that stress the character scans: quotes and apostrophes of every kind, brackets,
    /// dashes, combining marks, emoji, line breaks and first-person and refusal words.
    static let fragments: [String] = [
        "I", "i", "I\u{2019}m", "we", "WE", "US", "mine", "my", "Henry", "War", "letter", "sorry",
        "Sorry", "can't", "see", "Image", "of", "photo", "shows", "the", "a", "sign", "reads",
        "says", "text", "\"", "'", "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{201E}",
        "\u{00AB}", "\u{00BB}", "\u{300C}", "(", ")", "[", "]", ".", ",", ":", ";", "!", "?",
        "\u{2026}", "-", "\u{2014}", " ", "  ", "\n", "\r\n", "e\u{301}", "\u{1F431}",
        "\u{1F468}\u{200D}\u{1F469}", "\u{200B}", "12", "*",
    ]

    @Test func survivesArbitraryPunctuation() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<3000 {
            let count = next(24)
            let text = (0..<count).map { _ in Self.fragments[next(Self.fragments.count)] }.joined()
            let reasons: [String?] = [nil, "stop", "length", "content_filter"]
            let input = ScoringInput(
                content: text, finishReason: reasons[next(reasons.count)], item: next(2) == 0 ? Self.fullItem : ScoringItem())
            let scores = ScoringSuite.evaluate(input)
            let names = scores.map(\.name)
            #expect(Self.inReportOrder(names), "\(text.debugDescription)")
            #expect(Self.alwaysWritten.allSatisfy(names.contains), "\(text.debugDescription)")
            for score in scores {
                #expect(score.value.isFinite, "\(score.name) on \(text.debugDescription)")
            }
            let counts: Set<String> = [ScoreName.emoji, ScoreName.socialTokens]
            for score in scores where score.passed != nil && !counts.contains(score.name) {
                #expect((0...1).contains(score.value), "\(score.name) on \(text.debugDescription)")
                #expect((score.detail ?? "").unicodeScalars.count <= 80, "\(score.name) on \(text.debugDescription)")
            }
        }
    }

    struct Fixed: Scorer {
        var scores: [Score]
        func score(_ input: ScoringInput) -> [Score] { scores }
    }

    @Test func keepsTheFirstScoreOfADuplicatedName() {
        let scorers: [any Scorer] = [
            Fixed(scores: [Score(name: "a", value: 1), Score(name: "b", value: 2)]),
            Fixed(scores: [Score(name: "a", value: 3), Score(name: "c", value: 4)]),
        ]
        let scores = ScoringSuite.evaluate(ScoringInput(content: "A cat."), scorers: scorers)
        #expect(scores.map(\.name) == ["a", "b", "c", ScoreName.form, ScoreName.quality])
        #expect(scores.map(\.value) == [1, 2, 4, 1, 1])
    }

    @Test func aScorerThatWritesAHalfKeepsIt() {
        let scorers: [any Scorer] = [
            Fixed(scores: [Score(name: ScoreName.brevity, value: 0.5), Score(name: ScoreName.form, value: 0.25)]),
        ]
        let scores = ScoringSuite.evaluate(ScoringInput(content: "A cat."), scorers: scorers)
        #expect(scores.map(\.name) == [ScoreName.brevity, ScoreName.form, ScoreName.quality])
        #expect(scores.map(\.value) == [0.5, 0.25, 0.5])
    }
}
