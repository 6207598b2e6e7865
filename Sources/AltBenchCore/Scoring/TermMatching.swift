import Foundation

/// Word normalisation and a light English stemmer for the scorers that compare an answer with
/// dataset text (`text_recall`, `keyword_recall`, `context_echo`), and a shortcut to the
/// model's own voice for the counts that judge it (`hedging`, `social_tokens`).
enum TermMatching {
    // MARK: - Own voice

    /// The characters and words of `input`'s own voice (``TextAnalysis/ownVoice(_:)``).
    ///
    /// The voice scan runs on the input's characters, words and quoted spans, already found;
    /// when it removes nothing, the input's characters and words are the voice's. Otherwise
    /// the voice's characters are split into words again.
    static func ownVoice(of input: ScoringInput) -> (characters: [Character], words: [TextAnalysis.Word]) {
        // Worked out once per answer, for every scorer that reads the model's own voice.
        input.ownVoiceCache.value {
            guard
                let voice = TextAnalysis.ownVoice(
                    characters: input.characters, words: input.words, quotedSpans: input.quotedSpans)
            else { return (input.characters, input.words) }
            return (voice, TextAnalysis.words(in: voice))
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
    static func words(in text: String, splitHashtags: Bool = false) -> [String] {
        var scanner = WordScanner(scalars: Array(text.unicodeScalars), splitHashtags: splitHashtags)
        return scanner.scan()
    }

    /// The scan behind ``words(in:splitHashtags:)``, one scalar at a time.
    private struct WordScanner {
        let scalars: [Unicode.Scalar]
        let splitHashtags: Bool
        var result: [String] = []
        /// The word being read, lowercased.
        var current = String.UnicodeScalarView()
        var inHashtag = false
        /// Whether the last character added to `current` was a lowercase letter.
        var afterLowercase = false
        /// Whether the last character added to `current` was an uppercase ASCII letter.
        var afterUppercase = false
        /// Whether the last character added to `current` was an ASCII digit.
        var afterDigit = false

        init(scalars: [Unicode.Scalar], splitHashtags: Bool) {
            self.scalars = scalars
            self.splitHashtags = splitHashtags
        }

        mutating func scan() -> [String] {
            var i = 0
            while i < scalars.count {
                i = scalars[i].isASCII ? ascii(scalars[i], at: i) : nonASCII(scalars[i], at: i)
            }
            flush()
            return result
        }

        private mutating func flush() {
            if !current.isEmpty {
                result.append(String(current))
                current = String.UnicodeScalarView()
            }
            afterLowercase = false
            afterUppercase = false
            afterDigit = false
        }

        private static func isLowerASCII(_ s: Unicode.Scalar) -> Bool { s >= "a" && s <= "z" }
        private static func isDigitASCII(_ s: Unicode.Scalar) -> Bool { s >= "0" && s <= "9" }

        /// Handles the ASCII scalar `s` at `i`; returns where the scan goes on.
        private mutating func ascii(_ s: Unicode.Scalar, at i: Int) -> Int {
            let lower = Unicode.Scalar(UInt8(s.value) | (s >= "A" && s <= "Z" ? 0x20 : 0))
            if Self.isLowerASCII(lower) {
                let isUpper = lower != s
                if splitHashtags, inHashtag, !current.isEmpty {
                    // "GoldenRetriever", "NASAGoddard", "100Days": a new word starts here.
                    let nextIsLower = i + 1 < scalars.count && Self.isLowerASCII(scalars[i + 1])
                    if afterDigit || (isUpper && (afterLowercase || (afterUppercase && nextIsLower))) { flush() }
                }
                current.append(lower)
                afterLowercase = !isUpper
                afterUppercase = isUpper
                afterDigit = false
                return i + 1
            }
            if Self.isDigitASCII(s) {
                // "Day1" in a hashtag: a number after a word is a word of its own.
                if splitHashtags, inHashtag, afterLowercase || afterUppercase { flush() }
                current.append(s)
                afterLowercase = false
                afterUppercase = false
                afterDigit = true
                return i + 1
            }
            if !current.isEmpty, i + 1 < scalars.count {
                switch s {
                case "'":
                    if startsWord(at: i + 1) { return joinApostrophe(resumingAt: i + 1) }
                case ".", ",", ":":
                    if afterDigit, Self.isDigitASCII(scalars[i + 1]) {
                        current.append(s)
                        afterDigit = false
                        return i + 1
                    }
                case "-":
                    if afterLowercase, let resume = lineBreakResume(at: i + 1) { return resume }
                default:
                    break
                }
            }
            flush()
            inHashtag = s == "#"
            return i + 1
        }

        private mutating func joinApostrophe(resumingAt next: Int) -> Int {
            current.append("'")
            afterLowercase = false
            afterUppercase = false
            afterDigit = false
            return next
        }

        /// Handles the non-ASCII scalar `scalar` at `i`; returns where the scan goes on.
        private mutating func nonASCII(_ scalar: Unicode.Scalar, at i: Int) -> Int {
            switch scalar {
            case "\u{2019}", "\u{02BC}":
                if !current.isEmpty, startsWord(at: i + 1) { return joinApostrophe(resumingAt: i + 1) }
            case "\u{2010}", "\u{2011}":
                if !current.isEmpty, afterLowercase, let resume = lineBreakResume(at: i + 1) { return resume }
            case "\u{00AD}":
                if !current.isEmpty, startsWord(at: i + 1) { return i + 1 }
            default:
                let properties = scalar.properties
                if properties.isAlphabetic || properties.numericType != nil {
                    let isUpper = properties.isUppercase
                    if splitHashtags, inHashtag, !current.isEmpty, afterDigit || (isUpper && afterLowercase) { flush() }
                    if properties.changesWhenLowercased {
                        current.append(contentsOf: properties.lowercaseMapping.unicodeScalars)
                    } else {
                        current.append(scalar)
                    }
                    afterLowercase = properties.isLowercase
                    afterUppercase = false
                    afterDigit = false
                    return i + 1
                }
                if !current.isEmpty, Self.isCombiningMark(scalar) {
                    current.append(scalar)
                    return i + 1
                }
            }
            flush()
            inHashtag = false
            return i + 1
        }

        private static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
            // Variation selectors are marks too, but they belong to emoji, not to words.
            if scalar.value >= 0xFE00 && scalar.value <= 0xFE0F { return false }
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return false
            }
        }

        /// Whether a letter or digit starts at `i`.
        private func startsWord(at i: Int) -> Bool {
            guard i < scalars.count else { return false }
            let properties = scalars[i].properties
            return properties.isAlphabetic || properties.numericType != nil
        }

        /// Where a word broken by a hyphen continues, `i` being just after the hyphen: the
        /// hyphen ends its line and the next line starts with a lowercase letter. `nil` when
        /// the hyphen is an ordinary one.
        private func lineBreakResume(at i: Int) -> Int? {
            let n = scalars.count
            var j = i
            while j < n, scalars[j] == " " || scalars[j] == "\t" { j += 1 }
            guard j < n, scalars[j] == "\n" || scalars[j] == "\r" else { return nil }
            while j < n, scalars[j] == " " || scalars[j] == "\t" || scalars[j] == "\n" || scalars[j] == "\r" {
                j += 1
            }
            guard j < n else { return nil }
            return scalars[j].properties.isLowercase ? j : nil
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
    /// of a comparison go through the same steps, so the stems need not be real words. The
    /// steps work on UTF-8 bytes, where any non-ASCII byte counts as a vowel.
    static func stem(_ word: String) -> String {
        if let singular = irregularPlurals[word] { return stem(singular) }
        var bytes = Array(word.utf8)
        let length = bytes.count
        func hasSuffix(_ suffix: String) -> Bool { bytes.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) }
        func hasVowel(within count: Int) -> Bool { count >= 3 && bytes[..<count].contains(where: isVowel) }
        func undouble() {
            // The second of a doubled final consonant goes ("runn" → "run"), but for l, s and
            // z ("fall", "dress", "buzz"), as in the Porter stemmer.
            guard bytes.count >= 3, let last = bytes.last, last == bytes[bytes.count - 2], !isVowel(last),
                !"lsz".utf8.contains(last)
            else { return }
            bytes.removeLast()
        }

        if bytes.count > 2, bytes.last == UInt8(ascii: "s"), bytes[bytes.count - 2] == UInt8(ascii: "'") {
            bytes.removeLast(2)
        }
        if bytes.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        if bytes.count < length, let singular = irregularPlurals[String(decoding: bytes, as: UTF8.self)] {
            // A possessive irregular plural ("children's"): start again from the singular.
            guard singular.utf8.count <= length else { return String(decoding: bytes, as: UTF8.self) }
            bytes = Array(singular.utf8)
        }
        // Plural.
        if bytes.count >= 5, hasSuffix("ies") {
            bytes.removeLast(2)
        } else if bytes.count >= 4, bytes.last == UInt8(ascii: "s"), !"sui'".utf8.contains(bytes[bytes.count - 2]) {
            bytes.removeLast()
        }
        // -ing, -ed.
        if bytes.count >= 6, hasSuffix("ing"), hasVowel(within: bytes.count - 3) {
            bytes.removeLast(3)
            undouble()
        } else if bytes.count >= 5, hasSuffix("ed"), !hasSuffix("eed"), hasVowel(within: bytes.count - 2) {
            bytes.removeLast(2)
            undouble()
        }
        // Final -e, -y.
        if bytes.count >= 4, bytes.last == UInt8(ascii: "e"), bytes[bytes.count - 2] != UInt8(ascii: "e") {
            bytes.removeLast()
        }
        if bytes.count >= 3, bytes.last == UInt8(ascii: "y"), !isVowel(bytes[bytes.count - 2]) {
            bytes[bytes.count - 1] = UInt8(ascii: "i")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `b` is a vowel; a non-ASCII byte (part of "é", "ü", ...) counts as one.
    private static func isVowel(_ b: UInt8) -> Bool {
        "aeiouy".utf8.contains(b) || b >= 0x80
    }
}
