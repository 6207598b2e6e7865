import AltBenchCore
import Foundation

/// The sentences and figures every report gives about a run's judge, as plain text; each
/// report escapes them for where they go (the judge's own error texts are untrusted).
enum JudgeReport {
    /// Who judged, with what, and what the mock is.
    static func who(_ judge: JudgeSummary) -> String {
        if judge.isMock {
            return "Judged by the offline mock judge (\(judge.model)): its grades come from the dataset's references and terms, not from the image, and stand in for a vision judge's so the whole path runs without a key."
        }
        let rubric = judge.rubric.map { " by the rubric \($0)" } ?? ""
        let endpoint = judge.endpoint.map { " at \($0)" } ?? ""
        return "Judged by \(judge.model)\(endpoint)\(rubric). The judge saw each image, its post and the answer, and graded accuracy, completeness and concision from 1 to 5, shown here as 0–1 ((grade − 1) / 4)."
    }

    /// What the calls gave.
    static func calls(_ judge: JudgeSummary) -> String {
        var text = "\(judge.judged) verdict\(judge.judged == 1 ? "" : "s")"
        if judge.cached > 0 { text += " (\(judge.cached) from the store)" }
        let missing = judge.unreadable + judge.failed
        if missing > 0 {
            text += "; \(judge.unreadable) answered without a readable verdict and \(judge.failed) failed: those answers' judge scores are missing, not 0"
        }
        if judge.unjudgedAnswers > 0 {
            text += "; \(judge.unjudgedAnswers) answer\(judge.unjudgedAnswers == 1 ? " was" : "s were") not judged (run altbench judge to judge them)"
        }
        return text + "."
    }

    /// Why calls gave no verdict, most frequent first.
    static func problems(_ judge: JudgeSummary) -> [String] {
        judge.problems.prefix(10).map { "\($0.count) × \($0.reason)" }
    }

    /// The judge's tokens and cost.
    static func cost(_ judge: JudgeSummary) -> String {
        let tokens = "Judge tokens: \(Format.count(judge.promptTokens)) prompt, \(Format.count(judge.completionTokens)) completion"
        if judge.isMock { return tokens + "; the mock judge bills nothing." }
        return tokens + "; cost \(judge.costUSD.map { Format.usd($0) } ?? "unknown (no price for \(judge.model))")."
    }

    /// The agreement with the references, in one sentence.
    static func agreement(_ judge: JudgeSummary) -> String {
        guard let agreement = judge.agreement else {
            return "No answer has both a decided verdict (accuracy other than 3) and a reference figure, so the judge cannot be checked against the references."
        }
        let kappa = agreement.kappa.map { String(format: "%.2f", $0) } ?? "undefined"
        return "Against the references (accuracy ≤ 2 is \"inaccurate\", ≥ 4 \"accurate\"; reference_match, or keyword_recall without references, below 0.5 \"rejected\"): the judge agrees on \(Format.percent(agreement.rate)) of \(agreement.answers) answers (Cohen's κ \(kappa)). It calls \(agreement.judgeRejects) inaccurate that the references accept, and \(agreement.judgeAccepts) accurate that they reject; both accept \(agreement.bothAccept), both reject \(agreement.bothReject)."
    }

    /// Disagreements to look at.
    static func examples(_ judge: JudgeSummary) -> [String] {
        (judge.agreement?.examples ?? []).map { example in
            let limit = example.maxTokens.map { " @ \($0)" } ?? ""
            return "\(example.itemID) (\(example.variant)\(limit)): judge accuracy \(example.accuracy)/5, \(example.referenceScore) \(String(format: "%.2f", example.reference))"
        }
    }

    /// The judge against itself, when it judged more than once.
    static func stability(_ judge: JudgeSummary) -> String? {
        guard let stability = judge.stability else { return nil }
        return "Over \(stability.repeats) verdicts on each of \(stability.answers) answers, the judge gave the same accuracy for \(Format.percent(stability.sameAccuracy)), completeness \(Format.percent(stability.sameCompleteness)) and concision \(Format.percent(stability.sameConcision)); accuracy grades spread by \(String(format: "%.2f", stability.meanAccuracySpread)) on average."
    }

    /// The judge's mean scores of a row, as cells: accuracy, completeness, concision, answers judged.
    static func cells(_ row: SummaryRow) -> [String] {
        [
            Format.decimal(row.means[ScoreName.judgeAccuracy], digits: 2),
            Format.decimal(row.means[ScoreName.judgeCompleteness], digits: 2),
            Format.decimal(row.means[ScoreName.judgeConcision], digits: 2), Format.count(row.judged),
        ]
    }

    static let headers = ["judge accuracy", "judge completeness", "judge concision", "judged"]

    /// One line for the terminal, after the summary table.
    static func terminalLine(_ judge: JudgeSummary, rows: [SummaryRow]) -> String {
        let judged = rows.filter { $0.judged > 0 }
        func mean(_ id: String) -> String {
            let weighted = judged.compactMap { row in row.means[id].map { ($0 * Double(row.judged), row.judged) } }
            let total = weighted.reduce(0) { $0 + $1.1 }
            return total == 0 ? "–" : String(format: "%.2f", weighted.reduce(0) { $0 + $1.0 } / Double(total))
        }
        var text = "judge (\(judge.isMock ? "mock" : judge.model)): accuracy \(mean(ScoreName.judgeAccuracy)), completeness \(mean(ScoreName.judgeCompleteness)), concision \(mean(ScoreName.judgeConcision)) over \(judge.judged) verdicts"
        let missing = judge.unreadable + judge.failed
        if missing > 0 { text += "; \(missing) without a verdict" }
        if let agreement = judge.agreement {
            text += "; agrees with the references on \(Format.percent(agreement.rate))\(agreement.kappa.map { String(format: " (κ %.2f)", $0) } ?? "")"
        }
        return text
    }

    /// One answer's judge scores as grades with the judge's errors ("accuracy 2/5,
    /// completeness 3/5, concision 4/5: says two dogs; there is one"); `nil` when unjudged.
    static func answer(_ scores: ScoreSet) -> String? {
        guard let accuracy = scores[ScoreName.judgeAccuracy] else { return nil }
        func grade(_ score: Score?) -> String {
            guard let score else { return "–" }
            let value = score.value * 4 + 1
            return value == value.rounded() ? "\(Int(value))/5" : String(format: "%.1f/5", value)
        }
        var text = "accuracy \(grade(accuracy)), completeness \(grade(scores[ScoreName.judgeCompleteness])), concision \(grade(scores[ScoreName.judgeConcision]))"
        if let detail = accuracy.detail, !detail.isEmpty { text += ": " + detail }
        return text
    }
}
