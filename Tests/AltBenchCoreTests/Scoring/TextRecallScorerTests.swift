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

// MARK: - The fast paths against the plain rules

/// Alt texts for checking fast paths against the plain rules: pieces the scorers look for
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

extension TextRecallScorerTests {
    @Test func wordScanMatchesThePlainScan() {
        var random = RandomAltText(seed: 1)
        var texts = (0..<3000).map { _ in random.text() }
        // Every Latin-1 and Latin Extended scalar, and the general punctuation, inside and
        // around words and hashtags.
        for v in Array(0x80..<0x250) + Array(0x2000..<0x2070) {
            guard let scalar = Unicode.Scalar(v) else { continue }
            texts.append("ab\(scalar)cd \(scalar)x #Ab\(scalar)Cd 3\(scalar)5 \(scalar)")
        }
        for text in texts {
            for split in [false, true] {
                let fast = TermMatching.words(in: text, splitHashtags: split).map { Array($0.utf8) }
                let plain = ReferenceTermMatching.words(in: text, splitHashtags: split).map { Array($0.utf8) }
                #expect(fast == plain, "\(text.debugDescription), split hashtags: \(split)")
            }
        }
    }

    @Test func readsRunsOfLettersEightBytesAtATime() {
        var random = RandomAltText(seed: 16)
        let interesting: [UInt8] = [0x00, 0x20, 0x2F, 0x30, 0x39, 0x3A, 0x40, 0x41, 0x5A, 0x5B, 0x5F, 0x60, 0x61, 0x7A, 0x7B,
            0x7F, 0x80, 0xC1, 0xC3, 0xDA, 0xE1, 0xFA, 0xFF]
        for round in 0..<100_000 {
            let bytes = (0..<8).map { _ in
                round % 2 == 0 ? UInt8(random.next(256)) : random.pick(interesting + Array("abcXYZ09".utf8))
            }
            let eight = bytes.enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            let run = TermMatching.alphanumericRun(eight)
            func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
            func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
            #expect(run.length == (bytes.firstIndex { !isLetter($0) && !isDigit($0) } ?? 8), "\(bytes)")
            for (k, b) in bytes.enumerated() {
                #expect((run.letters >> (8 * UInt64(k) + 7)) & 1 == (isLetter(b) ? 1 : 0), "\(bytes)")
                #expect((run.digits >> (8 * UInt64(k) + 7)) & 1 == (isDigit(b) ? 1 : 0), "\(bytes)")
                #expect(UInt8(truncatingIfNeeded: run.lowercase >> (8 * UInt64(k))) == b | 0x20)
            }
        }
    }

    @Test func preparedCacheTellsKeysApartByTheirBytes() {
        let cache = TermMatching.PreparedCache<String>(limit: 8)
        // The same length and first and last 16 bytes: the same hash.
        let middle = ["X", "Y", "Z", "\u{00E9}", "e\u{0301}"]
        var keys = middle.map { "0123456789abcdef" + $0 + "fedcba9876543210" }
        keys += ["", "a", "A", "caf\u{00E9}", "cafe\u{0301}", String(repeating: "long text ", count: 40)]
        for round in 0..<3 {
            for key in keys {
                #expect(cache.value(for: key) { "one:" + key } == "one:" + key, "round \(round)")
            }
            for (a, b) in [("a", "b"), ("ab", ""), ("", "ab"), ("a", "")] {
                #expect(cache.value(for: [a, b]) { "two:\(a)|\(b)" } == "two:\(a)|\(b)")
            }
            #expect(cache.value(for: [String]()) { "none" } == "none")
            #expect(cache.value(for: ["a"]) { "list:a" } == "list:a")
        }
    }

    @Test func wordBufferHoldsEveryLowercaseMapping() {
        // A word may take twice the bytes it was read from, no more.
        for v in 0x80..<0x110000 {
            guard let scalar = Unicode.Scalar(v), scalar.properties.changesWhenLowercased else { continue }
            #expect(scalar.properties.lowercaseMapping.utf8.count <= 2 * String(scalar).utf8.count)
        }
    }

