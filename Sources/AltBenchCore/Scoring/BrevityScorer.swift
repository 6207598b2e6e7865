/// Grades brevity: 1 up to the budget, falling linearly to 0 at the platform limit (WebAIM: succinct).
///
/// The budget defaults to 150 Unicode scalars (linters use 100-150; the 125 convention comes
/// from old JAWS versions) and the limit to Mastodon's 1,500. A soft score, since no screen
/// reader cuts alt text at 125 or 150 characters: `passed` says whether the answer is within
/// the budget, `value` how far over it the answer is.
public struct BrevityScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        let chars = input.scalarCount
        let budget = input.settings.brevityBudget
        let within = chars <= budget
        return [
            Score(
                name: ScoreName.brevity,
                value: Self.value(chars: chars, budget: budget, limit: input.settings.platformLimit),
                passed: within,
                detail: within ? nil : "\(chars) > \(budget)"
            )
        ]
    }

    /// 1 at or under `budget`, 0 at or over `limit`, linear between. A limit at or below
    /// the budget leaves no slope: anything over the budget scores 0.
    static func value(chars: Int, budget: Int, limit: Int) -> Double {
        if chars <= budget { return 1 }
        if chars >= limit { return 0 }
        return Double(limit - chars) / Double(limit - budget)
    }
}
