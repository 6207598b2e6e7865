/// Counts the hashtags, URLs and @mentions the model adds in its own voice: a screen reader
/// spells them out ("number sign sunset", "h t t p s colon slash slash…"), and none of them
/// describes the image (altbench scoring research: "hashtags are spelled out"; Mastodon
/// practice keeps tags in the post, not in the media description).
///
/// The tokens, modelled on Mastodon's own parsing:
/// - a hashtag is # and a run of letters, digits and _ holding at least one letter, after
///   the start of the text or a character that is not a letter, digit, &, /, ), _ or #.
///   So "#1", "issue #42", "C#", "F#", "&#39;", "&#x27;" and a lone "#" are not hashtags.
///   A hex colour (#FF0000, #0af, #fff: 3, 4, 6 or 8 hex digits with a decimal digit, or one
///   hex digit repeated) is a colour, not a tag.
/// - a URL starts with http://, https:// or www. and runs to the next space; closing
///   punctuation is not part of it.
/// - a mention is @ and a username (ASCII letters, digits, _, inner . and -, at least one
///   letter), optionally @ and a domain with a dot (@user@mastodon.social), after the start
///   of the text or a character that is not a letter, digit, ., _, -, + or @. So the e-mail
///   address "name@example.com" and "@ 5 €" are not mentions.
///
/// Only the model's own voice counts (``TextAnalysis/ownVoice(_:)``): a quoted tweet
/// (“Great launch @SpaceX”) or a sign reading #BlackLivesMatter is transcription. Two more
/// kinds of transcription are kept out:
/// - a token after a word that names it as something seen, or the thing it is written on,
///   up to the end of its sentence: "the hashtag #BLM", "a tweet tagged #cats", "the handle
///   @nasa", "its website www.x.org", "a placard with #StopAsianHate", "a T-shirt: @nasa";
/// - an all-caps hashtag (#BLACKLIVESMATTER, #BLM): shouted sign text, as all-caps words are
///   for the first-person check.
///
/// `value` is the count, `passed` is `count == 0`; the detail lists the first five tokens.
/// A text where no token could start is answered without the voice scan
/// (``mayHoldToken(_:)``).
public struct SocialTokensScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard Self.mayHoldToken(input.characters) else {
            return [Score(name: ScoreName.socialTokens, value: 0, passed: true)]
        }
        let voice = TermMatching.ownVoice(of: input)
        let tokens = Self.tokens(in: voice.characters, words: voice.words)
        return [
            Score(
                name: ScoreName.socialTokens, value: Double(tokens.count), passed: tokens.isEmpty,
                detail: tokens.isEmpty ? nil : tokens.prefix(5).joined(separator: ", "))
        ]
    }

    /// Whether `chars` hold a # or @ that opens a hashtag or mention, or the start of a URL
    /// (``urlPrefixLength(_:at:)``). The own voice only removes text, each stretch becoming
    /// one space, so it holds a token only where the text holds one of these.
    static func mayHoldToken(_ chars: [Character]) -> Bool {
        // Each character is matched by its ASCII byte: comparing Characters is a string
        // comparison, and this runs over every character of every answer.
        chars.indices.contains { i in
            switch chars[i].asciiByte {
            case UInt8(ascii: "#"): hashtagEnd(chars, at: i) != nil
            case UInt8(ascii: "@"): mentionEnd(chars, at: i) != nil
            case UInt8(ascii: "h"), UInt8(ascii: "H"), UInt8(ascii: "w"), UInt8(ascii: "W"): urlPrefixLength(chars, at: i) != nil
            default: false
            }
        }
    }

    /// Words that name the token after them as something seen in the image, or the thing
    /// it is written on.
    static let namingWords: Set<String> = [
        "hashtag", "hashtags", "handle", "handles", "username", "usernames", "account",
        "tagged", "mention", "mentions", "mentioning", "url", "link", "address", "website",
        "tweet", "tweets", "tweeted", "toot", "toots", "tooted", "posted",
        "placard", "placards", "banner", "banners", "poster", "posters", "billboard", "t-shirt",
        "shirt", "sticker", "stickers", "badge", "screenshot", "mug", "graffiti",
    ]

    /// The hashtags, URLs and mentions of `chars` (split into `words`) as written, in order,
    /// leaving out those a naming word announces, colours and all-caps hashtags.
    static func tokens(in chars: [Character], words: [TextAnalysis.Word]) -> [String] {
        let n = chars.count
        var found: [String] = []
        var i = 0
        while i < n {
            switch chars[i].asciiByte {
            case UInt8(ascii: "#"):
                if let end = hashtagEnd(chars, at: i) {
                    let body = chars[(i + 1)..<end]
                    if !isHexColour(body) && !isAllCaps(body) && !isNamed(at: i, chars: chars, words: words) {
                        found.append(String(chars[i..<end]))
                    }
                    i = end
                    continue
                }
            case UInt8(ascii: "@"):
                if let end = mentionEnd(chars, at: i) {
                    if !isNamed(at: i, chars: chars, words: words) { found.append(String(chars[i..<end])) }
                    i = end
                    continue
                }
            case UInt8(ascii: "h"), UInt8(ascii: "H"), UInt8(ascii: "w"), UInt8(ascii: "W"):
                if let end = urlEnd(chars, at: i) {
                    if !isNamed(at: i, chars: chars, words: words) { found.append(String(chars[i..<end])) }
                    i = end
                    continue
                }
            default:
                break
            }
            i += 1
        }
        return found
    }

    /// Whether a word of ``namingWords`` comes before `position` in its sentence: the
    /// sentence starts after the last line break, or . ! ? … followed by a space.
    static func isNamed(at position: Int, chars: [Character], words: [TextAnalysis.Word]) -> Bool {
        var start = position
        while start > 0 {
            let c = chars[start - 1]
            if c.isNewline { break }
            if TextAnalysis.isSentenceTerminator(c), chars[start].isWhitespace { break }
            start -= 1
        }
        for word in words where word.range.lowerBound >= start && word.range.upperBound <= position {
            if namingWords.contains(word.normalized) { return true }
        }
        return false
    }

    // MARK: - Tokens

    private static func isASCIILetterOrDigit(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber)
    }

    /// How a URL starts, lowercase.
    static let urlPrefixes = ["https://", "http://", "www."]

    /// The length of the URL prefix (``urlPrefixes``, any case) at `i`, when a URL may start
    /// there: not inside a word nor after a dot.
    static func urlPrefixLength(_ chars: [Character], at i: Int) -> Int? {
        if i > 0, TextAnalysis.isWordCharacter(chars[i - 1]) || chars[i - 1] == "." { return nil }
        let prefix = urlPrefixes.first { prefix in
            i + prefix.count <= chars.count
                && zip(chars[i...], prefix).allSatisfy { $0.isASCII && $0.lowercased() == String($1) }
        }
        return prefix?.count
    }

    /// The end of the URL starting at `i`, or `nil`.
    static func urlEnd(_ chars: [Character], at i: Int) -> Int? {
        guard let prefixLength = urlPrefixLength(chars, at: i) else { return nil }
        var end = i + prefixLength
        var opensParenthesis = false
        while end < chars.count {
            let c = chars[end]
            if c.isWhitespace || c == "<" || c == ">" || c == "\"" || c == "\u{201C}" || c == "\u{201D}"
                || c == "\u{00AB}" || c == "\u{00BB}"
            {
                break
            }
            if c == "(" { opensParenthesis = true }
            end += 1
        }
        while end > i + prefixLength {
            let c = chars[end - 1]
            let trailing =
                c == "." || c == "," || c == ";" || c == ":" || c == "!" || c == "?" || c == "\u{2026}"
                || c == "'" || c == "\u{2019}" || c == "]" || c == "}" || (c == ")" && !opensParenthesis)
            guard trailing else { break }
            end -= 1
        }
        return end > i + prefixLength ? end : nil
    }

    /// The end of the hashtag whose # is at `i`, or `nil`. The body may still be a colour
    /// or sign text; see ``isHexColour(_:)`` and ``isAllCaps(_:)``.
    static func hashtagEnd(_ chars: [Character], at i: Int) -> Int? {
        if i > 0 {
            let previous = chars[i - 1]
            if TextAnalysis.isWordCharacter(previous) || previous == "&" || previous == "/" || previous == ")"
                || previous == "_" || previous == "#"
            {
                return nil
            }
        }
        var end = i + 1
        var hasLetter = false
        while end < chars.count {
            let c = chars[end]
            if c.isLetter {
                hasLetter = true
            } else if !(c.isNumber || c == "_") {
                break
            }
            end += 1
        }
        return hasLetter ? end : nil
    }

    /// Whether a hashtag body is a hex colour: 3, 4, 6 or 8 hex digits holding a decimal
    /// digit (#FF0000, #0af), or one hex digit repeated (#fff, #FFFFFF).
    static func isHexColour(_ body: ArraySlice<Character>) -> Bool {
        guard [3, 4, 6, 8].contains(body.count) else { return false }
        var hasDigit = false
        for c in body {
            guard c.isHexDigit, c.isASCII else { return false }
            if c.isNumber { hasDigit = true }
        }
        return hasDigit || body.allSatisfy { $0.lowercased() == body.first!.lowercased() }
    }

    /// Whether a hashtag body has two letters or more, all uppercase: #BLM on a placard.
    static func isAllCaps(_ body: ArraySlice<Character>) -> Bool {
        var letters = 0
        for c in body where c.isLetter {
            guard c.isUppercase else { return false }
            letters += 1
        }
        return letters > 1
    }

    /// The end of the mention whose @ is at `i`, or `nil`.
    static func mentionEnd(_ chars: [Character], at i: Int) -> Int? {
        let n = chars.count
        if i > 0 {
            let previous = chars[i - 1]
            if TextAnalysis.isWordCharacter(previous) || previous == "." || previous == "_" || previous == "-"
                || previous == "+" || previous == "@"
            {
                return nil
            }
        }
        func isNameCharacter(_ c: Character) -> Bool { isASCIILetterOrDigit(c) || c == "_" }
        var end = i + 1
        var hasLetter = false
        while end < n {
            let c = chars[end]
            if isNameCharacter(c) {
                if c.isLetter { hasLetter = true }
                end += 1
            } else if (c == "." || c == "-"), end > i + 1, end + 1 < n, isNameCharacter(chars[end + 1]) {
                end += 1
            } else {
                break
            }
        }
        guard hasLetter else { return nil }
        // A remote account: @user@mastodon.social.
        if end + 1 < n, chars[end] == "@", isASCIILetterOrDigit(chars[end + 1]) {
            var domainEnd = end + 1
            var hasDot = false
            while domainEnd < n {
                let c = chars[domainEnd]
                if isASCIILetterOrDigit(c) {
                    domainEnd += 1
                } else if (c == "." || c == "-"), domainEnd + 1 < n, isASCIILetterOrDigit(chars[domainEnd + 1]) {
                    if c == "." { hasDot = true }
                    domainEnd += 1
                } else {
                    break
                }
            }
            if hasDot { end = domainEnd }
        }
        return end
    }
}