    @Test func scoresAsThePlainRulesDo() {
        var random = RandomAltText(seed: 2)
        for _ in 0..<3000 {
            let answer = random.text()
            let expected = random.related(to: answer)
            let input = ScoringInput(content: answer, item: ScoringItem(expectedText: expected))
            let scores = TextRecallScorer().score(input)
            let expectedWords = ReferenceTermMatching.words(in: expected)
            guard !expectedWords.isEmpty else {
                #expect(scores.isEmpty)
                continue
            }
            let (found, missing) = TextRecallScorer.recall(
                of: expectedWords, in: ReferenceTermMatching.words(in: input.text))
            let detail = missing.isEmpty ? nil : "missing: " + missing.prefix(5).joined(separator: ", ")
            #expect(scores.count == 1)
            #expect(scores.first?.value == Double(found) / Double(expectedWords.count), "\(answer.debugDescription)")
            #expect(scores.first?.detail.map { Array($0.utf8) } == detail.map { Array($0.utf8) })
        }
    }
}

enum ReferenceTermMatching {
    static func words(in text: String, splitHashtags: Bool = false) -> [String] {
        var copy = text
        return copy.withUTF8 { bytes in
            var scanner = WordScanner(bytes: bytes, splitHashtags: splitHashtags)
            return scanner.scan()
        }
    }

    private struct WordScanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let splitHashtags: Bool
        var result: [String] = []
        var current: [UInt8] = []
        var inHashtag = false
        /// Whether the last character added to `current` was a lowercase letter.
        var afterLowercase = false
        /// Whether the last character added to `current` was an uppercase ASCII letter.
        var afterUppercase = false
        /// Whether the last character added to `current` was an ASCII digit.
        var afterDigit = false

        init(bytes: UnsafeBufferPointer<UInt8>, splitHashtags: Bool) {
            self.bytes = bytes
            self.splitHashtags = splitHashtags
            current.reserveCapacity(32)
        }

        mutating func scan() -> [String] {
            let n = bytes.count
            var i = 0
            while i < n {
                let b = bytes[i]
                i = b < 0x80 ? ascii(b, at: i) : nonASCII(at: i)
            }
            flush()
            return result
        }

        private mutating func flush() {
            if !current.isEmpty {
                result.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            }
            afterLowercase = false
            afterUppercase = false
            afterDigit = false
        }

        /// Handles the ASCII byte `b` at `i`; returns where the scan goes on.
        private mutating func ascii(_ b: UInt8, at i: Int) -> Int {
            let folded = b | 0x20
            if folded >= 0x61 && folded <= 0x7A {
                let isUpper = b < 0x61
                if splitHashtags, inHashtag, !current.isEmpty {
                    // "GoldenRetriever", "NASAGoddard", "100Days": a new word starts here.
                    let nextIsLower = i + 1 < bytes.count && bytes[i + 1] >= 0x61 && bytes[i + 1] <= 0x7A
                    if afterDigit || (isUpper && (afterLowercase || (afterUppercase && nextIsLower))) { flush() }
                }
                current.append(folded)
                afterLowercase = !isUpper
                afterUppercase = isUpper
                afterDigit = false
                return i + 1
            }
            if b >= 0x30 && b <= 0x39 {
                // "Day1" in a hashtag: a number after a word is a word of its own.
                if splitHashtags, inHashtag, afterLowercase || afterUppercase { flush() }
                current.append(b)
                afterLowercase = false
                afterUppercase = false
                afterDigit = true
                return i + 1
            }
            if !current.isEmpty, i + 1 < bytes.count {
                switch b {
                case UInt8(ascii: "'"):
                    if startsWord(at: i + 1) { return joinApostrophe(resumingAt: i + 1) }
                case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"):
                    let next = bytes[i + 1]
                    if afterDigit, next >= 0x30 && next <= 0x39 {
                        current.append(b)
                        afterDigit = false
                        return i + 1
                    }
                case UInt8(ascii: "-"):
                    if afterLowercase, let resume = lineBreakResume(at: i + 1) { return resume }
                default:
                    break
                }
            }
            flush()
            inHashtag = b == UInt8(ascii: "#")
            return i + 1
        }

