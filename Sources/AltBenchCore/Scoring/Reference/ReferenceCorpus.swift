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
    /// One reference: its token ids and its CIDEr-D vector's norms (the weights are the
    /// item's ``Entry/unionWeights``).
    struct Reference: Sendable {
        var tokens: [Int32]
        /// The index in the item's n-gram union (``Entry/unionIDs``) of each token, for ROUGE-L.
        var tokenUnions: [Int32]
        /// The vector's norm for each n-gram order.
        var norms: (Double, Double, Double, Double)
        /// pycocoevalcap's CIDEr-D "length": the number of bigrams (tokens − 1, at least 0).
        var bigramCount: Int
    }

    /// One item: its references and what BLEU and CIDEr-D need of them.
    final class Entry: Sendable {
        let id: String
        let references: [Reference]
        let referenceLengths: [Int]
        /// The union of the n-gram ids of all references, ascending.
        let unionIDs: [Int32]
        /// For each union n-gram, the largest count in any one reference (BLEU clipping).
        let maxCounts: [Int32]
        /// CIDEr-D weights `tf × (ref_len − log max(1, df))`: union n-gram `u` in reference `r`
        /// at `u × references.count + r`, 0 where the reference lacks it.
        let unionWeights: [Double]
        /// The references' CIDEr-D norms, 4 per reference (`Reference/norms`), and bigram
        /// counts, side by side for the scorers.
        let referenceNorms: [Double]
        let referenceBigramCounts: [Int]
        /// Every reference's `tokenUnions`, one after another; reference `r` ends at
        /// `referenceTokenEnds[r]`.
        let referenceTokenUnions: [Int32]
        let referenceTokenEnds: [Int]
        /// The references' tokens as union indices, one reference after another, each followed
        /// by -2; with `matchNgrams`, the union index of the n-gram (n = 2...4) starting at
        /// each position (`(n − 2) × matchTokens.count + position`), -1 where the reference
        /// ends first. A candidate's n-grams are found in the references by following its
        /// tokens from where each token occurs (`occurrences`).
        let matchTokens: [Int32]
        let matchNgrams: [Int32]
        /// The corpus id of each union n-gram, in `matchNgrams`' places (`unionIDs` of its
        /// entries, side by side with them).
        let matchNgramIDs: [Int32]
        /// `idf` of each union n-gram, by union index.
        let unionIDF: [Double]
        /// The positions in `matchTokens` of each union unigram, grouped by union index:
        /// union `u`'s from `occurrenceStarts[u]` to `occurrenceStarts[u + 1]`.
        let occurrenceStarts: [Int32]
        let occurrences: [Int32]
        /// The union's unigrams: token id and union index, by open addressing (id -1 where
        /// empty).
        private let unigramSlots: [(id: Int32, union: Int32)]
        private let unigramShift: UInt64

        init(
            id: String, references: [Reference], referenceLengths: [Int], unionIDs: [Int32], maxCounts: [Int32],
            unionWeights: [Double], matchTokens: [Int32], matchNgrams: [Int32], unionIDF: [Double]
        ) {
            self.id = id
            self.references = references
            self.referenceLengths = referenceLengths
            self.unionIDs = unionIDs
            self.maxCounts = maxCounts
            self.unionWeights = unionWeights
            self.matchTokens = matchTokens
            self.matchNgrams = matchNgrams
            matchNgramIDs = matchNgrams.map { $0 >= 0 ? unionIDs[Int($0)] : -1 }
            self.unionIDF = unionIDF
            referenceNorms = references.flatMap { [$0.norms.0, $0.norms.1, $0.norms.2, $0.norms.3] }
            referenceBigramCounts = references.map(\.bigramCount)
            referenceTokenUnions = references.flatMap(\.tokenUnions)
            var end = 0
            referenceTokenEnds = references.map { reference in
                end += reference.tokenUnions.count
                return end
            }
            var counts = [Int32](repeating: 0, count: unionIDs.count + 1)
            for u in matchTokens where u >= 0 { counts[Int(u) + 1] += 1 }
            for u in 0..<unionIDs.count { counts[u + 1] += counts[u] }
            occurrenceStarts = counts
            var occurrences = [Int32](repeating: 0, count: Int(counts[unionIDs.count]))
            var next = counts
            for (position, u) in matchTokens.enumerated() where u >= 0 {
                occurrences[Int(next[Int(u)])] = Int32(position)
                next[Int(u)] += 1
            }
            self.occurrences = occurrences
            let unigrams = Set(references.flatMap(\.tokenUnions))
            var size = 16
            while size < 2 * unigrams.count { size <<= 1 }
            var slots = [(id: Int32, union: Int32)](repeating: (-1, -1), count: size)
            let shift = UInt64(64 - size.trailingZeroBitCount)
            for u in unigrams {
                let id = unionIDs[Int(u)]
                var i = Self.slot(UInt64(id), shift)
                while slots[i].id >= 0 { i = (i + 1) & (size - 1) }
                slots[i] = (id, u)
            }
            unigramSlots = slots
            unigramShift = shift
        }

        @inline(__always)
        private static func slot(_ key: UInt64, _ shift: UInt64) -> Int {
            Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        }

        /// The index in `unionIDs` of the token `id`, or -1 when no reference holds it
        /// (always for the negative keys of tokens the corpus does not know).
        @inline(__always)
        func unigram(_ id: Int64) -> Int32 {
            guard id >= 0 else { return -1 }
            return unigramSlots.withUnsafeBufferPointer { slots in
                let mask = slots.count - 1
                var i = Self.slot(UInt64(id), unigramShift)
                while true {
                    let slot = slots[i]
                    if Int64(slot.id) == id { return slot.union }
                    if slot.id < 0 { return -1 }
                    i = (i + 1) & mask
                }
            }
        }

        /// The index in `unionIDs` of the n-gram `key`, or -1 when no reference holds it
        /// (always for the negative keys of n-grams the corpus does not know).
        func union(of key: Int64) -> Int32 {
            guard key >= 0, let u = ReferenceCorpus.position(of: Int32(key), in: unionIDs) else { return -1 }
            return Int32(u)
        }
    }

    let vocabulary: [String: Int32]
    /// `vocabulary` keyed by UTF-8 bytes, for the tokens the tokenizer can look up without
    /// making a String (see ``TokenTable``).
    let tokenTable: TokenTable
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
        /// With, for each order n = 2...4 and position, the id of the n-gram there (-1 past
        /// the end), order after order.
        var raw: [(id: String, refs: [(tokens: [Int32], grams: [Int32], counts: [Int32], positions: [Int32])])] = []

        for item in tokenizedItems where seen.insert(item.id).inserted && !item.references.isEmpty {
            let itemNumber = Int32(raw.count)
            index[item.id] = raw.count
            var refs: [(tokens: [Int32], grams: [Int32], counts: [Int32], positions: [Int32])] = []
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
                var positions = [Int32](repeating: -1, count: 3 * tokens.count)
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
                            positions[(order - 1) * tokens.count + position] = id
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
                refs.append((tokens, grams, counts, positions))
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
            // The union of the references' n-grams, ascending, with the clipping maxima.
            var packed: [UInt64] = []  // id << 32 | count
            for ref in item.refs {
                for (k, id) in ref.grams.enumerated() { packed.append(UInt64(UInt32(id)) << 32 | UInt64(UInt32(ref.counts[k]))) }
            }
            packed.sort()
            var unionIDs: [Int32] = [], maxCounts: [Int32] = []
            for p in packed {
                let id = Int32(truncatingIfNeeded: p >> 32), count = Int32(truncatingIfNeeded: p & 0xFFFF_FFFF)
                if unionIDs.last == id {
                    maxCounts[maxCounts.count - 1] = count  // ascending, so the last is the largest
                } else {
                    unionIDs.append(id)
                    maxCounts.append(count)
                }
            }
            let referenceCount = item.refs.count
            var unionWeights = [Double](repeating: 0, count: unionIDs.count * referenceCount)
            var references: [Reference] = []
            for (r, ref) in item.refs.enumerated() {
                var norms = [0.0, 0.0, 0.0, 0.0]
                for (k, id) in ref.grams.enumerated() {
                    let weight = Double(ref.counts[k]) * idf[Int(id)]
                    norms[Int(ngramOrder[Int(id)])] += weight * weight
                    let u = ReferenceCorpus.position(of: id, in: unionIDs)!
                    unionWeights[u * referenceCount + r] = weight
                }
                references.append(
                    Reference(
                        tokens: ref.tokens,
                        tokenUnions: ref.tokens.map { Int32(ReferenceCorpus.position(of: $0, in: unionIDs)!) },
                        norms: (
                            norms[0].squareRoot(), norms[1].squareRoot(), norms[2].squareRoot(), norms[3].squareRoot()
                        ),
                        bigramCount: max(0, ref.tokens.count - 1)))
            }
            // The references' tokens as union indices, each reference followed by -2, with the
            // union index of the n-gram (n = 2...4) at each position, and where each token is.
            var matchTokens: [Int32] = []
            for reference in references { matchTokens += reference.tokenUnions + [-2] }
            var matchNgrams = [Int32](repeating: -1, count: 3 * matchTokens.count)
            var start = 0
            for ref in item.refs {
                let length = ref.tokens.count
                for order in 1...3 {
                    for position in 0..<length {
                        let id = ref.positions[(order - 1) * length + position]
                        guard id >= 0 else { continue }
                        matchNgrams[(order - 1) * matchTokens.count + start + position] =
                            Int32(ReferenceCorpus.position(of: id, in: unionIDs)!)
                    }
                }
                start += length + 1
            }
            entries.append(
                Entry(
                    id: item.id, references: references, referenceLengths: item.refs.map(\.tokens.count),
                    unionIDs: unionIDs, maxCounts: maxCounts, unionWeights: unionWeights,
                    matchTokens: matchTokens, matchNgrams: matchNgrams, unionIDF: unionIDs.map { idf[Int($0)] }))
        }

        self.vocabulary = vocabulary
        self.tokenTable = TokenTable(vocabulary)
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

