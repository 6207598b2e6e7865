/// Flags an answer that announces itself or chatters to the person asking.
///
/// Rule (WebAIM, "Alternative Text": alt text should not announce itself, "image of" or
/// "alt text:" is read out to every screen-reader user; double-great/alt-text flags "photo:"
/// and "photographer:"): the answer is pasted as the description as it is, so a label or a
/// remark addressed to the asker becomes part of the image. Flagged, in this order:
/// 1. An opening label ending in a colon (or ``altTextLabels`` also a spaced dash, "ALT TEXT -"),
///    in any case and with markdown around it ("**Alt text:**"), with an optional "for ..."
///    of up to four words ("Alt text for the image:"), or alone on the first line with the
///    description on the next: ``altTextLabels`` and ``openingLabels``.
/// 2. A chatty opening, after an optional lead-in ("Sure,", "Okay,"): "Here is/Here's ...
///    alt text/description/caption/breakdown" (``presentations``), a phrase of
///    ``spokenOpenings`` ("Here is what I see", "Let me describe", "That's a close-up of"),
///    or an ``exclamations`` lead-in followed by more text ("Certainly!", "Great question!").
/// 3. A label of ``lineLabels`` at the start of a later line ("\n\nAlt text:", "\nNote:").
/// 4. A phrase of ``chatterPhrases`` anywhere in the model's own voice ("Hope this helps",
///    "Let me know if", "Feel free to").
///
/// Not flagged: a label word without a separator ("Description of a dress"), a generic label
/// later in a sentence ("A poster with the caption: Hello") or later in the text ("Caption:"
/// further down may be the image's own caption); a label with nothing after it, which is an
/// icon's own name ("Search:", "Caption:"); a label that names the subject, not the answer
/// ("Menu: pasta, salad" on a photographed menu, "Warning: wet floor": only the words of the
/// tables are labels); a generic label or an opening in capitals or Title Case, which is
/// transcribed sign text ("NOTE: buy milk", "THAT'S A WRAP"); chatter that is quoted or
/// reported ("A sign reading Let me know if you need help",
/// ``TermMatching/ownVoice(of:)``) or shouted ("A poster: FEEL FREE TO ASK").
///
/// The detail is the label with its separator ("Alt text:"), the opening ("Here is the alt
/// text", "Sure!") or the chatter ("Let me know if"), as written, markdown left out.
public struct MetaLabelScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let evidence = Self.evidence(in: input) else { return [.flag(ScoreName.metaLabel, false)] }
        return [.flag(ScoreName.metaLabel, true, detail: evidence)]
    }

    // MARK: - Tables

    /// Labels only ever put before an alt text: flagged in any case, at the start of the
    /// answer or of any line, before a colon or a spaced dash.
    static let altTextLabels: [[String]] = [
        ["alt", "text"], ["alt-text"], ["alttext"], ["alt"], ["alt", "tag"], ["alt", "description"],
        ["alternative", "text"], ["alt", "text", "description"], ["image", "alt", "text"],
        ["image", "description"], ["photo", "description"], ["picture", "description"],
        ["media", "description"], ["short", "description"], ["suggested", "alt", "text"],
        ["description", "of", "the", "image"],
        // de, fr, es, pt, it
        ["bildbeschreibung"], ["alternativtext"], ["texte", "alternatif"], ["description", "de", "l'image"],
        ["texto", "alternativo"], ["descripción", "de", "la", "imagen"], ["descrição", "da", "imagem"],
        ["testo", "alternativo"],
    ]

    /// Labels flagged when they open the answer before a colon, unless in capitals.
    static let openingLabels: [[String]] = [
        ["description"], ["caption"], ["image"], ["photo"], ["picture"], ["pic"], ["photographer"],
        ["image", "caption"], ["photo", "caption"], ["note"], ["summary"], ["image", "summary"],
        // de, fr, es, pt, it ("Description :" is the English word)
        ["beschreibung"], ["bildunterschrift"], ["légende"], ["descripción"], ["descrição"], ["descrizione"],
    ]

    /// Labels flagged at the start of a later line: the alt-text labels, and a note added
    /// after the description ("\n\nNote: the text is too small to read"), unless in capitals.
    static let lineLabels: [[String]] = altTextLabels + [["note"], ["please", "note"]]

    /// Openers passed over before an opening: "Sure, here is ...", "Okay, let's take a look".
    static let leadIns: [[String]] = [
        ["sure", "thing"], ["sure"], ["certainly"], ["of", "course"], ["absolutely"], ["great", "question"],
        ["good", "question"], ["no", "problem"], ["okay"], ["ok"], ["alright"], ["all", "right"], ["well"],
    ]

    /// Lead-ins that are chatter themselves when "!", "," or "." and more text follow them.
    static let exclamations: Set<[String]> = [
        ["sure", "thing"], ["sure"], ["certainly"], ["of", "course"], ["absolutely"], ["great", "question"],
        ["good", "question"], ["no", "problem"],
    ]

    /// "Here is ..." presenting what follows it.
    static let presentations: [[String]] = [["here", "is"], ["here's"], ["here", "are"], ["below", "is"]]

    /// What a presentation must present to be chatter about the answer: "Here is the alt
    /// text", "Here's a breakdown of the image".
    static let presented: Set<String> = [
        "alt", "alt-text", "alttext", "description", "descriptions", "caption", "captions", "breakdown",
        "overview", "summary",
    ]

    /// Words allowed between a presentation and what it presents: "Here is a short,
    /// descriptive alt text", "Here's your image description". Any other word ("Here is a cat
    /// with a caption") ends the search.
    static let presentationModifiers: Set<String> = [
        "a", "an", "the", "your", "my", "this", "that", "some", "possible", "suggested", "proposed", "short",
        "shorter", "brief", "concise", "descriptive", "detailed", "simple", "clear", "accessible", "good",
        "improved", "revised", "new", "one-sentence", "image", "photo", "picture", "suitable", "appropriate",
        "quick", "full", "visual",
    ]

    /// Openings spoken to the asker: the answer replies instead of describing.
    static let spokenOpenings: [[String]] = [
        ["here", "is", "what", "i", "see"], ["here's", "what", "i", "see"], ["here", "is", "what", "i", "can", "see"],
        ["here's", "what", "i", "can", "see"], ["here", "is", "what", "the", "image", "shows"],
        ["here's", "what", "the", "image", "shows"], ["here's", "what's", "in", "the", "image"],
        ["let's", "take", "a", "look"], ["let's", "take", "a", "closer", "look"], ["let's", "break", "it", "down"],
        ["let's", "break", "down"], ["let's", "describe"], ["let's", "see"], ["let", "me", "describe"],
        ["let", "me", "take", "a", "look"], ["let", "me", "break"], ["i'd", "be", "happy", "to"],
        ["that's", "a"], ["that's", "an"], ["that", "is", "a"], ["that", "is", "an"],
        ["this", "is", "a", "description"], ["this", "is", "the", "description"], ["this", "is", "an", "alt", "text"],
        ["this", "is", "the", "alt", "text"], ["this", "is", "a", "caption", "for"],
    ]

    /// Remarks to the asker, flagged anywhere in the model's own voice.
    static let chatterPhrases: [[String]] = [
        ["i", "hope", "this", "helps"], ["i", "hope", "that", "helps"], ["hope", "this", "helps"],
        ["hope", "that", "helps"], ["let", "me", "know", "if"], ["let", "me", "know"], ["feel", "free", "to"],
        ["is", "there", "anything", "else"], ["anything", "else", "i", "can"], ["would", "you", "like", "me", "to"],
        ["do", "you", "want", "me", "to"], ["if", "you", "want", "me", "to"], ["if", "you'd", "like"],
        ["if", "you", "would", "like"], ["if", "you", "need", "anything"], ["if", "you", "need", "any"],
        ["if", "you", "need", "more"], ["happy", "to", "help"], ["glad", "to", "help"], ["happy", "to", "adjust"],
        ["i'd", "be", "happy", "to"], ["i", "can", "also"], ["i", "can", "adjust"], ["i", "can", "make", "it"],
    ]

    // MARK: - Indexes

    /// Opening labels, longest first so that "Alt text description:" wins over "Alt text".
    static let allOpeningLabels = (altTextLabels + openingLabels).sorted { $0.count > $1.count }
    static let altTextLabelSet = Set(altTextLabels)
    static let openingLabelIndex = index(allOpeningLabels)
    static let lineLabelIndex = index(lineLabels)
    static let leadInIndex = index(leadIns)
    static let spokenOpeningIndex = index(spokenOpenings)
    /// ``chatterPhrases`` by first word.
    static let chatter = index(chatterPhrases)

    /// `phrases` by first word, longest first under each.
    static func index(_ phrases: [[String]]) -> [String: [[String]]] {
        Dictionary(grouping: phrases.sorted { $0.count > $1.count }, by: { $0[0] })
    }

    // MARK: - The rule

    /// The label, opening or chatter the answer holds, as written, or `nil`.
    static func evidence(in input: ScoringInput) -> String? {
        let chars = input.characters
        let words = input.words
        guard !words.isEmpty else { return nil }
        if TextAnalysis.startsWithWord(chars, words: words) {
            if let label = label(at: 0, in: openingLabelIndex, words: words, chars: chars) { return label }
            if let opening = opening(words: words, chars: chars) { return opening }
        }
        for index in words.indices.dropFirst()
        where lineLabelIndex[words[index].normalized] != nil && startsLine(words[index], chars: chars) {
            if let label = label(at: index, in: lineLabelIndex, words: words, chars: chars) { return label }
        }
        let voice = TermMatching.ownVoice(of: input)
        for index in voice.words.indices {
            if let phrase = phrase(at: index, in: chatter, words: voice.words, chars: voice.characters) {
                return phrase
            }
        }
        return nil
    }

    /// A label of `labels` at word `index`, an optional "for ..." of up to four words, then
    /// its separator and more text.
    static func label(
        at index: Int, in labels: [String: [[String]]], words: [TextAnalysis.Word], chars: [Character]
    ) -> String? {
        for label in labels[words[index].normalized] ?? []
        where TextAnalysis.matches(label, in: words, from: index, chars: chars) {
            let isAltText = altTextLabelSet.contains(label)
            if !isAltText, words[index..<index + label.count].contains(where: \.isAllCaps) { continue }
            var end = index + label.count
            if end < words.count, words[end].normalized == "for",
                TextAnalysis.areAdjacent(words[end - 1], words[end], in: chars)
            {
                var k = end
                while k + 1 < words.count, k < end + 4, TextAnalysis.areAdjacent(words[k], words[k + 1], in: chars) {
                    k += 1
                    if separator(after: words[k], dash: isAltText, chars: chars) != nil {
                        end = k + 1
                        break
                    }
                }
            }
            let last = words[end - 1]
            guard let separator = separator(after: last, dash: isAltText, chars: chars),
                chars[(separator + 1)...].contains(where: { !TextAnalysis.isLeadingMarkup($0) })
            else { continue }
            let start = words[index].range.lowerBound
            if TextAnalysis.isNewline(chars[separator]) { return String(chars[start..<last.range.upperBound]) }
            return String(chars[start...separator].filter { $0 != "*" && $0 != "_" })
        }
        return nil
    }

    /// The index of the separator after `word`, past spaces and the markdown closing a bold
    /// label: a colon (also full-width) or a line break ("Alt text:", "Alt text :",
    /// "**Alt text**:", "Alt text\n"), and when `dash` is set a dash with spaces around it.
    static func separator(after word: TextAnalysis.Word, dash: Bool, chars: [Character]) -> Int? {
        var j = word.range.upperBound
        while j < chars.count {
            let c = chars[j]
            if c == ":" || c == "\u{FF1A}" || TextAnalysis.isNewline(c) { return j }
            if dash, TextAnalysis.isDash(c), j > word.range.upperBound, j + 1 < chars.count,
                TextAnalysis.isSpace(chars[j + 1])
            {
                return j
            }
            guard c == "*" || c == "_" || TextAnalysis.isSpace(c) else { return nil }
            j += 1
        }
        return nil
    }

    /// Whether only whitespace and markdown separate `word` from the line break before it.
    static func startsLine(_ word: TextAnalysis.Word, chars: [Character]) -> Bool {
        var j = word.range.lowerBound - 1
        while j >= 0 {
            if TextAnalysis.isNewline(chars[j]) { return true }
            guard TextAnalysis.isLeadingMarkup(chars[j]) else { return false }
            j -= 1
        }
        return true
    }

    /// A presentation, a spoken opening or an exclamation opening the answer, after an
    /// optional lead-in.
    static func opening(words: [TextAnalysis.Word], chars: [Character]) -> String? {
        var position = 0
        var exclamation: String?
        if let leadIn = leadInIndex[words[0].normalized]?.first(where: {
            TextAnalysis.matches($0, in: words, from: 0, chars: chars)
        }) {
            let end = words[leadIn.count - 1].range.upperBound
            if end < chars.count, chars[end] == "!" || chars[end] == "," || chars[end] == "." {
                if exclamations.contains(leadIn), chars[(end + 1)...].contains(where: { !TextAnalysis.isSpace($0) }) {
                    exclamation = String(chars[words[0].range.lowerBound...end])
                }
                position = leadIn.count
            }
        }
        guard position < words.count else { return exclamation }
        return presentation(from: position, words: words, chars: chars)
            ?? phrase(at: position, in: spokenOpeningIndex, words: words, chars: chars) ?? exclamation
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
            let followedByText =
                k + 1 < words.count && words[k + 1].normalized == "text"
                && TextAnalysis.areAdjacent(words[k], words[k + 1], in: chars)
            if presented.contains(word) || (word == "alternative" && followedByText) {
                let last = (word == "alt" || word == "alternative") && followedByText ? k + 1 : k
                return String(chars[words[position].range.lowerBound..<words[last].range.upperBound])
            }
            guard presentationModifiers.contains(word) else { return nil }
            k += 1
        }
        return nil
    }

    /// The longest phrase of `phrases` starting at word `index`, as written, unless it is
    /// sign text or a name: a word in capitals, or every word capitalised ("Let Me Know").
    static func phrase(
        at index: Int, in phrases: [String: [[String]]], words: [TextAnalysis.Word], chars: [Character]
    ) -> String? {
        for phrase in phrases[words[index].normalized] ?? []
        where TextAnalysis.matches(phrase, in: words, from: index, chars: chars) {
            let found = words[index..<index + phrase.count]
            if found.contains(where: \.isAllCaps) || (found.count > 1 && found.allSatisfy(\.isCapitalized)) {
                continue
            }
            return String(chars[found.first!.range.lowerBound..<found.last!.range.upperBound])
        }
        return nil
    }
}
