import Testing

@testable import AltBenchCore

/// One row of the tokenizer table: a caption and the tokens pycocoevalcap's PTB tokenizer
/// gives it (checked against Stanford CoreNLP 3.4.1 when the table was written).
struct TokenizerCase: Sendable, CustomTestStringConvertible {
    var text: String
    var tokens: [String]

    init(_ text: String, _ tokens: String) {
        self.text = text
        self.tokens = tokens.isEmpty ? [] : tokens.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    }

    var testDescription: String { text.debugDescription }
}

@Suite("CaptionTokenizer")
struct CaptionTokenizerTests {
    static let cases: [TokenizerCase] = [
        // Lowercase, final punctuation dropped.
        TokenizerCase("A tabby cat sleeping on a grey sofa.", "a tabby cat sleeping on a grey sofa"),
        TokenizerCase("", ""),
        TokenizerCase("   \n\t ", ""),
        TokenizerCase("...", ""),
        TokenizerCase("A cat, a dog; a bird: all asleep!", "a cat a dog a bird all asleep"),
        TokenizerCase("Is it a cat? Yes! Really?!", "is it a cat yes really ?!"),
        // Clitics split the PTB way, straight or curly apostrophe.
        TokenizerCase("It's a dog's life, isn't it?", "it 's a dog 's life is n't it"),
        TokenizerCase("I\u{2019}m sure they\u{2019}ll say we\u{2019}re late.", "i 'm sure they 'll say we 're late"),
        TokenizerCase("Don't, can't, won't, CAN'T.", "do n't ca n't wo n't ca n't"),
        TokenizerCase("We cannot, gonna, wanna.", "we can not gon na wan na"),
        TokenizerCase("Two dogs' leashes and James' car.", "two dogs leashes and james car"),
        TokenizerCase("O'Brien's pub at 5 o'clock in Hawai'i.", "o'brien 's pub at 5 o'clock in hawai'i"),
        TokenizerCase("Rock 'n' roll from the '90s, y'all.", "rock 'n' roll from the '90s y' all"),
        // Quotes of every kind are dropped; a pair of curly quotes stays as one token.
        TokenizerCase("A sign reads \u{201C}OPEN\u{201D} and 'Welcome'.", "a sign reads open and welcome"),
        TokenizerCase("A banner saying \"I \u{2665} NY\".", "a banner saying i \u{2665} ny"),
        TokenizerCase("\u{201C}\u{201D}", "``''"),
        TokenizerCase("\u{00AB} Bonjour \u{00BB}", "bonjour"),
        // Abbreviations keep their period; sentence ends lose it.
        TokenizerCase("Dr. Smith and Mt. Fuji, e.g. the U.S. flag.", "dr. smith and mt. fuji e.g. the u.s. flag"),
        TokenizerCase("Made in the U.S.A.", "made in the u.s.a."),
        TokenizerCase("At 10 a.m. on Jan. 5, etc.", "at 10 a.m. on jan. 5 etc."),
        TokenizerCase("See fig. 3 and no. 5, not fig. A.", "see fig. 3 and no. 5 not fig a."),
        TokenizerCase("Plan B. The team waits. Plan b. then", "plan b the team waits plan b. then"),
        TokenizerCase("J. R. R. Tolkien", "j. r. r. tolkien"),
        TokenizerCase("Ill. and ill. are different.", "ill. and ill are different"),
        TokenizerCase("The end.The start", "the end.the start"),
        // Numbers, hyphens and slashes.
        TokenizerCase("1,000 people at 10:30, -5 degrees, 3.5 km.", "1,000 people at 10:30 -5 degrees 3.5 km"),
        TokenizerCase("A 5-year-old in a T-shirt, well-known and/or 24/7.", "a 5-year-old in a t-shirt well-known and/or 24/7"),
        TokenizerCase("A 3.5-inch disk, 1/2 cup, \u{00BD} cup, 12/25/2020.", "a 3.5-inch disk 1/2 cup 1/2 cup 12/25/2020"),
        // Brackets stay, lowercased, because PUNCTUATIONS names the uppercase forms.
        TokenizerCase("A cat (left) and [a dog] {sic}.", "a cat -lrb- left -rrb- and -lsb- a dog -rsb- -lcb- sic -rcb-"),
        // Dashes and ellipses are dropped.
        TokenizerCase("Close-up \u{2014} a leaf \u{2013} wet -- green... \u{2026}", "close-up a leaf wet green"),
        // Symbols are tokens; currency is normalised.
        TokenizerCase("50% off, $5 or \u{00A3}4 or \u{20AC}6, 20\u{00B0}C, A & B.", "50 % off $ 5 or # 4 or $ 6 20 \u{00B0} c a & b."),
        TokenizerCase("AT&T and R&B, b&w.", "at&t and r&b b & w."),  // a final single letter keeps its period
        // Social media text.
        TokenizerCase("#Caturday by @nasa_1 at https://example.com/a?b=c.", "#caturday by @nasa_1 at https://example.com/a?b=c"),
        TokenizerCase("Mail info@example.org or visit www.example.com.", "mail info@example.org or visit www.example.com"),
        // Emoji beyond U+FFFF and variation selectors are untokenizable and dropped.
        TokenizerCase("A cat \u{1F63A} and a heart \u{2764}\u{FE0F}.", "a cat and a heart \u{2764}"),
        TokenizerCase("\u{1F63A}\u{1F63A}", ""),
        // Smileys: PTB escapes their parentheses.
        TokenizerCase("Nice :) and sad :(", "nice :-rrb- and sad :-lrb-"),
        // Non-English text.
        TokenizerCase("Ein Schild: \u{201E}Vorsicht, Enten!\u{201C}", "ein schild \u{201E} vorsicht enten"),
        TokenizerCase("Un caf\u{00E9} na\u{00EF}ve, \u{00C9}T\u{00C9}.", "un caf\u{00E9} na\u{00EF}ve \u{00E9}t\u{00E9}"),
        TokenizerCase("\u{6771}\u{4EAC}\u{3001}\u{65E5}\u{672C}\u{3002}", "\u{6771}\u{4EAC} \u{3001} \u{65E5}\u{672C} \u{3002}"),
        TokenizerCase("\u{041F}\u{0440}\u{0438}\u{0432}\u{0435}\u{0442}, \u{043C}\u{0438}\u{0440}!", "\u{043F}\u{0440}\u{0438}\u{0432}\u{0435}\u{0442} \u{043C}\u{0438}\u{0440}"),
    ]

