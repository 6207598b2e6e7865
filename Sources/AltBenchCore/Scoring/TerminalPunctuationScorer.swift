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
        // The common case, decided on the last byte: a final ASCII . ! ? passes. (It is a
        // Character of its own, unless a prepended mark such as U+0600 joins it to the one
        // before; the answer passes then too.)
        if let last = input.text.utf8.last,
            last == UInt8(ascii: ".") || last == UInt8(ascii: "!") || last == UInt8(ascii: "?")
        {
            return Self.passed
        }
        var text = input.text
        if let end = text.withUTF8(Self.asciiEnd) {
            // The character judged is one ASCII byte, after ASCII closing marks and spaces.
            if end == UInt8(ascii: ".") || end == UInt8(ascii: "!") || end == UInt8(ascii: "?") {
                return Self.passed
            }
            return [.flag(ScoreName.terminalPunctuation, true, detail: Self.asciiDetails[Int(end)])]
        }
        return Self.scoreByCharacters(input)
    }

    /// The score of an answer that passes, made once.
    static let passed = [Score.flag(ScoreName.terminalPunctuation, false)]

    /// ``score(_:)`` without reading the end from the bytes: on the `Character`s, after the
    /// same check of the last byte; the tests check that both agree.
    static func scoreByCharacters(_ input: ScoringInput) -> [Score] {
        if let last = input.text.utf8.last,
            last == UInt8(ascii: ".") || last == UInt8(ascii: "!") || last == UInt8(ascii: "?")
        {
            return Self.passed
        }
        guard !input.text.isEmpty, !TextAnalysis.endsWithTerminalPunctuation(input.text) else {
            return Self.passed
        }
        let last = Self.lastMeaningfulCharacter(input.characters)
        if let last, Self.isOtherScriptTerminator(last) {
            return Self.passed
        }
        let shown = last ?? input.characters.last ?? " "
        return [.flag(ScoreName.terminalPunctuation, true, detail: "ends with \"\(shown)\"")]
    }

    /// The last character that ``TextAnalysis/endsWithTerminalPunctuation(_:)`` judges, when
    /// it and everything after it is ASCII: the byte, read from the end past spaces, closing
    /// marks (" ' ) ] }) and emphasis markup (* _). `nil` when a byte on the way is not
    /// ASCII, when the byte before the one found is not (a non-ASCII character before it
    /// could join it into one `Character`) or when there is nothing else.
    static func asciiEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt8? {
        var i = bytes.count - 1
        while i >= 0 {
            let b = bytes[i]
            guard b < 0x80 else { return nil }
            switch b {
            case 0x09...0x0D, 0x20, 0x22, 0x27, 0x29, 0x5D, 0x7D, 0x2A, 0x5F:
                i -= 1
            default:
                return i > 0 && bytes[i - 1] >= 0x80 ? nil : b
            }
        }
        return nil
    }

    /// The detail for each ASCII last character.
    static let asciiDetails: [String] = (0..<128).map { b in
        "ends with \"\(Character(Unicode.Scalar(UInt8(b))))\""
    }

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
