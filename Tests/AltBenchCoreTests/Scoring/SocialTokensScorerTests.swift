import Testing

@testable import AltBenchCore

@Suite("social_tokens")
struct SocialTokensScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var content: String?
        var count: Int
        var detail: String?

        init(_ content: String?, _ count: Int, _ detail: String? = nil) {
            self.content = content
            self.count = count
            self.detail = detail
        }

        var testDescription: String { "\(content?.debugDescription ?? "nil") → \(count)" }
    }

    static let found: [Row] = [
        Row("A sunset over the sea. #sunset #beach", 2, "#sunset, #beach"),
        Row("A cat asleep on a rug. #CatsOfMastodon", 1, "#CatsOfMastodon"),
        // A sentence later, the placard no longer speaks.
        Row("A placard with #StopAsianHate on it. #protest", 1, "#protest"),
        Row("Photo by @jane.", 1, "@jane"),
        Row("Thanks @alice@mastodon.social for the photo", 1, "@alice@mastodon.social"),
        Row("A dog (@rex_the_dog) on grass.", 1, "@rex_the_dog"),
        Row("More at https://example.com/photos.", 1, "https://example.com/photos"),
        Row("See www.example.org, for details", 1, "www.example.org"),
        Row("HTTP://T.CO/abc", 1, "HTTP://T.CO/abc"),
        // The # and @ inside a URL are part of it.
        Row("Source: https://mastodon.social/@nasa/1#top", 1, "https://mastodon.social/@nasa/1#top"),
        Row("Campaign flyers on a table. #2024Election", 1, "#2024Election"),
        // Four hex letters and no digit: a word, not a colour.
        Row("A coffee shop. #cafe", 1, "#cafe"),
        // After a quotation the model speaks again.
        Row("A sign reads \u{201C}Open\u{201D}. #bakery", 1, "#bakery"),
        Row("Un chat sur un canap\u{00E9} #chat", 1, "#chat"),
        Row("Ein Hund im Schnee. #Winter #Hund", 2, "#Winter, #Hund"),
        Row("Un perro en la playa #perro #verano", 2, "#perro, #verano"),
        Row("Un caf\u{00E9}. #caf\u{00E9}", 1, "#caf\u{00E9}"),
        Row("A cat #cute #cat #pet #love #fluffy #adorable", 6, "#cute, #cat, #pet, #love, #fluffy"),
    ]

    static let none: [Row] = [
        Row(nil, 0),
        Row("", 0),
        Row("A cat on a mat.", 0),
        Row("Ranked #1 in the league, issue #42.", 0),
        Row("A book about C# and F# programming.", 0),
        Row("An escaped quote it&#39;s and &#x27; in a web page.", 0),
        Row("A lone # on a keypad, and ## twice.", 0),
        Row("A business card with name@example.com in blue.", 0),
        Row("A price tag @ 5 \u{20AC} and the @ key.", 0),
        Row("Colour swatches #FF0000, #0af and #fff.", 0),
        Row("An httpd server rack and wwwhat graffiti.", 0),
        // Transcribed: a reporting word, a sign, quotation marks, all-caps placard text.
        Row("A protest sign reading #BlackLivesMatter.", 0),
        Row("A protest sign: #BlackLivesMatter", 0),
        Row("Protesters with a banner, #BLACKLIVESMATTER in red letters.", 0),
        Row("A tweet from NASA: \u{201C}Liftoff! Thanks @SpaceX #Artemis\u{201D}", 0),
        Row("A screenshot of a tweet that says Thanks @SpaceX for the ride.", 0),
        Row("A poster with \u{201C}@nasa\u{201D} in the corner.", 0),
        Row("A poster showing the hashtag #MeToo in purple.", 0),
        Row("A placard with #StopAsianHate written on it.", 0),
        Row("A profile card for the account @nasa@mastodon.social.", 0),
        // Quotation marks of other languages.
        Row("Une pancarte \u{00AB} #JeSuisCharlie \u{00BB} dans la foule.", 0),
        Row("Ein Schild mit \u{201E}#BienenRetten\u{201C} am Zaun.", 0),
        Row("Un cartel que dice \u{201C}S\u{00ED}gueme @gato\u{201D}.", 0),
    ]

    @Test(arguments: found + none)
    func countsSocialTokensInTheModelsOwnVoice(_ row: Row) {
        let scores = SocialTokensScorer().score(ScoringInput(content: row.content))
        #expect(scores.count == 1)
        guard let score = scores.first else { return }
        #expect(score.name == ScoreName.socialTokens)
        #expect(score.value == Double(row.count), "detail: \(score.detail ?? "nil")")
        #expect(score.passed == (row.count == 0))
        if row.count == 0 {
            #expect(score.detail == nil)
        } else {
            #expect(score.detail == row.detail)
        }
    }

    @Test(arguments: [
        ("A cat.", false), ("#", false), ("#1, C#, &#39; and ##", false), ("name@example.com", false),
        ("a lone @ and @_", false), ("see HTTP and wwwhat", false), ("#cat", true), ("(#cat)", true),
        ("#caf\u{00E9}", true), ("#\u{65E5}\u{672C}", true), ("\u{00E9}#1", false), ("@nasa", true),
        ("HTTPS://x", true), ("http://", true), ("Www.x", true), ("x.www.y", false),
    ])
    func screensTextForTokensBeforeTheVoiceScan(_ text: String, _ candidate: Bool) {
        #expect(SocialTokensScorer.mayHoldToken(Array(text)) == candidate)
    }
}
