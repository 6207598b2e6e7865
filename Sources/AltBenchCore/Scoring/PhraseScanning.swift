// Phrase and byte scanning that meta_label, filename and markdown still use for their
// prefilters. perception_meta reads its rule plainly over the shared analysis and uses none of
// it; this file goes once those scorers no longer need it.

/// Phrase matching and word sets shared with `meta_label`, kept under the name they had.
extension PerceptionMetaScorer {
    /// `phrases` grouped by first word, longest first within each group.
    static func index(_ phrases: [[String]]) -> [String: [[String]]] {
        var result: [String: [[String]]] = [:]
        for phrase in phrases { result[phrase[0], default: []].append(phrase) }
        for key in result.keys { result[key]?.sort { $0.count > $1.count } }
        return result
    }

    /// The index of the first of `words` that starts at or after `Character` offset `char`.
    static func firstWordIndex(atOrAfter char: Int, in words: [TextAnalysis.Word]) -> Int {
        var low = 0
        var high = words.count
        while low < high {
            let mid = (low + high) / 2
            if words[mid].range.lowerBound < char { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Whether ``TextAnalysis/ownVoice(_:)`` would keep all of `input`'s text: it has no
    /// quotation and no reporting word. Much cheaper than computing the voice, and exact.
    static func isAllOwnVoice(_ input: ScoringInput) -> Bool {
        var text = input.text
        if text.withUTF8(mayHoldQuotation), !input.quotedSpans.isEmpty {
            return false
        }
        return !input.words.contains { TextAnalysis.reportingWords.contains($0.normalized) }
    }

    /// Whether the UTF-8 `bytes` may hold a quotation mark: a straight quote, or the lead
    /// byte of the curly, low and angle quotation marks and the CJK corner brackets (which
    /// other characters share, so `true` is only a maybe). `false` rules out every span
    /// ``TextAnalysis/quotedSpans(in:)`` would find, at a fraction of its cost.
    static func mayHoldQuotation(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteScan.containsByte(bytes) { v in
            v .== ByteScan.splat("\"") .| v .== ByteScan.splat("'") .| v .== ByteScan.Lanes(repeating: 0xC2)
                .| v .== ByteScan.Lanes(repeating: 0xE2) .| v .== ByteScan.Lanes(repeating: 0xE3)
        }
    }

    /// The word ranges of `words` that spell one of `phrases` (only spaces between the
    /// words), left to right and not overlapping, at most `limit` of them. Unless
    /// `includingSignText`, a phrase with an all-caps word ("WE SEE YOU") or with every word
    /// capitalised ("We See") is sign text or a name and left out.
    static func phraseMatches(
        _ phrases: [String: [[String]]], in words: [TextAnalysis.Word], chars: [Character],
        limit: Int = .max, includingSignText: Bool = false
    ) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var index = 0
        while index < words.count, result.count < limit {
            var matched: Range<Int>?
            if let candidates = phrases[words[index].normalized] {
                for phrase in candidates
                where TextAnalysis.matches(phrase, in: words, from: index, chars: chars) {
                    let range = index..<(index + phrase.count)
                    if includingSignText || !isSignTextOrName(words[range]) { matched = range }
                    break
                }
            }
            if let matched {
                result.append(matched)
                index = matched.upperBound
            } else {
                index += 1
            }
        }
        return result
    }

    /// The first of ``phraseMatches(_:in:chars:limit:includingSignText:)`` at or after word
    /// `start`, for `phrases` indexed by ``PhraseIndex``: the same matches, one at a time.
    static func nextMatch(
        _ phrases: PhraseIndex, in text: some PhraseText, from start: Int, includingSignText: Bool
    ) -> Range<Int>? {
        let words = text.words
        var index = start
        while index < words.count {
            if let candidates = phrases.candidates(for: words[index].normalized) {
                for phrase in candidates where matches(phrase, in: text, from: index) {
                    let range = index..<(index + phrase.count)
                    if includingSignText || !isSignTextOrName(words[range]) { return range }
                    break
                }
            }
            index += 1
        }
        return nil
    }

    /// ``TextAnalysis/matches(_:in:from:chars:)`` over `text`'s words.
    static func matches(_ phrase: [String], in text: some PhraseText, from start: Int) -> Bool {
        let words = text.words
        guard start + phrase.count <= words.count else { return false }
        for (k, expected) in phrase.enumerated() {
            guard words[start + k].normalized == expected else { return false }
            if k > 0, !text.adjacent(start + k) { return false }
        }
        return true
    }

    /// Whether a matched phrase is shouted sign text (an all-caps word) or a title (every
    /// word capitalised, as in "the film We Can See").
    static func isSignTextOrName(_ phrase: ArraySlice<TextAnalysis.Word>) -> Bool {
        phrase.contains(where: isAllCaps) || (phrase.count > 1 && phrase.allSatisfy(isCapitalized))
    }

    /// ``TextAnalysis/Word/isAllCaps``, answered from the bytes when the word is ASCII.
    static func isAllCaps(_ word: TextAnalysis.Word) -> Bool {
        var letters = 0
        for b in word.text.utf8 {
            if b >= 0x80 { return word.isAllCaps }
            if b >= 97 && b <= 122 { return false }
            if b >= 65 && b <= 90 { letters += 1 }
        }
        return letters > 1
    }

    /// ``TextAnalysis/Word/isCapitalized``, answered from the first byte when it is ASCII.
    static func isCapitalized(_ word: TextAnalysis.Word) -> Bool {
        guard let first = word.text.utf8.first, first < 0x80 else { return word.isCapitalized }
        return first >= 65 && first <= 90
    }

    // MARK: - Byte prefilter

    /// A few lowercase ASCII words, for ``containsWord(_:_:)``: each packed as its first
    /// seven bytes and its length, with masks of the lengths and first letters so that most
    /// words of a text are ruled out by two bit tests.
    struct WordSet: Sendable {
        var words: [String]
        var keys: [UInt64]
        var lengths: UInt64 = 0
        var firstLetters: UInt64 = 0

        init(_ words: [String]) {
            self.words = words
            keys = words.map(PerceptionMetaScorer.wordKey)
            for word in words {
                lengths |= 1 << UInt64(min(word.utf8.count, 63))
                firstLetters |= 1 << UInt64(word.utf8.first! & 63)
            }
        }

        /// The index in ``keys`` of `word` (a normalized word), or `nil` when it is none of
        /// the words. Exact for words of up to seven bytes; a longer word is found when its
        /// first seven bytes and its length are those of one of the words.
        @inline(__always)
        func keyIndex(of word: String) -> Int? {
            let utf8 = word.utf8
            guard let first = utf8.first, lengths & (1 << UInt64(min(utf8.count, 63))) != 0,
                firstLetters & (1 << UInt64(first & 63)) != 0
            else { return nil }
            return keys.firstIndex(of: PerceptionMetaScorer.wordKey(word))
        }

        /// Whether `word` is one of the words.
        @inline(__always)
        func contains(_ word: String) -> Bool {
            guard keyIndex(of: word) != nil else { return false }
            return word.utf8.count <= 7 || words.contains(word)
        }
    }

    /// A lowercase ASCII word packed into a ``WordSet`` key: its first seven bytes and its
    /// length.
    static func wordKey(_ word: String) -> UInt64 {
        var key: UInt64 = 0
        var length = 0
        for b in word.utf8 {
            if length < 7 { key |= UInt64(b) << (8 * UInt64(length)) }
            length += 1
        }
        return key | UInt64(min(length, 255)) << 56
    }

    /// Each byte lowercased when it is an ASCII letter or digit, 0 otherwise.
    static let asciiWordBytes: [UInt8] = (0..<256).map { b in
        switch b {
        case 65...90: UInt8(b | 0x20)
        case 97...122, 48...57: UInt8(b)
        default: 0
        }
    }

    /// Whether the UTF-8 `bytes` hold one of `words` as a whole run of ASCII letters and
    /// digits, in any case. A cheap test with no allocation, run before any word-level
    /// work; a hit is only a candidate.
    static func containsWord(_ bytes: UnsafeBufferPointer<UInt8>, _ words: WordSet) -> Bool {
        asciiWordBytes.withUnsafeBufferPointer { table in
            let n = bytes.count
            var i = 0
            while i < n {
                let first = table[Int(bytes[i])]
                guard first != 0 else {
                    i += 1
                    continue
                }
                var j = i + 1
                while j < n, table[Int(bytes[j])] != 0 { j += 1 }
                let length = j - i
                if words.lengths & (1 << UInt64(min(length, 63))) != 0,
                    words.firstLetters & (1 << UInt64(first & 63)) != 0
                {
                    var key = UInt64(min(length, 255)) << 56
                    for k in 0..<min(length, 7) { key |= UInt64(table[Int(bytes[i + k])]) << (8 * UInt64(k)) }
                    if words.keys.contains(key) { return true }
                }
                i = j
            }
            return false
        }
    }
}

// MARK: - Phrases over words

/// Phrases grouped by first word, as ``PerceptionMetaScorer/index(_:)`` groups them, with the
/// first words packed into a ``PerceptionMetaScorer/WordSet`` so that most words of a text
/// are ruled out without hashing.
struct PhraseIndex: Sendable {
    let firstWords: PerceptionMetaScorer.WordSet
    /// The phrases of each first word, longest first, in the order of `firstWords.keys`.
    let groups: [[[String]]]

    init(_ phrases: [[String]]) {
        let byFirstWord = PerceptionMetaScorer.index(phrases)
        var words: [String] = []
        var groups: [[[String]]] = []
        for word in byFirstWord.keys.sorted() {
            // Words longer than seven bytes may share a key, and then their phrases a group:
            // matching compares whole words.
            let key = PerceptionMetaScorer.wordKey(word)
            if let k = words.firstIndex(where: { PerceptionMetaScorer.wordKey($0) == key }) {
                groups[k] = (groups[k] + byFirstWord[word]!).sorted { $0.count > $1.count }
            } else {
                words.append(word)
                groups.append(byFirstWord[word]!)
            }
        }
        firstWords = PerceptionMetaScorer.WordSet(words)
        self.groups = groups
    }

    /// The phrases that may start with `word` (normalized), longest first.
    @inline(__always)
    func candidates(for word: String) -> [[String]]? {
        firstWords.keyIndex(of: word).map { groups[$0] }
    }
}

/// Words to look for phrases in, and what separates them.
protocol PhraseText {
    var words: [TextAnalysis.Word] { get }
    /// Whether only whitespace separates `words[index - 1]` from `words[index]`.
    func adjacent(_ index: Int) -> Bool
    /// `words[range]` as they are written, with what lies between them.
    func written(_ range: Range<Int>) -> String
}

/// A text as written: its words and its characters.
struct WrittenText: PhraseText {
    let words: [TextAnalysis.Word]
    let chars: [Character]

    func adjacent(_ index: Int) -> Bool {
        TextAnalysis.areAdjacent(words[index - 1], words[index], in: chars)
    }

    func written(_ range: Range<Int>) -> String {
        var text = ""
        for c in chars[words[range.lowerBound].range.lowerBound..<words[range.upperBound - 1].range.upperBound] {
            text.append(c)
        }
        return text
    }
}

/// A text's Unicode scalars and its quotations (``TextAnalysis/quotedSpans(in:)``), for a
/// text whose every scalar is a `Character` of its own (no combining mark, joiner or CR LF),
/// so that scalar offsets are `Character` offsets.
struct QuotedText {
    let scalars: [Unicode.Scalar]
    let spans: [TextAnalysis.QuotedSpan]

    /// `nil` when a `Character` of `input` has more than one scalar.
    init?(_ input: ScoringInput) {
        var text = input.text
        let characters = input.characters.count
        guard let quoted = text.withUTF8({ bytes in
            ByteScan.scalarCount(bytes) == characters ? QuotedText(bytes) : nil
        }) else { return nil }
        self = quoted
    }

    /// The quotations of the UTF-8 `bytes`, whose every scalar is a `Character` of its own.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        scalars = ByteScan.scalars(bytes)
        spans = PerceptionMetaScorer.mayHoldQuotation(bytes) ? VoiceText.quotedSpans(scalars) : []
    }

}

/// The model's own voice, ``TextAnalysis/ownVoice(_:)``, read from the written text without
/// building it: the same words, and the same characters between them, as splitting the
/// voice would give.
///
/// ``TextAnalysis/ownVoice(_:)`` removes quotations and what follows a reporting word, and
/// puts one space for each removed stretch. ``read(_:)`` marks the same stretches on the
/// text's Unicode scalars, and keeps the written words that lie wholly outside them. It does
/// so only when every scalar of the text is a `Character` of its own (no combining mark,
/// joiner or CR LF), so that scalar offsets are `Character` offsets and a space put for a
/// removed stretch cannot join a neighbour, and gives up (`nil`) when a stretch ends inside a
/// word, as in "‘Open’1".
struct VoiceText: PhraseText {
    /// The written words the voice keeps, with their written ranges.
    let words: [TextAnalysis.Word]
    let scalars: [Unicode.Scalar]
    /// Whether each scalar is removed from the voice.
    let removed: [Bool]

