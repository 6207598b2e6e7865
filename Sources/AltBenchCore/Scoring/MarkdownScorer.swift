/// Flags Markdown or HTML in the answer (altbench research; GitHub's rendering of alt text).
///
/// Alt text is plain text: the fediverse, GitHub's `![alt](src)` and HTML's `alt` attribute
/// all show it as written, so a screen reader reads "star star" or "less than b greater
/// than" aloud. Flagged, in CommonMark/GFM terms:
/// - Emphasis: `**bold**`, `__bold__`, `*emphasis*`, `_emphasis_`, `~~strike~~` around
///   letters or digits, on one line. An opening mark must not follow a letter or digit and
///   must come before a letter, digit, quotation mark or bracket; a closing mark must follow
///   a character that is neither a space nor another mark, and not precede a letter or digit.
/// - Line starts (after up to three spaces): `#` to `######` headings, `> ` block quotes,
///   fences of three backticks or tildes, `---`/`***`/`___` rules, `|---|` table rows, and
///   `- `, `* `, `+ ` list markers when the answer has more than one line or the marker
///   opens it.
/// - Numbered list markers (`1. `, `1) `) at the start of two lines or more. One numbered line
///   is an ordinal, as in "1. FC Köln" or the German "2. Platz", and passes.
/// - Code spans in backticks, fences of three backticks anywhere, `[text](url)` links and
///   `![alt](src)` images,
///   HTML tags (`<b>`, `<br>`, `<br/>`, `<img src=…>`, `</p>`, `<!--`), `<https://…>`
///   autolinks and HTML entities (`&amp;`, `&#39;`, `&nbsp;`).
///
/// Not flagged: "C#", "#1", hashtags, "5 * 3 = 15", "a*b", "snake_case_name", "a <3 heart",
/// "x < y > z", "-5°C", "Mr. T", emoticons (":-)", "*_*", "^_^"), a footnote asterisk
/// ("Open*") and unknown tags ("<Hello>"). Quoted text is not exempt: a screen reader reads
/// the marks inside quotation marks too.
///
/// Most answers contain none of the characters * _ # [ < > ~ | & nor a backtick or a line
/// break, and pass after one byte scan of the UTF-8 text. The detail is the first markup found, as written, cut to
/// 40 characters: "**Alt text:**", "# Heading", "<br>".
public struct MarkdownScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        var text = input.text
        let detail = text.withUTF8 { Self.markup(in: $0) }
        guard let detail else { return Self.passed }
        return [.flag(ScoreName.markdown, true, detail: detail)]
    }

    /// The score of an answer that passes, made once.
    static let passed = [Score.flag(ScoreName.markdown, false)]

    /// The first markup in the UTF-8 `bytes`, as written and cut to 40 characters, or `nil`.
    static func markup(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard hasCandidate(bytes), let range = firstMarkup(in: bytes) else { return nil }
        var end = range.upperBound
        while end > range.lowerBound, isSpace(bytes[end - 1]) { end -= 1 }
        let found = String(decoding: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<end]), as: UTF8.self)
        // At most 40 bytes are at most 40 characters.
        return found.utf8.count > 40 && found.count > 40 ? String(found.prefix(39)) + "\u{2026}" : found
    }

    // MARK: - Bytes

    private static let asterisk = UInt8(ascii: "*")
    private static let underscore = UInt8(ascii: "_")
    private static let backtick = UInt8(ascii: "`")
    private static let tilde = UInt8(ascii: "~")
    private static let newline = UInt8(ascii: "\n")

    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool {
        b == 32 || b == 9 || b == 10 || b == 13
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool {
        b >= 48 && b <= 57
    }

    @inline(__always)
    static func isAlphanumeric(_ b: UInt8) -> Bool {
        let folded = b | 0x20
        return isDigit(b) || (folded >= 97 && folded <= 122)
    }

    /// A letter or digit, counting every non-ASCII byte as part of a word ("é", "猫").
    @inline(__always)
    static func isWordByte(_ b: UInt8) -> Bool {
        b >= 0x80 || isAlphanumeric(b)
    }

    /// Whether any byte could start markup: the common path, one pass sixteen bytes at a
    /// time, no allocation.
    static func hasCandidate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { return true }
        return ByteScan.containsByte(bytes) { v in
            func equals(_ b: UInt8) -> ByteScan.Mask { v .== ByteScan.Lanes(repeating: b) }
            return equals(asterisk) .| equals(underscore) .| equals(backtick) .| equals(tilde) .| equals(newline)
                .| equals(UInt8(ascii: "#")) .| equals(UInt8(ascii: "[")) .| equals(UInt8(ascii: "<"))
                .| equals(UInt8(ascii: ">")) .| equals(UInt8(ascii: "|")) .| equals(UInt8(ascii: "&"))
        }
    }

    /// ``hasCandidate(_:)`` one byte at a time; the tests check that both agree.
    static func hasCandidateByteByByte(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { return true }
        for b in bytes {
            switch b {
            case asterisk, underscore, backtick, tilde, newline, UInt8(ascii: "#"), UInt8(ascii: "["),
                UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "|"), UInt8(ascii: "&"):
                return true
            default:
                continue
            }
        }
        return false
    }

    /// The end of the line that holds `index` (the index of its line break, or the count).
    @inline(__always)
    static func lineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        ByteScan.firstIndex(of: newline, in: bytes, from: index) ?? bytes.count
    }

    /// The byte range of the first markup, or `nil`.
    static func firstMarkup(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let n = bytes.count
        let multiLine = ByteScan.firstIndex(of: newline, in: bytes, from: 0) != nil
        var numberedLine: Range<Int>?
        var atLineStart = true
        var i = 0
        while i < n {
            if atLineStart {
                atLineStart = false
                if let found = lineMarkup(bytes, at: i, multiLine: multiLine, numberedLine: &numberedLine) {
                    return found
                }
            }
            let b = bytes[i]
            var next = i + 1
            switch b {
            case newline:
                atLineStart = true
            case asterisk, underscore, tilde:
                let run = runLength(bytes, at: i)
                if let found = emphasis(bytes, at: i, run: run) { return found }
                next = i + run
            case backtick:
                let run = runLength(bytes, at: i)
                if let found = code(bytes, at: i, run: run) { return found }
                next = i + run
            case UInt8(ascii: "["):
                if let found = link(bytes, at: i) { return found }
            case UInt8(ascii: "!"):
                if i + 1 < n, bytes[i + 1] == UInt8(ascii: "["), let found = link(bytes, at: i + 1) {
                    return i..<found.upperBound
                }
            case UInt8(ascii: "<"):
                if let found = htmlTag(bytes, at: i) { return found }
            case UInt8(ascii: "&"):
                if let found = entity(bytes, at: i) { return found }
            default:
                break
            }
            i = next
        }
        return nil
    }

    @inline(__always)
    static func runLength(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        var j = i + 1
        while j < bytes.count, bytes[j] == bytes[i] { j += 1 }
        return j - i
    }

    // MARK: - Line starts

    /// Markup that opens the line starting at `start`: a heading, block quote, fence, rule,
    /// table row or list marker. Numbered lines are collected in `numberedLine` and count
    /// from the second one.
    static func lineMarkup(
        _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, multiLine: Bool, numberedLine: inout Range<Int>?
    ) -> Range<Int>? {
        let n = bytes.count
        let end = lineEnd(bytes, from: start)
        var p = start
        while p < end, p < start + 3, bytes[p] == 32 { p += 1 }
        guard p < end else { return nil }
        let b = bytes[p]
        let line = p..<end

        func spaceAt(_ k: Int) -> Bool { k < n && (bytes[k] == 32 || bytes[k] == 9) }

        switch b {
        case UInt8(ascii: "#"):
            let run = runLength(bytes, at: p)
            if run <= 6, spaceAt(p + run) { return line }
        case UInt8(ascii: ">"):
            if spaceAt(p + 1) || (p + 1 < end && bytes[p + 1] == b) { return line }
        case backtick, tilde:
            if runLength(bytes, at: p) >= 3 { return line }
        case UInt8(ascii: "|"):
            if isTableRule(bytes[line]) { return line }
        default:
            break
        }
        if b == UInt8(ascii: "-") || b == asterisk || b == underscore, isRule(bytes[line], mark: b) {
            return line
        }
        if b == UInt8(ascii: "-") || b == asterisk || b == UInt8(ascii: "+"), spaceAt(p + 1),
            multiLine || start == 0, bytes[(p + 1)..<end].contains(where: { !isSpace($0) })
        {
            return line
        }
        if isDigit(b) {
            var k = p
            while k < end, k < p + 9, isDigit(bytes[k]) { k += 1 }
            if k < end, bytes[k] == UInt8(ascii: ".") || bytes[k] == UInt8(ascii: ")"), spaceAt(k + 1) {
                if let first = numberedLine { return first }
                numberedLine = line
            }
        }
        return nil
    }

    /// A thematic break: three or more of the same `mark`, spaces allowed, nothing else.
    static func isRule(_ line: Slice<UnsafeBufferPointer<UInt8>>, mark: UInt8) -> Bool {
        var count = 0
        for b in line {
            if b == mark {
                count += 1
            } else if b != 32, b != 9, b != 13 {
                return false
            }
        }
        return count >= 3
    }

    /// A table's delimiter row: only | - : and spaces, with at least one | and three dashes.
    static func isTableRule(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var dashes = 0
        for b in line {
            switch b {
            case UInt8(ascii: "-"): dashes += 1
            case UInt8(ascii: "|"), UInt8(ascii: ":"), 32, 9, 13: continue
            default: return false
            }
        }
        return dashes >= 3
    }

    // MARK: - Inline

    /// `**bold**`, `*emphasis*`, `__bold__`, `_emphasis_` or `~~strike~~` opening at `i`,
    /// where a run of `run` marks starts.
    static func emphasis(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, run: Int) -> Range<Int>? {
        let n = bytes.count
        let mark = bytes[i]
        if mark == tilde, run != 2 { return nil }
        let open = i + run
        guard open < n, opensEmphasis(bytes[open]) else { return nil }
        if i > 0 {
            let before = bytes[i - 1]
            // "a*b" is arithmetic and "snake_case" one identifier; "“*Open*”" is emphasis.
            if mark == underscore ? isWordByte(before) : isAlphanumeric(before) { return nil }
        }
        let wanted = min(run, 2)
        var j = open
        while j < n, bytes[j] != newline {
            guard bytes[j] == mark else {
                j += 1
                continue
            }
            let closing = runLength(bytes, at: j)
            let after = j + closing < n ? bytes[j + closing] : nil
            let closes =
                closing >= wanted && !isSpace(bytes[j - 1]) && !isEmphasisMark(bytes[j - 1])
                && (after.map { mark == underscore ? !isWordByte($0) : !isAlphanumeric($0) } ?? true)
            if closes, bytes[open..<j].contains(where: isWordByte) {
                return i..<(j + closing)
            }
            j += closing
        }
        return nil
    }

    /// Whether emphasised text may start with `b`: a letter, a digit, a quotation mark or a
    /// bracket, so the marks of "*_*" or "*** SALE ***" are not emphasis.
    @inline(__always)
    static func opensEmphasis(_ b: UInt8) -> Bool {
        isWordByte(b) || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") || b == UInt8(ascii: "(")
            || b == UInt8(ascii: "[")
    }

    @inline(__always)
    static func isEmphasisMark(_ b: UInt8) -> Bool {
        b == asterisk || b == underscore || b == tilde || b == UInt8(ascii: "^")
    }

    /// A code span or a fence opening at `i`, where a run of `run` backticks starts.
    static func code(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int, run: Int) -> Range<Int>? {
        if run >= 3 { return i..<lineEnd(bytes, from: i) }
        if i > 0, isAlphanumeric(bytes[i - 1]) { return nil }
        let n = bytes.count
        var j = i + run
        while j < n, bytes[j] != newline {
            guard bytes[j] == backtick else {
                j += 1
                continue
            }
            let closing = runLength(bytes, at: j)
            if closing == run, j > i + run, bytes[(i + run)..<j].contains(where: { !isSpace($0) }),
                j + closing == n || !isAlphanumeric(bytes[j + closing])
            {
                return i..<(j + closing)
            }
            j += closing
        }
        return nil
    }

    /// `[text](url)` with the `[` at `i`, on one line.
    static func link(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Range<Int>? {
        let n = bytes.count
        var j = i + 1
        while j < n, bytes[j] != UInt8(ascii: "]"), bytes[j] != newline { j += 1 }
        guard j + 2 < n, bytes[j] == UInt8(ascii: "]"), bytes[j + 1] == UInt8(ascii: "("),
            !isSpace(bytes[j + 2]), bytes[j + 2] != UInt8(ascii: ")")
        else { return nil }
        var k = j + 2
        while k < n, bytes[k] != UInt8(ascii: ")"), bytes[k] != newline { k += 1 }
        guard k < n, bytes[k] == UInt8(ascii: ")") else { return nil }
        return i..<(k + 1)
    }

    /// HTML tag names a model writes into alt text.
    static let tagNames: Set<String> = [
        "a", "abbr", "b", "blockquote", "body", "br", "caption", "center", "cite", "code", "del",
        "details", "div", "em", "figcaption", "figure", "font", "h1", "h2", "h3", "h4", "h5", "h6",
        "head", "hr", "html", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "picture", "pre",
        "q", "s", "section", "small", "span", "strike", "strong", "sub", "summary", "sup", "table",
        "tbody", "td", "th", "thead", "tr", "u", "ul",
    ]

    /// An HTML tag, comment or autolink opening at `i`: `<b>`, `</p>`, `<br/>`,
    /// `<img src="…">`, `<!--`, `<https://…>`.
    static func htmlTag(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Range<Int>? {
        let n = bytes.count
        var j = i + 1
        guard j < n else { return nil }
        if bytes[j] == UInt8(ascii: "!"), j + 2 < n, bytes[j + 1] == UInt8(ascii: "-"),
            bytes[j + 2] == UInt8(ascii: "-")
        {
            return i..<(j + 3)
        }
        if bytes[j] == UInt8(ascii: "/") { j += 1 }
        let nameStart = j
        while j < n, isAlphanumeric(bytes[j]), j - nameStart < 11 { j += 1 }
        guard j > nameStart, j < n, isAlphanumeric(bytes[nameStart]), !isDigit(bytes[nameStart]) else {
            return nil
        }
        var name = ""
        for b in bytes[nameStart..<j] { name.unicodeScalars.append(Unicode.Scalar(b | 0x20)) }
        let closer = lineEnd(bytes, from: j)
        let close = bytes[j..<closer].firstIndex(of: UInt8(ascii: ">"))
        if (name == "http" || name == "https"), bytes[j] == UInt8(ascii: ":"), let close {
            return i..<(close + 1)
        }
        guard tagNames.contains(name), let close else { return nil }
        switch bytes[j] {
        case UInt8(ascii: ">"):
            return i..<(j + 1)
        case UInt8(ascii: "/"):
            return j + 1 < n && bytes[j + 1] == UInt8(ascii: ">") ? i..<(j + 2) : nil
        case 32, 9:
            // Attributes: no other "<" before the ">".
            return bytes[j..<close].contains(UInt8(ascii: "<")) ? nil : i..<(close + 1)
        default:
            return nil
        }
    }

    /// Named entities a model writes for punctuation.
    static let entityNames: Set<String> = [
        "amp", "lt", "gt", "quot", "apos", "nbsp", "mdash", "ndash", "hellip", "copy", "reg",
        "trade", "rsquo", "lsquo", "ldquo", "rdquo", "deg", "eacute", "euro", "pound",
    ]

    /// An HTML entity at `i`: `&amp;`, `&#39;`, `&#x27;`.
    static func entity(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Range<Int>? {
        let n = bytes.count
        var j = i + 1
        guard j < n else { return nil }
        if bytes[j] == UInt8(ascii: "#") {
            j += 1
            let hex = j < n && (bytes[j] | 0x20) == UInt8(ascii: "x")
            if hex { j += 1 }
            let digitsStart = j
            while j < n, j - digitsStart < 7,
                hex ? isAlphanumeric(bytes[j]) && (isDigit(bytes[j]) || (bytes[j] | 0x20) <= UInt8(ascii: "f")) : isDigit(bytes[j])
            {
                j += 1
            }
            guard j > digitsStart, j < n, bytes[j] == UInt8(ascii: ";") else { return nil }
            return i..<(j + 1)
        }
        var name = ""
        while j < n, j - i <= 7, isAlphanumeric(bytes[j]) {
            name.unicodeScalars.append(Unicode.Scalar(bytes[j]))
            j += 1
        }
        guard j < n, bytes[j] == UInt8(ascii: ";"), entityNames.contains(name) else { return nil }
        return i..<(j + 1)
    }
}
