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
