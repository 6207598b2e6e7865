import Foundation

/// A stored run, read back for summaries and reports.
package struct RunResults: Sendable, Hashable {
    package struct Info: Sendable, Hashable {
        package var id: String
        package var startedAt: Date
        package var finishedAt: Date?
        /// running, finished, stopped
        package var status: String
        /// Why a stopped run stopped.
        package var statusMessage: String?
        /// What stopped it (``StopReason/kind``): `configuration`, `interrupt`, `deadline` or
        /// `server_lost`;
        /// `nil` for a run that finished, is running, or was stored before altbench kept it.
        package var stoppedBy: String?
        package var provider: Provider
        package var providerReason: String
        package var endpoint: String
        package var datasetPath: String
        package var promptsPath: String
        package var settings: JSONValue
        package var version: String

        package init(
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

        package var isMock: Bool { provider == .mock }

        /// How to finish this run, for a message about a run that is not finished: `--resume`
        /// for a run that stopped on its own terms (an interrupt, a deadline, the spending
        /// limit, a lost server), a new run for one a misconfiguration stopped (resuming would
        /// send the same requests the same way).
        package var finishAdvice: String {
            if stoppedBy == "configuration" {
                return "It stopped on a misconfiguration that its report names: fix that and start a new run with `altbench run` (it reuses every stored answer; resuming would repeat the same requests)"
            }
            return "Finish it with `altbench run --resume \(id)`"
        }
    }

    package struct Item: Sendable, Hashable {
        package var id: String
        /// Absolute file path or http(s) URL.
        package var image: String
        package var isRemote: Bool
        package var width: Int?
        package var height: Int?
        package var format: String?
        package var problem: String?
        package var references: [String]
        package var context: String?
        package var lang: String?
        package var expectedText: String?
        package var mustMention: [String]
        /// SHA-256 of a local image's bytes, as the store keeps it.
        package var imageSHA256: String?
        /// The dataset's free labels (photo, chart, sign, …).
        package var tags: [String] = []

        package init(
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
        package var scoringItem: ScoringItem {
            ScoringItem(
                id: id, references: references, context: context, expectedText: expectedText,
                mustMention: mustMention, lang: lang)
        }
    }

    package struct TrialRow: Sendable, Hashable {
        package var variant: String
        package var maxTokens: Int?
        package var itemID: String
        package var repeatIndex: Int
        package var model: String?
        /// The answer, `nil` when the trial failed.
        package var answer: ModelAnswer?
        package var cached: Bool
        package var error: String?
        /// `ModelFailure.Kind` of a failed trial ("http", "timeout", "not_stored", ...).
        package var errorKind: String?
        package var scores: ScoreSet
        /// The estimate the plan made for this trial's request (text + image input, image part).
        package var estimatedInputTokens: Int? = nil
        package var estimatedImageTokens: Int? = nil
        /// USD the trial's request cost (0 when answered from the store); `nil` when unknown.
        package var costUSD: Double? = nil
        /// The Batch API batch that answered it (`run --batch`); `nil` for a live request.
        package var batchID: String? = nil

        package init(
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

        package var failed: Bool { answer == nil }
        /// The trial's row id in the store (what a judgement points to); `nil` outside a store.
        package var trialID: Int64? = nil
        /// The image detail the request asked for (`low`, `high`, `auto`), for the judge to see
        /// the image as the model did.
        package var imageDetail: ImageDetail? = nil
        /// The judge's verdicts on this answer, by repeat.
        package var judgements: [JudgementRow] = []
    }

    /// One judge call about one answer, as stored.
    package struct JudgementRow: Sendable, Hashable {
        package enum Status: String, Sendable, Hashable {
            /// The judge answered with a verdict that could be read.
            case judged
            /// The judge answered, but not with a verdict altbench could read.
            case unreadable
            /// The judge gave no answer (an HTTP error, a timeout, ...).
            case failed
        }

        package var repeatIndex: Int
        package var model: String
        package var endpoint: String
        package var rubric: String
        package var rubricSHA256: String
        package var cacheKey: String
        package var status: Status
        package var cached: Bool
        /// The verdict, 1...5 each, when `status` is `judged`.
        package var accuracy: Int?
        package var completeness: Int?
        package var concision: Int?
        /// The judge's concrete errors ("says two dogs; there is one").
        package var errors: [String]
        /// Why there is no verdict.
        package var error: String?
        package var promptTokens: Int?
        package var completionTokens: Int?
        package var costUSD: Double?

        package init(
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

    package var info: Info
    /// Variants in run order.
    package var variants: [PromptVariant]
    /// Items in dataset order.
    package var items: [Item]
    package var trials: [TrialRow]
    /// Trials the plan held (more than `trials.count` if the run stopped early).
    package var plannedTrials: Int

    package init(info: Info, variants: [PromptVariant], items: [Item], trials: [TrialRow], plannedTrials: Int) {
        self.info = info
        self.variants = variants
        self.items = items
        self.trials = trials
        self.plannedTrials = plannedTrials
    }
}
