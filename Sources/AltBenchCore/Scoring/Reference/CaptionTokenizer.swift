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
/// beyond `[:;=][-o*']?[()DPdpO|\\@]`, URLs glued to the word before them, e-mail addresses
/// whose local part runs on from a word through `[` `]` `“` `”` or a `!` `?` not before a
/// letter ("sofa!@x.com" splits after "sofa"), and carriage returns or Unicode line
/// separators inside a caption (which make pycocoevalcap misalign captions) are not modelled. On the sample's references and model-style texts it gives
/// CoreNLP's tokens exactly (Fixtures/scoring/reference-metrics.json).
public enum CaptionTokenizer {
    /// The lowercased tokens of `text`, without the punctuation pycocoevalcap drops.
    public static func tokenize(_ text: String) -> [String] {
        var scanner = Scanner(Array(text.unicodeScalars))
        var i = 0
        while i < scanner.s.count { i = scanner.step(i) }
        return scanner.tokens
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

    /// Words PTB keeps whole with their apostrophe (APOWORD); `'` stands for any apostrophe.
    static let apostropheWords: [String] = [
        "dunkin'", "somethin'", "ol'", "c'mon", "e'er", "s'mores", "ev'ry", "li'l", "nat'l", "nor'easter",
        "cont'd.", "cont'd",
    ]

    /// Words PTB splits in two, with the length of the first part.
    static let assimilations: [(word: String, split: Int)] = [
        ("cannot", 3), ("gonna", 3), ("gotta", 3), ("wanna", 3), ("lemme", 3), ("gimme", 3),
    ]

    /// Words an apostrophe opens that PTB keeps whole ("'em", "'cause", "'till", "'til").
    static let apostropheOpened = ["em", "cause", "till", "til"]

    /// The top-level domains that make a bare host a URL (LIKELYURL).
    static let urlDomains = ["com", "net", "org", "edu"]

    /// Characters with a fixed token of their own (brackets, currency, vulgar fractions).
    static let replacements: [Unicode.Scalar: String] = [
        "(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-",
        "\u{A2}": "cents", "\u{A3}": "#", "\u{A4}": "$", "\u{80}": "$", "\u{20A0}": "$", "\u{20AC}": "$",
        "\u{BC}": "1/4", "\u{BD}": "1/2", "\u{BE}": "3/4", "\u{2153}": "1/3",
    ]

    /// QUOTES in LaTeX form: ‘ → `, ’ → ', “ → ``, ” → ''; « » ‹ › and their CP1252 forms
    /// likewise; ‚ „ ‟ unchanged.
    static let latexQuotes: [Unicode.Scalar: String] = [
        "`": "`", "\u{91}": "`", "\u{2018}": "`", "\u{201B}": "`", "\u{2039}": "`",
        "\u{92}": "'", "\u{2019}": "'", "\u{203A}": "'",
        "\u{93}": "``", "\u{201C}": "``", "\u{AB}": "``",
        "\u{94}": "''", "\u{201D}": "''", "\u{BB}": "''",
        "\u{201A}": "\u{201A}", "\u{201E}": "\u{201E}", "\u{201F}": "\u{201F}",
    ]
}

// MARK: - Scanner

extension CaptionTokenizer {
    /// One pass over the scalars of a caption, longest match first as JFlex does.
    struct Scanner {
        let s: [Unicode.Scalar]
        var tokens: [String] = []

        init(_ scalars: [Unicode.Scalar]) { s = scalars }

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

        /// The scalar at `i`, or U+0000 past the end.
        subscript(_ i: Int) -> Unicode.Scalar { i < s.count ? s[i] : "\0" }

