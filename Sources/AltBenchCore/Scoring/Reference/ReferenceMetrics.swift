import Foundation

/// BLEU-1...4, ROUGE-L and CIDEr-D of a set of answers against a run's human references,
/// computed as pycocoevalcap 1.2's `compute_score` functions compute them for a whole run.
///
/// Every answer is one "image" of pycocoevalcap: BLEU sums its counts over all answers
/// (``BLEU``), ROUGE-L and CIDEr-D average the per-answer scores (numpy's pairwise mean, to
/// the last bit). CIDEr-D's document frequencies and `ref_len` always come from the corpus,
/// never from the answers scored, so every model and prompt of a run is weighed with the same
/// idf; when the answers cover each item of the corpus exactly once, that is exactly
/// pycocoevalcap's figure. Answers whose item has no references are skipped and counted. An
/// answer with no tokens is scored as pycocoevalcap scores an empty caption: 0 on all three
/// (its ROUGE-L splits it into one empty token, which only an empty reference matches).
///
/// Texts are tokenized with ``CaptionTokenizer`` (pycocoevalcap's PTB tokenizer); the
/// `tokenized` entry points take the tokens as given, for comparing with pycocoevalcap on
/// identical tokens.
public enum ReferenceMetrics {
    /// The scores of one answer against its own item's references.
    public struct ItemScores: Sendable, Hashable {
        public var itemID: String
        /// BLEU-1...4 of this answer alone: pycocoevalcap's per-image BLEU list.
        public var bleu: [Double]
        public var rougeL: Double
        public var ciderD: Double
        /// The answer's BLEU counts, which the corpus BLEU adds up.
        public var counts: BLEU.Counts

        public var bleu4: Double { bleu[3] }
    }

    /// Corpus figures and the scores of each answer.
    public struct Result: Sendable, Hashable {
        /// Corpus BLEU-1...4 (pycocoevalcap's `Bleu(4)` score).
        public var bleu: [Double]
        /// Mean ROUGE-L F (β = 1.2).
        public var rougeL: Double
        /// Mean CIDEr-D (σ = 6).
        public var ciderD: Double
        /// One entry per scored answer, in input order.
        public var items: [ItemScores]
        /// Answers left out because their item has no references in the corpus.
        public var skipped: Int

        /// Corpus BLEU-4.
        public var bleu4: Double { bleu[3] }
        /// Answers scored.
        public var count: Int { items.count }
    }

    /// Scores `answers` (item id and answer text) against `corpus`; `nil` when no answer's item
    /// has references.
    public static func score(_ answers: [(itemID: String, text: String)], corpus: ReferenceCorpus) -> Result? {
        score(tokenized: answers.map { ($0.itemID, CaptionTokenizer.tokenize($0.text)) }, corpus: corpus)
    }

    /// Scores answers already split into tokens; `nil` when no answer's item has references.
    public static func score(
        tokenized answers: [(itemID: String, tokens: [String])], corpus: ReferenceCorpus
    ) -> Result? {
        var items: [ItemScores] = []
        items.reserveCapacity(answers.count)
        var skipped = 0
        for answer in answers {
            guard let i = corpus.index[answer.itemID] else {
                skipped += 1
                continue
            }
            let entry = corpus.entries[i]
            let candidate = CandidateNGrams(answer.tokens, corpus: corpus)
            let counts = BLEU.counts(candidate, entry: entry)
            items.append(
                ItemScores(
                    itemID: answer.itemID, bleu: BLEU.sentenceScores(counts),
                    rougeL: RougeL.score(candidate, entry: entry),
                    ciderD: CiderD.score(candidate, entry: entry, corpus: corpus), counts: counts))
        }
        guard !items.isEmpty else { return nil }
        return Result(
            bleu: BLEU.corpusScores(items.map(\.counts)), rougeL: numpyMean(items.map(\.rougeL)),
            ciderD: numpyMean(items.map(\.ciderD)), items: items, skipped: skipped)
    }

    /// pycocoevalcap's whole evaluation on tokens: `candidates[i]` against `references[i]`,
    /// with CIDEr-D's idf over these references alone; `nil` when there is nothing to score.
    public static func evaluate(candidates: [[String]], references: [[[String]]]) -> Result? {
        precondition(candidates.count == references.count, "one candidate per image")
        let ids = candidates.indices.map(String.init)
        let corpus = ReferenceCorpus(tokenizedItems: Array(zip(ids, references)).map { (id: $0.0, references: $0.1) })
        return score(tokenized: Array(zip(ids, candidates)).map { (itemID: $0.0, tokens: $0.1) }, corpus: corpus)
    }

