import Foundation

/// What a comparison needs of one run: where its answers came from, the figures of each
/// (variant, max_tokens) pair and each item's outcome. `altbench baseline save` writes one
/// as `baseline.json`; `altbench compare` and `altbench check` read a stored run into one,
/// so a run and a baseline file compare the same way.
///
/// The file is reviewed in pull requests, so its JSON is stable: keys sorted, rows in run
/// order (variant, then token limit), items keyed by id, numbers rounded to six decimals, and
/// nothing that changes when the same answers are saved again (no timestamps of the save).
///
/// Formats: 1 held each item's hard checks as `items.<id>.checks.<check>`, the share of
/// repeats that passed, which read as the opposite of the row's failure rates beside it. 2
/// names the same values `items.<id>.passed.<check>`. Both are read; format 2 is written.
package struct RunSnapshot: Codable, Sendable, Hashable {
    /// The format of this file; bumped when a field changes meaning.
    package var format: Int
    package var altbenchVersion: String
    package var runID: String
    /// `openai` or `mock`.
    package var provider: String
    /// Every model the run's trials asked, sorted.
    package var models: [String]
    /// The endpoint's host (`api.openai.com`, `127.0.0.1:8080`), or `mock`. Never a path
    /// or query, which could carry a signed token.
    package var endpointHost: String
    package var dataset: DatasetIdentity
    /// Repeats per trial (the most any pair has).
    package var repeats: Int
    package var rows: [Row]
    /// The weight of each part of `quality` the run scored with (above 0 only), so that a
    /// comparison can compute each answer's `quality` again from its parts
    /// (``ItemOutcome/qualityParts``); nil in a file saved before altbench kept them.
    package var qualityWeights: [String: Double]? = nil

    /// The format `altbench baseline save` writes.
    package static let currentFormat = 2
    /// The formats this altbench reads.
    package static let readableFormats = 1...currentFormat
    /// The `userInfo` key through which ``load(from:displayPath:)`` tells the decoder the
    /// file's format, so that format 1 files are read by their own field names.
    package static let formatKey = CodingUserInfoKey(rawValue: "altbench.baseline-format")!

    enum CodingKeys: String, CodingKey {
        case format, provider, models, dataset, repeats, rows
        case altbenchVersion = "altbench_version"
        case runID = "run_id"
        case endpointHost = "endpoint_host"
        case qualityWeights = "quality_weights"
    }

    package init(
        format: Int = RunSnapshot.currentFormat, altbenchVersion: String, runID: String, provider: String,
        models: [String], endpointHost: String, dataset: DatasetIdentity, repeats: Int, rows: [Row]
    ) {
        self.format = format
        self.altbenchVersion = altbenchVersion
        self.runID = runID
        self.provider = provider
        self.models = models
        self.endpointHost = endpointHost
        self.dataset = dataset
        self.repeats = repeats
        self.rows = rows
    }

    /// The dataset a run used, by content: two runs on the same images and references have
    /// the same hash wherever the folder lies.
    package struct DatasetIdentity: Codable, Sendable, Hashable {
        /// The folder as the run named it.
        package var path: String
        /// SHA-256 over each item's id, image digest (or URL) and the fields the scorers read.
        package var sha256: String
        package var items: Int

        package init(path: String, sha256: String, items: Int) {
            self.path = path
            self.sha256 = sha256
            self.items = items
        }
    }

    /// One (variant, max_tokens) pair.
    package struct Row: Codable, Sendable, Hashable {
        package var variant: String
        /// `nil` when the prompt set no limit.
        package var maxTokens: Int?
        /// Trials recorded, answered and failed.
        package var n: Int
        package var answered: Int
        package var errors: Int
        /// Summary figures by name (``RunSnapshot/metricNames``): rates are shares of answered
        /// trials in 0...1, means are means over them.
        package var metrics: [String: Double]
        /// Each item's outcome, by item id.
        package var items: [String: ItemOutcome]
        /// The reason the first failed trial (in item and repeat order) got no answer, for the
        /// check's message; nil when every trial was answered. Not written to the file: a
        /// baseline is committed, and a reason can quote an endpoint or a server's words.
        package var firstError: String?
        /// SHA-256 of the variant's prompt text as written (placeholders unfilled, without the
        /// file's front matter); nil in a file saved before altbench recorded it.
        package var promptSHA256: String? = nil
        /// SHA-256 of the pair's request apart from the image: the canonical JSON of
        /// ``RequestRule/templateRequest(variant:maxTokens:)``'s key body (model, messages
        /// with the prompt and system message as written, detail, the token limit and its
        /// field, temperature, response format); nil in a file saved before altbench recorded it.
        package var requestSHA256: String? = nil
        /// That request's settings by name (``ModelRequest/settings``), so a comparison can say
        /// which changed; nil in a file saved before altbench recorded them.
        package var requestSettings: [String: String]? = nil

        enum CodingKeys: String, CodingKey {
            case variant, n, answered, errors, metrics, items
            case maxTokens = "max_tokens"
            case promptSHA256 = "prompt_sha256"
            case requestSHA256 = "request_sha256"
            case requestSettings = "request_settings"
        }

        package init(
            variant: String, maxTokens: Int?, n: Int, answered: Int, errors: Int, metrics: [String: Double],
            items: [String: ItemOutcome], firstError: String? = nil
        ) {
            self.firstError = firstError
            self.variant = variant
            self.maxTokens = maxTokens
            self.n = n
            self.answered = answered
            self.errors = errors
            self.metrics = metrics
            self.items = items
        }

        /// "variant @ 50", or "variant @ none" without a limit: how reports name the pair.
        package var label: String { "\(variant) @ \(maxTokens.map(String.init) ?? "none")" }

        /// Records what the pair asked: the hash of `prompt` (the variant's text as written),
        /// and the hash and settings of `request`, the pair's request apart from the image.
        package mutating func recordRequest(_ request: ModelRequest, prompt: String) {
            promptSHA256 = Hashing.sha256Hex(prompt)
            requestSHA256 = Hashing.sha256Hex(request.keyBody().canonicalText)
            requestSettings = request.settings
        }
    }

    /// One item's answers in one pair, repeats folded in.
    package struct ItemOutcome: Codable, Sendable, Hashable {
        /// For each hard check, the share of the item's answered repeats that passed it: 1 is
        /// passed, 0 failed, between them the repeats disagree. (The row's `metrics` hold the
        /// opposite: the share of answered trials that failed.)
        package var passed: [String: Double]
        /// Mean composite `quality` over the answered repeats.
        package var quality: Double?
        /// Mean `judge_accuracy` over the judged repeats; `nil` when none was judged.
        package var judgeAccuracy: Double? = nil
        /// Answered repeats, out of `repeats` asked.
        package var answered: Int
        package var repeats: Int
        /// The first answered repeat's text, to show beside the other side's.
        package var answer: String?
        /// What each answered repeat's `quality` is made of, in repeat order; nil in a file
        /// saved before altbench kept them.
        package var qualityParts: [AnswerParts]? = nil

        package init(passed: [String: Double], quality: Double?, answered: Int, repeats: Int, answer: String?) {
            self.passed = passed
            self.quality = quality
            self.answered = answered
            self.repeats = repeats
            self.answer = answer
        }

        enum CodingKeys: String, CodingKey {
            case passed, quality, answered, repeats, answer
            case judgeAccuracy = "judge_accuracy"
            case qualityParts = "quality_parts"
        }

        /// Format 1's name for `passed`.
        enum FormatOneKeys: String, CodingKey {
            case checks
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if decoder.userInfo[RunSnapshot.formatKey] as? Int == 1 {
                passed = try decoder.container(keyedBy: FormatOneKeys.self).decode([String: Double].self, forKey: .checks)
            } else {
                passed = try container.decode([String: Double].self, forKey: .passed)
            }
            quality = try container.decodeIfPresent(Double.self, forKey: .quality)
            judgeAccuracy = try container.decodeIfPresent(Double.self, forKey: .judgeAccuracy)
            answered = try container.decode(Int.self, forKey: .answered)
            repeats = try container.decode(Int.self, forKey: .repeats)
            answer = try container.decodeIfPresent(String.self, forKey: .answer)
            qualityParts = try container.decodeIfPresent([AnswerParts].self, forKey: .qualityParts)
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(passed, forKey: .passed)
            try container.encodeIfPresent(quality, forKey: .quality)
            try container.encodeIfPresent(judgeAccuracy, forKey: .judgeAccuracy)
            try container.encode(answered, forKey: .answered)
            try container.encode(repeats, forKey: .repeats)
            try container.encodeIfPresent(answer, forKey: .answer)
            try container.encodeIfPresent(qualityParts, forKey: .qualityParts)
        }
    }

    /// One answer's `quality` as parts (``QualityScorer/Parts``) without their weights, which
    /// the snapshot holds once (``RunSnapshot/qualityWeights``).
    package struct AnswerParts: Codable, Sendable, Hashable {
        /// Each weighted part present, by score id, in 0...1.
        package var parts: [String: Double]
        /// The hard checks that flagged the answer, in score order.
        package var hardFails: [String]

        package init(parts: [String: Double], hardFails: [String] = []) {
            self.parts = parts
            self.hardFails = hardFails
        }

        init(_ parts: QualityScorer.Parts) {
            self.parts = Dictionary(parts.parts.map { ($0.name, RunSnapshot.rounded($0.value)) }, uniquingKeysWith: { first, _ in first })
            hardFails = parts.failed
        }

        /// The parts with their weights from `weights`, in score id order.
        func scorerParts(weights: [String: Double]) -> QualityScorer.Parts {
            QualityScorer.Parts(
                parts: parts.keys.sorted().compactMap { name in
                    weights[name].map { QualityScorer.Parts.Part(name: name, value: parts[name]!, weight: $0) }
                },
                failed: hardFails)
        }

        enum CodingKeys: String, CodingKey {
            case parts
            case hardFails = "hard_fails"
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            parts = try container.decode([String: Double].self, forKey: .parts)
            hardFails = try container.decodeIfPresent([String].self, forKey: .hardFails) ?? []
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(parts, forKey: .parts)
            if !hardFails.isEmpty { try container.encode(hardFails, forKey: .hardFails) }
        }
    }

    /// The summary figures a snapshot row holds, in report order.
    package static let metricNames: [String] = [
        "quality", "form", "content", "form_only", "hard_fails", "length_mean", "length_p90", "within_budget", "completion_tokens_mean",
    ] + ScoringSettings.checkIDs + [
        ScoreName.bleu4, ScoreName.rougeL, ScoreName.ciderD, ScoreName.judgeAccuracy, ScoreName.judgeCompleteness,
        ScoreName.judgeConcision,
    ]

    /// The row for a pair, if the snapshot has it.
    package func row(variant: String, maxTokens: Int?) -> Row? {
        rows.first { $0.variant == variant && $0.maxTokens == maxTokens }
    }
}

