import Foundation

/// The judge's scores of one answer from its stored verdicts, and the answer's `quality`
/// computed again with them.
package enum JudgeScores {
    /// The score names a judge writes.
    package static let names: Set<String> = [ScoreName.judgeAccuracy, ScoreName.judgeCompleteness, ScoreName.judgeConcision]

    /// `judge_accuracy`, `judge_completeness` and `judge_concision` over the verdicts that
    /// could be read: each the mean of (grade − 1) / 4 over the repeats, so that one verdict
    /// gives its own grade; the first verdict's errors in `judge_accuracy`'s detail (with
    /// "k of n repeats" when some failed). None when no verdict could be read: a failed or
    /// unreadable judgement leaves the scores missing, never 0.
    package static func scores(from judgements: [RunResults.JudgementRow]) -> [Score] {
        let verdicts = judgements.sorted { $0.repeatIndex < $1.repeatIndex }.compactMap { row -> JudgeVerdict? in
            guard row.status == .judged, let accuracy = row.accuracy, let completeness = row.completeness,
                let concision = row.concision
            else { return nil }
            return JudgeVerdict(accuracy: accuracy, completeness: completeness, concision: concision, errors: row.errors)
        }
        guard let first = verdicts.first else { return [] }
        let each = verdicts.map { $0.scores() }
        var scores = first.scores()
        for index in scores.indices {
            scores[index].value = each.map { $0[index].value }.reduce(0, +) / Double(each.count)
        }
        if verdicts.count < judgements.count {
            let note = "\(verdicts.count) of \(judgements.count) judgements read"
            scores[0].detail = scores[0].detail.map { note + "; " + $0 } ?? note
        }
        return scores
    }

    /// `stored` (an answer's scores) with its judge scores replaced by `judge` and `form`,
    /// `content` and `quality` computed again under `settings`.
    package static func rescored(_ stored: [Score], judge: [Score], settings: ScoringSettings) -> [Score] {
        let derived: Set<String> = names.union([ScoreName.form, ScoreName.content, ScoreName.quality])
        let kept = stored.filter { !derived.contains($0.name) } + judge
        return kept + QualityScorer.combine(kept, settings: settings)
    }
}
