import Foundation
import Testing

@testable import AltBenchCore

/// `--shard K/N`: which trials a job asks. The share must be the same on every machine and
/// in every order, cover the plan exactly once, and keep trials that share a request together.
@Suite("Shards")
struct ShardTests {
    static func trial(key: String?, variant: String = "v", item: String = "i", repeatIndex: Int = 0) -> Trial {
        Trial(
            id: 0, variant: PromptVariant(name: variant, file: "\(variant).md", text: "T"), item: PlannerTests.item(item),
            maxTokens: 50, repeatIndex: repeatIndex, request: nil, key: key)
    }

    @Test func readsKOfNAndRefusesWhatIsNot() throws {
        let shard = try Shard(parsing: "2/4")
        #expect(shard.index == 2 && shard.count == 4)
        #expect(shard.description == "2/4")
        #expect(try Shard(parsing: " 1/1 ").count == 1)
        for bad in ["", "2", "2/", "/4", "a/4", "0/4", "5/4", "-1/4", "1/0", "1/1001", "1/2/3", "1.5/4"] {
            #expect(throws: AltBenchError.self, "\(bad)") { try Shard(parsing: bad) }
        }
        do {
            _ = try Shard(parsing: "5/4")
        } catch let error as AltBenchError {
            #expect(error.description.contains("--shard"))
            #expect(error.description.contains("K must be 1 to 4"))
        }
    }

    /// The share is the first 64 bits of SHA-256(key) modulo N, plus one: the values here were
    /// computed with Python's hashlib, so another implementation picks the same trials.
    @Test func theShareOfAKeyIsTheSameAsAnIndependentImplementationsChoice() {
        let expected: [(key: String, shares: [Int])] = [
            ("abc", [1, 1, 3, 3, 75]),
            ("sha256-key-of-a-trial", [2, 2, 4, 2, 952]),
            ("", [1, 2, 1, 2, 653]),
        ]
        for (key, shares) in expected {
            let found = [2, 3, 4, 7, 1000].map { Shard.share(of: Self.trial(key: key), count: $0) }
            #expect(found == shares, "\(key)")
        }
    }

    @Test func theSharesOfAPlanCoverItOnceWhateverItsOrder() throws {
        let planner = Planner(experiment: try PlannerTests.experiment(maxTokens: [30, 50, 80], repeats: 3), endpoint: "mock")
        let variants = (1...4).map { PromptVariant(name: "p\($0)", file: "p\($0).md", text: "Prompt \($0)") }
        let items = (1...25).map { PlannerTests.item("img\($0)", hash: String(format: "%02x", $0)) }
        let trials = planner.plan(variants: variants, dataset: PlannerTests.dataset(items))
        #expect(trials.count == 4 * 3 * 25 * 3)
        for count in [1, 2, 3, 4, 7] {
            let shards = try (1...count).map { try Shard(index: $0, count: count) }
            let shares = shards.map { shard in trials.filter(shard.includes) }
            #expect(shares.reduce(0) { $0 + $1.count } == trials.count, "N = \(count): every trial in exactly one share")
            #expect(Set(shares.flatMap { $0.map(\.key) }).count == trials.count)
            // Reversed and shuffled plans pick the same trials.
            let shuffled = trials.shuffled()
            for (shard, share) in zip(shards, shares) {
                #expect(Set(shuffled.filter(shard.includes).compactMap(\.key)) == Set(share.compactMap(\.key)))
            }
            // Even enough that N jobs take about the same time: within a third of the mean.
            let mean = Double(trials.count) / Double(count)
            #expect(shares.allSatisfy { abs(Double($0.count) - mean) < mean / 3 }, "N = \(count): \(shares.map(\.count))")
        }
    }

    @Test func trialsThatSendOneRequestStayInOneShare() throws {
        // Two prompts with the same text send the same request: one answer serves both, so
        // both go to the share that asks it.
        let planner = Planner(experiment: try PlannerTests.experiment(maxTokens: [50]), endpoint: "mock")
        let twins = [PromptVariant(name: "a", file: "a.md", text: "Same"), PromptVariant(name: "b", file: "b.md", text: "Same")]
        let items = (1...40).map { PlannerTests.item("x\($0)", hash: String(format: "%02x", $0)) }
        let trials = planner.plan(variants: twins, dataset: PlannerTests.dataset(items))
        let byKey = Dictionary(grouping: trials, by: { $0.key ?? "" })
        #expect(byKey.values.allSatisfy { $0.count == 2 })
        for group in byKey.values {
            #expect(Set(group.map { Shard.share(of: $0, count: 5) }).count == 1)
        }
    }

    @Test func aTrialWithoutARequestGoesByItsCoordinates() {
        // An item that cannot be sent has no cache key: its trials spread by (prompt, item,
        // limit, repeat), so one broken image does not land every such trial on one job.
        let spread = Set((0..<50).map { Shard.share(of: Self.trial(key: nil, item: "broken\($0)"), count: 4) })
        #expect(spread.count == 4)
        let repeats = Set((0..<50).map { Shard.share(of: Self.trial(key: nil, item: "broken", repeatIndex: $0), count: 4) })
        #expect(repeats.count == 4)
    }

    @Test func aShardIsRecordedWithThePlansSize() throws {
        let recorded = try Shard(index: 3, count: 8).recorded(plannedTotal: 1200)
        #expect(recorded == .object(["index": .int(3), "count": .int(8), "planned_total": .int(1200)]))
    }
}
