import Foundation

/// The human references of every item in a run, tokenized once, with CIDEr-D's document
/// frequencies over them.
///
/// An item belongs to the corpus when it has at least one reference that is not blank (a
/// blank one is left out; any other is kept as pycocoevalcap would keep it, even when it has
/// no tokens). The first item with a given id decides; later items with the same id are
/// ignored. Each reference is tokenized with ``CaptionTokenizer`` and stored as token ids with
/// its n-grams (n = 1...4) counted once, so scoring an answer never re-tokenizes a reference.
///
/// CIDEr-D's idf is "corpus idf over the run", as pycocoevalcap 1.2's `CiderScorer` computes
/// it when every image of the run is scored at once: the document frequency of an n-gram is
/// the number of items whose references contain it, and `ref_len` is the log of the number
/// of items. Every answer is then weighed with the same idf, whichever model or prompt wrote
/// it. With one item `ref_len` is log 1 = 0 and every weight is 0, so CIDEr-D is 0 by
/// definition; it needs many images to mean anything.
public final class ReferenceCorpus: Sendable {
    /// One reference: its token ids and its CIDEr-D vector.
    struct Reference: Sendable {
        var tokens: [Int32]
        /// CIDEr-D weights `tf × (ref_len − log max(1, df))` by n-gram id, ids ascending.
        var ids: [Int32]
        var weights: [Double]
        /// The vector's norm for each n-gram order.
        var norms: (Double, Double, Double, Double)
        /// pycocoevalcap's CIDEr-D "length": the number of bigrams (tokens − 1, at least 0).
        var bigramCount: Int
    }

    /// One item: its references and what BLEU needs of them.
    struct Entry: Sendable {
        var id: String
        var references: [Reference]
        var referenceLengths: [Int]
        /// The largest count of each n-gram in any one reference, ids ascending (BLEU clipping).
        var maxCountIDs: [Int32]
        var maxCounts: [Int32]
    }

    let vocabulary: [String: Int32]
    /// N-gram ids for n ≥ 2, keyed by `(id of the first n−1 tokens) << 32 | id of the last
    /// token`. Unigram ids are token ids.
    let ngramIDs: NGramTable
    /// The order (1...4) of each n-gram id, minus one.
    let ngramOrder: [UInt8]
    /// The number of items whose references hold each n-gram id.
    let documentFrequencies: [Int32]
    /// `ref_len − log(max(1, df))` for each n-gram id.
    let idf: [Double]
    /// log(number of items).
    let refLen: Double
    let entries: [Entry]
    let index: [String: Int]

    /// The references of `items`, tokenized with ``CaptionTokenizer``.
    public convenience init(items: [ScoringItem]) {
        var seen = Set<String>()
        var tokenized: [(id: String, references: [[String]])] = []
        for item in items where seen.insert(item.id).inserted {
            let references = item.references.filter { !Self.isBlank($0) }
            guard !references.isEmpty else { continue }
            tokenized.append((item.id, references.map(CaptionTokenizer.tokenize)))
        }
        self.init(tokenizedItems: tokenized)
    }

