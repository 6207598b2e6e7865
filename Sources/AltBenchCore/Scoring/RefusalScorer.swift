import Foundation

/// Flags a refusal: the `refusal` field, a content filter, or a refusing opening (altbench research).
///
/// The openings are first-person apologies, inabilities and prohibitions, in the languages
/// of ``RefusalPhrases``: "I'm sorry", "As an AI", "I can't/cannot/am unable to see,
/// describe, identify, help, assist, provide…", "I'm not allowed/permitted to…", "I must
/// refrain from…", "It is not appropriate for me to…", "Je ne peux pas décrire…", "Ich kann
/// dieses Bild nicht beschreiben", "No puedo ayudar…", "Não posso ajudar…".
/// `finish_reason` "content_filter" counts as a refusal too, with detail "content_filter".
///
/// Only the opening counts, and only in the first person: a refusal is the model speaking
/// before it says anything else. So a shop sign transcribed first ("Sorry, we're closed
/// sign on a door") or quoted (“Sorry, we're closed”) is not a refusal, nor is "I can't"
/// later in the text. Three openings come before the refusal proper:
/// - lead-ins, passed over when the words after them refuse: "Sorry, but I can't help",
///   "Leider kann ich…", "Lo siento, pero no puedo…";
/// - a short apology sentence: "Sorry about that. I can't identify people.";
/// - a leading clause in the same sentence: "As I am not allowed to describe people, I
///   can't assist", "Due to privacy concerns, I cannot…", "For privacy reasons I won't…".
/// Words are compared lowercased and without accents ("desole" matches "Désolé").
public struct RefusalScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        if let refusal = input.refusal, refusal.contains(where: { !$0.isWhitespace }) {
            return [.flag(ScoreName.refusal, true, detail: "refusal field")]
        }
        if input.finishReason?.lowercased() == "content_filter" {
            return [.flag(ScoreName.refusal, true, detail: "content_filter")]
        }
        let phrase = Self.refusalPhrase(chars: input.characters, words: input.words.prefix(Self.wordsRead))
            ?? Self.laterRefusal(in: input) ?? Self.missingImage(in: input)
            ?? Self.cjkRefusal(TermMatching.ownVoice(of: input).characters)
        return [.flag(ScoreName.refusal, phrase != nil, detail: phrase)]
    }

    /// A refusal in Chinese, Japanese or Korean: an inability to see, identify, describe or
    /// help, or an apology with an inability anywhere in the text.
    static func cjkRefusal(_ chars: [Character]) -> String? {
        if let refusal = LanguagePhrases.refusalCJK.first(in: chars) { return refusal }
        guard let apology = LanguagePhrases.apologyCJK.first(in: chars), LanguagePhrases.inabilityCJK.first(in: chars) != nil
        else { return nil }
        return apology
    }

    /// Actions a later sentence refuses only with an object that makes it a refusal: "I can't
    /// identify the people" refuses, "I can't identify the species" hedges; "I can't see the
    /// image" refuses, "I can't see his face" hedges; "I can't help but notice" is neither.
    static let objectActions: Set<String> = [
        "see", "view", "look", "identify", "identifying", "recognize", "recognise", "recognizing", "recognising",
        "access", "open", "perceive", "share", "sharing", "give", "offer", "do", "display", "help", "helping",
    ]

    /// What makes an ``objectActions`` action a refusal: people, the picture itself, or the request.
    static let refusedObjects: Set<String> = [
        "people", "person", "persons", "individual", "individuals", "who", "him", "her", "them", "faces",
        "anyone", "someone", "celebrities", "celebrity", "humans", "identity", "identities", "names", "real",
        "specific", "image", "images", "picture", "pictures", "photo", "photos", "photograph", "photographs",
        "attachment", "attachments", "file", "files", "it", "this", "that", "visual", "visuals", "content",
        "with", "you", "request", "images",
    ]

    /// A refusal opening a later sentence of the own voice, in any language of
    /// ``RefusalPhrases``: "The image shows a crowd. However, I can't identify the people in it."
    /// A partial refusal that comes after some description is still a refusal.
    /// The words a refusal may start with, in any language: a later sentence starting with
    /// none of them is passed over at once.
    static let openingFirstWords: Set<String> = Set(
        RefusalPhrases.all.flatMap { table in (table.leadIns + table.refusingOpeners + table.inabilities).map { $0[0] } })

    static let firstWords: Set<String> = Set(
        RefusalPhrases.all.flatMap { table in
            (table.leadIns + table.refusingOpeners + table.inabilities + table.clauseOpeners).map { $0[0] }
        })

    static func laterRefusal(in input: ScoringInput) -> String? {
        guard input.words.contains(where: { RefusalPhrases.markers.contains(LanguagePhrases.folded($0)) }),
            input.words.dropFirst().contains(where: { firstWords.contains(LanguagePhrases.folded($0)) })
        else { return nil }
        let (chars, words) = TermMatching.ownVoice(of: input)
        for index in words.indices.dropFirst() {
            let gap = chars[words[index - 1].range.upperBound..<words[index].range.lowerBound]
            guard !gap.isEmpty, !(gap.count == 1 && gap.first == " "), firstWords.contains(LanguagePhrases.folded(words[index])) else {
                continue
            }
            // A sentence start, or a clause after ", but" / ", however" ("I'm happy to help, but I don't see an image").
            let clause = ["but", "however"].contains(words[index].normalized) && gap.contains(",")
            guard clause || gap.contains(where: { TextAnalysis.isSentenceTerminator($0) || TextAnalysis.isNewline($0) })
            else { continue }
            // A refusal fits in its sentence's first few hundred characters.
            let start = words[index].range.lowerBound
            let sentence = Array(chars[start..<min(chars.count, start + 400)])
            let sentenceWords = TextAnalysis.words(in: sentence, limit: wordsRead)
            guard TextAnalysis.startsWithWord(sentence, words: sentenceWords),
                let end = Opening(chars: sentence, words: sentenceWords[...]).refusal()
            else { continue }
            let action = LanguagePhrases.folded(sentenceWords[end])
            if objectActions.contains(action) {
                let after = sentenceWords[(end + 1)...].prefix(6).prefix { word in
                    !sentence[sentenceWords[end].range.upperBound..<word.range.lowerBound].contains(where: TextAnalysis.isSentenceTerminator)
                }
                guard let next = after.first, !(action.hasPrefix("help") && next.normalized == "but"),
                    after.contains(where: { refusedObjects.contains($0.normalized) })
                else { continue }
            }
            let text = String(sentence[sentenceWords[0].range.lowerBound..<sentenceWords[end].range.upperBound])
            return text.count > 60 ? String(text.prefix(59)) + "\u{2026}" : text
        }
        return nil
    }

    /// Saying there is no image to describe, in the own voice: "There is no image attached",
    /// "No image was provided", "The image didn't come through", "Please upload the image".
    static let missingImagePatterns = WordPattern.list([
        "there is|there's|there was no {picture}",
        "no {picture} was|is|has|were attached|provided|uploaded|included|shared|received",
        "no {picture} attached|provided|uploaded|included|found",
        "the {picture} didn't|did|could|couldn't|failed|was|is not|n't|to load|come|upload|attach|available",
        "please upload|attach|provide|share|send|resend|re-upload the|an|your {picture}",
        "it seems|appears|looks like there is|there's|there was no",
        "you haven't|didn't|forgot|have not|did not uploaded|upload|attached|attach|provided|provide|shared|share|included|include",
        "this|the platform|interface|chat|model doesn't|does|cannot|can't support|not|handle|display|process|accept",
        "this|the {picture} cannot|can't be described|identified|processed|analyzed|analysed|viewed|displayed|opened|loaded",
        "this|the {picture} can not be described|identified|processed|analyzed|viewed|displayed|opened|loaded",
        "is|it's not suitable|appropriate for me to",
    ], ["picture": ["image", "images", "picture", "pictures", "photo", "photos", "attachment", "file"]])

    /// The words the ``missingImagePatterns`` start with.
    static let missingImageFirstWords = Set(missingImagePatterns.flatMap { $0.slots[0] })

    static func missingImage(in input: ScoringInput) -> String? {
        guard input.words.contains(where: { missingImageFirstWords.contains($0.normalized) }) else { return nil }
        let (chars, words) = TermMatching.ownVoice(of: input)
        for index in words.indices where missingImageFirstWords.contains(words[index].normalized) {
            if let end = WordPattern.longestMatch(missingImagePatterns, in: words, at: index, chars: chars),
                !words[index..<end].contains(where: \.isAllCaps)
            {
                return PerceptionMetaScorer.written(words[index..<end], in: chars)
            }
        }
        return nil
    }

    /// How many leading words are read: a clause, a lead-in and the refusal fit in them.
    static let wordsRead = 40
    /// How many words the leading clause or apology sentence may have.
    static let openingWords = 20

    /// The refusing opening of the text as written (e.g. "I'm sorry", "Sorry, but I can't
    /// help"), or `nil`; `words` are the text's first words, indexed from 0.
    static func refusalPhrase(chars: [Character], words: ArraySlice<TextAnalysis.Word>) -> String? {
        guard TextAnalysis.startsWithWord(chars, words: words) else { return nil }
        let opening = Opening(chars: chars, words: words)
        guard let end = opening.refusal() else { return nil }
        let text = String(chars[words[0].range.lowerBound..<words[end].range.upperBound])
        return text.count > 60 ? String(text.prefix(59)) + "\u{2026}" : text
    }

    /// The first words of an answer, and the refusal rules over them.
    struct Opening {
        let chars: [Character]
        let words: ArraySlice<TextAnalysis.Word>
        let folded: [String]

        init(chars: [Character], words: ArraySlice<TextAnalysis.Word>) {
            self.chars = chars
            self.words = words
            self.folded = words.map(LanguagePhrases.folded)
        }

        /// The index of the refusal's last word, the refusal opening the text.
        func refusal() -> Int? {
            if let end = refusal(from: 0) { return end }
            if let next = sentenceAfterApology(), let end = refusal(from: next) { return end }
            guard RefusalPhrases.all.contains(where: { $0.clauseOpeners.contains { matches($0, at: 0) } })
            else { return nil }
            for start in 1..<min(folded.count, openingWords) {
                if endsSentence(separator(after: start - 1)) { break }
                if let end = refusal(from: start) { return end }
            }
            return nil
        }

        /// The index of the last word of a refusal at `start`, after any lead-ins.
        func refusal(from start: Int) -> Int? {
            // Most positions start no refusal: pass them over by their first word.
            guard start < folded.count, RefusalScorer.openingFirstWords.contains(folded[start]) else { return nil }
            var position = start
            var passedLeadIn = true
            while passedLeadIn {
                passedLeadIn = false
                for leadIn in RefusalPhrases.all.lazy.flatMap(\.leadIns) where matches(leadIn, at: position) {
                    let next = position + leadIn.count
                    guard next < folded.count, separatorAllowsLeadIn(separator(after: next - 1)) else { return nil }
                    position = next
                    passedLeadIn = true
                    break
                }
            }
            for table in RefusalPhrases.all {
                for opener in table.refusingOpeners where matches(opener, at: position) {
                    return position + opener.count - 1
                }
            }
            for table in RefusalPhrases.all {
                for inability in table.inabilities where matches(inability, at: position) {
                    let last = position + inability.count - 1
                    if let end = action(after: last, in: table, refusalStart: position) {
                        return end
                    }
                    // A bare inability ends its sentence: "I'm sorry, I can't."
                    if table.negations.isEmpty, last + 1 == folded.count || endsSentence(separator(after: last)) {
                        return last
                    }
                }
            }
            return nil
        }

        /// The index of the action that follows the inability ending at `last`, if any.
        private func action(after last: Int, in table: RefusalPhrases, refusalStart: Int) -> Int? {
            var first = last + 1
            if first < folded.count, table.adverbs.contains(folded[first]), adjacent(first - 1) { first += 1 }
            for candidate in first..<min(folded.count, first + table.gap + 1) {
                let between = separator(after: candidate - 1)
                // Spaces, and in a gap commas and markdown or identifiers' marks ("**camera.garten_sd**").
                let identifier = !between.contains(where: TextAnalysis.isSpace) && between.allSatisfy { "._-".contains($0) }
                guard identifier || between.allSatisfy({ TextAnalysis.isSpace($0) || (table.gap > 0 && ",*_`".contains($0)) })
                else {
                    return nil
                }
                guard isAction(folded[candidate], in: table) else { continue }
                if !table.negations.isEmpty, !folded[refusalStart...candidate].contains(where: table.negations.contains) {
                    return nil
                }
                return candidate
            }
            return nil
        }

        private func isAction(_ word: String, in table: RefusalPhrases) -> Bool {
            guard table.actionsAreStems else { return table.actions.contains(word) }
            // An elided article or pronoun: "d'identifier", "l'aider".
            let chars = Array(word)
            let stem = chars.count > 2 && chars[1] == "'" ? String(chars[2...]) : word
            return table.actions.contains { stem.hasPrefix($0) }
        }

        /// The first word of the sentence after an opening apology sentence of at most
        /// ``RefusalScorer/openingWords`` words ("Sorry about that. I can't…").
        private func sentenceAfterApology() -> Int? {
            guard let apology = RefusalPhrases.all.lazy.flatMap(\.apologies).first(where: { matches($0, at: 0) })
            else { return nil }
            for k in (apology.count - 1)..<min(folded.count - 1, openingWords) {
                let between = separator(after: k)
                guard separatorAllowsLeadIn(between) else { return nil }
                if between.contains(where: { $0 == "." || $0 == "!" }) { return k + 1 }
            }
            return nil
        }

        /// Whether the words from `position` spell `pattern`, with only spaces between them.
        func matches(_ pattern: [String], at position: Int) -> Bool {
            guard position + pattern.count <= folded.count else { return false }
            for (k, word) in pattern.enumerated() {
                guard folded[position + k] == word else { return false }
                if k > 0, !adjacent(position + k - 1) { return false }
            }
            return true
        }

        private func separator(after i: Int) -> ArraySlice<Character> {
            chars[words[i].range.upperBound..<words[i + 1].range.lowerBound]
        }

        private func adjacent(_ i: Int) -> Bool { separator(after: i).allSatisfy(TextAnalysis.isSpace) }

        private func endsSentence(_ separator: ArraySlice<Character>) -> Bool {
            separator.contains { TextAnalysis.isSentenceTerminator($0) || TextAnalysis.isNewline($0) || $0 == ";" || $0 == ":" }
        }

        /// Between a lead-in and what follows: spaces and , . ! ; : or dashes, never a quote.
        private func separatorAllowsLeadIn(_ separator: ArraySlice<Character>) -> Bool {
            separator.allSatisfy { c in
                c.isWhitespace || c == "," || c == "." || c == "!" || c == ";" || c == ":" || c == "*" || c == "_"
                    || TextAnalysis.isDash(c)
            }
        }
    }
}
