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
            let candidate = CandidateNGrams(answer.tokens, corpus: corpus, entry: entry)
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
            let entry = corpus.entries[i]
            let candidate = CandidateNGrams(text: answer.text, corpus: corpus, entry: entry)
            scores.append(CiderD.score(candidate, entry: entry, corpus: corpus))
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

/// A candidate's n-grams as the metrics read them, in buffers: unique n-grams in
/// pycocoevalcap's order (all unigrams by first position, then bigrams, ...), each with its
/// count and its index in the union of the item scored (`entry`); and for each token, the
/// index of its unigram.
struct NGramView {
    let grams: UnsafeBufferPointer<CandidateNGrams.Gram>
    let tokenGrams: UnsafeBufferPointer<Int32>
    /// Where each order's n-grams end in `grams`.
    let orderEnds: (Int, Int, Int, Int)
    /// For each union index of `entry`, the index in `grams` of that n-gram, -1 when the
    /// candidate lacks it (at least for the unigrams).
    let unionGrams: UnsafeBufferPointer<Int32>
    /// Space for CIDEr-D's weights and sums (``CiderD/scratchSize(_:references:)``), when
    /// the view comes with it.
    var scratch: UnsafeMutablePointer<Double>? = nil

    /// The number of tokens.
    var length: Int { tokenGrams.count }
    /// pycocoevalcap's CIDEr-D length: the number of bigrams.
    var bigramCount: Int { max(0, length - 1) }

    func orderRange(_ order: Int) -> Range<Int> {
        switch order {
        case 0: 0..<orderEnds.0
        case 1: orderEnds.0..<orderEnds.1
        case 2: orderEnds.1..<orderEnds.2
        default: orderEnds.2..<orderEnds.3
        }
    }
}

/// A candidate's tokens and n-grams, keyed for lookup in a corpus: ids the corpus knows are
/// `>= 0` (token and n-gram ids), anything else gets a negative id of its own, so that equal
/// unknown n-grams still count together. Built for one item (`entry`), each n-gram also
/// carries its index in the item's n-gram union, which the three metrics look up.
struct CandidateNGrams {
    struct Gram {
        var key: Int64
        var count: Int32
        /// The index in `entry.unionIDs`, or -1 when no reference of `entry` holds the n-gram.
        var union: Int32
    }

    /// The arrays, in one object, so that a copy of the candidate retains one reference.
    final class Storage: Sendable {
        let grams: [Gram]
        let tokenGrams: [Int32]
        let entry: ReferenceCorpus.Entry?

        init(grams: [Gram], tokenGrams: [Int32], entry: ReferenceCorpus.Entry?) {
            self.grams = grams
            self.tokenGrams = tokenGrams
            self.entry = entry
        }
    }

    let storage: Storage
    /// Unique n-grams in pycocoevalcap's order: all unigrams by first position, then bigrams, ...
    var grams: [Gram] { storage.grams }
    /// For each token, the index in `grams` of its unigram.
    var tokenGrams: [Int32] { storage.tokenGrams }
    /// The item whose union indices `grams` hold; `nil` leaves them all -1, and the metrics
    /// look them up in the entry they are given.
    var entry: ReferenceCorpus.Entry? { storage.entry }
    /// Where each order's n-grams end in `grams`.
    let orderEnds: (Int, Int, Int, Int)
    /// The number of tokens.
    let length: Int
    /// The answer's BLEU-4, ROUGE-L and CIDEr-D against its item, when worked out together
    /// with the n-grams (``ReferenceMetrics/prepare(_:)``, which keeps only these), so that
    /// the three scorers share them.
    var figures: (bleu4: Double, rougeL: Double, ciderD: Double)?

    /// Calls `body` with the n-grams as `entry`'s metrics read them: as stored when the
    /// candidate was built for `entry`, otherwise with the union indices looked up there.
    func withView<Result>(for entry: ReferenceCorpus.Entry, _ body: (NGramView) -> Result) -> Result {
        storage.tokenGrams.withUnsafeBufferPointer { tokenGrams in
            let grams = storage.entry === entry
                ? storage.grams : storage.grams.map { Gram(key: $0.key, count: $0.count, union: entry.union(of: $0.key)) }
            var unionGrams = [Int32](repeating: -1, count: entry.unionIDs.count)
            for (k, gram) in grams.enumerated() where gram.union >= 0 { unionGrams[Int(gram.union)] = Int32(k) }
            return grams.withUnsafeBufferPointer { grams in
                unionGrams.withUnsafeBufferPointer { unionGrams in
                    body(NGramView(grams: grams, tokenGrams: tokenGrams, orderEnds: orderEnds, unionGrams: unionGrams))
                }
            }
        }
    }

