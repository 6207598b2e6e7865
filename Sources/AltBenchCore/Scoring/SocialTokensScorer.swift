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
/// A text with no #, @, "http://", "https://" or "www." where a token could start is answered
/// from one byte scan (``mayHoldToken(_:)``), without the voice scan.
public struct SocialTokensScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard Self.mayHoldToken(input.text) else {
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

    /// Words that name the token after them as something seen in the image, or the thing
    /// it is written on.
    static let namingWords: Set<String> = [
        "hashtag", "hashtags", "handle", "handles", "username", "usernames", "account",
        "tagged", "mention", "mentions", "mentioning", "url", "link", "address", "website",
        "tweet", "tweets", "tweeted", "toot", "toots", "tooted", "posted",
        "placard", "placards", "banner", "banners", "poster", "posters", "billboard", "t-shirt",
        "shirt", "sticker", "stickers", "badge", "screenshot", "mug", "graffiti",
    ]

    /// Whether `text` may hold a token, from one scan of its UTF-8 bytes: a # or @ where a
    /// hashtag or mention could start (the character before and the letters after allow
    /// it), "http://", "https://" or "www." (any case). Loose where bytes cannot tell (any
    /// non-ASCII byte may be a letter), so it never misses a token ``tokens(in:words:)``
    /// finds; "#1", "C#", "&#39;", an e-mail address or a lone @ are answered without the
    /// voice scan. Only # @ : and . stop the scan (a URL is found from the ":" of "://" or
    /// the "." of "www."), and runs of eight bytes without one are passed over at once.
    static func mayHoldToken(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { b in
            let n = b.count
            func isAlphanumeric(_ byte: UInt8) -> Bool {
                let folded = byte | 0x20
                return (folded >= 0x61 && folded <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            }
            func isLetter(_ byte: UInt8) -> Bool {
                let folded = byte | 0x20
                return folded >= 0x61 && folded <= 0x7A
            }
            /// Whether `b[at...]` spells `lowercase` (ASCII letters) in any case.
            func spells(_ at: Int, _ lowercase: StaticString) -> Bool {
                let count = lowercase.utf8CodeUnitCount
                guard at >= 0, at + count <= n else { return false }
                return lowercase.withUTF8Buffer { p in
                    for k in 0..<count where b[at + k] | (isLetter(b[at + k]) ? 0x20 : 0) != p[k] { return false }
                    return true
                }
            }
            /// Whether a URL may start at `at`: not inside a word or after a dot.
            func startsURL(_ at: Int) -> Bool {
                let previous: UInt8 = at > 0 ? b[at - 1] : 0x20
                return !isAlphanumeric(previous) && previous != UInt8(ascii: ".")
            }
            // The bytes the scan stops at, as bits of a mask over 0 to 63: # . : @ are 0x23,
            // 0x2E, 0x3A, 0x40.
            let stops: UInt64 = 1 << 0x23 | 1 << 0x2E | 1 << 0x3A
            let raw = UnsafeRawPointer(b.baseAddress)
            var i = 0
            while i < n {
                // Eight bytes at a time while none of them is a stop.
                if let raw, i + 8 <= n, !Self.holdsStop(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                    i += 8
                    continue
                }
                let byte = b[i]
                guard byte == 0x40 || (byte < 0x40 && stops >> UInt64(byte) & 1 == 1) else {
                    i += 1
                    continue
                }
                let previous: UInt8 = i > 0 ? b[i - 1] : 0x20
                switch byte {
                case UInt8(ascii: "#"):
                    guard !isAlphanumeric(previous), previous != UInt8(ascii: "&"), previous != UInt8(ascii: "/"),
                        previous != UInt8(ascii: ")"), previous != UInt8(ascii: "_"), previous != UInt8(ascii: "#")
                    else { break }
                    var j = i + 1
                    while j < n, isAlphanumeric(b[j]) || b[j] == UInt8(ascii: "_") || b[j] >= 0x80 {
                        if isLetter(b[j]) || b[j] >= 0x80 { return true }
                        j += 1
                    }
                case UInt8(ascii: "@"):
                    guard !isAlphanumeric(previous), previous != UInt8(ascii: "."), previous != UInt8(ascii: "_"),
                        previous != UInt8(ascii: "-"), previous != UInt8(ascii: "+"), previous != UInt8(ascii: "@")
                    else { break }
                    var j = i + 1
                    while j < n, isAlphanumeric(b[j]) || b[j] == UInt8(ascii: "_") || b[j] == UInt8(ascii: ".")
                        || b[j] == UInt8(ascii: "-")
                    {
                        if isLetter(b[j]) { return true }
                        j += 1
                    }
                case UInt8(ascii: ":"):
                    // "http://" or "https://" ending here.
                    guard i + 2 < n, b[i + 1] == UInt8(ascii: "/"), b[i + 2] == UInt8(ascii: "/") else { break }
                    if spells(i - 4, "http"), startsURL(i - 4) { return true }
                    if spells(i - 5, "https"), startsURL(i - 5) { return true }
                default:
                    // "www." ending here.
                    if spells(i - 3, "www"), startsURL(i - 3) { return true }
                }
                i += 1
            }
            return false
        }
    }

    /// Whether one of the eight bytes of `word` is # . : or @ (the classic test for a zero
    /// byte, on the word xor-ed with each of them).
    @inline(__always)
    private static func holdsStop(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        return hasZero(word ^ (ones &* 0x23)) || hasZero(word ^ (ones &* 0x2E)) || hasZero(word ^ (ones &* 0x3A))
            || hasZero(word ^ (ones &* 0x40))
    }

    /// The hashtags, URLs and mentions of `chars` (split into `words`) as written, in order,
    /// leaving out those a naming word announces, colours and all-caps hashtags.
    static func tokens(in chars: [Character], words: [TextAnalysis.Word]) -> [String] {
        let n = chars.count
        var found: [String] = []
        var i = 0
        while i < n {
            // Every token starts with an ASCII character (a Character of one byte: its
            // byte, and cheaper to read than `asciiValue`); the rest are passed over.
            let utf8 = chars[i].utf8
            guard utf8.count == 1, let a = utf8.first else {
                i += 1
                continue
            }
            switch a {
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
        guard let a = c.asciiByte else { return false }
        let folded = a | 0x20
        return (a >= 48 && a <= 57) || (folded >= 97 && folded <= 122)
    }

    /// Whether `chars[i...]` starts with `prefix` (lowercase ASCII), ignoring case.
    private static func hasPrefix(_ chars: [Character], at i: Int, _ prefix: String) -> Bool {
        var j = i
        for expected in prefix.utf8 {
            guard j < chars.count, let a = chars[j].asciiByte else { return false }
            let lower = a >= 65 && a <= 90 ? a + 32 : a
            guard lower == expected else { return false }
            j += 1
        }
        return true
    }

    /// The end of the URL starting at `i`, or `nil`.
    static func urlEnd(_ chars: [Character], at i: Int) -> Int? {
        let first = chars[i]
        guard first == "h" || first == "H" || first == "w" || first == "W" else { return nil }
        if i > 0, TextAnalysis.isWordCharacter(chars[i - 1]) || chars[i - 1] == "." { return nil }
        let prefixLength: Int
        if hasPrefix(chars, at: i, "https://") {
            prefixLength = 8
        } else if hasPrefix(chars, at: i, "http://") {
            prefixLength = 7
        } else if hasPrefix(chars, at: i, "www.") {
            prefixLength = 4
        } else {
            return nil
        }
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
