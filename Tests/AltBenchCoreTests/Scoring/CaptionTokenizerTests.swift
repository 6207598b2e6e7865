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
