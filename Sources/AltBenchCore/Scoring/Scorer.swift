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

/// The stable ids of altbench's scores, used as keys in JSON, as `score.name` in SQLite and in
/// reports. Most scorers write one score under their own id; `length` also writes `words`.
public enum ScoreName {
    public static let empty = "empty"
    /// Unicode scalars of the trimmed answer (what Mastodon counts).
    public static let length = "length"
    /// Whitespace-separated words, the second figure of the `length` scorer.
    public static let words = "words"
    public static let brevity = "brevity"
    public static let overLimit = "over_limit"
    public static let firstPerson = "first_person"
    public static let perceptionMeta = "perception_meta"
    public static let redundantPrefix = "redundant_prefix"
    public static let metaLabel = "meta_label"
    public static let refusal = "refusal"
    public static let truncated = "truncated"
    public static let terminalPunctuation = "terminal_punctuation"
    public static let filename = "filename"
    public static let markdown = "markdown"
    public static let emoji = "emoji"
    public static let socialTokens = "social_tokens"
    public static let hedging = "hedging"
    public static let readability = "readability"
    public static let textRecall = "text_recall"
    public static let keywordRecall = "keyword_recall"
    public static let contextEcho = "context_echo"
    public static let bleu4 = "bleu4"
    public static let rougeL = "rougeL"
    public static let ciderD = "ciderD"
    /// Agreement with the item's human references, normalised by how well they agree with one
    /// another (``ReferenceMatchScorer``).
    public static let referenceMatch = "reference_match"
    /// Written after a judge call: how accurate the judge found the answer, 0...1.
    public static let judgeAccuracy = "judge_accuracy"
    /// Written after a judge call: how complete the judge found the answer, 0...1.
    public static let judgeCompleteness = "judge_completeness"
    /// Written after a judge call: how concise the judge found the answer, 0...1.
    public static let judgeConcision = "judge_concision"
    /// The form half of `quality`: how the answer reads as alt text (``QualityScorer``).
    public static let form = "form"
    /// The content half of `quality`: how much of the image the answer gets right.
    public static let content = "content"
    public static let quality = "quality"
}

/// Budgets and weights the scorers judge with; set under `scoring:` in `altbench.yml`.
public struct ScoringSettings: Sendable, Hashable, Codable {
    /// Characters (Unicode scalars) an answer may use and still count as brief.
    public var brevityBudget: Int
    /// The platform's hard limit on a media description (Mastodon: 1,500 code points).
    public var platformLimit: Int
    /// Hedges ("appears to", "probably") a sentence may carry before `hedging` drops below 1.
    public var freeHedgesPerSentence: Int
    /// The share of an answer's words found in order in the post text at or above which the
    /// answer is flagged as echoing the post (`context_echo`).
    public var contextEchoThreshold: Double
    /// The weight of each 0...1 part of `quality`, by score id; each part weighs within its
    /// half (``QualityScorer/halves``), so one flat map serves both.
    public var weights: [String: Double]
    /// The pass/fail checks whose failure forces `quality` to 0, by score id.
    public var hardFails: Set<String>

    public init(
        brevityBudget: Int = 150, platformLimit: Int = 1500, freeHedgesPerSentence: Int = 1,
        contextEchoThreshold: Double = 0.8, weights: [String: Double] = ScoringSettings.defaultWeights,
        hardFails: Set<String> = ScoringSettings.defaultHardFails
    ) {
        self.brevityBudget = brevityBudget
        self.platformLimit = platformLimit
        self.freeHedgesPerSentence = freeHedgesPerSentence
        self.contextEchoThreshold = contextEchoThreshold
        self.weights = weights
        self.hardFails = hardFails
    }

