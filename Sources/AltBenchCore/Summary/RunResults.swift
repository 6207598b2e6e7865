import Foundation

/// A stored run, read back for summaries and reports.
public struct RunResults: Sendable, Hashable {
    public struct Info: Sendable, Hashable {
        public var id: String
        public var startedAt: Date
        public var finishedAt: Date?
        /// running, finished, stopped
        public var status: String
        /// Why a stopped run stopped.
        public var statusMessage: String?
        /// What stopped it (``StopReason/kind``): `configuration`, `interrupt`, `deadline` or
        /// `server_lost`;
        /// `nil` for a run that finished, is running, or was stored before altbench kept it.
        public var stoppedBy: String?
        public var provider: Provider
        public var providerReason: String
        public var endpoint: String
        public var datasetPath: String
        public var promptsPath: String
        public var settings: JSONValue
        public var version: String

        public init(
            id: String, startedAt: Date, finishedAt: Date? = nil, status: String, statusMessage: String? = nil,
            stoppedBy: String? = nil, provider: Provider, providerReason: String, endpoint: String, datasetPath: String,
            promptsPath: String, settings: JSONValue = .object([:]), version: String = AltBenchVersion.current
        ) {
            self.id = id
            self.startedAt = startedAt
            self.finishedAt = finishedAt
            self.status = status
            self.statusMessage = statusMessage
            self.stoppedBy = stoppedBy
            self.provider = provider
            self.providerReason = providerReason
            self.endpoint = endpoint
            self.datasetPath = datasetPath
            self.promptsPath = promptsPath
            self.settings = settings
            self.version = version
        }

        public var isMock: Bool { provider == .mock }

        /// How to finish this run, for a message about a run that is not finished: `--resume`
        /// for a run that stopped on its own terms (an interrupt, a deadline, the spending
        /// limit, a lost server), a new run for one a misconfiguration stopped (resuming would
        /// send the same requests the same way).
        public var finishAdvice: String {
            if stoppedBy == "configuration" {
                return "It stopped on a misconfiguration that its report names: fix that and start a new run with `altbench run` (it reuses every stored answer; resuming would repeat the same requests)"
            }
            return "Finish it with `altbench run --resume \(id)`"
        }
    }

    public struct Item: Sendable, Hashable {
        public var id: String
        /// Absolute file path or http(s) URL.
        public var image: String
        public var isRemote: Bool
        public var width: Int?
        public var height: Int?
        public var format: String?
        public var problem: String?
        public var references: [String]
        public var context: String?
        public var lang: String?
        public var expectedText: String?
        public var mustMention: [String]
        /// SHA-256 of a local image's bytes, as the store keeps it.
        public var imageSHA256: String?
        /// The dataset's free labels (photo, chart, sign, …).
        public var tags: [String] = []

        public init(
            id: String, image: String, isRemote: Bool, width: Int? = nil, height: Int? = nil, format: String? = nil,
            problem: String? = nil, references: [String] = [], context: String? = nil, lang: String? = nil,
            expectedText: String? = nil, mustMention: [String] = [], imageSHA256: String? = nil
        ) {
            self.imageSHA256 = imageSHA256
            self.id = id
            self.image = image
            self.isRemote = isRemote
            self.width = width
            self.height = height
            self.format = format
            self.problem = problem
            self.references = references
            self.context = context
            self.lang = lang
            self.expectedText = expectedText
            self.mustMention = mustMention
        }

        /// What the scorers know of this item.
        public var scoringItem: ScoringItem {
            ScoringItem(
                id: id, references: references, context: context, expectedText: expectedText,
                mustMention: mustMention, lang: lang)
        }
    }

