import Testing

@testable import AltBenchCore

@Suite("truncated")
struct TruncationScorerTests {
    static let flagged: [ScoringFlagCase] = [
        // The token limit stopped the model, however complete the text looks.
        .flag("A cat.", "finish_reason length", finishReason: "length"),
        .flag("A cat.", "finish_reason length", finishReason: "LENGTH"),
        .flag("A cat.", "finish_reason max_tokens", finishReason: "max_tokens"),
        .flag(nil, "finish_reason length", finishReason: "length"),
        .flag("A dog running on the", "ends on the"),
        .flag("A dog running on the\n", "ends on the", finishReason: "stop"),
        .flag("A cat with", "ends on with"),
        .flag("A cat and", "ends on and"),
        .flag("A view of", "ends on of"),
        .flag("Two dogs playing in their", "ends on their"),
        .flag("A cat that is", "ends on is"),
        .flag("Two cats,", "ends on ,"),
        .flag("Three dogs;", "ends on ;"),
        .flag("A list:", "ends on :"),
        .flag("A cat \u{2014}", "ends on \u{2014}"),
        .flag("A black-and-", "ends on -"),
        .flag("A cat sitting (on a mat", "unclosed ("),
        .flag("A cat in a [box", "unclosed ["),
        .flag("A cat (on a mat) and a dog (in a", "unclosed ("),
        .flag("A sign reading \u{201C}Open", "unclosed \u{201C}"),
        .flag("A sign reading \u{201C}Open.", "unclosed \u{201C}"),
        .flag("A sign reading \"Open", "unclosed \""),
        .flag("A sign reading \u{2018}Open", "unclosed \u{2018}"),
        .flag("A sign reading \u{00AB}Ouvert", "unclosed \u{00AB}"),
        // Known limit: a period-less fragment ending on a particle reads as cut off.
        .flag("Lights on", "ends on on"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat."),
        .pass("Lights on."),
        // A missing final period alone is not truncation.
        .pass("A cat sleeping"),
        .pass("A cat 🐱"),
        .pass("A cat that"),
        .pass("A woman hugging her"),
        .pass("A cat.", finishReason: "stop"),
        .pass("A cat.", finishReason: "content_filter"),
        .pass("A cat sleeping", finishReason: "stop"),
        .pass("Is that a cat?"),
        .pass("Wow!"),
        .pass("A cat..."),
        .pass("A cat\u{2026}"),
        .pass("A cat (sleeping)."),
        .pass("A cat :)"),
        .pass("1) A cat 2) a dog"),
        .pass("A sign reading \u{201C}Open.\u{201D}"),
        .pass("A sign reading \u{201C}Open\u{201D}"),
        .pass("A sign reading \"Open\" on a door"),
        .pass("A \"Route 66\" sign"),
        .pass("A 12\" record"),
        .pass("A mug reading \u{2018}I\u{2019}m the boss\u{2019}"),
        // Straight single quotes double as apostrophes, so an "open" one proves nothing.
        .pass("The dogs' bowl"),
        .pass("A '90s style room"),
        .pass("Rock 'n roll night"),
        .pass("Let 'em play"),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsAnswersCutOffBeforeTheirEnd(_ row: ScoringFlagCase) {
        expectFlag(TruncationScorer(), name: ScoreName.truncated, row)
    }
}

@Suite("truncated: byte prechecks")
struct TruncationPrecheckTests {
    static let fragments: [String] = [
        "A", "cat", " ", "on", "the", "\"", "'", "(", ")", "[", "]", "{", "}", ",", ".", "\u{201C}", "\u{201D}",
        "\u{201E}", "\u{2018}", "\u{2019}", "\u{00AB}", "\u{00BB}", "\u{2039}", "\u{203A}", "\u{300C}", "\u{300D}",
        "\u{300E}", "\u{300F}", "\n", "caf\u{E9}", "\u{2014}",
    ]

    @Test("skipping the scans the bytes rule out never changes the evidence")
    func prechecksMatchTheFullScan() {
        var state: UInt64 = 0x1234_5678_9ABC_DEF1
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<5000 {
            let text = (0..<next(14)).map { _ in Self.fragments[next(Self.fragments.count)] }.joined()
            let input = ScoringInput(content: text)
            var trimmed = input.text
            let (quotes, brackets) = trimmed.withUTF8(TruncationScorer.mayOpen)
            #expect(
                TruncationScorer.evidence(chars: input.characters, quotes: quotes, brackets: brackets)
                    == TruncationScorer.evidence(chars: input.characters), "\(text.debugDescription)")
        }
    }
}
