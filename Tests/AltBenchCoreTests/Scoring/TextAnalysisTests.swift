import Testing

@testable import AltBenchCore

@Suite("TextAnalysis")
struct TextAnalysisTests {
    struct WordsRow: Sendable, CustomTestStringConvertible {
        var text: String
        var words: [String]
        var normalized: [String]
        var testDescription: String { text.debugDescription }
    }

    static let wordRows: [WordsRow] = [
        WordsRow(text: "", words: [], normalized: []),
        WordsRow(text: "I\u{2019}m here", words: ["I\u{2019}m", "here"], normalized: ["i'm", "here"]),
        WordsRow(text: "We've", words: ["We've"], normalized: ["we've"]),
        WordsRow(text: "I\u{02BC}m", words: ["I\u{02BC}m"], normalized: ["i'm"]),
        WordsRow(text: "T-shirt's logo", words: ["T-shirt's", "logo"], normalized: ["t-shirt's", "logo"]),
        WordsRow(text: "'Open'", words: ["Open"], normalized: ["open"]),
        WordsRow(text: "\u{2018}Open\u{2019}", words: ["Open"], normalized: ["open"]),
        WordsRow(text: "dogs' bowl", words: ["dogs", "bowl"], normalized: ["dogs", "bowl"]),
        WordsRow(text: "i.e.", words: ["i", "e"], normalized: ["i", "e"]),
        WordsRow(text: "iPhone 15", words: ["iPhone", "15"], normalized: ["iphone", "15"]),
        WordsRow(text: "cat\u{2014}dog", words: ["cat", "dog"], normalized: ["cat", "dog"]),
        WordsRow(text: "well- known", words: ["well", "known"], normalized: ["well", "known"]),
        WordsRow(text: "Caf\u{E9} cafe\u{301}", words: ["Caf\u{E9}", "cafe\u{301}"], normalized: ["caf\u{E9}", "cafe\u{301}"]),
        WordsRow(text: "\u{1F431} cat", words: ["cat"], normalized: ["cat"]),
    ]

    @Test(arguments: wordRows)
    func splitsWords(_ row: WordsRow) {
        let words = TextAnalysis.words(in: row.text)
        #expect(words.map(\.text) == row.words)
        #expect(words.map(\.normalized) == row.normalized)
    }

    @Test func wordRangesCountCharacters() {
        let words = TextAnalysis.words(in: "cafe\u{301} au lait")
        #expect(words.map(\.range) == [0..<4, 5..<7, 8..<12])
    }

    @Test(arguments: [
        ("US", true), ("WE'RE", true), ("I\u{2019}M", true), ("I", false), ("Us", false),
        ("we", false), ("T-SHIRT", true), ("C3PO", true), ("4K", false),
    ])
    func allCapsNeedsTwoUppercaseLetters(word: String, allCaps: Bool) {
        #expect(TextAnalysis.words(in: word).first?.isAllCaps == allCaps)
    }

    @Test(arguments: [
        ("A cat.", true), ("A cat", false), ("Really?", true), ("Wow!", true), ("A cat\u{2026}", true),
        ("A sign reading \u{201C}Open.\u{201D}", true), ("A cat (asleep.)", true), ("A cat. ", true),
        ("A sign reading \u{201C}Open\u{201D}", false), ("A cat,", false), ("", false),
        ("**A cat.**", true),
    ])
    func findsTerminalPunctuation(text: String, ends: Bool) {
        #expect(TextAnalysis.endsWithTerminalPunctuation(text) == ends)
    }

    struct VoiceRow: Sendable, CustomTestStringConvertible {
        var text: String
        var voice: String
        var testDescription: String { text.debugDescription }
    }

