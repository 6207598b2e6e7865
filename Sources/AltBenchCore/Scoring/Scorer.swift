import Foundation

/// One judgement of one answer.
///
/// Pass/fail scorers (`empty`, `first_person`, `truncated`, ...) store `value` 1 when the
/// answer is flagged and 0 when it is not, with `passed` the opposite, so that
/// `avg(value)` in SQL is the rate of flagged answers. Figures (`chars`, `words`) have
/// `passed == nil`. Graded scorers (`brevity`) hold a value in 0...1.
public struct Score: Sendable, Hashable, Codable {
    /// Stable name, also the column name in the `trial_result` SQL view.
    public var name: String
    public var value: Double
    /// `true` when the answer is fine on this count, `false` when flagged, `nil` for figures.
    public var passed: Bool?
    /// Evidence for a flag, e.g. the first-person words found. Short; never the whole text.
    public var detail: String?

    public init(name: String, value: Double, passed: Bool? = nil, detail: String? = nil) {
        self.name = name
        self.value = value
        self.passed = passed
        self.detail = detail
    }

    /// A pass/fail score: value 1 and `passed == false` when `flagged`.
    public static func flag(_ name: String, _ flagged: Bool, detail: String? = nil) -> Score {
        Score(name: name, value: flagged ? 1 : 0, passed: !flagged, detail: flagged ? detail : nil)
    }

    /// Whether this pass/fail score flagged the answer.
    public var isFlagged: Bool { passed == false }
}

/// The names every v1 scorer writes, used by the summary, the store's view and reports.
public enum ScoreName {
    public static let empty = "empty"
    public static let chars = "chars"
    public static let words = "words"
    public static let brevity = "brevity"
    public static let overLimit = "over_limit"
    public static let firstPerson = "first_person"
    public static let truncated = "truncated"
    public static let refusal = "refusal"
    public static let redundantPrefix = "redundant_prefix"
}

/// Budgets the scorers judge against; set in `altbench.yml`.
public struct ScoringSettings: Sendable, Hashable, Codable {
    /// Characters (Unicode scalars) an answer may use and still count as brief.
    public var brevityBudget: Int
    /// The platform's hard limit on a media description (Mastodon: 1,500 code points).
    public var platformLimit: Int

    public init(brevityBudget: Int = 150, platformLimit: Int = 1500) {
        self.brevityBudget = brevityBudget
        self.platformLimit = platformLimit
    }
}

/// What a scorer looks at: one answer as the model returned it.
public struct ScoringInput: Sendable, Hashable {
    /// `choices[0].message.content`; `nil` when the model sent none (e.g. a refusal).
    public let content: String?
    /// `choices[0].message.refusal`, set by models that refuse through the dedicated field.
    public let refusal: String?
    /// `choices[0].finish_reason`: "stop", "length", "content_filter", ... or `nil`.
    public let finishReason: String?
    public let settings: ScoringSettings
    /// The answer as the app would show it: content with leading and trailing whitespace
    /// removed (Ice Cubes trims the reply), or "" when there is none. Trimmed once here, since
    /// every scorer reads it.
    public let text: String

    public init(
        content: String?, refusal: String? = nil, finishReason: String? = nil,
        settings: ScoringSettings = ScoringSettings()
    ) {
        self.content = content
        self.refusal = refusal
        self.finishReason = finishReason
        self.settings = settings
        self.text = (content ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A deterministic, pure judgement of an answer. One type per rule, one file per type.
public protocol Scorer: Sendable {
    /// The scores this scorer writes (most write one).
    func score(_ input: ScoringInput) -> [Score]
}