    /// Mean CIDEr-D of `answers` against `corpus` alone (the costliest metric, for benchmarks);
    /// `nil` when no answer's item has references.
    public static func ciderD(_ answers: [(itemID: String, text: String)], corpus: ReferenceCorpus) -> Double? {
        var scores: [Double] = []
        scores.reserveCapacity(answers.count)
        for answer in answers {
            guard let i = corpus.index[answer.itemID] else { continue }
            let candidate = CandidateNGrams(CaptionTokenizer.tokenize(answer.text), corpus: corpus)
            scores.append(CiderD.score(candidate, entry: corpus.entries[i], corpus: corpus))
        }
        return scores.isEmpty ? nil : numpyMean(scores)
    }

    /// `np.mean` of `values` to the last bit: numpy's pairwise summation (blocks of 8
    /// accumulators up to 128 values, halves above), from 0, divided by the count.
    static func numpyMean(_ values: [Double]) -> Double {
        values.withUnsafeBufferPointer { (0.0 + pairwiseSum($0[...])) / Double($0.count) }
    }

    private static func pairwiseSum(_ a: Slice<UnsafeBufferPointer<Double>>) -> Double {
        let n = a.count, lo = a.startIndex
        if n < 8 {
            var res = 0.0
            for i in a.indices { res += a[i] }
            return res
        } else if n <= 128 {
            var r = (0..<8).map { a[lo + $0] }
            var i = 8
            while i < n - n % 8 {
                for j in 0..<8 { r[j] += a[lo + i + j] }
                i += 8
            }
            var res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
            while i < n {
                res += a[lo + i]
                i += 1
            }
            return res
        } else {
            var n2 = n / 2
            n2 -= n2 % 8
            return pairwiseSum(a[lo..<(lo + n2)]) + pairwiseSum(a[(lo + n2)...])
        }
    }

    // MARK: - Benchmarking

    /// A synthetic run for timing the reference metrics: `count` items with
    /// `referencesPerItem` captions of about `wordsPerCaption` words each, drawn
    /// deterministically from a vocabulary of common description words, and one answer per
    /// item. Score it with `ReferenceCorpus(items:)` and ``ciderD(_:corpus:)`` or
    /// ``score(_:corpus:)``.
    public static func benchmarkRun(
        items count: Int, referencesPerItem: Int = 5, wordsPerCaption: Int = 12, seed: UInt64 = 1
    ) -> (items: [ScoringItem], answers: [(itemID: String, text: String)]) {
        var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let words = benchmarkWords
        func caption() -> String {
            let length = max(3, wordsPerCaption - 3 + next(7))
            var parts: [String] = []
            for k in 0..<length {
                var word = words[min(next(words.count), next(words.count))]  // skewed to common words
                if k == 0 { word = word.prefix(1).uppercased() + word.dropFirst() }
                parts.append(word)
            }
            return parts.joined(separator: " ") + (next(4) == 0 ? ", with a view." : ".")
        }
        var items: [ScoringItem] = []
        var answers: [(itemID: String, text: String)] = []
        for i in 0..<count {
            let id = "item-\(i)"
            items.append(ScoringItem(id: id, references: (0..<referencesPerItem).map { _ in caption() }))
            answers.append((id, caption()))
        }
        return (items, answers)
    }

    static let benchmarkWords: [String] = """
        a the of in on with and at to an is are two its from by near under over behind front \
        man woman person people child dog cat bird horse car bus train street road building \
        house tree trees grass field sky water lake river beach sea mountain snow table chair \
        sofa window door wall floor room kitchen plate cup coffee food pizza sign text logo \
        shirt hat red blue green white black yellow brown grey small large old young sitting \
        standing walking holding wearing looking smiling playing lying top side background \
        close-up photo view light sun cloud clouds city park bench bike boat phone book paper \
        screen computer desk lamp flower flowers garden fence path stone rock wooden metal glass
        """.split(separator: " ").map(String.init)
}

/// A candidate's tokens and n-grams, keyed for lookup in a corpus: ids the corpus knows are
/// `>= 0` (token and n-gram ids), anything else gets a negative id of its own, so that equal
/// unknown n-grams still count together.
struct CandidateNGrams {
    /// Token keys, for ROUGE-L.
    var tokens: [Int64]
    /// Unique n-grams in pycocoevalcap's order: all unigrams by first position, then bigrams, ...
    var grams: [Int64]
    var counts: [Int32]
    /// Where each order's n-grams end in `grams`.
    var orderEnds: (Int, Int, Int, Int)

    var length: Int { tokens.count }
    /// pycocoevalcap's CIDEr-D length: the number of bigrams.
    var bigramCount: Int { max(0, tokens.count - 1) }

    func orderRange(_ order: Int) -> Range<Int> {
        switch order {
        case 0: 0..<orderEnds.0
        case 1: orderEnds.0..<orderEnds.1
        case 2: orderEnds.1..<orderEnds.2
        default: orderEnds.2..<orderEnds.3
        }
    }

