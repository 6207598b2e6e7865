/// Flags an answer that does not end a sentence (altbench research; double-great/alt-text).
///
/// A style check: a final period makes a screen reader pause before what comes next, and
/// double-great/alt-text reports a missing one. The answer passes when it ends with . ! ? or
/// an ellipsis, in ASCII, full-width or CJK form (。 ！ ？ …), optionally followed by closing
/// quotes and brackets (`A sign reading “Open.”`, `(see sign.)`) or the `**` / `_` of
/// markdown emphasis, as ``TextAnalysis/endsWithTerminalPunctuation(_:)`` decides; the
/// sentence ends of other scripts (Arabic ؟ and ۔, Devanagari । and ॥, Armenian ։,
/// Ethiopic ።, half-width ｡) count too. An answer ending on an emoji, a URL or a closing
/// quote with nothing before it (`A sign reading "Open"`) is flagged.
///
/// Empty text passes: `empty` owns it. The detail is the character the answer ends on,
/// past closing marks: `ends with "t"`.
public struct TerminalPunctuationScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard !input.text.isEmpty, !TextAnalysis.endsWithTerminalPunctuation(input.text) else { return Self.passed }
        let last = Self.lastMeaningfulCharacter(input.characters)
        if let last, Self.isOtherScriptTerminator(last) { return Self.passed }
        let shown = last ?? input.characters.last ?? " "
        return [.flag(ScoreName.terminalPunctuation, true, detail: "ends with \"\(shown)\"")]
    }

    /// The score of an answer that passes, made once.
    static let passed = [Score.flag(ScoreName.terminalPunctuation, false)]

    /// The last character that is not whitespace, a closing mark or emphasis markup: the
    /// one ``TextAnalysis/endsWithTerminalPunctuation(_:)`` judges.
    static func lastMeaningfulCharacter(_ chars: [Character]) -> Character? {
        chars.last { c in
            !(c.isWhitespace || TextAnalysis.isClosingMark(c) || c == "*" || c == "_")
        }
    }

    /// Sentence ends of scripts that ``TextAnalysis/isSentenceTerminator(_:)`` leaves out.
    static func isOtherScriptTerminator(_ c: Character) -> Bool {
        switch c {
        case "\u{061F}", "\u{06D4}", "\u{0964}", "\u{0965}", "\u{0589}", "\u{1362}", "\u{FF61}": true
        default: false
        }
    }
}
