/// Flags a cut-off answer: `finish_reason` "length", or text ending mid-phrase or mid-word (altbench research).
///
/// Ice Cubes asks for 50 tokens, so cut-offs are common. Without the finish reason, text is
/// cut off when it stops on a function word (a, the, of, with, ...), on , ; : ( or a dash,
/// with a quote or bracket left open, or in the middle of a word:
/// - a capitalised fragment of one or two letters after an article or two capitalised words
///   ("A happy Pembroke Welsh C", "a poster of the D"), unless it is a word, an abbreviation
///   or a roman numeral ("Co", "Dr", "V"), or the word before names a single letter
///   ("Model S", "Vitamin C");
/// - in English, a final lowercase token of one to three letters that is not a word
///   (``shortWords``), an abbreviation or a unit after a number ("…something in th").
///
/// A missing final period alone is not truncation ("A cat sleeping" is complete); whether
/// the answer ends with one is a style question for another scorer. An answer that ends with
/// . ! ? … or a closing quote or bracket is judged only on open quotes and brackets. A single
/// word ending in a colon ("Telephone:") is an icon's whole label, not a cut-off list.
///
/// Known limit: a fragment that ends on a particle and no period ("Lights on") is flagged,
/// since "on" and "in" end most cut-off descriptions ("A dog running on").
public struct TruncationScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        if let reason = input.finishReason?.lowercased(), Self.cutOffReasons.contains(reason) {
            return [.flag(ScoreName.truncated, true, detail: "finish_reason \(reason)")]
        }
        let evidence = Self.evidence(input)
        return [.flag(ScoreName.truncated, evidence != nil, detail: evidence)]
    }

    /// Finish reasons that mean the token limit stopped the model: OpenAI and Ollama say
    /// "length", gateways that pass Anthropic's reason through say "max_tokens".
    static let cutOffReasons: Set<String> = ["length", "max_tokens"]

    /// Words a complete description does not end on: articles, conjunctions, prepositions
    /// that need an object, possessives and linking verbs. Words that often end a phrase
    /// ("that", "this", "over", "behind", "her", "be") are left out.
    static let functionWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "nor", "of", "to", "with", "in", "on", "at", "by",
        "for", "from", "into", "onto", "upon", "against", "between", "among", "amongst",
        "toward", "towards", "via", "like", "unlike", "including", "featuring", "despite",
        "during", "within", "without", "near", "as", "than", "if", "because", "although",
        "whereas", "whether", "unless", "while", "which", "who", "whom", "whose", "its",
        "their", "his", "my", "our", "your", "every", "very", "such", "is", "are", "was", "were",
    ]

    /// Marks after which a sentence must go on.
    static let danglingMarks: Set<Character> = [
        ",", ";", ":", "(", "[", "{", "-", "\u{2010}", "\u{2013}", "\u{2014}", "&", "/",
        // CJK: 、，；：（「『 and a list's ・ with nothing after it.
        "\u{3001}", "\u{FF0C}", "\u{FF1B}", "\u{FF1A}", "\u{FF08}", "\u{300C}", "\u{300E}", "\u{30FB}",
    ]

    /// Marks that open a list item or a heading.
    static let listMarks: Set<Character> = ["-", "*", "#", ">", "\u{2022}", "\u{30FB}", "+"]


    /// Common English words of one to three letters: a final token not among them (nor in
    /// ``abbreviations``) is a word cut short.
    static let shortWords: Set<String> = [
        "a", "ace", "act", "ad", "add", "ads", "age", "ago", "ah", "aid", "aim", "air", "all", "am",
        "an", "and", "ant", "any", "ape", "app", "apt", "arc", "are", "ark", "arm", "art", "as", "ash",
        "ask", "at", "ate", "aw", "awe", "aww", "axe", "bad", "bag", "ban", "bar", "bat", "bay", "bbq",
        "be", "bed", "bee", "beg", "bet", "bib", "bid", "big", "bin", "bit", "bog", "boo", "bow",
        "box", "boy", "bra", "bro", "bud", "bug", "bun", "bus", "but", "buy", "by", "bye", "cab",
        "cam", "can", "cap", "car", "cat", "cod", "cog", "cop", "cot", "cow", "cry", "cub", "cue",
        "cup", "cut", "dad", "dam", "day", "den", "dew", "did", "die", "dig", "dim", "dip", "diy",
        "do", "doe", "dog", "dot", "dry", "due", "dug", "duo", "dye", "ear", "eat", "eel", "egg",
        "ego", "elf", "elk", "elm", "emo", "emu", "end", "era", "eve", "ewe", "eye", "fan", "far",
        "fat", "fax", "fed", "fee", "few", "fig", "fin", "fir", "fit", "fix", "flu", "fly", "fog",
        "for", "fox", "fry", "fun", "fur", "gal", "gap", "gas", "gel", "gem", "get", "gif", "gig",
        "gin", "gnu", "go", "god", "got", "gum", "gun", "gut", "guy", "gym", "ha", "had", "ham", "has",
        "hat", "hay", "he", "hen", "her", "hey", "hi", "hid", "him", "hip", "his", "hit", "hmm", "hog",
        "hop", "hot", "how", "hub", "hue", "hug", "hum", "hut", "i", "ice", "icy", "if", "ill", "in",
        "ink", "inn", "is", "it", "its", "ivy", "jam", "jar", "jaw", "jay", "jet", "job", "jog", "joy",
        "jug", "keg", "key", "kid", "kin", "kit", "lab", "lad", "lap", "law", "lay", "led", "leg",
        "let", "lid", "lie", "lip", "lit", "log", "lol", "lot", "low", "mad", "man", "map", "mat",
        "may", "me", "men", "met", "mic", "mid", "mix", "mob", "mom", "mop", "mow", "mud", "mug",
        "mum", "my", "nap", "net", "new", "nil", "no", "nod", "nor", "not", "now", "nun", "nut", "oak",
        "oar", "oat", "odd", "of", "off", "oh", "oil", "ok", "old", "on", "one", "or", "orb", "ore",
        "our", "out", "owl", "own", "ox", "pad", "pal", "pan", "pat", "paw", "pay", "pea", "peg",
        "pen", "pet", "pic", "pie", "pig", "pin", "pit", "pod", "pop", "pot", "pro", "pub", "pug",
        "pun", "pup", "put", "rag", "ram", "ran", "rat", "raw", "ray", "red", "rib", "rid", "rig",
        "rim", "rip", "rod", "row", "rub", "rug", "run", "rye", "sad", "sap", "sat", "saw", "sax",
        "say", "sea", "see", "set", "sew", "she", "shy", "sip", "sir", "sit", "six", "ski", "sky",
        "so", "son", "soy", "spa", "spy", "sub", "sum", "sun", "tab", "tag", "tan", "tap", "tar",
        "tax", "tea", "tee", "ten", "the", "tie", "tin", "tip", "to", "toe", "ton", "too", "top",
        "tow", "toy", "try", "tub", "tug", "tux", "tv", "two", "uh", "um", "up", "urn", "us", "use",
        "van", "vat", "vet", "via", "vow", "wag", "war", "was", "wax", "way", "we", "web", "wed",
        "wet", "who", "why", "wig", "win", "wok", "won", "wow", "yak", "yam", "yes", "yet", "yew",
        "yo", "you", "yum", "zen", "zip", "zoo",
    ]

    /// Abbreviations, units and roman numerals that end complete text: "Dr", "Acme Co",
    /// "5 km", "etc", "Henry V".
    static let abbreviations: Set<String> = [
        "ave", "cm", "co", "corp", "dr", "etc", "ft", "g", "hr", "hrs", "inc", "jr", "kg", "km",
        "l", "lb", "lbs", "ln", "ltd", "m", "mg", "mi", "min", "ml", "mm", "mph", "mr", "mrs",
        "ms", "mt", "oz", "pc", "pm", "rd", "sec", "sq", "sr", "st", "v", "vs", "x", "yd", "yr",
        "yrs",
    ]

    /// Words that name a letter after them, so "Model S" or "Plan B" is complete.
    static let letterNames: Set<String> = [
        "block", "building", "class", "exit", "gate", "grade", "group", "hall", "letter", "level",
        "model", "option", "plan", "platform", "row", "section", "series", "size", "team",
        "terminal", "type", "unit", "vitamin", "wing", "zone",
    ]

    /// Why the answer looks cut off, or `nil` when it looks complete (or is empty).
    static func evidence(_ input: ScoringInput) -> String? {
        let chars = input.characters
        guard let last = chars.last else { return nil }

        // Straight single quotes are left out: they are also apostrophes at word starts
        // ('90s, 'em, rock 'n roll), so an "open" one proves nothing.
        // Only a quote still open at the end: a stray mark earlier (an inch mark inside a
        // quotation) leaves a span open to its sentence end, which proves nothing.
        if let open = input.quotedSpans.last(where: { !$0.isClosed && $0.opener != "'" }),
            chars[open.range.upperBound...].allSatisfy({ TextAnalysis.isSentenceTerminator($0) || TextAnalysis.isSpace($0) })
        {
            return "unclosed \(open.opener)"
        }
        if let bracket = unclosedBracket(chars) {
            return "unclosed \(bracket)"
        }
        if last == ":", input.words.count == 1 {
            return nil
        }
        if danglingMarks.contains(last), !(last == "-" && chars.dropLast().last == "-") {
            return "ends on \(last)"
        }
        if let cut = unfinishedSentence(chars, words: input.words) ?? unfinishedListItem(chars) { return cut }
        guard let word = input.words.last, word.range.upperBound == chars.count else { return nil }
        let language = LanguagePhrases.guessLanguage(
            LanguagePhrases.folded(input.words.suffix(40)), declared: input.item.lang)
        if language == "en", functionWords.contains(word.normalized) {
            return "ends on \(word.text)"
        }
        if let dangling = LanguagePhrases.danglingWords[language],
            dangling.contains(LanguagePhrases.folded(word))
        {
            return "ends on \(word.text)"
        }
        // The last line a comma-separated list of keywords ("…, Suffolk, UK, gbr") is no sentence.
        let lastLine = chars[((chars.lastIndex(where: TextAnalysis.isNewline) ?? -1) + 1)...]
        let keywordList = lastLine.filter { $0 == "," }.count >= 3 && !lastLine.contains(where: TextAnalysis.isSentenceTerminator)
        if isCutCapital(word, in: input) || (language == "en" && !keywordList && isCutLowercase(word, in: input)) {
            return "ends mid-word: \(word.text)"
        }
        return nil
    }

    /// A last sentence left unfinished after finished ones, where the cut shows:
    /// - a word broken at an apostrophe ("… its eyes are focused on the distance. The bear'");
    /// - a last word that waits for more (``LanguagePhrases/continuingWords``, an adjective in -ical, -ional,
    ///   -ous or -ful, an adverb in -ly): "… The cat's fur is fluffy and appears", "… a
    ///   pattern similar to traditional". A last sentence that merely lacks its period ("…
    ///   creating a serene moment") is not judged cut: its words may be complete;
    /// - a loop that ran into the limit: the last word four times over ("a bald bald bald
    ///   bald"), or the last sentence repeated three times;
    /// - an ellipsis right after a word that needs more ("… and it...");
    /// - Japanese or Chinese text ending on a particle or a linking word ("…意味合いを", "…可爱的").
    static func unfinishedSentence(_ chars: [Character], words: [TextAnalysis.Word]) -> String? {
        guard let last = chars.last, let final = words.last else { return nil }
        if last == "." || last == "\u{2026}", String(chars.suffix(3)) == "..." || last == "\u{2026}",
            functionWords.contains(final.normalized) || ["it", "they", "he", "she"].contains(final.normalized),
            final.range.upperBound >= chars.count - 3
        {
            return "ends on \(final.text)\u{2026}"
        }
        // Every other kind ends without a final mark.
        if TextAnalysis.isSentenceTerminator(last) || TextAnalysis.isClosingMark(last) && !TextAnalysis.isApostrophe(last) {
            return nil
        }
        let previous = chars.lastIndex(where: TextAnalysis.isSentenceTerminator)
        // The last line is prose, not a list item or a heading, and a sentence before it finished.
        let lineStart = (chars.lastIndex(where: TextAnalysis.isNewline) ?? -1) + 1
        let lineHead = chars[lineStart...].first { !TextAnalysis.isSpace($0) }
        let afterFinished = previous != nil && !(lineHead.map { listMarks.contains($0) || $0.isNumber } ?? true)
        if TextAnalysis.isApostrophe(last), afterFinished, chars.count > 1, chars[chars.count - 2].isLetter {
            return "ends mid-word: \(final.text)\(last)"
        }
        if LanguagePhrases.isCJK(last) {
            let japanese = chars.contains { ("\u{3041}"..."\u{309F}").contains($0) }
            if (japanese && LanguagePhrases.danglingJapanese.contains(last)) || (!japanese && LanguagePhrases.danglingChinese.contains(last)) {
                return "ends on \(last)"
            }
            return nil
        }
        guard final.range.upperBound == chars.count, final.text.allSatisfy(\.isLowercase) else { return nil }
        if words.count >= 4, words.suffix(4).allSatisfy({ $0.normalized == final.normalized }) {
            return "repeats until cut: \(final.text)"
        }
        if let previous, afterFinished {
            let sentence = TextAnalysis.words(in: Array(chars[(previous + 1)...])).map(\.normalized)
            // The sentence before, repeated three times, and this one a shorter copy of it.
            let before = chars[..<previous].lastIndex(where: TextAnalysis.isSentenceTerminator).map { $0 + 1 } ?? 0
            let repeated = TextAnalysis.words(in: Array(chars[before..<previous])).map(\.normalized)
            let all = TextAnalysis.words(in: chars).map(\.normalized).joined(separator: " ")
            if !repeated.isEmpty, sentence.count < repeated.count, Array(repeated.prefix(sentence.count)) == sentence,
                all.components(separatedBy: repeated.joined(separator: " ")).count > 3
            {
                return "repeats until cut: \(final.text)"
            }
            let word = final.normalized
            if sentence.count >= 3, LanguagePhrases.continuingWords.contains(word)
                || (word.count >= 6 && ["ical", "ional", "ous", "ful", "ly"].contains(where: word.hasSuffix))
            {
                return "ends mid-sentence: \(final.text)"
            }
        }
        return nil
    }

    /// A list whose items end with a period, and whose last item does not: "1. Español: …
    /// montañas.⏎2. English: …⏎15. Svenska: Machu".
    static func unfinishedListItem(_ chars: [Character]) -> String? {
        guard let end = chars.last, !TextAnalysis.isSentenceTerminator(end), chars.contains(where: TextAnalysis.isNewline)
        else { return nil }
        let lines = chars.split(whereSeparator: TextAnalysis.isNewline).map { $0.drop(while: TextAnalysis.isSpace) }
            .filter { !$0.isEmpty }
        func isItem(_ line: ArraySlice<Character>) -> Bool {
            guard let first = line.first else { return false }
            if listMarks.contains(first) { return line.dropFirst().first.map(TextAnalysis.isSpace) ?? false }
            let digits = line.prefix(while: \.isNumber)
            return !digits.isEmpty && line.dropFirst(digits.count).first.map { $0 == "." || $0 == ")" } == true
        }
        guard let last = lines.last, isItem(last), let end = last.last(where: { !TextAnalysis.isSpace($0) }),
            !TextAnalysis.isSentenceTerminator(end), !TextAnalysis.isClosingMark(end)
        else { return nil }
        let earlier = lines.dropLast().filter(isItem)
        let finished = earlier.filter { line in
            line.last(where: { !TextAnalysis.isSpace($0) }).map {
                TextAnalysis.isSentenceTerminator($0) || TextAnalysis.isClosingMark($0)
            } ?? false
        }
        guard earlier.count >= 2, finished.count * 3 >= earlier.count * 2 else { return nil }
        return "ends mid-list: \(String(last.suffix(20)))"
    }

    /// A capitalised fragment of one or two letters ("C", "Th") after an article or two
    /// capitalised words, that is not a word, abbreviation or roman numeral, nor a single
    /// letter named by the word before it ("Gate B", but "Golden Gate Br" is cut off).
    static func isCutCapital(_ word: TextAnalysis.Word, in input: ScoringInput) -> Bool {
        let letters = Array(word.text)
        guard (1...2).contains(letters.count), letters[0].isUppercase, letters[0].isASCII,
            letters.dropFirst().allSatisfy({ $0.isLowercase && $0.isASCII }),
            !shortWords.contains(word.normalized), !abbreviations.contains(word.normalized)
        else { return false }
        let before = input.words.dropLast().suffix(2)
        guard let previous = before.last, adjacent(previous, word, in: input),
            letters.count == 2 || !letterNames.contains(previous.normalized)
        else { return false }
        if ["a", "an", "the"].contains(previous.normalized) { return true }
        return before.count == 2 && before.allSatisfy(\.isCapitalized) && adjacent(before.first!, previous, in: input)
    }

    /// In English, a final lowercase token of one to three letters that is not a word, an
    /// abbreviation or a unit after a number ("in th", but not "5 km").
    static func isCutLowercase(_ word: TextAnalysis.Word, in input: ScoringInput) -> Bool {
        guard (1...3).contains(word.text.count), word.text.allSatisfy({ $0.isASCII && $0.isLowercase }),
            !shortWords.contains(word.text), !abbreviations.contains(word.text),
            word.range.lowerBound == 0 || TextAnalysis.isSpace(input.characters[word.range.lowerBound - 1])
        else { return false }
        if input.words.count > 1, input.words[input.words.count - 2].text.first?.isNumber == true {
            return false
        }
        return isEnglish(input)
    }

    /// Whether the answer may be English: its dataset says so or says nothing, and most of
    /// its letters are ASCII.
    static func isEnglish(_ input: ScoringInput) -> Bool {
        if let lang = input.item.lang?.lowercased(), !lang.hasPrefix("en") { return false }
        let letters = input.characters.filter(\.isLetter)
        return letters.filter(\.isASCII).count * 2 >= letters.count
    }

    private static func adjacent(_ first: TextAnalysis.Word, _ second: TextAnalysis.Word, in input: ScoringInput) -> Bool {
        TextAnalysis.areAdjacent(first, second, in: input.characters)
    }

    /// The innermost bracket still open at the end, ignoring stray closers ("1) a cat").
    static func unclosedBracket(_ chars: [Character]) -> Character? {
        var open: [Character] = []
        for c in chars {
            // By ASCII byte: comparing Characters is a string comparison.
            switch c.asciiByte {
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"): open.append(c)
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"): if !open.isEmpty { open.removeLast() }
            default: break
            }
        }
        return open.last
    }
}