    init(_ words: [String], corpus: ReferenceCorpus) {
        var nextLocal: Int64 = -1
        var unknownWords: [(String, Int64)] = []
        var keys: [Int64] = []
        keys.reserveCapacity(words.count)
        for word in words {
            if let id = corpus.vocabulary[word] {
                keys.append(Int64(id))
            } else if let known = unknownWords.first(where: { $0.0 == word }) {
                keys.append(known.1)
            } else {
                unknownWords.append((word, nextLocal))
                keys.append(nextLocal)
                nextLocal -= 1
            }
        }
        tokens = keys
        let n = keys.count
        var grams: [Int64] = []
        var counts: [Int32] = []
        grams.reserveCapacity(4 * n)
        counts.reserveCapacity(4 * n)
        var ends = [0, 0, 0, 0]
        // Unknown n-grams, keyed by the 32-bit halves of their prefix and last token keys
        // (known ids are below 2^31 and unknown ones small negatives, so the key is unique),
        // in a small open-addressing table sized for every n-gram of the candidate.
        var tableSize = 16
        while tableSize < 8 * n { tableSize <<= 1 }
        let tableShift = UInt64(64 - tableSize.trailingZeroBitCount)
        var pairKeys = [UInt64](repeating: .max, count: n > 1 ? tableSize : 0)
        var pairValues = [Int64](repeating: 0, count: n > 1 ? tableSize : 0)
        var previous = keys
        let useIndex = n > 48
        var seen: [Int64: Int] = [:]
        ngrams: for order in 0..<4 {
            if order > 0 {
                guard n > order else {
                    for o in order..<4 { ends[o] = grams.count }
                    break ngrams
                }
                for p in 0..<(n - order) {
                    let a = previous[p], b = keys[p + order]
                    if a >= 0, b >= 0, let id = corpus.ngramIDs[UInt64(a) << 32 | UInt64(b)] {
                        previous[p] = Int64(id)
                        continue
                    }
                    let pair = UInt64(UInt32(truncatingIfNeeded: a)) << 32 | UInt64(UInt32(truncatingIfNeeded: b))
                    var slot = Int(truncatingIfNeeded: (pair &* 0x9E37_79B9_7F4A_7C15) >> tableShift)
                    while pairKeys[slot] != pair && pairKeys[slot] != .max { slot = (slot + 1) & (tableSize - 1) }
                    if pairKeys[slot] == pair {
                        previous[p] = pairValues[slot]
                    } else {
                        pairKeys[slot] = pair
                        pairValues[slot] = nextLocal
                        previous[p] = nextLocal
                        nextLocal -= 1
                    }
                }
                previous.removeLast()
            }
            let start = grams.count
            if useIndex {
                for key in previous {
                    if let k = seen[key] {
                        counts[k] += 1
                    } else {
                        seen[key] = grams.count
                        grams.append(key)
                        counts.append(1)
                    }
                }
            } else {
                for key in previous {
                    var k = start
                    while k < grams.count, grams[k] != key { k += 1 }
                    if k < grams.count {
                        counts[k] += 1
                    } else {
                        grams.append(key)
                        counts.append(1)
                    }
                }
            }
            ends[order] = grams.count
        }
        self.grams = grams
        self.counts = counts
        orderEnds = (ends[0], ends[1], ends[2], ends[3])
    }

    /// For each candidate n-gram found in any reference of `entry`, its index in `grams` and
    /// in the entry's n-gram list; the others match no reference.
    func matches(in entry: ReferenceCorpus.Entry) -> [(gram: Int, union: Int)] {
        var result: [(gram: Int, union: Int)] = []
        for (k, key) in grams.enumerated() where key >= 0 {
            if let m = ReferenceCorpus.position(of: Int32(key), in: entry.maxCountIDs) { result.append((k, m)) }
        }
        return result
    }
}

// MARK: - Per-answer scoring

extension ReferenceMetrics {
    /// What a per-answer reference scorer compares: the answer's n-grams and the references
    /// of its item, in the run's corpus when that holds the item, otherwise in a corpus of
    /// this item alone (where CIDEr-D is 0 by definition). `nil` when the item has no
    /// references, so the scorer writes no score.
    static func prepare(
        _ input: ScoringInput
    ) -> (candidate: CandidateNGrams, entry: ReferenceCorpus.Entry, corpus: ReferenceCorpus)? {
        // The three per-answer scorers share one tokenization of the answer.
        input.referenceCandidate.value { uncachedPrepare(input) }
    }

    static func uncachedPrepare(
        _ input: ScoringInput
    ) -> (candidate: CandidateNGrams, entry: ReferenceCorpus.Entry, corpus: ReferenceCorpus)? {
        let corpus: ReferenceCorpus
        if let run = input.corpus, run.contains(input.item.id) {
            corpus = run
        } else {
            guard input.item.references.contains(where: { !ReferenceCorpus.isBlank($0) }) else { return nil }
            corpus = ReferenceCorpus(items: [input.item])
        }
        guard let i = corpus.index[input.item.id] else { return nil }
        return (CandidateNGrams(CaptionTokenizer.tokenize(input.text), corpus: corpus), corpus.entries[i], corpus)
    }
}
