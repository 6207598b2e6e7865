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
/// found, separated by spaces. Text with no scalar that could start an emoji, most answers
/// in any Latin script, is answered from its bytes without decoding it (``mayHoldEmoji(_:)``).
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
        guard mayHoldEmoji(text) else { return (0, []) }
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

    /// Whether `text` may hold an emoji: a scalar from U+2000 on, where every emoji but © and ®
    /// lies (keycaps' U+20E3 included), or © or ® (C2 A9, C2 AE). From U+2000 to U+20FF, the
    /// punctuation, super- and subscripts and currency signs that Latin text is full of (’ “ ”
    /// – — … • €), only ‼ U+203C, ⁉ U+2049 and the keycap U+20E3 count, which their three
    /// bytes tell. ASCII runs are skipped eight bytes at a time, so plain English, French or
    /// German text, curly quotes and dashes included, is answered without decoding a scalar.
    static func mayHoldEmoji(_ text: String) -> Bool {
        var copy = text
        return copy.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            let raw = UnsafeRawPointer(base)
            let n = bytes.count
            var i = 0
            while i < n {
                if i + 8 <= n, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
                let b = bytes[i]
                if b == 0xE2, i + 2 < n {
                    // U+2000 to U+20FF: E2 80 to E2 83, then the scalar's last six bits.
                    let second = bytes[i + 1]
                    let third = bytes[i + 2]
                    switch second {
                    case 0x80: if third == 0xBC { return true }  // ‼ U+203C
                    case 0x81: if third == 0x89 { return true }  // ⁉ U+2049
                    case 0x82: break
                    case 0x83: if third == 0xA3 { return true }  // keycap U+20E3
                    default: return true
                    }
                    i += 3
                    continue
                }
                if b >= 0xE2 { return true }
                if b == 0xC2, i + 1 < n, bytes[i + 1] == 0xA9 || bytes[i + 1] == 0xAE { return true }
                i += 1
            }
            return false
        }
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
