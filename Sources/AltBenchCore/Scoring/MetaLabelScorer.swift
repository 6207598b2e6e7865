/// Flags an answer that announces itself or chatters to the person asking.
///
/// Rule (WebAIM, "Alternative Text": alt text should not announce itself; double-great/alt-text
/// flags "photo:" and "photographer:"): the answer is pasted as the description, so a label or a
/// remark to the asker is read out to every screen-reader user. Flagged, in this order:
/// 1. An opening label before a colon, a line break or (``altTextLabels`` only) a spaced dash,
///    with markdown ("**Alt text:**"), up to two ``labelModifiers`` ("Short alt text:"), and an
///    optional "for ..." or short parenthesis ("Alt text for the image (125 characters):").
/// 2. After an optional lead-in ("Sure,"): "Here is ... alt text/description/breakdown"
///    (``presentations``), ``LanguagePhrases/spokenOpenings`` ("Here is what I see", "That's a close-up of"), or
///    an ``exclamations`` lead-in followed by more text ("Certainly!", "Great question!").
/// 3. A label of ``lineLabels`` at the start of a later line ("\n\nAlt text:", "\nNote:").
/// 4. A phrase of ``LanguagePhrases/chatterPhrases`` anywhere in the model's own voice ("Hope this helps"),
///    and the other languages' chatter (``LanguagePhrases/chatter``, ``LanguagePhrases/chatterCJK``).
/// 5. A first sentence that presents what follows and ends with a colon, in any language
///    ("Based on this, here is a description:", "图片中的文字内容如下："), or a bracketed label.
///
/// Not flagged: a label word without a separator ("Description of a dress"); a generic label
/// later in a sentence or text ("A poster with the caption: Hello"); a label with nothing after
/// it, an icon's own name ("Search:"); a label naming the subject, not the answer ("Menu: pasta",
/// "Warning: wet floor"): only the tables' words are labels; a generic label in capitals, an
/// opening or chatter in capitals or Title Case: sign text ("NOTE: buy milk", "Let Me Know");
/// chatter quoted, reported or after a colon ("A tweet: Let me know", ``TermMatching/ownVoice(of:)``).
///
/// The detail is the label with its separator, the opening or the chatter, as written, without markdown.
public struct MetaLabelScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard let evidence = Self.evidence(in: input) else { return [.flag(ScoreName.metaLabel, false)] }
        return [.flag(ScoreName.metaLabel, true, detail: evidence)]
    }

    /// Labels only ever put before an alt text: flagged in any case, opening the answer or a line.
    static let altTextLabels: [[String]] = phrases(
        "alt text", "alt-text", "alttext", "alt", "alt tag", "alt description", "alternative text",
        "alt text description", "image alt text", "image description", "photo description", "picture description",
        "media description", "short description", "suggested alt text", "description of the image",
        "alt text suggestion", "scene description", "visual description",
        // de, fr, es, pt, it
        "bildbeschreibung", "alternativtext", "texte alternatif", "description de l'image", "texto alternativo",
        "descripción de la imagen", "descrição da imagem", "testo alternativo",
    )

    /// A chat transcript's speaker, echoed from the prompt: flagged in any case when it opens the answer.
    static let promptEchoes: [[String]] = phrases("assistant", "gpt", "ai")

    /// Labels flagged when they open the answer before a colon, unless in capitals.
    static let openingLabels: [[String]] = phrases(
        "description", "caption", "image", "photo", "picture", "pic", "photographer", "image caption",
        "photo caption", "note", "summary", "image summary", "answer", "response", "option 1",
        "option one", "version 1", "title", "screenshot", "keywords", "output", "result", "audio description",
        // de, fr, es, pt, it ("Description :" is the English word)
        "beschreibung", "bildunterschrift", "légende", "descripción", "descrição", "descrizione",
    )

    /// Words that may come before a label: "Short alt text:", "Detailed description:".
    static let labelModifiers: Set<String> = [
        "short", "shorter", "long", "longer", "brief", "detailed", "concise", "suggested", "proposed", "final",
        "revised", "improved", "simple", "extended", "full", "my",
    ]

    /// Labels flagged at the start of a later line: the alt-text labels, and a note ("\n\nNote:").
    static let lineLabels: [[String]] = altTextLabels + phrases("note", "please note", "title", "description", "keywords")

    /// Lead-ins that are chatter themselves when "!", "," or "." and more text follow them.
    static let exclamations: [[String]] = phrases(
        "sure thing", "sure", "certainly", "of course", "absolutely", "great question", "good question",
        "no problem", "got it", "bien sûr", "natürlich", "por supuesto", "com certeza", "claro", "certo", "certamente",
        "natuurlijk", "zeker", "gerne", "klar", "d'accord", "absolument", "okay", "ok")

    /// Openers passed over before an opening: "Sure, here is ...", "Okay, let's take a look".
    static let leadIns: [[String]] = exclamations + phrases("okay", "ok", "alright", "all right", "well")

    /// "Here is ..." presenting what follows it.
    static let presentations: [[String]] = [["here", "is"], ["here's"], ["here", "are"], ["below", "is"]]

    // Each table by first word, longest phrase first.
    static let allOpeningLabels = (altTextLabels + promptEchoes + openingLabels).sorted { $0.count > $1.count }
    static let altTextLabelSet = Set(altTextLabels + promptEchoes)
    static let openingLabelIndex = index(allOpeningLabels)
    static let lineLabelIndex = index(lineLabels)
    static let leadInIndex = index(leadIns)
    static let spokenOpeningIndex = index(LanguagePhrases.spokenOpenings)
    static let chatter = index(LanguagePhrases.chatterPhrases)

    /// Phrases written as text, split at spaces into their normalized words.
    static func phrases(_ phrases: String...) -> [[String]] {
        phrases.map { $0.split(separator: " ").map(String.init) }
    }

    static func index(_ phrases: [[String]]) -> [String: [[String]]] {
        Dictionary(grouping: phrases.sorted { $0.count > $1.count }, by: { $0[0] })
    }

    /// The label, opening or chatter the answer holds, as written, or `nil`.
    static func evidence(in input: ScoringInput) -> String? {
        let (chars, words) = (input.characters, input.words)
        if TextAnalysis.startsWithWord(chars, words: words) {
            if let label = label(at: 0, in: openingLabelIndex, words: words, chars: chars) { return label }
            if let opening = opening(words: words, chars: chars) { return opening }
        }
        for index in words.indices.dropFirst()
        where (lineLabelIndex[words[index].normalized] != nil || labelModifiers.contains(words[index].normalized))
            && startsLine(words[index], chars: chars)
        {
            if let label = label(at: index, in: lineLabelIndex, words: words, chars: chars) { return label }
        }
        if let presented = presentingLine(chars: chars, words: words) { return presented }
        let voice = TermMatching.ownVoice(of: input)
        return voice.words.indices.lazy.compactMap { i in
            phrase(at: i, in: chatter, words: voice.words, chars: voice.characters).flatMap {
                afterColon(voice.words[i], chars: voice.characters) ? nil : $0
            }
        }.first
            ?? LanguagePhrases.chatter.first(
                folded: LanguagePhrases.folded(voice.words), words: voice.words, chars: voice.characters)
            ?? LanguagePhrases.chatterCJK.first(in: voice.characters)
    }

    /// A line that presents what follows it and ends with a colon, in any language
    /// (``LanguagePhrases/presentingWords``): the text's first sentence ("Based on the details,
    /// here is a more detailed description of the image:", "图片中的OCR结果如下：") or a later line
    /// that opens with the presentation ("Here are the details of the annotated features:");
    /// or a bracketed label ("[Image description: …]").
    static func presentingLine(chars: [Character], words: [TextAnalysis.Word]) -> String? {
        let start = chars.firstIndex { !TextAnalysis.isSpace($0) } ?? 0
        if start < chars.count, chars[start] == "[" || chars[start] == "(", let first = words.first,
            TextAnalysis.onlyWhitespace(chars, (start + 1)..<first.range.lowerBound),
            let label = label(at: 0, in: openingLabelIndex, words: words, chars: chars)
        {
            return label
        }
        var lineStart = start
        while lineStart < chars.count {
            let end = chars[lineStart...].firstIndex(where: TextAnalysis.isNewline) ?? chars.count
            if let last = chars[lineStart..<end].lastIndex(where: { !TextAnalysis.isSpace($0) }),
                chars[last] == ":" || chars[last] == "\u{FF1A}"
            {
                let line = Array(chars[lineStart...last])
                let lineWords = TextAnalysis.words(in: line)
                let firstLine = lineStart == start
                // Only the first sentence: "… ingredients. Here is a step-by-step recipe:" is an answer's own structure.
                let presents = firstLine && !line.contains(where: TextAnalysis.isSentenceTerminator)
                    && (LanguagePhrases.presentingWords.first(
                        folded: LanguagePhrases.folded(lineWords), words: lineWords, chars: line) != nil
                        || LanguagePhrases.presentingCJK.first(in: line) != nil)
                if presents, !lineWords.isEmpty, !lineWords.contains(where: \.isAllCaps) { return String(line) }
            }
            lineStart = end + 1
        }
        return nil
    }

    /// Whether a colon opens `word`'s sentence: "A tweet: Let me know what you think" shows text.
    static func afterColon(_ word: TextAnalysis.Word, chars: [Character]) -> Bool {
        chars[..<word.range.lowerBound].last {
            $0 == ":" || TextAnalysis.isSentenceTerminator($0) || TextAnalysis.isNewline($0)
        } == ":"
    }

    /// A label of `labels` at word `index`, with its modifiers, "for ...", separator and more text.
    static func label(
        at index: Int, in labels: [String: [[String]]], words: [TextAnalysis.Word], chars: [Character]
    ) -> String? {
        var first = index
        while true {
            if let label = label(from: first, openedAt: index, in: labels, words: words, chars: chars) { return label }
            guard first < index + 2, first + 1 < words.count, labelModifiers.contains(words[first].normalized),
                TextAnalysis.areAdjacent(words[first], words[first + 1], in: chars)
            else { return nil }
            first += 1
        }
    }

    private static func label(
        from index: Int, openedAt start: Int, in labels: [String: [[String]]], words: [TextAnalysis.Word],
        chars: [Character]
    ) -> String? {
        for label in labels[words[index].normalized] ?? []
        where TextAnalysis.matches(label, in: words, from: index, chars: chars) {
            let isAltText = altTextLabelSet.contains(label)
            if !isAltText, words[start..<index + label.count].contains(where: \.isAllCaps) { continue }
            var end = index + label.count
            if end < words.count, words[end].normalized == "for",
                let k = (end + 1..<min(end + 5, words.count)).first(where: {
                    separator(after: words[$0], dash: isAltText, chars: chars) != nil
                }),
                (end...k).allSatisfy({ TextAnalysis.areAdjacent(words[$0 - 1], words[$0], in: chars) })
            {
                end = k + 1
            }
            let last = words[end - 1]
            guard let separator = separator(after: last, dash: isAltText, chars: chars),
                chars[(separator + 1)...].contains(where: { !TextAnalysis.isLeadingMarkup($0) })
            else { continue }
            let from = words[start].range.lowerBound
            if TextAnalysis.isNewline(chars[separator]) { return String(chars[from..<last.range.upperBound]) }
            return String(chars[from...separator].filter { $0 != "*" && $0 != "_" })
        }
        return nil
    }

    /// The colon, line break or (`dash`) spaced dash after `word`, past spaces, markdown, a parenthesis.
    static func separator(after word: TextAnalysis.Word, dash: Bool, chars: [Character]) -> Int? {
        var j = word.range.upperBound
        var parenthesis = false
        while j < chars.count {
            let c = chars[j]
            if c == ":" || c == "\u{FF1A}" || TextAnalysis.isNewline(c) { return j }
            if c == "(", !parenthesis, let close = chars[j..<min(j + 60, chars.count)].firstIndex(of: ")"),
                !chars[j..<close].contains(where: TextAnalysis.isNewline)
            {
                (parenthesis, j) = (true, close + 1)
                continue
            }
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
        let before = chars[..<word.range.lowerBound].last {
            TextAnalysis.isNewline($0) || !TextAnalysis.isLeadingMarkup($0)
        }
        return before.map(TextAnalysis.isNewline) ?? true
    }

    /// A presentation, a spoken opening or an exclamation opening the answer, after a lead-in.
    static func opening(words: [TextAnalysis.Word], chars: [Character]) -> String? {
        var (position, exclamation): (Int, String?) = (0, nil)
        if let leadIn = leadInIndex[words[0].normalized]?.first(where: {
            TextAnalysis.matches($0, in: words, from: 0, chars: chars)
        }) {
            let after = words[leadIn.count - 1].range.upperBound  // French sets a space before "!".
            let end = chars[after...].prefix(2).firstIndex { !TextAnalysis.isSpace($0) } ?? chars.count
            if end < chars.count, "!,.".contains(chars[end]) {
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

    /// "Here is ... alt text" at word `position`, after at most four ``LanguagePhrases/presentationModifiers``.
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
            if LanguagePhrases.presented.contains(word) || (word == "alternative" && followedByText) {
                let last = (word == "alt" || word == "alternative") && followedByText ? k + 1 : k
                return String(chars[words[position].range.lowerBound..<words[last].range.upperBound])
            }
            guard LanguagePhrases.presentationModifiers.contains(word) else { return nil }
            k += 1
        }
        return nil
    }

    /// The longest phrase of `phrases` starting at word `index`, as written, unless it is
    /// sign text or a name: a word in capitals, or every word capitalised ("Let Me Know"), with
    /// the word after a closing "I" ("Shall I Compare" is a title, "Shall I add" is not).
    static func phrase(
        at index: Int, in phrases: [String: [[String]]], words: [TextAnalysis.Word], chars: [Character]
    ) -> String? {
        for phrase in phrases[words[index].normalized] ?? []
        where TextAnalysis.matches(phrase, in: words, from: index, chars: chars) {
            let end = index + phrase.count
            let found = words[index..<end]
            let title = phrase.last == "i" && end < words.count ? words[index...end] : found
            if found.contains(where: \.isAllCaps) || (title.count > 1 && title.allSatisfy(\.isCapitalized)) {
                continue
            }
            return String(chars[words[index].range.lowerBound..<words[end - 1].range.upperBound])
        }
        return nil
    }
}
