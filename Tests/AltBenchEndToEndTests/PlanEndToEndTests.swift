import AltBenchCore
import AltBenchTesting
import Foundation
import GRDB
import Testing

/// `altbench plan` and `--max-cost` with the built binary: the plan's request count is what a
/// run then sends to a real server on 127.0.0.1, its cached count what the store answers, and
/// a run whose high estimate passes the limit sends nothing.
@Suite("altbench plan end to end", .serialized)
struct PlanEndToEndTests {
    static let fakeKey = "sk" + "-test-plan-0123456789abcdef"

    static func plan(_ arguments: [String], in workspace: Workspace, environment: [String: String]) async throws
        -> (output: AltbenchProcess.Output, json: JSONValue)
    {
        let output = try await AltbenchProcess.run(
            ["plan", "--format", "json"] + arguments, in: workspace.root, environment: environment)
        let json = try JSONValue.parse(Data(output.stdout.utf8))
        return (output, json)
    }

    @Test func thePlanCountsWhatARunSendsAndWhatTheStoreAnswers() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: Self.fakeKey))
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.fakeKey])
        let base = ["--base-url", server.baseURL]

        // Nothing stored yet: every trial is to send, and planning sends nothing and creates no store.
        let (first, before) = try await Self.plan(base + ["--max-tokens", "5,50"], in: workspace, environment: environment)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(before["trials"] == 16)
        #expect(before["cached"] == 0)
        #expect(before["to_send"] == 16)
        #expect(await server.requests().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: workspace.url("results").path))

        // Half the plan answered by a run at one limit: the plan now counts those as cached.
        let half = try await AltbenchProcess.run(
            ["run"] + base + ["--max-tokens", "5"], in: workspace.root, environment: environment)
        #expect(half.status == 0, "\(half.stderr)")
        #expect(await server.requests().count == 8)
        let (_, middle) = try await Self.plan(base + ["--max-tokens", "5,50"], in: workspace, environment: environment)
        #expect(middle["cached"] == 8)
        #expect(middle["to_send"] == 8)

        // The run sends exactly what the plan said it would.
        let rest = try await AltbenchProcess.run(
            ["run"] + base + ["--max-tokens", "5,50"], in: workspace.root, environment: environment)
        #expect(rest.status == 0, "\(rest.stderr)")
        #expect(await server.requests().count == 8 + 8)
        let (_, after) = try await Self.plan(base + ["--max-tokens", "5,50"], in: workspace, environment: environment)
        #expect(after["cached"] == 16)
        #expect(after["to_send"] == 0)
        #expect(after["input_tokens"] == 0)
        let (_, fresh) = try await Self.plan(
            base + ["--max-tokens", "5,50", "--no-cache"], in: workspace, environment: environment)
        #expect(fresh["to_send"] == 16)
        #expect(await server.requests().count == 16, "planning never sends")
        await server.stop()
    }

    @Test func theJSONHoldsEveryFigureAndEachImageByTheModelsFormula() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let (output, json) = try await Self.plan(
            ["--model", "gpt-4o", "--max-tokens", "50"], in: workspace, environment: AltbenchProcess.cleanEnvironment())
        #expect(output.status == 0, "\(output.stderr)")
        for key in [
            "trials", "cached", "to_send", "input_tokens", "image_tokens", "output_tokens_max", "cost_usd", "pairs", "items",
            "assumptions",
        ] {
            #expect(json[key] != nil, "no \(key) in \(output.stdout)")
        }
        #expect(json["output_tokens_max"]?.intValue == 8 * 50)
        let items = try #require(json["items"]?.arrayValue)
        #expect(items.count == 4)
        let formula = try #require(ImageTokenFamily.forModel("gpt-4o")).formula
        var imageTokens = 0
        for item in items {
            let width = try #require(item["width"]?.intValue)
            let height = try #require(item["height"]?.intValue)
            let tokens = try #require(item["image_tokens"]?.intValue)
            #expect(tokens == formula.tokens(width: width, height: height, detail: nil))
            imageTokens += tokens
        }
        // Two prompts ask about every image once at max_tokens 50.
        #expect(json["image_tokens"]?.intValue == 2 * imageTokens)
        let cost = try #require(json["cost_usd"])
        let low = try #require(cost["low"]?.doubleValue)
        let high = try #require(cost["high"]?.doubleValue)
        #expect(low > 0 && high > low)
        // The mock answers this plan, so it says nothing is billed.
        #expect(json["notes"]?.arrayValue?.contains { $0.stringValue?.contains("bills nothing") == true } == true)

        // --detail low: every image at gpt-4o's base cost.
        let (_, low85) = try await Self.plan(
            ["--model", "gpt-4o", "--max-tokens", "50", "--detail", "low"], in: workspace,
            environment: AltbenchProcess.cleanEnvironment())
        #expect(low85["image_tokens"] == .int(8 * 85))
    }

    @Test func aModelWithoutAPriceGetsTokensAndNoCost() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let (output, json) = try await Self.plan(
            ["--model", "llava-13b", "--max-tokens", "50"], in: workspace, environment: AltbenchProcess.cleanEnvironment())
        #expect(output.status == 0, "\(output.stderr)")
        #expect(json["cost_usd"] == .null)
        #expect(json["unpriced_models"] == ["llava-13b"])
        #expect((json["input_tokens"]?.intValue ?? 0) > 0)
        let text = try await AltbenchProcess.run(
            ["plan", "--model", "llava-13b", "--max-tokens", "50"], in: workspace.root,
            environment: AltbenchProcess.cleanEnvironment())
        #expect(text.stdout.contains("llava-13b"))
        #expect(text.stdout.contains("no price"), "\(text.stdout)")
    }

    /// The plan lists its pairs in the order the run's reports do: the baseline first, the
    /// other variants by name, token limits ascending; not in prompt-file or flag order.
    @Test func thePlanListsPairsInTheRunsOrder() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("prompts/alpha.md", "---\nname: alpha\nmodel: gpt-4o-mini\n---\nDescribe this image for a screen-reader user.\n")
        let environment = AltbenchProcess.cleanEnvironment()
        let flags = ["--provider", "mock", "--max-tokens", "300,50"]
        let (output, plan) = try await Self.plan(flags, in: workspace, environment: environment)
        #expect(output.status == 0, "\(output.stderr)")
        let planned = (plan["pairs"]?.arrayValue ?? []).map { "\($0["variant"]?.stringValue ?? "?") @ \($0["max_tokens"]?.intValue ?? 0)" }
        let run = try await AltbenchProcess.run(["run"] + flags, in: workspace.root, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try await AltbenchProcess.run(["report", "--format", "json"], in: workspace.root, environment: environment)
        let summary = try JSONValue.parse(Data(report.stdout.utf8))["summary"]?.arrayValue ?? []
        let reported = summary.map { "\($0["variant"]?.stringValue ?? "?") @ \($0["max_tokens"]?.intValue ?? 0)" }
        #expect(
            planned == [
                "icecubes @ 50", "icecubes @ 300", "alpha @ 50", "alpha @ 300", "icecubes-original @ 50", "icecubes-original @ 300",
            ])
        #expect(planned == reported)
    }

    @Test func withoutAKeyThePlanSaysTheRunWouldStop() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let output = try await AltbenchProcess.run(
            ["plan", "--provider", "openai"], in: workspace.root, environment: AltbenchProcess.cleanEnvironment())
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("OPENAI_API_KEY is not set"), "\(output.stdout)")
        #expect(output.stdout.contains("https://api.openai.com/v1/chat/completions"))

        // Azure: the deployment's URL, and the Azure key the run would need.
        let azure = try await AltbenchProcess.run(
            ["plan", "--azure-endpoint", "https://my-resource.openai.azure.com", "--azure-deployment", "alt-text",
             "--model", "gpt-4o"],
            in: workspace.root, environment: AltbenchProcess.cleanEnvironment())
        #expect(azure.status == 0, "\(azure.stderr)")
        #expect(azure.stdout.contains("AZURE_OPENAI_API_KEY is not set"), "\(azure.stdout)")
        #expect(
            azure.stdout.contains(
                "https://my-resource.openai.azure.com/openai/deployments/alt-text/chat/completions?api-version=2024-10-21"))
        #expect(azure.stdout.contains("gpt-4o"))
        #expect(!azure.stdout.contains("no price"))
    }

    @Test func aRunAboveMaxCostSendsNothingAndSaysWhatToCut() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: Self.fakeKey))
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.fakeKey])
        let arguments = ["--base-url", server.baseURL, "--max-tokens", "50", "--max-cost", "0.001"]
        let run = try await AltbenchProcess.run(["run"] + arguments, in: workspace.root, environment: environment)
        #expect(run.status == 1)
        #expect(run.stderr.contains("above --max-cost $0.0010"), "\(run.stderr)")
        #expect(run.stderr.contains("--detail low"))
        #expect(await server.requests().isEmpty)
        // No run was recorded.
        let db = try DatabaseQueue(path: workspace.url("results/altbench.sqlite").path)
        #expect(try await db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM run") } == 0)

        // plan says the same and exits 1, so CI can gate on it.
        let plan = try await AltbenchProcess.run(["plan"] + arguments, in: workspace.root, environment: environment)
        #expect(plan.status == 1)
        #expect(plan.stdout.contains("would refuse to start"), "\(plan.stdout)")

        // A limit above the high estimate lets the run go, and it records what it spent.
        let (_, figures) = try await Self.plan(
            ["--base-url", server.baseURL, "--max-tokens", "50"], in: workspace, environment: environment)
        let high = try #require(figures["cost_usd"]?["high"]?.doubleValue)
        let enough = try await AltbenchProcess.run(
            ["run", "--base-url", server.baseURL, "--max-tokens", "50", "--max-cost", String(high * 1.01)], in: workspace.root,
            environment: environment)
        #expect(enough.status == 0, "\(enough.stderr)")
        #expect(await server.requests().count == 8)
        let spent = try await db.read { try Double.fetchOne($0, sql: "SELECT sum(cost_usd) FROM trial") }
        #expect((spent ?? 0) > 0 && (spent ?? 0) <= high)
        await server.stop()
    }

    /// A server that counts far more prompt tokens than the published rules: the first check
    /// passes, and the reservations stop the run once what was spent leaves no room for the
    /// next request; `--resume` with a higher limit finishes it.
    @Test func aServerThatCountsMoreIsStoppedAtTheLimitAndTheRunResumes() async throws {
        let rules = try ResponseRules.parse(
            "rules:\n  - respond: {prompt_tokens: 2000000}\n", displayPath: "overcount.yml")
        let server = try await OpenAITestServer.start(handler: ResponseRules(rules).handler)
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.fakeKey])
        // 2,000,000 prompt tokens at gpt-4o-mini's $0.15 per million: $0.30 a request, where
        // the plan expects well under a cent.
        let base = ["--base-url", server.baseURL, "--max-tokens", "50", "--concurrency", "1"]
        let stopped = try await AltbenchProcess.run(
            ["run"] + base + ["--max-cost", "0.5"], in: workspace.root, environment: environment)
        #expect(stopped.status == 4, "\(stopped.stderr)")
        #expect(await server.requests().count == 2)
        #expect(stopped.stderr.contains("spending limit"), "\(stopped.stderr)")
        let resume = try #require(
            stopped.stderr.split(separator: "\n").first { $0.contains("--resume") }.flatMap { line in
                line.split(separator: " ").drop { $0 != "--resume" }.dropFirst().first.map(String.init)
            })
        let db = try DatabaseQueue(path: workspace.url("results/altbench.sqlite").path)
        let (recorded, spent, stoppedBy) = try await db.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM trial") ?? 0,
                try Double.fetchOne(db, sql: "SELECT sum(cost_usd) FROM trial") ?? 0,
                try String.fetchOne(db, sql: "SELECT stopped_by FROM run")
            )
        }
        #expect(recorded == 2)
        #expect(abs(spent - 0.6) < 0.01)
        #expect(stoppedBy == "cost_limit")
        #expect(try workspace.read("results/latest.md").contains("ncomplete"))

        let finished = try await AltbenchProcess.run(
            ["run", "--resume", resume, "--max-cost", "100"], in: workspace.root, environment: environment)
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(await server.requests().count == 8)
        await server.stop()
    }

    /// `--detail` is part of what a run asks: a resumed run keeps it, and every request of
    /// both halves carries it.
    @Test func aResumedRunKeepsItsDetail() async throws {
        let rules = try ResponseRules.parse("rules:\n  - respond: {latency_ms: 400}\n", displayPath: "slow.yml")
        let server = try await OpenAITestServer.start(handler: ResponseRules(rules).handler)
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.fakeKey])
        let first = try await AltbenchProcess.run(
            ["run", "--base-url", server.baseURL, "--max-tokens", "50", "--detail", "low", "--concurrency", "1",
             "--deadline", "1s"],
            in: workspace.root, environment: environment)
        #expect(first.status == 124, "\(first.stderr)")
        let hint = try #require(first.stderr.split(separator: "\n").first { $0.hasPrefix("Continue this run with: ") })
        let runID = try #require(hint.split(separator: " ").last.map(String.init))
        let high = try await AltbenchProcess.run(
            ["run", "--resume", runID, "--detail", "high"], in: workspace.root, environment: environment)
        #expect(high.status == 1)
        #expect(high.stderr.contains("--detail high would change what the run asks: the run's own is low"), "\(high.stderr)")
        let resumed = try await AltbenchProcess.run(["run", "--resume", runID], in: workspace.root, environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let requests = await server.requests()
        await server.stop()
        // 8 items, each asked once; one more when a loaded machine let the request in flight at
        // the deadline outlast its grace period, so the resumed run asked it again.
        #expect((8...9).contains(requests.count), "\(requests.count) requests")
        for request in requests {
            let body = try request.json()
            #expect(body["messages"]?[0]?["content"]?[1]?["image_url"]?["detail"] == "low")
        }
    }
}

