import AltBenchTesting
import Foundation
import GRDB
import Testing

/// `altbench run --shard K/N` and `altbench merge` as a CI matrix uses them: N jobs each ask
/// their share into their own store, one job merges, and the merged run reads as one run.
@Suite("Shards and merge")
struct ShardMergeEndToEndTests {
    static let plan = ["--max-tokens", "30,50,80", "--repeats", "2"]

    /// The results table of a store's newest run, without what differs between two runs of
    /// the same answers (ids, times, latency): one line per trial, in a fixed order.
    static func resultsTable(_ database: URL) async throws -> [String] {
        let queue = try DatabaseQueue(path: database.path)
        defer { try? queue.close() }
        return try await queue.read { db in
            let run = try String.fetchOne(db, sql: "SELECT id FROM run ORDER BY started_at DESC, id DESC LIMIT 1")
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM trial_result WHERE run_id = ? ORDER BY variant, max_tokens, item, repeat_index
                    """, arguments: [run])
            return rows.map { row in
                row.columnNames.filter { !["run_id", "trial_id", "latency_ms"].contains($0) }
                    .map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
            }
        }
    }

    static func dump(_ database: URL) async throws -> [String] {
        let queue = try DatabaseQueue(path: database.path)
        defer { try? queue.close() }
        return try await queue.read { db in
            var lines: [String] = []
            for table in ["run", "variant", "item", "response", "trial", "score", "judgement"] {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2") {
                    lines.append("\(table): \(row.description)")
                }
            }
            return lines
        }
    }

    @Test func fourShardsMergedEqualOneRunAndEveryReadingCommandWorksOnIt() async throws {
        let server = try await OpenAITestServer.start()
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": "test-key"])
        let live = ["--base-url", server.baseURL] + Self.plan

        let whole = try await AltbenchProcess.run(["run"] + live + ["--results", "whole"], in: workspace.root, environment: environment)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stderr.contains("48 trials"), "\(whole.stderr)")
        let wholeRequests = await server.requests().count

        var counts: [Int] = []
        for k in 1...4 {
            let shard = try await AltbenchProcess.run(
                ["run", "--shard", "\(k)/4", "--results", "shard-\(k)"] + live, in: workspace.root, environment: environment)
            #expect(shard.status == 0, "\(shard.stderr)")
            let line = try #require(shard.stderr.split(separator: "\n").first { $0.contains("altbench: shard \(k)/4: ") })
            let count = try #require(Int(line.split(separator: " ")[3]), "\(line)")
            #expect(line.contains("of 48 trials"), "\(line)")
            counts.append(count)
        }
        #expect(counts.reduce(0, +) == 48, "the shares cover the plan once: \(counts)")
        #expect(counts.allSatisfy { $0 > 0 })
        // Each shard asked only its share: the four together sent what the whole run sent.
        #expect(await server.requests().count == 2 * wholeRequests)
        await server.stop()

        let merge = try await AltbenchProcess.run(
            ["merge", "shard-1/altbench.sqlite", "shard-2", "shard-3", "shard-4/altbench.sqlite", "--into", "results/altbench.sqlite"],
            in: workspace.root)
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        #expect(merge.stdout.contains("48 trials of 48 planned"), "\(merge.stdout)")
        #expect(merge.stdout.contains("Every shard is in"), "\(merge.stdout)")

        let merged = workspace.url("results/altbench.sqlite")
        let expected = try await Self.resultsTable(workspace.url("whole/altbench.sqlite"))
        #expect(expected.count == 48)
        #expect(try await Self.resultsTable(merged) == expected, "the merged run's results table is the unsharded run's")

        // Merging again, in another order, changes nothing.
        let before = try await Self.dump(merged)
        let again = try await AltbenchProcess.run(
            ["merge", "shard-3", "shard-1", "shard-4", "shard-2", "--into", "results/altbench.sqlite"], in: workspace.root)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("0 trials added, 0 answers copied, 48 already there and kept"), "\(again.stdout)")
        #expect(try await Self.dump(merged) == before)

        // Another file gets the same run id: the id comes from the shards, not the moment.
        let elsewhere = try await AltbenchProcess.run(["merge", "shard-1", "shard-2", "shard-3", "shard-4", "--into", "other.sqlite"], in: workspace.root)
        #expect(elsewhere.status == 0)
        let id = { (url: URL) async throws -> String? in
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            return try await queue.read { try String.fetchOne($0, sql: "SELECT id FROM run") }
        }
        #expect(try await id(merged) == id(workspace.url("other.sqlite")))

        // The reading commands treat it as any run.
        let runs = try await AltbenchProcess.run(["runs"], in: workspace.root)
        #expect(runs.stdout.contains("      48       0       48  finished"), "\(runs.stdout)")
        let report = try await AltbenchProcess.run(["report"], in: workspace.root)
        #expect(report.status == 0, "\(report.stderr)")
        #expect(FileManager.default.fileExists(atPath: workspace.url("results/latest.html").path))
        let saved = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")
        let check = try await AltbenchProcess.run(["check", "--baseline", "results/baseline.json"], in: workspace.root)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.hasPrefix("altbench check: passed"), "\(check.stdout)")
        // The unsharded run and the merged one compare as equals.
        let compare = try await AltbenchProcess.run(
            ["check", "--baseline", "results/baseline.json", "--results", "whole"], in: workspace.root)
        #expect(compare.status == 0, "\(compare.stdout)\(compare.stderr)")
    }

    @Test func aStoreOfAnotherPlanIsRefusedWithWhatDiffersAndNothingIsWritten() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let first = try await AltbenchProcess.run(["run", "--shard", "1/2", "--results", "a"] + Self.plan, in: workspace.root)
        #expect(first.status == 0, "\(first.stderr)")
        // The second job ran with an edited prompt.
        let prompt = workspace.url("prompts/icecubes.md")
        let original = try String(contentsOf: prompt, encoding: .utf8)
        try (original + "\nName the colours.\n").write(to: prompt, atomically: true, encoding: .utf8)
        let second = try await AltbenchProcess.run(["run", "--shard", "2/2", "--results", "b"] + Self.plan, in: workspace.root)
        #expect(second.status == 0, "\(second.stderr)")
        try original.write(to: prompt, atomically: true, encoding: .utf8)

        let refused = try await AltbenchProcess.run(["merge", "a", "b", "--into", "merged/altbench.sqlite"], in: workspace.root)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("error: b (run "), "\(refused.stderr)")
        #expect(refused.stderr.contains("is a shard of another plan than a (run "), "\(refused.stderr)")
        #expect(refused.stderr.contains("the prompt 'icecubes' differs (file_sha256, prompt)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.url("merged/altbench.sqlite").path), "a refused merge writes nothing")

        // Another split, another model: each named.
        let third = try await AltbenchProcess.run(
            ["run", "--shard", "2/3", "--results", "c", "--model", "gpt-4.1-mini"] + Self.plan, in: workspace.root)
        #expect(third.status == 0, "\(third.stderr)")
        let split = try await AltbenchProcess.run(["merge", "a", "c", "--into", "merged/altbench.sqlite"], in: workspace.root)
        #expect(split.status == 1)
        #expect(split.stderr.contains("it was split into 3 shards, this one into 2"), "\(split.stderr)")
        #expect(split.stderr.contains("setting model: \"gpt-4.1-mini\", here not set"), "\(split.stderr)")

        // A store without a shard run, a missing one, and the target given as a source.
        let plain = try await AltbenchProcess.run(["run", "--results", "plain"] + Self.plan, in: workspace.root)
        #expect(plain.status == 0)
        let unsharded = try await AltbenchProcess.run(["merge", "a", "plain"], in: workspace.root)
        #expect(unsharded.status == 1)
        #expect(unsharded.stderr.contains("plain holds no run made with --shard (its newest run, "), "\(unsharded.stderr)")
        let missing = try await AltbenchProcess.run(["merge", "a", "nowhere/altbench.sqlite"], in: workspace.root)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nowhere/altbench.sqlite: no such results database"), "\(missing.stderr)")
        let itself = try await AltbenchProcess.run(["merge", "a", "--into", "a/altbench.sqlite"], in: workspace.root)
        #expect(itself.status == 1)
        #expect(itself.stderr.contains("is both a shard and the target"), "\(itself.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.url("results/altbench.sqlite").path))
    }

    @Test func aMissingShardLeavesTheRunIncompleteUntilItArrives() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        for k in 1...3 {
            let run = try await AltbenchProcess.run(["run", "--shard", "\(k)/3", "--results", "s\(k)"] + Self.plan, in: workspace.root)
            #expect(run.status == 0, "\(run.stderr)")
        }
        let partial = try await AltbenchProcess.run(["merge", "s1", "s3"], in: workspace.root)
        #expect(partial.status == 3, "\(partial.stdout)\(partial.stderr)")
        #expect(partial.stdout.contains("shard 2/3 missing"), "\(partial.stdout)")
        let runs = try await AltbenchProcess.run(["runs"], in: workspace.root)
        #expect(runs.stdout.contains("stopped: merged 2 of 3 shards"), "\(runs.stdout)")
        // The gate will not pass an incomplete run.
        let whole = try await AltbenchProcess.run(["run", "--results", "whole"] + Self.plan, in: workspace.root)
        #expect(whole.status == 0)
        let saved = try await AltbenchProcess.run(["baseline", "save", "--results", "whole"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")
        let check = try await AltbenchProcess.run(["check", "--baseline", "whole/baseline.json"], in: workspace.root)
        #expect(check.status == 2, "\(check.stdout)\(check.stderr)")

        let complete = try await AltbenchProcess.run(["merge", "s2"], in: workspace.root)
        #expect(complete.status == 0, "\(complete.stdout)\(complete.stderr)")
        #expect(complete.stdout.contains("merged into run "), "the same run grows: \(complete.stdout)")
        #expect(complete.stdout.contains("48 trials of 48 planned"), "\(complete.stdout)")
        let after = try await AltbenchProcess.run(["runs"], in: workspace.root)
        #expect(after.stdout.split(separator: "\n").filter { $0.hasPrefix("2026") || $0.first?.isNumber == true }.count == 1, "\(after.stdout)")
        #expect(after.stdout.contains("      48       0       48  finished"), "\(after.stdout)")
    }

    @Test func aShardResumesAsItsOwnShareAndARerunReplacesItsFailures() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        // Shard 1/2 meets a server that fails each request the first time: its trials fail (exit 3).
        let flaky = try await OpenAITestServer.start(handler: OpenAITestServer.sequencePerRequest([.html(status: 500)]))
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": "test-key"])
        let broken = try await AltbenchProcess.run(
            ["run", "--shard", "1/2", "--results", "s1", "--base-url", flaky.baseURL, "--max-retries", "0"] + Self.plan,
            in: workspace.root, environment: environment)
        #expect(broken.status == 3, "\(broken.stderr)")
        let runID = try #require(
            broken.stderr.split(separator: "\n").first { $0.contains("altbench: shard 1/2: ") }?.split(separator: " ").last
                .map(String.init))

        // Shard 2/2 asks the same server (the same endpoint: one plan), retrying once.
        let other = try await AltbenchProcess.run(
            ["run", "--shard", "2/2", "--results", "s2", "--base-url", flaky.baseURL, "--max-retries", "1"] + Self.plan,
            in: workspace.root, environment: environment)
        #expect(other.status == 0, "\(other.stderr)")
        let first = try await AltbenchProcess.run(["merge", "s1", "s2"], in: workspace.root)
        #expect(first.status == 0, "every shard is in, failures and all: \(first.stdout)\(first.stderr)")

        // Resuming names the share it had; another share is refused.
        let wrong = try await AltbenchProcess.run(
            ["run", "--resume", runID, "--results", "s1", "--shard", "2/2"], in: workspace.root, environment: environment)
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("--shard 2/2 would change what the run asks: the run's own is 1/2"), "\(wrong.stderr)")
        let resumed = try await AltbenchProcess.run(["run", "--resume", runID, "--results", "s1"], in: workspace.root, environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        await flaky.stop()

        // The trials that failed in the first merge are answered now.
        let second = try await AltbenchProcess.run(["merge", "s1", "s2"], in: workspace.root)
        #expect(second.status == 0, "\(second.stdout)\(second.stderr)")
        #expect(second.stdout.contains("failed ones replaced by answers"), "\(second.stdout)")
        let table = try await Self.resultsTable(workspace.url("results/altbench.sqlite"))
        #expect(table.count == 48)
        #expect(table.allSatisfy { $0.contains("status=\"answered\"") }, "\(table.filter { !$0.contains("answered") })")
    }
}

extension ShardMergeEndToEndTests {
    /// A judged shard brings its judgements; the merged run's judge scores are the whole run's.
    @Test func judgementsTravelWithTheirTrials() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let plan = ["--max-tokens", "50,80", "--judge"]
        let whole = try await AltbenchProcess.run(["run", "--results", "whole"] + plan, in: workspace.root)
        #expect(whole.status == 0, "\(whole.stderr)")
        for k in 1...2 {
            let shard = try await AltbenchProcess.run(["run", "--shard", "\(k)/2", "--results", "s\(k)"] + plan, in: workspace.root)
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let merge = try await AltbenchProcess.run(["merge", "s1", "s2"], in: workspace.root)
        #expect(merge.status == 0, "\(merge.stdout)\(merge.stderr)")
        #expect(merge.stdout.contains("16 judgements added"), "\(merge.stdout)")
        let expected = try await Self.resultsTable(workspace.url("whole/altbench.sqlite"))
        #expect(expected.contains { $0.contains("judge_accuracy=") && !$0.contains("judge_accuracy=NULL") })
        #expect(try await Self.resultsTable(workspace.url("results/altbench.sqlite")) == expected)
    }
}