    @Test(arguments: cases)
    func tokenizes(_ row: TokenizerCase) {
        #expect(CaptionTokenizer.tokenize(row.text) == row.tokens)
    }

    /// Every text of the reference goldens (the sample's references, the candidates made from
    /// them, and model-style texts) as pycocoevalcap's Java PTB tokenizer split it.
    @Test func matchesPTBTokenizerOnGoldenTexts() throws {
        let goldens = try ReferenceGoldens.load()
        #expect(goldens.texts.count > 200)
        var mismatches: [String] = []
        for text in goldens.texts where CaptionTokenizer.tokenize(text.text) != text.tokens {
            mismatches.append("\(text.text.debugDescription): \(CaptionTokenizer.tokenize(text.text)) != \(text.tokens)")
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    @Test func tokensNeverHoldWhitespaceOrDroppedPunctuation() {
        let dropped: Set<String> = ["''", "'", "``", "`", ".", "?", "!", ",", ":", "-", "--", "...", ";"]
        for row in Self.cases {
            for token in CaptionTokenizer.tokenize(row.text) {
                #expect(!token.isEmpty)
                let hasSpace = token.contains { $0.isWhitespace }
                #expect(!hasSpace)
                #expect(!dropped.contains(token), "\(row.text.debugDescription) gave \(token)")
            }
        }
    }
}

/// Random captions from fragments alt text is made of (words, abbreviations, numbers,
/// contractions, hyphenated words, punctuation, quotes of every kind, symbols, URLs,
/// non-ASCII letters and spaces), joined with or without a space, from a fixed seed.
struct CaptionFragments {
    static let fragments: [String] = [
        // Words, capitalised words, single letters, assimilations.
        "a", "A", "the", "The", "cat", "Cat", "sofa", "grey", "sitting", "photo", "It", "We", "I", "B", "j", "y", "n",
        "gonna", "Cannot", "wanna", "lemme", "wooden", "called", "ground", "colour", "http", "www", "com", "ph", "Ed",
        "Mass", "ill", "fig", "No", "Mr", "cont", "dunkin", "ol", "CAN", "WE", "SHE", "nn", "xn", "an",
        // Abbreviations and acronyms.
        "Dr.", "etc.", "e.g.", "U.S.", "a.m.", "Jan.", "Mt.", "Ill.", "no.", "fig.", "Ph.D.", "vs.", "Inc.", "St.",
        // Numbers.
        "3", "42", "2020", "3.5", "1,000", "10:30", "-5", "+3", ".5", "5-year-old", "12/25/2020", "1/2", "24/7",
        "3D", "90s", "2-1/2", "50%", "$5", "US$", "4x4",
        // Contractions and apostrophes, straight and curly.
        "don't", "can't", "isn't", "won't", "it's", "cat's", "they're", "we'll", "I'm", "he'd", "you've",
        "don’t", "it’s", "dog’s", "they’re", "O'Brien", "o'clock", "Hawai'i", "y'all", "'90s", "'n'", "'em", "'tis",
        "cont'd", "cont'd.", "dunkin'", "ol'", "WE'RE", "SHE'S", "don‘t", "don‛t", "James'", "dogs'", "'", "’", "'s",
        "n't", "ain't", "cannn't",
        // Hyphens, dashes, slashes.
        "close-up", "t-shirt", "red-brown", "covid-19", "well-known", "x-ray", "e-mail", "u.s.-based", "3.5-inch",
        "-", "--", "-----", "—", "–", "‐", "and/or", "100km/h", "snake_case", "_", "/", "\\",
        // Punctuation.
        ".", ",", ";", ":", "!", "?", "?!", "...", "…", "!!", ". ", ", ", ": ", ";)", ":)", ":-(", "=D", ":o)",
        // Quotes and brackets.
        "\"", "“", "”", "‘", "‚", "„", "‟", "«", "»", "‹", "›", "`", "``", "''", "(", ")", "[", "]", "{", "}",
        // Symbols, social text, markup.
        "#tag", "#", "@nasa", "@", "a@b.com", "info@example.org", "www.example.com", "example.com", "https://x.org/a?b=c",
        "http://example.com.", "&", "AT&T", "R&B", "&amp;", "&lt;", "&quot;", "c++", "C#", "*", "**", "<b>", "</b>",
        "<", ">", "<<", "=", "+", "%", "~", "^", "|", "€", "£", "¢", "½", "°", "©", "™", "×", "♥", "→", "¡", "¿",
        "²", "₂", "🐱", "✨", "❤️", "👍🏽", "\u{200D}", "\u{FE0F}", "「", "」",
        // Non-ASCII letters and digits.
        "café", "Café", "naïve", "Zürich", "ÉTÉ", "straße", "crème", "fermé.", "d'été", "l'île", "Ｋ", "\u{212A}elvin",
        "e\u{301}", "東京", "日本。", "привет", "мир!", "٣", "١٢", "ﬁ", "İstanbul", "ΣΟΦΙΑ", "µm",
        "ÀÁÂÃ", "ÄÅÆÇ", "ÈÉÊË", "ÌÍÎÏ", "ÐÑÒÓ", "ÔÕÖ×Ø", "ÙÚÛÜ", "ÝÞßÿ", "µªº", "Ångström", "\u{212B}ngström",
        // Spaces.
        " ", " ", "  ", "\n", "\t", "\u{A0}", "\u{2003}", "\r\n",
    ]

    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    /// A caption of up to `maxFragments` fragments.
    mutating func caption(maxFragments: Int = 14) -> String {
        var text = ""
        for _ in 0..<(1 + next(maxFragments)) {
            text += Self.fragments[next(Self.fragments.count)]
            switch next(4) {
            case 0: break
            case 1: text += ["", ".", ",", "'s", "’", "-", ":", "!"][next(8)]
            default: text += " "
            }
        }
        return text
    }
}

@Suite("CaptionTokenizer fast paths")
struct CaptionTokenizerFastPathTests {
    /// The scanner's shortcuts for common words give the tokens of the full rules.
    @Test func shortcutsGiveTheFullRulesTokens() throws {
        var random = CaptionFragments(state: 7)
        var texts = try ReferenceGoldens.load().texts.map(\.text)
        for _ in 0..<8_000 { texts.append(random.caption()) }
        var mismatches: [String] = []
        for text in texts {
            let fast = CaptionTokenizer.tokenize(text), full = CaptionTokenizer.tokenize(text, shortcuts: false)
            if fast != full, mismatches.count < 20 { mismatches.append("\(text.debugDescription): \(fast) != \(full)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// The scanner's input: the text's Unicode scalars, decoded eight ASCII bytes at a time
    /// where it can, and the flags of the rarer characters it holds.
    @Test func scalarsAndFlagsMatchTheText() {
        var random = CaptionFragments(state: 13)
        var texts = ["", "a", "abcdefgh", "abcdefg#", "########", "@@@@@@@@@", "_", "abc/def-ghi'jkl$mno+pqr&stu@vwx_yz#",
                     "0123456789ABCDEF\u{7F}xyz", "\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}"]
        for _ in 0..<5_000 { texts.append(random.caption(maxFragments: 30)) }
        for text in texts {
            let expected = text.unicodeScalars.map(\.value)
            var flags = CaptionTokenizer.Flags()
            for c in expected {
                switch c {
                case 0x27, 0x2019, 0x2018, 0x201B, 0x91, 0x92: flags.insert(.apostrophe)
                case 0x2D, 0x5F, 0x58A, 0x2010, 0x2011: flags.insert(.hyphen)
                case 0x2F, 0x2044: flags.insert(.slash)
                case 0x40: flags.insert(.at)
                case 0x26, 0x2B, 0x23, 0x24: flags.insert(.joiner)
                default: break
                }
            }
            let (scalars, found) = CaptionTokenizer.withScalars(text) { (Array($0), $1) }
            #expect(scalars == expected, "\(text.debugDescription)")
            #expect(found == flags, "\(text.debugDescription)")
        }
    }
}