    /// A corpus of references already split into tokens, as pycocoevalcap receives them from
    /// its tokenizer. Items without references are left out; the first of a repeated id wins.
    public init(tokenizedItems: [(id: String, references: [[String]])]) {
        var vocabulary: [String: Int32] = [:]
        var ngramIDs = NGramTable()
        var ngramOrder: [UInt8] = []
        var documentFrequency: [Int32] = []
        var lastItem: [Int32] = []
        var index: [String: Int] = [:]
        var seen = Set<String>()

        /// Per reference: token ids, and unique n-gram ids with counts in pycocoevalcap's order
        /// (n = 1...4, then by first position).
        var raw: [(id: String, refs: [(tokens: [Int32], grams: [Int32], counts: [Int32])])] = []

        for item in tokenizedItems where seen.insert(item.id).inserted && !item.references.isEmpty {
            let itemNumber = Int32(raw.count)
            index[item.id] = raw.count
            var refs: [(tokens: [Int32], grams: [Int32], counts: [Int32])] = []
            for reference in item.references {
                // Token ids first: unigram ids and token ids are the same numbers, so a new
                // token takes the next n-gram id.
                var tokens: [Int32] = []
                tokens.reserveCapacity(reference.count)
                for token in reference {
                    if let id = vocabulary[token] {
                        tokens.append(id)
                    } else {
                        let id = Int32(ngramOrder.count)
                        ngramOrder.append(0)
                        vocabulary[token] = id
                        tokens.append(id)
                    }
                }
                var grams: [Int32] = []
                var counts: [Int32] = []
                var previous = tokens
                for order in 0..<4 {
                    let start = grams.count
                    if order > 0 {
                        guard tokens.count > order else { break }
                        for position in 0..<(tokens.count - order) {
                            let key =
                                UInt64(UInt32(previous[position])) << 32 | UInt64(UInt32(tokens[position + order]))
                            let (id, inserted) = ngramIDs.insert(key, Int32(ngramOrder.count))
                            if inserted { ngramOrder.append(UInt8(order)) }
                            previous[position] = id
                        }
                        previous.removeLast()
                    }
                    for id in previous {
                        var k = start
                        while k < grams.count, grams[k] != id { k += 1 }
                        if k < grams.count {
                            counts[k] += 1
                        } else {
                            grams.append(id)
                            counts.append(1)
                        }
                    }
                }
                if documentFrequency.count < ngramOrder.count {
                    let added = ngramOrder.count - documentFrequency.count
                    documentFrequency.append(contentsOf: repeatElement(0, count: added))
                    lastItem.append(contentsOf: repeatElement(-1, count: added))
                }
                for id in grams where lastItem[Int(id)] != itemNumber {
                    lastItem[Int(id)] = itemNumber
                    documentFrequency[Int(id)] += 1
                }
                refs.append((tokens, grams, counts))
            }
            raw.append((item.id, refs))
        }

        let refLen = Foundation.log(Double(raw.count))
        var idf = [Double](repeating: 0, count: ngramOrder.count)
        for id in idf.indices {
            idf[id] = refLen - Foundation.log(max(1.0, Double(documentFrequency[id])))
        }

        var entries: [Entry] = []
        entries.reserveCapacity(raw.count)
        for item in raw {
            var references: [Reference] = []
            var packed: [UInt64] = []  // id << 32 | count, for the clipping maxima
            for ref in item.refs {
                var norms = [0.0, 0.0, 0.0, 0.0]
                var pairs: [(Int32, Double)] = []
                pairs.reserveCapacity(ref.grams.count)
                for (k, id) in ref.grams.enumerated() {
                    let weight = Double(ref.counts[k]) * idf[Int(id)]
                    norms[Int(ngramOrder[Int(id)])] += weight * weight
                    pairs.append((id, weight))
                    packed.append(UInt64(UInt32(id)) << 32 | UInt64(UInt32(ref.counts[k])))
                }
                pairs.sort { $0.0 < $1.0 }
                references.append(
                    Reference(
                        tokens: ref.tokens, ids: pairs.map(\.0), weights: pairs.map(\.1),
                        norms: (
                            norms[0].squareRoot(), norms[1].squareRoot(), norms[2].squareRoot(), norms[3].squareRoot()
                        ),
                        bigramCount: max(0, ref.tokens.count - 1)))
            }
            packed.sort()
            var maxCountIDs: [Int32] = [], maxCounts: [Int32] = []
            for p in packed {
                let id = Int32(truncatingIfNeeded: p >> 32), count = Int32(truncatingIfNeeded: p & 0xFFFF_FFFF)
                if maxCountIDs.last == id {
                    maxCounts[maxCounts.count - 1] = count  // ascending, so the last is the largest
                } else {
                    maxCountIDs.append(id)
                    maxCounts.append(count)
                }
            }
            entries.append(
                Entry(
                    id: item.id, references: references, referenceLengths: item.refs.map(\.tokens.count),
                    maxCountIDs: maxCountIDs, maxCounts: maxCounts))
        }

        self.vocabulary = vocabulary
        self.ngramIDs = ngramIDs
        self.ngramOrder = ngramOrder
        self.documentFrequencies = documentFrequency
        self.idf = idf
        self.refLen = refLen
        self.entries = entries
        self.index = index
    }