        private mutating func joinApostrophe(resumingAt next: Int) -> Int {
            current.append(UInt8(ascii: "'"))
            afterLowercase = false
            afterUppercase = false
            afterDigit = false
            return next
        }

        /// Handles the non-ASCII scalar at `i`; returns where the scan goes on.
        private mutating func nonASCII(at i: Int) -> Int {
            let (scalar, end) = decode(at: i)
            switch scalar.value {
            case 0x2019, 0x02BC:
                if !current.isEmpty, startsWord(at: end) { return joinApostrophe(resumingAt: end) }
            case 0x2010, 0x2011:
                if !current.isEmpty, afterLowercase, let resume = lineBreakResume(at: end) { return resume }
            case 0x00AD:
                if !current.isEmpty, startsWord(at: end) { return end }
            default:
                let properties = scalar.properties
                if properties.isAlphabetic || properties.numericType != nil {
                    let isUpper = properties.isUppercase
                    if splitHashtags, inHashtag, !current.isEmpty, afterDigit || (isUpper && afterLowercase) { flush() }
                    if properties.changesWhenLowercased {
                        current.append(contentsOf: properties.lowercaseMapping.utf8)
                    } else {
                        current.append(contentsOf: bytes[i..<end])
                    }
                    afterLowercase = properties.isLowercase
                    afterUppercase = false
                    afterDigit = false
                    return end
                }
                if !current.isEmpty, Self.isCombiningMark(scalar, properties) {
                    current.append(contentsOf: bytes[i..<end])
                    return end
                }
            }
            flush()
            inHashtag = false
            return end
        }