    enum Reading {
        /// The voice is the written text.
        case unchanged
        case voice(VoiceText)
    }

    func adjacent(_ index: Int) -> Bool {
        for k in words[index - 1].range.upperBound..<words[index].range.lowerBound
        where !removed[k] && !Self.isSpace(scalars[k]) {
            return false
        }
        return true
    }

    func written(_ range: Range<Int>) -> String {
        var utf8: [UInt8] = []
        var inGap = false
        for k in words[range.lowerBound].range.lowerBound..<words[range.upperBound - 1].range.upperBound {
            if removed[k] {
                if !inGap { utf8.append(0x20) }
                inGap = true
            } else {
                UTF8.encode(scalars[k]) { utf8.append($0) }
                inGap = false
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Whether `word` (normalized) is one of ``TextAnalysis/reportingWords``.
    static func isReportingWord(_ word: String) -> Bool {
        reportingWords.contains(word)
    }

    static let reportingWords = PerceptionMetaScorer.WordSet(TextAnalysis.reportingWords.sorted())

    /// Whether `s` is one of the marks that may open a quotation (``openingQuote(_:at:)``
    /// decides whether it does).
    @inline(__always)
    static func isOpeningQuote(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x22, 0x27, 0xAB, 0x2018, 0x201C, 0x201E, 0x2039, 0x300C, 0x300E: true
        default: false
        }
    }

    /// `input`'s own voice, or `nil` when it cannot be read from the written words.
    static func read(_ input: ScoringInput) -> Reading? {
        read(input, quoted: QuotedText(input))
    }

    /// `input`'s own voice, with `quoted` its ``QuotedText`` (`nil` when it has none).
    static func read(_ input: ScoringInput, quoted: QuotedText?) -> Reading? {
        var text = input.text
        // Without a quotation, the voice differs only after a reporting word.
        let mayQuote = text.withUTF8(PerceptionMetaScorer.mayHoldQuotation)
        let reports =
            mayQuote
            || (text.withUTF8 { PerceptionMetaScorer.containsWord($0, reportingWords) }
                && input.words.contains { isReportingWord($0.normalized) })
        guard mayQuote || reports else { return .unchanged }
        guard let quoted else { return nil }
        let scalars = quoted.scalars
        let n = scalars.count

        // As TextAnalysis.ownVoice, on scalars.
        var removed = [Bool](repeating: false, count: n)
        var spanStart = [Bool](repeating: false, count: n)
        for span in quoted.spans {
            spanStart[span.range.lowerBound] = true
            for k in span.range { removed[k] = true }
            let last = span.range.upperBound - 2
            if span.isClosed, last > span.range.lowerBound, isSentenceTerminator(scalars[last]) {
                removed[last] = false
            }
        }
        if reports {
            for word in input.words
            where isReportingWord(word.normalized) && !removed[word.range.lowerBound] {
                var j = word.range.upperBound
                while j < n,
                    (isSpace(scalars[j]) && !isNewline(scalars[j])) || scalars[j] == ":" || scalars[j] == ","
                        || isDash(scalars[j])
                {
                    j += 1
                }
                guard j < n, !isNewline(scalars[j]), !isSentenceTerminator(scalars[j]),
                    openingQuote(scalars, at: j) == nil
                else { continue }
                var end = j
                while end < n, !isSentenceTerminator(scalars[end]), !isNewline(scalars[end]), !spanStart[end] {
                    end += 1
                }
                for k in word.range.upperBound..<end { removed[k] = true }
            }
        }
        guard removed.contains(true) else { return .unchanged }

        var kept: [TextAnalysis.Word] = []
        kept.reserveCapacity(input.words.count)
        for word in input.words {
            let removedCount = word.range.reduce(0) { $0 + (removed[$1] ? 1 : 0) }
            if removedCount == 0 {
                kept.append(word)
            } else if removedCount < word.range.count {
                return nil
            }
        }
        return .voice(VoiceText(words: kept, scalars: scalars, removed: removed))
    }

    // MARK: Quotations, as TextAnalysis.quotedSpans on scalars

    enum QuoteKind {
        case doubleStraight, doubleCurly, doubleLow, single, guillemet, singleGuillemet
        case corner, whiteCorner
    }

    /// ``TextAnalysis/quotedSpans(in:)`` for `scalars`, each a `Character` of its own.
    static func quotedSpans(_ scalars: [Unicode.Scalar]) -> [TextAnalysis.QuotedSpan] {
        var spans: [TextAnalysis.QuotedSpan] = []
        let n = scalars.count
        var i = 0
        while i < n {
            guard isOpeningQuote(scalars[i]), let kind = openingQuote(scalars, at: i) else {
                i += 1
                continue
            }
            let opener = Character(scalars[i])
            var j = i + 1
            var closedAt: Int?
            while j < n, !isNewline(scalars[j]) {
                if closes(kind, scalars, at: j) {
                    closedAt = j
                    break
                }
                j += 1
            }
            if let closedAt {
                spans.append(TextAnalysis.QuotedSpan(range: i..<(closedAt + 1), opener: opener, isClosed: true))
                i = closedAt + 1
            } else if j == n, !endsWithTerminalPunctuation(scalars, from: i + 1) {
                spans.append(TextAnalysis.QuotedSpan(range: i..<n, opener: opener, isClosed: false))
                i = n
            } else {
                var end = i + 1
                while end < n, !isSentenceTerminator(scalars[end]), !isNewline(scalars[end]) {
                    end += 1
                }
                spans.append(TextAnalysis.QuotedSpan(range: i..<end, opener: opener, isClosed: false))
                i = end
            }
        }
        return spans
    }

    static func openingQuote(_ scalars: [Unicode.Scalar], at i: Int) -> QuoteKind? {
        let c = scalars[i].value
        if c < 0x80, c != 0x22, c != 0x27 { return nil }
        let previous: Unicode.Scalar? = i > 0 ? scalars[i - 1] : nil
        let next: Unicode.Scalar? = i + 1 < scalars.count ? scalars[i + 1] : nil
        switch c {
        case 0x22:
            return previous.map(isNumber) == true ? nil : .doubleStraight
        case 0x201C:
            return .doubleCurly
        case 0x201E:
            return .doubleLow
        case 0x2018:
            guard let next, !next.properties.isWhitespace else { return nil }
            return .single
        case 0x27:
            guard let next, next.properties.isAlphabetic else { return nil }
            if let previous, isWordCharacter(previous) { return nil }
            return .single
        case 0xAB:
            return .guillemet
        case 0x2039:
            return .singleGuillemet
        case 0x300C:
            return .corner
        case 0x300E:
            return .whiteCorner
        default:
            return nil
        }
    }

    static func closes(_ kind: QuoteKind, _ scalars: [Unicode.Scalar], at j: Int) -> Bool {
        let c = scalars[j].value
        switch kind {
        case .doubleStraight:
            return c == 0x22
        case .doubleCurly:
            return c == 0x201D
        case .doubleLow:
            return c == 0x201C || c == 0x201D
        case .single:
            guard c == 0x2019 || c == 0x27 else { return false }
            return j + 1 == scalars.count || !scalars[j + 1].properties.isAlphabetic
        case .guillemet:
            return c == 0xBB
        case .singleGuillemet:
            return c == 0x203A
        case .corner:
            return c == 0x300D
        case .whiteCorner:
            return c == 0x300F
        }
    }

    /// ``TextAnalysis/endsWithTerminalPunctuation(_:)`` of `scalars[start...]`.
    static func endsWithTerminalPunctuation(_ scalars: [Unicode.Scalar], from start: Int) -> Bool {
        var k = scalars.count
        while k > start {
            k -= 1
            let c = scalars[k]
            if isSpace(c) || isClosingMark(c) || c == "*" || c == "_" { continue }
            return isSentenceTerminator(c)
        }
        return false
    }

    // MARK: Scalar predicates, as TextAnalysis's for a Character of one scalar

    @inline(__always)
    static func isNewline(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    @inline(__always)
    static func isSpace(_ s: Unicode.Scalar) -> Bool {
        if s.value < 0x80 { return s.value == 0x20 || (s.value >= 0x09 && s.value <= 0x0D) }
        return s.properties.isWhitespace
    }

    static func isSentenceTerminator(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x2E, 0x21, 0x3F, 0x2026, 0x203C, 0x2047, 0x2048, 0x2049, 0x3002, 0xFF01, 0xFF0E, 0xFF1F: true
        default: false
        }
    }

    static func isClosingMark(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x22, 0x27, 0x29, 0x5D, 0x7D, 0x201D, 0x2019, 0xBB, 0x203A, 0x300D, 0x300F: true
        default: false
        }
    }

    static func isDash(_ s: Unicode.Scalar) -> Bool {
        s.value == 0x2D || (s.value >= 0x2010 && s.value <= 0x2015)
    }

    static func isNumber(_ s: Unicode.Scalar) -> Bool {
        s.properties.numericType != nil
    }

    static func isWordCharacter(_ s: Unicode.Scalar) -> Bool {
        if s.value < 0x80 { return ByteScan.isAlphanumeric(UInt8(s.value)) }
        return s.properties.isAlphabetic || s.properties.numericType != nil
    }
}

// MARK: - Byte scanning

/// Scans of UTF-8 bytes sixteen at a time, for the prefilters that let most answers pass a
/// scorer without word-level work.
enum ByteScan {
    typealias Lanes = SIMD16<UInt8>
    typealias Mask = SIMDMask<SIMD16<Int8>>

