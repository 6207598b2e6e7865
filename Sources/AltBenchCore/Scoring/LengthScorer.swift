/// Measures an answer in Unicode scalars and words (Mastodon counts a description in code points).
///
/// Writes two figures: `chars`, the Unicode scalar count of the trimmed text (what the
/// platform counts, so "é" written as "e" plus a combining accent is 2 and a ZWJ family
/// emoji is several), and `words`, the number of whitespace-separated runs.
public struct LengthScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let text = input.text
        return [
            Score(name: ScoreName.length, value: Double(input.scalarCount)),
            Score(name: ScoreName.words, value: Double(Self.wordCount(text))),
        ]
    }

    /// The number of runs of scalars between White_Space scalars.
    static func wordCount(_ text: String) -> Int {
        var count = 0
        var inWord = false
        for scalar in text.unicodeScalars {
            // ASCII's White_Space scalars are tab to carriage return and space.
            let isWhitespace = scalar.isASCII
                ? scalar == " " || (scalar >= "\t" && scalar <= "\r") : scalar.properties.isWhitespace
            if isWhitespace {
                inWord = false
            } else if !inWord {
                count += 1
                inWord = true
            }
        }
        return count
    }
}