/// Token ids keyed by the tokens' UTF-8 bytes, so that the tokenizer can look up a token it
/// has lowercased without making a String of it. Holds tokens of 1 to 16 bytes, each packed
/// little-endian into two 64-bit words, by open addressing.
///
/// `String` equality is canonical equivalence, bytes are not, so the table holds only what
/// it can answer exactly. A token made of Latin-1 characters (U+0000...U+00FF, ASCII
/// included) is canonically equivalent only to itself and to strings that also use the six
/// characters whose canonical decomposition is a Latin-1 one (U+037E → `;`, U+0387 → `·`,
/// U+1FEF → `` ` ``, U+1FFD → `´`, U+212A → `K`, U+212B → `Å`) or combining marks. The table
/// holds every token made of Latin-1 characters and those six, under its Latin-1 form, so a
/// Latin-1 byte string it finds is the vocabulary's token, with the same id. An ASCII one it
/// misses is not in the vocabulary (a token equivalent to it is ASCII but for some of the
/// six, so the table holds it); a Latin-1 one it misses is not either unless a token of the
/// vocabulary holds a combining mark (`latin1Complete` false), and then the String must be
/// looked up.
///
/// Written only while it is made, so it can be shared between threads.
final class TokenTable: @unchecked Sendable {
    struct Slot {
        var low: UInt64
        var high: UInt64
        /// 0 for an empty slot.
        var length: Int32
        var id: Int32
    }

