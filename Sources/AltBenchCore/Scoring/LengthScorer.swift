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

    static func wordCount(_ text: String) -> Int {
        var text = text
        // Over the UTF-8 bytes: a Unicode property lookup per scalar is most of the cost.
        return text.withUTF8(wordCount)
    }

    /// Runs of bytes between whitespace, the White_Space scalars recognised by their UTF-8
    /// bytes: tab to carriage return and space; U+0085 and U+00A0 (C2 85, C2 A0); U+1680
    /// (E1 9A 80); U+2000 to U+200A, U+2028, U+2029, U+202F (E2 80 ..); U+205F (E2 81 9F);
    /// U+3000 (E3 80 80).
    static func wordCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        var inWord = false
        let n = bytes.count
        var i = 0
        while i < n {
            let byte = bytes[i]
            var width = 1
            var space = false
            if byte < 0x80 {
                space = byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
            } else if byte == 0xC2, i + 1 < n {
                width = 2
                space = bytes[i + 1] == 0x85 || bytes[i + 1] == 0xA0
            } else if byte == 0xE1 || byte == 0xE2 || byte == 0xE3, i + 2 < n {
                width = 3
                let b1 = bytes[i + 1]
                let b2 = bytes[i + 2]
                switch byte {
                case 0xE1: space = b1 == 0x9A && b2 == 0x80
                case 0xE2:
                    space = (b1 == 0x80 && (b2 <= 0x8A || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF))
                        || (b1 == 0x81 && b2 == 0x9F)
                default: space = b1 == 0x80 && b2 == 0x80
                }
            }
            if space {
                inWord = false
            } else if !inWord {
                count += 1
                inWord = true
            }
            i += width
        }
        return count
    }

    /// The same count from each scalar's White_Space property (the reference for the above).
    static func wordCountByProperties(_ text: String) -> Int {
        var count = 0
        var inWord = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                inWord = false
            } else if !inWord {
                count += 1
                inWord = true
            }
        }
        return count
    }
}
