/// Flags an opening "Image of" or "This picture shows" (WebAIM; W3C; double-great/alt-text linter).
///
/// Screen readers already announce an image, so the words add nothing. Flagged when the
/// answer opens (after markdown at most) with one of:
/// - An optional opener (a, an, the, this, that, this is a, here is an, here's a, it's an,
///   it appears to be a, ... ``openers``), then a plain picture word (image, picture, photo,
///   pic, graphic: ``plainMedia``), then of, is of, or a picture verb (shows, depicts,
///   features, showcases, ... ``PerceptionMetaScorer/verbs``, with the bare forms captioners
///   write: "image show two dogs", "this image depict a bus").
/// - A statement about the picture (``PerceptionMetaScorer/statements``): this/the picture
///   word, where any medium counts, then a picture verb or a copula naming it again: "The
///   photograph showcases", "The image is a photograph of", "This photo is a cartoon",
///   "The picture appears to be a close-up of".
///
/// Not flagged:
/// - Naming the medium, as erblint-github and WebAIM allow when it matters: "A photograph
///   of", "Screenshot of", "A painting of", "An illustration of", "This is a drawing of".
///   A screenshot, a painting or a drawing is announced only with a picture verb or copula
///   ("This screenshot shows").
/// - Titles in Title Case ("Picture Of The Day"), idioms (``idioms``: "The image of God",
///   "the picture of health", "Photo highlights of the day"), other words ("Image-of-the-day", "Imagery"), and anything
///   after the opening. "Image:" and "Photo:" labels are left to `meta_label`; picture talk
///   later in the answer to `perception_meta`.
public struct RedundantPrefixScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let prefix = Self.redundantPrefix(chars: input.characters, words: input.words)
            ?? Self.announcingPhrase(chars: input.characters, words: input.words) ?? Self.otherLanguageOpening(input)
            ?? Self.openingClausePhrase(chars: input.characters, words: input.words)
        return [.flag(ScoreName.redundantPrefix, prefix != nil, detail: prefix)]
    }

    /// What may come before the picture word.
    static let openers: [String] = [
        "", "a|an|the|this|that", "this|here is a|an|the", "it is a|an", "here's a|an|the", "it's a|an",
        "this|it appears|seems to be a|an",
    ]

    /// Picture words that announce the image after any opener. The medium words
    /// (photograph, screenshot, painting, drawing, illustration) name what kind of picture it
    /// is and count only in a ``PerceptionMetaScorer/statements`` statement.
    static let plainMedia: Set<String> = ["image", "picture", "pic", "graphic"]

    /// What follows the picture word: "of", "is of", or a picture verb.
    static let announcements = ["of", "is of", "{verbs}"]

    static let patterns: [WordPattern] =
        openers.flatMap { opener in
            announcements.map { announcement in
                WordPattern(
                    "\(opener) {plain} \(announcement)",
                    sets: PerceptionMetaScorer.sets.merging(["plain": plainMedia]) { old, _ in old })
            }
        } + PerceptionMetaScorer.statements
        + WordPattern.list(
            [
                "in|on the|this {in-media}", "this|the {media} appears|seems to be", "it shows|depicts|portrays",
                "it appears|seems to show|depict", "may be a|an {plain} of",
            ], PerceptionMetaScorer.sets.merging(["plain": plainMedia]) { old, _ in old })

    /// Picture words that head an opening noun phrase announcing the picture: "A close-up
    /// outdoor shot shows", "A horizontally-oriented eye level image shows", "A close up
    /// picture of", "Stock image of".
    /// The plain picture words of the other languages, which head an announcing noun phrase
    /// with their "of" ("Wunderhübsches Bild der Virchowstraße", "Imagen de una playa").
    static let otherPlainMedia: Set<String> = ["bild", "imagen", "imagem", "immagine", "afbeelding", "image"]
    static let ofWords: Set<String> = [
        "of", "der", "des", "von", "vom", "eines", "einer", "de", "del", "da", "do", "di", "della", "van", "d",
    ]

    static let shotWords: Set<String> = [
        "image", "picture", "pic", "photo", "photograph", "shot", "close-up", "closeup", "snapshot", "graphic",
        "bild", "imagen", "imagem", "immagine", "afbeelding",
    ]

    /// An opening noun phrase of at most six words whose head is a picture word followed by a
    /// picture verb ("… shot captures") or, for the plain words, "of" ("A close up picture of").
    static func announcingPhrase(chars: [Character], words: [TextAnalysis.Word]) -> String? {
        guard TextAnalysis.startsWithWord(chars, words: words) else { return nil }
        if words.count == 1, plainMedia.contains(words[0].normalized) { return words[0].text }  // alt="image"
        for head in 0..<min(6, max(words.count - 1, 0)) where shotWords.contains(words[head].normalized) {
            // Only modifiers before the head: "A cat looking at an image of" is no opening phrase.
            if words[..<head].dropFirst().contains(where: {
                TruncationScorer.functionWords.contains($0.normalized) || $0.normalized.hasSuffix("ing")
            }) || (head > 0 && words[0].normalized.hasSuffix("ing")) {
                continue
            }
            let next = words[head + 1].normalized
            let announces = PerceptionMetaScorer.verbs.contains(next)
                || (ofWords.contains(next) && (plainMedia.contains(words[head].normalized) || otherPlainMedia.contains(words[head].normalized)))
            guard announces, TextAnalysis.areAdjacent(words[head], words[head + 1], in: chars),
                !chars[..<words[head].range.lowerBound].contains(where: { TextAnalysis.isSentenceTerminator($0) || $0 == ":" || $0.isNewline }),
                !words[...(head + 1)].contains(where: \.isAllCaps),
                !words[...(head + 1)].allSatisfy(\.isCapitalized),
                !idioms.contains(where: { $0.end(in: words, at: head, chars: chars) != nil })
            else { continue }
            return PerceptionMetaScorer.written(words[0...(head + 1)], in: chars)
        }
        return nil
    }

    /// An opening that announces the picture in another language ("Das Bild zeigt", "Sur
    /// cette image", "Imagen de", "この画像は", ``LanguagePhrases``), or `nil`.
    static func otherLanguageOpening(_ input: ScoringInput) -> String? {
        let (chars, words) = (input.characters, input.words)
        let opening = words.prefix(4)
        if TextAnalysis.startsWithWord(chars, words: words),
            LanguagePhrases.pictureOpenings.mayMatch(opening) || LanguagePhrases.pictureTalk.mayMatch(opening)
        {
            let folded = LanguagePhrases.folded(Array(opening))
            for table in [LanguagePhrases.pictureOpenings, LanguagePhrases.pictureTalk] {
                if let end = table.end(at: 0, folded: folded, words: words, chars: chars),
                    !words[0..<end].contains(where: \.isAllCaps)
                {
                    return PerceptionMetaScorer.written(words[0..<end], in: chars)
                }
            }
        }
        return LanguagePhrases.pictureOpeningsCJK.opening(of: chars)
    }

    /// A picture word and what follows it that name something else.
    static let idioms =
        WordPattern.list(["image of god|christ", "picture of health|innocence"]) + PerceptionMetaScorer.nounCompounds

    /// The announcing opening of `text` as written (e.g. "This image shows"), or `nil`.
    static func redundantPrefix(in text: String) -> String? {
        let chars = Array(text)
        return redundantPrefix(chars: chars, words: TextAnalysis.words(in: chars))
    }

    /// ``redundantPrefix(in:)`` over the text's `Character`s and words.
    static func redundantPrefix(chars: [Character], words: [TextAnalysis.Word]) -> String? {
        guard TextAnalysis.startsWithWord(chars, words: words),
            let end = WordPattern.longestMatch(patterns, in: words, at: 0, chars: chars)
        else { return nil }
        let phrase = words[..<end]
        if phrase.count > 1, phrase.allSatisfy(\.isCapitalized),
            phrase.contains(where: { $0.text.contains(where: \.isLowercase) })
        {
            return nil
        }
        if let medium = phrase.firstIndex(where: { PerceptionMetaScorer.media.contains($0.normalized) }),
            idioms.contains(where: { $0.end(in: words, at: medium, chars: chars) != nil })
        {
            return nil
        }
        return PerceptionMetaScorer.written(phrase, in: chars)
    }

    /// Picture talk in the opening clause (the words before the first , ; : . ! ? or line
    /// break, at most eight): "In the image, …", "Hier zien we …", "In deze donkere foto …",
    /// "The image is a sketch of …", "画像では、…", "这两张图片…", as written; `redundant_prefix`
    /// reads it as announcing the picture.
    static func openingClausePhrase(chars: [Character], words: [TextAnalysis.Word]) -> String? {
        guard TextAnalysis.startsWithWord(chars, words: words) || chars.first.map(LanguagePhrases.isCJK) == true
        else { return nil }
        let end = chars.firstIndex(where: endsClause) ?? chars.count
        let clause = words.prefix { $0.range.upperBound <= end }.prefix(8)
        // Only lead words may come before the picture talk: "Hier zien we", "In questa scena
        // vediamo", "Ist möglicherweise ein Bild von"; "The girl in the image" names the girl first.
        let leading = clause.prefix { openingLeadWords.contains(LanguagePhrases.folded($0)) }
        let starts = clause.startIndex...min(clause.startIndex + leading.count, max(clause.endIndex - 1, 0))
        for index in starts where index < clause.endIndex {
            let found = WordPattern.longestMatch(PerceptionMetaScorer.openingTalk, in: words, at: index, chars: chars)
                ?? PerceptionMetaScorer.pictureReference(at: index, words: words, chars: chars, atOpening: true)
            if let found, found <= clause.endIndex, !PerceptionMetaScorer.isSignTextOrTitle(words[index..<found]),
                !idioms.contains(where: { $0.end(in: words, at: index + 1, chars: chars) != nil })
            {
                return PerceptionMetaScorer.written(words[index..<found], in: chars)
            }
        }
        guard LanguagePhrases.pictureTalk.mayMatch(clause) || LanguagePhrases.pictureOpenings.mayMatch(clause) else {
            return LanguagePhrases.openingClauseCJK.first(in: chars[..<end])
        }
        let folded = LanguagePhrases.folded(Array(clause))
        for index in starts where index < clause.endIndex {
            if let found = LanguagePhrases.pictureTalk.end(at: index, folded: folded, words: Array(clause), chars: chars)
                ?? LanguagePhrases.pictureOpenings.end(at: index, folded: folded, words: Array(clause), chars: chars),
                !words[index..<found].contains(where: \.isAllCaps)
            {
                return PerceptionMetaScorer.written(words[index..<found], in: chars)
            }
        }
        return LanguagePhrases.openingClauseCJK.first(in: chars[..<end])
    }

    /// Whether `c` ends an opening clause: , ; : . ! ? a line break, and their CJK forms.
    static func endsClause(_ c: Character) -> Bool {
        if let a = c.asciiByte { return a == 0x2C || a == 0x3B || a == 0x3A || a == 0x2E || a == 0x21 || a == 0x3F || a == 0x0A }
        return c == "\u{3001}" || c == "\u{3002}" || c == "\u{FF0C}" || c == "\u{FF1A}" || c == "\u{FF01}"
            || c == "\u{FF1F}" || c.isNewline
    }

    /// Words that may come before picture talk in an opening clause without naming anything.
    static let openingLeadWords: Set<String> = [
        "here", "hier", "ist", "is", "es", "moglicherweise", "wahrscheinlich", "maybe", "may", "be", "possibly", "probably",
        "in", "questa", "scena", "this", "that", "so", "now", "yes", "no", "ok", "okay", "well", "sure",
    ]
}
