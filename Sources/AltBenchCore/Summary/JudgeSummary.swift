import Foundation

/// What a run's judge did and how far to trust it: its calls, tokens and cost; how often it
/// agrees with the references; and, with repeats, with itself.
///
/// The judge is checked, not trusted. Its accuracy grade is set against what the dataset says
/// without it — `reference_match`, or `keyword_recall` for an item without references — on
/// one split each: the judge calls an answer inaccurate at accuracy 2 or below and accurate at
/// 4 or above (3 is undecided), and the references reject it below 0.5 and accept it from 0.5.
/// The agreement is the share of answers with both a decided verdict and a reference figure
/// on which the two splits agree, with Cohen's kappa for the agreement chance would give.
package struct JudgeSummary: Sendable, Hashable {
    /// The judge as the run recorded it (`settings.judge`).
    package var model: String
    package var endpoint: String?
    package var rubric: String?
    package var isMock: Bool

    /// Judge calls stored: with a verdict, answered without one, failed; from the cache.
    package var judged: Int
    package var unreadable: Int
    package var failed: Int
    package var cached: Int
    /// Answered trials with no judgement at all (judged before they were asked, or skipped).
    package var unjudgedAnswers: Int
    /// The reasons calls gave no verdict, most frequent first, with their counts.
    package var problems: [Problem]

    /// Tokens the judge's requests reported (cached calls count nothing).
    package var promptTokens: Int
    package var completionTokens: Int
    /// USD, `nil` when some call's cost is unknown.
    package var costUSD: Double?

    /// The agreement with the references, `nil` when no answer has both a decided verdict
    /// and a reference figure.
    package var agreement: Agreement?
    /// The judge's agreement with itself, `nil` without repeats.
    package var stability: Stability?

    /// A reason calls gave no verdict, and how many gave it.
    package struct Problem: Sendable, Hashable {
        package var reason: String
        package var count: Int
    }

    /// The judge's split against the references'.
    package struct Agreement: Sendable, Hashable {
        /// Answers counted: a decided verdict and a reference figure.
        package var answers: Int
        /// Both say accurate; both say inaccurate.
        package var bothAccept: Int
        package var bothReject: Int
        /// The judge says inaccurate where the references accept, and the reverse.
        package var judgeRejects: Int
        package var judgeAccepts: Int
        /// Up to five disagreements, for a reader to look at: item, variant, max_tokens, the
        /// judge's accuracy grade and the reference figure.
        package var examples: [Example]

        package struct Example: Sendable, Hashable {
            package var itemID: String
            package var variant: String
            package var maxTokens: Int?
            package var accuracy: Int
            package var reference: Double
            /// Which figure stood for the references: `reference_match` or `keyword_recall`.
            package var referenceScore: String
        }

        /// The share of answers on which the two agree.
        package var rate: Double { answers == 0 ? 0 : Double(bothAccept + bothReject) / Double(answers) }

        /// Cohen's kappa: the agreement beyond what chance would give with the same shares of
        /// "accurate" on each side; `nil` when chance alone agrees on everything.
        package var kappa: Double? {
            guard answers > 0 else { return nil }
            let n = Double(answers)
            let judgeAccept = Double(bothAccept + judgeAccepts) / n
            let referencesAccept = Double(bothAccept + judgeRejects) / n
            let chance = judgeAccept * referencesAccept + (1 - judgeAccept) * (1 - referencesAccept)
            guard chance < 1 else { return nil }
            return (rate - chance) / (1 - chance)
        }
    }

    /// How far repeated verdicts on the same answer agree.
    package struct Stability: Sendable, Hashable {
        /// Answers with at least two verdicts.
        package var answers: Int
        /// Repeats per answer, as judged (the largest).
        package var repeats: Int
        /// Shares of those answers whose verdicts agree exactly, per count.
        package var sameAccuracy: Double
        package var sameCompleteness: Double
        package var sameConcision: Double
        /// Mean spread (largest − smallest grade) of accuracy over those answers.
        package var meanAccuracySpread: Double
    }

    /// The summary of `results`' judgements; `nil` when none is stored.
    package init?(_ results: RunResults) {
        let answered = results.trials.filter { !$0.failed }
        let rows = answered.flatMap(\.judgements)
        guard !rows.isEmpty else { return nil }
        let judge = results.info.settings["judge"]
        model = judge?["model"]?.stringValue ?? rows[0].model
        endpoint = judge?["endpoint"]?.stringValue ?? rows[0].endpoint
        rubric = judge?["rubric"]?.stringValue ?? rows[0].rubric
        isMock = model == MockJudge.model
        judged = rows.filter { $0.status == .judged }.count
        unreadable = rows.filter { $0.status == .unreadable }.count
        failed = rows.filter { $0.status == .failed }.count
        cached = rows.filter(\.cached).count
        unjudgedAnswers = answered.filter {
            $0.judgements.isEmpty && !TextAnalysis.trimmed($0.answer?.content ?? "").isEmpty
        }.count
        var reasons: [String: Int] = [:]
        for row in rows where row.status != .judged { reasons[row.error ?? "no reason recorded", default: 0] += 1 }
        problems = reasons.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { Problem(reason: $0.key, count: $0.value) }
        promptTokens = rows.reduce(0) { $0 + ($1.promptTokens ?? 0) }
        completionTokens = rows.reduce(0) { $0 + ($1.completionTokens ?? 0) }
        let costs = rows.map { $0.status == .failed || $0.cached ? 0 : $0.costUSD }
        costUSD = costs.contains { $0 == nil } ? nil : costs.reduce(0) { $0 + ($1 ?? 0) }
        agreement = Self.agreement(answered)
        stability = Self.stability(answered)
    }

    static func agreement(_ trials: [RunResults.TrialRow]) -> Agreement? {
        var counted = Agreement(answers: 0, bothAccept: 0, bothReject: 0, judgeRejects: 0, judgeAccepts: 0, examples: [])
        for trial in trials {
            guard let accuracy = trial.judgements.first(where: { $0.status == .judged })?.accuracy, accuracy != 3 else {
                continue
            }
            let reference: (name: String, value: Double)
            if let match = trial.scores[ScoreName.referenceMatch] {
                reference = (ScoreName.referenceMatch, match.value)
            } else if let recall = trial.scores[ScoreName.keywordRecall] {
                reference = (ScoreName.keywordRecall, recall.value)
            } else {
                continue
            }
            let judgeAccepts = accuracy >= 4
            let referencesAccept = reference.value >= 0.5
            counted.answers += 1
            switch (judgeAccepts, referencesAccept) {
            case (true, true): counted.bothAccept += 1
            case (false, false): counted.bothReject += 1
            case (false, true): counted.judgeRejects += 1
            case (true, false): counted.judgeAccepts += 1
            }
            if judgeAccepts != referencesAccept, counted.examples.count < 5 {
                counted.examples.append(
                    Agreement.Example(
                        itemID: trial.itemID, variant: trial.variant, maxTokens: trial.maxTokens, accuracy: accuracy,
                        reference: reference.value, referenceScore: reference.name))
            }
        }
        return counted.answers > 0 ? counted : nil
    }

    static func stability(_ trials: [RunResults.TrialRow]) -> Stability? {
        var answers = 0
        var repeats = 0
        var same = (accuracy: 0, completeness: 0, concision: 0)
        var spread = 0
        for trial in trials {
            let verdicts = trial.judgements.filter { $0.status == .judged }
            guard verdicts.count >= 2 else { continue }
            answers += 1
            repeats = max(repeats, trial.judgements.count)
            let accuracy = verdicts.compactMap(\.accuracy)
            if Set(accuracy).count == 1 { same.accuracy += 1 }
            if Set(verdicts.compactMap(\.completeness)).count == 1 { same.completeness += 1 }
            if Set(verdicts.compactMap(\.concision)).count == 1 { same.concision += 1 }
            spread += (accuracy.max() ?? 0) - (accuracy.min() ?? 0)
        }
        guard answers > 0 else { return nil }
        let n = Double(answers)
        return Stability(
            answers: answers, repeats: repeats, sameAccuracy: Double(same.accuracy) / n,
            sameCompleteness: Double(same.completeness) / n, sameConcision: Double(same.concision) / n,
            meanAccuracySpread: Double(spread) / n)
    }
}
