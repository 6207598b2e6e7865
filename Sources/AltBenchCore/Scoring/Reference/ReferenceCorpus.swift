import Foundation

/// The human references of every item in a run, tokenized and counted once, with CIDEr-D's
/// document frequencies over them.
///
/// An item belongs to the corpus when it has at least one reference that is not blank (a
/// blank one is left out; any other is kept as pycocoevalcap would keep it, even when it has
/// no tokens). The first item with a given id decides; later items with the same id are
/// ignored. Each reference is tokenized with ``CaptionTokenizer`` and its n-grams, BLEU
/// maxima and CIDEr-D vector are worked out here, so scoring an answer never re-tokenizes a
/// reference.
///
/// CIDEr-D's idf is "corpus idf over the run", as pycocoevalcap 1.2's `CiderScorer` computes
/// it when every image of the run is scored at once: the document frequency of an n-gram is
/// the number of items whose references contain it, and `ref_len` is the log of the number
/// of items. Every answer is then weighed with the same idf, whichever model or prompt wrote
/// it. With one item `ref_len` is log 1 = 0 and every weight is 0, so CIDEr-D is 0 by
/// definition; it needs many images to mean anything.
public final class ReferenceCorpus: Sendable {
    /// One item's references, as BLEU, ROUGE-L and CIDEr-D read them.
    struct Entry: Sendable {
        struct Reference: Sendable {
            let tokens: [String]
            /// ROUGE-L's tokens (``RougeL/split(_:)``) by their numbers in the corpus
            /// ``ReferenceCorpus/vocabulary``.
            let numbers: [Int32]
            /// The norms of the reference's CIDEr-D vector (``CiderD/Vector``).
            let norms: [Double]
            /// pycocoevalcap's CIDEr-D "length": the number of bigrams.
            let length: Int
        }

        /// What the item's references hold of one n-gram.
        struct Held: Sendable {
            /// BLEU's `cook_refs`: the most times it occurs in any one reference.
            var maxCount = 0
            /// Its CIDEr-D document frequency in the corpus.
            let documentFrequency: Int
            /// Its CIDEr-D weight in each reference, 0 where a reference lacks it.
            var weights: [Double]

            /// Notes that reference `r` holds it `count` times, with CIDEr-D weight `weight`.
            mutating func add(count: Int, weight: Double, reference r: Int) {
                maxCount = max(maxCount, count)
                weights[r] = weight
            }
        }

        let references: [Reference]
        /// What the references hold of each n-gram some reference holds.
        let held: [Held]
        /// Where each n-gram some reference holds is in ``held``.
        let ngrams: [NGram.Key: Int]
    }

    let entries: [Entry]
    let index: [String: Int]
    /// A number for each distinct token of the references (and the empty token ROUGE-L makes
    /// of an empty reference), so that n-grams are keyed and LCS compares by numbers.
    let vocabulary: [String: Int32]
    /// The number of items whose references hold each n-gram.
    let documentFrequencies: [NGram.Key: Int]
    /// log(number of items).
    let refLen: Double
    /// Each item's references as `reference_match` reads them, prepared once for the run, with
    /// the texts they were prepared from.
    let referenceMatches: [String: (references: [String], prepared: ReferenceMatchScorer.Prepared)]
    /// Each item's post text split as `context_echo` reads it, once for the run.
    let contextWords: [String: (context: String, words: [String])]

    /// The references of `items`, tokenized with ``CaptionTokenizer``.
    public convenience init(items: [ScoringItem]) {
        var seen = Set<String>()
        var tokenized: [(id: String, references: [[String]])] = []
        var matches: [String: (references: [String], prepared: ReferenceMatchScorer.Prepared)] = [:]
        var contexts: [String: (context: String, words: [String])] = [:]
        for item in items where seen.insert(item.id).inserted {
            if let prepared = ReferenceMatchScorer.prepare(item.references) { matches[item.id] = (item.references, prepared) }
            if let context = item.context { contexts[item.id] = (context, ContextEchoScorer.words(in: context)) }
            let references = item.references.filter { !Self.isBlank($0) }
            guard !references.isEmpty else { continue }
            tokenized.append((item.id, references.map(CaptionTokenizer.tokenize)))
        }
        self.init(tokenizedItems: tokenized, referenceMatches: matches, contextWords: contexts)
    }

    /// A corpus of references already split into tokens, as pycocoevalcap receives them from
    /// its tokenizer. Items without references are left out; the first of a repeated id wins.
    public convenience init(tokenizedItems: [(id: String, references: [[String]])]) {
        self.init(tokenizedItems: tokenizedItems, referenceMatches: [:], contextWords: [:])
    }

