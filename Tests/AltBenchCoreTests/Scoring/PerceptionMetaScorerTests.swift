import Testing

@testable import AltBenchCore

@Suite("perception_meta")
struct PerceptionMetaScorerTests {
    static let flagged: [ScoringFlagCase] = [
        .flag("I can see a cat on a sofa.", "I can see"),
        .flag("A lake where we see two swans.", "we see"),
        .flag("We can see a lake at dusk.", "We can see"),
        .flag("As you can see, the cat is asleep.", "you can see"),
        .flag("A tower can be seen in the distance.", "can be seen"),
        .flag("Mountains could be seen behind the lake.", "could be seen"),
        .flag("Two swans can also be seen.", "can also be seen"),
        .flag("A red bus is visible in the image.", "in the image"),
        .flag("Two dogs are visible in this photo.", "in this photo"),
        .flag("In this image, a cat sleeps on a sofa.", "In this image"),
        .flag("In the picture, a man rides a bike.", "In the picture"),
        .flag("A cat. The image shows it asleep on a sofa.", "The image shows"),
        .flag("A sunny beach; this photo captures the waves.", "this photo captures"),
        .flag("A dog in the photograph, running.", "in the photograph"),
        .flag("I see a red bicycle.", "I see"),
        .flag("We are looking at a busy street.", "We are looking at"),
        .flag("**In this image**, a cat.", "In this image"),
        .flag("Un chat. In the image, a cat sleeps.", "In the image"),
        // The sign is reported; the model speaks again after the quotation.
        .flag("A sign reads \u{201C}Open\u{201D} and we can see a queue.", "we can see"),
        .flag("A cat.\nIn this picture it sleeps.", "In this picture"),
        // The earlier "Photo" is a reported title, so "the photo" is the image itself.
        .flag("A poster titled Photo Day. In the photo, a girl smiles.", "In the photo"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat asleep on a sofa."),
        // The opening belongs to redundant_prefix.
        .pass("The image shows a dog."),
        .pass("This picture depicts a lake."),
        // Reported and quoted text.
        .pass("A sign reading YOU CAN SEE THE SEA."),
        .pass("A sign reading you can see the sea from here."),
        .pass("A T-shirt with \u{201C}we see you\u{201D} printed on it."),
        .pass("A poster titled \u{201C}In This Picture\u{201D} on a wall."),
        .pass("A poster titled In This Picture on a wall."),
        .pass("A tweet reads: \"In the photo I look tired\"."),
        // All-caps sign text and capitalised titles not announced by a trigger word.
        .pass("A billboard: WE SEE YOU. Cars pass below."),
        .pass("Album cover of We Can See by a band."),
        // Not about the picture.
        .pass("A tower visible in the background."),
        .pass("A city seen from above."),
        .pass("Children on a seesaw."),
        .pass("A framed photo on a wall; in the photo, a couple smiles."),
        .pass("A woman holds a photograph. The photograph shows a baby."),
        .pass("A painting in the picture frame shop."),
        .pass("A cat in the picture window."),
        .pass("Two girls pulling faces in the photo booth."),
        .pass("A mosaic of a saint made in the image of Christ."),
        .pass("Sea views. Seeing-eye dog at work."),
        .pass("Eine Katze, die man gut sehen kann."),
        .pass("Photo booth strip with four frames."),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsTalkAboutSeeingInTheModelsOwnVoice(_ row: ScoringFlagCase) {
        expectFlag(PerceptionMetaScorer(), name: ScoreName.perceptionMeta, row)
    }

    // MARK: - Shortcuts against the long way

    @Test func agreesWithTheOwnVoiceComputedTheLongWay() {
        var random = RandomAnswers(seed: 1)
        for _ in 0..<4000 {
            let input = ScoringInput(content: random.answer())
            #expect(
                PerceptionMetaScorer.perceptionPhrase(in: input)
                    == PerceptionMetaScorer.perceptionPhraseByOwnVoice(in: input), "\(input.text.debugDescription)")
        }
    }

    @Test func phraseSitesComeBeforeEveryPhrase() {
        var random = RandomAnswers(seed: 2)
        for _ in 0..<4000 {
            let input = ScoringInput(content: random.answer())
            let written = WrittenText(words: input.words, chars: input.characters)
            var text = input.text
            guard let site = text.withUTF8(PerceptionMetaScorer.firstPhraseSite) else {
                #expect(!PerceptionMetaScorer.mentionsPicture(written), "\(input.text.debugDescription)")
                continue
            }
            // No phrase starts more than three words before the site's word, but for an opening
            // "The image shows", which the scorer passes over.
            guard text.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) else { continue }
            let start = max(0, PerceptionMetaScorer.firstWordIndex(atOrAfter: site, in: input.words) - 3)
            #expect(
                PerceptionMetaScorer.phraseMatches(
                    PerceptionMetaScorer.phrasesByFirstWord, in: input.words, chars: input.characters,
                    includingSignText: true
                ).allSatisfy {
                    $0.lowerBound >= start
                        || ($0.lowerBound == 0 && PerceptionMetaScorer.media.contains(input.words[1].normalized))
                }, "\(input.text.debugDescription)")
        }
    }

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
            var text = input.text
            if text.withUTF8(quoted.quotesEveryAnchor) {
                #expect(
                    quoted.quotesEvery(PerceptionMetaScorer.anchorWords, of: input), "\(input.text.debugDescription)")
            }
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
        (PerceptionMetaScorer.allPhrases + MetaLabelScorer.chatter.values.flatMap { $0 }
            + MetaLabelScorer.allOpeningLabels + MetaLabelScorer.leadIns + MetaLabelScorer.presentations)
            .map { $0.joined(separator: " ") }.sorted()  // Sets and dictionaries have no fixed order.
        + otherPhrases

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
