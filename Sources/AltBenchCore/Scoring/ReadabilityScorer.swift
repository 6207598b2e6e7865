/// The Flesch Reading Ease of an answer, as textstat 0.7.4 computes it (the scoring research's
/// `readability` figure; Flesch 1948: 206.835 − 1.015 × words per sentence − 84.6 × syllables
/// per word, higher is easier; plain English scores 60 to 70).
///
/// Words and sentences are counted exactly as textstat counts them (see ``Readability``);
/// syllables come from ``SyllableCounter``, which approximates the pyphen hyphenation count
/// textstat uses, so the value differs from textstat's only where the syllable counts do.
///
/// Writes one figure (`passed` is `nil`). No score for an empty answer, nor for one without a
/// single letter or digit ("…", an emoji alone): textstat would give such a text 206.84, a
/// "very easy" that says nothing about it.
public struct ReadabilityScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard !input.text.isEmpty else { return [] }
        let counts = Readability.counts(in: input.text, syllables: true)
        guard counts.words > 0 else { return [] }
        return [
            Score(
                name: ScoreName.readability,
                value: Readability.fleschReadingEase(
                    words: counts.words, sentences: counts.sentences, syllables: counts.syllables))
        ]
    }
}

/// textstat 0.7.4's Flesch Reading Ease, with its word and sentence counts, without regular
/// expressions. The rules, from textstat's source:
///
/// - **Words** (`lexicon_count`): the text with every code point that is neither a word
///   character (Python's `\w`: a letter, a number or `_`) nor whitespace (Python's `\s`)
///   deleted, then split on whitespace. So a run of non-whitespace counts as a word when it
///   holds at least one letter, digit or `_`: "T-shirt", "I'm" and "3.5" are one word each,
///   while "—", "&" and an emoji standing alone are none.
/// - **Sentences** (`sentence_count`): the matches of `\b[^.!?]+[.!?]*`. A sentence starts at
///   a word character, runs to the next `.`, `!` or `?` and takes in the whole run of them
///   ("Wow!!!", "Wait..."); what lies between the run and the next word character belongs to
///   no sentence. Line breaks do not end a sentence, and every "." does ("Dr.", "U.S." and
///   "3.5" split sentences). Sentences of two words or fewer are then ignored, and the count
///   is at least 1: `max(1, sentences − short sentences)`.
/// - **Syllables** (`syllable_count`): one plus the pyphen hyphenation points of each word of
///   the lowercased text (the same words as above). Supplied by the caller.
/// - **Rounding**: words per sentence and syllables per word are each rounded to one decimal,
///   the result to two, by textstat's `_legacy_round`: `floor(x × 10ⁿ + copysign(0.5, x)) / 10ⁿ`,
///   which rounds positive halves up and takes negative values half a step too far down
///   (−2.34 becomes −2.4).
///
/// With no words, textstat takes 0 syllables per word and 0 words per sentence (the sentence
/// count is still 1), so an empty text scores 206.84.
public enum Readability {
    /// What textstat counts in a text.
    public struct Counts: Sendable, Hashable {
        /// `lexicon_count`: whitespace-separated runs holding a letter, digit or `_`.
        public var words: Int
        /// `sentence_count`: at least 1.
        public var sentences: Int
        /// ``SyllableCounter``'s estimate of `syllable_count`, or 0 when not asked for.
        public var syllables: Int
    }

    /// textstat's Flesch Reading Ease of `text`, given its syllable count (textstat's own,
    /// or ``SyllableCounter/count(text:)``).
    public static func fleschReadingEase(_ text: String, syllables: Int) -> Double {
        let counts = counts(in: text, syllables: false)
        return fleschReadingEase(words: counts.words, sentences: counts.sentences, syllables: syllables)
    }

    /// textstat's Flesch Reading Ease from its three counts.
    public static func fleschReadingEase(words: Int, sentences: Int, syllables: Int) -> Double {
        let sentences = max(1, sentences)
        let wordsPerSentence = legacyRound(Double(words) / Double(sentences), 1)
        let syllablesPerWord = words == 0 ? 0 : legacyRound(Double(syllables) / Double(words), 1)
        return legacyRound(206.835 - 1.015 * wordsPerSentence - 84.6 * syllablesPerWord, 2)
    }

    /// textstat's `_legacy_round(x, points)`.
    static func legacyRound(_ x: Double, _ points: Int) -> Double {
        let scale: Double = points == 1 ? 10 : points == 2 ? 100 : 1
        return (x * scale + (x.sign == .minus ? -0.5 : 0.5)).rounded(.down) / scale
    }

