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