    /// Sixteen bytes of a text with the bytes before and after each of them.
    struct Window {
        var previous: Lanes
        var current: Lanes
        var next: Lanes
        var afterNext: Lanes
    }

    /// `byte` in every lane. (Comparing lanes with lanes, not with a scalar, keeps the
    /// comparison vectorized.)
    @inline(__always)
    static func splat(_ byte: Unicode.Scalar) -> Lanes {
        Lanes(repeating: UInt8(byte.value))
    }

    /// Where a scan looks: `lanes` marks the bytes of a ``Window`` worth a closer look, and
    /// `verify` takes that look at one byte index.
    protocol Sites {
        static func lanes(_ window: Window) -> Mask
        static func verify(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool
    }

    /// The first byte index, at or after `start`, that `S.lanes` marks and where `S.verify`
    /// holds. Bytes before the text and after its end read as spaces.
    @inline(__always)
    static func first<S: Sites>(_ sites: S.Type, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        forEach(sites, in: bytes, from: start) { _ in true }
    }

    /// Calls `body` with each byte index, at or after `start`, that `S.lanes` marks and
    /// where `S.verify` holds, in order, until it returns `true`; returns that index.
    @inline(__always)
    static func forEach<S: Sites>(
        _ sites: S.Type, in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0, _ body: (Int) -> Bool
    ) -> Int? {
        let n = bytes.count
        guard n > start else { return nil }
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        // Sixteen bytes from `p` with the byte before and the two after: read straight from
        // the text inside it, through a copy padded with spaces at its ends.
        var padded: (Lanes, Lanes, Lanes) = (Lanes(repeating: 0x20), Lanes(repeating: 0x20), Lanes(repeating: 0x20))
        var p = start
        while p < n {
            let window: Window
            if p >= 1, p + 18 <= n {
                window = Window(
                    previous: raw.loadUnaligned(fromByteOffset: p - 1, as: Lanes.self),
                    current: raw.loadUnaligned(fromByteOffset: p, as: Lanes.self),
                    next: raw.loadUnaligned(fromByteOffset: p + 1, as: Lanes.self),
                    afterNext: raw.loadUnaligned(fromByteOffset: p + 2, as: Lanes.self))
            } else {
                window = withUnsafeMutableBytes(of: &padded) { copy in
                    copy.initializeMemory(as: UInt8.self, repeating: 0x20)
                    // copy[k] holds the byte at p - 1 + k.
                    let first = max(0, 1 - p)
                    let end = min(copy.count, n - p + 1)
                    (copy.baseAddress! + first).copyMemory(
                        from: bytes.baseAddress! + (p - 1 + first), byteCount: end - first)
                    let base = UnsafeRawPointer(copy.baseAddress!)
                    return Window(
                        previous: base.loadUnaligned(as: Lanes.self),
                        current: base.loadUnaligned(fromByteOffset: 1, as: Lanes.self),
                        next: base.loadUnaligned(fromByteOffset: 2, as: Lanes.self),
                        afterNext: base.loadUnaligned(fromByteOffset: 3, as: Lanes.self))
                }
            }
            let marked = unsafeBitCast(
                Lanes(repeating: 0).replacing(with: 0xFF, where: S.lanes(window)), to: (UInt64, UInt64).self)
            // Each marked lane is one 0xFF byte of the two halves.
            var low = marked.0
            while low != 0 {
                let lane = low.trailingZeroBitCount / 8
                if p + lane < n, S.verify(bytes, at: p + lane), body(p + lane) { return p + lane }
                low &= ~(0xFF << UInt64(8 * lane))
            }
            var high = marked.1
            while high != 0 {
                let lane = high.trailingZeroBitCount / 8
                if p + 8 + lane < n, S.verify(bytes, at: p + 8 + lane), body(p + 8 + lane) { return p + 8 + lane }
                high &= ~(0xFF << UInt64(8 * lane))
            }
            p += 16
        }
        return nil
    }

