import AltBenchTesting
import Foundation
import Testing

/// `altbench check` and `altbench compare` as a pull request's CI runs them: exit status 0 on
/// a run like the baseline, 1 on a regression, 2 when the two cannot be compared; the reason
/// first; JUnit, JSON and the GitHub step summary beside the Markdown.
@Suite("altbench check and compare")
struct CheckEndToEndTests {
    /// A loopback model that answers every request with `text`.
    static func server(answering text: String) async throws -> OpenAITestServer {
        try await OpenAITestServer.start { _ in .chatCompletion(content: text, model: "gpt-4o-mini") }
    }

    static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
    }

    @Test func exitStatusIsZeroOneOrTwoWithTheReasonFirst() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let good = try await Self.server(answering: "A tabby cat curled up asleep on a red sofa.")
        let baselineRun = try await AltbenchProcess.run(
            ["run", "--base-url", good.baseURL, "--max-tokens", "50"], in: workspace.root)
        await good.stop()
        #expect(baselineRun.status == 0, "\(baselineRun.stderr)")
        let saved = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")

        // The same run checked against its own baseline passes.
        let same = try await AltbenchProcess.run(["check", "--baseline", "results/baseline.json"], in: workspace.root)
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(Self.firstLine(same.stdout).hasPrefix("altbench check: passed"), "\(same.stdout)")
        // A pass is short: the verdict, the exit status, a table of the two pairs and a hint.
        #expect(same.stdout.split(separator: "\n").count <= 8, "\(same.stdout)")
        #expect(same.stdout.contains("4/0 → 4/0"), "\(same.stdout)")

        // A prompt change that makes the model speak in the first person is a regression.
        let chatty = try await Self.server(answering: "I can see a cat on a sofa, and I think it is asleep.")
        let worse = try await AltbenchProcess.run(
            ["run", "--base-url", chatty.baseURL, "--max-tokens", "50"], in: workspace.root)
        await chatty.stop()
        #expect(worse.status == 0, "\(worse.stderr)")
        let summary = workspace.url("step-summary.md")
        try Data("# Earlier step\n".utf8).write(to: summary)
        let regression = try await AltbenchProcess.run(
            ["check", "--baseline", "results/baseline.json", "--junit", "reports/altbench.xml"], in: workspace.root,
            environment: AltbenchProcess.cleanEnvironment(["GITHUB_STEP_SUMMARY": summary.path]))
        #expect(regression.status == 1, "\(regression.stdout)\(regression.stderr)")
        let headline = Self.firstLine(regression.stdout)
        #expect(headline.hasPrefix("altbench check: regression — icecubes"), "\(headline)")
        // The terminal gets the verdict, one line per pair and what failed, with the new answers.
        #expect(regression.stdout.contains("first_person"))
        #expect(regression.stdout.contains("I can see a cat on a sofa"), "the answer that now fails")
        #expect(!regression.stdout.contains("Flips"), "the full comparison waits for --verbose")
        #expect(regression.stdout.contains("--verbose"))
        let stepSummary = try String(contentsOf: summary, encoding: .utf8)
        #expect(stepSummary.hasPrefix("# Earlier step\naltbench check: regression"), "appended, not replaced")
        #expect(stepSummary.contains("### Flips"), "the step summary stays whole")
        #expect(stepSummary.contains("p &lt; 0.05"), "Markdown escapes what it must")
        let junit = try workspace.read("reports/altbench.xml")
        #expect(junit.hasPrefix("<?xml"))
        #expect(junit.contains("<failure"))
        #expect(junit.contains("name=\"first_person\""))

        // --verbose prints the whole comparison; the terminal never gets HTML entities.
        let verbose = try await AltbenchProcess.run(
            ["check", "--baseline", "results/baseline.json", "--verbose"], in: workspace.root)
        #expect(verbose.status == 1)
        #expect(Self.firstLine(verbose.stdout) == headline)
        #expect(verbose.stdout.contains("### Flips") && verbose.stdout.contains("## Checks"), "\(verbose.stdout)")
        #expect(verbose.stdout.contains("I can see a cat on a sofa, and I think it is asleep."))
        #expect(verbose.stdout.contains("p < 0.05"))
        for output in [regression.stdout, verbose.stdout] {
            for entity in ["&lt;", "&gt;", "&amp;", "&quot;", "<br>"] {
                #expect(!output.contains(entity), "\(entity) in terminal output")
            }
        }
        let markdown = try await AltbenchProcess.run(
            ["check", "--baseline", "results/baseline.json", "--format", "md"], in: workspace.root)
        #expect(stepSummary == "# Earlier step\n" + markdown.stdout + "\n", "--format md is the step summary's Markdown")

        let json = try await AltbenchProcess.run(
            ["check", "--baseline", "results/baseline.json", "--format", "json"], in: workspace.root)
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["status"] as? String == "regression")
        #expect(object["exit_code"] as? Int == 1)

        // The mock checked against a real model's baseline is an error, not a pass.
        let mock = try await AltbenchProcess.run(["run", "--max-tokens", "50"], in: workspace.root)
        #expect(mock.status == 0, "\(mock.stderr)")
        let invalid = try await AltbenchProcess.run(["check", "--baseline", "results/baseline.json"], in: workspace.root)
        #expect(invalid.status == 2, "\(invalid.stdout)\(invalid.stderr)")
        #expect(Self.firstLine(invalid.stdout).hasPrefix("altbench check: cannot compare — the baseline's provider is openai and the run's is mock"))

        // A run named explicitly is checked instead of the latest: the baseline's own run passes.
        let baselineFile = try #require(
            try JSONSerialization.jsonObject(with: Data(try workspace.read("results/baseline.json").utf8)) as? [String: Any])
        let baselineRunID = try #require(baselineFile["run_id"] as? String)
        let named = try await AltbenchProcess.run(
            ["check", "--baseline", "results/baseline.json", baselineRunID], in: workspace.root)
        #expect(named.status == 0, "\(named.stdout)\(named.stderr)")

        // Bad input is exit status 2 with the file named.
        let missing = try await AltbenchProcess.run(["check", "--baseline", "nowhere.json"], in: workspace.root)
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("The baseline nowhere.json does not exist"), "\(missing.stderr)")
        try workspace.write("broken.json", "{\"format\": 1")
        let broken = try await AltbenchProcess.run(["check", "--baseline", "broken.json"], in: workspace.root)
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("broken.json is not JSON"), "\(broken.stderr)")
        try workspace.write("altbench.yml", "check:\n  max_quality_drop: lots\n")
        let badConfig = try await AltbenchProcess.run(["check", "--baseline", "results/baseline.json"], in: workspace.root)
        #expect(badConfig.status == 2)
        #expect(badConfig.stderr.contains("altbench.yml:2"), "\(badConfig.stderr)")
        #expect(badConfig.stderr.contains("check.max_quality_drop"), "\(badConfig.stderr)")
    }

    /// The line of `pair` in the check's terminal table.
    static func tableLine(_ output: String, _ pair: String) -> String {
        output.split(separator: "\n").map(String.init).first { $0.hasPrefix(pair + " ") } ?? ""
    }

    @Test func checkMarksThePairsWhosePromptOrSettingsChanged() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let server = try await Self.server(answering: "A tabby cat curled up asleep on a red sofa.")
        defer { Task { await server.stop() } }
        func run(_ extra: [String] = []) async throws {
            let ran = try await AltbenchProcess.run(
                ["run", "--base-url", server.baseURL, "--max-tokens", "50"] + extra, in: workspace.root)
            #expect(ran.status == 0, "\(ran.stderr)")
        }
        func check(_ extra: [String] = []) async throws -> AltbenchProcess.Output {
            try await AltbenchProcess.run(["check", "--baseline", "results/baseline.json"] + extra, in: workspace.root)
        }
        try await run()
        #expect(try await AltbenchProcess.run(["baseline", "save"], in: workspace.root).status == 0)
        let baseline = try #require(
            try JSONSerialization.jsonObject(with: Data(try workspace.read("results/baseline.json").utf8)) as? [String: Any])
        let rows = try #require(baseline["rows"] as? [[String: Any]])
        #expect(rows.allSatisfy { ($0["prompt_sha256"] as? String)?.count == 64 && ($0["request_sha256"] as? String)?.count == 64 })
        #expect((rows.first?["request_settings"] as? [String: String])?["model"] == "gpt-4o-mini")

        // The same prompts: no pair is marked.
        let same = try await check()
        #expect(same.status == 0, "\(same.stdout)")
        #expect(!same.stdout.contains("changed"), "\(same.stdout)")

        // One prompt's text edited: only its pair is marked, and the check still passes.
        let original = try workspace.read("prompts/icecubes.md")
        try workspace.write("prompts/icecubes.md", original.replacingOccurrences(of: "Be brief,", with: "Be very brief,"))
        try await run()
        let edited = try await check(["--junit", "junit.xml"])
        #expect(edited.status == 0, "a changed prompt is information, not a failure: \(edited.stdout)")
        #expect(Self.tableLine(edited.stdout, "icecubes @ 50").hasSuffix("held; prompt changed"), "\(edited.stdout)")
        #expect(!Self.tableLine(edited.stdout, "icecubes-original @ 50").contains("changed"), "\(edited.stdout)")
        #expect(try workspace.read("junit.xml").contains("<property name=\"prompt\" value=\"changed\"/>"))
        let markdown = try await check(["--format", "md"])
        #expect(markdown.stdout.contains("## Changed since the baseline"), "\(markdown.stdout)")
        #expect(markdown.stdout.contains("- **icecubes @ 50**: prompt changed"), "\(markdown.stdout)")
        #expect(markdown.stdout.contains("| icecubes @ 50 (*prompt changed*) |"), "\(markdown.stdout)")
        let json = try await check(["--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let pairs = try #require(object["pairs"] as? [[String: Any]])
        let changes = pairs.map { "\($0["variant"] ?? ""): \(($0["request_change"] as? [String: Any])?["prompt"] ?? "")" }
        #expect(changes == ["icecubes: changed", "icecubes-original: same"])
        // compare marks it too, between the baseline file and the run, or between two stored runs.
        let comparison = try #require(object["comparison"] as? [String: Any])
        let runID = try #require((comparison["after"] as? [String: Any])?["run_id"] as? String)
        let baselineRunID = try #require(baseline["run_id"] as? String)
        let html = try await AltbenchProcess.run(
            ["compare", "results/baseline.json", runID, "--format", "html"], in: workspace.root)
        #expect(html.status == 0, "\(html.stderr)")
        #expect(html.stdout.contains("prompt changed"), "\(html.stdout)")
        let stored = try await AltbenchProcess.run(["compare", baselineRunID, runID], in: workspace.root)
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(stored.stdout.contains("| icecubes @ 50 (*prompt changed*) |"), "\(stored.stdout)")
        #expect(!stored.stdout.contains("icecubes-original @ 50 (*"), "\(stored.stdout)")

        // The same prompt text with another image detail: its settings changed, not its prompt.
        try workspace.write("prompts/icecubes.md", original.replacingOccurrences(of: "max_tokens: 50\n", with: "max_tokens: 50\ndetail: low\n"))
        try await run()
        let detail = try await check()
        #expect(detail.status == 0, "\(detail.stdout)")
        #expect(Self.tableLine(detail.stdout, "icecubes @ 50").hasSuffix("held; settings changed (detail)"), "\(detail.stdout)")
        #expect(!Self.tableLine(detail.stdout, "icecubes-original @ 50").contains("changed"), "\(detail.stdout)")
        try workspace.write("prompts/icecubes.md", original)

        // Another model: both pairs' settings changed (and the model mismatch makes it exit 2).
        try await run(["--model", "gpt-4.1-mini"])
        let model = try await check()
        #expect(model.status == 2, "\(model.stdout)")
        for pair in ["icecubes @ 50", "icecubes-original @ 50"] {
            #expect(Self.tableLine(model.stdout, pair).hasSuffix("; settings changed (model)"), "\(model.stdout)")
        }

        // Another token limit pairs nothing, yet says what changed.
        let longer = try await AltbenchProcess.run(
            ["run", "--base-url", server.baseURL, "--max-tokens", "80"], in: workspace.root)
        #expect(longer.status == 0, "\(longer.stderr)")
        let limit = try await check()
        #expect(limit.status == 2, "\(limit.stdout)")
        #expect(Self.tableLine(limit.stdout, "icecubes @ 80").hasSuffix("new: no baseline; settings changed (max_tokens)"), "\(limit.stdout)")
        #expect(Self.tableLine(limit.stdout, "icecubes @ 50").hasSuffix("missing from the run; settings changed (max_tokens)"), "\(limit.stdout)")
    }

    @Test func anUnfinishedRunCannotPassACheck() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let good = try await Self.server(answering: "A tabby cat curled up asleep on a red sofa.")
        #expect(try await AltbenchProcess.run(["run", "--base-url", good.baseURL], in: workspace.root).status == 0)
        await good.stop()
        #expect(try await AltbenchProcess.run(["baseline", "save"], in: workspace.root).status == 0)
        // The same endpoint now answers once, then rejects the key: the run stops.
        let answer = ScriptedResponse.chatCompletion(content: "A tabby cat asleep.")
        let rejecting = try await OpenAITestServer.start { request in
            request.number == 1
                ? answer : .error(status: 401, message: "Incorrect API key provided.", type: "invalid_request_error")
        }
        let stopped = try await AltbenchProcess.run(["run", "--base-url", rejecting.baseURL, "--no-cache"], in: workspace.root)
        await rejecting.stop()
        #expect(stopped.status != 0)
        let check = try await AltbenchProcess.run(
            ["check", "--baseline", "results/baseline.json", "--junit", "junit.xml"], in: workspace.root)
        #expect(check.status == 2, "\(check.stdout)\(check.stderr)")
        #expect(Self.firstLine(check.stdout).contains("is stopped with"), "\(Self.firstLine(check.stdout))")
        // The advice is the run's own: a misconfiguration is fixed by a new run, not --resume.
        #expect(check.stdout.contains("start a new run"), "\(check.stdout)")
        #expect(!check.stdout.contains("run --resume"), "\(check.stdout)")
        #expect(try workspace.read("junit.xml").contains("name=\"the run finished\""))
    }

    @Test func aServerAnsweringOnly503StopsWithinSecondsSayingWhy() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let busy = try await OpenAITestServer.start { _ in
            .error(status: 503, message: "The engine is currently overloaded, please try again later.", type: "server_error", code: "engine_overloaded")
        }
        let started = ContinuousClock.now
        let run = try await AltbenchProcess.run(["run", "--base-url", busy.baseURL, "--no-cache"], in: workspace.root)
        let elapsed = ContinuousClock.now - started
        let received = await busy.requests().count
        await busy.stop()
        #expect(run.status == 1, "\(run.stderr)")
        // The stop itself comes after about 2 s of retries; the bound leaves room for writing
        // the report on a machine busy with other tests (timings live in the benchmarks).
        #expect(elapsed < .seconds(30), "\(elapsed)")
        #expect(received < 30, "\(received) requests, not 5 per trial")
        #expect(run.stderr.contains("answered 503 to all"), "\(run.stderr)")
        #expect(run.stderr.contains("engine_overloaded"), "\(run.stderr)")
        #expect(run.stderr.contains("overloaded"), "\(run.stderr)")
    }

    @Test func aRunWithFailuresListsTheirCommonestReasons() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let answer = ScriptedResponse.chatCompletion(content: "A tabby cat asleep on a sofa.")
        // Answers, then every other request refused as a bad request: those trials fail.
        let server = try await OpenAITestServer.start { request in
            request.number % 2 == 1
                ? answer : .error(status: 400, message: "Invalid image: the file could not be decoded.", type: "invalid_request_error", code: "invalid_image")
        }
        let run = try await AltbenchProcess.run(["run", "--base-url", server.baseURL, "--concurrency", "1"], in: workspace.root)
        await server.stop()
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stderr.contains("trials failed; the most common reasons:"), "\(run.stderr)")
        #expect(run.stderr.contains("× HTTP 400"), "\(run.stderr)")
        #expect(run.stderr.contains("Invalid image"), "\(run.stderr)")
    }

    @Test func aRunWithNoAnswerIsNotTheLatest() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let good = try await Self.server(answering: "A tabby cat curled up asleep on a red sofa.")
        #expect(try await AltbenchProcess.run(["run", "--base-url", good.baseURL], in: workspace.root).status == 0)
        await good.stop()
        let latest = try workspace.read("results/latest.html")
        // A wrong key: every request refused, nothing answered.
        let rejecting = try await OpenAITestServer.start { _ in
            .error(status: 401, message: "Incorrect API key provided.", type: "invalid_request_error")
        }
        let failed = try await AltbenchProcess.run(["run", "--base-url", rejecting.baseURL, "--no-cache"], in: workspace.root)
        await rejecting.stop()
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("recorded no answer"), "\(failed.stderr)")
        #expect(try workspace.read("results/latest.html") == latest, "latest.html still shows the run with answers")
        for command in [["baseline", "save"], ["report", "--format", "md"]] {
            let ran = try await AltbenchProcess.run(command, in: workspace.root)
            #expect(ran.status == 0, "\(command): \(ran.stderr)")
            #expect(ran.stderr.contains("the newest with answers"), "\(command): \(ran.stderr)")
        }
        let check = try await AltbenchProcess.run(["check", "--baseline", "results/baseline.json"], in: workspace.root)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(!check.stdout.contains("--resume"))
    }

    @Test func compareShowsTwoRunsOrABaselineAndARun() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let short = try await AltbenchProcess.run(["run", "--max-tokens", "10"], in: workspace.root)
        #expect(short.status == 0, "\(short.stderr)")
        #expect(try await AltbenchProcess.run(["baseline", "save", "--output", "short.json"], in: workspace.root).status == 0)
        let long = try await AltbenchProcess.run(["run", "--max-tokens", "10"], in: workspace.root)
        #expect(long.status == 0)

        let compared = try await AltbenchProcess.run(["compare", "short.json", "latest-run-placeholder"], in: workspace.root)
        #expect(compared.status == 2, "a run id the store lacks is an error")
        #expect(compared.stderr.contains("No run 'latest-run-placeholder'"), "\(compared.stderr)")

        let ids = try await AltbenchProcess.run(["compare", "short.json", "short.json", "--format", "json"], in: workspace.root)
        #expect(ids.status == 0, "\(ids.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(ids.stdout.utf8)) as? [String: Any])
        let before = try #require(object["before"] as? [String: Any])
        let runID = try #require(before["run_id"] as? String)

        let ambiguous = try await AltbenchProcess.run(["compare", "short.json", "2"], in: workspace.root)
        #expect(ambiguous.status == 2)
        #expect(ambiguous.stderr.contains("'2' starts 2 runs' ids"), "\(ambiguous.stderr)")
        let markdown = try await AltbenchProcess.run(["compare", "short.json", runID], in: workspace.root)
        #expect(markdown.status == 0, "\(markdown.stderr)")
        #expect(markdown.stdout.hasPrefix("# altbench compare"), "\(markdown.stdout.prefix(200))")
        #expect(markdown.stdout.contains("icecubes @ 10"))
        // The terminal text and the Markdown have the same layout; only the escaping differs.
        let file = try await AltbenchProcess.run(["compare", "short.json", runID, "--format", "md"], in: workspace.root)
        #expect(file.status == 0, "\(file.stderr)")
        #expect(file.stdout.hasPrefix("# altbench compare"))
        #expect(file.stdout.components(separatedBy: "\n").count == markdown.stdout.components(separatedBy: "\n").count)
        #expect(markdown.stdout.contains("| pair | answered / failed |"))
    }

    @Test func repeatsAreCachedByIndexAndTheirDisagreementsReported() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let counter = RequestCounter()
        // Every other answer speaks in the first person, so each item's two repeats disagree.
        let server = try await OpenAITestServer.start { _ in
            let number = await counter.next()
            return .chatCompletion(
                content: number % 2 == 0 ? "A cat asleep on a red sofa." : "I see a cat asleep on a red sofa.",
                model: "gpt-4o-mini")
        }
        let arguments = ["run", "--base-url", server.baseURL, "--max-tokens", "50", "--repeats", "2", "--concurrency", "1"]
        let first = try await AltbenchProcess.run(arguments, in: workspace.root)
        #expect(first.status == 0, "\(first.stderr)")
        let asked = await server.requests(path: "/v1/chat/completions").count
        // 2 prompts × 4 items × 2 repeats, one request each.
        #expect(asked == 16)
        let report = try workspace.read("results/latest.md")
        #expect(report.contains("## Instability across repeats"), "\(report)")
        #expect(report.contains("4 of 4"), "every item's repeats disagree")

        // Asked again, every repeat is answered from its own cache entry.
        let second = try await AltbenchProcess.run(arguments, in: workspace.root)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(await server.requests(path: "/v1/chat/completions").count == asked)
        await server.stop()

        let saved = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(saved.status == 0)
        let baseline = try #require(
            try JSONSerialization.jsonObject(with: Data(try workspace.read("results/baseline.json").utf8)) as? [String: Any])
        #expect(baseline["repeats"] as? Int == 2)
    }
}

private actor RequestCounter {
    private var count = 0
    func next() -> Int {
        count += 1
        return count
    }
}

