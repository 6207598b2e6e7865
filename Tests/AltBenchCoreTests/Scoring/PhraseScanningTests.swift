import Testing

@testable import AltBenchCore

/// The phrase and byte scanning that meta_label, filename and markdown use, against the
/// plain definitions in TextAnalysis.
@Suite("phrase scanning")
struct PhraseScanningTests {
    @Test func voiceTextReadsTheOwnVoice() {
        var random = RandomAnswers(seed: 3)
        var read = 0
        for k in 0..<4000 {
            let input = ScoringInput(content: random.answer(simple: k % 2 == 0))
            let chars = Array(TextAnalysis.ownVoice(input.text))
            let voice = WrittenText(words: TextAnalysis.words(in: chars), chars: chars)
            switch VoiceText.read(input) {
            case .unchanged?:
                #expect(TextAnalysis.ownVoice(input.text) == input.text, "\(input.text.debugDescription)")
            case .voice(let read)?:
                #expect(read.words.map(\.text) == voice.words.map(\.text), "\(input.text.debugDescription)")
                guard read.words.map(\.text) == voice.words.map(\.text) else { continue }
                for index in voice.words.indices {
                    if index > 0 { #expect(read.adjacent(index) == voice.adjacent(index)) }
                    let range = index..<min(voice.words.count, index + 1 + index % 5)
                    #expect(read.written(range) == voice.written(range), "\(input.text.debugDescription)")
                }
            case nil:
                continue
            }
            read += 1
        }
        #expect(read > 2000)
    }

    @Test func quotedTextFindsTheQuotations() {
        var random = RandomAnswers(seed: 4)
        for k in 0..<4000 {
            let input = ScoringInput(content: random.answer(simple: k % 4 != 0))
            guard let quoted = QuotedText(input) else { continue }
            #expect(quoted.scalars == Array(input.text.unicodeScalars))
            #expect(
                quoted.spans == TextAnalysis.quotedSpans(in: input.characters), "\(input.text.debugDescription)")
        }
    }

    /// The scalar predicates of VoiceText are TextAnalysis's for a `Character` of one scalar.
    @Test func scalarPredicatesAgreeWithTheCharacterOnes() {
        // Latin to CJK punctuation, the half- and full-width forms, and a sample of the rest.
        for value in UInt32(0)...0x10FFFF
        where value < 0x3100 || (value >= 0xFE00 && value < 0x10000) || value % 61 == 0 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let c = Character(scalar)
            #expect(VoiceText.isNewline(scalar) == TextAnalysis.isNewline(c))
            #expect(VoiceText.isSpace(scalar) == TextAnalysis.isSpace(c))
            #expect(VoiceText.isSentenceTerminator(scalar) == TextAnalysis.isSentenceTerminator(c))
            #expect(VoiceText.isClosingMark(scalar) == TextAnalysis.isClosingMark(c))
            #expect(VoiceText.isDash(scalar) == TextAnalysis.isDash(c))
            #expect(VoiceText.isNumber(scalar) == c.isNumber)
            #expect(VoiceText.isWordCharacter(scalar) == TextAnalysis.isWordCharacter(c))
            #expect(scalar.properties.isAlphabetic == c.isLetter)
            #expect(scalar.properties.isWhitespace == c.isWhitespace)
            // Every opening mark of TextAnalysis.quotedSpans is one VoiceText looks at.
            if !TextAnalysis.quotedSpans(in: [c, "a", "b"]).isEmpty { #expect(VoiceText.isOpeningQuote(scalar)) }
        }
    }

    @Test func byteScanCountsAndDecodesScalars() {
        var random = RandomAnswers(seed: 5)
        for _ in 0..<2000 {
            let answer = random.answer()
            var text = answer
            text.withUTF8 { bytes in
                #expect(ByteScan.scalarCount(bytes) == answer.unicodeScalars.count)
                #expect(ByteScan.scalars(bytes) == Array(answer.unicodeScalars))
            }
        }
    }