        private static func isCombiningMark(_ scalar: Unicode.Scalar, _ properties: Unicode.Scalar.Properties) -> Bool {
            // Variation selectors are marks too, but they belong to emoji, not to words.
            if scalar.value >= 0xFE00 && scalar.value <= 0xFE0F { return false }
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return false
            }
        }

        /// The scalar starting at `i` and where it ends; Swift strings hold valid UTF-8.
        private func decode(at i: Int) -> (Unicode.Scalar, Int) {
            let b0 = UInt32(bytes[i])
            if b0 < 0x80 { return (Unicode.Scalar(UInt8(b0)), i + 1) }
            if b0 < 0xE0 {
                let v = (b0 & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F)
                return (Unicode.Scalar(v) ?? "\u{FFFD}", i + 2)
            }
            if b0 < 0xF0 {
                let v = (b0 & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
                return (Unicode.Scalar(v) ?? "\u{FFFD}", i + 3)
            }
            let v = (b0 & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12 | UInt32(bytes[i + 2] & 0x3F) << 6
                | UInt32(bytes[i + 3] & 0x3F)
            return (Unicode.Scalar(v) ?? "\u{FFFD}", i + 4)
        }

        /// Whether a letter or digit starts at `i`.
        private func startsWord(at i: Int) -> Bool {
            guard i < bytes.count else { return false }
            let b = bytes[i]
            if b < 0x80 {
                let folded = b | 0x20
                return (folded >= 0x61 && folded <= 0x7A) || (b >= 0x30 && b <= 0x39)
            }
            let properties = decode(at: i).0.properties
            return properties.isAlphabetic || properties.numericType != nil
        }

        /// Where a word broken by a hyphen continues, `i` being just after the hyphen: the
        /// hyphen ends its line and the next line starts with a lowercase letter. `nil` when
        /// the hyphen is an ordinary one.
        private func lineBreakResume(at i: Int) -> Int? {
            let n = bytes.count
            var j = i
            while j < n, bytes[j] == UInt8(ascii: " ") || bytes[j] == UInt8(ascii: "\t") { j += 1 }
            guard j < n, bytes[j] == UInt8(ascii: "\n") || bytes[j] == UInt8(ascii: "\r") else { return nil }
            while j < n, bytes[j] == UInt8(ascii: " ") || bytes[j] == UInt8(ascii: "\t")
                || bytes[j] == UInt8(ascii: "\n") || bytes[j] == UInt8(ascii: "\r")
            {
                j += 1
            }
            guard j < n else { return nil }
            if bytes[j] < 0x80 { return bytes[j] >= 0x61 && bytes[j] <= 0x7A ? j : nil }
            return decode(at: j).0.properties.isLowercase ? j : nil
        }
    }

    static func stem(_ word: String) -> String {
        if let singular = TermMatching.irregularPlurals[word] { return stem(singular) }
        var copy = word
        return copy.withUTF8 { source in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: source.count) { buffer in
                _ = buffer.initialize(fromContentsOf: source)
                var w = Stem(bytes: buffer, count: source.count)
                w.reduce()
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<w.count]), as: UTF8.self)
            }
        }
    }

    /// A word's UTF-8 bytes being stemmed in place; `count` shrinks as suffixes go.
    private struct Stem {
        let bytes: UnsafeMutableBufferPointer<UInt8>
        var count: Int

        var last: UInt8 { bytes[count - 1] }

        func hasSuffix(_ suffix: StaticString) -> Bool {
            let length = suffix.utf8CodeUnitCount
            guard count >= length else { return false }
            return suffix.withUTF8Buffer { s in
                for k in 0..<length where bytes[count - length + k] != s[k] { return false }
                return true
            }
        }

        /// Whether the first `length` bytes hold three or more with a vowel among them.
        func hasVowel(within length: Int) -> Bool {
            guard length >= 3 else { return false }
            for k in 0..<length where ReferenceTermMatching.isVowel(bytes[k]) { return true }
            return false
        }

        mutating func reduce() {
            if count > 2, last == UInt8(ascii: "s"), bytes[count - 2] == UInt8(ascii: "'") { count -= 2 }
            for k in 0..<count where bytes[k] >= 0x30 && bytes[k] <= 0x39 { return }
            if count < bytes.count, let singular = TermMatching.irregularPlurals[
                String(decoding: UnsafeBufferPointer(rebasing: bytes[..<count]), as: UTF8.self)]
            {
                // A possessive irregular plural ("children's"): start again from the singular.
                let utf8 = Array(singular.utf8)
                guard utf8.count <= bytes.count else { return }
                for (k, b) in utf8.enumerated() { bytes[k] = b }
                count = utf8.count
            }

            // Plural.
            if count >= 5, hasSuffix("ies") {
                count -= 2
            } else if count >= 4, last == UInt8(ascii: "s") {
                let before = bytes[count - 2]
                if before != UInt8(ascii: "s") && before != UInt8(ascii: "u") && before != UInt8(ascii: "i")
                    && before != UInt8(ascii: "'")
                {
                    count -= 1
                }
            }
            // -ing, -ed.
            if count >= 6, hasSuffix("ing"), hasVowel(within: count - 3) {
                count -= 3
                undouble()
            } else if count >= 5, hasSuffix("ed"), !hasSuffix("eed"), hasVowel(within: count - 2) {
                count -= 2
                undouble()
            }
            // Final -e, -y.
            if count >= 4, last == UInt8(ascii: "e"), bytes[count - 2] != UInt8(ascii: "e") {
                count -= 1
            }
            if count >= 3, last == UInt8(ascii: "y"), !ReferenceTermMatching.isVowel(bytes[count - 2]) {
                bytes[count - 1] = UInt8(ascii: "i")
            }
        }

        /// Drops the second of a doubled final consonant ("runn" → "run"), except l, s and z
        /// ("fall", "dress", "buzz"), as in the Porter stemmer.
        mutating func undouble() {
            guard count >= 3, last == bytes[count - 2], !ReferenceTermMatching.isVowel(last), last != UInt8(ascii: "l"),
                last != UInt8(ascii: "s"), last != UInt8(ascii: "z")
            else { return }
            count -= 1
        }
    }

    static func isVowel(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"),
            UInt8(ascii: "y"):
            true
        default:
            b >= 0x80
        }
    }
}
