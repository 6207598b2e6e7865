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
///   `![alt](src)` images, HTML tags (``tagNames``: `<b>`, `<br>`, `<br/>`, `<img src=…>`,
///   `</p>`), comments (`<!--`), `<https://…>` autolinks and HTML entities (``entityNames``:
///   `&amp;`, `&nbsp;`; and numeric ones, `&#39;`, `&#x27;`).
///
/// Not flagged: "C#", "#1", hashtags, "5 * 3 = 15", "a*b", "snake_case_name", "a <3 heart",
/// "x < y > z", "-5°C", "Mr. T", emoticons (":-)", "*_*", "^_^"), a footnote asterisk
/// ("Open*") and unknown tags ("<Hello>"). Quoted text is not exempt: a screen reader reads
/// the marks inside quotation marks too.
///
/// The text is read as Unicode scalars; every scalar beyond ASCII counts as part of a word
/// ("é", "猫"). The detail is the first markup found, as written, cut to 40 characters:
/// "**Alt text:**", "# Heading", "<br>".
public struct MarkdownScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let detail = Self.markup(in: input.text) else { return [.flag(ScoreName.markdown, false)] }
        return [.flag(ScoreName.markdown, true, detail: detail)]
    }

    /// HTML tag names a model writes into alt text.
    static let tagNames: Set<String> = [
        "a", "abbr", "b", "blockquote", "body", "br", "caption", "center", "cite", "code", "del",
        "details", "div", "em", "figcaption", "figure", "font", "h1", "h2", "h3", "h4", "h5", "h6",
        "head", "hr", "html", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "picture", "pre",
        "q", "s", "section", "small", "span", "strike", "strong", "sub", "summary", "sup", "table",
        "tbody", "td", "th", "thead", "tr", "u", "ul",
    ]

    /// Named entities a model writes for punctuation.
    static let entityNames: Set<String> = [
        "amp", "lt", "gt", "quot", "apos", "nbsp", "mdash", "ndash", "hellip", "copy", "reg",
        "trade", "rsquo", "lsquo", "ldquo", "rdquo", "deg", "eacute", "euro", "pound",
    ]

    /// The first markup in `text`, as written and cut to 40 characters, or `nil`.
    static func markup(in text: String) -> String? {
        let s = Array(text.unicodeScalars)
        guard var range = Scan(s).firstMarkup() else { return nil }
        while !range.isEmpty, isSpace(s[range.upperBound - 1]) { range = range.dropLast() }
        var found = ""
        found.unicodeScalars.append(contentsOf: s[range])
        return found.count > 40 ? String(found.prefix(39)) + "\u{2026}" : found
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
    static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
    static func isAlphanumeric(_ c: Unicode.Scalar) -> Bool {
        isDigit(c) || ("a"..."z").contains(c) || ("A"..."Z").contains(c)
    }
    /// A letter or digit, counting every scalar beyond ASCII as part of a word.
    static func isWord(_ c: Unicode.Scalar) -> Bool { !c.isASCII || isAlphanumeric(c) }

    /// One answer's scalars, and the rules read over them.
    struct Scan {
        let s: [Unicode.Scalar]
        init(_ s: [Unicode.Scalar]) { self.s = s }

        /// The range of the first markup, or `nil`.
        func firstMarkup() -> Range<Int>? {
            let multiLine = s.contains("\n")
            var numberedLine: Range<Int>?
            var i = 0
            while i < s.count {
                if i == 0 || s[i - 1] == "\n",
                    let found = lineMarkup(at: i, multiLine: multiLine, numberedLine: &numberedLine)
                {
                    return found
                }
                let run = runLength(at: i)
                var found: Range<Int>?
                switch s[i] {
                case "*", "_", "~": found = emphasis(at: i, run: run)
                case "`": found = code(at: i, run: run)
                case "[": found = link(at: i)
                case "!": found = i + 1 < s.count && s[i + 1] == "[" ? link(at: i + 1).map { i..<$0.upperBound } : nil
                case "<": found = htmlTag(at: i)
                case "&": found = entity(at: i)
                default: break
                }
                if let found { return found }
                // A run of marks is read once.
                i += "*_~`".unicodeScalars.contains(s[i]) ? run : 1
            }
            return nil
        }

        func runLength(at i: Int) -> Int {
            var j = i + 1
            while j < s.count, s[j] == s[i] { j += 1 }
            return j - i
        }

        /// The end of the line that holds `i` (the index of its line break, or the count).
        func lineEnd(from i: Int) -> Int { s[i...].firstIndex(of: "\n") ?? s.count }

        func isBlank(at k: Int) -> Bool { k < s.count && (s[k] == " " || s[k] == "\t") }

        // MARK: Line starts

        /// Markup that opens the line starting at `start`: a heading, block quote, fence, rule,
        /// table row or list marker. Numbered lines are collected in `numberedLine` and count
        /// from the second one.
        func lineMarkup(at start: Int, multiLine: Bool, numberedLine: inout Range<Int>?) -> Range<Int>? {
            let end = lineEnd(from: start)
            var p = start
            while p < end, p < start + 3, s[p] == " " { p += 1 }
            guard p < end else { return nil }
            let c = s[p]
            let line = p..<end
            let run = runLength(at: p)
            if c == "#", run <= 6, isBlank(at: p + run) { return line }
            if c == ">", isBlank(at: p + 1) || (p + 1 < end && s[p + 1] == ">") { return line }
            if c == "`" || c == "~", run >= 3 { return line }
            if c == "|", isTableRule(line) { return line }
            if c == "-" || c == "*" || c == "_", isRule(line, mark: c) { return line }
            if c == "-" || c == "*" || c == "+", isBlank(at: p + 1), multiLine || start == 0,
                s[(p + 1)..<end].contains(where: { !MarkdownScorer.isSpace($0) })
            {
                return line
            }
            var k = p
            while k < end, k < p + 9, MarkdownScorer.isDigit(s[k]) { k += 1 }
            if k > p, k < end, s[k] == "." || s[k] == ")", isBlank(at: k + 1) {
                if let first = numberedLine { return first }
                numberedLine = line
            }
            return nil
        }

        /// A thematic break: three or more of the same `mark`, spaces allowed, nothing else.
        func isRule(_ line: Range<Int>, mark: Unicode.Scalar) -> Bool {
            s[line].allSatisfy { $0 == mark || $0 == " " || $0 == "\t" || $0 == "\r" }
                && s[line].filter { $0 == mark }.count >= 3
        }

        /// A table's delimiter row: only | - : and spaces, with at least one | and three dashes.
        func isTableRule(_ line: Range<Int>) -> Bool {
            s[line].allSatisfy { "|-: \t\r".unicodeScalars.contains($0) } && s[line].filter { $0 == "-" }.count >= 3
        }

        // MARK: Inline

        /// `**bold**`, `*emphasis*`, `__bold__`, `_emphasis_` or `~~strike~~` opening at `i`,
        /// where a run of `run` marks starts.
        func emphasis(at i: Int, run: Int) -> Range<Int>? {
            let mark = s[i]
            if mark == "~", run != 2 { return nil }
            let open = i + run
            guard open < s.count, opensEmphasis(s[open]) else { return nil }
            // "a*b" is arithmetic and "snake_case" one identifier; "“*Open*”" is emphasis.
            func isWordAround(_ c: Unicode.Scalar) -> Bool {
                mark == "_" ? MarkdownScorer.isWord(c) : MarkdownScorer.isAlphanumeric(c)
            }
            if i > 0, isWordAround(s[i - 1]) { return nil }
            var j = open
            while j < s.count, s[j] != "\n" {
                guard s[j] == mark else {
                    j += 1
                    continue
                }
                let closing = runLength(at: j)
                let closes =
                    closing >= min(run, 2) && !MarkdownScorer.isSpace(s[j - 1])
                    && !"*_~^".unicodeScalars.contains(s[j - 1])
                    && (j + closing == s.count || !isWordAround(s[j + closing]))
                if closes, s[open..<j].contains(where: MarkdownScorer.isWord) { return i..<(j + closing) }
                j += closing
            }
            return nil
        }

        /// Whether emphasised text may start with `c`: a letter, a digit, a quotation mark or a
        /// bracket, so the marks of "*_*" or "*** SALE ***" are not emphasis.
        func opensEmphasis(_ c: Unicode.Scalar) -> Bool {
            MarkdownScorer.isWord(c) || c == "\"" || c == "'" || c == "(" || c == "["
        }

        /// A code span or a fence opening at `i`, where a run of `run` backticks starts.
        func code(at i: Int, run: Int) -> Range<Int>? {
            if run >= 3 { return i..<lineEnd(from: i) }
            if i > 0, MarkdownScorer.isAlphanumeric(s[i - 1]) { return nil }
            var j = i + run
            while j < s.count, s[j] != "\n" {
                guard s[j] == "`" else {
                    j += 1
                    continue
                }
                let closing = runLength(at: j)
                if closing == run, s[(i + run)..<j].contains(where: { !MarkdownScorer.isSpace($0) }),
                    j + closing == s.count || !MarkdownScorer.isAlphanumeric(s[j + closing])
                {
                    return i..<(j + closing)
                }
                j += closing
            }
            return nil
        }

        /// `[text](url)` with the `[` at `i`, on one line.
        func link(at i: Int) -> Range<Int>? {
            guard let close = s[(i + 1)...].firstIndex(where: { $0 == "]" || $0 == "\n" }),
                close + 2 < s.count, s[close] == "]", s[close + 1] == "(",
                !MarkdownScorer.isSpace(s[close + 2]), s[close + 2] != ")",
                let end = s[(close + 2)...].firstIndex(where: { $0 == ")" || $0 == "\n" }), s[end] == ")"
            else { return nil }
            return i..<(end + 1)
        }

        /// An HTML tag, comment or autolink opening at `i`: `<b>`, `</p>`, `<br/>`,
        /// `<img src="…">`, `<!--`, `<https://…>`.
        func htmlTag(at i: Int) -> Range<Int>? {
            if s[(i + 1)...].starts(with: "!--".unicodeScalars) { return i..<(i + 4) }
            let nameStart = i + 1 < s.count && s[i + 1] == "/" ? i + 2 : i + 1
            var j = nameStart
            while j < s.count, j - nameStart < 11, MarkdownScorer.isAlphanumeric(s[j]) { j += 1 }
            guard j > nameStart, j < s.count, !MarkdownScorer.isDigit(s[nameStart]) else { return nil }
            let name = String(String.UnicodeScalarView(s[nameStart..<j])).lowercased()
            let close = s[j..<lineEnd(from: j)].firstIndex(of: ">")
            if name == "http" || name == "https", s[j] == ":", let close { return i..<(close + 1) }
            guard MarkdownScorer.tagNames.contains(name), let close else { return nil }
            switch s[j] {
            case ">": return i..<(j + 1)
            case "/": return j + 1 < s.count && s[j + 1] == ">" ? i..<(j + 2) : nil
            // Attributes: no other "<" before the ">".
            case " ", "\t": return s[j..<close].contains("<") ? nil : i..<(close + 1)
            default: return nil
            }
        }

        /// An HTML entity at `i`: a name from ``entityNames`` (`&amp;`), or a decimal or hex
        /// number (`&#39;`, `&#x27;`), then ";".
        func entity(at i: Int) -> Range<Int>? {
            var j = i + 1
            guard j < s.count else { return nil }
            if s[j] == "#" {
                j += 1
                let hex = j < s.count && (s[j] == "x" || s[j] == "X")
                if hex { j += 1 }
                let digitsStart = j
                while j < s.count, j - digitsStart < 7,
                    hex ? s[j].properties.isASCIIHexDigit : MarkdownScorer.isDigit(s[j])
                {
                    j += 1
                }
                guard j > digitsStart, j < s.count, s[j] == ";" else { return nil }
                return i..<(j + 1)
            }
            while j < s.count, j - i <= 7, MarkdownScorer.isAlphanumeric(s[j]) { j += 1 }
            guard j < s.count, s[j] == ";",
                MarkdownScorer.entityNames.contains(String(String.UnicodeScalarView(s[(i + 1)..<j])))
            else { return nil }
            return i..<(j + 1)
        }
    }
}