    /// A candidate of `length` tokens reduced to its three figures, without n-grams.
    init(length: Int, figures: (bleu4: Double, rougeL: Double, ciderD: Double)?) {
        storage = Self.noNGrams
        orderEnds = (0, 0, 0, 0)
        self.length = length
        self.figures = figures
    }

    private static let noNGrams = Storage(grams: [], tokenGrams: [], entry: nil)

    /// The n-grams of `words` against `corpus`, with union indices in `entry` when given.
    init(_ words: [String], corpus: ReferenceCorpus, entry: ReferenceCorpus.Entry? = nil) {
        var keys = Keys()
        keys.keys.reserveCapacity(words.count)
        for word in words { keys.append(word, corpus: corpus) }
        self.init(keys: keys, corpus: corpus, entry: entry)
    }

    init(keys: Keys, corpus: ReferenceCorpus, entry: ReferenceCorpus.Entry?) {
        self = keys.keys.withUnsafeBufferPointer { buffer in
            CandidateNGrams(keys: buffer, nextLocal: keys.nextLocal, corpus: corpus, entry: entry)
        }
    }

    /// The n-grams of the tokens of `text` (``CaptionTokenizer``) against `corpus`: the same
    /// as `init(CaptionTokenizer.tokenize(text), ...)`, but the tokens are looked up as the
    /// tokenizer finds them, most without making a String.
    init(text: String, corpus: ReferenceCorpus, entry: ReferenceCorpus.Entry? = nil) {
        self = CaptionTokenizer.withKeys(text, corpus: corpus) { keys, nextLocal in
            CandidateNGrams(keys: keys, nextLocal: nextLocal, corpus: corpus, entry: entry)
        }
    }

    /// Calls `body` with the n-grams of the tokens of `text` for `entry`, as
    /// `CandidateNGrams(text:corpus:entry:)` makes them, but in temporary buffers.
    static func withNGrams<Result>(
        text: String, corpus: ReferenceCorpus, entry: ReferenceCorpus.Entry, _ body: (NGramView) -> Result
    ) -> Result {
        CaptionTokenizer.withKeys(text, corpus: corpus) { keys, nextLocal in
            withNGrams(keys: keys, nextLocal: nextLocal, corpus: corpus, entry: entry, body)
        }
    }

    /// Token keys as a candidate's tokens are looked up: corpus ids, or for tokens the corpus
    /// does not know -1, -2, ... by first occurrence, equal tokens (as Strings) sharing one.
    struct Keys {
        var keys: [Int32] = []
        var unknownWords: [(String, Int32)] = []
        var nextLocal: Int32 = -1

        mutating func append(_ word: String, corpus: ReferenceCorpus) {
            keys.append(key(word, corpus: corpus))
        }

        mutating func appendUnknown(_ word: String) {
            keys.append(unknownKey(word))
        }

        mutating func key(_ word: String, corpus: ReferenceCorpus) -> Int32 {
            if let id = corpus.vocabulary[word] { return id }
            return unknownKey(word)
        }

        mutating func unknownKey(_ word: String) -> Int32 {
            if let known = unknownWords.first(where: { $0.0 == word }) { return known.1 }
            unknownWords.append((word, nextLocal))
            nextLocal -= 1
            return nextLocal + 1
        }
    }

    /// The n-grams of the token keys `keys`, whose unknown tokens took the local keys down to
    /// `nextLocal + 1`.
    init(keys: UnsafeBufferPointer<Int32>, nextLocal: Int32, corpus: ReferenceCorpus, entry: ReferenceCorpus.Entry?) {
        length = keys.count
        let (grams, tokenGrams, orderEnds) = Self.withNGrams(
            keys: keys, nextLocal: nextLocal, corpus: corpus, entry: entry
        ) { view in
            (Array(view.grams), Array(view.tokenGrams), view.orderEnds)
        }
        self.orderEnds = orderEnds
        storage = Storage(grams: grams, tokenGrams: tokenGrams, entry: entry)
    }