    /// The default weights of `quality`'s parts, each within its half.
    ///
    /// Content: the text in the image (W3C: it must be in the alt), agreement with the human
    /// references and the judge's accuracy weigh 2, the must-mention terms and the judge's
    /// completeness 1. Text and references weigh alike because either alone can be gamed (a
    /// transcript with no description, a paraphrase that drops the sign); the terms weigh
    /// less because two or three words decide them. On the sample these weights keep a wrong
    /// sentence below 0.35 and a correct short description above 0.75 with margin
    /// (``QualityCalibration``). Form: brevity and the judge's concision weigh 1, style parts
    /// half.
    public static let defaultWeights: [String: Double] = [
        ScoreName.textRecall: 2,
        ScoreName.keywordRecall: 1,
        ScoreName.referenceMatch: 2,
        ScoreName.judgeAccuracy: 2,
        ScoreName.judgeCompleteness: 1,
        ScoreName.brevity: 1,
        ScoreName.judgeConcision: 1,
        ScoreName.hedging: 0.5,
        ScoreName.terminalPunctuation: 0.5,
        ScoreName.emoji: 0.5,
        ScoreName.socialTokens: 0.5,
    ]

    /// The settings a run recorded (``Experiment/recordedSettings``), with defaults for what
    /// an older run did not record.
    public init(recorded settings: JSONValue) {
        let defaults = ScoringSettings()
        self.init(
            brevityBudget: settings["brevity_budget"]?.intValue ?? defaults.brevityBudget,
            platformLimit: settings["platform_limit"]?.intValue ?? defaults.platformLimit,
            freeHedgesPerSentence: settings["free_hedges_per_sentence"]?.intValue ?? defaults.freeHedgesPerSentence,
            contextEchoThreshold: settings["context_echo_threshold"]?.doubleValue ?? defaults.contextEchoThreshold,
            weights: settings["quality_weights"]?.objectValue?.compactMapValues(\.doubleValue) ?? defaults.weights,
            hardFails: settings["hard_fails"]?.arrayValue.map { Set($0.compactMap(\.stringValue)) } ?? defaults.hardFails)
    }

    /// The settings as a run records them, read back by ``init(recorded:)``.
    public var recorded: [String: JSONValue] {
        [
            "brevity_budget": .int(brevityBudget),
            "platform_limit": .int(platformLimit),
            "free_hedges_per_sentence": .int(freeHedgesPerSentence),
            "context_echo_threshold": .double(contextEchoThreshold),
            "quality_weights": .object(weights.filter { $0.value > 0 }.mapValues { .double($0) }),
            "hard_fails": .array(hardFails.sorted().map { .string($0) }),
        ]
    }

    /// The scores with a pass/fail reading, which `hard_fails` may list.
    public static let checkIDs: [String] = [
        ScoreName.empty, ScoreName.brevity, ScoreName.overLimit, ScoreName.firstPerson, ScoreName.perceptionMeta,
        ScoreName.redundantPrefix, ScoreName.metaLabel, ScoreName.refusal, ScoreName.truncated,
        ScoreName.terminalPunctuation, ScoreName.filename, ScoreName.markdown, ScoreName.emoji,
        ScoreName.socialTokens, ScoreName.hedging, ScoreName.contextEcho,
    ]

    /// The checks that make an answer unusable as posted, each a "fail" in the scoring research.
    public static let defaultHardFails: Set<String> = [
        ScoreName.empty, ScoreName.overLimit, ScoreName.firstPerson, ScoreName.perceptionMeta,
        ScoreName.redundantPrefix, ScoreName.metaLabel, ScoreName.refusal, ScoreName.truncated,
        ScoreName.filename, ScoreName.markdown, ScoreName.contextEcho,
    ]
}

/// What the dataset knows about the image an answer describes. Empty when an answer is
/// scored without a dataset; scorers that need a field it lacks write no score.
public struct ScoringItem: Sendable, Hashable {
    public var id: String
    /// Human-written alt texts, for the reference metrics.
    public var references: [String]
    /// The post text the image is attached to.
    public var context: String?
    /// Text visible in the image, transcribed.
    public var expectedText: String?
    /// Terms a good description names.
    public var mustMention: [String]
    public var lang: String?

    public init(
        id: String = "", references: [String] = [], context: String? = nil, expectedText: String? = nil,
        mustMention: [String] = [], lang: String? = nil
    ) {
        self.id = id
        self.references = references
        self.context = context
        self.expectedText = expectedText
        self.mustMention = mustMention
        self.lang = lang
    }