extension RunSnapshot {
    /// The snapshot of a stored run.
    package init(_ results: RunResults) {
        let summary = RunSummary(results)
        let hardChecks = ScoringSettings.checkIDs.filter(summary.settings.hardFails.contains)
        var groups: [RunSummary.GroupKey: [RunResults.TrialRow]] = [:]
        for trial in results.trials {
            groups[RunSummary.GroupKey(variant: trial.variant, maxTokens: trial.maxTokens), default: []].append(trial)
        }
        let rule = RequestRule(recorded: results.info.settings)
        let variants = Dictionary(results.variants.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = summary.rows.map { row -> Row in
            let trials = groups[RunSummary.GroupKey(variant: row.variant, maxTokens: row.maxTokens)] ?? []
            let firstFailure = trials.filter(\.failed).min { ($0.itemID, $0.repeatIndex) < ($1.itemID, $1.repeatIndex) }
            var snapshotRow = Row(
                variant: row.variant, maxTokens: row.maxTokens, n: row.n, answered: row.answered, errors: row.errors,
                metrics: Self.metrics(of: row), items: Self.outcomes(trials, hardChecks: hardChecks, settings: summary.settings),
                firstError: firstFailure.map { $0.error ?? "no reason recorded" })
            if let variant = variants[row.variant] {
                snapshotRow.recordRequest(rule.templateRequest(variant: variant, maxTokens: row.maxTokens), prompt: variant.text)
            }
            return snapshotRow
        }
        let models = Set(results.trials.compactMap(\.model))
        self.init(
            altbenchVersion: results.info.version, runID: results.info.id, provider: results.info.provider.rawValue,
            models: models.sorted(), endpointHost: Self.host(of: results.info.endpoint, provider: results.info.provider),
            dataset: DatasetIdentity(
                path: results.info.datasetPath, sha256: Self.datasetHash(results.items), items: results.items.count),
            repeats: results.trials.map { $0.repeatIndex + 1 }.max() ?? 1, rows: rows)
        qualityWeights = summary.settings.weights.filter { $0.value > 0 }
    }

    static func metrics(of row: SummaryRow) -> [String: Double] {
        var metrics: [String: Double] = [:]
        func put(_ name: String, _ value: Double?) {
            if let value, value.isFinite { metrics[name] = rounded(value) }
        }
        put("quality", row.meanQuality)
        put("form", row.meanForm)
        put("content", row.meanContent)
        // The share of answered trials scored on form alone; left out when none was, so a
        // snapshot says it only when reports must mark the pair's quality.
        if row.formOnly > 0, row.scoredQuality > 0 { put("form_only", Double(row.formOnly) / Double(row.scoredQuality)) }
        put("hard_fails", row.hardFails)
        put("length_mean", row.meanChars)
        put("length_p90", row.p90Chars)
        put("within_budget", row.withinBudget)
        put("completion_tokens_mean", row.meanCompletionTokens)
        for (id, rate) in row.checkRates { put(id, rate) }
        put(ScoreName.bleu4, row.reference?.bleu4)
        put(ScoreName.rougeL, row.reference?.rougeL)
        put(ScoreName.ciderD, row.reference?.ciderD)
        for id in [ScoreName.judgeAccuracy, ScoreName.judgeCompleteness, ScoreName.judgeConcision] { put(id, row.means[id]) }
        return metrics
    }

    static func outcomes(
        _ trials: [RunResults.TrialRow], hardChecks: [String], settings: ScoringSettings
    ) -> [String: ItemOutcome] {
        var byItem: [String: [RunResults.TrialRow]] = [:]
        for trial in trials { byItem[trial.itemID, default: []].append(trial) }
        return byItem.mapValues { repeats in
            let sorted = repeats.sorted { $0.repeatIndex < $1.repeatIndex }
            let answered = sorted.filter { !$0.failed }
            var passed: [String: Double] = [:]
            for id in hardChecks {
                let passes = answered.compactMap { $0.scores[id]?.passed }
                guard !passes.isEmpty else { continue }
                passed[id] = rounded(Double(passes.filter { $0 }.count) / Double(passes.count))
            }
            let qualities = answered.compactMap { $0.scores[ScoreName.quality]?.value }
            var outcome = ItemOutcome(
                passed: passed, quality: Stats.mean(qualities).map(rounded), answered: answered.count,
                repeats: sorted.count, answer: answered.first?.answer?.content)
            outcome.judgeAccuracy = Stats.mean(answered.compactMap { $0.scores[ScoreName.judgeAccuracy]?.value }).map(rounded)
            // The parts of each answer that has a quality, so a comparison can compute it again.
            outcome.qualityParts = answered.filter { $0.scores[ScoreName.quality] != nil }.map { trial in
                AnswerParts(QualityScorer.parts(of: trial.scores.values.sorted { $0.name < $1.name }, settings: settings))
            }
            return outcome
        }
    }

    /// Six decimals: enough for any figure a report shows, and stable across platforms'
    /// last-bit differences.
    static func rounded(_ value: Double) -> Double {
        (value * 1_000_000).rounded() / 1_000_000
    }

    /// The host (and port) of `endpoint`, or `mock`.
    package static func host(of endpoint: String, provider: Provider) -> String {
        guard provider != .mock else { return "mock" }
        guard let components = URLComponents(string: endpoint), let host = components.host else { return "unknown" }
        return components.port.map { "\(host):\($0)" } ?? host
    }

    /// SHA-256 over the items in id order: id, image digest or URL, and the fields the
    /// scorers read, one JSON object per line.
    static func datasetHash(_ items: [RunResults.Item]) -> String {
        let lines = items.sorted { $0.id < $1.id }.map { item -> String in
            let object: JSONValue = .object([
                "id": .string(item.id),
                "image": .string(item.imageSHA256 ?? (item.isRemote ? item.image : URL(fileURLWithPath: item.image).lastPathComponent)),
                "references": .array(item.references.map { .string($0) }),
                "context": item.context.map { .string($0) } ?? .null,
                "lang": item.lang.map { .string($0) } ?? .null,
                "expected_text": item.expectedText.map { .string($0) } ?? .null,
                "must_mention": .array(item.mustMention.map { .string($0) }),
            ])
            return object.canonicalText
        }
        return Hashing.sha256Hex(lines.joined(separator: "\n"))
    }
}

extension RunSnapshot {
    /// The snapshot as `baseline.json` holds it: pretty-printed, keys sorted, a final newline.
    package func encodedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// Reads a baseline file of any readable format (format 1 is upgraded as it is read), with
    /// errors that name the file and the field at fault.
    package static func load(from url: URL, displayPath: String? = nil) throws -> RunSnapshot {
        let name = displayPath ?? url.path
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw AltBenchError.badBaseline(
                file: name, reason: "cannot be read. Save one with `altbench baseline save --output \(name)`.")
        }
        let format = (try? JSONValue.parse(data))?["format"]?.intValue
        if let format, !readableFormats.contains(format) {
            let reads = "this altbench reads formats \(readableFormats.lowerBound) to \(readableFormats.upperBound)"
            throw AltBenchError.badBaseline(
                file: name,
                reason: format > currentFormat
                    ? "has format \(format), written by a newer altbench; \(reads). Update altbench, or save the baseline again with this one."
                    : "has format \(format), which no altbench writes; \(reads). Save it again with `altbench baseline save`.")
        }
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[formatKey] = format ?? currentFormat
            var snapshot = try decoder.decode(RunSnapshot.self, from: data)
            // Read into today's fields, so the value is the current format whatever the file's.
            snapshot.format = currentFormat
            return snapshot
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            throw AltBenchError.badBaseline(file: name, reason: "is not JSON. Save it again with `altbench baseline save`.")
        } catch let error as DecodingError {
            throw AltBenchError.badBaseline(file: name, reason: Self.describe(error))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
        }
        return switch error {
        case .keyNotFound(let key, let context):
            "lacks `\(key.stringValue)` at \(path(context.codingPath)). Save it again with `altbench baseline save`."
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            "has a bad value at \(path(context.codingPath)): \(context.debugDescription) Save it again with `altbench baseline save`."
        @unknown default:
            "cannot be read: \(error). Save it again with `altbench baseline save`."
        }
    }
}