    /// Whether some byte of `bytes` is in `lanes`' class: sixteen bytes at a time straight
    /// from the text, the last few through a copy padded with spaces.
    @inline(__always)
    static func containsByte(_ bytes: UnsafeBufferPointer<UInt8>, where lanes: (Lanes) -> Mask) -> Bool {
        let n = bytes.count
        guard n > 0 else { return false }
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        var p = 0
        while p + 16 <= n {
            if marks(lanes(raw.loadUnaligned(fromByteOffset: p, as: Lanes.self))) { return true }
            p += 16
        }
        guard p < n else { return false }
        var tail = Lanes(repeating: 0x20)
        for k in 0..<(n - p) { tail[k] = bytes[p + k] }
        return marks(lanes(tail))
    }

    /// The index of the first `byte` at or after `start`, sixteen bytes at a time.
    static func firstIndex(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let n = bytes.count
        var p = start
        if n >= 16 {
            let raw = UnsafeRawPointer(bytes.baseAddress!)
            let target = Lanes(repeating: byte)
            while p + 16 <= n {
                let lanes = raw.loadUnaligned(fromByteOffset: p, as: Lanes.self)
                let marked = unsafeBitCast(
                    Lanes(repeating: 0).replacing(with: 0xFF, where: lanes .== target), to: (UInt64, UInt64).self)
                if marked.0 != 0 { return p + marked.0.trailingZeroBitCount / 8 }
                if marked.1 != 0 { return p + 8 + marked.1.trailingZeroBitCount / 8 }
                p += 16
            }
        }
        while p < n {
            if bytes[p] == byte { return p }
            p += 1
        }
        return nil
    }

