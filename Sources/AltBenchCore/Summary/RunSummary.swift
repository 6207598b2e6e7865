import Foundation

/// Figures for one (variant, max_tokens) pair: the rows of the comparison table.
package struct SummaryRow: Sendable, Hashable {
    package var variant: String
    package var maxTokens: Int?
    /// Trials recorded for the pair (fewer than planned when the run stopped early).
    package var n: Int
    /// Trials that got no answer.
    package var errors: Int
    package var answered: Int
    package var meanChars: Double?
    package var p90Chars: Double?
    /// Shares of answered trials, 0...1.
    package var withinBudget: Double?
    package var firstPerson: Double?
    package var truncated: Double?
    package var refusals: Double?
    package var empty: Double?
    package var redundantPrefix: Double?
    package var meanBrevity: Double?
    package var meanCompletionTokens: Double?
    /// Median request latency of the answers, in milliseconds (cached answers keep theirs).
    package var p50LatencyMs: Double?
    /// Mean composite `quality` of the answered trials, 0...1.
    package var meanQuality: Double?
    /// Mean `form` half of the answered trials, 0...1.
    package var meanForm: Double?
    /// Mean `content` half over the answered trials that have one, 0...1.
    package var meanContent: Double?
    /// Answered trials whose `quality` is their form alone, as no content part was known (no
    /// references, `must_mention`, `expected_text` or judge score); reports mark the row.
    package var formOnly: Int = 0
    /// Answered trials with a `quality` score: what ``formOnly`` is counted out of.
    package var scoredQuality: Int = 0
    /// Share of answered trials with a hard fail (`quality` forced to 0).
    package var hardFails: Double?
    /// Mean of each weighted `quality` part (``QualityScorer/part(of:)``), by score id.
    package var parts: [String: Double] = [:]
    /// Share of answered trials each pass/fail check flagged, by score id.
    package var checkRates: [String: Double] = [:]
    /// Mean of graded and figure scores (readability, hedging, text_recall, ...), by score id.
    package var means: [String: Double] = [:]
    /// BLEU-4, ROUGE-L and CIDEr-D over the pair's answers, as pycocoevalcap computes them.
    package var reference: ReferenceFigures?
    /// Answers with the judge's scores (a verdict that could be read).
    package var judged: Int = 0
}

/// The reference metrics of a group of answers, over the items that have references.
package struct ReferenceFigures: Sendable, Hashable {
    /// Corpus BLEU-4 (pycocoevalcap's `Bleu(4)` score, index 3).
    package var bleu4: Double
    /// Mean ROUGE-L F (β = 1.2).
    package var rougeL: Double
    /// Mean CIDEr-D (σ = 6) with document frequencies over the run's references.
    package var ciderD: Double
    /// Answers scored: those whose item has references.
    package var count: Int

    package init(bleu4: Double, rougeL: Double, ciderD: Double, count: Int) {
        self.bleu4 = bleu4
        self.rougeL = rougeL
        self.ciderD = ciderD
        self.count = count
    }
}

