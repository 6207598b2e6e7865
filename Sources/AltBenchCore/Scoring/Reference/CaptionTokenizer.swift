/// Splits a caption into the tokens the reference metrics compare, standing in for the
/// tokenizer of pycocoevalcap 1.2 (`tokenizer/ptbtokenizer.py`), which runs Stanford
/// CoreNLP 3.4.1's `PTBTokenizer -preserveLines -lowerCase` in Java and then drops the
/// tokens of its `PUNCTUATIONS` list (`''`, `'`, ` `` `, `` ` ``, `-LRB-`, `-RRB-`, `-LCB-`,
/// `-RCB-`, `.`, `?`, `!`, `,`, `:`, `-`, `--`, `...`, `;`).
///
/// It reproduces the Penn Treebank rules that alt text meets, as CoreNLP 3.4.1 applies them:
/// - Lowercase output; whitespace separates; words keep inner hyphens and underscores
///   ("t-shirt", "5-year-old", "snake_case"), numbers keep inner `.`, `,` and `:` ("3.5",
///   "1,000", "10:30", "-5"), slashes join short parts ("and/or", "24/7", "1/2"), and a
///   period between letters stays inside a word ("u.s", "end.the").
/// - Clitics split off: "don't" → "do", "n't"; "can't" → "ca", "n't"; "it's" → "it", "'s";
///   "I'm", "we're", "they've", "we'll", "he'd" likewise (straight or curly apostrophe, written
///   straight); "cannot" → "can", "not"; "gonna", "gotta", "wanna", "lemme", "gimme" split in
///   two. "o'clock", "O'Brien", "Hawai'i", "'90s", "'n'", "'em", "'cause" stay whole; "y'all"
///   → "y'", "all". Any other apostrophe or quotation mark is a quote, and quotes are dropped.
/// - A final period is split off (and dropped), except after an acronym ("u.s.", "e.g.",
///   "a.m."), a single letter ("j.", unless a sentence-starting word such as "The" follows),
///   and CoreNLP's abbreviation lists ("mr.", "dr.", "st.", "mt.", "etc.", "jan.", "inc.",
///   ...; "fig.", "no.", "ca.", "pp." only before a number; "Ill.", "Mass.", "Wash." only
///   capitalised); a word directly followed by `,` `;` `:` keeps its period too.
/// - Brackets become `-lrb-` `-rrb-` `-lsb-` `-rsb-` `-lcb-` `-rcb-` and are **kept**: the
///   PUNCTUATIONS list names the uppercase forms, but `-lowerCase` has lowercased them
///   already, so pycocoevalcap scores them as words.
/// - Dropped: `.` `,` `;` `:` `?` `!` alone, runs of dots and the ellipsis, hyphens and
///   dashes (a run of five or more hyphens is kept), single quotation marks of any kind, and
///   characters CoreNLP cannot tokenize (emoji and other characters beyond U+FFFF, variation
///   selectors, joiners, CJK corner brackets). Kept as tokens: two curly quotes in a row
///   (“” → "``''", not in PUNCTUATIONS), `?!`-style runs of two or more, `$ % & + = * / \ |
///   < > ~ ^ #` and `@` runs, `#tag` and `@name`, currency (`£` → "#", `€` → "$", `¢` →
///   "cents"), "½" → "1/2", smileys (":)" → ":-rrb-") and other symbols (° © ™ × ♥ →).
///   URLs, e-mail addresses and simple HTML tags stay whole.
///
/// Where it differs from CoreNLP (rare in alt text, each left out to keep the scan simple):
/// PTBTokenizer reads all captions of a run as one file with one caption per line, so a
/// single letter ending a caption ("vitamin C.") loses its period when the next caption
/// starts with "The", "A", "It", ... — here the end of the caption keeps it. A whole number
/// and a fraction ("5 1/2") are one CoreNLP token with a no-break space inside; here they
/// are two. Phone numbers, SGML entities other than `&amp;` `&lt;` `&gt;` `&quot;`, smileys
/// beyond `[:;=][-o*']?[()DPdpO|\\@]`, URLs glued to the word before them, and carriage
/// returns or Unicode line separators inside a caption (which make pycocoevalcap misalign
/// captions) are not modelled. On the sample's references and model-style texts it gives
/// CoreNLP's tokens exactly (Fixtures/scoring/reference-metrics.json).
public enum CaptionTokenizer {
    /// The lowercased tokens of `text`, without the punctuation pycocoevalcap drops.
    public static func tokenize(_ text: String) -> [String] {
        tokenize(text, shortcuts: true)
    }

    /// `tokenize`, optionally without the scanner's shortcuts for common words (the tests
    /// compare the two).
    static func tokenize(_ text: String, shortcuts: Bool) -> [String] {
        var sink = StringSink()
        scan(text, into: &sink, shortcuts: shortcuts)
        return sink.tokens
    }

    /// Runs the scanner over the Unicode scalars of `text`.
    static func scan<Sink: TokenSink>(_ text: String, into sink: inout Sink, shortcuts: Bool = true) {
        withScalars(text) { scalars, flags in
            var scanner = Scanner(scalars, sink: sink, flags: flags, shortcuts: shortcuts)
            scanner.run()
            sink = scanner.sink
        }
    }

    /// Which rarer characters a caption holds, so that the rules needing them are tried only
    /// then.
    struct Flags: OptionSet {
        let rawValue: UInt8
        /// `'` `’` `‘` `‛` and their CP1252 forms.
        static let apostrophe = Flags(rawValue: 1)
        /// `-` `_` U+058A U+2010 U+2011.
        static let hyphen = Flags(rawValue: 2)
        /// `/` `⁄`.
        static let slash = Flags(rawValue: 4)
        static let at = Flags(rawValue: 8)
        /// `&` `+` `#` `$`.
        static let joiner = Flags(rawValue: 16)

        @inline(__always)
        static func ascii(_ c: UInt8) -> Flags {
            switch c {
            case 0x23, 0x24, 0x26, 0x2B: .joiner
            case 0x27: .apostrophe
            case 0x2D, 0x5F: .hyphen
            case 0x2F: .slash
            case 0x40: .at
            default: []
            }
        }

        static func other(_ c: UInt32) -> Flags {
            switch c {
            case 0x2019, 0x2018, 0x201B, 0x91, 0x92: .apostrophe
            case 0x58A, 0x2010, 0x2011: .hyphen
            case 0x2044: .slash
            default: []
            }
        }
    }