    init(
        tokenizedItems: [(id: String, references: [[String]])],
        referenceMatches: [String: (references: [String], prepared: ReferenceMatchScorer.Prepared)],
        contextWords: [String: (context: String, words: [String])]
    ) {
        self.referenceMatches = referenceMatches
        self.contextWords = contextWords
        var seen = Set<String>()
        let items = tokenizedItems.filter { seen.insert($0.id).inserted && !$0.references.isEmpty }
        var vocabulary: [String: Int32] = [:]
        let numbers = items.map { item in
            item.references.map { tokens in
                RougeL.split(tokens).map { token in
                    if let number = vocabulary[token] { return number }
                    vocabulary[token] = Int32(vocabulary.count)
                    return Int32(vocabulary.count - 1)
                }
            }
        }
        let counts = zip(items, numbers).map { item, numbers in
            zip(item.references, numbers).map { tokens, numbers in NGram.counts(tokens.isEmpty ? [] : numbers) }
        }
        // pycocoevalcap's `compute_doc_freq`: each n-gram once per item that holds it.
        var documentFrequencies: [NGram.Key: Int] = [:]
        documentFrequencies.reserveCapacity(counts.joined().reduce(0) { $0 + $1.count })
        for references in counts {
            for key in Set(references.joined().map(\.key)) { documentFrequencies[key, default: 0] += 1 }
        }
        let refLen = Foundation.log(Double(items.count))
        entries = items.enumerated().map { i, item in
            let zeros = [Double](repeating: 0, count: item.references.count)
            var held: [Entry.Held] = []
            var positions: [NGram.Key: Int] = [:]
            positions.reserveCapacity(counts[i].reduce(0) { $0 + $1.count })
            let references = zip(item.references, counts[i]).enumerated().map { r, reference in
                let (tokens, ngrams) = reference
                let frequencies = ngrams.map { documentFrequencies[$0.key]! }
                let vector = CiderD.vector(ngrams, documentFrequencies: frequencies, refLen: refLen)
                for (k, ngram) in ngrams.enumerated() {
                    let position = positions[ngram.key] ?? held.count
                    if position == held.count {
                        positions[ngram.key] = position
                        held.append(Entry.Held(documentFrequency: frequencies[k], weights: zeros))
                    }
                    held[position].add(count: ngram.count, weight: vector.weights[k], reference: r)
                }
                return Entry.Reference(tokens: tokens, numbers: numbers[i][r], norms: vector.norms, length: vector.length)
            }
            return Entry(references: references, held: held, ngrams: positions)
        }
        index = Dictionary(uniqueKeysWithValues: items.enumerated().map { ($1.id, $0) })
        self.vocabulary = vocabulary
        self.documentFrequencies = documentFrequencies
        self.refLen = refLen
    }

    /// The number of items with references: the "images" of pycocoevalcap.
    public var count: Int { entries.count }

    /// Whether the corpus holds references for the item `id`.
    public func contains(_ id: String) -> Bool { index[id] != nil }

    /// The references of the item `id`, if the corpus holds it.
    func entry(_ id: String) -> Entry? { index[id].map { entries[$0] } }

    /// `item`'s references prepared for `reference_match`, when the corpus holds that item
    /// with the same references (an item scored against other references is prepared anew).
    /// `item`'s post text split for `context_echo`, when the corpus holds that item with the
    /// same post text.
    func contextWords(of item: ScoringItem) -> [String]? {
        guard let found = contextWords[item.id], found.context == item.context else { return nil }
        return found.words
    }

    func referenceMatch(of item: ScoringItem) -> ReferenceMatchScorer.Prepared? {
        guard let match = referenceMatches[item.id], match.references == item.references else { return nil }
        return match.prepared
    }

    /// The tokenized references of the item `id`, as the metrics compare them.
    public func references(of id: String) -> [[String]]? {
        entry(id)?.references.map(\.tokens)
    }

    /// The number of items whose references contain `ngram` (1 to 4 tokens): CIDEr-D's
    /// document frequency.
    public func documentFrequency(of ngram: [String]) -> Int {
        guard (1...4).contains(ngram.count) else { return 0 }
        var numbers: [Int32] = []
        for token in ngram {
            guard let number = vocabulary[token] else { return 0 }
            numbers.append(number)
        }
        return documentFrequencies[NGram.Key(numbers[...])] ?? 0
    }

    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }
}

/// An n-gram of a caption with its count, as pycocoevalcap's `precook` counts them for BLEU
/// and CIDEr-D.
struct NGram: Sendable {
    /// An n-gram's tokens by their numbers in a vocabulary, padded with -1 to 4: equal keys
    /// are equal n-grams (pycocoevalcap keys its dicts by the tuple of tokens). The four
    /// 32-bit numbers are held as two 64-bit words, which hash and compare as two integers.
    struct Key: Hashable, Comparable, Sendable {
        var low: UInt64
        var high: UInt64

        static func < (a: Key, b: Key) -> Bool { (a.low, a.high) < (b.low, b.high) }

        init(_ tokens: ArraySlice<Int32>) {
            func number(_ j: Int) -> UInt64 {
                UInt64(UInt32(bitPattern: j < tokens.count ? tokens[tokens.startIndex + j] : -1))
            }
            low = number(0) | number(1) << 32
            high = number(2) | number(3) << 32
        }
    }

    let key: Key
    /// The number of tokens, 1...4.
    let order: Int
    var count: Int

    /// pycocoevalcap's `precook(words, n=4)` of the tokens numbered `tokens`: every n-gram of
    /// 1 to 4 tokens with its count, in the order its dict holds them (the unigrams by first
    /// position, then the bigrams, ...), which is the order CIDEr-D adds them up in.
    static func counts(_ tokens: [Int32]) -> [NGram] {
        var ngrams: [NGram] = []
        ngrams.reserveCapacity(4 * tokens.count)
        for order in 1...4 where order <= tokens.count {
            let keys = (0...(tokens.count - order)).map { Key(tokens[$0..<($0 + order)]) }
            // Equal n-grams sort together, each run in position order, so the first of a run
            // is where that n-gram first occurs. Counted so, not in a dictionary: sorting a
            // few dozen keys costs less than hashing them.
            let sorted = keys.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }
            var firsts: [(position: Int, count: Int)] = []
            for position in sorted {
                if let last = firsts.last, keys[last.position] == keys[position] {
                    firsts[firsts.count - 1].count += 1
                } else {
                    firsts.append((position, 1))
                }
            }
            for first in firsts.sorted(by: { $0.position < $1.position }) {
                ngrams.append(NGram(key: keys[first.position], order: order, count: first.count))
            }
        }
        return ngrams
    }
}
