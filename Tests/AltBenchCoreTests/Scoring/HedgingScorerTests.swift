import Testing

@testable import AltBenchCore

@Suite("hedging")
struct HedgingScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var content: String?
        /// Σ over sentences of the hedges beyond the free ones.
        var excess: Int
        var detail: String?
        var free = 1

        init(_ content: String?, excess: Int, _ detail: String? = nil, free: Int = 1) {
            self.content = content
            self.excess = excess
            self.detail = detail
            self.free = free
        }

        var testDescription: String {
            "\(content?.debugDescription ?? "nil"), \(free) free → excess \(excess)"
        }
    }

    static let overHedged: [Row] = [
        Row("It appears to be a dog, possibly a puppy.", excess: 1, "appears to, possibly"),
        Row("Maybe a cat, perhaps a fox, probably a dog.", excess: 2, "maybe, perhaps, probably"),
        Row("A dog that seems to be sleeping, most likely tired.", excess: 1, "seems, likely"),
        Row("It looks like a beach and could be in Spain.", excess: 1, "looks like, could be"),
        Row("Apparently a statue, seemingly bronze.", excess: 1, "apparently, seemingly"),
        Row("They appear to be twins, perhaps sisters.", excess: 1, "appear to, perhaps"),
        Row("The dogs seem happy, probably at play.", excess: 1, "seem, probably"),
        // One sentence is fine, the next is not.
        Row("This might be a lake. It may be frozen, possibly.", excess: 1, "might be, may be, possibly"),
        Row("Maybe a cat, possibly asleep. Perhaps a dog, probably old!", excess: 2),
        // A full stop inside a number does not end the sentence.
        Row("Maybe 3.5 kg, possibly 4.", excess: 1, "maybe, possibly"),
        Row("PROBABLY, possibly maybe.", excess: 1, "possibly, maybe"),
        // Back in the model's voice after a quotation.
        Row("A sign reads \u{201C}Maybe later\u{201D}, and it is probably a cafe, maybe a bar.",
            excess: 1, "probably, maybe"),
        Row("Probably a cat.", excess: 1, "probably", free: 0),
        Row("Probably a cat, maybe a kitten, possibly asleep.", excess: 1, free: 2),
    ]

    static let fine: [Row] = [
        Row(nil, excess: 0),
        Row("", excess: 0),
        Row("A cat on a mat.", excess: 0),
        Row("A dog, probably a puppy.", excess: 0),
        Row("An unlikely friendship: a cat and a dog, probably siblings.", excess: 0),
        Row("Probably a cat. Possibly asleep. Maybe dreaming.", excess: 0),
        Row("Possibly a cat\nmaybe a dog", excess: 0),
        Row("A fox, possibly\u{2026} Perhaps a dog!", excess: 0),
        Row("Maybe a cat, perhaps a fox.", excess: 0, free: 2),
        Row("A building that appears in many postcards, seen from the river.", excess: 0),
        Row("A tree that seemed old, like a giant.", excess: 0),
        // Transcribed or titled: quotation marks, a reporting word, capitals.
        Row("A poster for the film \u{201C}Maybe Baby\u{201D}, probably from 2000.", excess: 0),
        Row("A poster for Maybe Baby, probably from 2000.", excess: 0),
        Row("A Likely Story book cover, perhaps new.", excess: 0),
        Row("A chalkboard sign reading LOOKS LIKE RAIN, maybe.", excess: 0),
        Row("A chalkboard with LOOKS LIKE RAIN MAYBE written on it, probably at a cafe.", excess: 0),
        Row("A mug with \u{2018}Perhaps, possibly, probably\u{2019} printed on it.", excess: 0),
        // Other languages' hedges are not in the list.
        Row("Un chat qui dort, peut-\u{00EA}tre sur un canap\u{00E9}, probablement.", excess: 0),
        Row("Ein Hund, vielleicht ein Welpe, wahrscheinlich m\u{00FC}de.", excess: 0),
        Row("Un perro, quiz\u{00E1}s un cachorro, posiblemente dormido.", excess: 0),
    ]

    @Test(arguments: overHedged + fine)
    func gradesHedgesBeyondTheFreeOnes(_ row: Row) {
        let input = ScoringInput(content: row.content, settings: ScoringSettings(freeHedgesPerSentence: row.free))
        let scores = HedgingScorer().score(input)
        #expect(scores.count == 1)
        guard let score = scores.first else { return }
        #expect(score.name == ScoreName.hedging)
        #expect(score.value == 1 / (1 + Double(row.excess)), "detail: \(score.detail ?? "nil")")
        #expect((0...1).contains(score.value))
        #expect(score.passed == (row.excess == 0))
        if row.excess == 0 {
            #expect(score.detail == nil)
        } else if let detail = row.detail {
            #expect(score.detail == detail)
        } else {
            #expect(score.detail?.isEmpty == false)
        }
    }

    /// The own-voice shortcut shared with `social_tokens` returns what the voice scan does,
    /// whether or not the text holds quotations or reporting words.
    @Test(arguments: [
        "A cat on a mat.", "It's a dog's life, rock 'n' roll.", "A sign reads OPEN, maybe.",
        "A mug: \u{2018}I\u{2019}m the boss\u{2019}.", "A poster \u{201C}Maybe Baby\u{201D}, probably.",
        "\"Quoted\" first, then perhaps not.", "Un panneau \u{00AB} Ferm\u{00E9} \u{00BB}, peut-\u{00EA}tre.",
        "A 12\" record, possibly.", "The dogs\u{2019} bowls, likely empty.", "Banner: \u{300C}Hi\u{300D} maybe.",
        "'90s style, a T-shirt with the words maybe later.", "Ein Schild \u{201E}Vielleicht\u{201C}, probably.",
    ])
    func ownVoiceShortcutMatchesTheVoiceScan(_ text: String) {
        let input = ScoringInput(content: text)
        let voice = TermMatching.ownVoice(of: input)
        let scanned = TextAnalysis.ownVoice(input.text)
        #expect(String(voice.characters) == scanned)
        #expect(voice.words.map(\.normalized) == TextAnalysis.words(in: scanned).map(\.normalized))
    }
}

// MARK: - The own-voice shortcut on random texts

extension HedgingScorerTests {
    @Test func ownVoiceShortcutMatchesTheVoiceScanOnRandomTexts() {
        var random = RandomAltText(seed: 7)
        for _ in 0..<3000 {
            let input = ScoringInput(content: random.text())
            let voice = TermMatching.ownVoice(of: input)
            let scanned = Array(TextAnalysis.ownVoice(input.text))
            let words = TextAnalysis.words(in: scanned)
            #expect(
                voice.characters.map { Array(String($0).unicodeScalars) } == scanned.map { Array(String($0).unicodeScalars) },
                "\(input.text.debugDescription)")
            #expect(voice.words.map(\.range) == words.map(\.range), "\(input.text.debugDescription)")
            #expect(voice.words.map { Array($0.text.utf8) } == words.map { Array($0.text.utf8) })
            #expect(voice.words.map { Array($0.normalized.utf8) } == words.map { Array($0.normalized.utf8) })
        }
    }
}