    @Test func wordSetsAreExact() {
        let set = PerceptionMetaScorer.WordSet(["see", "photograph", "légende", "if"])
        for word in ["see", "photograph", "légende", "if"] { #expect(set.contains(word)) }
        for word in ["sees", "photograpx", "photogra", "légendé", "i", "", "SEE"] { #expect(!set.contains(word)) }
    }
}


/// Deterministic random answers made of the words, phrases, quotation marks and other
/// characters the scorers react to, for checking their shortcuts against the long way.
struct RandomAnswers {
    var state: UInt64

    init(seed: UInt64) {
        state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(max(bound, 1)))
    }

    mutating func pick(_ values: [String]) -> String {
        values[next(values.count)]
    }

    /// Pieces whose every Unicode scalar is a `Character` of its own.
    static let simplePieces: [String] = [
        "i", "I", "we", "We", "WE", "you", "You", "one", "can", "could", "Can", "also", "clearly", "just", "still",
        "see", "See", "SEE", "seen", "be", "are", "am", "I'm", "I\u{2019}m", "we're", "we\u{2019}re", "you\u{2019}re",
        "looking", "Looking", "at", "in", "In", "this", "This", "the", "The", "image", "Image", "picture", "photo",
        "Photo", "pic", "photograph", "photos", "shows", "depicts", "captures", "frame", "booth", "of", "a", "cat",
        "dog", "sign", "reads", "reading", "says", "text", "titled", "caption", "Caption", "label", "words", "message",
        "here", "Here", "is", "Here's", "Here\u{2019}s", "alt", "Alt", "description", "Description", "Sure", "sure",
        "Certainly", "of course", "hope", "helps", "Let", "let", "me", "know", "if", "If", "feel", "free", "to",
        "anything", "else", "would", "like", "want", "do", "happy", "help", "glad", "you'd", "Photographer",
        "Bildbeschreibung", "l\u{E9}gende", "descripci\u{F3}n", "IMG_1234", "IMG_1234.JPG", "cat.png", ".png",
        "DSC_0001", "Screenshot", "2023-01-01", "WhatsApp", "Node.js", "example.com", "loo\u{212A}ing",
        "\u{212A}now", "caf\u{E9}", "\"", "'", "\u{201C}", "\u{201D}", "\u{2018}", "\u{2019}", "\u{AB}", "\u{BB}",
        "\u{201E}", "\u{2039}", "\u{203A}", "\u{300C}", "\u{300D}", "\u{300E}", "\u{300F}", "(", ")", "[", "]",
        "*", "**", "_", "__", "~~", "`", "```", "#", "# ", "> ", "- ", "1. ", "<b>", "</b>", "&amp;", "&#39;",
        "|---|", "[a](b)", "!", "?", ".", ":", "\u{FF1A}", "\u{1F431}", "\u{2728}", "\u{BD}", "5", "12", "-",
        "\u{2014}", "\u{2026}", ",", "\u{2028}", "\u{2BC}", "x", "Open", "OPEN", "\u{3002}", "\u{FF01}",
        "\u{A0}", "\u{2010}",
    ]

    /// Pieces with a `Character` of several scalars: combining marks, joiners, CR LF, flags.
    static let complexPieces: [String] = [
        "se\u{301}e", "\u{301}", "\u{1F44D}\u{1F3FD}", "\u{1F1EB}\u{1F1F7}", "\u{200D}", "\u{600}", "\r\n",
        "\u{201C}\u{301}", "'\u{301}", "e\u{301}",
    ]

    /// Every phrase the scorers look for, and a few more.
    static let phrases: [String] =
        (perceptionPhrases + MetaLabelScorer.chatter.values.flatMap { $0 }
            + MetaLabelScorer.allOpeningLabels + MetaLabelScorer.leadIns + MetaLabelScorer.presentations)
            .map { $0.joined(separator: " ") }.sorted()  // Sets and dictionaries have no fixed order.
        + otherPhrases

    /// The phrases perception_meta once looked for, kept as they were so that the answers
    /// stay the same.
    static let perceptionPhrases: [[String]] = {
        var phrases: [[String]] = [
            ["i", "see"], ["we", "see"], ["we", "are", "looking", "at"], ["we're", "looking", "at"],
            ["you", "are", "looking", "at"], ["you're", "looking", "at"], ["i", "am", "looking", "at"],
            ["i'm", "looking", "at"],
        ]
        let adverbs = ["also", "clearly", "just", "still"]
        for modal in ["can", "could"] {
            for subject in ["i", "we", "you", "one"] {
                phrases.append([subject, modal, "see"])
                for adverb in adverbs { phrases.append([subject, modal, adverb, "see"]) }
            }
            phrases.append([modal, "be", "seen"])
            for adverb in adverbs { phrases.append([modal, adverb, "be", "seen"]) }
        }
        let media = ["image", "picture", "photo", "pic", "photograph"]
        let verbs = [
            "shows", "depicts", "features", "displays", "captures", "contains", "illustrates", "portrays",
            "presents", "reveals",
        ]
        phrases += media.flatMap { medium in [["in", "this", medium], ["in", "the", medium]] }
        phrases += media.flatMap { medium in verbs.flatMap { verb in [["this", medium, verb], ["the", medium, verb]] } }
        return phrases
    }()

    static let otherPhrases: [String] = [
        "I can see", "we see", "can be seen", "could also be seen", "we are looking at", "I\u{2019}m looking at",
        "We're looking at", "in this image", "in the photo", "In The Photo", "the picture shows", "This image depicts",
        "in the picture frame", "the photo of", "I hope this helps", "Let me know if", "LET ME KNOW", "Let Me Know",
        "feel free to", "Is there anything else", "would you like me to", "if you\u{2019}d like", "happy to help",
        "Alt text:", "Image description:", "**Alt text:**", "Here is the alt text", "Here\u{2019}s a short alt text",
        "Sure!", "Of course,", "Caption:", "Photo:\n", "alt text for the image:", "a sign reads", "titled",
        "text:", "says",
    ]

    static let separators: [String] = [
        " ", " ", " ", " ", "", "  ", "\n", "\u{A0}", "\t", ", ", ". ", ": ", "! ", "? ", "\u{2026}", " - ",
        "\u{2014}", "\u{2028}", "\r",
    ]

    /// An answer of 1 to 30 pieces; `simple` leaves out the pieces with a `Character` of
    /// several scalars (and the CR that may make CR LF).
    mutating func answer(simple: Bool = false) -> String {
        var out = ""
        for _ in 0..<(1 + next(30)) {
            switch next(10) {
            case 0...2:
                let phrase = pick(Self.phrases)
                switch next(6) {
                case 0: out += phrase.uppercased()
                case 1: out += phrase.prefix(1).uppercased() + phrase.dropFirst()
                default: out += phrase
                }
            case 3 where !simple: out += pick(Self.complexPieces)
            default: out += pick(Self.simplePieces)
            }
            let separator = pick(Self.separators)
            out += simple && separator == "\r" ? " " : separator
        }
        return out
    }
}