/// Aggregates a run's trials per (variant, max_tokens), in variant then token-limit order.
///
/// Rates count only answered trials: a failed request says nothing about the prompt.
/// Percentiles use the nearest-rank method, so each one is a value that occurred.
package struct RunSummary: Sendable, Hashable {
    package var rows: [SummaryRow]
    package var budget: Int
    /// The scoring settings the run recorded: budgets, `quality` weights and hard fails.
    package var settings: ScoringSettings

    package init(_ results: RunResults) {
        let settings = ScoringSettings(recorded: results.info.settings)
        self.settings = settings
        budget = settings.brevityBudget
        let corpus = ReferenceCorpus(items: results.items.map(\.scoringItem))
        rows = results.trialsByPair().map { Self.row($0.key, trials: $0.trials, settings: settings, corpus: corpus) }
    }

    /// BLEU-4, ROUGE-L and CIDEr-D of `answered` against the corpus; `nil` when no answer's
    /// item has references.
    static func referenceFigures(_ answered: [RunResults.TrialRow], corpus: ReferenceCorpus) -> ReferenceFigures? {
        let answers = answered.map { (itemID: $0.itemID, text: $0.answer?.content ?? "") }
        guard let result = ReferenceMetrics.score(answers, corpus: corpus) else { return nil }
        return ReferenceFigures(bleu4: result.bleu4, rougeL: result.rougeL, ciderD: result.ciderD, count: result.count)
    }

    /// The weighted parts of `quality`, heaviest first, then by id.
    package var weightedParts: [(id: String, weight: Double)] {
        weightedParts(nil)
    }

    /// The weighted parts of one half of `quality` (all with `nil`), heaviest first, then by id.
    package func weightedParts(_ half: QualityScorer.Half?) -> [(id: String, weight: Double)] {
        settings.weights.filter { $0.value > 0 && QualityScorer.halves[$0.key].map { half == nil || $0 == half } == true }
            .sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .map { (id: $0.key, weight: $0.value) }
    }

    struct GroupKey: Hashable {
        var variant: String
        var maxTokens: Int?
    }

    /// What one score name adds up to over a pair's answers, in answer order.
    struct Tally {
        var sum = 0.0
        var count = 0
        var flagged = 0
        var passed = 0
        /// The sum and count of ``QualityScorer/part(of:)``, for the weighted parts.
        var partSum = 0.0
        var parts = 0

        var mean: Double? { count == 0 ? nil : sum / Double(count) }
        /// The share flagged among the answers that have this score.
        var rate: Double? { count == 0 ? nil : Double(flagged) / Double(count) }
    }

    static func row(
        _ key: GroupKey, trials: [RunResults.TrialRow], settings: ScoringSettings, corpus: ReferenceCorpus
    ) -> SummaryRow {
        // One pass over each answer's scores: a report reads some forty figures of every pair.
        var tallies: [String: Tally] = [:]
        var chars: [Double] = []
        var latencies: [Double] = []
        var completionTokens: [Double] = []
        var answered = 0
        var formOnly = 0
        for trial in trials where !trial.failed {
            answered += 1
            for (name, score) in trial.scores {
                tallies[name, default: Tally()].add(score, weighted: (settings.weights[name] ?? 0) > 0)
            }
            if let length = trial.scores[ScoreName.length] { chars.append(length.value) }
            if let latency = trial.answer?.latencyMs { latencies.append(latency) }
            if let tokens = trial.answer?.completionTokens { completionTokens.append(Double(tokens)) }
            if QualityScorer.isFormOnly(trial.scores) { formOnly += 1 }
        }
        func mean(_ name: String) -> Double? { tallies[name]?.mean }
        func rate(_ name: String) -> Double? { tallies[name]?.rate }
        let brevity = tallies[ScoreName.brevity]
        var row = SummaryRow(
            variant: key.variant, maxTokens: key.maxTokens, n: trials.count, errors: trials.count - answered,
            answered: answered, meanChars: Stats.mean(chars), p90Chars: Stats.percentile(chars, 0.9),
            withinBudget: brevity.flatMap { $0.passed + $0.flagged == 0 ? nil : Double($0.passed) / Double($0.passed + $0.flagged) },
            firstPerson: rate(ScoreName.firstPerson), truncated: rate(ScoreName.truncated),
            refusals: rate(ScoreName.refusal), empty: rate(ScoreName.empty),
            redundantPrefix: rate(ScoreName.redundantPrefix), meanBrevity: mean(ScoreName.brevity),
            meanCompletionTokens: Stats.mean(completionTokens),
            p50LatencyMs: Stats.percentile(latencies, 0.5))
        row.meanQuality = mean(ScoreName.quality)
        row.meanForm = mean(ScoreName.form)
        row.meanContent = mean(ScoreName.content)
        let quality = tallies[ScoreName.quality]
        row.scoredQuality = quality?.count ?? 0
        row.formOnly = formOnly
        if let quality, quality.count > 0 {
            row.hardFails = Double(quality.flagged) / Double(quality.count)
        }
        for (id, weight) in settings.weights where weight > 0 {
            if let tally = tallies[id], tally.parts > 0 { row.parts[id] = tally.partSum / Double(tally.parts) }
        }
        for id in ScoringSettings.checkIDs {
            if let rate = rate(id) { row.checkRates[id] = rate }
        }
        for id in [ScoreName.readability, ScoreName.hedging, ScoreName.textRecall, ScoreName.keywordRecall,
                   ScoreName.referenceMatch, ScoreName.emoji, ScoreName.socialTokens, ScoreName.bleu4, ScoreName.rougeL, ScoreName.ciderD,
                   ScoreName.judgeAccuracy, ScoreName.judgeCompleteness, ScoreName.judgeConcision] {
            if let mean = mean(id) { row.means[id] = mean }
        }
        row.judged = tallies[ScoreName.judgeAccuracy]?.count ?? 0
        row.reference = referenceFigures(trials.filter { !$0.failed }, corpus: corpus)
        return row
    }
}

extension RunSummary.Tally {
    mutating func add(_ score: Score, weighted: Bool) {
        sum += score.value
        count += 1
        switch score.passed {
        case true?: passed += 1
        case false?: flagged += 1
        case nil: break
        }
        if weighted, let part = QualityScorer.part(of: score) {
            partSum += part
            parts += 1
        }
    }
}

/// Small statistics used by summaries.
package enum Stats {
    package static func mean(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }

    /// Nearest-rank percentile: the smallest value with at least `p` of the values at or below it.
    package static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

extension RunResults {
    /// The trials of each (variant, max_tokens) pair, in the order every table lists the
    /// pairs: the run's variant order (baseline first), a variant the run does not list after
    /// them by name, then max_tokens ascending with "none" last.
    func trialsByPair() -> [(key: RunSummary.GroupKey, trials: [TrialRow])] {
        var order: [String: Int] = [:]
        for (index, variant) in variants.enumerated() where order[variant.name] == nil { order[variant.name] = index }
        let groups = Dictionary(grouping: trials) { RunSummary.GroupKey(variant: $0.variant, maxTokens: $0.maxTokens) }
        let keys = groups.keys.sorted {
            let a = order[$0.variant] ?? Int.max, b = order[$1.variant] ?? Int.max
            if a != b { return a < b }
            if $0.variant != $1.variant { return $0.variant < $1.variant }
            return ($0.maxTokens ?? Int.max) < ($1.maxTokens ?? Int.max)
        }
        return keys.map { ($0, groups[$0]!) }
    }
}
