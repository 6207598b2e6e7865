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
    /// Looking the tokens up as the scanner finds them gives the keys the String tokens get,
    /// and the same n-grams.
    @Test func corpusKeysMatchStringTokens() throws {
        var random = CaptionFragments(state: 11)
        let goldenTexts = try ReferenceGoldens.load().texts.map(\.text)
        // Items whose references share many tokens with the captions, including non-ASCII
        // ones, tokens over 16 bytes, and tokens canonically equivalent to ASCII ones.
        var items = (0..<40).map { i in
            ScoringItem(id: "item\(i)", references: (0..<3).map { _ in random.caption(maxFragments: 30) })
        }
        items.append(ScoringItem(id: "golden", references: Array(goldenTexts.prefix(60))))
        items.append(ScoringItem(id: "odd", references: ["a \u{212A}elvin sign", "Caf\u{E9} cafe\u{301} x-ray-vision-goggles-extra-long", "#\u{37E}"]))
        let corpus = ReferenceCorpus(items: items)
        var texts = goldenTexts
        for _ in 0..<5_000 { texts.append(random.caption()) }
        texts += ["kelvin Kelvin \u{212A}elvin", "Café café cafe\u{301}", "x-ray-vision-goggles-extra-long x-ray-vision-goggles-extra-longer",
                  "zzz zzz zzz", "zzz zzz yyy zzz zzz yyy"]
        var mismatches: [String] = []
        for (t, text) in texts.enumerated() {
            let tokens = CaptionTokenizer.tokenize(text)
            var expected = CandidateNGrams.Keys()
            for token in tokens { expected.append(token, corpus: corpus) }
            let keys = CaptionTokenizer.keys(text, corpus: corpus)
            let entry = corpus.entries[t % corpus.entries.count]
            let fromText = CandidateNGrams(text: text, corpus: corpus, entry: entry)
            let fromTokens = CandidateNGrams(tokens, corpus: corpus, entry: entry)
            if keys.keys != expected.keys || !Self.same(fromText, fromTokens), mismatches.count < 20 {
                mismatches.append("\(text.debugDescription): \(keys.keys) != \(expected.keys)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    static func same(_ a: CandidateNGrams, _ b: CandidateNGrams) -> Bool {
        a.grams.map(\.key) == b.grams.map(\.key) && a.grams.map(\.count) == b.grams.map(\.count)
            && a.grams.map(\.union) == b.grams.map(\.union) && a.tokenGrams == b.tokenGrams
            && [a.orderEnds.0, a.orderEnds.1, a.orderEnds.2, a.orderEnds.3]
                == [b.orderEnds.0, b.orderEnds.1, b.orderEnds.2, b.orderEnds.3]
    }

    /// The byte-keyed token table finds an ASCII token exactly when the vocabulary does,
    /// including through the characters canonically equivalent to ASCII ones.
    @Test func tokenTableAgreesWithTheVocabulary() {
        let corpus = ReferenceCorpus(tokenizedItems: [
            (id: "x", references: [["a", "cat", "\u{212A}x", "a\u{37E}b", "\u{1FEF}q", "caf\u{E9}", "sixteen-bytes-ok", "seventeen-bytes-x"]])
        ])
        func find(_ token: String) -> Int32? {
            let bytes = Array(token.utf8)
            guard bytes.count <= TokenTable.longest else { return nil }
            var low: UInt64 = 0, high: UInt64 = 0
            for (k, b) in bytes.enumerated() {
                if k < 8 { low |= UInt64(b) << UInt64(8 * k) } else { high |= UInt64(b) << UInt64(8 * (k - 8)) }
            }
            return corpus.tokenTable.find(low: low, high: high, length: bytes.count)
        }
        for token in ["a", "cat", "Kx", "a;b", "`q", "sixteen-bytes-ok", "dog", "ca", "cats", "kx", "a;"] {
            #expect(find(token) == corpus.vocabulary[token], "\(token)")
        }
        #expect(find("Kx") != nil && find("a;b") != nil && find("`q") != nil)
        #expect(find("seventeen-bytes-x") == nil && corpus.vocabulary["seventeen-bytes-x"] != nil)
        // Through the tokenizer: a URL token written with ";" finds the reference's U+037E.
        let url = ReferenceCorpus(tokenizedItems: [(id: "x", references: [["see", "http://a\u{37E}b", "now"]])])
        let text = "See http://a;b now"
        var expected = CandidateNGrams.Keys()
        for token in CaptionTokenizer.tokenize(text) { expected.append(token, corpus: url) }
        #expect(CaptionTokenizer.keys(text, corpus: url).keys == expected.keys)
        #expect(expected.keys.allSatisfy { $0 >= 0 })
    }

    /// Latin-1 tokens are found by their bytes, through the characters canonically
    /// equivalent to Latin-1 ones; a vocabulary with combining marks sends the misses to the
    /// String lookup, which finds the decomposed forms.
    @Test func latin1TokensAgreeWithTheVocabulary() {
        let precomposed = ReferenceCorpus(tokenizedItems: [
            (id: "x", references: [["caf\u{E9}", "\u{212B}ngstr\u{F6}m", "\u{1FFD}x", "na\u{EF}ve"]])
        ])
        #expect(precomposed.tokenTable.latin1Complete)
        let decomposed = ReferenceCorpus(tokenizedItems: [
            (id: "x", references: [["cafe\u{301}", "ÅNGSTRÖM", "zu\u{308}rich"]])
        ])
        #expect(!decomposed.tokenTable.latin1Complete)
        for corpus in [precomposed, decomposed] {
            for text in ["Café CAFÉ cafe\u{301} Ångström ÅNGSTRÖM \u{212B}ngström ´x \u{1FFD}X naïve Zürich zürich ÀÉÎÕÜ"] {
                var expected = CandidateNGrams.Keys()
                for token in CaptionTokenizer.tokenize(text) { expected.append(token, corpus: corpus) }
                #expect(CaptionTokenizer.keys(text, corpus: corpus).keys == expected.keys, "\(text)")
            }
        }
        var expected = CandidateNGrams.Keys()
        for token in CaptionTokenizer.tokenize("Café Zürich") { expected.append(token, corpus: decomposed) }
        #expect(expected.keys.allSatisfy { $0 >= 0 })
    }
}
