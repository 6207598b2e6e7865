import Testing

@testable import AltBenchCore

@Suite("ScoringSuite")
struct ScoringSuiteTests {
    static let v1Names = [
        ScoreName.empty, ScoreName.length, ScoreName.words, ScoreName.brevity, ScoreName.overLimit,
        ScoreName.firstPerson, ScoreName.truncated, ScoreName.refusal, ScoreName.redundantPrefix,
    ]

    static let inputs: [ScoringInput] = [
        ScoringInput(content: nil),
        ScoringInput(content: ""),
        ScoringInput(content: "A cat."),
        ScoringInput(content: nil, refusal: "I can't help with that."),
        ScoringInput(content: String(repeating: "a ", count: 2000), finishReason: "length"),
    ]

    @Test(arguments: inputs)
    func writesEveryV1ScoreOnceInAFixedOrder(_ input: ScoringInput) {
        let scores = ScoringSuite.evaluate(input)
        #expect(scores.map(\.name) == Self.v1Names)
        #expect(Set(scores.map(\.name)).count == scores.count)
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
        #expect(scores.filter { $0.passed != nil }.allSatisfy { $0.value == ($0.name == ScoreName.brevity ? 1 : 0) })
    }

    @Test func aRefusalWithoutContentIsEmptyAndARefusal() {
        let scores = ScoringSuite.evaluate(ScoringInput(content: nil, refusal: "I can't help with that."))
        let flagged = scores.filter(\.isFlagged).map(\.name)
        #expect(flagged == [ScoreName.empty, ScoreName.refusal])
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
            let input = ScoringInput(content: text, finishReason: reasons[next(reasons.count)])
            let scores = ScoringSuite.evaluate(input)
            #expect(scores.map(\.name) == Self.v1Names, "\(text.debugDescription)")
            for score in scores where score.passed != nil {
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
        #expect(scores.map(\.name) == ["a", "b", "c"])
        #expect(scores.map(\.value) == [1, 2, 4])
    }
}