        /// Scans one token (or skips one ignored character) at `i`; returns where to go on.
        mutating func step(_ i: Int) -> Int {
            let c = s[i]
            if c == " " { return i + 1 }
            if isAlnum(c) { return wordLike(i) }
            switch c {
            case "'", "\u{2019}", "\u{92}":
                return apostrophe(i)
            case "\"":  // becomes `` or '', then dropped
                return i + 1
            case "`", "\u{2018}", "\u{201A}", "\u{201B}", "\u{201C}", "\u{201D}", "\u{201E}", "\u{201F}", "\u{AB}",
                 "\u{BB}", "\u{2039}", "\u{203A}", "\u{91}", "\u{93}", "\u{94}":
                return quotes(i)
            case "<" where self[i + 1] == "<", ">" where self[i + 1] == ">":
                return emit(i, i + 2)
            case "<":
                if let end = tagEnd(i) { return emit(i, end) }
                return emit("<", i + 1)
            case "-":
                let j = runEnd(i) { $0 == "-" }
                if j - i == 1, let end = numberEnd(i) { return emit(i, end) }
                if j - i >= 5 { emit(i, j) }
                return j
            case "+":
                if let end = numberEnd(i) { return emit(i, end) }
                return emit("+", i + 1)
            case ".", ",", ":":
                if let end = numberEnd(i) { return emit(i, end) }
                if c == ":", let end = smileyEnd(i) { return emitSmiley(i, end) }
                if c == "." { return runEnd(i) { $0 == "." } }
                return i + 1
            case ";", "=":
                if let end = smileyEnd(i) { return emitSmiley(i, end) }
                if c == "=" { return emit("=", i + 1) }
                return i + 1
            case "!", "?":
                let j = runEnd(i) { $0 == "!" || $0 == "?" }
                if j - i >= 2 { emit(i, j) }
                return j
            case "@" where isASCIILetter(self[i + 1]) || self[i + 1] == "_":
                return emit(i, runEnd(i + 1) { isASCIIAlnum($0) || $0 == "_" })
            case "*", "@", "_":
                return emit(i, runEnd(i) { $0 == c })
            case "#":
                if isLetter(self[i + 1]) { return emit(i, runEnd(i + 2, while: isAlnum)) }
                return emit(i, runEnd(i) { $0 == "#" })
            case "&":  // & and the entities &amp; &lt; &gt; &quot;
                if matchesCaseless("&amp;", at: i) { return emit("&", i + 5) }
                if matchesCaseless("&lt;", at: i) { return emit("<", i + 4) }
                if matchesCaseless("&gt;", at: i) { return emit(">", i + 4) }
                if matchesCaseless("&quot;", at: i) { return i + 6 }
                return emit("&", i + 1)
            case "$", "%", "~", "^", "|", "\\", "/", ">":
                return emit(i, i + 1)
            case _ where isSuperscriptDigit(c):
                return emit(i, runEnd(i, while: isSuperscriptDigit))
            case "\u{2080}"..."\u{2089}":  // subscript digits
                return emit(i, runEnd(i) { ("\u{2080}"..."\u{2089}").contains($0) })
            default:
                if let token = CaptionTokenizer.replacements[c] { return emit(token, i + 1) }
                if !isSpace(c), isKeptSymbol(c) { emit(i, i + 1) }
                return i + 1
            }
        }

        /// The end of the run of scalars from `i` that satisfy `test`.
        func runEnd(_ i: Int, while test: (Unicode.Scalar) -> Bool) -> Int {
            var j = i
            while j < s.count && test(s[j]) { j += 1 }
            return j
        }

        // MARK: Words

        /// The longest of PTBLexer's word-like rules at `i` (a letter or digit), as they
        /// compete.
        mutating func wordLike(_ i: Int) -> Int {
            var best: Match?
            func offer(_ m: Match?) {
                guard let m else { return }
                if let b = best, b.length > m.length || (b.length == m.length && b.kind <= m.kind) { return }
                best = m
            }
            if let w = wordEnd(i) {
                offer(Match(length: w - i, end: w, kind: .word, next: w))
                let clitic = cliticLength(w)
                if clitic > 0 { offer(Match(length: w - i + clitic, end: w, kind: .wordBeforeClitic, next: w)) }
                offer(periodBefore(w, from: i, kind: .wordPeriod))
            }
            offer(notClitic(i))
            offer(apostropheWord(i))
            if lower(self[i]) == "n", isApostropheLike(self[i + 1]), lower(self[i + 2]) == "t" {
                offer(Match(length: 3, end: i + 3, kind: .not, next: i + 3))
            }
            // A URL is tried only where the letters and digits from `i` run into `.` or `:`; an
            // e-mail address not where they run into `[` `]` `“` `”`, or into `!` `?` before a
            // non-letter (there they stand as a word).
            let alnumEnd = runEnd(i, while: isAlnum), afterAlnum = self[alnumEnd]
            if afterAlnum == "." || afterAlnum == ":" { offer(url(i)) }
            let wordStands = isOneOf(afterAlnum, "[]") || afterAlnum == "\u{201C}" || afterAlnum == "\u{201D}"
                || (isOneOf(afterAlnum, "!?") && !isLetter(self[alnumEnd + 1]))
            if !wordStands { offer(email(i)) }
            if isDigit(self[i]) {
                offer(dateOrFraction(i))
                if let e = numberEnd(i) { offer(Match(length: e - i, end: e, kind: .number, next: e)) }
            }
            offer(slashed(i))
            offer(abbreviation(i))
            if let e = hyphenatedEnd(i) {
                offer(Match(length: e - i, end: e, kind: .hyphenated, next: e))
                offer(periodBefore(e, from: i, kind: .hyphenated))
            }
            if let e = thingEnd(i) {
                offer(Match(length: e - i, end: e, kind: .thing, next: e))
                offer(periodBefore(e, from: i, kind: .thing))
            }
            offer(capitalsJoined(i))
            guard let m = best else { return i + 1 }
            switch m.kind {
            case .not:
                // SREDAUX, with the apostrophe as LaTeX quoting writes it.
                return emit("n" + quoteForm(self[i + 1]) + "t", m.next)
            case .capitalsJoined:
                return emit(lowercased(i, m.end).replacing("&amp;", with: "&"), m.next)
            case .word:
                emitWord(i, m.end)
                return m.next
            default:
                emit(i, m.end)
                return m.next
            }
        }

