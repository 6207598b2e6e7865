import Testing

@testable import AltBenchCore

@Suite("text_recall")
struct TextRecallScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var expected: String
        var content: String?
        var value: Double
        var detail: String?

        init(_ expected: String, _ content: String?, _ value: Double, _ detail: String? = nil) {
            self.expected = expected
            self.content = content
            self.value = value
            self.detail = detail
        }

        var testDescription: String {
            "\(expected.debugDescription) in \(content?.debugDescription ?? "nil") → \(value)"
        }
    }

    static let found: [Row] = [
        Row("OPEN", "A shop door with a sign reading OPEN.", 1),
        Row("Open 7 days", "A sign: \u{2018}open 7 days\u{2019}.", 1),
        // Curly and straight apostrophes meet.
        Row("Don\u{2019}t Panic", "A towel printed with Don't panic.", 1),
        Row("DON'T PANIC", "A towel: \u{201C}Don\u{2019}t panic\u{201D}.", 1),
        // Line breaks are spaces; percent signs and other punctuation drop.
        Row("SALE\n50% OFF\nEVERYTHING!", "A window sign: Sale, 50% off everything.", 1),
        Row("Total: 3.5%", "A receipt with a total of 3.5 percent.", 1),
        // A word hyphenated across a line is one word; a compound's hyphen splits it.
        Row("An impor-\ntant notice", "An important notice taped to a door.", 1),
        Row("T-shirts \u{2013} 2 for \u{00A3}10", "A stall selling t shirts, 2 for 10 pounds.", 1),
        // Word order does not matter, repeated words must repeat.
        Row("NO NO NO", "A sign: no, no, no.", 1),
        Row("Caf\u{00E9} de Flore", "The awning of the Caf\u{00E9} de Flore.", 1),
        Row("Stra\u{00DF}e gesperrt", "Ein Schild: gesperrt, Stra\u{00DF}e.", 1),
        Row("Prohibido fumar", "Un cartel: \u{00AB}Prohibido fumar\u{00BB}.", 1),
        Row("Ferm\u{00E9} le lundi", "Une affiche \u{00AB} FERM\u{00C9} LE LUNDI \u{00BB}.", 1),
    ]

    static let missing: [Row] = [
        Row("NO NO NO", "A sign saying no.", 1.0 / 3.0, "missing: no"),
        Row("OPEN 24 HOURS", "A neon sign reading OPEN.", 1.0 / 3.0, "missing: 24, hours"),
        Row("Keep calm and carry on", "A red poster with a crown.", 0, "missing: keep, calm, and, carry, on"),
        Row("one two three four five six seven", "A list of numbers.", 0,
            "missing: one, two, three, four, five"),
        // Diacritics count.
        Row("Caf\u{00E9}", "A cafe sign.", 0, "missing: caf\u{00E9}"),
        // Numbers are kept as written.
        Row("3.5%", "A sign with 35 percent.", 0, "missing: 3.5"),
        Row("1,000 km", "A road sign: 1000 km.", 0.5, "missing: 1,000"),
        Row("Don\u{2019}t Panic", "A towel printed with do not panic.", 0.5, "missing: don't"),
        Row("Ferm\u{00E9} le lundi", "A sign saying closed on Mondays.", 0, "missing: ferm\u{00E9}, le, lundi"),
        Row("Geschlossen", "", 0, "missing: geschlossen"),
        Row("Geschlossen", nil, 0, "missing: geschlossen"),
        Row("STOP", "A red octagonal road sign.", 0, "missing: stop"),
        // A whole word is needed, not a part of one.
        Row("Cat", "A catalogue on a table.", 0, "missing: cat"),
    ]

    @Test(arguments: found + missing)
    func gradesTheShareOfExpectedWords(_ row: Row) {
        let input = ScoringInput(content: row.content, item: ScoringItem(expectedText: row.expected))
        let scores = TextRecallScorer().score(input)
        #expect(scores.count == 1)
        guard let score = scores.first else { return }
        #expect(score.name == ScoreName.textRecall)
        #expect(abs(score.value - row.value) < 1e-12, "detail: \(score.detail ?? "nil")")
        #expect(score.passed == nil)
        #expect(score.detail == row.detail)
    }

    @Test(arguments: [nil, "", "  \n\t", "\u{2605} \u{2605} !", "\u{1F600}"] as [String?])
    func writesNoScoreWithoutExpectedWords(_ expected: String?) {
        let input = ScoringInput(content: "A sign reading OPEN.", item: ScoringItem(expectedText: expected))
        #expect(TextRecallScorer().score(input).isEmpty)
    }
}
