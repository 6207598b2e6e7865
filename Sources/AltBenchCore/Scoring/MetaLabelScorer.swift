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
        return [.flag(ScoreName.metaLabel, evidence != nil, detail: evidence)]
    }

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

    /// The label, opening or chatter found in the answer, as written, or `nil`.
    static func evidence(in input: ScoringInput) -> String? {
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
            return String(chars[start...colon].filter { $0 != "*" && $0 != "_" })
        }
        return nil
    }

    /// The index of the colon (or of the line break) after `word`, past spaces and the
    /// markdown closing a bold label: "Alt text:", "Alt text :", "**Alt text**:", "Alt text\n".
    static func colonFollows(_ word: TextAnalysis.Word, chars: [Character]) -> Int? {
        var j = word.range.upperBound
        while j < chars.count {
            let c = chars[j]
            if c == ":" || c == "\u{FF1A}" || c.isNewline { return j }
            guard c == "*" || c == "_" || (c.isWhitespace && !c.isNewline) else { return nil }
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