    /// Calls `body` with the n-grams of the token keys `keys`, whose unknown tokens took the
    /// local keys down to `nextLocal + 1`, counted in temporary buffers.
    static func withNGrams<Result>(
        keys: UnsafeBufferPointer<Int32>, nextLocal: Int32, corpus: ReferenceCorpus, entry: ReferenceCorpus.Entry?,
        _ body: (NGramView) -> Result
    ) -> Result {
        let n = keys.count
        // Known n-grams no reference of `entry` holds are told apart by key in an
        // open-addressing table of keys and indices in `grams`, at most half full.
        var tableSize = 16
        while tableSize < 8 * n { tableSize <<= 1 }
        let unions = entry?.unionIDs.count ?? 0
        let locals = Int(-nextLocal) + 3 * n
        // One block for all the scratch space: 64-bit words, then n-grams, then 32-bit words.
        let wide = 4 * tableSize + n + 1 + CiderD.scratchSize(4 * n, references: entry?.references.count ?? 0)
        let narrow = 9 * n + unions + locals + 1, out = 4 * n + 1
        let bytes = 8 * wide + MemoryLayout<Gram>.stride * out + 4 * narrow
        return withUnsafeTemporaryAllocation(byteCount: bytes, alignment: 8) { block in
            let scratch = block.baseAddress!.bindMemory(to: Int64.self, capacity: wide)
            let grams = (block.baseAddress! + 8 * wide).bindMemory(to: Gram.self, capacity: out)
            let small = (block.baseAddress! + 8 * wide + MemoryLayout<Gram>.stride * out)
                .bindMemory(to: Int32.self, capacity: narrow)
            var builder = Builder(
                keys: keys, scratch: scratch, small: small, grams: grams, tableSize: tableSize, unions: unions,
                locals: locals, nextLocal: nextLocal, corpus: corpus, entry: entry)
            let (count, ends) = builder.run()
            return body(
                NGramView(
                    grams: UnsafeBufferPointer(start: grams, count: count),
                    tokenGrams: UnsafeBufferPointer(start: builder.tokenGrams, count: n), orderEnds: ends,
                    unionGrams: UnsafeBufferPointer(start: builder.unionGrams, count: unions),
                    scratch: UnsafeMutableRawPointer(builder.previous + n).assumingMemoryBound(to: Double.self)))
        }
    }

    /// Counts the n-grams of token keys into `grams`, with the scratch space it is given.
    private struct Builder {
        let keys: UnsafeBufferPointer<Int32>
        let n: Int
        let tableKeys: UnsafeMutablePointer<Int64>
        let tableIndices: UnsafeMutablePointer<Int64>
        /// The key of the n-gram of the current order at each position.
        let previous: UnsafeMutablePointer<Int64>
        /// For each token, the index in `grams` of its unigram.
        let tokenGrams: UnsafeMutablePointer<Int32>
        /// The union index in `entry` of the n-gram of each order (n = 1...4) at each
        /// position, -1 where no reference holds it: `(n − 1) × self.n + position`.
        let unionAt: UnsafeMutablePointer<Int32>
        /// The corpus id of the n-grams `unionAt` finds (n = 2...4, from `self.n` on).
        let idAt: UnsafeMutablePointer<Int32>
        /// The index in `grams` of each union n-gram of `entry` counted, -1 before (and after,
        /// for those the candidate lacks).
        let unionGrams: UnsafeMutablePointer<Int32>
        /// The index in `grams` of each unknown n-gram counted (local key -1 first), -1 before.
        let localGrams: UnsafeMutablePointer<Int32>
        let grams: UnsafeMutablePointer<Gram>
        let tableSize: Int
        let mask: Int
        let shift: UInt64
        var gramCount = 0
        var nextLocal: Int64
        let corpus: ReferenceCorpus
        let entry: ReferenceCorpus.Entry?
        /// Unknown n-grams, keyed by the 32-bit halves of their prefix and last token keys
        /// (known ids are below 2^31 and unknown ones small negatives, so the key is unique
        /// and its upper half never 2^31), in an open-addressing table of keys and local ids
        /// emptied on first use.
        let pairKeys: UnsafeMutablePointer<Int64>
        let pairValues: UnsafeMutablePointer<Int64>
        var pairsReady = false
        /// Whether `tableKeys` has been emptied, on first use.
        var tableReady = false

