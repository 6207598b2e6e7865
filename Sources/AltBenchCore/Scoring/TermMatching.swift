/// Word normalisation and a light English stemmer for the scorers that compare an answer with
/// dataset text (`text_recall`, `keyword_recall`, `context_echo`), and a shortcut to the
/// model's own voice for the counts that judge it (`hedging`, `social_tokens`).
enum TermMatching {
    // MARK: - Own voice

    /// The characters and words of `input`'s own voice (``TextAnalysis/ownVoice(_:)``).
    ///
    /// When the text holds nothing that voice scan removes, no character that may open a
    /// quotation and no reporting word, the own voice is the text itself, and the input's
    /// characters and words, already split, are returned instead of splitting it again.
    static func ownVoice(of input: ScoringInput) -> (characters: [Character], words: [TextAnalysis.Word]) {
        if mayOpenQuotation(input.text)
            || input.words.contains(where: { TextAnalysis.reportingWords.contains($0.normalized) })
        {
            let characters = Array(TextAnalysis.ownVoice(input.text))
            return (characters, TextAnalysis.words(in: characters))
        }
        return (input.characters, input.words)
    }

    /// Whether `text` holds a character that may open a quotation: " “ „ ‘ « ‹ 「 『, or a
    /// straight ' before a letter and not after one (an apostrophe inside "it's" opens
    /// nothing). Looser than ``TextAnalysis/quotedSpans(in:)``, never stricter.
    static func mayOpenQuotation(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { b in
            let n = b.count
            for i in 0..<n {
                switch b[i] {
                case UInt8(ascii: "\""):
                    return true
                case UInt8(ascii: "'"):
                    let previous: UInt8 = i > 0 ? b[i - 1] : 0x20
                    let folded = previous | 0x20
                    let afterWord = (folded >= 0x61 && folded <= 0x7A) || (previous >= 0x30 && previous <= 0x39)
                        || previous >= 0x80
                    let next: UInt8 = i + 1 < n ? b[i + 1] : 0x20
                    let beforeLetter = (next | 0x20 >= 0x61 && next | 0x20 <= 0x7A) || next >= 0x80
                    if !afterWord && beforeLetter { return true }
                case 0xC2:
                    // « U+00AB
                    if i + 1 < n, b[i + 1] == 0xAB { return true }
                case 0xE2:
                    // “ U+201C, „ U+201E, ‘ U+2018, ‹ U+2039
                    if i + 2 < n, b[i + 1] == 0x80,
                        b[i + 2] == 0x9C || b[i + 2] == 0x9E || b[i + 2] == 0x98 || b[i + 2] == 0xB9
                    {
                        return true
                    }
                case 0xE3:
                    // 「 U+300C, 『 U+300E
                    if i + 2 < n, b[i + 1] == 0x80, b[i + 2] == 0x8C || b[i + 2] == 0x8E { return true }
                default:
                    break
                }
            }
            return false
        }
    }

    // MARK: - Words

    /// The words of `text` for comparing, lowercased, in order.
    ///
    /// - A word is a run of letters and digits (Unicode Alphabetic or numeric scalars, with
    ///   the combining marks that follow them); diacritics are kept, so "café" is not "cafe".
    ///   Words are Swift strings, so "café" precomposed and decomposed are equal.
    /// - An apostrophe between word characters stays in the word and is made straight
    ///   ("Don’t" → "don't"); a leading or trailing one is dropped ("dogs’" → "dogs").
    /// - A number keeps its inner separators as written: "3.5%" → "3.5", "1,000" → "1,000",
    ///   "10:30" → "10:30"; the currency and percent signs around it are dropped.
    /// - A hyphen splits a compound ("T-shirt" → "t", "shirt"), so "well-known" matches
    ///   "well known"; a hyphen that breaks a lowercase word across a line ("impor-⏎tant") and
    ///   a soft hyphen (U+00AD) join it instead ("important").
    /// - Every other character (punctuation, emoji, #, @) separates words. With
    ///   `splitHashtags`, a hashtag's CamelCase is split as well: "#GoldenRetriever" → "golden",
    ///   "retriever"; "#NASAGoddard" → "nasa", "goddard"; "#100DaysOfCode" → "100", "days",
    ///   "of", "code".
    ///
    /// The scan reads UTF-8 bytes and looks up Unicode properties for non-ASCII scalars only:
    /// the dataset-aware scorers split the answer and the dataset text for every answer.
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

    // MARK: - Stems

    /// Irregular English plurals, mapped to their singular before stemming.
    static let irregularPlurals: [String: String] = [
        "mice": "mouse", "geese": "goose", "feet": "foot", "teeth": "tooth", "men": "man",
        "women": "woman", "children": "child", "people": "person", "oxen": "ox", "knives": "knife",
        "wives": "wife", "lives": "life", "leaves": "leaf", "wolves": "wolf", "halves": "half",
        "shelves": "shelf", "loaves": "loaf", "calves": "calf", "thieves": "thief", "scarves": "scarf",
        "hooves": "hoof", "cacti": "cactus", "fungi": "fungus", "dice": "die",
    ]

    /// A light English stem of `word` (a word from ``words(in:splitHashtags:)``), so that
    /// inflections of one word meet: "dog's", "dogs", "dogs'" → "dog"; "puppies", "puppy" →
    /// "puppi"; "boxes", "box" → "box"; "horses", "horse" → "hors"; "running", "run" → "run";
    /// "parked", "park" → "park"; "making", "make" → "mak"; "mice", "mouse" → "mous".
    ///
    /// Steps, each only where it leaves a stem of three letters or more with a vowel in it:
    /// a possessive 's, an irregular plural (``irregularPlurals``), a plural -s (not after s,
    /// u or i: "glass", "bus", "iris" stay) or -ies → i, then -ing or -ed (not -eed) with a
    /// doubled final consonant undoubled ("running" → "run"), then a final -e (not -ee), then
    /// a final -y after a consonant → i. Words holding a digit are left as written. Both sides
    /// of a comparison go through the same steps, so the stems need not be real words.
    static func stem(_ word: String) -> String {
        if let singular = irregularPlurals[word] { return stem(singular) }
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
            for k in 0..<length where TermMatching.isVowel(bytes[k]) { return true }
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
            if count >= 3, last == UInt8(ascii: "y"), !TermMatching.isVowel(bytes[count - 2]) {
                bytes[count - 1] = UInt8(ascii: "i")
            }
        }

        /// Drops the second of a doubled final consonant ("runn" → "run"), except l, s and z
        /// ("fall", "dress", "buzz"), as in the Porter stemmer.
        mutating func undouble() {
            guard count >= 3, last == bytes[count - 2], !TermMatching.isVowel(last), last != UInt8(ascii: "l"),
                last != UInt8(ascii: "s"), last != UInt8(ascii: "z")
            else { return }
            count -= 1
        }
    }

    /// Whether `b` is a vowel; a non-ASCII byte (part of "é", "ü", ...) counts as one.
    fileprivate static func isVowel(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"),
            UInt8(ascii: "y"):
            true
        default:
            b >= 0x80
        }
    }
}
