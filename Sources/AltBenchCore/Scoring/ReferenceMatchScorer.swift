/// Grades how close the answer comes to the item's human references, fairly to a short
/// paraphrase: the content half of `quality` needs a reading of "says what the people who
/// looked at the image said" that a fluent but wrong sentence cannot win.
///
/// Both sides are reduced to content words: ``TermMatching/words(in:splitHashtags:)``, a
/// French elided article dropped ("l'eau" → "eau"), the words of a small stop-word table for
/// the sample's languages (English, French, German, Spanish: articles, common prepositions,
/// conjunctions and copulas) left out, the rest stemmed by ``TermMatching/stem(_:)``. Each
/// side is a multiset of stems.
///
/// The answer's agreement with one reference is their F1 over those multisets (shared stems
/// against the sizes of both); the answer's raw score is its best F1 against any single
/// reference, so a short answer meets the short reference rather than being held to the full
/// one. The raw score is then divided by the item's own inter-reference agreement (the mean,
/// over its references, of each one's best F1 against the others) and capped at 1: an answer
/// as close to the references as they are to one another reads 1.0. Humans describing one
/// image share only part of their words: on the sample, the references' agreement is 0.55 on
/// average (0.34 for `summer-palace` to 0.71), so an undivided F1 would hold a correct
/// description near 0.55 whatever its quality, and make the figure mean different things on
/// different items.
///
/// With one usable reference there is nothing to normalise by, and the raw F1 is the value;
/// so it is when the references share no content word. A reference with no content word
/// ("", "A.") is not used. `value` 0...1, `passed` nil (graded), the detail names the
/// reference matched best as "best: reference 2" (its position in the item's `references`).
/// No score when the item has no usable reference.
///
/// Why not BLEU-4, ROUGE-L or CIDEr-D: they count every word (articles included) or n-grams
/// in order, so a correct paraphrase in other words scores little above a wrong sentence.
/// Measured on the sample, each reference scored against the item's other references gets
/// ROUGE-L 0.49 and BLEU-4 0.19 on average, while a wrong sentence given for every image
/// ("A cat sits on a sofa by the window.") gets ROUGE-L 0.12–0.15 and BLEU-4 0; this score
/// gives the references 0.94 (raw F1 0.55) and the wrong sentences 0.03–0.06. Bags of stems
/// give word order no weight and keep inflections together.
public struct ReferenceMatchScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        // The run's corpus holds each item's references prepared once; an item outside it
        // (an answer scored alone) is prepared here, by the same function.
        guard let references = input.corpus?.referenceMatch(of: input.item) ?? Self.prepare(input.item.references)
        else { return [] }
        let answer = Self.bag(words: input.terms.words, stems: input.terms.stems)
        var best = 0.0
        var bestPosition = references.bags[0].position
        for reference in references.bags {
            let f = Self.f1(answer, reference.bag)
            if f > best { (best, bestPosition) = (f, reference.position) }
        }
        let value = references.agreement > 0 ? min(1, best / references.agreement) : best
        return [
            Score(
                name: ScoreName.referenceMatch, value: value, passed: nil,
                detail: best > 0 ? "best: reference \(bestPosition)" : "no content word in common with a reference")
        ]
    }

    /// An item's usable references as bags of content-word stems, with their agreement.
    public struct Prepared: Sendable, Hashable {
        /// Each usable reference's bag and its 1-based position among the item's references.
        var bags: [(position: Int, bag: Bag)]
        /// The references' inter-reference agreement (0 with fewer than two).
        var agreement: Double

        public static func == (lhs: Prepared, rhs: Prepared) -> Bool {
            lhs.agreement == rhs.agreement && lhs.bags.map(\.position) == rhs.bags.map(\.position)
                && lhs.bags.map(\.bag) == rhs.bags.map(\.bag)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(agreement)
            hasher.combine(bags.map(\.position))
        }
    }

    /// `references` prepared for scoring; `nil` when none has a content word.
    public static func prepare(_ references: [String]) -> Prepared? {
        let bags = references.enumerated().map { (position: $0.offset + 1, bag: bag($0.element)) }.filter { !$0.bag.isEmpty }
        guard !bags.isEmpty else { return nil }
        return Prepared(bags: bags, agreement: agreement(bags.map(\.bag)))
    }

    /// The mean, over `references`, of each one's best F1 against the others; 0 with fewer
    /// than two.
    static func agreement(_ references: [Bag]) -> Double {
        guard references.count > 1 else { return 0 }
        var total = 0.0
        for (i, reference) in references.enumerated() {
            var best = 0.0
            for (j, other) in references.enumerated() where j != i { best = max(best, f1(reference, other)) }
            total += best
        }
        return total / Double(references.count)
    }

    /// A multiset of content-word stems: how often each occurs, and how many there are.
    struct Bag: Hashable {
        var counts: [String: Int] = [:]
        var size = 0

        mutating func add(_ stem: String) {
            counts[stem, default: 0] += 1
            size += 1
        }

        var isEmpty: Bool { size == 0 }
    }

    /// The content-word stems of `text`, as a multiset.
    static func bag(_ text: String) -> Bag {
        let words = TermMatching.words(in: text)
        return bag(words: words, stems: words.map(TermMatching.stem))
    }

    /// The content-word stems of `words` (with their `stems`), as a multiset: a word without
    /// its elided article is stemmed again.
    static func bag(words: [String], stems: [String]) -> Bag {
        var bag = Bag()
        for (word, stem) in zip(words, stems) {
            let content = dropElision(word)
            guard !stopWords.contains(content) else { continue }
            bag.add(content == word ? stem : TermMatching.stem(content))
        }
        return bag
    }

    /// F1 of the stems two bags share, each stem counted at most as often as the rarer side
    /// holds it.
    static func f1(_ a: Bag, _ b: Bag) -> Double {
        guard a.size > 0, b.size > 0 else { return 0 }
        var shared = 0
        for (stem, count) in a.counts { shared += min(count, b.counts[stem] ?? 0) }
        return 2 * Double(shared) / Double(a.size + b.size)
    }

    /// `word` without a French elided article or pronoun ("l'eau" → "eau", "d'un" → "un",
    /// "qu'il" → "il").
    static func dropElision(_ word: String) -> String {
        guard let apostrophe = word.firstIndex(of: "'") else { return word }
        let head = word[..<apostrophe]
        guard elisions.contains(String(head)), word.index(after: apostrophe) < word.endIndex else { return word }
        return String(word[word.index(after: apostrophe)...])
    }

    static let elisions: Set<String> = ["l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu"]

    /// Words that carry no content in the sample's languages: articles, common prepositions,
    /// conjunctions, pronouns and copulas. Kept small on purpose: a word left out here costs
    /// only a little precision on both sides alike.
    static let stopWords: Set<String> = [
        // English
        "a", "an", "the", "and", "or", "but", "of", "on", "in", "at", "to", "by", "for", "from", "with",
        "into", "onto", "over", "under", "its", "it", "it's", "is", "are", "was", "were", "be", "been", "has",
        "have", "this", "that", "these", "those", "there", "their", "his", "her", "they", "them", "as", "which",
        "who", "while", "than", "so",
        // French
        "le", "la", "les", "un", "une", "des", "du", "de", "et", "ou", "à", "au", "aux", "en", "sur", "dans",
        "avec", "par", "pour", "est", "sont", "son", "sa", "ses", "qui", "que", "ce", "cette", "il", "elle",
        // German (and "an", "des" above)
        "der", "die", "das", "den", "dem", "ein", "eine", "einen", "einem", "einer", "eines", "und",
        "oder", "mit", "auf", "im", "am", "von", "vom", "zu", "zum", "zur", "ist", "sind", "sich",
        // Spanish (and "de", "en", "la", "que", "son" above)
        "el", "los", "las", "una", "unos", "unas", "y", "o", "del", "con", "por", "para", "al", "es", "su", "sus", "se", "lo",
    ]
}
