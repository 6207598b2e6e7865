import Testing

@testable import AltBenchCore

@Suite("empty")
struct EmptyScorerTests {
    static let cases: [ScoringFlagCase] = [
        .flag("", "blank"),
        .flag("   \n", "blank"),
        .flag("\t \r\n ", "blank"),
        .flag(nil, "no content"),
        .flag(nil, "no content", refusal: "I can't help with that."),
        .flag("\u{200B}", "blank"),
        .flag(" \u{FEFF}\u{200D} ", "blank"),
        .flag("\u{00A0}\u{2003}", "blank"),
        .flag("\u{2060}\u{200C}", "blank"),
        .flag("", "no visible text: the token limit ran out first", finishReason: "length"),
        .flag(nil, "no visible text: the token limit ran out first", finishReason: "length"),
        .pass("A cat."),
        .pass("  A cat.  "),
        .pass("."),
        .pass("🐱"),
        .pass("I'm sorry, I can't help with that."),
        .pass("A", finishReason: "length"),
        .pass("0"),
        .pass("\u{200B}A cat\u{200B}"),
        .pass("-"),
        .pass("猫。"),
    ]

    @Test(arguments: cases)
    func flagsAnswersWithNothingToShow(_ row: ScoringFlagCase) {
        expectFlag(EmptyScorer(), name: ScoreName.empty, row)
    }
}
