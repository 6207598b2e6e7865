/// English syllable counts, tuned to agree with what textstat 0.7.4 counts for the
/// `readability` score: one syllable per word plus one per pyphen 0.18.1 (en_US) hyphenation
/// point.
///
/// Hyphenation is not syllabification. pyphen never breaks off fewer than two letters at
/// either end of a word ("ago", "idea" and "radio" keep their one-letter syllables attached),
/// and its patterns, made for a three-letter right margin, drop most breaks that would leave
/// two letters at the end ("tiger", "city", "lemon"; but "love|ly", "want|ed", "box|es",
/// "hap|py", "sto|ry"). So the counter
/// 1. finds the syllables: vowel groups (a e i o u, y except before a vowel; u after q, and
///    after g before a vowel, is part of the consonant), split where two vowels are two
///    syllables ("li|on", "go|ing", "cru|el", "qui|et"; not "na|tion", "peo|ple"); a silent
///    final e, -es or -ed is no syllable ("stone", "stones", "jumped") unless it follows
///    t/d (-ed), s/x/z/ch/sh (-es), or is the syllabic -le ("ta|ble"); a compound's or a
///    stem's silent e is none either ("care|ful", "some|thing", "base|ment");
/// 2. places the break between each pair: before a single consonant ("pa|per"), after x,
///    a consonant digraph (th, sh, ch, ph, wh, gh, ck) and the first consonant of a
///    short first syllable ("ev|er", "un|ex"), between two consonants ("hel|lo"), before a
///    syllabic -Cle, and never inside a final -able/-ible after another syllable
///    ("avail|able");
/// 3. keeps only the breaks pyphen could make: at least two letters from the start, and at
///    least three from the end unless the ending is one pyphen does break (see
///    ``keepsFinalBreak(_:stem:)``); plus the syllabic n of "didn't" ("did|nt").
///
/// The rules were tuned against pyphen's counts over the words of altbench's sample dataset,
/// textstat's easy-words list and English technical prose; the tests measure the agreement.
///
/// A word is what textstat hands to pyphen: a run of letters and digits with the punctuation
/// removed ("T-shirt" is "tshirt", "I'm" is "im"), lowercased. Digits and letters of other
/// scripts are letters without a vowel, so "2024", "3D" and "猫" count 1, as in textstat;
/// accented Latin letters count as their base letter. Counting a word allocates nothing: the
/// letters are folded into a buffer on the stack.
public enum SyllableCounter {
    /// The syllables of one word, ignoring what textstat deletes (punctuation, whitespace,
    /// combining marks): at least 1 when it holds a letter or digit, 0 when it holds none.
    public static func count(word: some StringProtocol) -> Int {
        let capacity = max(1, word.utf8.count)
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var n = 0
            for scalar in word.unicodeScalars where Readability.isWordCharacter(scalar) {
                buffer[n] = letterCode(scalar)
                n += 1
            }
            return n == 0 ? 0 : count(letters: UnsafeBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    /// The syllables of a text: the sum over textstat's words (see ``Readability``), which is
    /// textstat's `syllable_count` when every word agrees with pyphen.
    public static func count(text: String) -> Int {
        Readability.counts(in: text, syllables: true).syllables
    }

    // MARK: - Letters

    /// The code a word character is counted as: a–z for Latin letters (accents removed,
    /// lowercased), "0" for digits and other numbers, "_" for the underscore, and
    /// ``otherLetter`` for letters of other scripts.
    @inline(__always)
    static func letterCode(_ scalar: Unicode.Scalar) -> UInt8 {
        let v = scalar.value
        if v < 0x80 {
            let byte = UInt8(v)
            if byte >= 65 && byte <= 90 { return byte + 32 }
            if byte >= 48 && byte <= 57 { return 48 }
            return byte
        }
        return nonASCIILetterCode(scalar)
    }

    @inline(never)
    static func nonASCIILetterCode(_ scalar: Unicode.Scalar) -> UInt8 {
        let v = scalar.value
        if v >= 0xC0 && v <= 0x17F {
            return latinBase(v)
        }
        return scalar.properties.numericType != nil ? 48 : otherLetter
    }

    /// A letter of a script other than Latin: neither vowel nor consonant of English.
    static let otherLetter: UInt8 = 1

    /// The base letter of a Latin-1 or Latin Extended-A letter, lowercased ("É" is "e").
    private static func latinBase(_ v: UInt32) -> UInt8 {
        switch v {
        case 0xC0...0xC6, 0xE0...0xE6, 0x100...0x105: return UInt8(ascii: "a")
        case 0xC7, 0xE7, 0x106...0x10D: return UInt8(ascii: "c")
        case 0xD0, 0xF0, 0x10E...0x111: return UInt8(ascii: "d")
        case 0xC8...0xCB, 0xE8...0xEB, 0x112...0x11B: return UInt8(ascii: "e")
        case 0x11C...0x123: return UInt8(ascii: "g")
        case 0x124...0x127: return UInt8(ascii: "h")
        case 0xCC...0xCF, 0xEC...0xEF, 0x128...0x131: return UInt8(ascii: "i")
        case 0x134, 0x135: return UInt8(ascii: "j")
        case 0x136...0x138: return UInt8(ascii: "k")
        case 0x139...0x142: return UInt8(ascii: "l")
        case 0xD1, 0xF1, 0x143...0x14B: return UInt8(ascii: "n")
        case 0xD2...0xD6, 0xD8, 0xF2...0xF6, 0xF8, 0x14C...0x153: return UInt8(ascii: "o")
        case 0x154...0x159: return UInt8(ascii: "r")
        case 0xDF, 0x15A...0x161: return UInt8(ascii: "s")
        case 0xDE, 0xFE, 0x162...0x167: return UInt8(ascii: "t")
        case 0xD9...0xDC, 0xF9...0xFC, 0x168...0x173: return UInt8(ascii: "u")
        case 0x174, 0x175: return UInt8(ascii: "w")
        case 0xDD, 0xFD, 0xFF, 0x176...0x178: return UInt8(ascii: "y")
        case 0x179...0x17E: return UInt8(ascii: "z")
        default: return otherLetter
        }
    }

    @inline(__always)
    static func isVowelLetter(_ c: UInt8) -> Bool {
        c == 97 || c == 101 || c == 105 || c == 111 || c == 117  // a e i o u
    }

    // MARK: - Counting

    /// The syllables of a word given as letter codes (``letterCode(_:)``), at least 1.
    ///
    /// Each letter is judged vowel or not once (``isVowel(_:_:)``); the scan then goes from
    /// vowel group to vowel group, asking at each gap whether pyphen would break there.
    static func count(letters w: UnsafeBufferPointer<UInt8>) -> Int {
        let n = w.count
        // pyphen keeps two letters on each side of a break: a word of three has none.
        guard n >= 4 else { return 1 }
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: n) { vowel in
            var firstVowel = n
            for i in 0..<n {
                vowel[i] = isVowel(w, i)
                if vowel[i] && firstVowel == n { firstVowel = i }
            }
            /// Whether a vowel comes before `limit`.
            func hasVowel(before limit: Int) -> Bool { firstVowel < limit }

            var breaks = 0
            var previousEnd = -1  // where the previous vowel group ended
            let stop = silentEnding(w, hasVowel: hasVowel)
            // A plural's last syllable is judged as the singular's: "whisk|ers" as "whisk|er".
            let stem = n >= 5 && w[n - 1] == 115 && !isVowelLetter(w[n - 2]) && w[n - 2] != 115 ? n - 1 : n
            var i = 0
            while i < stop {
                guard vowel[i] else {
                    i += 1
                    continue
                }
                // A vowel group; it may hold two syllables ("li|on", "go|ing").
                var end = i + 1
                while end < stop, vowel[end], !isHiatus(w, end) {
                    end += 1
                }
                if previousEnd >= 0, !isSilentCompoundE(w, previousEnd),
                    !isInsideAble(w, previousEnd, i, hasVowel: hasVowel)
                {
                    let at = breakPosition(w, from: previousEnd, to: i)
                    if at >= 2 && (at < stem - 2 || (at == stem - 2 && keepsFinalBreak(w, stem: stem))) {
                        breaks += 1
                    }
                }
                previousEnd = end
                i = end
            }
            if endsInSyllabicNT(w) { breaks += 1 }
            return breaks + 1
        }
    }

    @inline(__always)
    static func isConsonantLetter(_ c: UInt8) -> Bool {
        c >= 97 && c <= 122 && !isVowelLetter(c) && c != 121
    }

    /// Whether `w` starts with the ASCII letters of `prefix`.
    @inline(__always)
    static func hasPrefix(_ w: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard w.count >= count else { return false }
        let p = prefix.utf8Start
        for k in 0..<count where w[k] != p[k] { return false }
        return true
    }

    /// Whether `w[at...]` spells `infix`.
    @inline(__always)
    static func matches(_ w: UnsafeBufferPointer<UInt8>, _ infix: StaticString, at: Int) -> Bool {
        let count = infix.utf8CodeUnitCount
        guard at >= 0, at + count <= w.count else { return false }
        let p = infix.utf8Start
        for k in 0..<count where w[at + k] != p[k] { return false }
        return true
    }

    /// Whether `w[i]` is a vowel: a, e, i, o, u, and y except before a vowel ("yes", "beyond";
    /// but "dy|ing"). A u after q, or after g before a vowel, belongs to the consonant
    /// ("quiet", "guard", "language").
    @inline(__always)
    static func isVowel(_ w: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        let c = w[i]
        let n = w.count
        if isVowelLetter(c) {
            if c == 117, i > 0 {  // u
                if w[i - 1] == 113 { return false }
                if w[i - 1] == 103, i + 1 < n, isVowelLetter(w[i + 1]), i + 2 < n || w[i + 1] != 101 {
                    return false
                }
            }
            return true
        }
        if c == 121 {  // y
            if i + 1 < n, isVowelLetter(w[i + 1]) {
                return i + 4 == n && matches(w, "ing", at: i + 1)
            }
            return i > 0
        }
        return false
    }

    /// Whether the vowel at `i` starts a new syllable after the vowel before it: "li|on",
    /// "go|ing", "po|em", "cru|el", "qui|et", "cre|ate"; but "na|tion", "peo|ple", "does".
    @inline(__always)
    static func isHiatus(_ w: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        let a = w[i - 1]
        let b = w[i]
        let n = w.count
        let before: UInt8 = i >= 2 ? w[i - 2] : 0
        // -ing after a vowel: "go|ing", "see|ing".
        if b == 105, i + 3 == n, matches(w, "ing", at: i) { return true }
        switch (a, b) {
        case (105, 97), (105, 111), (105, 117):  // ia, io, iu
            // -tion, -sion, -cial, -gion, -xious, -nion, -llion: one syllable.
            switch before {
            case 116, 115, 99, 120, 110: return false
            case 103: return b == 97
            case 108: return i < 3 || w[i - 3] != 108
            case 104: return i < 3 || (w[i - 3] != 115 && w[i - 3] != 99)
            default: return true
            }
        case (101, 111):  // eo: "vid|eo", "the|ory"; not "people", "pigeon", "leopard"
            switch before {
            case 112, 108, 106, 103, 121, 99: return false
            default: return true
            }
        case (101, 97):  // ea: "real", "react", "create", "idea", "theater"
            return (i == 2 && hasPrefix(w, "real")) || (i == 2 && hasPrefix(w, "react"))
                || (i == 3 && (hasPrefix(w, "creat") || hasPrefix(w, "idea") || hasPrefix(w, "thea")))
        case (117, 97), (117, 111):  // ua, uo: "actu|al"
            return true
        case (117, 101):  // ue: "cru|el", "flu|ent"; not "blue", "blues", "continued"
            guard i + 1 < n else { return false }
            return !(i + 2 == n && (w[i + 1] == 115 || w[i + 1] == 100))
        case (111, 101):  // oe: "po|em"; not "shoe", "does"
            guard i + 1 < n else { return false }
            return !(i + 2 == n && w[i + 1] == 115)
        case (105, 101):  // ie: "qui|et", "di|et", "sci|ence", "happi|er"; not "piece", "cried"
            guard i + 1 < n else { return false }
            let next = w[i + 1]
            if next == 116 { return true }
            if next == 114 { return i + 2 == n && i >= 3 && w[i - 2] != 104 }
            if next == 115 { return i + 3 == n && w[i + 2] == 116 }
            return next == 110 && i + 2 < n && w[i + 2] == 99
        default:
            return false
        }
    }

    /// Where the break between a vowel group ending at `from` and the next starting at `to`
    /// falls: before a single consonant (V-CV, "ba|by"), after x, ck and consonant digraphs,
    /// between two consonants (VC-CV), before a syllabic "-Cle" ("ta|ble"), and after the
    /// first of three or more.
    @inline(__always)
    static func breakPosition(_ w: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int {
        let k = to - from
        if k == 0 { return to }
        let n = w.count
        // The syllabic l of -le, -les, -led: "ta|ble", "ti|tled", "han|dles".
        if k >= 2, w[to - 1] == 108, w[to] == 101, to == n - 1 || to == n - 2 { return to - 2 }
        if k == 1 {
            if w[from] == 120 { return to }  // x stays with the first syllable
            // A short first syllable keeps its consonant: "ev|er", "it|er", "an|i|mal", "un|ex".
            if from == 1, startsShortSyllable(w) { return to }
            return from
        }
        if k == 2, isDigraph(w[from], w[from + 1]) { return to }
        return from + 1
    }

    /// Words whose first syllable is a vowel and the consonant after it ("ev-er-y", "op-er-a").
    @inline(__always)
    static func startsShortSyllable(_ w: UnsafeBufferPointer<UInt8>) -> Bool {
        if (w[0] == 117 || w[0] == 105) && w[1] == 110 && w[2] != 105 {  // un-, in- before a, e, o, u
            return !hasPrefix(w, "unary")
        }
        if w[0] == 117 && w[1] == 115 {  // "us|age", "us|ing", "us|er", but "use|ful"
            return w[2] == 97 || w[2] == 105 || (w[2] == 101 && (w[3] == 114 || w[3] == 115 || w[3] == 100))
        }
        return hasPrefix(w, "ever") || hasPrefix(w, "iter") || hasPrefix(w, "oper")
            || hasPrefix(w, "enab") || hasPrefix(w, "emul") || hasPrefix(w, "imag")
            || hasPrefix(w, "anim") || hasPrefix(w, "anoth") || hasPrefix(w, "edit")
            || hasPrefix(w, "orang")
    }

    @inline(__always)
    static func isDigraph(_ c1: UInt8, _ c2: UInt8) -> Bool {
        switch (c1, c2) {
        case (116, 104), (115, 104), (99, 104), (112, 104), (119, 104), (103, 104), (99, 107):
            // th sh ch ph wh gh ck
            return true
        default:
            return false
        }
    }

    /// Whether pyphen keeps a break that leaves only two letters at the end. The patterns it
    /// uses were made for a three-letter margin, so it drops most ("tiger", "city", "lemon"),
    /// except after the endings and consonants below ("love|ly", "want|ed", "box|es",
    /// "riv|er", "hap|py", "par|ty", "stat|ic").
    @inline(__always)
    static func keepsFinalBreak(_ w: UnsafeBufferPointer<UInt8>, stem n: Int) -> Bool {
        let last = w[n - 1], next = w[n - 2], c3 = w[n - 3], c4 = w[n - 4]
        // Two vowels in hiatus: "ide|al", "actu|al", "cru|el", "easi|er".
        if isVowelLetter(c3), isVowelLetter(next) { return true }
        // A final a, o or i after a consonant: "so|fa", "pho|to", "mer|ci".
        if (last == 97 || last == 111 || last == 105) && isConsonantLetter(next) { return true }
        if n == 4 {
            // "is|nt", "on|ly"
            return (next == 110 && last == 116) || (next == 108 && last == 121)
        }
        // -ity, -ify, -ory, -ily, -ely, -ety, -acy: "qual|i|ty", "sto|ry", "love|ly".
        if last == 121, isVowelLetter(c3) {
            switch (c3, next) {
            case (105, 116), (105, 102), (111, 114), (105, 108), (101, 108), (101, 116), (97, 99), (111, 109):
                return true
            default:
                return false
            }
        }
        let afterVowel = isVowelLetter(c4) || c4 == 121
        switch (next, last) {
        case (108, 121):  // ly
            return true
        case (101, 100):  // ed
            return c3 == 116 || c3 == 100
        case (101, 115):  // es
            if c3 == 115 || c3 == 120 || c3 == 122 { return true }
            return c3 == 104 && (c4 == 99 || c4 == 115)
        case (101, 114):  // er
            if afterVowel {
                switch c3 {
                case 118, 119, 100, 108, 107, 110, 115, 122, 120, 114, 112: return true  // v w d l k n s z x r p
                default: return false
                }
            }
            switch (c4, c3) {
            case (116, 104), (99, 104), (99, 107), (115, 104), (108, 100), (114, 107), (108, 107):
                return true  // th ch ck sh ld rk lk
            default:
                return false
            }
        case (116, 121):  // ty
            return c3 == 114 || c3 == 110 || c3 == 116 || c3 == 112 || c3 == 120
        case (114, 121):  // ry
            return c3 == 114
        case (105, 99):  // ic
            return afterVowel && (c3 == 116 || c3 == 114 || c3 == 103 || c3 == 102 || c3 == 109)
        case (105, 116):  // it
            return afterVowel && (c3 == 103 || c3 == 99 || c3 == 109 || c3 == 114 || c3 == 120)
        case (101, 110):  // en
            if afterVowel { return c3 == 107 || c3 == 118 || c3 == 116 || c3 == 100 }
            return (c4 == 99 && c3 == 107) || (c4 == 104 && c3 == 116) || (c4 == 108 && c3 == 100)
        case (101, 116), (108, 101):  // et, le after ck: "pock|et", "pick|le"
            return c4 == 99 && c3 == 107
        case (97, 108):  // al
            return afterVowel && (c3 == 110 || c3 == 114)
        case (101, 108):  // el
            return afterVowel && c3 == 118
        case (99, 121):  // cy
            return c3 == 110
        default:
            // A doubled consonant before a final y: "hap|py", "fun|ny"; not "glossy", "fuzzy".
            return c3 == next && isConsonantLetter(c3) && last == 121 && c3 != 115 && c3 != 122
        }
    }

    /// Whether the e ending the vowel group at `end` is the silent e of a compound's first
    /// part or of a stem before a suffix: "care|ful", "base|ment", "some|thing", "fire|works".
    @inline(__always)
    static func isSilentCompoundE(_ w: UnsafeBufferPointer<UInt8>, _ end: Int) -> Bool {
        let e = end - 1
        guard e >= 2, w[e] == 101, isConsonantLetter(w[e - 1]), isVowelLetter(w[e - 2]) || w[e - 2] == 121,
            end < w.count, isConsonantLetter(w[end])
        else { return false }
        if e == 2 { return w[end] != 109 && suffixFollows(w, end) }  // "use|ful", not "ele|ment"
        if e == 3 {
            return hasPrefix(w, "some") || hasPrefix(w, "fire") || hasPrefix(w, "base")
                || hasPrefix(w, "side") || hasPrefix(w, "home") || hasPrefix(w, "life")
                || hasPrefix(w, "time") || hasPrefix(w, "love") || hasPrefix(w, "care")
                || hasPrefix(w, "hope") || hasPrefix(w, "wide") || hasPrefix(w, "lone")
                || hasPrefix(w, "safe") || hasPrefix(w, "nine") || hasPrefix(w, "like")
                || hasPrefix(w, "sure") || hasPrefix(w, "bare") || hasPrefix(w, "pave")
                || hasPrefix(w, "fore") || hasPrefix(w, "name") || hasPrefix(w, "same")
                || hasPrefix(w, "late") || hasPrefix(w, "rare") || hasPrefix(w, "pure")
                || suffixFollows(w, end)
        }
        if e == 4 {
            return hasPrefix(w, "house") || hasPrefix(w, "horse") || hasPrefix(w, "white")
                || hasPrefix(w, "whole") || hasPrefix(w, "stone") || hasPrefix(w, "grave")
                || hasPrefix(w, "space") || hasPrefix(w, "grate") || hasPrefix(w, "peace")
                || hasPrefix(w, "table") || hasPrefix(w, "store") || hasPrefix(w, "phone")
                || suffixFollows(w, end)
        }
        return suffixFollows(w, end)
    }

    /// Whether the vowel group ending at `end` is the a or i of a final -able or -ible after
    /// another syllable ("avail|able", "en|able", "vis|ible"), which pyphen never breaks.
    /// `hasVowel(limit)` tells whether ``isVowel(_:_:)`` holds for a letter before `limit`.
    @inline(__always)
    static func isInsideAble(
        _ w: UnsafeBufferPointer<UInt8>, _ end: Int, _ next: Int, hasVowel: (_ before: Int) -> Bool
    ) -> Bool {
        let n = w.count
        guard end >= 3, next == end + 2, w[end] == 98, w[end + 1] == 108 else { return false }
        let vowel = w[end - 1]
        guard vowel == 97 || vowel == 105, isConsonantLetter(w[end - 2]), w[end - 2] != w[end - 3]
        else { return false }  // not "pos|si|ble", "ter|ri|ble"
        // -able, -ables, -abled
        guard next == n - 1 || (next == n - 2 && (w[n - 1] == 115 || w[n - 1] == 100)) else { return false }
        // Not the word's first syllable ("ta|ble", "bi|ble").
        return hasVowel(end - 2)
    }

    /// Whether `w[at...]` is a suffix after which a stem's final e is silent.
    @inline(__always)
    static func suffixFollows(_ w: UnsafeBufferPointer<UInt8>, _ at: Int) -> Bool {
        let rest = w.count - at
        switch w[at] {
        case 102: return matches(w, "ful", at: at)
        case 108:
            return (rest == 2 && matches(w, "ly", at: at)) || matches(w, "less", at: at)
        case 109: return matches(w, "ment", at: at)
        case 110: return matches(w, "ness", at: at)
        default: return false
        }
    }

    /// Whether `w` ends in the syllabic n of "n't" with its apostrophe removed: "did|nt",
    /// "could|nt", "is|nt".
    @inline(__always)
    static func endsInSyllabicNT(_ w: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = w.count
        guard w[n - 1] == 116, w[n - 2] == 110 else { return false }
        let c = w[n - 3]
        return c == 100 || c == 115 || c == 108
    }

    /// The index past the last letter that may hold a vowel: the word's length, or less when
    /// it ends in a silent e ("stone", "stones", "jumped", "tongue").
    /// `hasVowel(limit)` tells whether ``isVowel(_:_:)`` holds for a letter before `limit`.
    @inline(__always)
    static func silentEnding(_ w: UnsafeBufferPointer<UInt8>, hasVowel: (_ before: Int) -> Bool) -> Int {
        let n = w.count
        let e: UInt8 = 101
        var eAt = -1
        if w[n - 1] == e {
            eAt = n - 1
        } else if w[n - 2] == e, w[n - 1] == 115 || w[n - 1] == 100 {  // -es, -ed
            eAt = n - 2
        }
        guard eAt >= 2 else { return n }
        var before = w[eAt - 1]
        var silentFrom = eAt
        if before == 117, w[eAt - 2] == 103, eAt >= 3 {  // -gue: "tongue", "league"
            silentFrom = eAt - 1
            before = 103
        } else {
            guard isConsonantLetter(before) else { return n }
        }
        let beforeThat = w[silentFrom - 2]
        if w[n - 1] == e || w[n - 1] == 100 || w[n - 1] == 115 {
            // -le, -les, -led after a consonant are a syllable of their own ("ta|ble").
            if before == 108, isConsonantLetter(beforeThat), beforeThat != 108 { return n }
            // -re after a consonant, as in "centre", "theatre".
            if before == 114, isConsonantLetter(beforeThat), beforeThat != 114 { return n }
        }
        if w[n - 1] == 100 {
            // -ted, -ded
            if before == 116 || before == 100 { return n }
        } else if w[n - 1] == 115 {
            // -ses, -xes, -zes, -ches, -shes
            if before == 115 || before == 120 || before == 122 { return n }
            if before == 104, beforeThat == 99 || beforeThat == 115 { return n }
        }
        // Silent only when a vowel comes before it.
        return hasVowel(silentFrom - 1) ? silentFrom : n
    }
}