    /// Calls `body` with the Unicode scalars of `text`, decoded from its UTF-8 into a
    /// temporary buffer, and the flags of the characters it holds.
    static func withScalars<Result>(
        _ text: String, _ body: (UnsafeBufferPointer<UInt32>, Flags) -> Result
    ) -> Result {
        var text = text
        return text.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: bytes.count + 1) { buffer in
                // String storage is valid UTF-8.
                var n = 0, i = 0
                var flags: UInt8 = 0
                let count = bytes.count
                // The ASCII characters below 0x40 the flags look for, as bits: # $ & ' + - /.
                let flagged: UInt64 = 1 << 0x23 | 1 << 0x24 | 1 << 0x26 | 1 << 0x27 | 1 << 0x2B | 1 << 0x2D | 1 << 0x2F
                while i < count {
                    // Eight ASCII bytes at a time: widened in one go, their flags looked at one
                    // by one only when one of them may have one (# $ & ' + - / @ _: 0x23...0x2F,
                    // 0x40 and 0x5F), which bit tricks on the word tell.
                    if i + 8 <= count {
                        let w = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self))
                        if w & 0x8080_8080_8080_8080 == 0 {
                            for k in 0..<8 { buffer[n + k] = UInt32(truncatingIfNeeded: w >> UInt64(8 * k)) & 0xFF }
                            // Bytes are below 0x80, so no sum carries into the next byte.
                            let atLeast23 = w &+ 0x5D5D_5D5D_5D5D_5D5D, atLeast30 = w &+ 0x5050_5050_5050_5050
                            func equal(_ c: UInt64) -> UInt64 {
                                let t = w ^ (c &* 0x0101_0101_0101_0101)
                                return ~(((t & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | t)
                            }
                            let maybe = (atLeast23 & ~atLeast30 | equal(0x40) | equal(0x5F)) & 0x8080_8080_8080_8080
                            if maybe != 0 {
                                for k in 0..<8 {
                                    let b = UInt8(truncatingIfNeeded: w >> UInt64(8 * k))
                                    if b < 0x40 ? (flagged >> UInt64(b)) & 1 != 0 : b == 0x40 || b == 0x5F {
                                        flags |= Flags.ascii(b).rawValue
                                    }
                                }
                            }
                            i += 8
                            n += 8
                            continue
                        }
                    }
                    let b = bytes[i]
                    if b < 0x80 {
                        buffer[n] = UInt32(b)
                        if b < 0x40 ? (flagged >> UInt64(b)) & 1 != 0 : b == 0x40 || b == 0x5F {
                            flags |= Flags.ascii(b).rawValue
                        }
                        i += 1
                    } else {
                        let c: UInt32
                        (c, i) = UTF8Scalars.decode(bytes, at: i)
                        buffer[n] = c
                        flags |= Flags.other(c).rawValue
                    }
                    n += 1
                }
                return body(UnsafeBufferPointer(rebasing: buffer[..<n]), Flags(rawValue: flags))
            }
        }
    }

    // MARK: - Word lists (CoreNLP 3.4.1 PTBLexer)

    /// Abbreviations that keep their period wherever they stand (ABBREV1, ABBREV2).
    static let abbreviations: Set<String> = [
        "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
        "mon", "tue", "tues", "wed", "thu", "thurs", "fri",
        "ala", "ariz", "calif", "colo", "conn", "ct", "dak", "fla", "ga", "ind", "kan", "kans", "ky",
        "md", "mich", "minn", "mo", "mont", "neb", "nev", "okla", "penn", "tenn", "va", "vt", "wis",
        "wisc", "wyo",
        "inc", "co", "cos", "corp", "pty", "ptys", "ppty", "ltd", "plc", "rt", "bancorp", "dept",
        "bhd", "assn", "univ", "intl", "sys", "tel", "est", "ext", "sq", "ft", "ph",
        "jr", "sr", "bros", "blvd", "rd", "esq", "etc", "al", "seq", "bldg",
        "mr", "mrs", "ms", "dr", "drs", "prof", "profs", "sen", "sens", "rep", "reps", "atty",
        "attys", "lt", "col", "gen", "messrs", "gov", "govs", "adm", "rev", "maj", "sgt", "cpl",
        "pvt", "mt", "capt", "st", "ste", "ave", "pres", "lieut", "hon", "brig", "cmdr", "comdr",
        "pfc", "spc", "supt", "supts", "det", "adj", "adv", "asst", "assoc", "ens", "insp", "mlle",
        "mme", "msgr", "sfc", "vs", "alex", "wm", "jos", "cie", "cf", "treas", "invt", "elec",
        "natl", "mfg", "mtg",
    ]

    /// Abbreviations that keep their period only when capitalised ("Ill." but "ill.").
    static let capitalizedAbbreviations: Set<String> = [
        "az", "ark", "del", "ill", "la", "mass", "miss", "ore", "pa", "tex", "wash",
    ]

    /// Abbreviations that keep their period only before a number ("fig. 3", "No.1").
    static let numberAbbreviations: Set<String> = [
        "no", "nos", "prop", "ca", "fig", "figs", "art", "pp", "op",
    ]

    /// Words after which a single capital and period ("plan B. The") end a sentence, so the
    /// period is split off. The first letter must be uppercase.
    static let sentenceStarters: Set<String> = [
        "about", "according", "additionally", "after", "an", "a", "as", "at", "but", "earlier",
        "he", "her", "here", "however", "if", "in", "it", "last", "many", "more", "mr.", "ms.",
        "now", "once", "one", "other", "our", "she", "since", "so", "some", "such", "that", "the",
        "then", "there", "these", "they", "this", "we", "when", "while", "what", "yet", "you",
        "their",
    ]

    /// Words PTB keeps whole with their apostrophe (APOWORD).
    static let apostropheWords = [
        "dunkin'", "somethin'", "ol'", "c'mon", "e'er", "s'mores", "ev'ry", "li'l", "nat'l", "nor'easter",
        "cont'd.", "cont'd",
    ].map { Array($0.unicodeScalars) }

    /// Words PTB splits in two, with the length of the first part.
    static let assimilations: [String: Int] = [
        "cannot": 3, "gonna": 3, "gotta": 3, "wanna": 3, "lemme": 3, "gimme": 3,
    ]

    /// `assimilations` with each word's bytes packed little-endian into an integer.
    static let packedAssimilations: [(word: UInt64, split: Int)] = assimilations.map { (pack($0.key), $0.value) }

    /// The length of the longest word of the abbreviation lists: a longer word keeps no period.
    static let longestAbbreviation = abbreviations.union(capitalizedAbbreviations).union(numberAbbreviations)
        .map(\.utf8.count).max()!

    /// The abbreviation lists with each word's bytes packed little-endian into an integer.
    static let packedAbbreviations = Set(abbreviations.map(pack))
    static let packedCapitalizedAbbreviations = Set(capitalizedAbbreviations.map(pack))
    static let packedNumberAbbreviations = Set(numberAbbreviations.map(pack))

    /// The bytes of a word of up to 8 ASCII characters, packed little-endian.
    static func pack(_ word: String) -> UInt64 {
        precondition(word.utf8.count <= 8)
        return word.utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

// MARK: - Output

/// Where the scanner puts the tokens it finds.
protocol TokenSink {
    /// A token given as a String.
    mutating func append(_ token: String)
    /// The token `s[start..<end]`, to be lowercased (``CaptionTokenizer/lowercased(_:_:_:)``).
    mutating func append(_ s: UnsafeBufferPointer<UInt32>, _ start: Int, _ end: Int)
    /// The token `s[start..<end]`, of 1 to 16 ASCII characters, whose lowercase bytes are
    /// `low` and `high` (``CaptionTokenizer/PackedWord``).
    mutating func append(_ s: UnsafeBufferPointer<UInt32>, _ start: Int, _ end: Int, low: UInt64, high: UInt64)
}

extension CaptionTokenizer {
    /// The lowercase bytes of up to 16 ASCII characters, packed little-endian: the first 8 in
    /// `low`, the next 8 in `high`. `packed` is false for anything else.
    struct PackedWord {
        var low: UInt64
        var high: UInt64
        var packed: Bool
    }
}

extension CaptionTokenizer {
    /// Collects the tokens as Strings.
    struct StringSink: TokenSink {
        var tokens: [String] = []

        mutating func append(_ token: String) { tokens.append(token) }

        mutating func append(_ s: UnsafeBufferPointer<UInt32>, _ start: Int, _ end: Int) {
            tokens.append(CaptionTokenizer.lowercased(s, start, end))
        }

        mutating func append(_ s: UnsafeBufferPointer<UInt32>, _ start: Int, _ end: Int, low: UInt64, high: UInt64) {
            append(s, start, end)
        }
    }

    /// `s[start..<end]` lowercased, with CoreNLP's symbol normalisations none needed here.
    static func lowercased(_ s: UnsafeBufferPointer<UInt32>, _ start: Int, _ end: Int) -> String {
        var ascii = true
        for k in start..<end where s[k] >= 0x80 {
            ascii = false
            break
        }
        if ascii {
            return String(unsafeUninitializedCapacity: end - start) { buffer in
                for k in start..<end { buffer[k - start] = UInt8(truncatingIfNeeded: lowerASCII(s[k])) }
                return end - start
            }
        }
        var out = ""
        for k in start..<end { out.unicodeScalars.append(Unicode.Scalar(s[k])!) }
        return out.lowercased()
    }
}

// MARK: - Scanner

extension CaptionTokenizer {
    /// One pass over the scalars of a caption, longest match first as JFlex does.
    struct Scanner<Sink: TokenSink> {
        let s: UnsafeBufferPointer<UInt32>
        let n: Int
        var sink: Sink
        /// Whether `wordLike` settles common cases directly (``shortcut(_:alnumEnd:)``); off
        /// only to check that against the full rules.
        let shortcuts: Bool
        /// The last run of letters and digits `wordLike` went through, lowercased and packed.
        var word = PackedWord(low: 0, high: 0, packed: false)
        /// Which rarer characters the caption holds, so rules that need them are tried only then.
        let hasApostrophe: Bool, hasHyphen: Bool, hasSlash: Bool, hasAt: Bool, hasJoiner: Bool

        init(_ scalars: UnsafeBufferPointer<UInt32>, sink: Sink, flags: Flags, shortcuts: Bool = true) {
            s = scalars
            n = scalars.count
            self.sink = sink
            self.shortcuts = shortcuts
            hasApostrophe = flags.contains(.apostrophe)
            hasHyphen = flags.contains(.hyphen)
            hasSlash = flags.contains(.slash)
            hasAt = flags.contains(.at)
            hasJoiner = flags.contains(.joiner)
        }

        /// The rules a word-like match came from, in PTBLexer's order (earlier wins a tie).
        enum Kind: Int, Comparable {
            case wordBeforeClitic, wordBeforeNot, word, apostropheWord, yApostrophe, url, email, not,
                 date, number, fraction, slashed, currency, letterBeforeSentence, abbreviation,
                 wordPeriod, hyphenated, thing, capitalsJoined
            static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
        }

        /// A candidate match: `length` includes any trailing context, `end` is where the token
        /// stops, `next` where scanning resumes.
        struct Match {
            var length: Int
            var end: Int
            var kind: Kind
            var next: Int
        }

        subscript(_ i: Int) -> UInt32 { i < n ? s[i] : 0 }

        mutating func run() {
            var i = 0
            while i < n {
                // Spaces and ASCII letters and digits, the most of a caption, go straight where
                // `step` sends them.
                let c = s[i]
                if c == 0x20 {
                    i += 1
                } else if c < 0x80 && isASCIIAlnum(c) {
                    i = wordLike(i)
                } else {
                    i = step(i)
                }
            }
        }

        /// Scans one token (or skips one ignored character) at `i`; returns where to go on.
        mutating func step(_ i: Int) -> Int {
            let c = s[i]
            if c == 0x20 { return i + 1 }
            if isAlnum(c) { return wordLike(i) }
            switch c {
            case 0x27, 0x2019, 0x92:  // ' ’ and CP1252 ’
                return apostrophe(i)
            case 0x22:  // " becomes `` or '', then dropped
                return i + 1
            case 0x60, 0x2018, 0x201A, 0x201B, 0x201C, 0x201D, 0x201E, 0x201F, 0xAB, 0xBB, 0x2039, 0x203A,
                 0x91, 0x93, 0x94:
                return quotes(i)
            case 0x28: return emit("-lrb-", i + 1)
            case 0x29: return emit("-rrb-", i + 1)
            case 0x5B: return emit("-lsb-", i + 1)
            case 0x5D: return emit("-rsb-", i + 1)
            case 0x7B: return emit("-lcb-", i + 1)
            case 0x7D: return emit("-rcb-", i + 1)
            case 0x3C where self[i + 1] == 0x3C, 0x3E where self[i + 1] == 0x3E:  // << and >>
                emit(i, i + 2)
                return i + 2
            case 0x3C:  // <
                if let end = tagEnd(i) {
                    emit(i, end)
                    return end
                }
                return emit("<", i + 1)
            case 0x2D:  // -
                var j = i
                while self[j] == 0x2D { j += 1 }
                if j - i == 1, let end = numberEnd(i) {
                    emit(i, end)
                    return end
                }
                if j - i >= 5 { emit(i, j) }
                return j
            case 0x2B:  // +
                if let end = numberEnd(i) {
                    emit(i, end)
                    return end
                }
                return emit("+", i + 1)
            case 0x2E, 0x2C, 0x3A:  // . , :
                if let end = numberEnd(i) {
                    emit(i, end)
                    return end
                }
                if c == 0x3A, let end = smileyEnd(i) { return emitSmiley(i, end) }
                if c == 0x2E {
                    var j = i
                    while self[j] == 0x2E { j += 1 }
                    return j
                }
                return i + 1
            case 0x3B, 0x3D:  // ; =
                if let end = smileyEnd(i) { return emitSmiley(i, end) }
                if c == 0x3D { return emit("=", i + 1) }
                return i + 1
            case 0x21, 0x3F:  // ! ?
                var j = i
                while self[j] == 0x21 || self[j] == 0x3F { j += 1 }
                if j - i >= 2 { emit(i, j) }
                return j
            case 0x2A, 0x40, 0x5F:  // * @ _ runs
                if c == 0x40, isASCIILetter(self[i + 1]) || self[i + 1] == 0x5F {
                    var j = i + 1
                    while isASCIILetter(self[j]) || isASCIIDigit(self[j]) || self[j] == 0x5F { j += 1 }
                    emit(i, j)
                    return j
                }
                var j = i
                while self[j] == c { j += 1 }
                emit(i, j)
                return j
            case 0x23:  // #
                if isLetter(self[i + 1]) {
                    var j = i + 2
                    while isAlnum(self[j]) { j += 1 }
                    emit(i, j)
                    return j
                }
                var j = i
                while self[j] == 0x23 { j += 1 }
                emit(i, j)
                return j
            case 0x26:  // & and the entities &amp; &lt; &gt; &quot;
                if matchesCaseless("&amp;", at: i) { return emit("&", i + 5) }
                if matchesCaseless("&lt;", at: i) { return emit("<", i + 4) }
                if matchesCaseless("&gt;", at: i) { return emit(">", i + 4) }
                if matchesCaseless("&quot;", at: i) { return i + 6 }
                return emit("&", i + 1)
            case 0x24, 0x25, 0x7E, 0x5E, 0x7C, 0x5C, 0x2F, 0x3E:  // $ % ~ ^ | \ / >
                emit(i, i + 1)
                return i + 1
            case 0xA2: return emit("cents", i + 1)
            case 0xA3: return emit("#", i + 1)
            case 0xA4, 0x80, 0x20A0, 0x20AC: return emit("$", i + 1)
            case 0xBC: return emit("1/4", i + 1)
            case 0xBD: return emit("1/2", i + 1)
            case 0xBE: return emit("3/4", i + 1)
            case 0x2153: return emit("1/3", i + 1)
            case 0xB9, 0xB2, 0xB3, 0x2070, 0x2074...0x2079:  // superscript digits
                var j = i
                while isSuperscriptDigit(self[j]) { j += 1 }
                emit(i, j)
                return j
            case 0x2080...0x2089:  // subscript digits
                var j = i
                while (0x2080...0x2089).contains(self[j]) { j += 1 }
                emit(i, j)
                return j
            default:
                if !isSpaceValue(c), isKeptSymbol(c) { emit(i, i + 1) }
                return i + 1
            }
        }

        // MARK: Words

        /// The longest word-like token at `i` (a letter or digit), as PTBLexer's rules compete.
        mutating func wordLike(_ i: Int) -> Int {
            // Most words are a plain run of letters and digits that ends at a space or at
            // punctuation no rule can carry on through: no other rule is longer there. The
            // run's lowercase ASCII is packed on the way for the sink.
            var a = i
            var low: UInt64 = 0, high: UInt64 = 0
            var ascii = true
            while a < n {
                let c = s[a]
                if c < 0x80 {
                    guard isASCIIAlnum(c) else { break }
                    let k = a &- i, b = UInt64(lowerASCII(c))
                    if k < 8 {
                        low |= b << UInt64(k &* 8)
                    } else if k < 16 {
                        high |= b << UInt64((k &- 8) &* 8)
                    }
                } else {
                    guard isAlnum(c) else { break }
                    ascii = false
                }
                a += 1
            }
            word = PackedWord(low: low, high: high, packed: ascii && a - i <= 16)
            let next = self[a]
            let plain: Bool
            switch next {
            case 0, 0x20, 0x09, 0x0A, 0x0D, 0x29, 0x5D, 0x7D, 0x28, 0x5B, 0x7B, 0x22, 0x201C, 0x201D:
                plain = true
            case 0x21, 0x3F: plain = !isLetter(self[a + 1])
            case 0x2C, 0x3B: plain = !isDigit(self[a + 1]) && !hasHyphen && !hasAt
            default: plain = isSpaceValue(next)
            }
            if plain {
                emitPackedWord(i, a)
                return a
            }
            if shortcuts, let next = shortcut(i, alnumEnd: a) { return next }
            return wordLikeMatch(i, alnumEnd: a)
        }

        /// Whether `j` is the end of the caption or a space.
        func isEnd(_ j: Int) -> Bool { j >= n || isSpaceValue(s[j]) }

        /// Whether what starts at `j` stops every rule a token before it could run on into: the
        /// end, a space, `,` `;` `:` `.` `!` `?` before the end or a space, or `)` `]` `}` `"`.
        func isTerminator(_ j: Int) -> Bool {
            if isEnd(j) { return true }
            switch s[j] {
            case 0x2C, 0x3B, 0x3A, 0x2E, 0x21, 0x3F: return isEnd(j + 1)
            case 0x29, 0x5D, 0x7D, 0x22: return true
            default: return false
            }
        }

        /// The commonest words `wordLikeMatch` would have to weigh all its rules for, settled
        /// directly, with the tokens and the end it would give; `nil` for anything else. `a`
        /// ends the letters and digits from `i`. Each case is one where no rule can match
        /// longer than the one taken here (see the comments); the tests check the two against
        /// each other over many random captions.
        mutating func shortcut(_ i: Int, alnumEnd a: Int) -> Int? {
            switch s[a] {
            case 0x2C, 0x3B, 0x3A:
                // "word, " "word; " "word: ": no rule runs through the mark and a space (a URL
                // host needs a period, a number a digit after the mark), so the word stands.
                guard isEnd(a + 1) else { return nil }
                emitPackedWord(i, a)
                return a
            case 0x2E:
                // "word. ": likewise, except a single letter and its period, and a listed
                // abbreviation that keeps its period ("etc. "); a number ends at the period.
                guard isEnd(a + 1) else { return nil }
                if isLetter(s[i]) {
                    guard a - i >= 2 else { return nil }
                    if a - i <= CaptionTokenizer.longestAbbreviation, let word = packedASCIILetters(i, a),
                        keepsPeriod(word, at: i, end: a)
                    {
                        emit(i, a + 1)
                        return a + 1
                    }
                }
                emitPackedWord(i, a)
                return a
            case 0x2D:
                // "close-up", "t-shirt", "covid-19": ASCII letters and digits from a letter,
                // joined by single hyphens, before a terminator: HTHING and THING both take
                // all of it and nothing runs on (an e-mail address needs an "@").
                guard !hasAt, isASCIILetter(s[i]), isASCIIAlnum(self[a + 1]) else { return nil }
                for k in (i + 1)..<a where !isASCIIAlnum(s[k]) { return nil }
                var j = a
                while self[j] == 0x2D && isASCIIAlnum(self[j + 1]) {
                    j += 2
                    while isASCIIAlnum(self[j]) { j += 1 }
                }
                guard isTerminator(j) else { return nil }
                emit(i, j)
                return j
            case 0x27, 0x2019, 0x92:
                // "cat's", "they're": a word of two or more letters, a clitic, a terminator.
                // The clitic rule ties at most with an apostrophe word ("WE'RE"), and wins;
                // only "cont'd." is longer as an apostrophe word.
                guard !hasAt, isLetter(s[i]), a - i >= 2 else { return nil }
                let clitic = cliticLength(a)
                if clitic > 0 {
                    guard isTerminator(a + clitic), packedASCIILetters(i, a) != Self.cont else { return nil }
                    emit(i, a)
                    var token = "'"
                    for k in (a + 1)..<(a + clitic) { token.unicodeScalars.append(Unicode.Scalar(lowerASCII(s[k]))!) }
                    return emit(token, a + clitic)
                }
                return notShortcut(i, a)
            case 0x2018, 0x201B, 0x91:
                guard !hasAt else { return nil }
                return notShortcut(i, a)
            default:
                return nil
            }
        }

        /// "don't", "isn't", "can't" before a terminator: ASCII letters ending in one "n", an
        /// apostrophe and "t" split as "do" "n't".
        mutating func notShortcut(_ i: Int, _ a: Int) -> Int? {
            guard a - i >= 2, lowerASCII(self[a + 1]) == 0x74, lowerASCII(s[a - 1]) == 0x6E,
                lowerASCII(s[a - 2]) != 0x6E, isTerminator(a + 2)
            else { return nil }
            for k in i..<a where !isASCIILetter(s[k]) { return nil }
            emit(i, a - 1)
            let quote = s[a] == 0x2018 || s[a] == 0x201B || s[a] == 0x91 ? "`" : "'"
            return emit("n" + quote + "t", a + 2)
        }

        /// "cont", packed as ``packedASCIILetters(_:_:)`` packs it.
        static var cont: UInt64 { 0x746E_6F63 }

        /// `s[i..<end]` lowercased and packed little-endian into an integer, when it is 1 to 8
        /// ASCII letters.
        func packedASCIILetters(_ i: Int, _ end: Int) -> UInt64? {
            guard end - i <= 8 else { return nil }
            var word: UInt64 = 0
            for k in (i..<end).reversed() {
                guard isASCIILetter(s[k]) else { return nil }
                word = word << 8 | UInt64(lowerASCII(s[k]))
            }
            return word
        }

        /// Whether the abbreviation `word` (packed lowercase ASCII letters from `i`) keeps the
        /// period at `end`: always for `abbreviations`, capitalised for
        /// `capitalizedAbbreviations`, before a number for `numberAbbreviations`.
        func keepsPeriod(_ word: UInt64, at i: Int, end e: Int) -> Bool {
            if CaptionTokenizer.packedAbbreviations.contains(word) { return true }
            if CaptionTokenizer.packedCapitalizedAbbreviations.contains(word), self[i] >= 0x41 && self[i] <= 0x5A {
                return true
            }
            if CaptionTokenizer.packedNumberAbbreviations.contains(word) {
                return isDigit(self[e + 1]) || (isSpaceValue(self[e + 1]) && isDigit(self[e + 2]))
            }
            return false
        }

        /// A plain word, or one PTB splits in two ("cannot", "gonna").
        mutating func emitWord(_ i: Int, _ end: Int) {
            let length = end - i
            if length == 5 || length == 6 {
                let c = lowerASCII(self[i])
                if c == 0x63 || c == 0x67 || c == 0x77 || c == 0x6C, let split = assimilation(i, end) {
                    emit(i, i + split)
                    emit(i + split, end)
                    return
                }
            }
            emit(i, end)
        }

        /// `emitWord(i, end)` for the run of letters and digits `wordLike` has just packed
        /// into `word`, which ends at `end`.
        mutating func emitPackedWord(_ i: Int, _ end: Int) {
            guard word.packed else { return emitWord(i, end) }
            let length = end - i
            if length == 5 || length == 6, case let c = word.low & 0xFF, c == 0x63 || c == 0x67 || c == 0x77 || c == 0x6C {
                for a in CaptionTokenizer.packedAssimilations where a.word == word.low {
                    emit(i, i + a.split)
                    emit(i + a.split, end)
                    return
                }
            }
            sink.append(s, i, end, low: word.low, high: word.high)
        }

        /// The split of `s[i..<end]` if lowercased it is a word of `assimilations`. Only ASCII
        /// lowercases to one: the only letter lowercasing to ASCII is the Kelvin sign, to "k".
        func assimilation(_ i: Int, _ end: Int) -> Int? {
            var word: UInt64 = 0
            for k in (i..<end).reversed() {
                let c = s[k]
                guard c < 0x80 else { return nil }
                word = word << 8 | UInt64(lowerASCII(c))
            }
            for a in CaptionTokenizer.packedAssimilations where a.word == word { return a.split }
            return nil
        }

        /// The longest of PTBLexer's word-like rules at `i`; `alnumEnd` ends the letters and
        /// digits from `i`.
        mutating func wordLikeMatch(_ i: Int, alnumEnd: Int) -> Int {
            var best: Match?
            func offer(_ m: Match?) {
                guard let m else { return }
                if let b = best, b.length > m.length || (b.length == m.length && b.kind <= m.kind) { return }
                best = m
            }
            let word = wordEnd(i)
            if let w = word {
                offer(Match(length: w - i, end: w, kind: .word, next: w))
                let clitic = cliticLength(w)
                if clitic > 0 { offer(Match(length: w - i + clitic, end: w, kind: .wordBeforeClitic, next: w)) }
                offer(periodBefore(w, from: i, kind: .wordPeriod))
            }
            let digitStart = isDigit(self[i])
            if hasApostrophe {
                offer(notClitic(i))
                offer(apostropheWord(i))
                if lowerASCII(self[i]) == 0x6E, isApostropheLike(self[i + 1]), lowerASCII(self[i + 2]) == 0x74 {
                    offer(Match(length: 3, end: i + 3, kind: .not, next: i + 3))
                }
            }
            let after = self[alnumEnd]
            if after == 0x2E || after == 0x3A { offer(url(i)) }
            if hasAt { offer(email(i)) }
            if digitStart {
                offer(dateOrFraction(i))
                if let e = numberEnd(i) { offer(Match(length: e - i, end: e, kind: .number, next: e)) }
            }
            if hasSlash { offer(slashed(i)) }
            offer(abbreviation(i))
            if hasHyphen, let e = hyphenatedEnd(i) {
                offer(Match(length: e - i, end: e, kind: .hyphenated, next: e))
                offer(periodBefore(e, from: i, kind: .hyphenated))
            }
            if digitStart || hasHyphen || hasApostrophe, let e = thingEnd(i) {
                offer(Match(length: e - i, end: e, kind: .thing, next: e))
                offer(periodBefore(e, from: i, kind: .thing))
            }
            if hasJoiner { offer(capitalsJoined(i)) }
            guard let m = best else { return i + 1 }
            if m.kind == .not {
                // SREDAUX, with the apostrophe as LaTeX quoting writes it.
                let quote = self[i + 1] == 0x2018 || self[i + 1] == 0x201B || self[i + 1] == 0x91 ? "`" : "'"
                return emit("n" + quote + "t", m.next)
            }
            if m.kind == .capitalsJoined {
                var text = lowercased(i, m.end)
                while let r = text.range(of: "&amp;") { text.replaceSubrange(r, with: "&") }
                return emit(text, m.next)
            }
            if m.kind == .word {
                emitWord(i, m.end)
                return m.next
            }
            emit(i, m.end)
            return m.next
        }

        /// WORD: a letter, then letters and digits, with `.` `!` `?` joining letter runs.
        func wordEnd(_ i: Int) -> Int? {
            guard isLetter(self[i]) else { return nil }
            var j = i + 1
            while isAlnum(self[j]) { j += 1 }
            while isSentencePunct(self[j]) && isLetter(self[j + 1]) {
                j += 2
                while isAlnum(self[j]) { j += 1 }
            }
            return j
        }

        /// `{WORD}\./{INSENTP}`: a period right before `,` `;` `:` stays on the word.
        func periodBefore(_ e: Int, from i: Int, kind: Kind) -> Match? {
            guard self[e] == 0x2E, isInSentencePunct(self[e + 1]) else { return nil }
            return Match(length: e + 2 - i, end: e + 1, kind: kind, next: e + 1)
        }

        /// The length of `'s 'm 'd 're 've 'll` at `j` (any case), or 0.
        func cliticLength(_ j: Int) -> Int {
            guard isApostrophe(self[j]) else { return 0 }
            let a = lowerASCII(self[j + 1]), b = lowerASCII(self[j + 2])
            if a == 0x73 || a == 0x6D || a == 0x64 { return 2 }  // s m d
            if (a == 0x72 && b == 0x65) || (a == 0x76 && b == 0x65) || (a == 0x6C && b == 0x6C) { return 3 }
            return 0
        }

        /// `{SWORD}/{SREDAUX}`: ASCII letters not ending in "n", before "n't".
        func notClitic(_ i: Int) -> Match? {
            guard isASCIILetter(self[i]) else { return nil }
            var j = i
            while isASCIILetter(self[j]) { j += 1 }
            let k = j - 1
            guard k > i, lowerASCII(self[k]) == 0x6E, isApostropheLike(self[j]), lowerASCII(self[j + 1]) == 0x74,
                lowerASCII(self[k - 1]) != 0x6E
            else { return nil }
            return Match(length: j + 2 - i, end: k, kind: .wordBeforeNot, next: k)
        }

        /// APOWORD and APOWORD2 at a letter: "O'Brien", "Hawai'i", "d'" and "y'" (before a
        /// letter).
        func apostropheWord(_ i: Int) -> Match? {
            let c = self[i]
            var best: Match?
            func offer(_ end: Int, _ length: Int, _ kind: Kind = .apostropheWord) {
                if length > best?.length ?? 0 { best = Match(length: length, end: end, kind: kind, next: end) }
            }
            // [A-HJ-XZn]{APOSETCETERA}[:letter:]{2}[:letter:]*
            if ((c >= 0x41 && c <= 0x5A && c != 0x49 && c != 0x59) || c == 0x6E), isApostropheLike(self[i + 1]),
                isLetter(self[i + 2]), isLetter(self[i + 3])
            {
                var j = i + 4
                while isLetter(self[j]) { j += 1 }
                offer(j, j - i)
            }
            // [lLdDjJ]{APOS}
            switch lowerASCII(c) {
            case 0x6C, 0x64, 0x6A: if isApostrophe(self[i + 1]) { offer(i + 2, 2) }
            default: break
            }
            // [:letter:]+[aeiouyAEIOUY]{APOSETCETERA}[aeiouA-Z][:letter:]*
            if isLetter(c) {
                var j = i
                while isLetter(self[j]) { j += 1 }
                if j - i >= 2, isVowelY(self[j - 1]), isApostropheLike(self[j]),
                    isLowerVowel(self[j + 1]) || (self[j + 1] >= 0x41 && self[j + 1] <= 0x5A)
                {
                    var k = j + 2
                    while isLetter(self[k]) { k += 1 }
                    offer(k, k - i)
                }
            }
            // Dunkin' somethin' ol' c'mon e'er s'mores ev'ry li'l nat'l nor'easter cont'd
            for scalars in CaptionTokenizer.apostropheWords where lowerASCII(c) == scalars[0].value {
                var k = 0
                while k < scalars.count,
                    scalars[k] == "'" ? isApostrophe(self[i + k]) : lowerASCII(self[i + k]) == scalars[k].value
                {
                    k += 1
                }
                if k == scalars.count { offer(i + k, k) }
            }
            // y{APOS}/[:letter:]
            if lowerASCII(c) == 0x79, isApostrophe(self[i + 1]), isLetter(self[i + 2]) { offer(i + 2, 3, .yApostrophe) }
            return best
        }

        /// FULLURL (http, https) and LIKELYURL (a www. host, or a host ending in .com, .net,
        /// .org or .edu, with an optional path).
        func url(_ i: Int) -> Match? {
            func urlChar(_ c: UInt32) -> Bool {
                !(c == 0 || isSpaceValue(c) || c == 0x22 || c == 0x3C || c == 0x3E || c == 0x7C || c == 0x28
                    || c == 0x29)
            }
            func pathEnd(_ start: Int) -> Int {
                var j = start
                while urlChar(self[j]) { j += 1 }
                while j > start, [0x2E, 0x21, 0x3F, 0x7B, 0x7D, 0x2C, 0x2D].contains(self[j - 1]) { j -= 1 }
                return j
            }
            if matchesCaseless("http://", at: i) || matchesCaseless("https://", at: i) {
                let start = i + (lowerASCII(self[i + 4]) == 0x73 ? 8 : 7)
                let end = pathEnd(start)
                guard end > start else { return nil }
                return Match(length: end - i, end: end, kind: .url, next: end)
            }
            /// The longest `(label\.)+` followed by a top-level domain, as `tld` measures it.
            func host(from start: Int, label: (UInt32) -> Bool, tld: (Int) -> Int) -> Int? {
                var best: Int?
                var j = start
                while true {
                    var k = j
                    while label(self[k]) { k += 1 }
                    guard k > j, self[k] == 0x2E else { return best }
                    let t = tld(k + 1)
                    if t > 0 { best = max(best ?? 0, k + 1 + t) }
                    j = k + 1
                }
            }
            var end: Int?
            if matchesCaseless("www.", at: i) {
                end = host(from: i + 4, label: { c in
                    urlChar(c) && ![0x2E, 0x21, 0x3F, 0x7B, 0x7D, 0x2C].contains(c)
                }, tld: { j in
                    var k = j
                    while isASCIILetter(self[k]) && k - j < 4 { k += 1 }
                    return k - j >= 2 ? k - j : 0
                })
            }
            if end == nil {
                end = host(from: i, label: { c in
                    urlChar(c) && !(c >= 0x2C && c <= 0x5F) && ![0x21, 0x3F, 0x7B, 0x7D, 0x24, 0x60, 0x27].contains(c)
                }, tld: { j in
                    ["com", "net", "org", "edu"].contains(where: { matchesCaseless($0, at: j) }) ? 3 : 0
                })
            }
            guard var e = end else { return nil }
            if self[e] == 0x2F {
                let p = pathEnd(e + 1)
                if p > e + 1 { e = p }
            }
            return Match(length: e - i, end: e, kind: .url, next: e)
        }

        /// EMAIL: a local part, "@", dotted host labels and a last label ("a@b.com").
        func email(_ i: Int) -> Match? {
            guard isASCIILetter(self[i]) || isASCIIDigit(self[i]) else { return nil }
            func outside(_ c: UInt32) -> Bool {
                c == 0 || isSpaceValue(c) || [0x22, 0x3C, 0x3E, 0x7C, 0x28, 0x29, 0x7B, 0x7D].contains(c)
            }
            func lastLabel(_ c: UInt32) -> Bool {
                !outside(c) && ![0x5B, 0x5D, 0x2E, 0x2C, 0x3B, 0x3A].contains(c)
            }
            var best: Int?
            var at = i + 1
            while !outside(self[at]) {
                defer { at += 1 }
                guard self[at] == 0x40 else { continue }
                var j = at + 1
                while true {
                    var k = j
                    while lastLabel(self[k]) { k += 1 }
                    if k > j { best = max(best ?? 0, k) }
                    var l = j
                    while !outside(self[l]) && self[l] != 0x2E { l += 1 }
                    guard l > j, self[l] == 0x2E else { break }
                    j = l + 1
                }
            }
            guard let end = best else { return nil }
            return Match(length: end - i, end: end, kind: .email, next: end)
        }

        /// DATE (12/25/2020) and FRAC (1/2, 2-1/2).
        func dateOrFraction(_ i: Int) -> Match? {
            func digits(_ j: Int, max: Int) -> Int {
                var k = j
                while isDigit(self[k]) && k - j < max { k += 1 }
                return k - j
            }
            var best: Match?
            // DATE = {DIGIT}{1,2}[\-\/]{DIGIT}{1,2}[\-\/]{DIGIT}{2,4}
            let a = digits(i, max: 2)
            if a > 0, self[i + a] == 0x2D || self[i + a] == 0x2F {
                let b = digits(i + a + 1, max: 2)
                let p = i + a + 1 + b
                if b > 0, self[p] == 0x2D || self[p] == 0x2F {
                    let y = digits(p + 1, max: 4)
                    if y >= 2 { best = Match(length: p + 1 + y - i, end: p + 1 + y, kind: .date, next: p + 1 + y) }
                }
            }
            // FRAC = ({DIGIT}{1,4}-)?{DIGIT}{1,4}\/{DIGIT}{1,4}
            func fraction(_ j: Int) -> Int? {
                let w = digits(j, max: 4)
                guard w > 0, self[j + w] == 0x2F || self[j + w] == 0x2044 else { return nil }
                let d = digits(j + w + 1, max: 4)
                return d > 0 ? j + w + 1 + d : nil
            }
            var fracEnd = fraction(i)
            let w = digits(i, max: 4)
            if w > 0, self[i + w] == 0x2D, let e = fraction(i + w + 1) { fracEnd = max(fracEnd ?? 0, e) }
            if let e = fracEnd, e - i > (best?.length ?? 0) {
                best = Match(length: e - i, end: e, kind: .fraction, next: e)
            }
            return best
        }

        /// THING3: up to three ASCII parts joined by "/" ("and/or", "24/7", "100km/h").
        func slashed(_ i: Int) -> Match? {
            func part(_ j: Int) -> Int? {
                var k = j
                while isASCIILetter(self[k]) || isASCIIDigit(self[k]) { k += 1 }
                guard k > j else { return nil }
                for _ in 0..<2 {
                    guard self[k] == 0x2D, isASCIILetter(self[k + 1]) else { break }
                    k += 1
                    while isASCIILetter(self[k]) { k += 1 }
                }
                return k
            }
            guard var j = part(i) else { return nil }
            var slashes = 0
            while slashes < 2 {
                let slash = self[j] == 0x5C && self[j + 1] == 0x2F ? j + 2 : (self[j] == 0x2F ? j + 1 : nil)
                guard let after = slash, let e = part(after) else { break }
                j = e
                slashes += 1
            }
            guard slashes > 0 else { return nil }
            return Match(length: j - i, end: j, kind: .slashed, next: j)
        }

        /// Acronyms, single letters and listed abbreviations with their period, and
        /// DOLSIGN ("US$").
        func abbreviation(_ i: Int) -> Match? {
            guard isASCIILetter(self[i]) else { return nil }
            var best: Match?
            // ACRO = [A-Za-z](\.[A-Za-z])+ followed by a period: always keeps it.
            var j = i + 1
            while self[j] == 0x2E && isASCIILetter(self[j + 1]) { j += 2 }
            if j > i + 1, self[j] == 0x2E {
                best = Match(length: j + 1 - i, end: j + 1, kind: .abbreviation, next: j + 1)
            }
            // A single letter and its period, unless a sentence starter follows.
            if self[i + 1] == 0x2E {
                if let length = sentenceStarterLength(after: i + 2) {
                    best = Match(length: 2 + length, end: i + 1, kind: .letterBeforeSentence, next: i + 1)
                } else if best == nil {
                    best = Match(length: 2, end: i + 2, kind: .abbreviation, next: i + 2)
                }
            }
            var e = i
            while isASCIILetter(self[e]) { e += 1 }
            if self[e] == 0x24 {  // [A-Z]*\$
                if (i..<e).allSatisfy({ self[$0] >= 0x41 && self[$0] <= 0x5A }) {
                    let m = Match(length: e + 1 - i, end: e + 1, kind: .currency, next: e + 1)
                    if m.length > (best?.length ?? 0) { best = m }
                }
            }
            guard self[e] == 0x2E, e - i >= 2, e - i <= CaptionTokenizer.longestAbbreviation,
                let word = packedASCIILetters(i, e)
            else { return best }
            if keepsPeriod(word, at: i, end: e), e + 1 - i > (best?.length ?? 0) {
                best = Match(length: e + 1 - i, end: e + 1, kind: .abbreviation, next: e + 1)
            }
            // (Ed|Ph)\.D\.
            if word == 0x6870 || word == 0x6465, lowerASCII(self[e + 1]) == 0x64, self[e + 2] == 0x2E,
                e + 3 - i > (best?.length ?? 0)
            {
                best = Match(length: e + 3 - i, end: e + 3, kind: .abbreviation, next: e + 3)
            }
            return best
        }

        /// The length of the spaces, sentence starter and following space or end after `j`, or
        /// `nil` when what follows does not end the sentence.
        func sentenceStarterLength(after j: Int) -> Int? {
            var k = j
            while isSpaceValue(self[k]) { k += 1 }
            guard k > j, self[k] >= 0x41 && self[k] <= 0x5A else { return nil }
            var e = k + 1
            while isASCIILetter(self[e]) { e += 1 }
            if self[e] == 0x2E { e += 1 }  // "Mr." and "Ms."
            guard e < n ? isSpaceValue(self[e]) : true else { return nil }
            let word = lowercased(k, e)
            guard CaptionTokenizer.sentenceStarters.contains(word) else { return nil }
            return e - j + (e < n ? 1 : 0)
        }

        /// HTHING: ASCII letters, digits, `.` and `,`, then hyphenated parts ("3.5-inch",
        /// "u.s.-based").
        func hyphenatedEnd(_ i: Int) -> Int? {
            guard isASCIILetter(self[i]) || isASCIIDigit(self[i]) else { return nil }
            var j = i + 1
            while isASCIILetter(self[j]) || isASCIIDigit(self[j]) || self[j] == 0x2E || self[j] == 0x2C { j += 1 }
            var parts = 0
            while self[j] == 0x2D {
                var k = j + 1
                while isASCIILetter(self[k]) || isASCIIDigit(self[k]) { k += 1 }
                var acro = j + 2
                while self[acro] == 0x2E && isASCIILetter(self[acro + 1]) { acro += 2 }
                let acroEnd = isASCIILetter(self[j + 1]) && acro > j + 2 && self[acro] == 0x2E ? acro + 1 : j + 1
                let e = max(k, acroEnd)
                guard e > j + 1 else { break }
                j = e
                parts += 1
            }
            return parts > 0 ? j : nil
        }

        /// THING: letters and digits joined by hyphens or underscores, each part optionally
        /// opening with d', o' or l' ("5-year-old", "o'clock", "snake_case").
        func thingEnd(_ i: Int) -> Int? {
            func part(_ j: Int) -> Int? {
                var k = j
                let c = self[k]
                let lower = lowerASCII(c)
                if lower == 0x64 || lower == 0x6F || lower == 0x6C, isApostropheLike(self[k + 1]), isAlnum(self[k + 2]),
                    isAlnum(self[k + 3])
                {
                    k += 4
                } else if isAlnum(c) {
                    k += 1
                } else {
                    return nil
                }
                while isAlnum(self[k]) { k += 1 }
                return k
            }
            guard var j = part(i) else { return nil }
            while isHyphenClass(self[j]), let e = part(j + 1) { j = e }
            return j
        }

        /// THINGA: capitals joined by `&` or `+` ("AT&T", "R&B").
        func capitalsJoined(_ i: Int) -> Match? {
            func isCapital(_ c: UInt32) -> Bool { c >= 0x41 && c <= 0x5A }
            // c++, c#, f#
            let c = lowerASCII(self[i])
            if c == 0x63, self[i + 1] == 0x2B, self[i + 2] == 0x2B {
                return Match(length: 3, end: i + 3, kind: .capitalsJoined, next: i + 3)
            }
            if c == 0x63 || c == 0x66, self[i + 1] == 0x23 {
                return Match(length: 2, end: i + 2, kind: .capitalsJoined, next: i + 2)
            }
            guard isCapital(self[i]) else { return nil }
            var j = i
            while isCapital(self[j]) { j += 1 }
            var parts = 0
            while true {
                var k = j
                if matchesCaseless("&amp;", at: k) {
                    k += 5
                } else if self[k] == 0x26 || self[k] == 0x2B {
                    k += 1
                } else {
                    break
                }
                guard isCapital(self[k]) else { break }
                while isCapital(self[k]) { k += 1 }
                j = k
                parts += 1
            }
            guard parts > 0 else {
                return nil
            }
            if self[j] == 0x2E, isInSentencePunct(self[j + 1]) {
                return Match(length: j + 2 - i, end: j + 1, kind: .capitalsJoined, next: j + 1)
            }
            return Match(length: j - i, end: j, kind: .capitalsJoined, next: j)
        }

        /// NUMBER: an optional sign, digits with `.` `,` `:` between digit runs (".5", "-3",
        /// "10:30", "1,000.5").
        func numberEnd(_ i: Int) -> Int? {
            var j = i
            if self[j] == 0x2D || self[j] == 0x2B { j += 1 }
            let start = j
            while isDigit(self[j]) { j += 1 }
            var sawDigits = j > start
            while (self[j] == 0x2E || self[j] == 0x3A || self[j] == 0x2C) && isDigit(self[j + 1]) {
                j += 2
                while isDigit(self[j]) { j += 1 }
                sawDigits = true
            }
            return sawDigits ? j : nil
        }

        // MARK: Apostrophes, tags, smileys

        /// A token at an apostrophe: a clitic ("'s", "'ll"), an apostrophe word ("'90s",
        /// "'n'", "'em", "'til", "'cause", "'99 "), "'tis" → "'t", "is"; otherwise a quote.
        mutating func apostrophe(_ i: Int) -> Int {
            // A straight ' before a letter reads as an opening quote ('/[A-Za-z]); a curly one
            // before "s" is always the clitic.
            let clitic = cliticLength(i)
            if clitic > 0, s[i] != 0x27 || !isASCIILetter(self[i + clitic]) {
                var token = "'"
                for k in (i + 1)..<(i + clitic) { token.unicodeScalars.append(Unicode.Scalar(lowerASCII(self[k]))!) }
                return emit(token, i + clitic)
            }
            let a = lowerASCII(self[i + 1])
            // {APOS}n{APOS}? ("'n" loses to a quote before a letter or punctuation)
            if a == 0x6E {
                if isApostrophe(self[i + 2]) {
                    emit(i, i + 3)
                    return i + 3
                }
                if i + 2 >= n || isSpaceValue(self[i + 2]) {
                    emit(i, i + 2)
                    return i + 2
                }
            }
            // {APOS}[2-9]0s
            if self[i + 1] >= 0x32 && self[i + 1] <= 0x39, self[i + 2] == 0x30, lowerASCII(self[i + 3]) == 0x73 {
                emit(i, i + 4)
                return i + 4
            }
            // {APOS}[0-9][0-9] before a space or the end
            if isASCIIDigit(self[i + 1]), isASCIIDigit(self[i + 2]), i + 3 >= n || isSpaceValue(self[i + 3]) {
                emit(i, i + 3)
                return i + 3
            }
            for word in ["em", "cause", "till", "til"] where matchesCaseless(word, at: i + 1) {
                let end = i + 1 + word.unicodeScalars.count
                emit(i, end)
                return end
            }
            if matchesCaseless("tis", at: i + 1) {
                emit("'t", i + 2)
                emit(i + 2, i + 4)
                return i + 4
            }
            return s[i] == 0x27 ? i + 1 : quotes(i)
        }

        /// QUOTES: one or two quotation marks as one token, in LaTeX form (‘ → `, ’ → ', “ → ``,
        /// ” → ''; « » ‹ › likewise; ‚ „ ‟ unchanged). The single forms are in pycocoevalcap's
        /// PUNCTUATIONS and dropped, but a pair such as “” becomes "``''" and stays.
        mutating func quotes(_ i: Int) -> Int {
            func latex(_ c: UInt32) -> String? {
                switch c {
                case 0x60, 0x91, 0x2018, 0x201B, 0x2039: "`"
                case 0x92, 0x2019, 0x203A: "'"
                case 0x93, 0x201C, 0xAB: "``"
                case 0x94, 0x201D, 0xBB: "''"
                case 0x201A, 0x201E, 0x201F: String(Unicode.Scalar(c)!)
                default: nil
                }
            }
            guard let first = latex(self[i]) else { return i + 1 }
            var token = first
            var next = i + 1
            if let second = latex(self[i + 1]) {
                token += second
                next = i + 2
            }
            if !["`", "'", "``", "''"].contains(token) { sink.append(token) }
            return next
        }

        /// A simple HTML/SGML tag: `<`, an optional `/`, a letter or `!`, anything but `>`, `>`.
        func tagEnd(_ i: Int) -> Int? {
            var j = i + 1
            if self[j] == 0x2F { j += 1 }
            guard isASCIILetter(self[j]) || self[j] == 0x21 else { return nil }
            while j < n, self[j] != 0x3E { j += 1 }
            return j < n ? j + 1 : nil
        }

        /// `[:;=][-o*']?[()DPdpO|\\@]`, not followed by a letter.
        func smileyEnd(_ i: Int) -> Int? {
            var j = i + 1
            if [0x2D, 0x6F, 0x2A, 0x27].contains(self[j]), isSmileyMouth(self[j + 1]) { j += 1 }
            return isSmileyMouth(self[j]) && !isASCIILetter(self[j + 1]) ? j + 1 : nil
        }

        mutating func emitSmiley(_ i: Int, _ end: Int) -> Int {
            var token = ""
            for k in i..<end {
                switch self[k] {
                case 0x28: token += "-lrb-"
                case 0x29: token += "-rrb-"
                default: token.unicodeScalars.append(Unicode.Scalar(lowerASCII(self[k]))!)
                }
            }
            return emit(token, end)
        }

        // MARK: Output

        @discardableResult
        mutating func emit(_ token: String, _ next: Int) -> Int {
            sink.append(token)
            return next
        }

        mutating func emit(_ start: Int, _ end: Int) {
            guard end > start else { return }
            sink.append(s, start, end)
        }

        /// `s[start..<end]` lowercased.
        func lowercased(_ start: Int, _ end: Int) -> String { CaptionTokenizer.lowercased(s, start, end) }

        func matchesCaseless(_ word: String, at i: Int) -> Bool {
            var k = i
            for w in word.unicodeScalars {
                guard lowerASCII(self[k]) == w.value else { return false }
                k += 1
            }
            return true
        }
    }
}

// MARK: - Character classes

private func lowerASCII(_ c: UInt32) -> UInt32 { c >= 0x41 && c <= 0x5A ? c + 32 : c }
private func isASCIILetter(_ c: UInt32) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
private func isASCIIDigit(_ c: UInt32) -> Bool { c >= 0x30 && c <= 0x39 }
private func isASCIIAlnum(_ c: UInt32) -> Bool { isASCIILetter(c) || isASCIIDigit(c) }
private func isSentencePunct(_ c: UInt32) -> Bool { c == 0x2E || c == 0x21 || c == 0x3F }
private func isInSentencePunct(_ c: UInt32) -> Bool { c == 0x2C || c == 0x3B || c == 0x3A }
private func isApostrophe(_ c: UInt32) -> Bool { c == 0x27 || c == 0x2019 || c == 0x92 }
/// APOSETCETERA: an apostrophe or an opening single quote used as one.
private func isApostropheLike(_ c: UInt32) -> Bool { isApostrophe(c) || c == 0x2018 || c == 0x201B || c == 0x91 }
private func isHyphenClass(_ c: UInt32) -> Bool { c == 0x2D || c == 0x5F || c == 0x58A || c == 0x2010 || c == 0x2011 }
private func isVowelY(_ c: UInt32) -> Bool { isLowerVowel(lowerASCII(c)) || lowerASCII(c) == 0x79 }
private func isLowerVowel(_ c: UInt32) -> Bool {
    switch c {
    case 0x61, 0x65, 0x69, 0x6F, 0x75: true
    default: false
    }
}
private func isSmileyMouth(_ c: UInt32) -> Bool {
    switch c {
    case 0x28, 0x29, 0x44, 0x50, 0x64, 0x70, 0x4F, 0x7C, 0x5C, 0x40: true
    default: false
    }
}
private func isSuperscriptDigit(_ c: UInt32) -> Bool {
    c == 0xB9 || c == 0xB2 || c == 0xB3 || c == 0x2070 || (c >= 0x2074 && c <= 0x2079)
}

/// Whitespace and the invisible characters PTBLexer skips.
private func isSpaceValue(_ c: UInt32) -> Bool {
    switch c {
    case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0xA0, 0x2000...0x200A, 0x2028, 0x2029, 0x3000: true
    default: false
    }
}

/// A letter as PTBLexer's WORD takes it: letters and combining marks of the Basic
/// Multilingual Plane.
private func isLetter(_ c: UInt32) -> Bool {
    if c < 0x80 { return isASCIILetter(c) }
    return c <= 0xFFFF && characterClasses[Int(c)] & letterClass != 0
}

private func isDigit(_ c: UInt32) -> Bool {
    if c < 0x80 { return isASCIIDigit(c) }
    return c <= 0xFFFF && characterClasses[Int(c)] & digitClass != 0
}

private func isAlnum(_ c: UInt32) -> Bool {
    if c < 0x80 { return isASCIILetter(c) || isASCIIDigit(c) }
    return c <= 0xFFFF && characterClasses[Int(c)] & (letterClass | digitClass) != 0
}

/// A symbol or punctuation mark CoreNLP keeps as a token of its own (° © × → ♥ ¡ ¿ § †, full
/// width forms); emoji beyond U+FFFF, joiners, variation selectors and CJK corner brackets
/// are untokenizable there and dropped.
private func isKeptSymbol(_ c: UInt32) -> Bool {
    c <= 0xFFFF && characterClasses[Int(c)] & keptSymbolClass != 0
}

private let letterClass: UInt8 = 1, digitClass: UInt8 = 2, keptSymbolClass: UInt8 = 4

/// `letterClass`, `digitClass` and `keptSymbolClass` of every scalar value of the Basic
/// Multilingual Plane (the classes hold nothing beyond it), worked out once from the
/// Unicode general categories, so that a lookup costs one load.
private let characterClasses: [UInt8] = (0..<0x10000).map { c -> UInt8 in
    guard let scalar = Unicode.Scalar(UInt32(c)) else { return 0 }
    let value = UInt32(c)
    var classes: UInt8 = 0
    switch scalar.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
         .nonspacingMark, .spacingMark, .enclosingMark:
        // Variation selectors and combining marks for symbols ride on emoji and keycaps.
        if !(0xFE00...0xFE0F).contains(value), !(0x20D0...0x20FF).contains(value) { classes |= letterClass }
    case .decimalNumber:
        classes |= digitClass
    case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol, .otherPunctuation,
         .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation, .connectorPunctuation:
        if !(0x300C...0x300F).contains(value), value != 0x2026 { classes |= keptSymbolClass }
    default:
        break
    }
    return classes
}
