import Foundation
import Testing

@testable import AltBenchCore

/// ``JudgeScores``: a trial's judge scores from its stored verdicts, and its `quality` computed
/// again with them.
@Suite("judge scores")
struct JudgeScoresTests {
    static func row(
        _ repeatIndex: Int, _ grades: (Int, Int, Int)?, status: RunResults.JudgementRow.Status = .judged,
        errors: [String] = []
    ) -> RunResults.JudgementRow {
        RunResults.JudgementRow(
            repeatIndex: repeatIndex, model: "gpt-4o", endpoint: "https://judge.example.test/v1/chat/completions",
            rubric: "alt-text.md", rubricSHA256: "abc", cacheKey: "judge-v1:\(repeatIndex)", status: status, cached: false,
            accuracy: grades?.0, completeness: grades?.1, concision: grades?.2, errors: errors,
            error: grades == nil ? "no verdict" : nil)
    }

    static func values(_ scores: [Score]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: scores.map { ($0.name, $0.value) })
    }

    @Test("one verdict gives its own grades, (grade − 1) / 4, with its errors in judge_accuracy's detail")
    func oneVerdict() {
        let scores = JudgeScores.scores(from: [Self.row(0, (4, 2, 5), errors: ["misses the date", "wrong colour"])])
        #expect(scores.map(\.name) == [ScoreName.judgeAccuracy, ScoreName.judgeCompleteness, ScoreName.judgeConcision])
        #expect(Self.values(scores) == [ScoreName.judgeAccuracy: 0.75, ScoreName.judgeCompleteness: 0.25, ScoreName.judgeConcision: 1])
        #expect(scores[0].detail == "misses the date; wrong colour")
        #expect(scores[1].detail == nil)
    }

    @Test("three repeats with one unreadable: the mean of the two read, and how many were read")
    func meanOverRepeats() {
        let scores = JudgeScores.scores(from: [
            Self.row(2, (3, 3, 3)),
            Self.row(1, nil, status: .unreadable),
            Self.row(0, (5, 4, 2), errors: ["says two dogs"]),
        ])
        #expect(Self.values(scores) == [ScoreName.judgeAccuracy: 0.75, ScoreName.judgeCompleteness: 0.625, ScoreName.judgeConcision: 0.375])
        // The first repeat's errors, after the count.
        #expect(scores[0].detail == "2 of 3 judgements read; says two dogs")
    }

    @Test("a failed repeat counts as not read, and without errors the detail is the count alone")
    func countAlone() {
        let scores = JudgeScores.scores(from: [Self.row(0, (2, 2, 2)), Self.row(1, nil, status: .failed)])
        #expect(scores[0].value == 0.25)
        #expect(scores[0].detail == "1 of 2 judgements read")
    }

    @Test("no verdict read, or no judgement at all, gives no scores: missing, never 0", arguments: [
        [], [row(0, nil, status: .unreadable)], [row(0, nil, status: .failed), row(1, nil, status: .unreadable)],
    ])
    func noneRead(rows: [RunResults.JudgementRow]) {
        #expect(JudgeScores.scores(from: rows).isEmpty)
    }

    @Test("a judged row with a grade missing is not read")
    func incompleteRow() {
        var row = Self.row(0, (4, 4, 4))
        row.concision = nil
        #expect(JudgeScores.scores(from: [row]).isEmpty)
    }

    /// An answer's scores as the run stored them, with a content part from its references.
    static func stored(_ answer: String = "A grey cat asleep on a windowsill.") -> [Score] {
        let item = ScoringItem(id: "cat", references: ["A grey cat asleep on a windowsill.", "Sleeping cat."])
        return ScoringSuite.evaluate(ModelAnswer(content: answer, finishReason: "stop").scoringInput(ScoringSettings(), item: item))
    }

    @Test("rescored replaces old judge scores, keeps the others, and quality is form × content")
    func rescored() throws {
        let settings = ScoringSettings()
        let old = JudgeScores.scores(from: [Self.row(0, (5, 5, 5))])
        let before = JudgeScores.rescored(Self.stored(), judge: old, settings: settings)
        let judge = JudgeScores.scores(from: [Self.row(0, (1, 2, 3), errors: ["not a cat"])])
        let after = JudgeScores.rescored(before, judge: judge, settings: settings)

        // Every name once.
        #expect(Set(after.map(\.name)).count == after.count)
        let values = Self.values(after)
        #expect(values[ScoreName.judgeAccuracy] == 0)
        #expect(values[ScoreName.judgeCompleteness] == 0.25)
        #expect(values[ScoreName.judgeConcision] == 0.5)
        #expect(after.first { $0.name == ScoreName.judgeAccuracy }?.detail == "not a cat")
        // The heuristics are as the run stored them.
        let derived = JudgeScores.names.union([ScoreName.form, ScoreName.content, ScoreName.quality])
        #expect(after.filter { !derived.contains($0.name) } == Self.stored().filter { !derived.contains($0.name) })
        // quality = form × content, and a judge that calls it wrong brings content down.
        let form = try #require(values[ScoreName.form])
        let content = try #require(values[ScoreName.content])
        #expect(abs(try #require(values[ScoreName.quality]) - form * content) < 1e-12)
        let contentBefore = try #require(Self.values(before)[ScoreName.content])
        #expect(content < contentBefore)
    }

    @Test("rescored with no judge scores removes the old ones and recomputes quality without them")
    func rescoredWithoutJudge() {
        let settings = ScoringSettings()
        let judged = JudgeScores.rescored(Self.stored(), judge: JudgeScores.scores(from: [Self.row(0, (1, 1, 1))]), settings: settings)
        let cleared = JudgeScores.rescored(judged, judge: [], settings: settings)
        #expect(cleared.allSatisfy { !JudgeScores.names.contains($0.name) })
        #expect(Self.values(cleared)[ScoreName.quality] == Self.values(Self.stored())[ScoreName.quality])
    }
}
