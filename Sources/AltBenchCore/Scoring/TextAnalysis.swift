import Foundation

/// Text helpers the scorers share: words, sentence boundaries and the model's own voice.
///
/// Everything works on `Character`s (grapheme clusters), so an "é" written as "e" plus a
/// combining accent is one letter, and offsets in ``Word/range`` count `Character`s of the
/// analysed text. No regular expressions: the scorers run once per answer over thousands of
/// answers, and a character scan is both faster and easier to reason about for these rules.
public enum TextAnalysis {
    /// One word of a text: letters and digits, joined across inner apostrophes and hyphens.
    public struct Word: Sendable, Hashable {
        /// The word as written, e.g. "I’m" or "T-shirt".
        public var text: String
        /// The word lowercased, with curly apostrophes made straight: "i'm".
        public var normalized: String
        /// Where the word sits, in `Character` offsets into the analysed text.
        public var range: Range<Int>

        public init(text: String, normalized: String, range: Range<Int>) {
            self.text = text
            self.normalized = normalized
            self.range = range
        }

        /// Whether the first letter is uppercase ("We", "I", "US").
        public var isCapitalized: Bool { text.first?.isUppercase ?? false }

        /// Whether the word has more than one letter and all of them are uppercase: shouted
        /// sign text ("WE ARE OPEN") and acronyms ("US", "ME" for Maine), never "I".
        public var isAllCaps: Bool {
            var letters = 0
            for c in text where c.isLetter {
                guard c.isUppercase else { return false }
                letters += 1
            }
            return letters > 1
        }
    }

    // MARK: - Characters

