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
        .pass("A cat."),
        .pass("  A cat.  "),
        .pass("."),
        .pass("🐱"),
        .pass("I'm sorry, I can't help with that."),
    ]

    @Test(arguments: cases)
    func flagsAnswersWithNothingToShow(_ row: ScoringFlagCase) {
        expectFlag(EmptyScorer(), name: ScoreName.empty, row)
    }
}
