/// Flags first-person words in the model's own voice, which the Ice Cubes prompt forbids.
///
/// The words are I, me, my, mine, myself, we, us, our, ours, ourselves and their contractions
/// (I'm, I've, I'd, I'll, we're, we've, we'd, we'll, let's; straight or curly apostrophe), per
/// the prompt's "Don't write in the first person" and the altbench scoring research.
///
/// Only the model's own voice counts: quotations and reported text (signs, captions,
/// T-shirts) are removed first with ``TextAnalysis/ownVoice(_:)``. Then, to keep signs, names
/// and numerals out:
/// - Bare "I" is case-sensitive: lowercase "i" ("i.e.", a stray variable) is not flagged,
///   and "iPhone" is one word. Contractions (i'm, I’m, we've) are unambiguous in any case.
/// - All-caps words of two letters or more ("US", "WE", "MY", "I'M", "ME" for Maine) are
///   sign text or acronyms, not the model speaking; so is an "I" that opens such a run
///   ("I LOVE NY", "I ♥ NY").
/// - A capitalised word inside a sentence ("Our Lady", the film "We Were Soldiers") is
///   part of a name; at the start of a sentence ("We are looking at a lake") it counts.
/// - "I" is the Roman numeral one after a name or a numbered noun ("World War I",
///   "King Henry I", "letter I", "type I"); see ``isRomanNumeral(_:in:at:chars:)``.
/// - "mine" counts only as the possessive "of mine" or "is/are/was/were mine", since in
///   descriptions it is far more often the noun ("a coal mine", "Mine shaft entrance").
///
/// The detail lists the words found, once each, lowercased except for "I": "I, my, we".
public struct FirstPersonScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        // Most answers have no candidate at all; finding none in the input's own words is
        // cheaper than the voice scan.
        var found: [String] = []
        if input.words.contains(where: Self.mayBePronoun) {
            let voice = TermMatching.ownVoice(of: input)
            found = Self.firstPersonWords(chars: voice.characters, words: voice.words)
        }
        if found.isEmpty, let other = Self.otherLanguageWord(in: input) { found = [other] }
        return [.flag(ScoreName.firstPerson, !found.isEmpty, detail: found.joined(separator: ", "))]
    }

    /// First-person words of the languages after English, in any language's text: pronouns
    /// and possessives that are no word of another language ("ich", "nous", "mijn", "noi"),
    /// and the first-person forms of seeing and being able that pro-drop languages use
    /// without a pronoun ("vemos", "vediamo", "puedo").
    static let otherPronouns: Set<String> = [
        "ich", "mich", "mir", "wir", "uns", "unser", "unsere", "unseren", "unserem", "unserer", "unseres", "mein",
        "meine", "meinen", "meinem", "meiner", "meines", "nous", "notre", "moi", "ik", "mij", "mijn", "wij", "noi",
        "nosotros", "nosotras", "nuestro", "nuestra", "nuestros", "nuestras", "nós", "meu", "minha", "meus", "minhas",
        "nosso", "nossa", "nossos", "nossas", "mio", "miei", "nostro", "nostra", "nostri", "nostre", "veo", "vemos",
        "puedo", "podemos", "vedo", "vediamo", "possiamo", "riesco", "vejo", "voyons",
    ]

    /// First-person words that are first person only in the language the text reads as
    /// (``LanguagePhrases/guessLanguage(_:declared:)``): Dutch "je" is "you", Italian "ma" is "but".
    static let pronounsByLanguage: [String: Set<String>] = [
        "fr": ["je", "me", "mon", "ma", "mes", "nos"], "es": ["yo", "me", "mi", "mis", "nos"], "it": ["io", "mi", "me"],
        "pt": ["eu", "me"], "nl": ["ons", "onze", "me"], "de": [],
    ]

    /// First person in Chinese, Japanese and Korean, matched in the own voice.
    static let otherPronounsCJK = LanguagePhrases.Substrings([
        "私", "僕", "わたし", "我々", "うちの", "我", "저는", "제가", "나는", "내가", "우리",
    ])

    /// Every word that may be first person in some language, to pass over most answers at once.
    static let anyOtherPronoun = otherPronouns.union(pronounsByLanguage.values.flatMap { $0 })

    static func otherLanguageWord(in input: ScoringInput) -> String? {
        let candidate = input.words.contains { word in
            anyOtherPronoun.contains(word.normalized) || word.normalized.hasPrefix("j'") || word.normalized.hasPrefix("m'")
        }
        guard candidate || input.characters.contains(where: LanguagePhrases.isCJK) else { return nil }
        let voice = TermMatching.ownVoice(of: input)
        let folded = LanguagePhrases.folded(voice.words)
        let local = pronounsByLanguage[LanguagePhrases.guessLanguage(folded, declared: input.item.lang)] ?? []
        for word in voice.words where !word.isAllCaps {
            let normalized = word.normalized
            if otherPronouns.contains(normalized) || local.contains(normalized) { return word.text }
            if normalized.hasPrefix("j'") || (local.contains("me") && normalized.hasPrefix("m'")) {
                if local.contains("je") { return word.text }
            }
        }
        return otherPronounsCJK.first(in: voice.characters)
    }

    static let pronouns: Set<String> = [
        "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves",
        "i'm", "i've", "i'd", "i'll", "we're", "we've", "we'd", "we'll", "let's",
    ]

    /// Whether `word` is one of ``pronouns``: every one starts with i, l, m, o, u or w and
    /// has at most 9 bytes, which rules most words out before the set lookup.
    @inline(__always) static func mayBePronoun(_ word: TextAnalysis.Word) -> Bool {
        let utf8 = word.normalized.utf8
        guard utf8.count <= 9, let first = utf8.first else { return false }
        switch first {
        case 0x69, 0x6C, 0x6D, 0x6F, 0x75, 0x77: return pronouns.contains(word.normalized)
        default: return false
        }
    }

    /// Forms whose "i" is the pronoun, written with a capital I in the detail.
    static let iForms: Set<String> = ["i", "i'm", "i've", "i'd", "i'll"]

    /// Words after which "mine" is the possessive pronoun rather than the noun.
    static let possessiveMineLeads: Set<String> = ["of", "is", "are", "was", "were"]

    /// Nouns numbered with a Roman numeral even when written in lowercase: "letter I",
    /// "type I diabetes", "part I".
    static let numberedNouns: Set<String> = [
        "act", "appendix", "article", "book", "category", "chapter", "class", "division",
        "episode", "fig", "figure", "grade", "league", "letter", "level", "mark", "part",
        "phase", "round", "schedule", "season", "section", "series", "size", "stage",
        "table", "tier", "type", "vitamin", "vol", "volume",
    ]

    /// Words that may follow a Roman numeral but not the pronoun "I", which is followed by a
    /// verb: "Henry I on horseback", "Part I of the series".
    static let afterNumeral: Set<String> = [
        "a", "an", "the", "and", "or", "of", "on", "in", "at", "by", "for", "from", "with",
        "to", "into", "onto", "riding", "standing", "sitting", "seated", "wearing", "holding",
        "portrait", "statue", "memorial", "monument", "era", "veterans", "diabetes",
    ]

    /// The first-person words in `text`'s own voice, once each, in order of appearance.
    static func firstPersonWords(in text: String) -> [String] {
        // Most answers have no candidate at all; finding none is cheaper than the voice scan.
        guard TextAnalysis.words(in: text).contains(where: { pronouns.contains($0.normalized) }) else {
            return []
        }
        let chars = Array(TextAnalysis.ownVoice(text))
        return firstPersonWords(chars: chars, words: TextAnalysis.words(in: chars))
    }

    /// The first-person words of an own voice already split into characters and words.
    static func firstPersonWords(chars: [Character], words: [TextAnalysis.Word]) -> [String] {
        var found: [String] = []
        for (index, word) in words.enumerated() where pronouns.contains(word.normalized) {
            guard counts(word, at: index, in: words, chars: chars) else { continue }
            let shown = iForms.contains(word.normalized)
                ? "I" + word.normalized.dropFirst() : word.normalized
            if !found.contains(shown) { found.append(shown) }
        }
        return found
    }

    private static func counts(
        _ word: TextAnalysis.Word, at index: Int, in words: [TextAnalysis.Word], chars: [Character]
    ) -> Bool {
        if word.normalized == "i" {
            return word.text == "I" && !isRomanNumeral(index, in: words, at: word, chars: chars)
                && !opensShoutedText(index, in: words, chars: chars)
        }
        if word.isAllCaps || isInAddress(word, chars: chars) { return false }
        if word.isCapitalized && !iForms.contains(word.normalized)
            && !TextAnalysis.isSentenceStart(chars, at: word.range.lowerBound)
        {
            return false
        }
        if word.normalized == "mine" {
            guard index > 0 else { return false }
            return possessiveMineLeads.contains(words[index - 1].normalized)
        }
        return true
    }

    /// Whether the capital "I" at `index` begins a run of capitals: sign or T-shirt text
    /// such as "I LOVE NY" or "I ♥ NY" that no trigger word announced.
    /// Whether `word` is part of a web address or path ("belkin.com/us/products").
    static func isInAddress(_ word: TextAnalysis.Word, chars: [Character]) -> Bool {
        let before = word.range.lowerBound > 0 ? chars[word.range.lowerBound - 1] : " "
        let after = word.range.upperBound < chars.count ? chars[word.range.upperBound] : " "
        return before == "/" || after == "/" || (before == "." && !TextAnalysis.isSpace(after) && after != ".")
    }

    static func opensShoutedText(
        _ index: Int, in words: [TextAnalysis.Word], chars: [Character]
    ) -> Bool {
        guard index + 1 < words.count else { return false }
        let next = words[index + 1]
        let between = chars[words[index].range.upperBound..<next.range.lowerBound]
        let breaks = between.contains { c in
            c.isNewline || c == "," || TextAnalysis.isSentenceTerminator(c)
        }
        return !breaks && next.isAllCaps
    }

    /// Whether the capital "I" at `index` is the Roman numeral one.
    ///
    /// It is when the word right before it (spaces only between) is a numbered noun
    /// ("letter I"), or a capitalised word: inside a sentence that is a name ("World War I",
    /// "King Henry I"); at the start of a sentence it could be an adverb ("Then I saw"),
    /// so there "I" is a numeral only when punctuation, the end, or a word that cannot
    /// follow the pronoun comes next ("Henry I on horseback", "Henry I.").
    static func isRomanNumeral(
        _ index: Int, in words: [TextAnalysis.Word], at word: TextAnalysis.Word, chars: [Character]
    ) -> Bool {
        guard index > 0 else { return false }
        let previous = words[index - 1]
        guard TextAnalysis.areAdjacent(previous, word, in: chars),
            !chars[previous.range.upperBound..<word.range.lowerBound].contains(where: \.isNewline)
        else { return false }
        if numberedNouns.contains(previous.normalized) { return true }
        guard previous.isCapitalized else { return false }
        if !TextAnalysis.isSentenceStart(chars, at: previous.range.lowerBound) { return true }
        guard index + 1 < words.count else { return true }
        let next = words[index + 1]
        return !TextAnalysis.areAdjacent(word, next, in: chars) || afterNumeral.contains(next.normalized)
    }
}
