import Foundation

/// One answer's scores, by name: what a dictionary of them offers, held as one array sorted by
/// name.
///
/// A run keeps every answer's scores in memory for its reports, some thirty per answer. A
/// `ScoreSet` of thirty entries takes 64 buckets of key and value (about 4 KB); the
/// array takes thirty values (about 1.4 KB), which at 100,000 answers is the difference
/// between a report that fits in half a gigabyte and one that does not. Looking a name up
/// scans at most thirty short names, no slower than hashing one. Iteration is in name order,
/// so anything built from it is the same on every run.
public struct ScoreSet: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The scores, sorted by name, each name once.
    public private(set) var values: [Score]

    public init() {
        values = []
    }

    /// `scores` by name; for a name given twice, the first.
    public init(_ scores: some Sequence<Score>) {
        let ordered = scores.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }
        var values: [Score] = []
        values.reserveCapacity(ordered.count)
        for (_, score) in ordered where values.last?.name != score.name { values.append(score) }
        self.values = values
    }

    /// As `Dictionary(uniqueKeysWithValues:)`: each score under its key, renamed to it.
    public init(uniqueKeysWithValues pairs: some Sequence<(String, Score)>) {
        self.init(pairs.map { key, score in
            var score = score
            score.name = key
            return score
        })
    }

    public init(dictionaryLiteral elements: (String, Score)...) {
        self.init(uniqueKeysWithValues: elements)
    }

    public var keys: [String] { values.map(\.name) }
    public var count: Int { values.count }
    public var isEmpty: Bool { values.isEmpty }

    /// The score named `name`; setting `nil` removes it.
    public subscript(_ name: String) -> Score? {
        get {
            for score in values where score.name == name { return score }
            return nil
        }
        set {
            if let index = values.firstIndex(where: { $0.name == name }) {
                if var newValue {
                    newValue.name = name
                    values[index] = newValue
                } else {
                    values.remove(at: index)
                }
            } else if var newValue {
                newValue.name = name
                let at = values.firstIndex { $0.name > name } ?? values.endIndex
                values.insert(newValue, at: at)
            }
        }
    }

    /// `(key: name, value: score)` in name order, as a dictionary iterates.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: Score)> {
        values.lazy.map { (key: $0.name, value: $0) }.makeIterator()
    }
}
