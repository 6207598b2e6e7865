/// Grades how close the answer comes to the item's human references: the content half of
/// `quality` needs a reading of "says what the people who looked at the image said" that a
/// fluent but wrong sentence cannot win, that a correct paraphrase by another author does
/// win, and that keeps ranking answers as people do instead of saturating at 1.
///
/// Both sides are reduced to content words: ``TermMatching/words(in:splitHashtags:)``, a
/// French elided article dropped ("l'eau" → "eau"), the words of a small stop-word table for
/// English, French, German and Spanish (articles, common prepositions, conjunctions, copulas)
/// left out, the rest stemmed by ``TermMatching/stem(_:)``. Each side is a multiset of stems.
///
/// Against one reference, with P the share of the answer's stems the reference holds and R
/// the share of the reference's stems the answer holds (each stem counted at most as often as
/// the rarer side has it), the agreement is METEOR's recall-weighted harmonic mean
/// F = P·R / (0.9·P + 0.1·R): a description is judged first on what of the image it covers.
/// The raw score is the mean of F over the usable references (each person saw something
/// else: the mean rewards what several of them named), and the value is 1 − (1 − raw)³, a
/// fixed monotone curve that puts a correct description near the top without capping it:
/// only an answer whose stems equal every reference's reads 1.0.
///
/// Measured on THumB 1.0 (2,500 COCO captions by four systems and people, each rated by
/// people): Kendall τc against the human ratings 0.17, against CIDEr-D's 0.136 and METEOR's
/// 0.143 (`altbench-bench calibration`, docs/scoring.md). The previous rule (the best F1 over
/// references divided by the references' own agreement, capped at 1) read exactly 1.0 for 69%
/// of those captions and reached 0.09; dividing by an item's agreement also ranked items by
/// how alike their references are, which people's ratings do not follow.
///
/// A reference with no content word ("", "A.") is not used; with none left there is no
/// score. `value` 0...1, `passed` nil (graded), the detail names the reference matched best
/// as "best: reference 2" (its position in the item's `references`).
public struct ReferenceMatchScorer: Scorer {
    public init() {}

    /// METEOR's weight of precision in the harmonic mean (recall weighs 1 − α).
    static let alpha = 0.9

    public func score(_ input: ScoringInput) -> [Score] {
        // The run's corpus holds each item's references prepared once; an item outside it
        // (an answer scored alone) is prepared here, by the same function.
        guard let references = input.corpus?.referenceMatch(of: input.item) ?? Self.prepare(input.item.references)
        else { return [] }
        let answer = Self.bag(words: input.terms.words, stems: input.terms.stems)
        var total = 0.0
        var best = 0.0
        var bestPosition = references.bags[0].position
        for reference in references.bags {
            let f = Self.fMean(answer, reference.bag)
            total += f
            if f > best { (best, bestPosition) = (f, reference.position) }
        }
        let raw = total / Double(references.bags.count)
        return [
            Score(
                name: ScoreName.referenceMatch, value: Self.curve(raw), passed: nil,
                detail: best > 0 ? "best: reference \(bestPosition)" : "no content word in common with a reference")
        ]
    }

    /// The fixed curve from the mean agreement to the score: 1 − (1 − raw)³.
    static func curve(_ raw: Double) -> Double {
        let rest = 1 - min(max(raw, 0), 1)
        return 1 - rest * rest * rest
    }

    /// An item's usable references as bags of content-word stems.
    public struct Prepared: Sendable, Hashable {
        /// Each usable reference's bag and its 1-based position among the item's references.
        var bags: [(position: Int, bag: Bag)]

        public static func == (lhs: Prepared, rhs: Prepared) -> Bool {
            lhs.bags.map(\.position) == rhs.bags.map(\.position) && lhs.bags.map(\.bag) == rhs.bags.map(\.bag)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(bags.map(\.position))
        }
    }

    /// `references` prepared for scoring; `nil` when none has a content word.
    public static func prepare(_ references: [String]) -> Prepared? {
        let bags = references.enumerated().map { (position: $0.offset + 1, bag: bag($0.element)) }.filter { !$0.bag.isEmpty }
        guard !bags.isEmpty else { return nil }
        return Prepared(bags: bags)
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
            guard !StopWords.all.contains(content) else { continue }
            bag.add(content == word ? stem : TermMatching.stem(content))
        }
        return bag
    }

    /// The stems two bags share, each counted at most as often as the rarer side holds it.
    static func shared(_ a: Bag, _ b: Bag) -> Int {
        var shared = 0
        for (stem, count) in a.counts { shared += min(count, b.counts[stem] ?? 0) }
        return shared
    }

    /// METEOR's recall-weighted harmonic mean of the answer's precision and recall against
    /// one reference: P·R / (α·P + (1 − α)·R).
    static func fMean(_ answer: Bag, _ reference: Bag) -> Double {
        guard answer.size > 0, reference.size > 0 else { return 0 }
        let common = Double(shared(answer, reference))
        guard common > 0 else { return 0 }
        let precision = common / Double(answer.size)
        let recall = common / Double(reference.size)
        return precision * recall / (alpha * precision + (1 - alpha) * recall)
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
}
