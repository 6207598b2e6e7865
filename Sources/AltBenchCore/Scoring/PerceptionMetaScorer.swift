/// Flags the model talking about seeing or about the picture (altbench research; WebAIM).
///
/// WebAIM advises against announcing the image in its alt text ("image of", "graphic of"):
/// a screen reader has already said "image". Talking about looking at it, or about the
/// picture as a picture, is the same redundancy, and a "fail" in the scoring research.
/// Flagged, anywhere in the model's own voice, as whole words with only spaces between
/// (the tables below, in lowercase, any case in the text):
/// - Seeing: "I see", "we/you/one can see" (could; can also/clearly see), "can be seen",
///   "we are / I am looking at" (``seeing``).
/// - Where: "in this/the image" (picture, photo, pic, photograph) (``inPicture``).
/// - The picture as the subject of a picture verb or of a copula (``statements``): "the image
///   shows", "this photo depicts", "the photograph showcases", "the image show" (captioners
///   drop the -s), "the picture is of", "the image is a photograph of", "the photo appears
///   to be a close-up of", "this photo is a cartoon of". The picture words are ``media``:
///   image, picture, photo, pic, photograph, illustration, screenshot, drawing, graphic,
///   artwork, painting; the verbs are ``verbs``.
///
/// Not flagged:
/// - Reported text: quotations, and what follows a reporting word (a sign reading …, a
///   caption saying …) are not the model's own voice (``TermMatching/ownVoice(of:)``).
/// - A phrase with an all-caps word ("A billboard: WE SEE YOU") is sign text, and one whose
///   every word is capitalised ("the song We Can See", "In This Picture") is a title.
/// - A statement opening the answer ("The image shows a dog."): the opening belongs to
///   `redundant_prefix`, so one habit is not counted twice. After an opening label ("Alt
///   text: The image shows …", ``labelWords``) the statement is the model's own again.
/// - "the/that photo …" when the same picture word came earlier: then it is a photo in the
///   image ("A woman holds a photo; in the photo, a baby smiles"). "this image" always means
///   the image itself.
/// - Compounds and idioms after "in the picture": "in the picture frame", "in the photo
///   booth", "in the image of God" (``compoundHeads``); a picture word and a verb that make
///   a noun: "the picture show" (``nounCompounds``). "Visible in the background", "seen
///   from above" and "a seesaw" name no picture.
///
/// The detail is the first phrase found, as written: "can be seen", "In this image".
public struct PerceptionMetaScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let phrase = Self.perceptionPhrase(in: input)
        return [.flag(ScoreName.perceptionMeta, phrase != nil, detail: phrase)]
    }

    // MARK: - The rule as data

    /// Words naming the picture itself, in "the image shows" and "is a photograph of".
    static let media: Set<String> = [
        "image", "picture", "photo", "pic", "photograph", "illustration", "screenshot", "drawing", "graphic",
    ]

    /// Picture words after "in this/the": only the plain ones, since "in the painting" or "in
    /// the drawing room" often name things in the picture.
    static let inMedia: Set<String> = ["image", "picture", "photo", "pic", "photograph"]

    /// Verbs that make "the image …" a statement about the picture, with the bare forms
    /// captioners write ("the image show two dogs").
    /// The bare forms that are also nouns ("the photo display", "a photo feature") are left
    /// out.
    static let verbs: Set<String> = [
        "shows", "show", "showing", "depicts", "depict", "depicting", "features", "featuring",
        "displays", "displaying", "captures", "capture", "capturing", "contains", "contain",
        "containing", "illustrates", "illustrate", "illustrating", "portrays", "portray",
        "portraying", "presents", "presenting", "reveals", "revealing", "showcases", "showcase",
        "showcasing", "highlights", "highlighting",
    ]

    /// A picture word and a verb that are a noun together: "the picture show", "photo
    /// highlights of the wedding".
    static let nounCompounds = WordPattern.list(["picture|photo show", "{media} {verbs} of"], sets)

    /// Shots that "the image is a … of": "is a close-up of", "is a shot of".
    static let shots: Set<String> = ["close-up", "closeup", "shot", "snapshot", "view"]

    /// Word sets the phrase tables name in braces.
    static let sets: [String: Set<String>] = ["media": media, "in-media": inMedia, "verbs": verbs, "shots": shots]

    /// Seeing: the model, or the reader, looking.
    static let seeing = WordPattern.list([
        "i|we see",
        "i|we|you|one can|could see",
        "i|we|you|one can|could also|clearly|just|still see",
        "can|could be seen",
        "can|could also|clearly|just|still be seen",
        "we|you are looking at",
        "i am looking at",
        "we're|you're|i'm looking at",
    ])

    /// Where: "in this image".
    static let inPicture = WordPattern.list(["in this|the {in-media}"], sets)

    /// The picture as the subject: "the image shows", "the image is a photograph of".
    /// `redundant_prefix` flags these when they open the answer.
    static let statements = WordPattern.list([
        "this|that|the {media} {verbs}",
        "this|that|the {media} is|was {verbs}",
        "this|that|the {media} is of",
        "this|that|the {media} is|was a|an {media}|{shots} of",
        "this|that|the {media} appears|seems to be a|an {media}|{shots} of",
        "this|that|the {media} appears|seems to {verbs}",
        "this|that {media} is|was a|an",
    ], sets)

    /// Words that make "in the picture …" a compound or an idiom: "in the picture frame",
    /// "in the photo booth", "in the image of God".
    static let compoundHeads: Set<String> = [
        "of", "frame", "frames", "book", "books", "booth", "album", "albums", "gallery", "wall",
        "strip", "editor", "viewer", "app", "studio", "shoot", "session", "library", "collage",
        "window", "windows", "house", "display", "displays", "op", "ops", "credit", "credits", "opportunity",
        "quality", "resolution", "format", "size",
    ]

    /// The last word of an opening label ("Alt text:", "Caption:", "Image description:")
    /// after which the answer speaks in the model's voice again.
    static let labelWords: Set<String> = [
        "alt", "text", "alt-text", "alttext", "description", "caption", "image", "photo", "picture",
    ]

    // MARK: - Finding it

    /// The words a phrase may start with, to pass over the others at once.
    static let firstWords = Set(openingTalk.flatMap { $0.slots[0] })

    /// Every phrase table of the rule, as `redundant_prefix` also reads them in an opening clause.
    static let openingTalk = seeing + inPicture + statements + handling

    /// The first perception phrase in the model's own voice, as written, or `nil`.
    static func perceptionPhrase(in input: ScoringInput) -> String? {
        let voice = ownVoice(of: input)
        let (chars, words) = (voice.characters, voice.words)
        for index in words.indices where firstWords.contains(words[index].normalized) {
            if let end = WordPattern.longestMatch(seeing, in: words, at: index, chars: chars),
                !isSignTextOrTitle(words[index..<end])
            {
                return written(words[index..<end], in: chars)
            }
            if let end = WordPattern.longestMatch(inPicture, in: words, at: index, chars: chars),
                !isSignTextOrTitle(words[index..<end]),
                !(words[index + 1].normalized == "the" && refersBack(to: words[index + 2], before: index, in: words)),
                !(end < words.count && compoundHeads.contains(words[end].normalized)
                    && TextAnalysis.areAdjacent(words[end - 1], words[end], in: chars))
            {
                return written(words[index..<end], in: chars)
            }
            if let end = WordPattern.longestMatch(statements, in: words, at: index, chars: chars),
                !isSignTextOrTitle(words[index..<end]),
                index > 0 || voice.afterLabel,
                !nounCompounds.contains(where: { $0.end(in: words, at: index + 1, chars: chars) != nil }),
                words[index].normalized == "this" || !refersBack(to: words[index + 1], before: index, in: words)
            {
                return written(words[index..<end], in: chars)
            }
            if let end = pictureReference(at: index, words: words, chars: chars)
                ?? WordPattern.longestMatch(handling, in: words, at: index, chars: chars)
            {
                return written(words[index..<end], in: chars)
            }
        }
        // German capitalises nouns ("Im Bild"): only capitals mark sign text here.
        return LanguagePhrases.pictureTalk.first(folded: LanguagePhrases.folded(words), words: words, chars: chars) {
            words[$0].contains(where: \.isAllCaps)
        } ?? LanguagePhrases.pictureTalkCJK.first(in: chars)
    }

    /// Handling pictures as pictures, in refusals and asides: "view images", "process the
    /// image", "descriptions of images", "from a picture".
    static let handling = WordPattern.list([
        "{handle} images|pictures|photos", "{handle} an|the|any|your|this image|picture|photo",
        "descriptions|description of|for images|pictures|photos", "from a|the picture|photo|image",
    ], ["handle": ["view", "see", "access", "process", "analyze", "analyse", "describe", "interpret", "open", "display",
        "share", "upload", "attach", "receive", "provided", "no"]])

    /// Picture words that name the image itself after "this", "the" or "that".
    static let referenceMedia: Set<String> = [
        "image", "picture", "photo", "photograph", "pic", "image's", "picture's", "photo's", "photograph's",
    ]

    /// "this image", "the photo", "the picture's": the picture named as a picture anywhere
    /// ("in the foreground of the image", "the photo was taken at dusk", "visible in the
    /// picture"), unless "the/that photo" names a photo mentioned before, or a compound or
    /// idiom follows ("the picture frame", "the image of God", "the picture of health").
    static func pictureReference(
        at index: Int, words: [TextAnalysis.Word], chars: [Character], atOpening: Bool = false
    ) -> Int? {
        // At the opening, the statement is `redundant_prefix`'s.
        guard index > 0 || atOpening, index + 1 < words.count, ["this", "the", "that"].contains(words[index].normalized),
            !nounCompounds.contains(where: { $0.end(in: words, at: index + 1, chars: chars) != nil }),
            referenceMedia.contains(words[index + 1].normalized),
            TextAnalysis.areAdjacent(words[index], words[index + 1], in: chars),
            !isSignTextOrTitle(words[index...index + 1]),
            words[index].normalized == "this" || !refersBack(to: words[index + 1], before: index, in: words),
            // A capitalised picture word inside a sentence names something: "the Photo option".
            !words[index + 1].isCapitalized || TextAnalysis.isSentenceStart(chars, at: words[index + 1].range.lowerBound)
        else { return nil }
        let end = index + 2
        if end < words.count, TextAnalysis.areAdjacent(words[end - 1], words[end], in: chars) {
            let next = words[end].normalized
            if compoundHeads.contains(next) && next != "of" { return nil }
            if next == "of", end + 1 < words.count, ["god", "christ", "health", "innocence"].contains(words[end + 1].normalized) {
                return nil
            }
        }
        return end
    }

    /// The model's own voice: the answer without what it quotes or reports, and without an
    /// opening label such as "Alt text:" (whose "text" would report everything after it).
    static func ownVoice(of input: ScoringInput)
        -> (characters: [Character], words: [TextAnalysis.Word], afterLabel: Bool)
    {
        guard let colon = openingLabelEnd(input) else {
            let voice = TermMatching.ownVoice(of: input)
            return (voice.characters, voice.words, false)
        }
        let rest = Array(input.characters[(colon + 1)...])
        let words = TextAnalysis.words(in: rest)
        let chars = TextAnalysis.ownVoice(characters: rest, words: words, quotedSpans: TextAnalysis.quotedSpans(in: rest))
        return chars.map { ($0, TextAnalysis.words(in: $0), true) } ?? (rest, words, true)
    }

    /// The offset of the colon that ends an opening label of one to three words whose last
    /// is one of ``labelWords`` ("Alt text:", "**Caption:**"), or `nil`.
    static func openingLabelEnd(_ input: ScoringInput) -> Int? {
        let (chars, words) = (input.characters, input.words)
        guard TextAnalysis.startsWithWord(chars, words: words) else { return nil }
        for last in 0..<min(3, words.count) {
            if last > 0, !TextAnalysis.areAdjacent(words[last - 1], words[last], in: chars) { return nil }
            var end = words[last].range.upperBound
            while end < chars.count, chars[end] == "*" || chars[end] == "_" { end += 1 }
            if end < chars.count, chars[end] == ":" {
                return labelWords.contains(words[last].normalized) ? end : nil
            }
        }
        return nil
    }

    /// Whether the picture word `medium` ("photo") already appeared before word `index`, so
    /// that "the photo" names that photo, not the image.
    static func refersBack(to medium: TextAnalysis.Word, before index: Int, in words: [TextAnalysis.Word]) -> Bool {
        let plural = medium.normalized + "s"
        return words[..<index].contains { $0.normalized == medium.normalized || $0.normalized == plural }
    }

    /// Whether a matched phrase is shouted sign text (an all-caps word) or a title (every
    /// word capitalised, as in "the film We Can See").
    static func isSignTextOrTitle(_ phrase: ArraySlice<TextAnalysis.Word>) -> Bool {
        phrase.contains(where: \.isAllCaps) || (phrase.count > 1 && phrase.allSatisfy(\.isCapitalized))
    }

    /// `words` as they are written in `chars`, with what lies between them.
    static func written(_ words: ArraySlice<TextAnalysis.Word>, in chars: [Character]) -> String {
        String(chars[words.first!.range.lowerBound..<words.last!.range.upperBound])
    }
}

