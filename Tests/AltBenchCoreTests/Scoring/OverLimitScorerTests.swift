import Testing

@testable import AltBenchCore

@Suite("over_limit")
struct OverLimitScorerTests {
    static let cases: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat."),
        .pass(String(repeating: "a", count: 1500)),
        .flag(String(repeating: "a", count: 1501), "1501 > 1500"),
        .flag(String(repeating: "a", count: 4000), "4000 > 1500"),
        // 750 skin-toned thumbs are 750 Characters but 1,500 scalars.
        .pass(String(repeating: "\u{1F44D}\u{1F3FD}", count: 750)),
        .flag(String(repeating: "\u{1F44D}\u{1F3FD}", count: 750) + ".", "1501 > 1500"),
        // Surrounding whitespace is trimmed before counting, as the app trims the reply.
        .pass("  " + String(repeating: "a", count: 1500) + "\n"),
        // "é" as e + combining accent is two scalars: 751 of them are 1,502.
        .flag(String(repeating: "e\u{301}", count: 751), "1502 > 1500"),
        .pass(String(repeating: "\u{E9}", count: 1500)),
        .flag(String(repeating: "\u{E9}", count: 1501), "1501 > 1500"),
        // A ZWJ family is one Character and seven scalars.
        .flag(String(repeating: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}", count: 215), "1505 > 1500"),
        .pass(String(repeating: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}", count: 214)),
        .flag(String(repeating: "word ", count: 400), "1999 > 1500"),
        .pass(String(repeating: "word ", count: 300)),
        .flag(String(repeating: "猫", count: 1600), "1600 > 1500"),
        .flag(String(repeating: "a\n", count: 760), "1519 > 1500"),
        .pass("A cat.", finishReason: "length"),
        .flag(String(repeating: "x", count: 1500) + " y", "1502 > 1500"),
    ]

    @Test(arguments: cases)
    func flagsAnswersOverThePlatformLimit(_ row: ScoringFlagCase) {
        expectFlag(OverLimitScorer(), name: ScoreName.overLimit, row)
    }

    @Test(arguments: [(1000, false), (1001, true)])
    func followsAConfiguredLimit(chars: Int, flagged: Bool) {
        let input = ScoringInput(
            content: String(repeating: "a", count: chars),
            settings: ScoringSettings(brevityBudget: 100, platformLimit: 1000))
        let score = OverLimitScorer().score(input)[0]
        #expect(score.isFlagged == flagged)
    }
}