    /// The three kinds of code point the counts tell apart, and the rest.
    enum Kind {
        /// Python's `\s`: ends a word.
        case space
        /// Python's `\w`: makes a run of non-space a word, and opens a sentence.
        case word
        /// `.`, `!` or `?`: ends a sentence, with the rest of its run.
        case terminator
        /// Anything else: part of a word, but no reason to count it.
        case other

        init(_ scalar: Unicode.Scalar) {
            if Readability.isSpace(scalar) {
                self = .space
            } else if Readability.isWordCharacter(scalar) {
                self = .word
            } else if scalar == "." || scalar == "!" || scalar == "?" {
                self = .terminator
            } else {
                self = .other
            }
        }
    }

    /// textstat's word and sentence counts of `text` and, when `syllables` is true, the
    /// syllables of its words by ``SyllableCounter``: one pass over the Unicode scalars
    /// (Python counts code points), one step per rule.
    public static func counts(in text: String, syllables countSyllables: Bool) -> Counts {
        var words = WordCount(countSyllables: countSyllables)
        var sentences = SentenceCount()
        for scalar in text.unicodeScalars {
            let kind = Kind(scalar)
            words.read(kind, scalar)
            sentences.read(kind)
        }
        words.read(.space, " ")
        sentences.end()
        return Counts(words: words.words, sentences: sentences.count, syllables: words.syllables)
    }

    /// `lexicon_count` and `syllable_count`: runs of non-space holding a word character, and
    /// the syllables of the word characters of each.
    struct WordCount {
        let countSyllables: Bool
        var words = 0
        var syllables = 0
        /// The current run holds a word character.
        var hasWord = false
        /// The ``SyllableCounter/letterCode(_:)`` of each word character of the current run.
        var letters: [UInt8] = []

        mutating func read(_ kind: Kind, _ scalar: Unicode.Scalar) {
            switch kind {
            case .space:
                if hasWord {
                    words += 1
                    if countSyllables { syllables += letters.withUnsafeBufferPointer(SyllableCounter.count(letters:)) }
                }
                hasWord = false
                letters.removeAll(keepingCapacity: true)
            case .word:
                hasWord = true
                if countSyllables { letters.append(SyllableCounter.letterCode(scalar)) }
            case .terminator, .other:
                break
            }
        }
    }

    /// `sentence_count`: the matches of `\b[^.!?]+[.!?]*` and the words inside each, less
    /// those of two words or fewer. A word may straddle two sentences: "3.5" ends one after
    /// "3." and starts the next at "5".
    struct SentenceCount {
        var sentences = 0
        var shortSentences = 0
        /// Whether a sentence is open, and whether it has reached its run of . ! ?.
        var isOpen = false
        var inTerminators = false
        /// The words of the open sentence, and whether its current run holds a word character.
        var words = 0
        var hasWord = false

        var count: Int { max(1, sentences - shortSentences) }

        mutating func read(_ kind: Kind) {
            if isOpen, inTerminators, kind != .terminator { end() }
            if !isOpen {
                guard kind == .word else { return }
                (isOpen, inTerminators, words, hasWord) = (true, false, 0, false)
            }
            switch kind {
            case .space:
                if hasWord { words += 1 }
                hasWord = false
            case .word:
                hasWord = true
            case .terminator:
                inTerminators = true
            case .other:
                break
            }
        }

        /// Closes the open sentence, if any.
        mutating func end() {
            guard isOpen else { return }
            if hasWord { words += 1 }
            sentences += 1
            if words <= 2 { shortSentences += 1 }
            isOpen = false
        }
    }

    // MARK: - Python's character classes

    /// Python's `\s` and `str.split()` separator (`Py_UNICODE_ISSPACE`): ASCII tab, line feed,
    /// vertical tab, form feed, carriage return, the separators U+001C to U+001F and space;
    /// beyond ASCII, the White_Space characters (U+0085, no-break space, the U+2000 spaces, ...).
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }

    /// Python's `\w` (`Py_UNICODE_ISALNUM` or "_"): a letter (categories Lu, Ll, Lt, Lm, Lo),
    /// a character with a numeric value (digits, "½", "²", "Ⅻ") or the underscore. Combining
    /// marks are not word characters, so textstat deletes the accent of a decomposed "é".
    static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_"
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            return true
        default:
            return properties.numericType != nil
        }
    }
}
