/// The human references of every item in a run, tokenized once, with CIDEr-D's document
/// frequencies over them.
public final class ReferenceCorpus: Sendable {
    public init(items: [ScoringItem]) {}
}