extension PlanEndToEndTests {
    /// `plan --batch` prices every request at the batch price (half the list price for
    /// gpt-4o-mini), says so, and a run's `--max-cost` between the two prices passes only
    /// with `--batch` (checked before anything is uploaded).
    @Test func theBatchPlanIsPricedAtTheBatchPrice() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.fakeKey])
        let (live, liveJSON) = try await Self.plan(["--max-tokens", "50"], in: workspace, environment: environment)
        let (batch, batchJSON) = try await Self.plan(["--max-tokens", "50", "--batch"], in: workspace, environment: environment)
        #expect(live.status == 0 && batch.status == 0, "\(live.stderr)\(batch.stderr)")
        let liveHigh = try #require(liveJSON["cost_usd"]?["high"]?.doubleValue, "\(liveJSON)")
        let batchHigh = try #require(batchJSON["cost_usd"]?["high"]?.doubleValue, "\(batchJSON)")
        #expect(abs(batchHigh - liveHigh / 2) < 1e-9, "\(batchHigh) against \(liveHigh)")

        let text = try await AltbenchProcess.run(["plan", "--max-tokens", "50", "--batch"], in: workspace.root, environment: environment)
        #expect(text.stdout.contains("Through the Batch API (--batch): priced at each model's batch price"), "\(text.stdout)")

        // A limit between the batch and the live estimate: refused live, allowed through batch
        // (the run then stops at the closed port, after the check).
        let limit = String(format: "%.6f", (liveHigh + batchHigh) / 2)
        let refused = try await AltbenchProcess.run(
            ["run", "--max-tokens", "50", "--max-cost", limit, "--base-url", "http://127.0.0.1:9/v1"], in: workspace.root,
            environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("--max-cost"), "\(refused.stderr)")
        let allowed = try await AltbenchProcess.run(
            ["run", "--max-tokens", "50", "--max-cost", limit, "--batch", "--base-url", "http://127.0.0.1:9/v1"],
            in: workspace.root, environment: environment)
        #expect(!allowed.stderr.contains("may cost more than --max-cost"), "\(allowed.stderr)")
        // Nothing listens there: the batch run stops at its first request, as a live one does.
        #expect(allowed.status == 1)
        #expect(allowed.stderr.contains("could not connect to 127.0.0.1:9"), "\(allowed.stderr)")
        #expect(!allowed.stderr.contains("trying again"), "a wrong address is not retried: \(allowed.stderr)")
    }
}
