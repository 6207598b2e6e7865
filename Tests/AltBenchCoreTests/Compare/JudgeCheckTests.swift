import Foundation
import Testing

@testable import AltBenchCore

/// `check:`'s `max_judge_accuracy_drop`: the judge's mean accuracy held to the baseline's.
@Suite("check: the judge's accuracy")
struct JudgeCheckTests {
    /// `ComparisonTests.snapshot` with every item judged `judge` (nil: not judged).
    static func snapshot(judge: Double?, items: Int = 20) -> RunSnapshot {
        var snapshot = ComparisonTests.snapshot(count: items)
        for index in snapshot.rows.indices {
            if let judge {
                snapshot.rows[index].metrics[ScoreName.judgeAccuracy] = judge
                for id in snapshot.rows[index].items.keys { snapshot.rows[index].items[id]?.judgeAccuracy = judge }
            }
        }
        return snapshot
    }

    static func result(_ before: Double?, _ after: Double?, _ thresholds: CheckThresholds = CheckThresholds(failOnSignificant: false))
        -> CheckVerdict.Result?
    {
        ComparisonTests.result(
            ComparisonTests.verdict(Self.snapshot(judge: before), Self.snapshot(judge: after), thresholds),
            ScoreName.judgeAccuracy)
    }

    @Test("the judge's accuracy may fall at most max_judge_accuracy_drop (0.05 by default)", arguments: [
        (0.80, 0.80, true), (0.80, 0.76, true), (0.80, 0.75, true), (0.80, 0.749, false), (0.80, 0.40, false),
        (0.50, 0.90, true),
    ])
    func mayFallAtMostTheLimit(before: Double, after: Double, passes: Bool) throws {
        let result = try #require(Self.result(before, after))
        #expect(result.passed == passes, "\(result.message)")
        #expect(result.outcome == (passes ? .passed : .failed))
    }

    @Test("a stricter limit from altbench.yml", arguments: [(0.02, false), (0.2, true)])
    func configuredLimit(limit: Double, passes: Bool) throws {
        let config = try ConfigFile.parse("check:\n  max_judge_accuracy_drop: \(limit)\n", displayPath: "altbench.yml")
        #expect(config.check.maxJudgeAccuracyDrop == limit)
        var thresholds = config.check
        thresholds.failOnSignificant = false
        #expect(try #require(Self.result(0.8, 0.7, thresholds)).passed == passes)
    }

    @Test("a baseline judged and a run not judged is skipped, saying only the baseline was judged and how to judge the run")
    func runNotJudged() throws {
        let result = try #require(Self.result(0.8, nil))
        #expect(result.outcome == .skipped)
        #expect(result.message.contains("only the baseline was judged"))
        #expect(result.message.contains("--judge"))
    }

    @Test("a run judged against a baseline that was not is skipped, never passed")
    func baselineNotJudged() throws {
        let result = try #require(Self.result(nil, 0.8))
        #expect(result.outcome == .skipped)
        #expect(!result.passed)
    }

    @Test("neither side judged: no judge check at all")
    func neitherJudged() {
        #expect(Self.result(nil, nil) == nil)
        let verdict = ComparisonTests.verdict(Self.snapshot(judge: nil), Self.snapshot(judge: nil))
        #expect(verdict.status == .pass)
    }

    @Test("a judged item's accuracy is paired per item, so a consistent drop is significant")
    func pairedPerItem() throws {
        var after = Self.snapshot(judge: 0.5)
        // Half the items hold, half fall: a real drop, paired item by item.
        for index in after.rows.indices {
            for (n, id) in after.rows[index].items.keys.sorted().enumerated() where n % 2 == 0 {
                after.rows[index].items[id]?.judgeAccuracy = 0.75
            }
        }
        let verdict = ComparisonTests.verdict(Self.snapshot(judge: 0.75), after, CheckThresholds())
        let metric = try #require(verdict.comparison.pairs.first?.metric(ScoreName.judgeAccuracy))
        #expect(metric.test?.items == 20)
        #expect(metric.test?.favours == .worse)
        #expect(verdict.status == .regression)
    }

    @Test("a snapshot keeps the judge's accuracy per item, and one without it still reads")
    func snapshotCoding() throws {
        let snapshot = Self.snapshot(judge: 0.75, items: 2)
        let data = try JSONEncoder().encode(snapshot)
        #expect(String(decoding: data, as: UTF8.self).contains("\"judge_accuracy\":0.75"))
        let plain = try JSONEncoder().encode(Self.snapshot(judge: nil, items: 2))
        #expect(!String(decoding: plain, as: UTF8.self).contains("judge_accuracy"))
    }
}