        init(
            keys: UnsafeBufferPointer<Int32>, scratch: UnsafeMutablePointer<Int64>, small: UnsafeMutablePointer<Int32>,
            grams: UnsafeMutablePointer<Gram>, tableSize: Int, unions: Int, locals: Int, nextLocal: Int32,
            corpus: ReferenceCorpus, entry: ReferenceCorpus.Entry?
        ) {
            self.keys = keys
            n = keys.count
            tableKeys = scratch
            tableIndices = scratch + tableSize
            pairKeys = tableIndices + tableSize
            pairValues = pairKeys + tableSize
            previous = pairValues + tableSize
            unionAt = small
            idAt = small + 4 * n
            tokenGrams = idAt + 4 * n
            unionGrams = tokenGrams + n
            localGrams = unionGrams + unions
            self.grams = grams
            self.tableSize = tableSize
            mask = tableSize - 1
            shift = UInt64(64 - tableSize.trailingZeroBitCount)
            self.nextLocal = Int64(nextLocal)
            self.corpus = corpus
            self.entry = entry
            small.initialize(repeating: -1, count: 9 * n + unions + locals)
        }

        /// Counts `key`, new or seen, and returns its index in `grams`; `union` is its index
        /// in `entry`'s union. Union and unknown n-grams are found by their index, the others
        /// by hashing.
        @inline(__always)
        mutating func add(_ key: Int64, union: Int32) -> Int {
            let known: UnsafeMutablePointer<Int32>
            if union >= 0 {
                known = unionGrams + Int(union)
            } else if key < 0 {
                known = localGrams + Int(-1 - key)
            } else {
                if !tableReady {
                    tableKeys.initialize(repeating: .max, count: tableSize)
                    tableReady = true
                }
                var slot = Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> shift)
                while true {
                    let k = tableKeys[slot]
                    if k == key {
                        let g = Int(tableIndices[slot])
                        grams[g].count += 1
                        return g
                    }
                    if k == .max { break }
                    slot = (slot + 1) & mask
                }
                tableKeys[slot] = key
                tableIndices[slot] = Int64(gramCount)
                return append(key, union: union)
            }
            if known.pointee >= 0 {
                let g = Int(known.pointee)
                grams[g].count += 1
                return g
            }
            known.pointee = Int32(gramCount)
            return append(key, union: union)
        }

        @inline(__always)
        mutating func append(_ key: Int64, union: Int32) -> Int {
            (grams + gramCount).initialize(to: Gram(key: key, count: 1, union: union))
            gramCount += 1
            return gramCount - 1
        }

