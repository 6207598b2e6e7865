/// Flags an opening "Image of" or "This picture shows" (WebAIM; W3C; double-great/alt-text linter).
///
/// Screen readers already announce an image, so the words add nothing. The pattern is an
/// optional opener (a, an, the, this, that, this is a, here is an, here's a, it's an, ...),
/// then image, picture, photo, pic or graphic, then of, shows, showing, depicts, features,
/// displays, captures, contains or is of. As erblint-github does, the medium words
/// "photograph", "screenshot", "painting", "drawing" and "illustration" are allowed: the
/// medium can matter. Only the opening counts, and "Image-of-the-day" or "Imagery" are other
/// words. "Image:" and "Photo:" labels are left to a meta-label check.
public struct RedundantPrefixScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let prefix = Self.redundantPrefix(chars: input.characters, words: input.words.prefix(8))
        return [.flag(ScoreName.redundantPrefix, prefix != nil, detail: prefix)]
    }

    static let openers: [[String]] = [
        [], ["a"], ["an"], ["the"], ["this"], ["that"],
        ["this", "is", "a"], ["this", "is", "an"], ["this", "is", "the"],
        ["here", "is", "a"], ["here", "is", "an"], ["here", "is", "the"],
        ["here's", "a"], ["here's", "an"], ["here's", "the"],
        ["it", "is", "a"], ["it", "is", "an"], ["it's", "a"], ["it's", "an"],
    ]

    static let media: Set<String> = ["image", "picture", "photo", "pic", "graphic"]

    static let announcements: [[String]] = [
        ["of"], ["is", "of"], ["shows"], ["showing"], ["depicts"], ["depicting"], ["features"],
        ["featuring"], ["displays"], ["displaying"], ["captures"], ["capturing"], ["contains"],
        ["containing"], ["illustrates"], ["illustrating"], ["portrays"], ["portraying"],
        ["presents"],
    ]

    /// The announcing opening of `text` as written (e.g. "This image shows"), or `nil`.
    static func redundantPrefix(in text: String) -> String? {
        let chars = Array(text.prefix(120))
        return redundantPrefix(chars: chars, words: TextAnalysis.words(in: chars, limit: 8)[...])
    }

    /// ``redundantPrefix(in:)`` over the text's `Character`s and (at least) its first 8 words.
    static func redundantPrefix(chars: [Character], words: ArraySlice<TextAnalysis.Word>) -> String? {
        guard TextAnalysis.startsWithWord(chars, words: words) else { return nil }
        for opener in openers where TextAnalysis.matches(opener, in: words, from: 0, chars: chars) {
            let medium = opener.count
            guard medium < words.count, media.contains(words[medium].normalized),
                medium == 0 || TextAnalysis.areAdjacent(words[medium - 1], words[medium], in: chars)
            else { continue }
            for announcement in announcements
            where TextAnalysis.matches(
                [words[medium].normalized] + announcement, in: words, from: medium, chars: chars)
            {
                let end = words[medium + announcement.count].range.upperBound
                return String(chars[words[0].range.lowerBound..<end])
            }
        }
        return nil
    }
}