        /// A plain word, or one PTB splits in two ("cannot" → "can", "not").
        mutating func emitWord(_ i: Int, _ end: Int) {
            let word = lowercased(i, end)
            if let split = CaptionTokenizer.assimilations.first(where: { $0.word == word })?.split {
                emit(String(word.prefix(split)), i + split)
                emit(String(word.dropFirst(split)), end)
            } else {
                emit(word, end)
            }
        }

        /// WORD: a letter, then letters and digits, with `.` `!` `?` joining letter runs.
        func wordEnd(_ i: Int) -> Int? {
            guard isLetter(self[i]) else { return nil }
            var j = runEnd(i + 1, while: isAlnum)
            while isSentencePunct(self[j]) && isLetter(self[j + 1]) {
                j = runEnd(j + 2, while: isAlnum)
            }
            return j
        }

        /// `{WORD}\./{INSENTP}`: a period right before `,` `;` `:` stays on the word.
        func periodBefore(_ e: Int, from i: Int, kind: Kind) -> Match? {
            guard self[e] == ".", isInSentencePunct(self[e + 1]) else { return nil }
            return Match(length: e + 2 - i, end: e + 1, kind: kind, next: e + 1)
        }

        /// The length of `'s 'm 'd 're 've 'll` at `j` (any case), or 0.
        func cliticLength(_ j: Int) -> Int {
            guard isApostrophe(self[j]) else { return 0 }
            let a = lower(self[j + 1]), b = lower(self[j + 2])
            if a == "s" || a == "m" || a == "d" { return 2 }
            if (a == "r" && b == "e") || (a == "v" && b == "e") || (a == "l" && b == "l") { return 3 }
            return 0
        }

        /// `{SWORD}/{SREDAUX}`: ASCII letters not ending in "nn", before "n't" ("do" of "don't").
        func notClitic(_ i: Int) -> Match? {
            guard isASCIILetter(self[i]) else { return nil }
            let j = runEnd(i, while: isASCIILetter)
            let k = j - 1
            guard k > i, lower(self[k]) == "n", isApostropheLike(self[j]), lower(self[j + 1]) == "t",
                lower(self[k - 1]) != "n"
            else { return nil }
            return Match(length: j + 2 - i, end: k, kind: .wordBeforeNot, next: k)
        }

        /// APOWORD and APOWORD2 at a letter: "O'Brien", "Hawai'i", "d'" and "y'" (before a
        /// letter).
        func apostropheWord(_ i: Int) -> Match? {
            // Each has its apostrophe right after its first letters.
            guard isApostropheLike(self[runEnd(i, while: isLetter)]) else { return nil }
            let c = self[i]
            var best: Match?
            func offer(_ end: Int, _ length: Int, _ kind: Kind = .apostropheWord) {
                if length > best?.length ?? 0 { best = Match(length: length, end: end, kind: kind, next: end) }
            }
            // [A-HJ-XZn]{APOSETCETERA}[:letter:]{2}[:letter:]*
            if (("A"..."Z").contains(c) && c != "I" && c != "Y") || c == "n", isApostropheLike(self[i + 1]),
                isLetter(self[i + 2]), isLetter(self[i + 3])
            {
                let j = runEnd(i + 4, while: isLetter)
                offer(j, j - i)
            }
            // [lLdDjJ]{APOS}
            if isOneOf(lower(c), "ldj"), isApostrophe(self[i + 1]) { offer(i + 2, 2) }
            // [:letter:]+[aeiouyAEIOUY]{APOSETCETERA}[aeiouA-Z][:letter:]*
            if isLetter(c) {
                let j = runEnd(i, while: isLetter)
                if j - i >= 2, isVowelOrY(self[j - 1]), isApostropheLike(self[j]),
                    isLowerVowel(self[j + 1]) || ("A"..."Z").contains(self[j + 1])
                {
                    let k = runEnd(j + 2, while: isLetter)
                    offer(k, k - i)
                }
            }
            // Dunkin' somethin' ol' c'mon e'er s'mores ev'ry li'l nat'l nor'easter cont'd
            for word in CaptionTokenizer.apostropheWords {
                var k = i
                let matches = word.unicodeScalars.allSatisfy { w in
                    defer { k += 1 }
                    return w == "'" ? isApostrophe(self[k]) : lower(self[k]) == w
                }
                if matches { offer(k, k - i) }
            }
            // y{APOS}/[:letter:]
            if lower(c) == "y", isApostrophe(self[i + 1]), isLetter(self[i + 2]) { offer(i + 2, 3, .yApostrophe) }
            return best
        }

