/// Flags an answer over the platform limit (Mastodon `MediaAttachment::MAX_DESCRIPTION_LENGTH`).
///
/// The limit defaults to Mastodon's 1,500 code points (X allows 1,000, Bluesky 2,000). Counts
/// Unicode scalars, as Mastodon does; the app could not post such an answer as is.
public struct OverLimitScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let chars = input.scalarCount
        let limit = input.settings.platformLimit
        return [.flag(ScoreName.overLimit, chars > limit, detail: "\(chars) > \(limit)")]
    }
}
