import Foundation

/// Quality compared like with like: which components of `quality` a comparison left out of
/// both sides because only one side has them.
///
/// Rule: a component is a part of `quality` (``QualityScorer/Parts``: `judge_accuracy`,
/// `reference_match`, `brevity`, …) or a hard check. A side has a component when any of its
/// answers has it (decided over the whole run, not per item). A component only one side has is
/// left out of both: each answer's `quality`, `form` and `content` are computed again from its
/// stored parts without it (``QualityScorer/combine(_:)``, the one rule), so a judge's grades
/// on one side only, or references in one side's dataset only, cannot make a difference out of
/// identical answers.
///
/// A baseline file saved before altbench kept each answer's parts has no components to read;
/// for it only the judge's scores are told apart (by its figures). When such a side is the one
/// that must be computed again, quality cannot be compared like with like (``comparable``).
package struct QualityBasis: Sendable, Hashable, Encodable {
    /// The components only A (before) has, and only B (after) has, in id order.
    package var onlyBefore: [String]
    package var onlyAfter: [String]
    /// false when a component must be left out of a side that keeps no parts: then quality is
    /// shown as stored, with no test, and `check` skips its gate.
    package var comparable: Bool
    /// The line the reports print; nil when nothing was left out.
    package var note: String?

    enum CodingKeys: String, CodingKey {
        case comparable, note
        case onlyBefore = "only_before"
        case onlyAfter = "only_after"
        case leftOut = "left_out"
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(leftOut, forKey: .leftOut)
        try container.encode(onlyBefore, forKey: .onlyBefore)
        try container.encode(onlyAfter, forKey: .onlyAfter)
        try container.encode(comparable, forKey: .comparable)
        try container.encodeIfPresent(note, forKey: .note)
    }

    /// Every component left out of both sides.
    package var leftOut: [String] { (onlyBefore + onlyAfter).sorted() }

    /// Nothing left out: both sides have the same components.
    package static let same = QualityBasis(onlyBefore: [], onlyAfter: [], comparable: true, note: nil)

    /// The basis of `before` against `after`.
    package init(before: RunSnapshot, after: RunSnapshot) {
        let a = before.qualityComponents, b = after.qualityComponents
        // Without parts on a side, only the judge's scores can be told apart.
        let judge = JudgeScores.names
        let known = a != nil && b != nil
        let inA = a ?? before.judgeComponents, inB = b ?? after.judgeComponents
        let candidates = known ? inA.union(inB) : judge
        onlyBefore = inA.subtracting(inB).intersection(candidates).sorted()
        onlyAfter = inB.subtracting(inA).intersection(candidates).sorted()
        comparable = (onlyBefore.isEmpty || a != nil) && (onlyAfter.isEmpty || b != nil)
        note = Self.note(onlyBefore: onlyBefore, onlyAfter: onlyAfter, before: before, after: after, comparable: comparable)
    }

    init(onlyBefore: [String], onlyAfter: [String], comparable: Bool, note: String?) {
        self.onlyBefore = onlyBefore
        self.onlyAfter = onlyAfter
        self.comparable = comparable
        self.note = note
    }

    /// "quality compared without judge_accuracy, judge_completeness, judge_concision: only B
    /// (run 20261121-…) was judged".
    static func note(
        onlyBefore: [String], onlyAfter: [String], before: RunSnapshot, after: RunSnapshot, comparable: Bool
    ) -> String? {
        guard !onlyBefore.isEmpty || !onlyAfter.isEmpty else { return nil }
        func reason(_ names: [String], side: String, _ snapshot: RunSnapshot) -> String {
            let who = "only \(side) (run \(snapshot.runID))"
            return Set(names).isSubset(of: JudgeScores.names)
                ? "\(who) was judged" : "\(who) has \(names.count == 1 ? "it" : "them")"
        }
        let clauses = [(onlyBefore, "A", before), (onlyAfter, "B", after)].filter { !$0.0.isEmpty }.map {
            "without \($0.0.joined(separator: ", ")): \(reason($0.0, side: $0.1, $0.2))"
        }
        guard comparable else {
            return "quality cannot be compared like with like: it should be compared "
                + clauses.joined(separator: "; ")
                + ", but a baseline file saved by an older altbench keeps no parts to compute it again. Save the baseline again with `altbench baseline save`."
        }
        return "quality compared " + clauses.joined(separator: "; ")
    }

    /// The two sides with each answer's quality computed again without the components left
    /// out; the sides as they are when nothing is left out or quality cannot be compared.
    func apply(before: RunSnapshot, after: RunSnapshot) -> (before: RunSnapshot, after: RunSnapshot) {
        let names = Set(leftOut)
        guard !names.isEmpty, comparable else { return (before, after) }
        return (before.qualityComputedAgain(without: names), after.qualityComputedAgain(without: names))
    }
}

extension RunSnapshot {
    /// The components of `quality` this run has: every part present in any answer and every
    /// hard check it scored. nil when the snapshot keeps no parts (a baseline file saved before
    /// altbench kept them).
    package var qualityComponents: Set<String>? {
        guard qualityWeights != nil else { return nil }
        var names = Set<String>()
        for row in rows {
            for item in row.items.values {
                names.formUnion(item.passed.keys)
                for answer in item.qualityParts ?? [] {
                    names.formUnion(answer.parts.keys)
                    names.formUnion(answer.hardFails)
                }
            }
        }
        return names
    }

    /// The judge's scores this run has, read from its figures.
    var judgeComponents: Set<String> {
        Set(JudgeScores.names.filter { name in rows.contains { $0.metrics[name] != nil } })
    }

    /// This snapshot with each answer's `quality`, `form` and `content` computed again from its
    /// parts without `names`, and each item's and row's figures from them. Answers without
    /// parts keep their figures.
    func qualityComputedAgain(without names: Set<String>) -> RunSnapshot {
        guard let weights = qualityWeights else { return self }
        var copy = self
        for index in copy.rows.indices {
            var answers: [[String: Double]] = []
            for id in copy.rows[index].items.keys.sorted() {
                guard let parts = copy.rows[index].items[id]?.qualityParts, !parts.isEmpty else { continue }
                let scores = parts.map { answer in
                    QualityScorer.combine(answer.scorerParts(weights: weights).without(names))
                        .reduce(into: [String: Double]()) { $0[$1.name] = $1.value }
                }
                answers += scores
                copy.rows[index].items[id]?.quality = Stats.mean(scores.compactMap { $0[ScoreName.quality] }).map(Self.rounded)
            }
            guard !answers.isEmpty else { continue }
            copy.rows[index].setQualityFigures(answers)
        }
        return copy
    }
}

extension RunSnapshot.Row {
    /// The row's `quality`, `form`, `content` and `form_only` from its answers' halves, as
    /// ``RunSnapshot/metrics(of:)`` writes them from a run's summary.
    mutating func setQualityFigures(_ answers: [[String: Double]]) {
        func put(_ name: String, _ values: [Double]) {
            metrics[name] = Stats.mean(values).map(RunSnapshot.rounded)
        }
        put("quality", answers.compactMap { $0[ScoreName.quality] })
        put("form", answers.compactMap { $0[ScoreName.form] })
        put("content", answers.compactMap { $0[ScoreName.content] })
        let formOnly = answers.filter { $0[ScoreName.form] != nil && $0[ScoreName.content] == nil }.count
        metrics["form_only"] = formOnly > 0 ? RunSnapshot.rounded(Double(formOnly) / Double(answers.count)) : nil
    }
}
