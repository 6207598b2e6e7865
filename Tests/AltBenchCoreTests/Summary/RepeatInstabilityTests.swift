import Foundation
import Testing

@testable import AltBenchCore

@Suite("RepeatInstability")
struct RepeatInstabilityTests {
    @Test("items whose repeats disagree on a check are listed per pair, with the share that passed")
    func listsDisagreeingItems() throws {
        let results = RunSnapshotTests.run
        let instability = RepeatInstability(results, summary: RunSummary(results))
        #expect(instability.repeats == 2)
        #expect(instability.rows.map { "\($0.variant)@\($0.maxTokens ?? 0)" } == ["terse@50", "wordy@50"])
        let terse = instability.rows[0]
        // web failed once: one answered repeat is not a disagreement.
        #expect(terse.repeatedItems == 2)
        #expect(terse.unstable.map(\.id) == ["cat"])
        let checks = try #require(terse.unstable.first?.checks)
        #expect(checks.contains { $0.id == ScoreName.firstPerson && $0.passed == 0.5 })
        // Identical answers agree on everything.
        #expect(instability.rows[1].unstable.isEmpty)
        #expect(instability.rows[1].repeatedItems == 3)
    }

    @Test("a run without repeats has nothing to disagree")
    func singleRepeat() {
        let results = RunSnapshotTests.results(RunSnapshotTests.run.trials.filter { $0.repeatIndex == 0 })
        let instability = RepeatInstability(results, summary: RunSummary(results))
        #expect(instability.repeats == 1)
        #expect(instability.rows.allSatisfy { $0.unstable.isEmpty && $0.repeatedItems == 0 })
    }
}