    /// The number of items with references: the "images" of pycocoevalcap.
    public var count: Int { entries.count }

    /// Whether the corpus holds references for the item `id`.
    public func contains(_ id: String) -> Bool { index[id] != nil }

    /// The tokenized references of the item `id`, as the metrics compare them.
    public func references(of id: String) -> [[String]]? {
        guard let i = index[id] else { return nil }
        var words = [String](repeating: "", count: ngramOrder.count)
        for (word, id) in vocabulary { words[Int(id)] = word }
        return entries[i].references.map { $0.tokens.map { words[Int($0)] } }
    }

    /// The number of items whose references contain `ngram` (1 to 4 tokens): CIDEr-D's
    /// document frequency.
    public func documentFrequency(of ngram: [String]) -> Int {
        guard (1...4).contains(ngram.count), let id = ngramID(of: ngram) else { return 0 }
        return Int(documentFrequencies[Int(id)])
    }

    func ngramID(of ngram: [String]) -> Int32? {
        guard let first = ngram.first, var id = vocabulary[first] else { return nil }
        for token in ngram.dropFirst() {
            guard let t = vocabulary[token], let next = ngramIDs[UInt64(UInt32(id)) << 32 | UInt64(UInt32(t))] else {
                return nil
            }
            id = next
        }
        return id
    }

    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }
}

extension ReferenceCorpus {
    /// The index of `id` in the ascending `ids`, by binary search.
    @inline(__always)
    static func position(of id: Int32, in ids: [Int32]) -> Int? {
        var lo = 0, hi = ids.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            let v = ids[mid]
            if v == id { return mid }
            if v < id { lo = mid + 1 } else { hi = mid }
        }
        return nil
    }
}

/// A hash table from n-gram keys (`prefix id << 32 | token id`) to n-gram ids: open
/// addressing with linear probing and a multiplicative hash, keys and values side by side so
/// that a lookup touches one cache line; several times cheaper than a `Dictionary` for the
/// hundreds of thousands of n-grams of a large run.
struct NGramTable: Sendable {
    private struct Slot {
        var key: UInt64
        var value: Int32
    }

    private var slots: [Slot]
    private var shift: UInt64
    private(set) var count = 0
    private static let emptyKey = UInt64.max

    init(capacity: Int = 1024) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Slot](repeating: Slot(key: Self.emptyKey, value: 0), count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    @inline(__always)
    private static func slot(_ key: UInt64, _ shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    subscript(key: UInt64) -> Int32? {
        slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = Self.slot(key, shift)
            while true {
                let k = slots[i].key
                if k == key { return slots[i].value }
                if k == Self.emptyKey { return nil }
                i = (i + 1) & mask
            }
        }
    }

    /// The id of `key`, and whether it was new and given `value`.
    mutating func insert(_ key: UInt64, _ value: Int32) -> (id: Int32, inserted: Bool) {
        let mask = slots.count - 1
        var i = Self.slot(key, shift)
        while true {
            let k = slots[i].key
            if k == key { return (slots[i].value, false) }
            if k == Self.emptyKey { break }
            i = (i + 1) & mask
        }
        slots[i] = Slot(key: key, value: value)
        count += 1
        if count * 2 > slots.count { grow() }
        return (value, true)
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(key: Self.emptyKey, value: 0), count: old.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for slot in old where slot.key != Self.emptyKey {
            var i = Self.slot(slot.key, shift)
            while slots[i].key != Self.emptyKey { i = (i + 1) & mask }
            slots[i] = slot
        }
    }
}