    /// Whether `c` is an apostrophe: straight ', curly ’ (U+2019) or modifier ʼ (U+02BC).
    public static func isApostrophe(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a == 0x27 }
        return c == "\u{2019}" || c == "\u{02BC}"
    }

    // The predicates below test an ASCII character by its byte first: comparing Characters
    // is a string comparison, and these run for every character of every answer.

    /// `c.isNewline`, with ASCII decided by its byte ("\r\n" is one Character).
    @inline(__always) static func isNewline(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a >= 0x0A && a <= 0x0D }
        return c.isNewline
    }

    /// `c.isWhitespace`, with ASCII decided by its byte.
    @inline(__always) static func isSpace(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a == 0x20 || (a >= 0x09 && a <= 0x0D) }
        return c.isWhitespace
    }

    /// Whether `c` ends a sentence: . ! ? … and their full-width and CJK forms.
    public static func isSentenceTerminator(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a == 0x2E || a == 0x21 || a == 0x3F }
        return switch c {
        case ".", "!", "?", "\u{2026}", "\u{203C}", "\u{2047}", "\u{2048}", "\u{2049}",
             "\u{3002}", "\u{FF01}", "\u{FF0E}", "\u{FF1F}":
            true
        default:
            false
        }
    }

    /// Whether `c` may follow a sentence's final punctuation: closing quotes and brackets.
    public static func isClosingMark(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a == 0x22 || a == 0x27 || a == 0x29 || a == 0x5D || a == 0x7D }
        return switch c {
        case "\"", "'", "\u{201D}", "\u{2019}", "\u{00BB}", "\u{203A}", "\u{300D}", "\u{300F}",
             ")", "]", "}":
            true
        default:
            false
        }
    }

    static func isOpeningMark(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a == 0x22 || a == 0x27 || a == 0x28 || a == 0x5B || a == 0x7B }
        return switch c {
        case "\"", "'", "\u{201C}", "\u{2018}", "\u{201E}", "\u{00AB}", "\u{2039}", "\u{300C}",
             "\u{300E}", "(", "[", "{":
            true
        default:
            false
        }
    }

    static func isHyphen(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a == 0x2D }
        return c == "\u{2010}" || c == "\u{2011}"
    }

    static func isDash(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a == 0x2D }
        return isHyphen(c) || c == "\u{2012}" || c == "\u{2013}" || c == "\u{2014}" || c == "\u{2015}"
    }

    static func isWordCharacter(_ c: Character) -> Bool {
        // ASCII first: the Unicode property lookup is most of the cost of a scan.
        if let ascii = c.asciiByte {
            let folded = ascii | 0x20
            return (ascii >= 48 && ascii <= 57) || (folded >= 97 && folded <= 122)
        }
        return c.isLetter || c.isNumber
    }

    /// Markdown that may precede the first word without hiding it ("**Image of**", "> I'm",
    /// "- The image shows", "• The image shows").
    static func isLeadingMarkup(_ c: Character) -> Bool {
        if let a = c.asciiByte {
            return isSpace(c) || a == 0x2A || a == 0x5F || a == 0x23 || a == 0x3E || a == 0x2D || a == 0x2B
        }
        return c.isWhitespace || c == "\u{2022}"
    }

    // MARK: - Words

    /// The words of `text`, in order.
    ///
    /// A word is a run of letters and digits; an apostrophe (straight or curly) or a hyphen
    /// between two such characters stays inside it, so "I’m", "we've", "T-shirt" and
    /// "Image-of-the-day" are one word each, while the quotes in 'Open' are not part of it.
    public static func words(in text: String) -> [Word] {
        words(in: Array(text))
    }

    /// `text` without leading and trailing whitespace and line breaks: the Unicode White_Space
    /// scalars, which are Foundation's `whitespacesAndNewlines`.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    /// The characters and words of `text`, split once for all scorers.
    static func split(_ text: String) -> (characters: [Character], words: [Word]) {
        let characters = Array(text)
        return (characters, words(in: characters))
    }

    /// The first `limit` words of `chars` (all of them by default).
    static func words(in chars: [Character], limit: Int = .max) -> [Word] {
        // Each word's text is cut from the characters' UTF-8: `offsets[k]` is where character
        // k starts in `bytes`.
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        bytes.reserveCapacity(chars.count)
        offsets.reserveCapacity(chars.count + 1)
        for c in chars {
            offsets.append(bytes.count)
            bytes.append(contentsOf: c.utf8)
        }
        offsets.append(bytes.count)
        var result: [Word] = []
        let n = chars.count
        var i = 0
        while i < n, result.count < limit {
            guard isWordCharacter(chars[i]) else {
                i += 1
                continue
            }
            let start = i
            i += 1
            while i < n {
                if isWordCharacter(chars[i]) {
                    i += 1
                } else if (isApostrophe(chars[i]) || isHyphen(chars[i])) && i + 1 < n
                    && isWordCharacter(chars[i + 1])
                {
                    i += 2
                } else {
                    break
                }
            }
            let text = String(decoding: bytes[offsets[start]..<offsets[i]], as: UTF8.self)
            result.append(Word(text: text, normalized: normalize(text), range: start..<i))
        }
        return result
    }

    /// `text` lowercased, with every apostrophe made straight, for comparing with word lists.
    public static func normalize(_ text: some StringProtocol) -> String {
        let lower = text.lowercased()
        let curly: (Unicode.Scalar) -> Bool = { $0 == "\u{2019}" || $0 == "\u{02BC}" }
        guard lower.unicodeScalars.contains(where: curly) else { return lower }
        return String(String.UnicodeScalarView(lower.unicodeScalars.map { curly($0) ? "'" : $0 }))
    }

    /// Whether `words[from...]` spells `pattern` (normalized words) with only whitespace
    /// between them, so "image of" matches "Image  of" but not "Image: of" or "Image-of".
    static func matches(
        _ pattern: [String], in words: [Word], from: Int, chars: [Character]
    ) -> Bool {
        matches(pattern, in: words[...], from: from, chars: chars)
    }

    /// ``matches(_:in:from:chars:)`` over the leading words of a text, indexed from 0.
    static func matches(
        _ pattern: [String], in words: ArraySlice<Word>, from: Int, chars: [Character]
    ) -> Bool {
        precondition(words.startIndex == 0, "word positions count from the first word")
        guard from + pattern.count <= words.count else { return false }
        for (k, expected) in pattern.enumerated() {
            let word = words[from + k]
            guard word.normalized == expected else { return false }
            if k > 0, !areAdjacent(words[from + k - 1], word, in: chars) { return false }
        }
        return true
    }

    /// Whether only whitespace separates `first` from the later word `second`.
    static func areAdjacent(_ first: Word, _ second: Word, in chars: [Character]) -> Bool {
        onlyWhitespace(chars, first.range.upperBound..<second.range.lowerBound)
    }

    static func onlyWhitespace(_ chars: [Character], _ range: Range<Int>) -> Bool {
        chars[range].allSatisfy(isSpace)
    }

    /// Whether the first word of `chars` opens the text, with at most markdown before it.
    static func startsWithWord(_ chars: [Character], words: [Word]) -> Bool {
        startsWithWord(chars, words: words[...])
    }

    static func startsWithWord(_ chars: [Character], words: ArraySlice<Word>) -> Bool {
        guard let first = words.first else { return false }
        return chars[0..<first.range.lowerBound].allSatisfy(isLeadingMarkup)
    }

    // MARK: - Sentences

    /// Whether `text` ends a sentence: . ! ? or an ellipsis, optionally followed by closing
    /// quotes and brackets (`A sign reading “Open.”`).
    public static func endsWithTerminalPunctuation(_ text: String) -> Bool {
        for c in text.reversed() {
            if isSpace(c) || isClosingMark(c) || c == "*" || c == "_" { continue }
            return isSentenceTerminator(c)
        }
        return false
    }

    /// Whether the character at `index` opens a sentence or a line: nothing but spaces,
    /// list markers and opening quotes or brackets since the last . ! ? : or line break.
    static func isSentenceStart(_ chars: [Character], at index: Int) -> Bool {
        var j = index - 1
        while j >= 0 {
            let c = chars[j]
            if isNewline(c) { return true }
            if isSpace(c) || isOpeningMark(c) || isClosingMark(c) || isDash(c) || c == "*"
                || c == "_" || c == "#" || c == "\u{2022}"
            {
                j -= 1
                continue
            }
            return isSentenceTerminator(c) || c == ":"
        }
        return true
    }

    // MARK: - Quotations

    /// A quoted span found by ``quotedSpans(in:)``.
    struct QuotedSpan: Sendable, Hashable {
        /// From the opening mark to the closing mark inclusive, or to the end of the
        /// sentence or line when the quote is never closed.
        var range: Range<Int>
        var opener: Character
        var isClosed: Bool
    }

    private enum QuoteKind {
        case doubleStraight, doubleCurly, doubleLow, single, guillemet, singleGuillemet
        case corner, whiteCorner
    }

    /// The kind of quotation that opens at `i`, if one does.
    ///
    /// Straight and curly single quotes double as apostrophes (What’s, dogs’, '90s, 5'11"),
    /// so a single quote opens a span only on ‘ followed by a non-space, or on ' that
    /// follows a non-letter and precedes a letter. A straight double quote right after a
    /// digit is an inch mark (a 12" record), not a quotation.
    private static func openingQuote(_ chars: [Character], at i: Int) -> QuoteKind? {
        // A mark with nothing after it closes something (a stray closing quote); it opens nothing.
        guard let mark = onlyScalar(chars[i]), i + 1 < chars.count else { return nil }
        let previous: Character? = i > 0 ? chars[i - 1] : nil
        let next: Character? = chars[i + 1]
        switch mark {
        case "\"":
            // After a digit an inch mark (a 12" record); between letters a mistyped apostrophe (l"eau).
            if previous?.isNumber == true || (previous?.isLetter == true && next?.isLetter == true) { return nil }
            return .doubleStraight
        case "\u{201C}":
            return .doubleCurly
        case "\u{201E}":
            return .doubleLow
        case "\u{2018}":
            guard let next, !next.isWhitespace else { return nil }
            return .single
        case "'":
            guard let next, next.isLetter else { return nil }
            if let previous, isWordCharacter(previous) { return nil }
            return .single
        case "\u{00AB}":
            return .guillemet
        case "\u{2039}":
            return .singleGuillemet
        case "\u{300C}":
            return .corner
        case "\u{300E}":
            return .whiteCorner
        default:
            return nil
        }
    }

    /// The scalar of `c` when `c` is that one scalar, as every quotation mark is: marks are
    /// then compared as scalars, not as strings.
    private static func onlyScalar(_ c: Character) -> Unicode.Scalar? {
        let scalars = c.unicodeScalars
        return scalars.index(after: scalars.startIndex) == scalars.endIndex ? scalars.first : nil
    }

    /// Whether the character at `j` closes a quotation of `kind`. A single quote closes only
    /// when no letter follows, since ’ inside "I’m" or "What’s" is an apostrophe.
    private static func closes(_ kind: QuoteKind, _ chars: [Character], at j: Int) -> Bool {
        guard let mark = onlyScalar(chars[j]) else { return false }
        switch kind {
        case .doubleStraight:
            return mark == "\""
        case .doubleCurly:
            return mark == "\u{201D}"
        case .doubleLow:
            return mark == "\u{201C}" || mark == "\u{201D}" || mark == "\""
        case .single:
            guard mark == "\u{2019}" || mark == "'" else { return false }
            return j + 1 == chars.count || !chars[j + 1].isLetter
        case .guillemet:
            return mark == "\u{00BB}"
        case .singleGuillemet:
            return mark == "\u{203A}"
        case .corner:
            return mark == "\u{300D}"
        case .whiteCorner:
            return mark == "\u{300F}"
        }
    }

    /// The quoted spans of `chars`, left to right, not nested.
    ///
    /// A quotation ends at its closing mark on the same line; one that is never closed runs
    /// to the end of its sentence or line, so a stray mark hides little of the rest. The
    /// exception is a quotation still open where the text stops mid-sentence: the answer was
    /// cut off inside it (a small `max_tokens` ends a transcription anywhere), so everything
    /// after its mark is the quotation.
    static func quotedSpans(in chars: [Character]) -> [QuotedSpan] {
        var spans: [QuotedSpan] = []
        let n = chars.count
        var i = 0
        while i < n {
            guard let kind = openingQuote(chars, at: i) else {
                i += 1
                continue
            }
            var j = i + 1
            var closedAt: Int?
            while j < n, !isNewline(chars[j]) {
                if closes(kind, chars, at: j) {
                    closedAt = j
                    break
                }
                j += 1
            }
            if let closedAt {
                spans.append(QuotedSpan(range: i..<(closedAt + 1), opener: chars[i], isClosed: true))
                i = closedAt + 1
            } else if j == n, !endsWithTerminalPunctuation(String(chars[(i + 1)...])) {
                spans.append(QuotedSpan(range: i..<n, opener: chars[i], isClosed: false))
                i = n
            } else {
                var end = i + 1
                while end < n, !isSentenceTerminator(chars[end]), !isNewline(chars[end]) {
                    end += 1
                }
                spans.append(QuotedSpan(range: i..<end, opener: chars[i], isClosed: false))
                i = end
            }
        }
        return spans
    }

    // MARK: - Own voice

    /// Words after which the rest of the sentence is text seen in the image, not the
    /// model's own words ("A plaque that says I was here.", "A sign: WE ARE OPEN").
    static let reportingWords: Set<String> = [
        "read", "reads", "reading", "say", "says", "said", "saying", "state", "states",
        "stating", "label", "labels", "labelled", "labeled", "caption", "captioned",
        "title", "titled", "entitled", "text", "sign", "signs", "inscribed", "inscription",
        "written", "printed", "lettering", "slogan", "message", "words",
    ]

    /// Phrases that, on a line ending with a colon, announce a transcription: the lines after
    /// it are text seen in the image ("OCR output for the image:", "图片中的文字内容如下：").
    static let transcriptionMarkers = [
        "ocr", "transcri", "handwrit", "the text", "text in the image", "text on the", "text reads", "文字", "内容如下",
        "写着", "書かれ", "テキスト", "텍스트",
    ]

    /// Stretches of `chars` that are transcribed or code, not the model's own words: fenced
    /// code blocks (```…```), and everything after a line that announces a transcription and
    /// ends with a colon.
    static func transcribedBlocks(_ chars: [Character]) -> [Range<Int>] {
        var blocks: [Range<Int>] = []
        var i = 0
        var fenceStart: Int?
        var lineStart = 0
        while i <= chars.count {
            let atEnd = i == chars.count
            if atEnd || isNewline(chars[i]) {
                let line = chars[lineStart..<i]
                let trimmed = line.drop(while: isSpace)
                if trimmed.starts(with: ["`", "`", "`"]) {
                    if let start = fenceStart {
                        blocks.append(start..<i)
                        fenceStart = nil
                    } else {
                        fenceStart = lineStart
                    }
                } else if fenceStart == nil, let last = line.last(where: { !isSpace($0) }), last == ":" || last == "\u{FF1A}" {
                    let lower = String(line).lowercased()
                    if transcriptionMarkers.contains(where: lower.contains), !atEnd {
                        blocks.append((i + 1)..<transcriptionEnd(chars, from: i + 1))
                        return blocks
                    }
                }
                lineStart = i + 1
            }
            i += 1
        }
        if let start = fenceStart { blocks.append(start..<chars.count) }
        return blocks
    }

    /// Openings of a paragraph in which the model speaks again after a transcription: "The
    /// image shows …", "I hope this helps", "Overall, …".
    static let resumingWords: Set<String> = ["the", "this", "these", "i", "overall", "in", "let", "if", "hope", "note"]

    /// Where a transcription that starts at `start` ends: at a paragraph break followed by a
    /// paragraph in the model's own voice (``resumingWords``), else at the end of the text.
    static func transcriptionEnd(_ chars: [Character], from start: Int) -> Int {
        var i = start
        var seenText = false
        while i < chars.count {
            if isNewline(chars[i]), seenText {
                var j = i + 1
                while j < chars.count, isSpace(chars[j]), !isNewline(chars[j]) { j += 1 }
                if j < chars.count, isNewline(chars[j]) {
                    let rest = Array(chars[j...])
                    if let first = words(in: rest, limit: 1).first,
                        chars[j..<(j + first.range.lowerBound)].allSatisfy(isSpace),
                        resumingWords.contains(first.normalized), first.isCapitalized
                    {
                        return j
                    }
                }
            }
            if !isSpace(chars[i]) { seenText = true }
            i += 1
        }
        return chars.count
    }

    /// `text` without what it reports: quoted spans ("…", “…”, ‘…’, «…») and, after a
    /// reporting word (reads, says, labelled, captioned, titled, text, sign, …), the rest of
    /// that sentence. What is left is the model's own voice, which the voice checks judge.
    ///
    /// Removed stretches become one space each. A sentence end just inside a closing quote
    /// (`“Open.”`) is kept, so the sentence after the quote still starts a sentence. When a
    /// sentence reports a quotation, only the quotation is reported:
    /// `A sign reads “Open” and I think…` keeps "and I think…".
    public static func ownVoice(_ text: String) -> String {
        let chars = Array(text)
        guard let voice = ownVoice(characters: chars, words: words(in: chars), quotedSpans: quotedSpans(in: chars))
        else { return text }
        return String(voice)
    }

    /// The characters of ``ownVoice(_:)`` of the text whose characters, words
    /// (``words(in:)``) and quoted spans (``quotedSpans(in:)``) are given; `nil` when that
    /// voice is the whole text, nothing being removed.
    static func ownVoice(characters chars: [Character], words: [Word], quotedSpans spans: [QuotedSpan]) -> [Character]? {
        var removed = [Bool](repeating: false, count: chars.count)
        var spanStarts = Set<Int>()
        for span in spans {
            spanStarts.insert(span.range.lowerBound)
            for k in span.range { removed[k] = true }
            let last = span.range.upperBound - 2
            if span.isClosed, last > span.range.lowerBound, isSentenceTerminator(chars[last]) {
                removed[last] = false
            }
        }

        for range in transcribedBlocks(chars) {
            for k in range { removed[k] = true }
        }

        for word in words where reportingWords.contains(word.normalized) && !removed[word.range.lowerBound] {
            var j = word.range.upperBound
            while j < chars.count,
                (isSpace(chars[j]) && !isNewline(chars[j])) || chars[j] == ":" || chars[j] == ","
                    || isDash(chars[j])
            {
                j += 1
            }
            guard j < chars.count, !isNewline(chars[j]), !isSentenceTerminator(chars[j]),
                openingQuote(chars, at: j) == nil
            else { continue }
            var end = j
            while end < chars.count, !isSentenceTerminator(chars[end]), !isNewline(chars[end]),
                !spanStarts.contains(end)
            {
                end += 1
            }
            for k in word.range.upperBound..<end { removed[k] = true }
        }
        guard removed.contains(true) else { return nil }

        var voice: [Character] = []
        voice.reserveCapacity(chars.count)
        var inGap = false
        for (c, isRemoved) in zip(chars, removed) {
            if isRemoved {
                if !inGap { voice.append(" ") }
                inGap = true
            } else {
                voice.append(c)
                inGap = false
            }
        }
        return voice
    }
}

extension Character {
    /// `asciiValue`, read from the UTF-8 bytes. The standard property first compares the
    /// character with "\r\n" as a string, which costs more than the rest of a scan; this
    /// reads one or two bytes and gives the same answer, LF for "\r\n" included.
    @inline(__always) var asciiByte: UInt8? {
        let utf8 = self.utf8
        guard let first = utf8.first, first < 0x80 else { return nil }
        let count = utf8.count
        if count == 1 { return first }
        return count == 2 && first == 0x0D && utf8.last == 0x0A ? 0x0A : nil
    }
}