    public struct TrialRow: Sendable, Hashable {
        public var variant: String
        public var maxTokens: Int?
        public var itemID: String
        public var repeatIndex: Int
        public var model: String?
        /// The answer, `nil` when the trial failed.
        public var answer: ModelAnswer?
        public var cached: Bool
        public var error: String?
        /// `ModelFailure.Kind` of a failed trial ("http", "timeout", "not_stored", ...).
        public var errorKind: String?
        public var scores: ScoreSet
        /// The estimate the plan made for this trial's request (text + image input, image part).
        public var estimatedInputTokens: Int? = nil
        public var estimatedImageTokens: Int? = nil
        /// USD the trial's request cost (0 when answered from the store); `nil` when unknown.
        public var costUSD: Double? = nil
        /// The Batch API batch that answered it (`run --batch`); `nil` for a live request.
        public var batchID: String? = nil

        public init(
            variant: String, maxTokens: Int?, itemID: String, repeatIndex: Int, model: String? = nil,
            answer: ModelAnswer?, cached: Bool = false, error: String? = nil, errorKind: String? = nil,
            scores: ScoreSet = [:]
        ) {
            self.errorKind = errorKind
            self.variant = variant
            self.maxTokens = maxTokens
            self.itemID = itemID
            self.repeatIndex = repeatIndex
            self.model = model
            self.answer = answer
            self.cached = cached
            self.error = error
            self.scores = scores
        }

        public var failed: Bool { answer == nil }
        /// The trial's row id in the store (what a judgement points to); `nil` outside a store.
        public var trialID: Int64? = nil
        /// The image detail the request asked for (`low`, `high`, `auto`), for the judge to see
        /// the image as the model did.
        public var imageDetail: ImageDetail? = nil
        /// The judge's verdicts on this answer, by repeat.
        public var judgements: [JudgementRow] = []
    }

    /// One judge call about one answer, as stored.
    public struct JudgementRow: Sendable, Hashable {
        public enum Status: String, Sendable, Hashable {
            /// The judge answered with a verdict that could be read.
            case judged
            /// The judge answered, but not with a verdict altbench could read.
            case unreadable
            /// The judge gave no answer (an HTTP error, a timeout, ...).
            case failed
        }

        public var repeatIndex: Int
        public var model: String
        public var endpoint: String
        public var rubric: String
        public var rubricSHA256: String
        public var cacheKey: String
        public var status: Status
        public var cached: Bool
        /// The verdict, 1...5 each, when `status` is `judged`.
        public var accuracy: Int?
        public var completeness: Int?
        public var concision: Int?
        /// The judge's concrete errors ("says two dogs; there is one").
        public var errors: [String]
        /// Why there is no verdict.
        public var error: String?
        public var promptTokens: Int?
        public var completionTokens: Int?
        public var costUSD: Double?

        public init(
            repeatIndex: Int, model: String, endpoint: String, rubric: String, rubricSHA256: String, cacheKey: String,
            status: Status, cached: Bool, accuracy: Int? = nil, completeness: Int? = nil, concision: Int? = nil,
            errors: [String] = [], error: String? = nil, promptTokens: Int? = nil, completionTokens: Int? = nil,
            costUSD: Double? = nil
        ) {
            self.repeatIndex = repeatIndex
            self.model = model
            self.endpoint = endpoint
            self.rubric = rubric
            self.rubricSHA256 = rubricSHA256
            self.cacheKey = cacheKey
            self.status = status
            self.cached = cached
            self.accuracy = accuracy
            self.completeness = completeness
            self.concision = concision
            self.errors = errors
            self.error = error
            self.promptTokens = promptTokens
            self.completionTokens = completionTokens
            self.costUSD = costUSD
        }
    }

    public var info: Info
    /// Variants in run order.
    public var variants: [PromptVariant]
    /// Items in dataset order.
    public var items: [Item]
    public var trials: [TrialRow]
    /// Trials the plan held (more than `trials.count` if the run stopped early).
    public var plannedTrials: Int

    public init(info: Info, variants: [PromptVariant], items: [Item], trials: [TrialRow], plannedTrials: Int) {
        self.info = info
        self.variants = variants
        self.items = items
        self.trials = trials
        self.plannedTrials = plannedTrials
    }
}
