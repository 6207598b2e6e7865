import Foundation
import Testing

/// `altbench judge` as a user types it, on a mock run.
@Suite("altbench judge end to end")
struct JudgeCommandEndToEndTests {
    @Test("judge a stored run with the mock judge, then again: nothing is asked twice; --deadline is read like run's")
    func judgeAStoredRun() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let run = try await AltbenchProcess.run(["run", "--max-tokens", "60"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")

        let first = try await AltbenchProcess.run(["judge", "--deadline", "10m"], in: workspace.root)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("judging 8 answers of run"), "\(first.stderr)")
        #expect(first.stderr.contains("by built-in:alt-text"), "no rubric file in the folder: the built-in one")
        #expect(first.stderr.contains("8 calls"), "\(first.stderr)")

        let again = try await AltbenchProcess.run(["judge"], in: workspace.root)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("0 calls (8 answers already judged by it)"), "\(again.stderr)")

        let bad = try await AltbenchProcess.run(["judge", "--deadline", "soon"], in: workspace.root)
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(bad.stderr.contains("--deadline takes a duration such as 90s, 30m or 2h, or a number of seconds (got 'soon')"))
    }
}