        /// FULLURL (http, https) and LIKELYURL (a www. host, or a host ending in .com, .net,
        /// .org or .edu, with an optional path).
        func url(_ i: Int) -> Match? {
            func urlChar(_ c: Unicode.Scalar) -> Bool { !(c == "\0" || isSpace(c) || isOneOf(c, "\"<>|()")) }
            func pathEnd(_ start: Int) -> Int {
                var j = runEnd(start, while: urlChar)
                while j > start, isOneOf(self[j - 1], ".!?{},-") { j -= 1 }
                return j
            }
            if matchesCaseless("http://", at: i) || matchesCaseless("https://", at: i) {
                let start = i + (lower(self[i + 4]) == "s" ? 8 : 7)
                let end = pathEnd(start)
                guard end > start else { return nil }
                return Match(length: end - i, end: end, kind: .url, next: end)
            }
            /// The longest `(label\.)+` followed by a top-level domain, as `tld` measures it.
            func host(from start: Int, label: (Unicode.Scalar) -> Bool, tld: (Int) -> Int) -> Int? {
                var best: Int?
                var j = start
                while true {
                    let k = runEnd(j, while: label)
                    guard k > j, self[k] == "." else { return best }
                    let t = tld(k + 1)
                    if t > 0 { best = max(best ?? 0, k + 1 + t) }
                    j = k + 1
                }
            }
            var end: Int?
            if matchesCaseless("www.", at: i) {
                // Labels of URL characters but `.!?{},`; a top-level domain of 2 to 4 letters.
                end = host(from: i + 4, label: { urlChar($0) && !isOneOf($0, ".!?{},") }, tld: { j in
                    let k = runEnd(j) { isASCIILetter($0) }
                    return k - j >= 2 ? min(k - j, 4) : 0
                })
            }
            if end == nil {
                // Labels of URL characters but `,` to `_` (so no digits or capitals) and `!?{}$`'`.
                end = host(from: i, label: { c in
                    urlChar(c) && !(","..."_").contains(c) && !isOneOf(c, "!?{}$`'")
                }, tld: { j in
                    CaptionTokenizer.urlDomains.contains { matchesCaseless($0, at: j) } ? 3 : 0
                })
            }
            guard var e = end else { return nil }
            if self[e] == "/" {
                let p = pathEnd(e + 1)
                if p > e + 1 { e = p }
            }
            return Match(length: e - i, end: e, kind: .url, next: e)
        }

