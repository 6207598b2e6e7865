import Foundation
import Testing

@testable import AltBenchCore

/// Quality compared like with like (``QualityBasis``): a component of `quality` only one side
/// has is left out of both, so identical answers never differ.
@Suite("compare and check: like with like")
struct LikeWithLikeTests {
    typealias Fixtures = RunSnapshotTests

    /// The answers every run below gives: one per item, the same on every side.
    static let answers = [
        ("cat", "A tabby cat asleep on a red sofa."), ("sign", "A shop sign that reads OPEN."), ("web", "A web page."),
    ]

    /// A run of `answers` for `variant` at 50 tokens on `items`, each answer's scores from the
    /// real scoring suite; `judge` gives each item's grades (accuracy, completeness, concision
    /// 1...5), appended as `altbench judge` appends them, with `quality` computed again.
    static func run(
        id: String = "20261121-101500-ab12", items: [RunResults.Item] = Fixtures.items, judge: [String: (Int, Int, Int)] = [:]
    ) -> RunResults {
        let trials = answers.map { item, text -> RunResults.TrialRow in
            let scoringItem = items.first { $0.id == item }!.scoringItem
            var scores = ScoringSuite.evaluate(ScoringInput(content: text, finishReason: "stop", item: scoringItem))
            if let grades = judge[item] {
                let verdict = JudgeVerdict(accuracy: grades.0, completeness: grades.1, concision: grades.2, errors: [])
                scores = JudgeScores.rescored(scores, judge: verdict.scores(), settings: ScoringSettings())
            }
            return RunResults.TrialRow(
                variant: "terse", maxTokens: 50, itemID: item, repeatIndex: 0, model: "gpt-4o-mini",
                answer: ModelAnswer(content: text, finishReason: "stop", latencyMs: 10),
                scores: ScoreSet(scores))
        }
        var results = Fixtures.results(trials, items: items)
        results.info.id = id
        return results
    }

    /// Every item judged with the same grades.
    static func judged(_ grades: (Int, Int, Int), id: String = "20261122-090000-cd34") -> RunResults {
        run(id: id, judge: Dictionary(uniqueKeysWithValues: answers.map { ($0.0, grades) }))
    }

    static func verdict(_ before: RunSnapshot, _ after: RunSnapshot) -> CheckVerdict {
        CheckVerdict(comparison: Comparison(before: before, after: after))
    }

    @Test("a judged and an unjudged run of identical answers: no quality difference, and the line says what was left out")
    func judgedAgainstUnjudged() throws {
        let plain = RunSnapshot(Self.run())
        let judged = RunSnapshot(Self.judged((1, 2, 1)))
        // As stored, the judge's low grades pull the judged run's quality down.
        let storedBefore = try #require(plain.rows[0].metrics["quality"])
        let storedAfter = try #require(judged.rows[0].metrics["quality"])
        #expect(abs(storedAfter - storedBefore) > 0.05)

        for (before, after, judgedSide) in [(plain, judged, "B"), (judged, plain, "A")] {
            let comparison = Comparison(before: before, after: after)
            let quality = try #require(comparison.pairs[0].metric("quality"))
            #expect(quality.before == quality.after)
            #expect(quality.before == storedBefore, "the unjudged side's quality is what it was")
            #expect(quality.direction == .same)
            #expect(quality.test?.favours == .same)
            #expect(comparison.basis.leftOut == [ScoreName.judgeAccuracy, ScoreName.judgeCompleteness, ScoreName.judgeConcision])
            let note = try #require(comparison.basis.note)
            #expect(note.hasPrefix("quality compared without judge_accuracy, judge_completeness, judge_concision: only \(judgedSide) (run "))
            #expect(note.hasSuffix("was judged"))
            #expect(comparison.notes.contains(note + "."))

            let verdict = Self.verdict(before, after)
            #expect(verdict.status == .pass, "\(verdict.results.map(\.message))")
            #expect(verdict.results.first { $0.check == "quality" }?.outcome == .passed)
            let judge = try #require(verdict.results.first { $0.check == ScoreName.judgeAccuracy })
            #expect(judge.outcome == .skipped)
            #expect(judge.message.contains(judgedSide == "A" ? "only the baseline was judged" : "only the run was judged"))
        }
    }

    @Test("two judged runs still compare the judge's components: other grades, other quality")
    func bothJudged() throws {
        let comparison = Comparison(
            before: RunSnapshot(Self.judged((5, 5, 5))), after: RunSnapshot(Self.judged((2, 2, 2))))
        #expect(comparison.basis.leftOut.isEmpty)
        #expect(comparison.basis.note == nil)
        let quality = try #require(comparison.pairs[0].metric("quality"))
        #expect(try #require(quality.delta) < -0.1)
        #expect(quality.direction == .worse)
        let judge = try #require(comparison.pairs[0].metric(ScoreName.judgeAccuracy))
        #expect(judge.before == 1 && judge.after == 0.25)
        let verdict = Self.verdict(comparison.before, comparison.after)
        #expect(verdict.results.first { $0.check == ScoreName.judgeAccuracy }?.outcome == .failed)
        #expect(verdict.results.first { $0.check == "quality" }?.outcome == .failed)
    }

