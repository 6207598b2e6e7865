import Testing

@testable import AltBenchCore

@Suite("terminal_punctuation")
struct TerminalPunctuationScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("A cat asleep on a sofa", "ends with \"a\""),
        .flag("A cat on a sofa,", "ends with \",\""),
        .flag("A cat on a sofa:", "ends with \":\""),
        .flag("A cat on a sofa;", "ends with \";\""),
        .flag("A cat on a sofa -", "ends with \"-\""),
        .flag("A cat on a sofa. \u{1F431}", "ends with \"\u{1F431}\""),
        .flag("A cat on a sofa \u{2764}\u{FE0F}", "ends with \"\u{2764}\u{FE0F}\""),
        .flag("Details at https://example.com/cat", "ends with \"t\""),
        .flag("**A cat on a sofa**", "ends with \"a\""),
        .flag("A sign reading \u{201C}Open\u{201D}", "ends with \"n\""),
        .flag("A neon sign: OPEN 24/7", "ends with \"7\""),
        .flag("A T-shirt printed with I LOVE NY", "ends with \"Y\""),
        .flag("Eine Katze auf dem Sofa", "ends with \"a\""),
        .flag("猫がソファで寝ている", "ends with \"る\""),
        .flag("A cat (asleep)", "ends with \"p\""),
        .flag("A tweet reading \"Just landed! #Paris\"", "ends with \"s\""),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("   "),
        .pass("A cat asleep on a sofa."),
        .pass("What a view!"),
        .pass("Is that a cat?"),
        .pass("A cat, then another\u{2026}"),
        .pass("A cat, then another..."),
        .pass("A sign reading \u{201C}Open.\u{201D}"),
        .pass("A sign reading \"Closed!\""),
        .pass("A cat on a mat (see sign.)"),
        .pass("**A cat on a sofa.**"),
        .pass("_A cat on a sofa._"),
        .pass("猫がソファで寝ている。"),
        .pass("Un chat ?!"),
        .pass("\u{00AB}Ouvert.\u{00BB}"),
        .pass("ソファの猫\u{FF01}"),
        .pass("قطة على الأريكة؟"),
        .pass("सोफ़े पर एक बिल्ली।"),
        .pass("A cat. \n"),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsAMissingSentenceEnd(_ row: ScoringFlagCase) {
        expectFlag(TerminalPunctuationScorer(), name: ScoreName.terminalPunctuation, row)
    }
}
