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

    /// textstat's word and sentence counts of `text` and, when `syllables` is true, the
    /// syllables of its words by ``SyllableCounter``: one scan over the Unicode scalars (Python
    /// counts code points), decoded from the UTF-8 bytes, an ASCII byte taking only the steps
    /// its class needs and a run of ASCII letters read in one go. The letters of the current
    /// word go to a buffer on the stack (on the heap for texts of more than a kilobyte or so).
    public static func counts(in text: String, syllables: Bool) -> Counts {
        if let counts = text.utf8.withContiguousStorageIfAvailable({ counts(utf8: $0, syllables: syllables) }) {
            return counts
        }
        var copy = text
        copy.makeContiguousUTF8()
        return copy.utf8.withContiguousStorageIfAvailable { counts(utf8: $0, syllables: syllables) }
            ?? Counts(words: 0, sentences: 1, syllables: 0)
    }

    private static func counts(utf8: UnsafeBufferPointer<UInt8>, syllables countSyllables: Bool) -> Counts {
        let capacity = utf8.count + 8
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { letters in
            // The words of the whole text, and the letters of the current one.
            var words = 0
            var syllables = 0
            var inToken = false
            var tokenHasWord = false
            var letterCount = 0
            // The current sentence (a regex match) and the words inside it. A word may
            // straddle two sentences: "3.5" ends one after "3." and starts the next at "5".
            var inSentence = false
            var inTerminators = false
            var sentences = 0
            var shortSentences = 0
            var sentenceWords = 0
            var inSentenceToken = false
            var sentenceTokenHasWord = false

            var index = 0
            let n = utf8.count
            while index <= n {
                // An ASCII character, the most common kind, takes the steps of the general
                // turn below that apply to its class, and no others.
                if index < n, utf8[index] < 0x80 {
                    let byte = utf8[index]
                    index += 1
                    let folded = byte | 0x20
                    if (folded >= 0x61 && folded <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F {
                        // A word character: it opens a word, and a sentence if none is open,
                        // after closing one whose run of . ! ? it ends.
                        inToken = true
                        tokenHasWord = true
                        letters[letterCount] = byte == 0x5F ? byte : byte >= 0x30 && byte <= 0x39 ? 0x30 : folded
                        letterCount += 1
                        if inSentence, inTerminators {
                            // Close the sentence.
                            if inSentenceToken, sentenceTokenHasWord { sentenceWords += 1 }
                            sentences += 1
                            if sentenceWords <= 2 { shortSentences += 1 }
                            inSentence = false
                        }
                        if !inSentence {
                            inSentence = true
                            inTerminators = false
                            sentenceWords = 0
                        }
                        inSentenceToken = true
                        sentenceTokenHasWord = true
                        // The rest of the run of letters and digits: more letters, kept
                        // whether or not syllables are counted (the buffer has room).
                        var count = letterCount
                        var next = index
                        // Eight bytes at a time (`letters` has room for them), then one by one.
                        run: do {
                            while next + 8 <= n {
                                let eight = UnsafeRawPointer(utf8.baseAddress! + next).loadUnaligned(as: UInt64.self)
                                let run = TermMatching.alphanumericRun(eight)
                                guard run.length > 0 else { break run }
                                // Letters lowercased, digits as "0".
                                let letterBytes = (run.letters >> 7) &* 0xFF
                                let digitBytes = (run.digits >> 7) &* 0xFF
                                let codes = run.lowercase & letterBytes | 0x3030_3030_3030_3030 & digitBytes
                                UnsafeMutableRawPointer(letters.baseAddress! + count).storeBytes(of: codes, as: UInt64.self)
                                count &+= run.length
                                next &+= run.length
                                if run.length < 8 { break run }
                            }
                            while next < n {
                                let byte = utf8[next]
                                let folded = byte | 0x20
                                let code: UInt8
                                if folded &- 0x61 < 26 {
                                    code = folded
                                } else if byte &- 0x30 < 10 {
                                    code = 0x30
                                } else {
                                    break
                                }
                                letters[count] = code
                                count &+= 1
                                next &+= 1
                            }
                        }
                        letterCount = count
                        index = next
                    } else if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) || (byte >= 0x1C && byte <= 0x1F) {
                        // Whitespace ends the word, and the sentence after its run of . ! ?.
                        if inToken, tokenHasWord {
                            words += 1
                            if countSyllables {
                                syllables += SyllableCounter.count(letters: UnsafeBufferPointer(rebasing: letters[0..<letterCount]))
                            }
                        }
                        letterCount = 0
                        inToken = false
                        tokenHasWord = false
                        if inSentence {
                            if inTerminators {
                                // Close the sentence.
                                if inSentenceToken, sentenceTokenHasWord { sentenceWords += 1 }
                                sentences += 1
                                if sentenceWords <= 2 { shortSentences += 1 }
                                inSentence = false
                            } else {
                                if inSentenceToken, sentenceTokenHasWord { sentenceWords += 1 }
                                inSentenceToken = false
                                sentenceTokenHasWord = false
                            }
                        }
                    } else if byte == 0x2E || byte == 0x21 || byte == 0x3F {
                        // . ! ? join the run that ends the sentence.
                        inToken = true
                        if inSentence {
                            inTerminators = true
                            inSentenceToken = true
                        }
                    } else {
                        // Other punctuation: part of the word, and the end of a sentence
                        // whose run of . ! ? it follows.
                        inToken = true
                        if inSentence {
                            if inTerminators {
                                // Close the sentence.
                                if inSentenceToken, sentenceTokenHasWord { sentenceWords += 1 }
                                sentences += 1
                                if sentenceWords <= 2 { shortSentences += 1 }
                                inSentence = false
                            } else {
                                inSentenceToken = true
                            }
                        }
                    }
                    continue
                }
                // Any other scalar per turn, and one more turn past the end to close what is
                // open. (. ! ? are ASCII: no scalar here is one.)
                var space = true
                var word = false
                var code: UInt8 = 0
                if index < n {
                    let scalar: Unicode.Scalar
                    (scalar, index) = UTF8Scalars.scalar(utf8, at: index)
                    space = isSpace(scalar)
                    word = !space && isNonASCIIWordCharacter(scalar)
                    if word, countSyllables { code = SyllableCounter.letterCode(scalar) }
                } else {
                    index += 1
                }

                // The words of the whole text (lexicon_count, and syllable_count's words).
                if space {
                    // Close the word.
                    if inToken, tokenHasWord {
                        words += 1
                        if countSyllables {
                            syllables += SyllableCounter.count(letters: UnsafeBufferPointer(rebasing: letters[0..<letterCount]))
                        }
                    }
                    letterCount = 0
                    inToken = false
                    tokenHasWord = false
                } else {
                    inToken = true
                    if word {
                        tokenHasWord = true
                        if countSyllables {
                            letters[letterCount] = code
                            letterCount += 1
                        }
                    }
                }

                // The sentences: a match ends at the first character after its run of . ! ?
                // (or at the end), and the next starts at the next word character.
                let atEnd = index > n
                if inSentence, inTerminators || atEnd {
                    if inSentenceToken, sentenceTokenHasWord { sentenceWords += 1 }
                    sentences += 1
                    if sentenceWords <= 2 { shortSentences += 1 }
                    inSentence = false
                }
                if atEnd { break }
                if !inSentence {
                    guard word else { continue }
                    inSentence = true
                    inTerminators = false
                    sentenceWords = 0
                    inSentenceToken = false
                    sentenceTokenHasWord = false
                }
                if space {
                    if inSentenceToken, sentenceTokenHasWord { sentenceWords += 1 }
                    inSentenceToken = false
                    sentenceTokenHasWord = false
                } else {
                    inSentenceToken = true
                    if word { sentenceTokenHasWord = true }
                }
            }
            return Counts(words: words, sentences: max(1, sentences - shortSentences), syllables: syllables)
        }
    }

    // MARK: - Python's character classes

    /// Python's `\s` and `str.split()` separator (`Py_UNICODE_ISSPACE`): ASCII tab, line feed,
    /// vertical tab, form feed, carriage return, the separators U+001C to U+001F and space;
    /// beyond ASCII, the White_Space characters (U+0085, no-break space, the U+2000 spaces, ...).
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x80 { return v == 0x20 || (v >= 0x09 && v <= 0x0D) || (v >= 0x1C && v <= 0x1F) }
        switch v {
        case 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    /// Python's `\w` (`Py_UNICODE_ISALNUM` or "_"): a letter (categories Lu, Ll, Lt, Lm, Lo),
    /// a character with a numeric value (digits, "½", "²", "Ⅻ") or the underscore. Combining
    /// marks are not word characters, so textstat deletes the accent of a decomposed "é".
    @inline(__always)
    static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v < 0x80 {
            let folded = v | 0x20
            return (v >= 0x30 && v <= 0x39) || (folded >= 0x61 && folded <= 0x7A) || v == 0x5F
        }
        return isNonASCIIWordCharacter(scalar)
    }

    /// ``isWordCharacter(_:)`` beyond ASCII, kept out of line: the property lookups cost more
    /// to set up than the whole ASCII test. The scalars Latin text is made of are decided by
    /// their value: the accented letters from U+00C0 to U+017F are all letters (but for × and
    /// ÷), and the general punctuation from U+2000 to U+206F (quotes, dashes, …) holds none.
    @inline(never)
    static func isNonASCIIWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        if v >= 0xC0 && v <= 0x17F { return v != 0xD7 && v != 0xF7 }
        if v >= 0x2000 && v <= 0x206F { return false }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            return true
        default:
            return properties.numericType != nil
        }
    }
}
