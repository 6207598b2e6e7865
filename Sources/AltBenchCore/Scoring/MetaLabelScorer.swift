/// Flags a label or chatter around the alt text (altbench research; double-great/alt-text).
///
/// The answer is pasted as the description, so anything addressed to the person asking is
/// read out to every screen-reader user. Flagged:
/// - An opening label with a colon: "Alt text:", "Alt-text:", "Alt:", "Image description:",
///   "Description:", "Caption:", "Image:", "Photo:", "Picture:", "Photographer:" and a few
///   translations ("Bildbeschreibung:", "Texte alternatif :"), in any case, with markdown
///   around it ("**Alt text:**", "**Alt text**:") and an optional "for ..." ("Alt text for
///   the image:"). A label alone on the first line, the description on the next, counts too.
///   double-great/alt-text flags "photo:" and "photographer:".
/// - The same for the alt-text labels only ("Alt text:", "Image description:", ...) at the
///   start of any later line. "Caption:" or "Description:" further down may be the image's
///   own caption being transcribed.
/// - An opening "Here is/Here's/Here are [a short, descriptive] alt text/description/
///   caption", after an optional "Sure!" or "Certainly,"; and an opening "Sure!", "Certainly!",
///   "Of course!" or "Absolutely!" followed by more text.
/// - Closing chatter anywhere in the model's own voice: "I hope this helps", "Hope that
///   helps", "Let me know", "Feel free to", "Is there anything else", "Would you like me
///   to", "If you'd like", "Happy to help".
///
/// Not flagged: a label word without a colon ("Description of a dress", "Photo booth
/// strip"), a label later in a sentence ("A poster with the caption: Hello"), and chatter
/// that is reported or shouted sign text ("A sign reading Let me know if you need help",
/// "A poster: FEEL FREE TO ASK"), removed with ``TextAnalysis/ownVoice(_:)``.
///
/// The detail is the label with its colon ("Alt text:"), the opening ("Here is the alt
/// text", "Sure!") or the chatter ("Let me know if"), as written.
public struct MetaLabelScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let evidence = Self.evidence(in: input)
        guard let evidence else { return Self.passed }
        return [.flag(ScoreName.metaLabel, true, detail: evidence)]
    }

    /// The score of an answer that passes, made once.
    static let passed = [Score.flag(ScoreName.metaLabel, false)]

    /// Labels only ever put before an alt text, flagged at the start of any line.
    static let altTextLabels: [[String]] = [
        ["alt", "text"], ["alt-text"], ["alttext"], ["alt"], ["alt", "tag"], ["alt", "description"],
        ["alternative", "text"], ["alt", "text", "description"], ["image", "alt", "text"],
        ["image", "description"], ["photo", "description"], ["picture", "description"],
        ["media", "description"], ["short", "description"], ["suggested", "alt", "text"],
        ["bildbeschreibung"], ["alternativtext"], ["texte", "alternatif"], ["texto", "alternativo"],
        ["testo", "alternativo"],
    ]

    /// Labels flagged only when they open the answer.
    static let openingLabels: [[String]] = [
        ["description"], ["caption"], ["image"], ["photo"], ["picture"], ["pic"], ["photographer"],
        ["image", "caption"], ["photo", "caption"], ["beschreibung"], ["descripción"],
        ["descrição"], ["descrizione"], ["légende"], ["bildunterschrift"],
    ]

    static let allOpeningLabels = (altTextLabels + openingLabels).sorted { $0.count > $1.count }
    static let lineLabels = altTextLabels.sorted { $0.count > $1.count }

    /// Openers passed over before "Here is the alt text".
    static let leadIns: [[String]] = [
        ["sure"], ["certainly"], ["of", "course"], ["absolutely"], ["okay"], ["ok"], ["alright"],
    ]

    /// Openers that are chatter when "!" or "," follows them and the answer goes on.
    static let exclamations: [[String]] = [["sure"], ["certainly"], ["of", "course"], ["absolutely"]]

    static let presentations: [[String]] = [["here", "is"], ["here's"], ["here", "are"], ["below", "is"]]

    /// What "Here is ..." must present to be chatter about the answer.
    static let presented: Set<String> = [
        "alt", "alt-text", "alttext", "description", "descriptions", "caption", "captions",
        "alternative",
    ]

    /// Words allowed between "Here is" and what it presents: "Here is a short, descriptive
    /// alt text", "Here's your image description". Any other word ("Here is a cat with a
    /// caption") ends the search.
    static let presentationModifiers: Set<String> = [
        "a", "an", "the", "your", "my", "this", "that", "some", "possible", "suggested",
        "proposed", "short", "shorter", "brief", "concise", "descriptive", "detailed", "simple",
        "clear", "accessible", "good", "improved", "revised", "new", "one-sentence", "image",
        "photo", "picture", "suitable", "appropriate",
    ]

    static let chatter: [String: [[String]]] = PerceptionMetaScorer.index([
        ["i", "hope", "this", "helps"], ["i", "hope", "that", "helps"], ["hope", "this", "helps"],
        ["hope", "that", "helps"], ["let", "me", "know", "if"], ["let", "me", "know"],
        ["feel", "free", "to"], ["is", "there", "anything", "else"],
        ["would", "you", "like", "me", "to"], ["do", "you", "want", "me", "to"],
        ["if", "you'd", "like"], ["if", "you", "would", "like"], ["happy", "to", "help"],
        ["glad", "to", "help"],
    ])

    /// Words without which no chatter phrase matches, packed for the byte prefilter.
    static let chatterWords = PerceptionMetaScorer.WordSet([
        "hope", "let", "feel", "anything", "would", "want", "if", "help",
    ])

    /// The first words of the labels and openings: one set lookup decides whether the
    /// opening needs a closer look.
    static let openingFirstWords: Set<String> = Set(
        allOpeningLabels.map { $0[0] } + leadIns.map { $0[0] } + presentations.map { $0[0] })
    static let lineLabelFirstWords: Set<String> = Set(lineLabels.map { $0[0] })

    /// ``openingFirstWords``, packed for a lookup without hashing.
    static let openingFirstWordSet = PerceptionMetaScorer.WordSet(openingFirstWords.sorted())

    /// ``chatter`` for ``PerceptionMetaScorer/nextMatch(_:in:from:includingSignText:)``.
    static let chatterIndex = PhraseIndex(chatter.values.flatMap { $0 })

    /// What the byte scan found: a colon or line break near the start (a label needs one),
    /// a line break anywhere, a chatter word.
    struct Candidates {
        var colonNearStart = false
        var lineBreak = false
        var chatter = false
    }

    /// Bytes within which an opening label's colon must come: "Suggested alt text for the
    /// image:" and markdown around it fit.
    static let labelReach = 80

    static func candidates(_ bytes: UnsafeBufferPointer<UInt8>) -> Candidates {
        var found = Candidates()
        for i in 0..<bytes.count {
            let b = bytes[i]
            // Letters, digits after ":" and most punctuation: nothing to see.
            if b > UInt8(ascii: ":"), b < 0xC2 { continue }
            switch b {
            case 10, 11, 12, 13:
                found.lineBreak = true
                if i < labelReach { found.colonNearStart = true }
            case UInt8(ascii: ":"):
                if i < labelReach { found.colonNearStart = true }
            case 0xEF:
                // U+FF1A FULLWIDTH COLON
                if i < labelReach, i + 2 < bytes.count, bytes[i + 1] == 0xBC, bytes[i + 2] == 0x9A {
                    found.colonNearStart = true
                }
            case 0xE2:
                // U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR
                if i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 {
                    found.lineBreak = true
                }
            case 0xC2:
                // U+0085 NEXT LINE
                if i + 1 < bytes.count, bytes[i + 1] == 0x85 { found.lineBreak = true }
            default:
                continue
            }
        }
        found.chatter = PerceptionMetaScorer.containsWord(bytes, chatterWords)
        return found
    }

    /// ``Candidates/lineBreak`` of ``candidates(_:)``: LF, VT, FF, CR, NEL, LINE or PARAGRAPH
    /// SEPARATOR.
    static func hasLineBreak(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteScan.first(LineBreaks.self, in: bytes) != nil
    }

    /// The line breaks of ``hasLineBreak(_:)``, each marked exactly.
    enum LineBreaks: ByteScan.Sites {
        @inline(__always)
        static func lanes(_ w: ByteScan.Window) -> ByteScan.Mask {
            (w.current &- ByteScan.Lanes(repeating: 0x0A)) .< ByteScan.Lanes(repeating: 4)
                .| (w.current .== ByteScan.Lanes(repeating: 0xC2) .& w.next .== ByteScan.Lanes(repeating: 0x85))
                .| (w.current .== ByteScan.Lanes(repeating: 0xE2) .& w.next .== ByteScan.Lanes(repeating: 0x80)
                    .& (w.afterNext .== ByteScan.Lanes(repeating: 0xA8)
                        .| w.afterNext .== ByteScan.Lanes(repeating: 0xA9)))
        }

        static func verify(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool { true }
    }

    /// ``Candidates/colonNearStart`` of ``candidates(_:)``, from the first ``labelReach`` bytes.
    static func colonNearStart(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for i in 0..<min(bytes.count, labelReach) {
            switch bytes[i] {
            case 10, 11, 12, 13, UInt8(ascii: ":"):
                return true
            case 0xEF:
                if i + 2 < bytes.count, bytes[i + 1] == 0xBC, bytes[i + 2] == 0x9A { return true }
            default:
                continue
            }
        }
        return false
    }

    /// The label, opening or chatter found in the answer, as written, or `nil`.
    ///
    /// Most answers open with no label word and hold no line break and no place where
    /// chatter could be (``LaterSites``), and pass after one scan of the UTF-8 bytes. An
    /// opening label is read from the bytes while they are `Character`s of one byte each
    /// (``asciiLabel(at:labels:words:bytes:reach:)``). Chatter is looked for from a few words
    /// before the first place it could be, and again in the model's own voice when the text
    /// quotes or reports something (``chatterEvidence(in:from:)``). ``evidenceByOwnVoice(in:)``
    /// is the same without these shortcuts.
    static func evidence(in input: ScoringInput) -> String? {
        let chars = input.characters
        let words = input.words
        guard let firstWord = words.first else { return nil }
        var text = input.text
        return text.withUTF8 { bytes -> String? in
            if openingFirstWordSet.contains(firstWord.normalized) {
                // Where the text's bytes are its Characters, the label is read from the bytes.
                let reach = asciiReach(bytes)
                let opens =
                    firstWord.range.lowerBound <= reach
                    ? bytes[..<firstWord.range.lowerBound].allSatisfy(isLeadingMarkup)
                    : TextAnalysis.startsWithWord(chars, words: words)
                if opens {
                    if colonNearStart(bytes) {
                        if let decided = asciiLabel(
                            at: 0, labels: openingLabelIndex, words: words, bytes: bytes, reach: reach)
                        {
                            if let label = decided { return label }
                        } else if let label = label(at: 0, labels: openingLabelIndex, words: words, chars: chars) {
                            return label
                        }
                    }
                    if let opening = opening(words: words, chars: chars) { return opening }
                }
            }
            guard let site = ByteScan.first(LaterSites.self, in: bytes) else { return nil }
            if hasLineBreak(bytes) {
                for index in words.indices.dropFirst()
                where lineLabelFirstWords.contains(words[index].normalized) && startsLine(words[index], chars: chars) {
                    if let label = label(at: index, labels: lineLabelIndex, words: words, chars: chars) {
                        return label
                    }
                }
            }
            // Every chatter phrase holds one of chatterWords (found.chatter of candidates(_:)),
            // so finding a phrase is enough.
            var start = 0
            if ByteScan.isAlphanumeric(bytes[site]), ByteScan.scalarCount(bytes) == chars.count {
                // A chatter site: no phrase starts more than two words before the site's word
                // ("is there" before "anything").
                let char = ByteScan.scalarCount(UnsafeBufferPointer(rebasing: bytes[..<site]))
                start = max(0, PerceptionMetaScorer.firstWordIndex(atOrAfter: char, in: words) - 2)
            }
            return chatterEvidence(in: input, from: start)
        }
    }

    /// The first chatter phrase in the model's own voice, as written, once the text as written
    /// holds one (none starts before its word `start`): read with ``VoiceText`` when it can
    /// be, else built with ``TextAnalysis/ownVoice(_:)``.
    static func chatterEvidence(in input: ScoringInput, from start: Int = 0) -> String? {
        let written = WrittenText(words: input.words, chars: input.characters)
        guard
            let match = PerceptionMetaScorer.nextMatch(chatterIndex, in: written, from: start, includingSignText: false)
        else { return nil }
        switch VoiceText.read(input) {
        case .unchanged:
            return written.written(match)
        case .voice(let voice):
            return PerceptionMetaScorer.nextMatch(chatterIndex, in: voice, from: 0, includingSignText: false)
                .map(voice.written)
        case nil:
            let chars = Array(TextAnalysis.ownVoice(input.text))
            let voice = WrittenText(words: TextAnalysis.words(in: chars), chars: chars)
            return PerceptionMetaScorer.nextMatch(chatterIndex, in: voice, from: 0, includingSignText: false)
                .map(voice.written)
        }
    }

    /// ``evidence(in:)`` computed the long way, every check on every answer, with
    /// ``TextAnalysis/ownVoice(_:)`` whenever the text quotes or reports something; the
    /// tests check that both agree.
    static func evidenceByOwnVoice(in input: ScoringInput) -> String? {
        let chars = input.characters
        let words = input.words
        guard let firstWord = words.first else { return nil }
        var text = input.text
        let found = text.withUTF8(candidates)
        if openingFirstWords.contains(firstWord.normalized), TextAnalysis.startsWithWord(chars, words: words) {
            if found.colonNearStart,
                let label = label(at: 0, labels: allOpeningLabels, words: words, chars: chars)
            {
                return label
            }
            if let opening = opening(words: words, chars: chars) { return opening }
        }
        if found.lineBreak {
            for index in words.indices.dropFirst()
            where lineLabelFirstWords.contains(words[index].normalized) && startsLine(words[index], chars: chars) {
                if let label = label(at: index, labels: lineLabels, words: words, chars: chars) {
                    return label
                }
            }
        }
        guard found.chatter,
            let match = PerceptionMetaScorer.phraseMatches(chatter, in: words, chars: chars, limit: 1).first
        else { return nil }
        if PerceptionMetaScorer.isAllOwnVoice(input) {
            return String(chars[words[match.lowerBound].range.lowerBound..<words[match.upperBound - 1].range.upperBound])
        }
        let voice = Array(TextAnalysis.ownVoice(input.text))
        let voiceWords = TextAnalysis.words(in: voice)
        guard let match = PerceptionMetaScorer.phraseMatches(chatter, in: voiceWords, chars: voice, limit: 1).first
        else { return nil }
        return String(
            voice[voiceWords[match.lowerBound].range.lowerBound..<voiceWords[match.upperBound - 1].range.upperBound])
    }

    /// Where a line label or chatter could be, for ``evidence(in:)``'s byte scan: a line
    /// break (LF, VT, FF, CR, NEL, LINE or PARAGRAPH SEPARATOR), or the first word of a
    /// chatter phrase before the next word it needs: "hope" before this/that, "let" or "want"
    /// before "me", "feel" before "free", "anything" before "else", "would" or "if" before
    /// "you", "happy" or "glad" before "to". Words are runs of ASCII letters and digits, with
    /// anything but ASCII allowed between them, so a site is only a maybe.
    enum LaterSites: ByteScan.Sites {
        @inline(__always)
        static func lanes(_ w: ByteScan.Window) -> ByteScan.Mask {
            let c = w.current | ByteScan.splat(" ")
            let n = w.next | ByteScan.splat(" ")
            let a = w.afterNext | ByteScan.splat(" ")
            // hop, hap; let, fee; wou, wan; any; gla; if: shared letters tested once.
            let nA = n .== ByteScan.splat("a")
            let nE = n .== ByteScan.splat("e")
            let words =
                (c .== ByteScan.splat("h") .& a .== ByteScan.splat("p") .& (n .== ByteScan.splat("o") .| nA))
                .| (nE .& ((c .== ByteScan.splat("l") .& a .== ByteScan.splat("t"))
                    .| (c .== ByteScan.splat("f") .& a .== ByteScan.splat("e"))))
                .| (c .== ByteScan.splat("w")
                    .& ((n .== ByteScan.splat("o") .& a .== ByteScan.splat("u")) .| (nA .& a .== ByteScan.splat("n"))))
                .| (c .== ByteScan.splat("a") .& n .== ByteScan.splat("n") .& a .== ByteScan.splat("y"))
                .| (c .== ByteScan.splat("g") .& n .== ByteScan.splat("l") .& a .== ByteScan.splat("a"))
                .| (c .== ByteScan.splat("i") .& n .== ByteScan.splat("f"))
            return (words .& .!ByteScan.isAlphanumeric(w.previous)) .| LineBreaks.lanes(w)
        }

        static func verify(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
            guard ByteScan.isAlphanumeric(bytes[i]) else { return true }
            let word = ByteScan.run(bytes, from: i)
            guard let after = ByteScan.runAfter(bytes, word.upperBound) else { return false }
            for (first, next) in chatterPairs where ByteScan.run(bytes, word, is: first) {
                return next.contains { ByteScan.run(bytes, after, is: $0) }
            }
            return false
        }

        /// The first words of the chatter phrases and the words that may follow them.
        static let chatterPairs: [(StaticString, [StaticString])] = [
            ("hope", ["this", "that"]), ("let", ["me"]), ("feel", ["free"]), ("anything", ["else"]),
            ("would", ["you"]), ("want", ["me"]), ("if", ["you"]), ("happy", ["to"]), ("glad", ["to"]),
        ]
    }

    /// Whether only whitespace and markdown separate `word` from the line break before it.
    static func startsLine(_ word: TextAnalysis.Word, chars: [Character]) -> Bool {
        var j = word.range.lowerBound - 1
        while j >= 0 {
            if chars[j].isNewline { return true }
            guard TextAnalysis.isLeadingMarkup(chars[j]) else { return false }
            j -= 1
        }
        return true
    }

    /// A label of `labels` at word `index`, then an optional "for ..." of up to four words,
    /// then markdown, then a colon, or a line break with more text after it.
    static func label(
        at index: Int, labels: [[String]], words: [TextAnalysis.Word], chars: [Character]
    ) -> String? {
        label(at: index, candidates: labels, words: words, chars: chars)
    }

    /// ``label(at:labels:words:chars:)`` with the labels indexed by first word: only those
    /// that start with word `index` are tried, longest first, as in the label lists.
    static func label(
        at index: Int, labels: PhraseIndex, words: [TextAnalysis.Word], chars: [Character]
    ) -> String? {
        guard let candidates = labels.candidates(for: words[index].normalized) else { return nil }
        return label(at: index, candidates: candidates, words: words, chars: chars)
    }

    static let openingLabelIndex = PhraseIndex(allOpeningLabels)
    static let lineLabelIndex = PhraseIndex(lineLabels)

    private static func label(
        at index: Int, candidates labels: [[String]], words: [TextAnalysis.Word], chars: [Character]
    ) -> String? {
        for label in labels where TextAnalysis.matches(label, in: words, from: index, chars: chars) {
            var end = index + label.count
            if end < words.count, words[end].normalized == "for",
                TextAnalysis.areAdjacent(words[end - 1], words[end], in: chars)
            {
                var k = end + 1
                while k < words.count, k <= end + 4,
                    TextAnalysis.areAdjacent(words[k - 1], words[k], in: chars)
                {
                    if colonFollows(words[k], chars: chars) != nil {
                        end = k + 1
                        break
                    }
                    k += 1
                }
            }
            let lastWord = words[end - 1]
            guard let colon = colonFollows(lastWord, chars: chars) else { continue }
            let start = words[index].range.lowerBound
            if chars[colon].isNewline {
                guard chars[colon...].contains(where: { !$0.isWhitespace }) else { continue }
                return String(chars[start..<lastWord.range.upperBound])
            }
            var text = ""
            for c in chars[start...colon] where c.asciiByte != UInt8(ascii: "*") && c.asciiByte != UInt8(ascii: "_") {
                text.append(c)
            }
            return text
        }
        return nil
    }

    /// How many of the first bytes of a text are `Character`s of one byte each: the ASCII
    /// bytes before the first CR or non-ASCII byte, less the last of them when one of those
    /// follows (a combining mark may join it).
    static func asciiReach(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        while i < bytes.count, bytes[i] < 0x80, bytes[i] != 0x0D { i += 1 }
        return i == bytes.count ? i : max(0, i - 1)
    }

    /// ``TextAnalysis/isLeadingMarkup(_:)`` of an ASCII character.
    @inline(__always)
    static func isLeadingMarkup(_ b: UInt8) -> Bool {
        isSpace(b) || b == UInt8(ascii: "*") || b == UInt8(ascii: "_") || b == UInt8(ascii: "#")
            || b == UInt8(ascii: ">")
    }

    /// ``TextAnalysis/isSpace(_:)`` of an ASCII character.
    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || (b >= 0x09 && b <= 0x0D)
    }

    /// ``label(at:labels:words:chars:)`` read from the UTF-8 `bytes`, whose first `reach`
    /// bytes are `Character`s of one byte each: the label (`nil` when there is none), or `nil`
    /// when deciding would take a character past them, or a label ends at a line break.
    static func asciiLabel(
        at index: Int, labels: PhraseIndex, words: [TextAnalysis.Word], bytes: UnsafeBufferPointer<UInt8>,
        reach: Int
    ) -> String?? {
        guard let candidates = labels.candidates(for: words[index].normalized) else { return .some(nil) }
        /// Whether only spaces separate words `k - 1` and `k`; `nil` past the reach.
        func adjacent(_ k: Int) -> Bool? {
            guard words[k].range.lowerBound <= reach else { return nil }
            return bytes[words[k - 1].range.upperBound..<words[k].range.lowerBound].allSatisfy(isSpace)
        }
        /// ``colonFollows(_:chars:)``; `nil` past the reach.
        func colonFollows(_ word: TextAnalysis.Word) -> Int?? {
            var j = word.range.upperBound
            while j < bytes.count {
                guard j < reach else { return nil }
                let b = bytes[j]
                if b == UInt8(ascii: ":") || (b >= 0x0A && b <= 0x0D) { return j }
                guard b == UInt8(ascii: "*") || b == UInt8(ascii: "_") || b == 0x20 || b == 0x09 else {
                    return .some(nil)
                }
                j += 1
            }
            return .some(nil)
        }
        for label in candidates {
            guard index + label.count <= words.count else { continue }
            var matches = true
            for (k, expected) in label.enumerated() {
                guard words[index + k].normalized == expected else {
                    matches = false
                    break
                }
                if k > 0 {
                    guard let adjacent = adjacent(index + k) else { return nil }
                    guard adjacent else {
                        matches = false
                        break
                    }
                }
            }
            guard matches else { continue }
            var end = index + label.count
            if end < words.count, words[end].normalized == "for" {
                guard let forAdjacent = adjacent(end) else { return nil }
                if forAdjacent {
                    var k = end + 1
                    while k < words.count, k <= end + 4 {
                        guard let next = adjacent(k) else { return nil }
                        guard next else { break }
                        guard let colon = colonFollows(words[k]) else { return nil }
                        if colon != nil {
                            end = k + 1
                            break
                        }
                        k += 1
                    }
                }
            }
            let lastWord = words[end - 1]
            guard let found = colonFollows(lastWord) else { return nil }
            guard let colon = found else { continue }
            // A label alone on its line needs the text after the line break: judged on Characters.
            guard bytes[colon] == UInt8(ascii: ":") else { return nil }
            let start = words[index].range.lowerBound
            let kept = bytes[start...colon].filter { $0 != UInt8(ascii: "*") && $0 != UInt8(ascii: "_") }
            return .some(String(decoding: kept, as: UTF8.self))
        }
        return .some(nil)
    }

    /// The index of the colon (or of the line break) after `word`, past spaces and the
    /// markdown closing a bold label: "Alt text:", "Alt text :", "**Alt text**:", "Alt text\n".
    static func colonFollows(_ word: TextAnalysis.Word, chars: [Character]) -> Int? {
        var j = word.range.upperBound
        while j < chars.count {
            let c = chars[j]
            if let a = c.asciiByte {
                // ":", a line break; "*", "_", a space or a tab.
                if a == 0x3A || (a >= 0x0A && a <= 0x0D) { return j }
                guard a == 0x2A || a == 0x5F || a == 0x20 || a == 0x09 else { return nil }
            } else {
                if c == "\u{FF1A}" || c.isNewline { return j }
                guard c.isWhitespace else { return nil }
            }
            j += 1
        }
        return nil
    }

    /// "Here is the alt text" (after an optional lead-in) or "Sure!" opening the answer.
    static func opening(words: [TextAnalysis.Word], chars: [Character]) -> String? {
        var position = 0
        var exclamation: String?
        for leadIn in leadIns where TextAnalysis.matches(leadIn, in: words, from: 0, chars: chars) {
            let end = words[leadIn.count - 1].range.upperBound
            guard end < chars.count, chars[end] == "!" || chars[end] == "," else { break }
            if exclamations.contains(leadIn), chars[(end + 1)...].contains(where: { !$0.isWhitespace }) {
                exclamation = String(chars[words[0].range.lowerBound...end])
            }
            position = leadIn.count
            break
        }
        return presentation(from: position, words: words, chars: chars) ?? exclamation
    }

    /// "Here is/Here's ... alt text/description/caption" at word `position`: what is
    /// presented, after at most four ``presentationModifiers``, in the same sentence.
    static func presentation(from position: Int, words: [TextAnalysis.Word], chars: [Character]) -> String? {
        guard let presentation = presentations.first(where: {
            TextAnalysis.matches($0, in: words, from: position, chars: chars)
        }) else { return nil }
        let first = position + presentation.count
        var k = first
        while k < words.count, k <= first + 4 {
            let between = chars[words[k - 1].range.upperBound..<words[k].range.lowerBound]
            guard !between.contains(where: { TextAnalysis.isSentenceTerminator($0) || $0 == ":" || $0.isNewline })
            else { return nil }
            let word = words[k].normalized
            if presented.contains(word) {
                var last = k
                if word == "alt" || word == "alternative", k + 1 < words.count, words[k + 1].normalized == "text",
                    TextAnalysis.areAdjacent(words[k], words[k + 1], in: chars)
                {
                    last = k + 1
                }
                return String(chars[words[position].range.lowerBound..<words[last].range.upperBound])
            }
            guard presentationModifiers.contains(word) else { return nil }
            k += 1
        }
        return nil
    }
}