    public init(_ item: DatasetItem) {
        self.init(
            id: item.id, references: item.references, context: item.context, expectedText: item.expectedText,
            mustMention: item.mustMention, lang: item.lang)
    }
}

/// What a scorer looks at: one answer as the model returned it, and what the dataset knows
/// about its image.
public struct ScoringInput: Sendable {
    /// `choices[0].message.content`; `nil` when the model sent none (e.g. a refusal).
    public let content: String?
    /// `choices[0].message.refusal`, set by models that refuse through the dedicated field.
    public let refusal: String?
    /// `choices[0].finish_reason`: "stop", "length", "content_filter", ... or `nil`.
    public let finishReason: String?
    public let settings: ScoringSettings
    public let item: ScoringItem
    /// The run's reference corpus, for CIDEr-D's document frequencies; `nil` scores the
    /// reference metrics against the item's own references alone.
    public let corpus: ReferenceCorpus?
    /// The answer as the app would show it: content with leading and trailing whitespace
    /// removed (Ice Cubes trims the reply), or "" when there is none. Trimmed once here, since
    /// every scorer reads it.
    public let text: String
    /// `text`'s length in Unicode scalars, what Mastodon counts.
    public let scalarCount: Int
    /// `text` as `Character`s, split once for every scorer.
    public let characters: [Character]
    /// The words of `text` (``TextAnalysis/words(in:)``), split once for every scorer.
    public let words: [TextAnalysis.Word]
    let quotedSpanCache = OnceCache<[TextAnalysis.QuotedSpan]>()
    let termCache = OnceCache<(words: [String], stems: [String])>()
    let ownVoiceCache = OnceCache<(characters: [Character], words: [TextAnalysis.Word])>()
    /// The answer's BLEU-4, ROUGE-L and CIDEr-D (``ReferenceMetrics/answerFigures(_:)``),
    /// worked out by the first reference scorer that needs them and shared with the others.
    let referenceFigures = OnceCache<(bleu4: Double, rougeL: Double, ciderD: Double)?>()

    public init(
        content: String?, refusal: String? = nil, finishReason: String? = nil,
        settings: ScoringSettings = ScoringSettings(), item: ScoringItem = ScoringItem(),
        corpus: ReferenceCorpus? = nil
    ) {
        self.content = content
        self.refusal = refusal
        self.finishReason = finishReason
        self.settings = settings
        self.item = item
        self.corpus = corpus
        let text = TextAnalysis.trimmed(content ?? "")
        self.text = text
        (self.characters, self.words) = TextAnalysis.split(text)
        // A scalar starts at every UTF-8 byte that is not a continuation byte.
        self.scalarCount = text.utf8.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }

    /// The quoted spans of ``characters`` (``TextAnalysis/quotedSpans(in:)``), found once
    /// for all the scorers that set quotations aside.
    var quotedSpans: [TextAnalysis.QuotedSpan] {
        let characters = characters
        return quotedSpanCache.value { TextAnalysis.quotedSpans(in: characters) }
    }

    /// The answer's words as the recall scorers match them (``TermMatching/words(in:splitHashtags:)``)
    /// and their stems (``TermMatching/stem(_:)``), worked out once for all of them.
    var terms: (words: [String], stems: [String]) {
        let text = text
        return termCache.value {
            let words = TermMatching.words(in: text)
            return (words, words.map(TermMatching.stem))
        }
    }
}

/// A deterministic, pure judgement of an answer. One type per rule, one file per type.
public protocol Scorer: Sendable {
    /// The scores this scorer writes (most write one; none when the input lacks what the
    /// scorer needs, e.g. `text_recall` for an image with no text).
    func score(_ input: ScoringInput) -> [Score]
}

/// A value computed at most once, on first use, by whichever thread asks first.
final class OnceCache<Value: Sendable>: @unchecked Sendable {
    // `value` is written once under the lock and never changed after.
    private let lock = NSLock()
    private var stored: Value?
    private var done = false

    func value(_ make: () -> Value) -> Value {
        lock.lock()
        defer { lock.unlock() }
        if done, let stored { return stored }
        let made = make()
        stored = made
        done = true
        return made
    }
}