        /// EMAIL: a local part, "@", dotted host labels and a last label ("a@b.com").
        func email(_ i: Int) -> Match? {
            guard isASCIIAlnum(self[i]) else { return nil }
            func outside(_ c: Unicode.Scalar) -> Bool { c == "\0" || isSpace(c) || isOneOf(c, "\"<>|(){}") }
            func lastLabel(_ c: Unicode.Scalar) -> Bool { !outside(c) && !isOneOf(c, "[].,;:") }
            var best: Int?
            var at = i + 1
            while !outside(self[at]) {
                defer { at += 1 }
                guard self[at] == "@" else { continue }
                var j = at + 1
                while true {
                    let k = runEnd(j, while: lastLabel)
                    if k > j { best = max(best ?? 0, k) }
                    let l = runEnd(j) { !outside($0) && $0 != "." }
                    guard l > j, self[l] == "." else { break }
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
            func isDateSeparator(_ c: Unicode.Scalar) -> Bool { c == "-" || c == "/" }
            var best: Match?
            // DATE = {DIGIT}{1,2}[\-\/]{DIGIT}{1,2}[\-\/]{DIGIT}{2,4}
            let a = digits(i, max: 2)
            if a > 0, isDateSeparator(self[i + a]) {
                let b = digits(i + a + 1, max: 2)
                let p = i + a + 1 + b
                if b > 0, isDateSeparator(self[p]) {
                    let y = digits(p + 1, max: 4)
                    if y >= 2 { best = Match(length: p + 1 + y - i, end: p + 1 + y, kind: .date, next: p + 1 + y) }
                }
            }
            // FRAC = ({DIGIT}{1,4}-)?{DIGIT}{1,4}\/{DIGIT}{1,4}, with / or ⁄
            func fraction(_ j: Int) -> Int? {
                let w = digits(j, max: 4)
                guard w > 0, self[j + w] == "/" || self[j + w] == "\u{2044}" else { return nil }
                let d = digits(j + w + 1, max: 4)
                return d > 0 ? j + w + 1 + d : nil
            }
            var fracEnd = fraction(i)
            let w = digits(i, max: 4)
            if w > 0, self[i + w] == "-", let e = fraction(i + w + 1) { fracEnd = max(fracEnd ?? 0, e) }
            if let e = fracEnd, e - i > (best?.length ?? 0) {
                best = Match(length: e - i, end: e, kind: .fraction, next: e)
            }
            return best
        }

        /// THING3: up to three ASCII parts joined by "/" or "\/" ("and/or", "24/7", "100km/h"),
        /// each part letters and digits with up to two hyphenated letter runs.
        func slashed(_ i: Int) -> Match? {
            func part(_ j: Int) -> Int? {
                var k = runEnd(j, while: isASCIIAlnum)
                guard k > j else { return nil }
                for _ in 0..<2 {
                    guard self[k] == "-", isASCIILetter(self[k + 1]) else { break }
                    k = runEnd(k + 1, while: isASCIILetter)
                }
                return k
            }
            guard var j = part(i) else { return nil }
            var slashes = 0
            while slashes < 2 {
                let slash = self[j] == "\\" && self[j + 1] == "/" ? j + 2 : (self[j] == "/" ? j + 1 : nil)
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
            while self[j] == "." && isASCIILetter(self[j + 1]) { j += 2 }
            if j > i + 1, self[j] == "." {
                best = Match(length: j + 1 - i, end: j + 1, kind: .abbreviation, next: j + 1)
            }
            // A single letter and its period, unless a sentence starter follows.
            if self[i + 1] == "." {
                if let length = sentenceStarterLength(after: i + 2) {
                    best = Match(length: 2 + length, end: i + 1, kind: .letterBeforeSentence, next: i + 1)
                } else if best == nil {
                    best = Match(length: 2, end: i + 2, kind: .abbreviation, next: i + 2)
                }
            }
            let e = runEnd(i, while: isASCIILetter)
            // [A-Z]*\$
            if self[e] == "$", (i..<e).allSatisfy({ isASCIICapital(s[$0]) }), e + 1 - i > (best?.length ?? 0) {
                best = Match(length: e + 1 - i, end: e + 1, kind: .currency, next: e + 1)
            }
            guard self[e] == ".", e - i >= 2 else { return best }
            let word = lowercased(i, e)
            if keepsPeriod(word, at: i, end: e), e + 1 - i > (best?.length ?? 0) {
                best = Match(length: e + 1 - i, end: e + 1, kind: .abbreviation, next: e + 1)
            }
            // (Ed|Ph)\.D\.
            if word == "ph" || word == "ed", lower(self[e + 1]) == "d", self[e + 2] == ".", e + 3 - i > (best?.length ?? 0) {
                best = Match(length: e + 3 - i, end: e + 3, kind: .abbreviation, next: e + 3)
            }
            return best
        }

        /// Whether the abbreviation `word` (lowercased, from `i`) keeps the period at `e`:
        /// always for `abbreviations`, capitalised for `capitalizedAbbreviations`, before a
        /// number for `numberAbbreviations`.
        func keepsPeriod(_ word: String, at i: Int, end e: Int) -> Bool {
            if CaptionTokenizer.abbreviations.contains(word) { return true }
            if CaptionTokenizer.capitalizedAbbreviations.contains(word), isASCIICapital(self[i]) { return true }
            if CaptionTokenizer.numberAbbreviations.contains(word) {
                return isDigit(self[e + 1]) || (isSpace(self[e + 1]) && isDigit(self[e + 2]))
            }
            return false
        }

        /// The length of the spaces, sentence starter and following space or end after `j`, or
        /// `nil` when what follows does not end the sentence.
        func sentenceStarterLength(after j: Int) -> Int? {
            let k = runEnd(j, while: isSpace)
            guard k > j, isASCIICapital(self[k]) else { return nil }
            var e = runEnd(k + 1, while: isASCIILetter)
            if self[e] == "." { e += 1 }  // "Mr." and "Ms."
            guard e >= s.count || isSpace(s[e]) else { return nil }
            guard CaptionTokenizer.sentenceStarters.contains(lowercased(k, e)) else { return nil }
            return e - j + (e < s.count ? 1 : 0)
        }

        /// HTHING: ASCII letters, digits, `.` and `,`, then hyphenated parts ("3.5-inch",
        /// "u.s.-based").
        func hyphenatedEnd(_ i: Int) -> Int? {
            guard isASCIIAlnum(self[i]) else { return nil }
            var j = runEnd(i + 1) { isASCIIAlnum($0) || $0 == "." || $0 == "," }
            var parts = 0
            while self[j] == "-" {
                let k = runEnd(j + 1, while: isASCIIAlnum)
                var acro = j + 2
                while self[acro] == "." && isASCIILetter(self[acro + 1]) { acro += 2 }
                let acroEnd = isASCIILetter(self[j + 1]) && acro > j + 2 && self[acro] == "." ? acro + 1 : j + 1
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
                if isOneOf(lower(self[j]), "dol"), isApostropheLike(self[j + 1]), isAlnum(self[j + 2]),
                    isAlnum(self[j + 3])
                {
                    return runEnd(j + 4, while: isAlnum)
                }
                return isAlnum(self[j]) ? runEnd(j + 1, while: isAlnum) : nil
            }
            guard var j = part(i) else { return nil }
            while isHyphen(self[j]), let e = part(j + 1) { j = e }
            return j
        }

        /// THINGA: capitals joined by `&` (or `&amp;`) or `+` ("AT&T", "R&B"), and "c++", "c#",
        /// "f#".
        func capitalsJoined(_ i: Int) -> Match? {
            let c = lower(self[i])
            if c == "c", self[i + 1] == "+", self[i + 2] == "+" {
                return Match(length: 3, end: i + 3, kind: .capitalsJoined, next: i + 3)
            }
            if c == "c" || c == "f", self[i + 1] == "#" {
                return Match(length: 2, end: i + 2, kind: .capitalsJoined, next: i + 2)
            }
            guard isASCIICapital(self[i]) else { return nil }
            var j = runEnd(i, while: isASCIICapital)
            var parts = 0
            while true {
                var k = j
                if matchesCaseless("&amp;", at: k) {
                    k += 5
                } else if self[k] == "&" || self[k] == "+" {
                    k += 1
                } else {
                    break
                }
                guard isASCIICapital(self[k]) else { break }
                j = runEnd(k, while: isASCIICapital)
                parts += 1
            }
            guard parts > 0 else { return nil }
            if self[j] == ".", isInSentencePunct(self[j + 1]) {
                return Match(length: j + 2 - i, end: j + 1, kind: .capitalsJoined, next: j + 1)
            }
            return Match(length: j - i, end: j, kind: .capitalsJoined, next: j)
        }

        /// NUMBER: an optional sign, digits with `.` `,` `:` between digit runs (".5", "-3",
        /// "10:30", "1,000.5").
        func numberEnd(_ i: Int) -> Int? {
            var j = i
            if self[j] == "-" || self[j] == "+" { j += 1 }
            let start = j
            j = runEnd(j, while: isDigit)
            var sawDigits = j > start
            while isOneOf(self[j], ".:,") && isDigit(self[j + 1]) {
                j = runEnd(j + 2, while: isDigit)
                sawDigits = true
            }
            return sawDigits ? j : nil
        }

        // MARK: Apostrophes, quotes, tags, smileys

        /// A token at an apostrophe: a clitic ("'s", "'ll"), an apostrophe word ("'90s",
        /// "'n'", "'em", "'til", "'cause", "'99 "), "'tis" → "'t", "is"; otherwise a quote.
        mutating func apostrophe(_ i: Int) -> Int {
            // A straight ' before a letter reads as an opening quote ('/[A-Za-z]); a curly one
            // before "s" is always the clitic.
            let clitic = cliticLength(i)
            if clitic > 0, s[i] != "'" || !isASCIILetter(self[i + clitic]) {
                return emit("'" + lowercased(i + 1, i + clitic), i + clitic)
            }
            // {APOS}n{APOS}? ("'n" loses to a quote before a letter or punctuation)
            if lower(self[i + 1]) == "n" {
                if isApostrophe(self[i + 2]) { return emit(i, i + 3) }
                if i + 2 >= s.count || isSpace(self[i + 2]) { return emit(i, i + 2) }
            }
            // {APOS}[2-9]0s
            if ("2"..."9").contains(self[i + 1]), self[i + 2] == "0", lower(self[i + 3]) == "s" {
                return emit(i, i + 4)
            }
            // {APOS}[0-9][0-9] before a space or the end
            if isASCIIDigit(self[i + 1]), isASCIIDigit(self[i + 2]), i + 3 >= s.count || isSpace(self[i + 3]) {
                return emit(i, i + 3)
            }
            for word in CaptionTokenizer.apostropheOpened where matchesCaseless(word, at: i + 1) {
                return emit(i, i + 1 + word.unicodeScalars.count)
            }
            if matchesCaseless("tis", at: i + 1) {
                emit("'t", i + 2)
                return emit(i + 2, i + 4)
            }
            return s[i] == "'" ? i + 1 : quotes(i)
        }

        /// QUOTES: one or two quotation marks as one token, in LaTeX form
        /// (``CaptionTokenizer/latexQuotes``). The single forms are in pycocoevalcap's
        /// PUNCTUATIONS and dropped, but a pair such as “” becomes "``''" and stays.
        mutating func quotes(_ i: Int) -> Int {
            guard let first = CaptionTokenizer.latexQuotes[self[i]] else { return i + 1 }
            var token = first, next = i + 1
            if let second = CaptionTokenizer.latexQuotes[self[i + 1]] {
                token += second
                next = i + 2
            }
            if !["`", "'", "``", "''"].contains(token) { tokens.append(token) }
            return next
        }

        /// The form a single quote takes inside "n't": ` for an opening quote, ' otherwise.
        func quoteForm(_ c: Unicode.Scalar) -> String {
            c == "\u{2018}" || c == "\u{201B}" || c == "\u{91}" ? "`" : "'"
        }

        /// A simple HTML/SGML tag: `<`, an optional `/`, a letter or `!`, anything but `>`, `>`.
        func tagEnd(_ i: Int) -> Int? {
            var j = i + 1
            if self[j] == "/" { j += 1 }
            guard isASCIILetter(self[j]) || self[j] == "!" else { return nil }
            j = runEnd(j) { $0 != ">" }
            return j < s.count ? j + 1 : nil
        }

        /// `[:;=][-o*']?[()DPdpO|\\@]`, not followed by a letter.
        func smileyEnd(_ i: Int) -> Int? {
            func isMouth(_ c: Unicode.Scalar) -> Bool { isOneOf(c, "()DPdpO|\\@") }
            var j = i + 1
            if isOneOf(self[j], "-o*'"), isMouth(self[j + 1]) { j += 1 }
            return isMouth(self[j]) && !isASCIILetter(self[j + 1]) ? j + 1 : nil
        }

        /// A smiley, lowercased, with its parentheses as PTB escapes them (":)" → ":-rrb-").
        mutating func emitSmiley(_ i: Int, _ end: Int) -> Int {
            let token = (i..<end).map { k in
                switch s[k] {
                case "(": "-lrb-"
                case ")": "-rrb-"
                default: String(lower(s[k]))
                }
            }
            return emit(token.joined(), end)
        }

        // MARK: Output

        /// Appends `token`; returns `next`.
        @discardableResult
        mutating func emit(_ token: String, _ next: Int) -> Int {
            tokens.append(token)
            return next
        }

        /// Appends `s[start..<end]` lowercased, unless it is empty; returns `end`.
        @discardableResult
        mutating func emit(_ start: Int, _ end: Int) -> Int {
            if end > start { tokens.append(lowercased(start, end)) }
            return end
        }

        /// `s[start..<end]` lowercased.
        func lowercased(_ start: Int, _ end: Int) -> String {
            var utf8: [UInt8] = []
            utf8.reserveCapacity(4 * (end - start))
            for c in s[start..<end] { UTF8.encode(c) { utf8.append($0) } }
            return String(decoding: utf8, as: UTF8.self).lowercased()
        }

        /// Whether `word` (lowercase ASCII) starts at `i`, in any case.
        func matchesCaseless(_ word: String, at i: Int) -> Bool {
            var k = i
            for w in word.unicodeScalars {
                guard lower(self[k]) == w else { return false }
                k += 1
            }
            return true
        }
    }
}

// MARK: - Character classes

private func lower(_ c: Unicode.Scalar) -> Unicode.Scalar { isASCIICapital(c) ? Unicode.Scalar(c.value + 32)! : c }
private func isASCIICapital(_ c: Unicode.Scalar) -> Bool { ("A"..."Z").contains(c) }
private func isASCIILetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
private func isASCIIDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
private func isASCIIAlnum(_ c: Unicode.Scalar) -> Bool { isASCIILetter(c) || isASCIIDigit(c) }
/// Whether `c` is one of the ASCII characters of `set`.
private func isOneOf(_ c: Unicode.Scalar, _ set: StaticString) -> Bool {
    c.isASCII && set.withUTF8Buffer { $0.contains(UInt8(c.value)) }
}
private func isSentencePunct(_ c: Unicode.Scalar) -> Bool { c == "." || c == "!" || c == "?" }
private func isInSentencePunct(_ c: Unicode.Scalar) -> Bool { c == "," || c == ";" || c == ":" }
/// APOS: ' ’ and the CP1252 ’.
private func isApostrophe(_ c: Unicode.Scalar) -> Bool { c == "'" || c == "\u{2019}" || c == "\u{92}" }
/// APOSETCETERA: an apostrophe or an opening single quote used as one (‘ ‛ and the CP1252 ‘).
private func isApostropheLike(_ c: Unicode.Scalar) -> Bool {
    isApostrophe(c) || c == "\u{2018}" || c == "\u{201B}" || c == "\u{91}"
}
/// `-` `_` and the Armenian, Unicode and non-breaking hyphens.
private func isHyphen(_ c: Unicode.Scalar) -> Bool {
    isOneOf(c, "-_") || c == "\u{58A}" || c == "\u{2010}" || c == "\u{2011}"
}
private func isLowerVowel(_ c: Unicode.Scalar) -> Bool { isOneOf(c, "aeiou") }
private func isVowelOrY(_ c: Unicode.Scalar) -> Bool { isOneOf(lower(c), "aeiouy") }
private func isSuperscriptDigit(_ c: Unicode.Scalar) -> Bool {
    c == "\u{B9}" || c == "\u{B2}" || c == "\u{B3}" || c == "\u{2070}" || ("\u{2074}"..."\u{2079}").contains(c)
}

/// Whitespace and the invisible characters PTBLexer skips.
private func isSpace(_ c: Unicode.Scalar) -> Bool {
    switch c {
    case " ", "\t", "\n", "\u{0B}", "\u{0C}", "\r", "\u{85}", "\u{A0}", "\u{2000}"..."\u{200A}", "\u{2028}", "\u{2029}",
         "\u{3000}":
        true
    default:
        false
    }
}

/// A letter as PTBLexer's WORD takes it: letters and combining marks of the Basic
/// Multilingual Plane, but variation selectors and combining marks for symbols, which ride on
/// emoji and keycaps.
private func isLetter(_ c: Unicode.Scalar) -> Bool {
    if c.isASCII { return isASCIILetter(c) }
    guard c.value <= 0xFFFF, !("\u{FE00}"..."\u{FE0F}").contains(c), !("\u{20D0}"..."\u{20FF}").contains(c) else {
        return false
    }
    switch c.properties.generalCategory {
    case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
         .nonspacingMark, .spacingMark, .enclosingMark:
        return true
    default:
        return false
    }
}

/// A decimal digit of the Basic Multilingual Plane.
private func isDigit(_ c: Unicode.Scalar) -> Bool {
    if c.isASCII { return isASCIIDigit(c) }
    return c.value <= 0xFFFF && c.properties.generalCategory == .decimalNumber
}

private func isAlnum(_ c: Unicode.Scalar) -> Bool { isLetter(c) || isDigit(c) }

/// A symbol or punctuation mark CoreNLP keeps as a token of its own (° © × → ♥ ¡ ¿ § †, full
/// width forms); emoji beyond U+FFFF, joiners, variation selectors, CJK corner brackets and
/// the ellipsis are untokenizable there or dropped.
private func isKeptSymbol(_ c: Unicode.Scalar) -> Bool {
    guard c.value <= 0xFFFF, !("\u{300C}"..."\u{300F}").contains(c), c != "\u{2026}" else { return false }
    switch c.properties.generalCategory {
    case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol, .otherPunctuation,
         .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation, .connectorPunctuation:
        return true
    default:
        return false
    }
}
