extension ScoreName {
    /// The vision judge's accuracy, 1...5 mapped to 0...1; its detail lists the judge's errors.
    public static let judgeAccuracy = "judge_accuracy"
    /// The vision judge's completeness, 1...5 mapped to 0...1.
    public static let judgeCompleteness = "judge_completeness"
    /// The vision judge's concision, 1...5 mapped to 0...1.
    public static let judgeConcision = "judge_concision"
}
