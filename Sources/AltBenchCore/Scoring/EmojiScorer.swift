/// Counts the emoji of an answer, which screen readers read out by name ("red heart, sparkles")
/// (altbench scoring research; double-great/alt-text flags emoji in alt text).
///
/// What counts as one emoji, scanning Unicode scalars:
/// - a scalar with Emoji_Presentation (😀, ⌚, 🇫), or any Emoji scalar followed by U+FE0F
///   (❤️, ©️, ☀️), or followed by a skin-tone modifier (☝🏻) or by a zero-width joiner and
///   another Emoji scalar (a sequence written without its variation selectors);
/// - together with what it carries: variation selectors, a skin tone, tag characters (the
///   flag of England), and further emoji joined by U+200D, so 👩‍👩‍👧, 👍🏽 and 🏳️‍🌈 count once;
/// - a pair of regional indicators (a flag, 🇫🇷) counts once;
/// - a keycap sequence, a digit, # or * followed by U+20E3 (with or without U+FE0F: 1️⃣).
///
/// Not emoji: bare digits, # and *, and symbols whose default presentation is text (♥, ™,
/// ©, ®, ‼, ↔) written without U+FE0F, or any emoji followed by the text selector U+FE0E.
/// Emoji count wherever they stand, quoted or not: a screen reader reads them all out.
///
/// `value` is the count and `passed` is `count == 0`; the detail lists the first five emoji
/// found, separated by spaces.
public struct EmojiScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let found = Self.emoji(in: input.text)
        return [
            Score(
                name: ScoreName.emoji, value: Double(found.count), passed: found.count == 0,
                detail: found.count == 0 ? nil : found.shown.joined(separator: " "))
        ]
    }

    /// The number of emoji in `text`, and the first `shownLimit` of them as written.
    static func emoji(in text: String, shownLimit: Int = 5) -> (count: Int, shown: [String]) {
        let scalars = Array(text.unicodeScalars)
        let n = scalars.count
        var count = 0
        var shown: [String] = []
        var i = 0
        while i < n {
            let start = i
            guard let end = emojiEnd(scalars, at: i) else {
                i += 1
                continue
            }
            count += 1
            if shown.count < shownLimit {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[start..<end])
                shown.append(String(view))
            }
            i = end
        }
        return (count, shown)
    }

    private static let variationSelectorEmoji: UInt32 = 0xFE0F
    private static let variationSelectorText: UInt32 = 0xFE0E
    private static let zeroWidthJoiner: UInt32 = 0x200D
    private static let combiningKeycap: UInt32 = 0x20E3

    static func isSkinTone(_ v: UInt32) -> Bool { v >= 0x1F3FB && v <= 0x1F3FF }
    static func isRegionalIndicator(_ v: UInt32) -> Bool { v >= 0x1F1E6 && v <= 0x1F1FF }
    static func isTag(_ v: UInt32) -> Bool { v >= 0xE0020 && v <= 0xE007F }

    /// Whether `v` is a keycap base: 0-9, # or *.
    static func isKeycapBase(_ v: UInt32) -> Bool { (v >= 0x30 && v <= 0x39) || v == 0x23 || v == 0x2A }

    /// The end of the emoji that starts at `i`, or `nil` when none starts there.
    static func emojiEnd(_ s: [Unicode.Scalar], at i: Int) -> Int? {
        let n = s.count
        let v = s[i].value
        let next: UInt32? = i + 1 < n ? s[i + 1].value : nil

        if isKeycapBase(v) {
            if next == combiningKeycap { return i + 2 }
            if next == variationSelectorEmoji, i + 2 < n, s[i + 2].value == combiningKeycap { return i + 3 }
            return nil
        }
        // Below U+2000 only © and ® (and the keycap bases above) have the Emoji property.
        if v < 0x2000 && v != 0xA9 && v != 0xAE { return nil }
        if next == variationSelectorText { return nil }
        let properties = s[i].properties
        guard properties.isEmoji else { return nil }
        let isEmoji: Bool
        if properties.isEmojiPresentation || next == variationSelectorEmoji {
            isEmoji = true
        } else if let next, isSkinTone(next) {
            isEmoji = true
        } else if next == zeroWidthJoiner, i + 2 < n, s[i + 2].value >= 0x2000, s[i + 2].properties.isEmoji {
            isEmoji = true
        } else {
            isEmoji = false
        }
        guard isEmoji else { return nil }

        if isRegionalIndicator(v) {
            if let next, isRegionalIndicator(next) { return i + 2 }
            return i + 1
        }
        var j = i + 1
        while j < n {
            let w = s[j].value
            if w == variationSelectorEmoji || isSkinTone(w) || w == combiningKeycap || isTag(w) {
                j += 1
            } else if w == zeroWidthJoiner, j + 1 < n, s[j + 1].value >= 0x2000, s[j + 1].properties.isEmoji {
                j += 2
            } else {
                break
            }
        }
        return j
    }
}
