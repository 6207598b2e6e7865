import Testing

@testable import AltBenchCore

@Suite("truncated")
struct TruncationScorerTests {
    static let flagged: [ScoringFlagCase] = [
        // The token limit stopped the model, however complete the text looks.
        .flag("A cat.", "finish_reason length", finishReason: "length"),
        .flag("A cat.", "finish_reason length", finishReason: "LENGTH"),
        .flag("A cat.", "finish_reason max_tokens", finishReason: "max_tokens"),
        .flag(nil, "finish_reason length", finishReason: "length"),
        .flag("A dog running on the", "ends on the"),
        .flag("A dog running on the\n", "ends on the", finishReason: "stop"),
        .flag("A cat with", "ends on with"),
        .flag("A cat and", "ends on and"),
        .flag("A view of", "ends on of"),
        .flag("Two dogs playing in their", "ends on their"),
        .flag("A cat that is", "ends on is"),
        .flag("Two cats,", "ends on ,"),
        .flag("Three dogs;", "ends on ;"),
        .flag("A list:", "ends on :"),
        .flag("A cat \u{2014}", "ends on \u{2014}"),
        .flag("A black-and-", "ends on -"),
        .flag("A cat sitting (on a mat", "unclosed ("),
        .flag("A cat in a [box", "unclosed ["),
        .flag("A cat (on a mat) and a dog (in a", "unclosed ("),
        .flag("A sign reading \u{201C}Open", "unclosed \u{201C}"),
        .flag("A sign reading \u{201C}Open.", "unclosed \u{201C}"),
        .flag("A sign reading \"Open", "unclosed \""),
        .flag("A sign reading \u{2018}Open", "unclosed \u{2018}"),
        .flag("A sign reading \u{00AB}Ouvert", "unclosed \u{00AB}"),
        // Known limit: a period-less fragment ending on a particle reads as cut off.
        .flag("Lights on", "ends on on"),
    ]

    static let notFlagged: [ScoringFlagCase] = [
        .pass(nil),
        .pass(""),
        .pass("A cat."),
        .pass("Lights on."),
        // A missing final period alone is not truncation.
        .pass("A cat sleeping"),
        .pass("A cat 🐱"),
        .pass("A cat that"),
        .pass("A woman hugging her"),
        .pass("A cat.", finishReason: "stop"),
        .pass("A cat.", finishReason: "content_filter"),
        .pass("A cat sleeping", finishReason: "stop"),
        .pass("Is that a cat?"),
        .pass("Wow!"),
        .pass("A cat..."),
        .pass("A cat\u{2026}"),
        .pass("A cat (sleeping)."),
        .pass("A cat :)"),
        .pass("1) A cat 2) a dog"),
        .pass("A sign reading \u{201C}Open.\u{201D}"),
        .pass("A sign reading \u{201C}Open\u{201D}"),
        .pass("A sign reading \"Open\" on a door"),
        .pass("A \"Route 66\" sign"),
        .pass("A 12\" record"),
        .pass("A mug reading \u{2018}I\u{2019}m the boss\u{2019}"),
        // Straight single quotes double as apostrophes, so an "open" one proves nothing.
        .pass("The dogs' bowl"),
        .pass("A '90s style room"),
        .pass("Rock 'n roll night"),
        .pass("Let 'em play"),
    ]

    @Test(arguments: flagged + notFlagged)
    func flagsAnswersCutOffBeforeTheirEnd(_ row: ScoringFlagCase) {
        expectFlag(TruncationScorer(), name: ScoreName.truncated, row)
    }

    /// Answers cut off in the middle of their last word.
    static let midWord: [ScoringFlagCase] = [
        .flag("A happy Pembroke Welsh C", "ends mid-word: C"),
        .flag("A poster of the D", "ends mid-word: D"),
        .flag("A view of the Golden Gate Br", "ends mid-word: Br"),
        .flag("A dog focused on something in th", "ends mid-word: th"),
        .flag("A woman holding a sm", "ends mid-word: sm"),
        .flag("Two kids playing wi", "ends mid-word: wi"),
        .flag("A field of gre", "ends mid-word: gre"),
        .flag("A dog in th\n", "ends mid-word: th"),
    ]

    /// Complete answers the mid-word rules leave alone.
    static let wholeWords: [ScoringFlagCase] = [
        // A single word ending in a colon is an icon's whole label.
        .pass("Telephone:"),
        .pass("**Telephone:**"),
        .pass("A cat."),
        .pass("OK"),
        .pass("A dog on a log"),
        .pass("A boy and his dog"),
        .pass("A sunny day at the spa"),
        .pass("A kid with a toy"),
        .pass("Friends grilling at a bbq"),
        .pass("A map of the US"),
        .pass("Tom and I"),
        .pass("Cats vs"),
        .pass("Pens, paper, etc"),
        .pass("A street sign for Main St"),
        .pass("Portrait of Dr"),
        .pass("Snow on Mt"),
        .pass("The Acme Trading Co"),
        .pass("A trail marker reading 5 km"),
        .pass("A dropper bottle of 10 ml"),
        .pass("A fence post 3 ft"),
        .pass("A cat aged 3"),
        .pass("A birthday cake with candles 🎂"),
        .pass("A red Tesla Model S"),
        .pass("A bottle of Vitamin C"),
        .pass("Queen Elizabeth II"),
        .pass("King Henry V"),
        .pass("Photo by John D"),
        .pass("A sign: Exit B"),
        .pass("Departures board at Gate B"),
        .pass("#tbt"),
        .pass("A dog named Rex #dogsofmastodon #pdx"),
    ]

    @Test(arguments: midWord + wholeWords)
    func flagsAWordCutShort(_ row: ScoringFlagCase) {
        expectFlag(TruncationScorer(), name: ScoreName.truncated, row)
    }

    /// A lowercase fragment is judged only in English: a dataset language other than English,
    /// or text mostly in other scripts, skips it.
    @Test(arguments: [
        ("A dog in th", "en", true),
        ("A dog in th", "en-US", true),
        ("A dog in th", nil, true),
        ("Un gato en la mar", "es", false),
        ("Ein Hund im Gras sp", "de", false),
        ("Ein Hund im Gras am", "de", true),  // a German article or preposition ends nothing
        ("Un chien sur la mer", "fr", false),
        ("\u{6771}\u{4EAC}\u{306E}\u{591C}\u{666F}\u{3068}\u{5BCC}\u{58EB}\u{5C71} abc", nil, false),
        ("A happy Pembroke Welsh C", "fr", true),
    ] as [(String, String?, Bool)])
    func judgesALowercaseFragmentOnlyInEnglish(_ text: String, _ lang: String?, _ flagged: Bool) {
        let input = ScoringInput(content: text, item: ScoringItem(lang: lang))
        let score = TruncationScorer().score(input)
        #expect(score.first?.isFlagged == flagged, "detail: \(score.first?.detail ?? "nil")")
    }
}