    @Test("the judge's accuracy is compared over the items judged on both sides only")
    func judgeAccuracyOverItemsJudgedOnBoth() throws {
        // A judged every item; B's judge read only cat and sign, and graded them as A's did.
        let before = RunSnapshot(Self.judged((5, 4, 4)))
        let after = RunSnapshot(Self.run(id: "b", judge: ["cat": (5, 4, 4), "sign": (5, 4, 4)]))
        let comparison = Comparison(before: before, after: after)
        let judge = try #require(comparison.pairs[0].metric(ScoreName.judgeAccuracy))
        #expect(judge.before == judge.after)
        #expect(judge.test?.items == 2)
        let result = try #require(Self.verdict(before, after).results.first { $0.check == ScoreName.judgeAccuracy })
        #expect(result.outcome == .passed)
        #expect(result.message.contains("over the 2 items judged on both sides"), "\(result.message)")
    }

    @Test("references in one side's dataset only: reference_match is left out of both, and identical answers do not differ")
    func referencesOnOneSide() throws {
        let bare = Fixtures.items.map { item -> RunResults.Item in
            var item = item
            item.references = []
            return item
        }
        // References the answers only partly match, so that reference_match moves quality.
        let referenced = Fixtures.items.map { item -> RunResults.Item in
            var item = item
            item.references = ["A brown dog asleep on a red rug by the door."]
            return item
        }
        let without = RunSnapshot(Self.run(items: bare))
        let with = RunSnapshot(Self.run(id: "20261122-090000-cd34", items: referenced))
        #expect(without.rows[0].metrics["quality"] != with.rows[0].metrics["quality"], "as stored, the references change quality")
        let comparison = Comparison(before: without, after: with)
        #expect(comparison.basis.onlyAfter == [ScoreName.referenceMatch])
        #expect(comparison.basis.onlyBefore.isEmpty)
        #expect(comparison.basis.note == "quality compared without reference_match: only B (run 20261122-090000-cd34) has it")
        let quality = try #require(comparison.pairs[0].metric("quality"))
        #expect(quality.before == quality.after)
        #expect(quality.direction == .same)
        // Without references, cat and web have no content part: form only on both sides now.
        #expect(comparison.after.rows[0].metrics["form_only"] == comparison.before.rows[0].metrics["form_only"])
        #expect(comparison.mismatches.map(\.field) == ["dataset"], "the datasets still differ, and check still refuses them")
    }

    @Test("a baseline file keeps each answer's parts and the weights, so a saved baseline compares like with like")
    func baselineFileKeepsParts() throws {
        let judged = RunSnapshot(Self.judged((1, 1, 1)))
        let text = String(decoding: try judged.encodedJSON(), as: UTF8.self)
        #expect(text.contains("\"quality_parts\""))
        #expect(text.contains("\"quality_weights\""))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-like-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("baseline.json")
        try judged.encodedJSON().write(to: url)
        let loaded = try RunSnapshot.load(from: url)
        #expect(loaded == judged)
        let verdict = Self.verdict(loaded, RunSnapshot(Self.run()))
        #expect(verdict.status == .pass)
        #expect(verdict.results.first { $0.check == "quality" }?.message.hasPrefix("held: ") == true)
    }

    @Test("an old baseline file without parts: judged, it cannot be compared like with like; unjudged, the run is")
    func oldBaselineWithoutParts() throws {
        func old(_ snapshot: RunSnapshot) -> RunSnapshot {
            var snapshot = snapshot
            snapshot.qualityWeights = nil
            for index in snapshot.rows.indices {
                for id in snapshot.rows[index].items.keys { snapshot.rows[index].items[id]?.qualityParts = nil }
            }
            return snapshot
        }
        let judgedBaseline = Self.verdict(old(RunSnapshot(Self.judged((1, 1, 1)))), RunSnapshot(Self.run()))
        #expect(!judgedBaseline.comparison.basis.comparable)
        let quality = try #require(judgedBaseline.results.first { $0.check == "quality" })
        #expect(quality.outcome == .skipped)
        #expect(quality.message.contains("Save the baseline again"), "\(quality.message)")
        #expect(judgedBaseline.comparison.pairs[0].metric("quality")?.test == nil)

        let plainBaseline = Self.verdict(old(RunSnapshot(Self.run())), RunSnapshot(Self.judged((1, 1, 1))))
        #expect(plainBaseline.comparison.basis.comparable)
        let metric = try #require(plainBaseline.comparison.pairs[0].metric("quality"))
        #expect(metric.before == metric.after)
        #expect(plainBaseline.status == .pass)
    }

    @Test("the same components on both sides: the snapshots are compared as they are")
    func nothingLeftOut() {
        let snapshot = RunSnapshot(Self.run())
        let comparison = Comparison(before: snapshot, after: snapshot)
        #expect(comparison.basis == .same)
        #expect(comparison.before == snapshot && comparison.after == snapshot)
    }

    @Test("computing quality again from the stored parts gives each answer's stored quality")
    func partsGiveTheStoredQuality() throws {
        let results = Self.judged((4, 3, 5))
        let snapshot = RunSnapshot(results)
        let again = snapshot.qualityComputedAgain(without: [])
        for (id, item) in snapshot.rows[0].items {
            let stored = try #require(item.quality)
            #expect(abs(try #require(again.rows[0].items[id]?.quality) - stored) < 1e-6)
        }
        #expect(abs(try #require(again.rows[0].metrics["quality"]) - (snapshot.rows[0].metrics["quality"] ?? -1)) < 1e-6)
    }
}
