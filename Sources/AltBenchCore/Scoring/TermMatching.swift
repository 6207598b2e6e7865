import Foundation

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
    /// Otherwise the voice scan runs on the input's characters and words
    /// (``ownVoice(characters:words:)``) rather than on the text split again.
    static func ownVoice(of input: ScoringInput) -> (characters: [Character], words: [TextAnalysis.Word]) {
        let mayQuote = mayOpenQuotation(input.text)
        guard mayQuote || input.words.contains(where: { isReportingWord($0.normalized) })
        else { return (input.characters, input.words) }
        if isOwnCharacters(input.text) {
            return ownVoice(
                characters: input.characters, words: input.words, quotedSpans: mayQuote ? input.quotedSpans : [])
        }
        let characters = Array(TextAnalysis.ownVoice(input.text))
        return (characters, TextAnalysis.words(in: characters))
    }

    /// ``TextAnalysis/ownVoice(_:)`` of a text given as its characters and its words
    /// (``TextAnalysis/words(in:)``), each character a scalar that is a `Character` of its own
    /// (``TextAnalysis/isOwnCharacter(_:)``), and that voice's characters and words.
    ///
    /// The same scan: quoted spans are removed (but for a sentence end just inside a closing
    /// quote), then after each reporting word the rest of its sentence up to a quotation, and
    /// each removed stretch becomes one space. With one scalar per character, that string is
    /// split into the same characters again, so they are built directly; and a word none of
    /// whose characters were removed is still a word with the same neighbours (a removed
    /// character becomes a space, which neither joins nor extends a word), so the words are
    /// the text's, moved. Only when a word lost part of its characters are the words split
    /// again.
    ///
    /// `quotedSpans` are the spans of `chars` when already found (an empty list when the text
    /// has no character that may open a quotation, ``mayOpenQuotation(_:)``).
    static func ownVoice(
        characters chars: [Character], words: [TextAnalysis.Word], quotedSpans: [TextAnalysis.QuotedSpan]? = nil
    ) -> (characters: [Character], words: [TextAnalysis.Word]) {
        let n = chars.count
        guard n > 0 else { return (chars, words) }
        var removed = [Bool](repeating: false, count: n)
        var spanStarts = [Bool](repeating: false, count: n)
        for span in quotedSpans ?? TextAnalysis.quotedSpans(in: chars) {
            spanStarts[span.range.lowerBound] = true
            for k in span.range { removed[k] = true }
            let last = span.range.upperBound - 2
            if span.isClosed, last > span.range.lowerBound, TextAnalysis.isSentenceTerminator(chars[last]) {
                removed[last] = false
            }
        }
        for word in words where isReportingWord(word.normalized) && !removed[word.range.lowerBound] {
            var j = word.range.upperBound
            while j < n,
                (TextAnalysis.isSpace(chars[j]) && !TextAnalysis.isNewline(chars[j])) || chars[j] == ":"
                    || chars[j] == "," || TextAnalysis.isDash(chars[j])
            {
                j += 1
            }
            guard j < n, !TextAnalysis.isNewline(chars[j]), !TextAnalysis.isSentenceTerminator(chars[j]),
                !opensQuotation(chars, at: j)
            else { continue }
            var end = j
            while end < n, !TextAnalysis.isSentenceTerminator(chars[end]), !TextAnalysis.isNewline(chars[end]),
                !spanStarts[end]
            {
                end += 1
            }
            for k in word.range.upperBound..<end { removed[k] = true }
        }

        var voice: [Character] = []
        voice.reserveCapacity(n)
        // Where each kept character lands in `voice`.
        var position = [Int](repeating: 0, count: n)
        var inGap = false
        for k in 0..<n {
            if removed[k] {
                if !inGap { voice.append(" ") }
                inGap = true
            } else {
                position[k] = voice.count
                voice.append(chars[k])
                inGap = false
            }
        }
        var voiceWords: [TextAnalysis.Word] = []
        voiceWords.reserveCapacity(words.count)
        for word in words {
            let kept = word.range.reduce(0) { $0 + (removed[$1] ? 0 : 1) }
            if kept == 0 { continue }
            guard kept == word.range.count else { return (voice, TextAnalysis.words(in: voice)) }
            var shifted = word
            let start = position[word.range.lowerBound]
            shifted.range = start..<(start + word.range.count)
            voiceWords.append(shifted)
        }
        return (voice, voiceWords)
    }

    /// Whether every scalar of `text` is a `Character` of its own
    /// (``TextAnalysis/isOwnCharacter(_:)``), read from its UTF-8 bytes.
    static func isOwnCharacters(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { b in
            let n = b.count
            var i = 0
            while i < n {
                let lead = b[i]
                if lead < 0x80 {
                    guard lead != 0x0D else { return false }
                    i += 1
                    continue
                }
                let (value, end) = UTF8Scalars.decode(b, at: i)
                guard let scalar = Unicode.Scalar(value), TextAnalysis.isOwnCharacter(scalar) else { return false }
                i = end
            }
            return true
        }
    }

    /// Whether a quotation opens at `i`, as ``TextAnalysis/quotedSpans(in:)`` finds them:
    /// " (not after a digit, an inch mark), “, „, ‘ before a non-space, ' before a letter and
    /// not after a letter or digit, «, ‹, 「 or 『.
    static func opensQuotation(_ chars: [Character], at i: Int) -> Bool {
        let c = chars[i]
        if let a = c.asciiByte, a != 0x22, a != 0x27 { return false }
        let previous: Character? = i > 0 ? chars[i - 1] : nil
        let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
        switch c {
        case "\"":
            return previous?.isNumber != true
        case "\u{201C}", "\u{201E}", "\u{00AB}", "\u{2039}", "\u{300C}", "\u{300E}":
            return true
        case "\u{2018}":
            guard let next else { return false }
            return !next.isWhitespace
        case "'":
            guard let next, next.isLetter else { return false }
            if let previous, TextAnalysis.isWordCharacter(previous) { return false }
            return true
        default:
            return false
        }
    }

    /// Whether `word` (normalized) is one of ``TextAnalysis/reportingWords``, compared as
    /// integers (``packed(_:)``) with those of its length rather than hashed: every word of
    /// an answer is asked.
    static func isReportingWord(_ word: String) -> Bool {
        let utf8 = word.utf8
        let count = utf8.count
        guard count < reportingKeys.count, !reportingKeys[count].isEmpty else { return false }
        let key = packed(utf8)
        return reportingKeys[count].contains { $0 == key }
    }

    /// ``TextAnalysis/reportingWords`` packed by ``packed(_:)``, by length; none is longer
    /// than 16 bytes.
    static let reportingKeys: [[Packed]] = {
        let words = TextAnalysis.reportingWords
        var keys = [[Packed]](repeating: [], count: (words.map(\.utf8.count).max() ?? 0) + 1)
        for word in words {
            precondition(word.utf8.count <= 16)
            keys[word.utf8.count].append(packed(word.utf8))
        }
        return keys
    }()

    /// A word of up to 16 bytes as two integers and its length, to compare words with a short
    /// list without hashing them.
    typealias Packed = (low: UInt64, high: UInt64, count: Int)

    /// The first 16 bytes of `utf8` in two integers (the first byte lowest), with its length:
    /// two strings of at most 16 bytes have the same key exactly when they have the same bytes.
    @inline(__always)
    static func packed(_ utf8: String.UTF8View) -> Packed {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var k: UInt64 = 0
        for byte in utf8 {
            if k < 8 {
                low |= UInt64(byte) << (8 * k)
            } else if k < 16 {
                high |= UInt64(byte) << (8 * (k - 8))
            }
            k += 1
        }
        return (low, high, Int(k))
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
        withWords(in: text, splitHashtags: splitHashtags) { scanner in
            var result: [String] = []
            while let word = scanner.next() { result.append(String(decoding: word, as: UTF8.self)) }
            return result
        }
    }

    /// Calls `body` with a ``WordScanner`` over `text`, whose ``WordScanner/next()`` gives
    /// the UTF-8 bytes of each word of ``words(in:splitHashtags:)`` in turn, without making
    /// a string of it. The scorers look the answer's words up this way, so that an answer
    /// costs no allocation.
    @inline(__always)
    static func withWords<Result>(
        in text: String, splitHashtags: Bool = false, _ body: (inout WordScanner) -> Result
    ) -> Result {
        var copy = text
        return copy.withUTF8 { bytes in
            // A word takes at most twice the bytes it was read from (a lowercased letter
            // may be longer than the capital: "İ" is 2 bytes, "i̇" 3); the word handed over
            // and the one being read take turns in the two halves.
            let half = 2 * bytes.count + 8
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * half) { buffer in
                var scanner = WordScanner(bytes: bytes, buffer: buffer, half: half, splitHashtags: splitHashtags)
                return body(&scanner)
            }
        }
    }

    /// Reads the words of a text's UTF-8 bytes one at a time (see ``withWords(in:splitHashtags:_:)``).
    struct WordScanner {
        private let bytes: UnsafeBufferPointer<UInt8>
        /// The word being read, lowercased, is the first `count` bytes of `current`, one half
        /// of the buffer; the word last handed over is in the other half.
        private var current: UnsafeMutablePointer<UInt8>
        private var other: UnsafeMutablePointer<UInt8>
        private let half: Int
        private var count = 0
        /// A word read in full, not yet handed over.
        private var pending: UnsafeBufferPointer<UInt8>?
        /// Where the scan goes on.
        private var position = 0
        private var finished = false
        private let splitHashtags: Bool
        private var inHashtag = false
        /// Whether the last character added to `current` was a lowercase letter.
        private var afterLowercase = false
        /// Whether the last character added to `current` was an uppercase ASCII letter.
        private var afterUppercase = false
        /// Whether the last character added to `current` was an ASCII digit.
        private var afterDigit = false

        fileprivate init(
            bytes: UnsafeBufferPointer<UInt8>, buffer: UnsafeMutableBufferPointer<UInt8>, half: Int,
            splitHashtags: Bool
        ) {
            self.bytes = bytes
            self.current = buffer.baseAddress!
            self.other = buffer.baseAddress! + half
            self.half = half
            self.splitHashtags = splitHashtags
        }

        /// The next word's bytes, valid until the following call, or `nil` after the last.
        @inline(__always)
        mutating func next() -> UnsafeBufferPointer<UInt8>? {
            let n = bytes.count
            while pending == nil {
                guard position < n else {
                    guard !finished else { return nil }
                    finished = true
                    flush()
                    break
                }
                let b = bytes[position]
                position = b < 0x80 ? ascii(b, at: position) : nonASCII(at: position)
            }
            defer { pending = nil }
            return pending
        }

        @inline(__always)
        private mutating func append(_ byte: UInt8) {
            current[count] = byte
            count += 1
        }

        private mutating func append(_ source: UnsafeBufferPointer<UInt8>.SubSequence) {
            precondition(count + source.count <= half)
            for byte in source {
                current[count] = byte
                count += 1
            }
        }

        /// Ends the word being read, if any: it becomes `pending`, and the next is read into
        /// the other half of the buffer. A step of the scan flushes at most once.
        @inline(__always)
        private mutating func flush() {
            if count > 0 {
                pending = UnsafeBufferPointer(start: current, count: count)
                swap(&current, &other)
                count = 0
            }
            afterLowercase = false
            afterUppercase = false
            afterDigit = false
        }

        /// Handles the ASCII byte `b` at `i`; returns where the scan goes on.
        @inline(__always)
        private mutating func ascii(_ b: UInt8, at i: Int) -> Int {
            let folded = b | 0x20
            if folded >= 0x61 && folded <= 0x7A {
                let isUpper = b < 0x61
                if splitHashtags, inHashtag, count > 0 {
                    // "GoldenRetriever", "NASAGoddard", "100Days": a new word starts here.
                    let nextIsLower = i + 1 < bytes.count && bytes[i + 1] >= 0x61 && bytes[i + 1] <= 0x7A
                    if afterDigit || (isUpper && (afterLowercase || (afterUppercase && nextIsLower))) { flush() }
                }
                append(folded)
                afterLowercase = !isUpper
                afterUppercase = isUpper
                afterDigit = false
                // Outside a hashtag being split, the letters and digits that follow only
                // join the word: read them in one go.
                var j = i + 1
                if !(splitHashtags && inHashtag) {
                    let n = bytes.count
                    var count = self.count
                    var last = b
                    // Eight bytes at a time (`current` has room for them), then one by one.
                    run: do {
                        while j + 8 <= n {
                            let eight = UnsafeRawPointer(bytes.baseAddress! + j).loadUnaligned(as: UInt64.self)
                            let run = TermMatching.alphanumericRun(eight)
                            guard run.length > 0 else { break run }
                            UnsafeMutableRawPointer(current + count).storeBytes(of: run.lowercase, as: UInt64.self)
                            count &+= run.length
                            j &+= run.length
                            last = bytes[j - 1]
                            if run.length < 8 { break run }
                        }
                        while j < n {
                            let c = bytes[j]
                            let lower = c | 0x20
                            if lower &- 0x61 < 26 {
                                current[count] = lower
                            } else if c &- 0x30 < 10 {
                                current[count] = c
                            } else {
                                break
                            }
                            last = c
                            count &+= 1
                            j &+= 1
                        }
                    }
                    self.count = count
                    // The flags follow the run's last character.
                    let isDigit = last &- 0x30 < 10
                    afterLowercase = !isDigit && last >= 0x61
                    afterUppercase = !isDigit && last < 0x61
                    afterDigit = isDigit
                }
                return j
            }
            if b >= 0x30 && b <= 0x39 {
                // "Day1" in a hashtag: a number after a word is a word of its own.
                if splitHashtags, inHashtag, afterLowercase || afterUppercase { flush() }
                append(b)
                afterLowercase = false
                afterUppercase = false
                afterDigit = true
                return i + 1
            }
            if count > 0, i + 1 < bytes.count {
                switch b {
                case UInt8(ascii: "'"):
                    if startsWord(at: i + 1) { return joinApostrophe(resumingAt: i + 1) }
                case UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: ":"):
                    let next = bytes[i + 1]
                    if afterDigit, next >= 0x30 && next <= 0x39 {
                        append(b)
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

        @inline(__always)
        private mutating func joinApostrophe(resumingAt next: Int) -> Int {
            append(UInt8(ascii: "'"))
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
                if count > 0, startsWord(at: end) { return joinApostrophe(resumingAt: end) }
            case 0x2010, 0x2011:
                if count > 0, afterLowercase, let resume = lineBreakResume(at: end) { return resume }
            case 0x00AD:
                if count > 0, startsWord(at: end) { return end }
            default:
                let v = scalar.value
                if v >= 0xC0 && v <= 0xFF && v != 0xD7 && v != 0xF7 {
                    // A Latin-1 letter: À to Þ lowercase to à to þ, 0x20 further (C3 80 to
                    // C3 9E become C3 A0 to C3 BE); ß to ÿ are lowercase already.
                    let isUpper = v <= 0xDE
                    if splitHashtags, inHashtag, count > 0, afterDigit || (isUpper && afterLowercase) { flush() }
                    append(bytes[i])
                    append(isUpper ? bytes[i + 1] + 0x20 : bytes[i + 1])
                    afterLowercase = !isUpper
                    afterUppercase = false
                    afterDigit = false
                    return end
                }
                // General punctuation (’ and the hyphens aside, above), and Latin-1 signs but
                // for ª µ º and the numbers ² ³ ¹ ¼ ½ ¾: neither letters, numbers nor marks.
                if (v >= 0x2000 && v <= 0x206F) || (v < 0xC0 && Self.latin1WordSigns >> UInt64(v - 0x80) & 1 == 0) {
                    break
                }
                let properties = scalar.properties
                if properties.isAlphabetic || properties.numericType != nil {
                    let isUpper = properties.isUppercase
                    if splitHashtags, inHashtag, count > 0, afterDigit || (isUpper && afterLowercase) { flush() }
                    if properties.changesWhenLowercased {
                        var lowercase = properties.lowercaseMapping
                        lowercase.withUTF8 { append($0[...]) }
                    } else {
                        append(bytes[i..<end])
                    }
                    afterLowercase = properties.isLowercase
                    afterUppercase = false
                    afterDigit = false
                    return end
                }
                if count > 0, Self.isCombiningMark(scalar, properties) {
                    append(bytes[i..<end])
                    return end
                }
            }
            flush()
            inHashtag = false
            return end
        }

        /// The scalars from U+0080 to U+00BF that are letters or numbers (ª ² ³ µ ¹ º ¼ ½ ¾),
        /// as bits of their offset from U+0080.
        static let latin1WordSigns: UInt64 = [0xAA, 0xB2, 0xB3, 0xB5, 0xB9, 0xBA, 0xBC, 0xBD, 0xBE].reduce(0) {
            $0 | 1 << UInt64($1 - 0x80)
        }

        private static func isCombiningMark(_ scalar: Unicode.Scalar, _ properties: Unicode.Scalar.Properties) -> Bool {
            // Variation selectors are marks too, but they belong to emoji, not to words.
            if scalar.value >= 0xFE00 && scalar.value <= 0xFE0F { return false }
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return false
            }
        }

        /// The scalar starting at `i` and where it ends.
        private func decode(at i: Int) -> (Unicode.Scalar, Int) {
            UTF8Scalars.scalar(bytes, at: i)
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

    /// How many of eight bytes (the first in the low byte) are ASCII letters and digits
    /// before any other byte, and the eight bytes with their letters lowercased (digits
    /// unchanged), from arithmetic on all eight at once: a word's letters without a test per
    /// byte. `letters` and `digits` have bit 7 of each byte set where that byte is one.
    @inline(__always)
    static func alphanumericRun(
        _ eight: UInt64
    ) -> (length: Int, lowercase: UInt64, letters: UInt64, digits: UInt64) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        // Each byte below 0x80 plus a constant below 0x80 stays within its byte, so its
        // bit 7 tells whether it reached the bound.
        let seven = eight & ~highs
        let folded = seven | (ones &* 0x20)
        let atLeastA = (folded &+ ones &* (0x80 - 0x61)) & highs
        let aboveZ = (folded &+ ones &* (0x7F - 0x7A)) & highs
        let atLeastZero = (seven &+ ones &* (0x80 - 0x30)) & highs
        let aboveNine = (seven &+ ones &* (0x7F - 0x39)) & highs
        let ascii = ~eight & highs
        let letters = atLeastA & ~aboveZ & ascii
        let digits = atLeastZero & ~aboveNine & ascii
        let length = (~(letters | digits) & highs).trailingZeroBitCount >> 3
        return (length, eight | ones &* 0x20, letters, digits)
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
        var copy = word
        return copy.withUTF8 { source in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: source.count + stemMargin) { buffer in
                let count = stem(source, into: buffer)
                return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<count]), as: UTF8.self)
            }
        }
    }

    /// The room ``stem(_:into:)`` needs beyond its word: an irregular plural's singular, which
    /// it starts from, is at most one byte longer ("fungi", "fungus").
    static let stemMargin = 8

    /// ``stem(_:)`` of the word whose UTF-8 bytes are `word`, written to the start of
    /// `buffer` (at least ``stemMargin`` bytes longer than `word`); returns its length.
    static func stem(_ word: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var length = word.count
        if var singular = irregularSingular(of: word) {
            while let further = singular.withUnsafeBufferPointer(irregularSingular) { singular = further }
            length = singular.count
            precondition(length <= buffer.count)
            _ = UnsafeMutableBufferPointer(rebasing: buffer[..<length]).initialize(fromContentsOf: singular)
        } else {
            _ = UnsafeMutableBufferPointer(rebasing: buffer[..<length]).initialize(fromContentsOf: word)
        }
        var w = Stem(bytes: buffer, count: length, length: length)
        w.reduce()
        return w.count
    }

    /// ``irregularPlurals``' plurals, each packed in a `UInt64` by ``packed(_:)``, and their
    /// singulars' bytes at the same index: words are looked up without making strings.
    private static let irregularKeys: [UInt64] = irregularPlurals.keys.sorted().map { key in
        Array(key.utf8).withUnsafeBufferPointer { packed($0)! }
    }
    private static let irregularSingulars: [[UInt8]] = irregularPlurals.keys.sorted().map {
        Array(irregularPlurals[$0]!.utf8)
    }

    /// The first letters and lengths of ``irregularPlurals``' plurals: for each letter a to z,
    /// eight bits, one for each length from 1 to 8, eight letters to an integer.
    private static let irregularShapes: (UInt64, UInt64, UInt64, UInt64) = {
        var shapes: [UInt64] = [0, 0, 0, 0]
        for plural in irregularPlurals.keys {
            let utf8 = Array(plural.utf8)
            precondition(utf8.count <= 8 && utf8[0] >= 0x61 && utf8[0] <= 0x7A)
            let letter = UInt64(utf8[0] - 0x61)
            shapes[Int(letter >> 3)] |= 1 << ((letter & 7) * 8 + UInt64(utf8.count - 1))
        }
        return (shapes[0], shapes[1], shapes[2], shapes[3])
    }()

    /// The bytes of a word of one to eight bytes in one integer, the first in the low byte; a
    /// word holds no zero byte, so words of different lengths never meet.
    @inline(__always)
    private static func packed(_ word: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard word.count <= 8 else { return nil }
        var key: UInt64 = 0
        for k in 0..<word.count { key |= UInt64(word[k]) << (8 * UInt64(k)) }
        return key
    }

    /// The singular of `word` when it is one of ``irregularPlurals``. The plurals are
    /// lowercase ASCII letters, which no other string equals, so comparing bytes is comparing
    /// strings.
    static func irregularSingular(of word: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        // Most words differ from every plural in first letter and length.
        guard let first = word.first, first &- 0x61 < 26, word.count <= 8 else { return nil }
        let letter = UInt64(first - 0x61)
        let shapes: UInt64
        switch letter >> 3 {
        case 0: shapes = irregularShapes.0
        case 1: shapes = irregularShapes.1
        case 2: shapes = irregularShapes.2
        default: shapes = irregularShapes.3
        }
        guard shapes >> ((letter & 7) * 8 + UInt64(word.count - 1)) & 1 == 1 else { return nil }
        guard let key = packed(word), let index = irregularKeys.firstIndex(of: key) else {
            return nil
        }
        return irregularSingulars[index]
    }

    /// A word's UTF-8 bytes being stemmed in place; `count` shrinks as suffixes go.
    private struct Stem {
        let bytes: UnsafeMutableBufferPointer<UInt8>
        var count: Int
        /// The word's length before any step.
        let length: Int

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
            if count < length,
                let singular = TermMatching.irregularSingular(of: UnsafeBufferPointer(rebasing: bytes[..<count]))
            {
                // A possessive irregular plural ("children's"): start again from the singular.
                guard singular.count <= length else { return }
                for (k, b) in singular.enumerated() { bytes[k] = b }
                count = singular.count
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

    // MARK: - Looking words up

    /// Distinct words, found again from the UTF-8 bytes a ``WordScanner`` hands
    /// over, without making a string of them.
    ///
    /// Words are told apart as Swift strings are (canonical equivalence: "café" precomposed
    /// and decomposed are one word). The words are lowercased ones, as
    /// ``words(in:splitHashtags:)`` and ``stem(_:)`` give them, and such a word in ASCII, the
    /// most common kind, equals no string but the same bytes (of ASCII, only K, ; and ` have
    /// other spellings, the Kelvin sign among them, and no such word holds one), so it is
    /// found by hashing its bytes; a word with other bytes is made a string and looked up in
    /// a dictionary. The ASCII words live in memory of the index's own, read through
    /// pointers: a lookup touches no reference count.
    final class WordIndex: @unchecked Sendable {
        // The memory below is written in `init` only and freed in `deinit`.

        /// The distinct words, by id: the first spelling met of each.
        let words: [String]
        /// The id of each word given to ``init(_:)``, in order.
        let ids: [Int]
        /// The ASCII words' bytes, one after another; `starts[k]` is where entry `k`
        /// starts, `starts[k + 1]` where it ends, `entryIDs[k]` its id, `hashes[k]` its hash.
        private let bytes: UnsafeMutablePointer<UInt8>
        private let starts: UnsafeMutablePointer<Int>
        private let entryIDs: UnsafeMutablePointer<Int>
        private let hashes: UnsafeMutablePointer<UInt64>
        /// Open addressing over the entries: an entry, or -1.
        private let slots: UnsafeMutablePointer<Int>
        private let mask: Int
        /// A bit for each ASCII word, picked by the top eight bits of its hash (a Bloom filter
        /// of one hash): most words looked up are none of the index's, and most of those miss
        /// a bit here before any table is read.
        private let bloom: (UInt64, UInt64, UInt64, UInt64)
        private let nonASCII: [String: Int]

        /// An index of `words`; ``ids`` gives each word's id, equal words sharing one.
        init(_ words: [String]) {
            var distinct: [String] = []
            var idOf: [String: Int] = [:]
            var ids: [Int] = []
            ids.reserveCapacity(words.count)
            for word in words {
                if let id = idOf[word] {
                    ids.append(id)
                } else {
                    idOf[word] = distinct.count
                    ids.append(distinct.count)
                    distinct.append(word)
                }
            }
            self.words = distinct
            self.ids = ids

            var asciiBytes: [UInt8] = []
            var asciiStarts: [Int] = [0]
            var asciiIDs: [Int] = []
            var nonASCII: [String: Int] = [:]
            for (id, word) in distinct.enumerated() {
                if word.utf8.allSatisfy({ $0 < 0x80 }) {
                    asciiBytes.append(contentsOf: word.utf8)
                    asciiStarts.append(asciiBytes.count)
                    asciiIDs.append(id)
                } else {
                    nonASCII[word] = id
                }
            }
            self.nonASCII = nonASCII
            bytes = .allocate(capacity: max(asciiBytes.count, 1))
            bytes.initialize(from: asciiBytes, count: asciiBytes.count)
            starts = .allocate(capacity: asciiStarts.count)
            starts.initialize(from: asciiStarts, count: asciiStarts.count)
            entryIDs = .allocate(capacity: max(asciiIDs.count, 1))
            entryIDs.initialize(from: asciiIDs, count: asciiIDs.count)
            hashes = .allocate(capacity: max(asciiIDs.count, 1))
            var size = 8
            while size < 2 * asciiIDs.count { size *= 2 }
            mask = size - 1
            slots = .allocate(capacity: size)
            slots.initialize(repeating: -1, count: size)
            var bloom: [UInt64] = [0, 0, 0, 0]
            for k in asciiIDs.indices {
                let hash = Self.hash(UnsafeBufferPointer(start: bytes + asciiStarts[k], count: asciiStarts[k + 1] - asciiStarts[k]))
                (hashes + k).initialize(to: hash)
                bloom[Int(hash >> 62)] |= 1 << (hash >> 56 & 63)
                var slot = Int(truncatingIfNeeded: hash) & mask
                while slots[slot] >= 0 { slot = (slot + 1) & mask }
                slots[slot] = k
            }
            self.bloom = (bloom[0], bloom[1], bloom[2], bloom[3])
        }

        deinit {
            bytes.deallocate()
            starts.deallocate()
            entryIDs.deallocate()
            hashes.deallocate()
            slots.deallocate()
        }

        /// FNV-1a over the bytes.
        @inline(__always)
        private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            return hash ^ (hash >> 29)
        }

        /// The id of the word spelled by `word` (UTF-8), or `nil` when it is none of them.
        @inline(__always)
        func id(of word: UnsafeBufferPointer<UInt8>) -> Int? {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            var high: UInt8 = 0
            for byte in word {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
                high |= byte
            }
            guard high < 0x80 else { return nonASCII[String(decoding: word, as: UTF8.self)] }
            hash ^= hash >> 29
            let lowHalf = hash >> 62 & 1 == 0 ? bloom.0 : bloom.1
            let highHalf = hash >> 62 & 1 == 0 ? bloom.2 : bloom.3
            let bits = hash >> 63 == 0 ? lowHalf : highHalf
            guard bits >> (hash >> 56 & 63) & 1 == 1 else { return nil }
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let k = slots[slot]
                if k < 0 { return nil }
                if hashes[k] == hash {
                    let start = starts[k]
                    if starts[k + 1] - start == word.count,
                        word.isEmpty || memcmp(bytes + start, word.baseAddress!, word.count) == 0
                    {
                        return entryIDs[k]
                    }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Values made from dataset text (an item's expected text, terms or post text), kept so
    /// that the answers of one item share them: a lock-protected open-addressing table of up to
    /// `limit` entries, emptied when full. Keys are compared by their UTF-8 bytes, and hashed
    /// on their lengths and at most 32 bytes of each string (the first and last 16), which
    /// tell dataset texts apart cheaply.
    final class PreparedCache<Value: Sendable>: @unchecked Sendable {
        // `slots` and `count` are read and written under `lock` only.
        private let lock = NSLock()
        private var slots: [Slot?]
        private var count = 0
        private let limit: Int
        private let mask: Int

        private struct Slot {
            let hash: UInt64
            let strings: [String]
            let value: Value
        }

        init(limit: Int = 512) {
            var size = 8
            while size < 2 * limit { size *= 2 }
            self.limit = limit
            mask = size - 1
            slots = [Slot?](repeating: nil, count: size)
        }

        /// The value for `string`, made by `make` the first time it is asked for.
        func value(for string: String, _ make: () -> Value) -> Value {
            let hash = Self.hash(string, into: 0xCBF2_9CE4_8422_2325)
            return value(hash: hash, matches: { $0.count == 1 && Self.sameBytes($0[0], string) }, strings: [string], make)
        }

        /// The value for `strings`, made by `make` the first time they are asked for.
        func value(for strings: [String], _ make: () -> Value) -> Value {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(strings.count)
            for string in strings { hash = Self.hash(string, into: hash) }
            return value(
                hash: hash,
                matches: { stored in
                    guard stored.count == strings.count else { return false }
                    for (x, y) in zip(stored, strings) where !Self.sameBytes(x, y) { return false }
                    return true
                }, strings: strings, make)
        }

        @inline(__always)
        private func value(
            hash: UInt64, matches: ([String]) -> Bool, strings: @autoclosure () -> [String], _ make: () -> Value
        ) -> Value {
            lock.lock()
            var index = Int(truncatingIfNeeded: hash) & mask
            while let slot = slots[index] {
                if slot.hash == hash, matches(slot.strings) {
                    lock.unlock()
                    return slot.value
                }
                index = (index + 1) & mask
            }
            lock.unlock()
            let value = make()
            let made = Slot(hash: hash, strings: strings(), value: value)
            lock.lock()
            if count >= limit {
                for k in slots.indices { slots[k] = nil }
                count = 0
            }
            index = Int(truncatingIfNeeded: hash) & mask
            while let slot = slots[index] {
                // Made meanwhile on another thread.
                if slot.hash == hash, matches(slot.strings) { break }
                index = (index + 1) & mask
            }
            if slots[index] == nil { count += 1 }
            slots[index] = made
            lock.unlock()
            return value
        }

        /// Whether `a` and `b` hold the same bytes: at once when they share their storage,
        /// as the answers of one item share its strings.
        private static func sameBytes(_ a: String, _ b: String) -> Bool {
            guard a.utf8.count == b.utf8.count else { return false }
            if let same = a.utf8.withContiguousStorageIfAvailable({ x in
                b.utf8.withContiguousStorageIfAvailable { y in
                    x.baseAddress == y.baseAddress || x.isEmpty
                        || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
                }
            }), let same {
                return same
            }
            return a.utf8.elementsEqual(b.utf8)
        }

        /// A hash of `string`'s length and of its first and last 16 bytes, continuing `hash`.
        private static func hash(_ string: String, into hash: UInt64) -> UInt64 {
            @inline(__always) func mix(_ hash: UInt64, _ value: UInt64) -> UInt64 {
                (hash ^ value) &* 0x9E37_79B9_7F4A_7C15 ^ (hash >> 31)
            }
            var string = string
            return string.withUTF8 { bytes in
                let count = bytes.count
                var hash = mix(hash, UInt64(count))
                guard let base = bytes.baseAddress else { return hash }
                if count >= 16 {
                    let raw = UnsafeRawPointer(base)
                    hash = mix(hash, raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                    hash = mix(hash, raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    hash = mix(hash, raw.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self))
                    hash = mix(hash, raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
                } else {
                    // Up to 15 bytes, as two integers.
                    var words: (UInt64, UInt64) = (0, 0)
                    withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: UnsafeRawBufferPointer(bytes)) }
                    hash = mix(mix(hash, words.0), words.1)
                }
                return hash
            }
        }
    }
}
