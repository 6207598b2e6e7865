import Testing

@testable import AltBenchCore

@Suite("emoji")
struct EmojiScorerTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var content: String?
        var count: Int
        var detail: String?

        init(_ content: String?, _ count: Int, _ detail: String? = nil) {
            self.content = content
            self.count = count
            self.detail = detail
        }

        var testDescription: String {
            let shown = content.map { text in
                text.unicodeScalars.map { s in
                    s.isASCII ? String(s) : "<U+\(String(s.value, radix: 16, uppercase: true))>"
                }.joined()
            }
            return "\(shown ?? "nil") → \(count)"
        }
    }

    static let found: [Row] = [
        Row("A cat \u{1F600}", 1, "\u{1F600}"),
        Row("Sunset \u{1F305}\u{1F30A}", 2, "\u{1F305} \u{1F30A}"),
        // A ZWJ family, a skin tone, a rainbow flag (FE0F and ZWJ), a flag pair: one each.
        Row("A family \u{1F469}\u{200D}\u{1F469}\u{200D}\u{1F467} at the park.", 1),
        Row("Thumbs up \u{1F44D}\u{1F3FD}", 1, "\u{1F44D}\u{1F3FD}"),
        Row("A pride flag \u{1F3F3}\u{FE0F}\u{200D}\u{1F308} on a balcony.", 1),
        Row("Flags \u{1F1EB}\u{1F1F7}\u{1F1E9}\u{1F1EA}", 2, "\u{1F1EB}\u{1F1F7} \u{1F1E9}\u{1F1EA}"),
        Row("The flag of England \u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}.", 1),
        // Keycaps, fully qualified and not.
        Row("Step 1\u{FE0F}\u{20E3} of the recipe.", 1, "1\u{FE0F}\u{20E3}"),
        Row("Step 2\u{20E3} and #\u{FE0F}\u{20E3}", 2),
        // Text-default symbols made emoji by U+FE0F, or by a skin tone.
        Row("Love \u{2764}\u{FE0F}", 1, "\u{2764}\u{FE0F}"),
        Row("\u{00A9}\u{FE0F} 2024", 1),
        Row("\u{2600}\u{FE0F} A sunny day.", 1),
        Row("A \u{261D}\u{1F3FB} gesture.", 1),
        // Emoji_Presentation without a selector.
        Row("A \u{231A} on a wrist.", 1),
        // A ZWJ sequence written without its selectors still counts once.
        Row("An eye in a bubble \u{1F441}\u{200D}\u{1F5E8}.", 1),
        // Quoted emoji are read out all the same.
        Row("A sign reading \u{201C}Open \u{1F600}\u{201D}.", 1),
        Row("Un chat qui dort \u{1F634}.", 1),
        Row("Ein Hund im Schnee \u{2744}\u{FE0F}\u{1F436}", 2),
        Row("\u{1F431}\u{1F436}\u{1F42D}\u{1F439}\u{1F430}\u{1F98A}\u{1F43B}", 7,
            "\u{1F431} \u{1F436} \u{1F42D} \u{1F439} \u{1F430}"),
    ]

    static let none: [Row] = [
        Row(nil, 0),
        Row("", 0),
        Row("A cat on a mat.", 0),
        // Digits, # and * alone are not emoji, nor are ©, ®, ™, ♥ or ‼ without U+FE0F.
        Row("Room 101, ranked #1, with a * footnote.", 0),
        Row("\u{00A9} 2024 Acme\u{00AE}", 0),
        Row("A mug: I \u{2665} NY.", 0),
        Row("Brand\u{2122} logo", 0),
        Row("\u{203C} and \u{2194} on a road sign", 0),
        Row("A chess \u{265F} piece and a \u{2714} mark", 0),
        Row("Arrows \u{2192} \u{2190} and a check \u{2713}.", 0),
        // The text selector U+FE0E asks for the symbol, not the emoji.
        Row("A sun symbol \u{2600}\u{FE0E} on a chart.", 0),
        Row("A face \u{1F600}\u{FE0E} in outline.", 0),
        // Non-English text is not emoji.
        Row("Un caf\u{00E9} \u{00E0} Paris, tr\u{00E8}s \u{00E9}l\u{00E9}gant.", 0),
        Row("Stra\u{00DF}e in M\u{00FC}nchen, \u{201E}Gesperrt\u{201C}.", 0),
        Row("Un ni\u{00F1}o con un perro \u{2014} \u{00A1}qu\u{00E9} bonito!", 0),
        Row("\u{65E5}\u{672C}\u{8A9E}\u{306E}\u{770B}\u{677F}", 0),
        Row("A stray selector \u{FE0F} and joiner \u{200D}.", 0),
    ]

    @Test(arguments: found + none)
    func countsEmoji(_ row: Row) {
        let scores = EmojiScorer().score(ScoringInput(content: row.content))
        #expect(scores.count == 1)
        guard let score = scores.first else { return }
        #expect(score.name == ScoreName.emoji)
        #expect(score.value == Double(row.count), "detail: \(score.detail ?? "nil")")
        #expect(score.passed == (row.count == 0))
        if row.count == 0 {
            #expect(score.detail == nil)
        } else if let detail = row.detail {
            #expect(score.detail == detail)
        } else {
            #expect(score.detail?.isEmpty == false)
        }
    }
}

// MARK: - Emoji below U+2000

extension EmojiScorerTests {
    @Test func onlyCopyrightAndRegisteredAreEmojiBelowU2000() {
        // Below U+2000, only © and ®.
        for v in 0x80..<0x2000 {
            guard let scalar = Unicode.Scalar(v), scalar.properties.isEmoji else { continue }
            #expect(v == 0xA9 || v == 0xAE, "U+\(String(v, radix: 16))")
        }
    }
}