    /// Whether `mask` marks any lane.
    @inline(__always)
    static func marks(_ mask: Mask) -> Bool {
        let marked = unsafeBitCast(Lanes(repeating: 0).replacing(with: 0xFF, where: mask), to: (UInt64, UInt64).self)
        return marked.0 | marked.1 != 0
    }

    /// The number of Unicode scalars in the UTF-8 `bytes`: the bytes that are not
    /// continuation bytes (10xxxxxx), counted eight at a time.
    static func scalarCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        let n = bytes.count
        guard n > 0 else { return 0 }
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        var continuations = 0
        var p = 0
        while p + 8 <= n {
            let x = raw.loadUnaligned(fromByteOffset: p, as: UInt64.self)
            continuations += (x & ~(x << 1) & 0x8080_8080_8080_8080).nonzeroBitCount
            p += 8
        }
        while p < n {
            if bytes[p] & 0xC0 == 0x80 { continuations += 1 }
            p += 1
        }
        return n - continuations
    }

    /// The Unicode scalars of the UTF-8 `bytes` (valid UTF-8, as a `String` holds).
    static func scalars(_ bytes: UnsafeBufferPointer<UInt8>) -> [Unicode.Scalar] {
        [Unicode.Scalar](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            let n = bytes.count
            var i = 0
            var k = 0
            while i < n {
                let scalar: Unicode.Scalar
                (scalar, i) = UTF8Scalars.scalar(bytes, at: i)
                (buffer.baseAddress! + k).initialize(to: scalar)
                k += 1
            }
            count = k
        }
    }

