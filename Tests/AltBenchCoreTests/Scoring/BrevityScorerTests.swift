import Testing

@testable import AltBenchCore

@Suite("brevity")
struct BrevityScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var chars: Int
        var budget = 150
        var limit = 1500
        var value: Double
        var passed: Bool
        /// A Unicode scalar that is its own Character, or a pair forming one Character.
        var unit = "x"

        var text: String {
            let units = unit.unicodeScalars.count
            return String(repeating: unit, count: chars / units) + String(repeating: "x", count: chars % units)
        }

        var testDescription: String { "\(chars) scalars of \(unit.debugDescription), budget \(budget), limit \(limit)" }
    }

    static let rows: [Row] = [
        Row(chars: 0, value: 1, passed: true),
        Row(chars: 1, value: 1, passed: true),
        Row(chars: 149, value: 1, passed: true),
        Row(chars: 150, value: 1, passed: true),
        Row(chars: 151, value: 1349.0 / 1350.0, passed: false),
        Row(chars: 825, value: 0.5, passed: false),
        Row(chars: 1499, value: 1.0 / 1350.0, passed: false),
        Row(chars: 1500, value: 0, passed: false),
        Row(chars: 1501, value: 0, passed: false),
        Row(chars: 5000, value: 0, passed: false),
        // Scalars, not Characters: 75 "é" spelt with a combining accent are 150.
        Row(chars: 150, value: 1, passed: true, unit: "e\u{301}"),
        Row(chars: 152, value: 1348.0 / 1350.0, passed: false, unit: "e\u{301}"),
        Row(chars: 100, budget: 100, limit: 1000, value: 1, passed: true),
        Row(chars: 550, budget: 100, limit: 1000, value: 0.5, passed: false),
        Row(chars: 1000, budget: 100, limit: 1000, value: 0, passed: false),
        // A limit at or under the budget leaves no slope.
        Row(chars: 150, budget: 200, limit: 100, value: 1, passed: true),
        Row(chars: 201, budget: 200, limit: 100, value: 0, passed: false),
        Row(chars: 201, budget: 200, limit: 200, value: 0, passed: false),
        // Emoji count their scalars: a skin-toned thumb is two.
        Row(chars: 150, value: 1, passed: true, unit: "\u{1F44D}\u{1F3FD}"),
        Row(chars: 80, value: 1, passed: true, unit: "\u{1F431}"),
        Row(chars: 125, value: 1, passed: true),
        Row(chars: 99, budget: 100, value: 1, passed: true),
        Row(chars: 1, budget: 1, limit: 2, value: 1, passed: true),
    ]

    @Test(arguments: rows)
    func fallsLinearlyFromBudgetToLimit(_ row: Row) {
        let input = ScoringInput(
            content: row.text, settings: ScoringSettings(brevityBudget: row.budget, platformLimit: row.limit))
        #expect(input.text.unicodeScalars.count == row.chars)
        let scores = BrevityScorer().score(input)
        #expect(scores.count == 1)
        let score = scores[0]
        #expect(score.name == ScoreName.brevity)
        #expect(abs(score.value - row.value) < 1e-12)
        #expect((0...1).contains(score.value))
        #expect(score.passed == row.passed)
        #expect(score.detail == (row.passed ? nil : "\(row.chars) > \(row.budget)"))
    }

    @Test func oneOverTheBudgetIsJustUnderOne() {
        let score = BrevityScorer().score(ScoringInput(content: String(repeating: "a", count: 151)))[0]
        #expect(score.value < 1)
        #expect(score.value > 0.999)
    }
}