    static let voiceRows: [VoiceRow] = [
        VoiceRow(text: "", voice: ""),
        VoiceRow(text: "A cat on a mat.", voice: "A cat on a mat."),
        VoiceRow(text: "A banner saying \u{201C}I love NY\u{201D}.", voice: "A banner saying  ."),
        VoiceRow(text: "A sign reads: WE ARE OPEN.", voice: "A sign ."),
        VoiceRow(text: "A plaque that says I was here.", voice: "A plaque that says ."),
        VoiceRow(text: "A T-shirt with the text 'my other car is a cat'", voice: "A T-shirt with the text  "),
        // Apostrophes inside a single-quoted span do not close it.
        VoiceRow(text: "What\u{2019}s that? \u{2018}I\u{2019}m here\u{2019}, she said.", voice: "What\u{2019}s that?  , she said."),
        // A sentence end inside the closing quote is kept; the next sentence is the model's.
        VoiceRow(text: "A mug: \u{201C}Hi.\u{201D} We see it.", voice: "A mug:  .  We see it."),
        // After a reporting word, a quotation is all that is reported.
        VoiceRow(text: "A sign reads \u{201C}Open\u{201D} and I think so.", voice: "A sign  and I think so."),
        VoiceRow(text: "Rock 'n' roll", voice: "Rock   roll"),
        VoiceRow(text: "The dogs' bowls and 'toys'", voice: "The dogs' bowls and  "),
        VoiceRow(text: "A 12\" record", voice: "A 12\" record"),
        VoiceRow(text: "A '90s room", voice: "A '90s room"),
        // An unclosed quotation hides the rest of its sentence only.
        // A stray opening mark in a finished text hides only its own sentence ...
        VoiceRow(text: "A sign reading \u{201C}Open. We see it.", voice: "A sign . We see it."),
        // ... but a text that stops mid-sentence inside a quotation was cut off in it.
        VoiceRow(text: "A sign reading \u{201C}Open. We see it", voice: "A sign "),
        // Reported text stops at a line break.
        VoiceRow(text: "A sign reads Open\nWe see a dog", voice: "A sign \nWe see a dog"),
        VoiceRow(text: "\u{201E}Wir\u{201C} and \u{00AB}Oui\u{00BB} and \u{300C}\u{306F}\u{3044}\u{300D}", voice: "  and   and  "),
        // A reporting word that ends its sentence reports nothing.
        VoiceRow(text: "A shop sign. We see it.", voice: "A shop sign. We see it."),
        VoiceRow(text: "A sign with no text.", voice: "A sign ."),
    ]

    @Test(arguments: voiceRows)
    func removesQuotedAndReportedText(_ row: VoiceRow) {
        #expect(TextAnalysis.ownVoice(row.text) == row.voice)
    }
}

@Suite("TextAnalysis characters")
struct TextAnalysisCharacterTests {
    /// Pieces covering each path: ASCII, Latin-1 and punctuation scalars (one Character
    /// each), and scalars that join their neighbours (combining marks, joiners, emoji
    /// modifiers, flags, CR LF).
    static let fragments: [String] = [
        "A", "cat", "I'm", "T-shirt", " ", "\n", "\t", ".", "\"", "'", "(", "#1", "C#", "42",
        "caf\u{E9}", "\u{201C}Open\u{201D}", "\u{2019}", "\u{2014}", "\u{00AB}", "\u{2010}", "\u{2011}",
        "\u{2028}", "\u{00A0}", "\u{2003}", "e\u{301}", "\u{1F44D}\u{1F3FD}", "\u{1F468}\u{200D}\u{1F469}",
        "\u{1F1EB}\u{1F1F7}", "\r\n", "\r", "\u{200B}", "\u{2060}", "\u{03A9}", "\u{0416}x", "\u{732B}",
        "\u{FF01}", "\u{0661}\u{0662}", "\u{02BC}", "x\u{200C}y", "\u{C9}cole", "\u{DC}BER", "\u{DF}",
        "\u{D7}", "\u{B5}", "\u{DE}", "\u{130}", "\u{1E9E}", "\u{1C5}", "\u{2126}",
    ]

    @Test("asciiByte reads what asciiValue reads, for every character kind")
    func asciiByteMatchesAsciiValue() {
        let ascii: [Character] = (0..<128).map { (byte: UInt8) in Character(Unicode.Scalar(byte)) }
        let others: [Character] = Self.fragments.flatMap { Array($0) }
        let characters: [Character] = ascii + others + ["\r\n", "\u{301}", "a\u{308}", "\u{7F}", "\u{80}"]
        for c in characters {
            #expect(c.asciiByte == c.asciiValue, "\(String(c).debugDescription)")
        }
    }
}
