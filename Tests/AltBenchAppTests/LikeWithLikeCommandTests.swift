import AltBenchStore
import Foundation
import Testing

@testable import AltBenchApp
@testable import AltBenchCore

/// What `compare` and `check` print.
private final class Output: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = ""

    var console: Console {
        Console(out: { text in self.lock.withLock { self.outText += text } }, err: { _ in }, interactive: false)
    }

    var out: String { lock.withLock { outText } }
}

/// `altbench judge RUN` after `altbench baseline save`: the same answers, judged on one side
/// only, compared in a real store.
@Suite("compare and check: a judged and an unjudged run of identical answers")
struct LikeWithLikeCommandTests {
    @Test("compare reports no quality difference and check passes its quality gate, saying what was left out")
    func judgedAgainstUnjudged() async throws {
        let root = try JudgeCommandTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let runID = try await JudgeCommandTests.mockRun(root).runID
        let baseline = "results/baseline.json"
        try await BaselineCommand(results: "results", console: Output().console, workingDirectory: root)
            .save(runID: runID, output: baseline)

        var options = RunOptions()
        options.provider = .mock
        let judged = try await JudgeCommand(
            judge: JudgeOptions(enabled: true), options: options, environment: [:], console: Output().console,
            workingDirectory: root
        ).run(id: runID)
        #expect(judged == 0)
        // As stored, the judge's grades moved the run's quality.
        let saved = try RunSnapshot.load(from: root.appendingPathComponent(baseline))
        let now = RunSnapshot(try await JudgeCommandTests.store(root).loadRun(id: runID))
        #expect(now.rows[0].metrics[ScoreName.judgeAccuracy] != nil)
        #expect(saved.rows[0].metrics["quality"] != now.rows[0].metrics["quality"])

        let compared = Output()
        let comparison = try await CompareCommand(results: "results", console: compared.console, workingDirectory: root)
            .run(baseline, runID)
        let quality = try #require(comparison.pairs[0].metric("quality"))
        #expect(quality.before == quality.after)
        #expect(quality.before == saved.rows[0].metrics["quality"])
        #expect(quality.direction == .same)
        let line = "quality compared without judge_accuracy, judge_completeness, judge_concision: only B (run \(runID)) was judged."
        #expect(compared.out.contains(line), "\(compared.out)")
        #expect(compared.out.contains("(0.000 =)"))
        #expect(!compared.out.contains("quality p"), "no quality test moved")

        let json = Output()
        try await CompareCommand(results: "results", console: json.console, workingDirectory: root)
            .run(baseline, runID, format: .json)
        let basis = try #require(try JSONValue.parse(Data(json.out.utf8))["basis"])
        #expect(basis["left_out"] == .array(JudgeScores.names.sorted().map { .string($0) }))

        let checked = Output()
        let verdict = try await CheckCommand(results: "results", console: checked.console, workingDirectory: root, environment: [:])
            .run(baseline: baseline, runID: runID)
        #expect(verdict.status == .pass, "\(checked.out)")
        #expect(verdict.results.first { $0.check == "quality" }?.outcome == .passed)
        #expect(verdict.results.first { $0.check == ScoreName.judgeAccuracy }?.outcome == .skipped)
        #expect(checked.out.contains(line), "\(checked.out)")
    }
}