/// A phrase as word slots, each a set of normalized words: written as words separated by
/// spaces, alternatives by "|", and a named set in braces ("this|the {media} shows").
struct WordPattern: Sendable {
    let slots: [Set<String>]

    init(_ spec: String, sets: [String: Set<String>] = [:]) {
        slots = spec.split(separator: " ").map { slot in
            slot.split(separator: "|").reduce(into: Set<String>()) { words, word in
                if word.hasPrefix("{") {
                    words.formUnion(sets[String(word.dropFirst().dropLast())]!)
                } else {
                    words.insert(String(word))
                }
            }
        }
    }

    static func list(_ specs: [String], _ sets: [String: Set<String>] = [:]) -> [WordPattern] {
        specs.map { WordPattern($0, sets: sets) }
    }

    /// The end of the pattern when it spells `words[start...]` with only whitespace between
    /// the words, or `nil`.
    func end(in words: [TextAnalysis.Word], at start: Int, chars: [Character]) -> Int? {
        guard start + slots.count <= words.count else { return nil }
        for (k, slot) in slots.enumerated() {
            guard slot.contains(words[start + k].normalized) else { return nil }
            if k > 0, !TextAnalysis.areAdjacent(words[start + k - 1], words[start + k], in: chars) { return nil }
        }
        return start + slots.count
    }

    /// The end of the longest of `patterns` that spells `words[start...]`, or `nil`.
    static func longestMatch(
        _ patterns: [WordPattern], in words: [TextAnalysis.Word], at start: Int, chars: [Character]
    ) -> Int? {
        patterns.compactMap { $0.end(in: words, at: start, chars: chars) }.max()
    }
}
