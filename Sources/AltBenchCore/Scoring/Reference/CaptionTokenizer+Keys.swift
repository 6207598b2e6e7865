// TEMPORARY: the two entry points the current ReferenceCorpus / ReferenceMetrics still call,
// kept only so this branch builds and passes until the plain reference corpus, which uses
// `CaptionTokenizer.tokenize` alone, replaces them. Delete this file when the two meet.

extension CaptionTokenizer {
    /// The keys of the tokens of `text` in `corpus`, as ``CandidateNGrams/Keys`` gives them
    /// for `tokenize(text)`: corpus ids, and local keys for tokens the corpus does not know.
    static func keys(_ text: String, corpus: ReferenceCorpus) -> CandidateNGrams.Keys {
        var keys = CandidateNGrams.Keys()
        for token in tokenize(text) { keys.append(token, corpus: corpus) }
        return keys
    }

    /// Calls `body` with `keys(text, corpus:)` and the next local key for an unknown token.
    static func withKeys<Result>(
        _ text: String, corpus: ReferenceCorpus,
        _ body: (_ keys: UnsafeBufferPointer<Int32>, _ nextLocal: Int32) -> Result
    ) -> Result {
        let keys = keys(text, corpus: corpus)
        return keys.keys.withUnsafeBufferPointer { body($0, keys.nextLocal) }
    }
}
