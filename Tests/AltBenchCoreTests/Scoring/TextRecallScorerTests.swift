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

// MARK: - Random alt texts

/// Alt texts for checks over many texts: pieces the scorers look for
/// (hedges, reporting and naming words, hashtags, mentions, URLs, quotes in several
/// languages, numbers, apostrophes, hyphens, line breaks, accented and decomposed letters,
/// emoji, other scripts, odd spaces) strung together at random, from a fixed seed.
struct RandomAltText {
    var state: UInt64

    init(seed: UInt64) {
        state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(max(bound, 1)))
    }

    mutating func pick<T>(_ values: [T]) -> T { values[next(values.count)] }

    static let pieces: [String] = [
        // Plain words, in every case.
        "a", "A", "the", "The", "THE", "cat", "Cat", "CAT", "cats", "dog", "dogs", "dog's", "dogs\u{2019}",
        "puppies", "puppy", "mice", "mouse", "children's", "Children", "people", "running", "parked",
        "boxes", "glasses", "horse", "horses", "tabby", "coffee", "cup", "cups", "launch", "pad", "pads",
        "golden", "retriever", "retrievers", "red", "ball", "on", "in", "of", "and", "with", "sunny", "day",
        "tests", "pass", "Monday", "closed", "CLOSED", "open", "OPEN", "sorry", "we're", "WE\u{2019}RE",
        "I'm", "I", "we", "my", "it's", "it\u{2019}s", "o'clock", "rock 'n' roll", "'90s", "5'11\"", "12\" record",
        "T-shirt", "t-shirt", "ice-cream", "well-known", "impor-\ntant", "impor- \n  tant", "e.g.", "U.S.",
        "Dr.", "fig.", "3.5", "3.5%", "1,000", "10:30", "9:00", "50%", "$5", "\u{00A3}10", "2024", "3D",
        "100", "Day1", "x2", "C3PO", "under_score", "snake_case_name",
        // Hedges and the words around them.
        "appears to", "Appears to", "APPEARS TO", "appear to", "seems", "Seems", "seem", "seem to",
        "seemingly", "apparently", "possibly", "perhaps", "Perhaps", "probably", "likely", "unlikely",
        "most likely", "maybe", "Maybe", "MAYBE", "may be", "May be", "may", "might be", "might", "could be",
        "could", "looks like", "Looks like", "looks", "like", "Maybe Baby", "LOOKS LIKE RAIN",
        // Reporting and naming words.
        "reads", "read", "says", "said", "saying", "sign", "signs", "text", "title", "titled", "labelled",
        "caption", "written", "printed", "words", "message", "slogan", "inscription", "hashtag", "handle",
        "account", "tagged", "url", "link", "website", "tweet", "posted", "placard", "banner", "poster",
        "t-shirt", "shirt", "sticker", "mug", "graffiti", "screenshot",
        // Tokens.
        "#GoldenRetriever", "#100DaysOfCode", "#NASAGoddard", "#photography", "#nature", "#fff", "#FF0000",
        "#0af", "#BLM", "#BlackLivesMatter", "#caf\u{00E9}", "#\u{65E5}\u{672C}", "#1", "C#", "F#", "&#39;",
        "&#x27;", "##", "#", "#_a", "#Don'tStop", "@nasa", "@NASA", "@user@mastodon.social", "@a.b-c",
        "@_", "@", "@ 5", "name@example.com", "x.@y", "https://example.com/a(b)", "http://x.org/path.",
        "HTTPS://X.ORG", "www.example.org.", "Www.x", "x.www.y", "wwwhat", "http://", "https:/", "see http",
        // Quotes and brackets.
        "\"", "\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}", "'", "\u{00AB}", "\u{00BB}", "\u{00AB} ",
        " \u{00BB}", "\u{201E}", "\u{2039}", "\u{203A}", "\u{300C}", "\u{300D}", "\u{300E}", "\u{300F}",
        "(", ")", "[", "]", "{", "}", "\u{201C}Open.\u{201D}", "\u{201C}Maybe Baby\u{201D}",
        "\"Quoted\"", "\u{2018}I\u{2019}m the boss\u{2019}", "\u{00AB} Ferm\u{00E9} \u{00BB}",
        // Punctuation.
        ".", ",", ":", ";", "!", "?", "...", "\u{2026}", "!!!", "?!", "-", "\u{2010}", "\u{2011}",
        "\u{2013}", "\u{2014}", "/", "&", "*", "**", "_", "~", "<", ">", "\u{2022}", "\u{00B7}",
        // Other letters and scripts.
        "caf\u{00E9}", "Caf\u{00E9}", "CAF\u{00C9}", "cafe\u{0301}", "Stra\u{00DF}e", "STRASSE",
        "ni\u{00F1}o", "\u{00C9}COLE", "\u{00E9}t\u{00E9}", "e\u{0301}te\u{0301}", "f\u{00FC}ttern",
        "Ferm\u{00E9}", "r\u{00E9}paraci\u{00F3}n", "\u{0130}stanbul", "\u{023A}", "\u{01C5}",
        "\u{017F}", "\u{212A}", "\u{2126}", "\u{00AA}", "\u{00B2}", "\u{00BD}", "\u{00B5}", "\u{00BA}",
        "\u{00D7}", "\u{00F7}", "\u{00FF}", "\u{0178}", "\u{0152}uvre", "\u{0153}", "\u{0142}\u{00F3}d\u{017A}",
        "\u{65E5}\u{672C}", "\u{732B}", "\u{0394}\u{03B9}", "\u{2160}", "\u{0661}\u{0662}",
        "\u{00AD}", "so\u{00AD}ft", "\u{200B}", "\u{2060}", "\u{FEFF}", "\u{0301}",
        // Emoji and symbols.
        "\u{1F431}", "\u{2728}", "\u{2764}\u{FE0F}", "\u{2764}", "\u{1F44D}\u{1F3FD}", "\u{1F1EB}\u{1F1F7}",
        "1\u{FE0F}\u{20E3}", "#\u{20E3}", "\u{00A9}", "\u{00A9}\u{FE0F}", "\u{00AE}", "\u{2122}",
        "\u{203C}", "\u{2049}", "\u{2600}", "\u{2600}\u{FE0F}", "\u{2665}", "\u{2665}\u{FE0E}",
        "\u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
        "\u{20AC}", "\u{2192}", "\u{221E}",
    ]

    static let separators: [String] = [
        " ", " ", " ", " ", " ", " ", "", "  ", "\n", "\n\n", "\t", "\r\n", "\r", "\u{00A0}", "\u{2003}",
        "\u{3000}", ", ", ". ", ": ", " - ", "\u{2014}",
    ]

    /// A text of up to `pieces` pieces.
    mutating func text(pieces: Int = 30) -> String {
        var text = ""
        for _ in 0..<next(pieces + 1) {
            text += pick(Self.pieces)
            text += pick(Self.separators)
        }
        return text
    }

    /// A text sharing some of `text`'s pieces: a stretch of it, changed here and there.
    mutating func related(to text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty, next(4) != 0 else { return self.text(pieces: 12) }
        let start = next(scalars.count)
        let end = start + next(scalars.count - start + 1)
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<end])
        var related = String(view)
        if next(2) == 0 { related = related.uppercased() }
        if next(3) == 0 { related += " " + pick(Self.pieces) }
        if next(3) == 0 { related = pick(Self.pieces) + " " + related }
        return related
    }
}
