import Testing

@testable import AltBenchCore

@Suite("length")
struct LengthScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var content: String?
        var chars: Int
        var words: Int
        var testDescription: String { content?.debugDescription ?? "nil content" }
    }

    static let rows: [Row] = [
        Row(content: nil, chars: 0, words: 0),
        Row(content: "", chars: 0, words: 0),
        Row(content: "  \n ", chars: 0, words: 0),
        Row(content: "A cat.", chars: 6, words: 2),
        // A combining accent is its own scalar: "café" spelt e + U+0301 is 5, precomposed 4.
        Row(content: "cafe\u{301}", chars: 5, words: 1),
        Row(content: "caf\u{E9}", chars: 4, words: 1),
        // One Character, seven scalars: man ZWJ woman ZWJ girl ZWJ boy.
        Row(content: "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}", chars: 7, words: 1),
        Row(content: "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308} flag", chars: 9, words: 2),
        Row(content: "\u{1F44D}\u{1F3FD}", chars: 2, words: 1),
        // The trimmed text is measured; inner runs of whitespace separate one pair of words.
        Row(content: "  A cat  on a\tmat.\n", chars: 16, words: 5),
        Row(content: "A\ncat\r\nsleeps", chars: 13, words: 3),
        Row(content: "A\u{00A0}cat", chars: 5, words: 2),
        Row(content: "A cat — sleeping", chars: 16, words: 4),
        Row(content: "T-shirt", chars: 7, words: 1),
        Row(content: "A sign reads \u{201C}OPEN\u{201D}.", chars: 20, words: 4),
        Row(content: "Un café au lait.", chars: 16, words: 4),
        Row(content: "猫が寝ている。", chars: 7, words: 1),
        Row(content: "#1 C# 🐱", chars: 7, words: 3),
        Row(content: "1\u{FE0F}\u{20E3} first", chars: 9, words: 2),
        Row(content: "\u{1F1EB}\u{1F1F7} France", chars: 9, words: 2),
        Row(content: String(repeating: "word ", count: 300), chars: 1499, words: 300),
    ]

    @Test(arguments: rows)
    func countsScalarsAndWhitespaceSeparatedWords(_ row: Row) {
        let scores = LengthScorer().score(ScoringInput(content: row.content))
        #expect(scores.map(\.name) == [ScoreName.length, ScoreName.words])
        #expect(scores.first?.value == Double(row.chars))
        #expect(scores.last?.value == Double(row.words))
        #expect(scores.allSatisfy { $0.passed == nil && $0.detail == nil })
    }

    @Test func charactersAndScalarsDiffer() {
        let text = "cafe\u{301} \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}"
        #expect(text.count == 6)
        #expect(LengthScorer().score(ScoringInput(content: text)).first?.value == 13)
    }
}