        /// The local key of the unknown n-gram made of `a` and `b`.
        mutating func unknownPair(_ a: Int64, _ b: Int64) -> Int64 {
            let empty = Int64.min  // upper half 2^31
            if !pairsReady {
                pairKeys.initialize(repeating: empty, count: tableSize)
                pairsReady = true
            }
            let pair = Int64(bitPattern: UInt64(UInt32(truncatingIfNeeded: a)) << 32 | UInt64(UInt32(truncatingIfNeeded: b)))
            var slot = Int(truncatingIfNeeded: (UInt64(bitPattern: pair) &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while pairKeys[slot] != pair && pairKeys[slot] != empty { slot = (slot + 1) & mask }
            if pairKeys[slot] == pair { return pairValues[slot] }
            pairKeys[slot] = pair
            pairValues[slot] = nextLocal
            nextLocal -= 1
            return nextLocal + 1
        }

        /// Fills `unionAt` for n = 2...4: from every place in the references where a
        /// candidate token occurs, the candidate's following tokens are followed as far as
        /// the reference goes along (at most 3 more); each n-gram matched that way is in the
        /// union, under the index the references give it there, and every n-gram of the
        /// candidate in the union is matched from some such place.
        func matchReferences(_ entry: ReferenceCorpus.Entry) {
            entry.matchTokens.withUnsafeBufferPointer { tokens in
                entry.matchNgrams.withUnsafeBufferPointer { ngrams in
                    entry.matchNgramIDs.withUnsafeBufferPointer { ids in
                        entry.occurrenceStarts.withUnsafeBufferPointer { starts in
                            entry.occurrences.withUnsafeBufferPointer { occurrences in
                                let count = tokens.count
                                /// Where in the references the previous token matched furthest.
                                var last = -1
                                for p in 0..<n {
                                    let u = Int(unionAt[p])
                                    let most = min(3, n - 1 - p)
                                    guard u >= 0, most > 0 else {
                                        last = -1
                                        continue
                                    }
                                    var matched = 0, best = -1
                                    /// Follows the candidate from `g`, a place of its token `p`.
                                    func follow(_ g: Int) {
                                        var k = 0
                                        while k < most && tokens[g + k + 1] == unionAt[p + k + 1] { k += 1 }
                                        if k > matched || best < 0 { best = g }
                                        while matched < k {
                                            matched += 1
                                            unionAt[matched * n + p] = ngrams[(matched - 1) * count + g]
                                            idAt[matched * n + p] = ids[(matched - 1) * count + g]
                                        }
                                    }
                                    // The place after the previous token's comes first: along a
                                    // stretch the candidate shares with a reference, it goes furthest.
                                    if last >= 0 && tokens[last + 1] == u { follow(last + 1) }
                                    if matched < most {
                                        for o in Int(starts[u])..<Int(starts[u + 1]) {
                                            follow(Int(occurrences[o]))
                                            if matched == most { break }
                                        }
                                    }
                                    last = best
                                }
                            }
                        }
                    }
                }
            }
        }

        /// Counts every n-gram; returns how many are unique, and where each order's end.
        mutating func run() -> (Int, (Int, Int, Int, Int)) {
            for p in 0..<n {
                let key = Int64(keys[p])
                previous[p] = key
                let union = entry?.unigram(key) ?? -1
                unionAt[p] = union
                tokenGrams[p] = Int32(add(key, union: union))
            }
            if let entry { matchReferences(entry) }
            var ends = (gramCount, gramCount, gramCount, gramCount)
            let ngramIDs = corpus.ngramIDs
            for order in 1..<max(1, min(4, n)) {
                for p in 0..<(n - order) {
                    let a = previous[p], b = Int64(keys[p + order])
                    let union = unionAt[order * n + p]
                    var key: Int64
                    // An n-gram a reference holds is in the corpus under the union's id.
                    if union >= 0 {
                        key = Int64(idAt[order * n + p])
                    } else if a >= 0, b >= 0, let id = ngramIDs[UInt64(a) << 32 | UInt64(b)] {
                        key = Int64(id)
                    } else {
                        key = unknownPair(a, b)
                    }
                    previous[p] = key
                    _ = add(key, union: union)
                }
                switch order {
                case 1: ends = (ends.0, gramCount, gramCount, gramCount)
                case 2: ends = (ends.0, ends.1, gramCount, gramCount)
                default: ends.3 = gramCount
                }
            }
            return (gramCount, ends)
        }
    }
}

// MARK: - Per-answer scoring

extension ReferenceMetrics {
    /// What a per-answer reference scorer reports: the answer's BLEU-4, ROUGE-L and CIDEr-D
    /// against the references of its item (`candidate.figures`, `nil` when the answer has no
    /// tokens), in the run's corpus when that holds the item, otherwise in a corpus of this
    /// item alone (where CIDEr-D is 0 by definition). `nil` when the item has no references,
    /// so the scorer writes no score.
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
        let i: Int
        if let run = input.corpus, let k = run.index[input.item.id] {
            corpus = run
            i = k
        } else {
            guard input.item.references.contains(where: { !ReferenceCorpus.isBlank($0) }) else { return nil }
            corpus = ReferenceCorpus(items: [input.item])
            guard let k = corpus.index[input.item.id] else { return nil }
            i = k
        }
        let entry = corpus.entries[i]
        // The three scorers' figures, while the n-grams are at hand; only they are kept, so
        // that a cached answer holds no n-grams.
        let candidate = CandidateNGrams.withNGrams(text: input.text, corpus: corpus, entry: entry) { view in
            guard view.length > 0 else { return CandidateNGrams(length: 0, figures: nil) }
            let figures = (
                BLEU.sentenceBLEU4(view, entry: entry), RougeL.score(view, entry: entry),
                CiderD.score(view, entry: entry, corpus: corpus)
            )
            return CandidateNGrams(length: view.length, figures: figures)
        }
        return (candidate, entry, corpus)
    }
}
