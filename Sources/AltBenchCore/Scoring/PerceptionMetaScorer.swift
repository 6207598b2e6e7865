/// Flags the model talking about seeing or about the picture (altbench research; WebAIM).
///
/// WebAIM advises against announcing the image in its alt text ("image of", "graphic of"):
/// a screen reader has already said "image". Talking about looking at it is the same
/// redundancy, and a "fail" in the scoring research. Flagged phrases, as whole words with
/// only spaces between:
/// - Seeing: "I see", "I/we/you/one can see" (also "could", and "can also/clearly see"),
///   "we see", "can be seen", "could be seen", "we are / you are / I am looking at".
/// - The picture: "in this/the image", "in this/the picture", "in this/the photo" (also
///   "pic" and "photograph"), and "this/the image shows" (depicts, features, displays,
///   captures, contains, illustrates, portrays, presents, reveals).
///
/// Not flagged:
/// - Reported text: quotations and signs, captions and titles are removed first with
///   ``TextAnalysis/ownVoice(_:)`` ("A sign reading YOU CAN SEE THE SEA", “we see you”).
/// - All-caps words ("A poster: WE SEE YOU") are sign text, and a phrase whose every word is
///   capitalised ("the song We Can See", "In This Picture") is a name or a title.
/// - An opening "The image shows" (the first word of the text): the start belongs to
///   `redundant_prefix`, so one habit is not counted twice.
/// - "the picture/photo ..." when the same word came earlier: then the model is describing
///   a photo in the image ("A woman holds a photo; in the photo, a baby smiles"). "this
///   image" always means the image itself.
/// - Compounds and idioms: "in the picture frame", "in the photo booth", "in the image of
///   God". "Visible in the background", "seen from above" and "a seesaw" name no picture.
///
/// The detail is the first phrase found, as written: "can be seen", "In this image".
public struct PerceptionMetaScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let phrase = Self.perceptionPhrase(in: input)
        return [.flag(ScoreName.perceptionMeta, phrase != nil, detail: phrase)]
    }

    /// Seeing phrases, in normalized words.
    static let seeingPhrases: [[String]] = {
        var phrases: [[String]] = [
            ["i", "see"], ["we", "see"],
            ["we", "are", "looking", "at"], ["we're", "looking", "at"],
            ["you", "are", "looking", "at"], ["you're", "looking", "at"],
            ["i", "am", "looking", "at"], ["i'm", "looking", "at"],
        ]
        for modal in ["can", "could"] {
            for subject in ["i", "we", "you", "one"] {
                phrases.append([subject, modal, "see"])
                for adverb in adverbs { phrases.append([subject, modal, adverb, "see"]) }
            }
            phrases.append([modal, "be", "seen"])
            for adverb in adverbs { phrases.append([modal, adverb, "be", "seen"]) }
        }
        return phrases
    }()

    static let adverbs = ["also", "clearly", "just", "still"]

    /// Words naming the picture itself.
    static let media: Set<String> = ["image", "picture", "photo", "pic", "photograph"]

    /// Verbs that make "the image ..." a statement about the picture.
    static let pictureVerbs: Set<String> = [
        "shows", "depicts", "features", "displays", "captures", "contains", "illustrates",
        "portrays", "presents", "reveals",
    ]

    /// Words that make "in the picture ..." a compound or an idiom: "in the picture frame",
    /// "in the picture window", "in the photo booth", "in the image of God".
    static let compoundHeads: Set<String> = [
        "of", "frame", "frames", "book", "books", "booth", "album", "albums", "gallery", "wall",
        "strip", "editor", "viewer", "app", "studio", "shoot", "session", "library", "collage",
        "window", "windows", "house",
    ]

    /// Phrases keyed by their first word, so each word looks up only its own candidates.
    static let phrasesByFirstWord: [String: [[String]]] = index(
        seeingPhrases
            + media.flatMap { medium in [["in", "this", medium], ["in", "the", medium]] }
            + media.flatMap { medium in
                pictureVerbs.flatMap { verb in [["this", medium, verb], ["the", medium, verb]] }
            })

    /// `phrases` grouped by first word, longest first within each group.
    static func index(_ phrases: [[String]]) -> [String: [[String]]] {
        var result: [String: [[String]]] = [:]
        for phrase in phrases { result[phrase[0], default: []].append(phrase) }
        for key in result.keys { result[key]?.sort { $0.count > $1.count } }
        return result
    }

    /// Words without which no phrase matches, packed for the byte prefilter.
    static let candidateWords = WordSet([
        "see", "seen", "looking", "image", "picture", "photo", "pic", "photograph",
    ])

    /// The first perception phrase in the model's own voice, as written, or `nil`.
    ///
    /// Most answers hold none of ``candidateWords`` and pass after one scan of the UTF-8
    /// bytes. The phrases are then looked for in the text as written, and only when one is
    /// there, and the text quotes or reports something, is the model's own voice computed to
    /// check it again.
    static func perceptionPhrase(in input: ScoringInput) -> String? {
        var text = input.text
        guard text.withUTF8({ containsWord($0, candidateWords) }) else { return nil }
        // An opening "The image shows" is redundant_prefix's and stays first in the own voice.
        let raw = phraseMatches(
            phrasesByFirstWord, in: input.words, chars: input.characters, limit: 2, includingSignText: true)
        guard raw.contains(where: { $0.lowerBound > 0 || !media.contains(input.words[1].normalized) }) else {
            return nil
        }
        if isAllOwnVoice(input) { return firstPhrase(in: input.words, chars: input.characters) }
        let chars = Array(TextAnalysis.ownVoice(input.text))
        return firstPhrase(in: TextAnalysis.words(in: chars), chars: chars)
    }

    /// Whether ``TextAnalysis/ownVoice(_:)`` would keep all of `input`'s text: it has no
    /// quotation and no reporting word. Much cheaper than computing the voice, and exact.
    static func isAllOwnVoice(_ input: ScoringInput) -> Bool {
        var text = input.text
        if text.withUTF8(mayHoldQuotation), !TextAnalysis.quotedSpans(in: input.characters).isEmpty {
            return false
        }
        return !input.words.contains { TextAnalysis.reportingWords.contains($0.normalized) }
    }

    /// Whether the UTF-8 `bytes` may hold a quotation mark: a straight quote, or the lead
    /// byte of the curly, low and angle quotation marks and the CJK corner brackets (which
    /// other characters share, so `true` is only a maybe). `false` rules out every span
    /// ``TextAnalysis/quotedSpans(in:)`` would find, at a fraction of its cost.
    static func mayHoldQuotation(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "'"), 0xC2, 0xE2, 0xE3: return true
            default: continue
            }
        }
        return false
    }

    /// The first phrase of `words` that is about seeing or the picture, as written.
    static func firstPhrase(in words: [TextAnalysis.Word], chars: [Character]) -> String? {
        for match in phraseMatches(phrasesByFirstWord, in: words, chars: chars) {
            let first = words[match.lowerBound]
            if media.contains(words[match.lowerBound + 1].normalized) {
                // "this/the image shows": the opening belongs to redundant_prefix.
                guard match.lowerBound > 0 else { continue }
                if first.normalized == "the",
                    refersBack(words[match.lowerBound + 1], before: match.lowerBound, in: words)
                {
                    continue
                }
            } else if first.normalized == "in" {
                if words[match.lowerBound + 1].normalized == "the",
                    refersBack(words[match.lowerBound + 2], before: match.lowerBound, in: words)
                {
                    continue
                }
                let next = match.upperBound
                if next < words.count, compoundHeads.contains(words[next].normalized),
                    TextAnalysis.areAdjacent(words[next - 1], words[next], in: chars)
                {
                    continue
                }
            }
            let last = words[match.upperBound - 1]
            return String(chars[first.range.lowerBound..<last.range.upperBound])
        }
        return nil
    }

    /// Whether `medium` ("photo") already appeared before word `index`, so that "the photo"
    /// names that photo, not the image.
    private static func refersBack(_ medium: TextAnalysis.Word, before index: Int, in words: [TextAnalysis.Word])
        -> Bool
    {
        words[..<index].contains { $0.normalized == medium.normalized || $0.normalized == medium.normalized + "s" }
    }

    /// The word ranges of `words` that spell one of `phrases` (only spaces between the
    /// words), left to right and not overlapping, at most `limit` of them. Unless
    /// `includingSignText`, a phrase with an all-caps word ("WE SEE YOU") or with every word
    /// capitalised ("We See") is sign text or a name and left out.
    static func phraseMatches(
        _ phrases: [String: [[String]]], in words: [TextAnalysis.Word], chars: [Character],
        limit: Int = .max, includingSignText: Bool = false
    ) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var index = 0
        while index < words.count, result.count < limit {
            var matched: Range<Int>?
            if let candidates = phrases[words[index].normalized] {
                for phrase in candidates
                where TextAnalysis.matches(phrase, in: words, from: index, chars: chars) {
                    let range = index..<(index + phrase.count)
                    if includingSignText || !isSignTextOrName(words[range]) { matched = range }
                    break
                }
            }
            if let matched {
                result.append(matched)
                index = matched.upperBound
            } else {
                index += 1
            }
        }
        return result
    }

    /// Whether a matched phrase is shouted sign text (an all-caps word) or a title (every
    /// word capitalised, as in "the film We Can See").
    static func isSignTextOrName(_ phrase: ArraySlice<TextAnalysis.Word>) -> Bool {
        phrase.contains(where: isAllCaps) || (phrase.count > 1 && phrase.allSatisfy(isCapitalized))
    }

    /// ``TextAnalysis/Word/isAllCaps``, answered from the bytes when the word is ASCII.
    static func isAllCaps(_ word: TextAnalysis.Word) -> Bool {
        var letters = 0
        for b in word.text.utf8 {
            if b >= 0x80 { return word.isAllCaps }
            if b >= 97 && b <= 122 { return false }
            if b >= 65 && b <= 90 { letters += 1 }
        }
        return letters > 1
    }

    /// ``TextAnalysis/Word/isCapitalized``, answered from the first byte when it is ASCII.
    static func isCapitalized(_ word: TextAnalysis.Word) -> Bool {
        guard let first = word.text.utf8.first, first < 0x80 else { return word.isCapitalized }
        return first >= 65 && first <= 90
    }

    // MARK: - Byte prefilter

    /// A few lowercase ASCII words, for ``containsWord(_:_:)``: each packed as its first
    /// seven bytes and its length, with masks of the lengths and first letters so that most
    /// words of a text are ruled out by two bit tests.
    struct WordSet: Sendable {
        var keys: [UInt64]
        var lengths: UInt64 = 0
        var firstLetters: UInt64 = 0

        init(_ words: [String]) {
            keys = words.map(PerceptionMetaScorer.wordKey)
            for word in words {
                lengths |= 1 << UInt64(min(word.utf8.count, 63))
                firstLetters |= 1 << UInt64(word.utf8.first! & 63)
            }
        }
    }

    /// A lowercase ASCII word packed into a ``WordSet`` key: its first seven bytes and its
    /// length.
    static func wordKey(_ word: String) -> UInt64 {
        var key: UInt64 = 0
        var length = 0
        for b in word.utf8 {
            if length < 7 { key |= UInt64(b) << (8 * UInt64(length)) }
            length += 1
        }
        return key | UInt64(min(length, 255)) << 56
    }

    /// Each byte lowercased when it is an ASCII letter or digit, 0 otherwise.
    static let asciiWordBytes: [UInt8] = (0..<256).map { b in
        switch b {
        case 65...90: UInt8(b | 0x20)
        case 97...122, 48...57: UInt8(b)
        default: 0
        }
    }

    /// Whether the UTF-8 `bytes` hold one of `words` as a whole run of ASCII letters and
    /// digits, in any case. A cheap test with no allocation, run before any word-level
    /// work; a hit is only a candidate.
    static func containsWord(_ bytes: UnsafeBufferPointer<UInt8>, _ words: WordSet) -> Bool {
        asciiWordBytes.withUnsafeBufferPointer { table in
            let n = bytes.count
            var i = 0
            while i < n {
                let first = table[Int(bytes[i])]
                guard first != 0 else {
                    i += 1
                    continue
                }
                var j = i + 1
                while j < n, table[Int(bytes[j])] != 0 { j += 1 }
                let length = j - i
                if words.lengths & (1 << UInt64(min(length, 63))) != 0,
                    words.firstLetters & (1 << UInt64(first & 63)) != 0
                {
                    var key = UInt64(min(length, 255)) << 56
                    for k in 0..<min(length, 7) { key |= UInt64(table[Int(bytes[i + k])]) << (8 * UInt64(k)) }
                    if words.keys.contains(key) { return true }
                }
                i = j
            }
            return false
        }
    }
}