    /// Whether one of the first `end` scalars of the UTF-8 `bytes` may open a quotation
    /// (``VoiceText/isOpeningQuote(_:)``).
    static func mayQuote(_ bytes: UnsafeBufferPointer<UInt8>, beforeScalar end: Int) -> Bool {
        var scalars = 0
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b & 0xC0 != 0x80 {
                if scalars == end { return false }
                scalars += 1
            }
            switch b {
            case 0x22, 0x27: return true
            case 0xC2: if i + 1 < bytes.count, bytes[i + 1] == 0xAB { return true }
            case 0xE2, 0xE3:
                if i + 2 < bytes.count,
                    VoiceText.isOpeningQuote(Unicode.Scalar(
                        (UInt32(b) & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F))!)
                {
                    return true
                }
            default: break
            }
            i += 1
        }
        return false
    }

    /// Whether one of `chars` may open a quotation: its first scalar is a quotation mark.
    static func mayQuote(_ chars: ArraySlice<Character>) -> Bool {
        chars.contains { c in
            if let a = c.asciiByte { return a == 0x22 || a == 0x27 }
            return VoiceText.isOpeningQuote(c.unicodeScalars.first!)
        }
    }

    /// Whether each lane holds an ASCII letter or digit.
    @inline(__always)
    static func isAlphanumeric(_ lanes: Lanes) -> Mask {
        ((lanes | Lanes(repeating: 0x20)) &- Lanes(repeating: 0x61)) .< Lanes(repeating: 26)
            .| (lanes &- Lanes(repeating: 0x30)) .< Lanes(repeating: 10)
    }