    /// The longest token the table holds, in bytes.
    static var longest: Int { 16 }
    private let slots: UnsafeMutableBufferPointer<Slot>
    private let shift: UInt64
    /// Whether a Latin-1 token the table misses is surely not in the vocabulary.
    let latin1Complete: Bool

    init(_ vocabulary: [String: Int32]) {
        var size = 16
        while size < 2 * vocabulary.count { size <<= 1 }
        slots = .allocate(capacity: size)
        slots.initialize(repeating: Slot(low: 0, high: 0, length: 0, id: -1))
        shift = UInt64(64 - size.trailingZeroBitCount)
        var complete = true
        var entries: [(low: UInt64, high: UInt64, length: Int, id: Int32)] = []
        for (token, id) in vocabulary {
            var latin1: [UInt8] = []
            var fits = true
            for scalar in token.unicodeScalars {
                let value: UInt32
                switch scalar.value {
                case 0..<0x100: value = scalar.value
                case 0x37E: value = 0x3B
                case 0x387: value = 0xB7
                case 0x1FEF: value = 0x60
                case 0x1FFD: value = 0xB4
                case 0x212A: value = 0x4B
                case 0x212B: value = 0xC5
                default:
                    if scalar.properties.canonicalCombiningClass != .notReordered { complete = false }
                    fits = false
                    continue
                }
                latin1.append(contentsOf: Unicode.Scalar(value)!.utf8)
            }
            guard fits, !latin1.isEmpty, latin1.count <= Self.longest, String(decoding: latin1, as: UTF8.self) == token else {
                continue
            }
            var low: UInt64 = 0, high: UInt64 = 0
            for (k, b) in latin1.enumerated() {
                if k < 8 { low |= UInt64(b) << UInt64(8 * k) } else { high |= UInt64(b) << UInt64(8 * (k - 8)) }
            }
            entries.append((low, high, latin1.count, id))
        }
        latin1Complete = complete
        for entry in entries {
            var i = slot(entry.low, entry.high)
            while slots[i].length != 0 { i = (i + 1) & (size - 1) }
            slots[i] = Slot(low: entry.low, high: entry.high, length: Int32(entry.length), id: entry.id)
        }
    }

    deinit { slots.deallocate() }

    @inline(__always)
    private func slot(_ low: UInt64, _ high: UInt64) -> Int {
        Int(truncatingIfNeeded: ((low ^ high &* 0xC2B2_AE3D_27D4_EB4F) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The id of the token of `length` UTF-8 bytes (1...16) packed into `low` and `high`;
    /// `nil` when the table does not hold it.
    @inline(__always)
    func find(low: UInt64, high: UInt64, length: Int) -> Int32? {
        let mask = slots.count - 1
        var i = slot(low, high)
        while true {
            let s = slots[i]
            if s.length == 0 { return nil }
            if s.low == low && s.high == high && Int(s.length) == length { return s.id }
            i = (i + 1) & mask
        }
    }
}