    @inline(__always)
    static func isAlphanumeric(_ b: UInt8) -> Bool {
        let folded = b | 0x20
        return (b >= 0x30 && b <= 0x39) || (folded >= 0x61 && folded <= 0x7A)
    }

    /// The run of ASCII letters and digits starting at `start`.
    static func run(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Range<Int> {
        var end = start
        while end < bytes.count, isAlphanumeric(bytes[end]) { end += 1 }
        return start..<end
    }

    /// The run of ASCII letters and digits before `index`, past ASCII whitespace and any
    /// non-ASCII bytes, or `nil` when something else comes first.
    static func runBefore(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> Range<Int>? {
        var j = index
        while j > 0, isSpaceOrNonASCII(bytes[j - 1]) { j -= 1 }
        guard j > 0, isAlphanumeric(bytes[j - 1]) else { return nil }
        let end = j
        while j > 0, isAlphanumeric(bytes[j - 1]) { j -= 1 }
        return j..<end
    }

    /// The run of ASCII letters and digits after `index`, past ASCII whitespace and any
    /// non-ASCII bytes, or `nil` when something else comes first.
    static func runAfter(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> Range<Int>? {
        var j = index
        while j < bytes.count, isSpaceOrNonASCII(bytes[j]) { j += 1 }
        guard j < bytes.count, isAlphanumeric(bytes[j]) else { return nil }
        return run(bytes, from: j)
    }

    @inline(__always)
    static func isSpaceOrNonASCII(_ b: UInt8) -> Bool {
        b >= 0x80 || b == 0x20 || (b >= 0x09 && b <= 0x0D)
    }

    /// Whether the run `range` of letters and digits spells `word` (lowercase ASCII), in any case.
    static func run(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, is word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        let expected = word.utf8Start
        for k in 0..<range.count where bytes[range.lowerBound + k] | 0x20 != expected[k] { return false }
        return true
    }

    static func run(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, isOneOf words: [StaticString]) -> Bool {
        words.contains { run(bytes, range, is: $0) }
    }
}
