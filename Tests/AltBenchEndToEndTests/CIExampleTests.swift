import AltBenchCore
import AltBenchTesting
import Foundation
import Testing
import Yams

/// The GitHub Actions example must stay runnable: valid YAML, and every altbench command in
/// it a command and flags the binary accepts.
@Suite("examples/ci")
struct CIExampleTests {
    @Test func theWorkflowIsValidAndUsesOnlyRealCommandsAndFlags() async throws {
        let file = Workspace.repository.appendingPathComponent("examples/ci/altbench.yml")
        let text = try String(contentsOf: file, encoding: .utf8)
        let workflow = try #require(try Yams.load(yaml: text) as? [String: Any])
        let jobs = try #require(workflow["jobs"] as? [String: Any])
        let job = try #require(jobs["alt-text"] as? [String: Any])
        let steps = try #require(job["steps"] as? [[String: Any]])
        let commands = try Self.workflowSteps()
        #expect(commands.count == 5)
        #expect(!text.contains("swift build") && !text.contains("container:"), "no toolchain, no source build")
        let install = try #require(steps.first { ($0["uses"] as? String)?.hasPrefix("altbench/altbench@v") == true })
        #expect(install["uses"] as? String == "altbench/altbench@v\(AltBenchVersion.current)", "the action of this release")
        #expect(commands.contains { $0.hasPrefix("altbench report --format html --embed-images") }, "uploaded HTML carries its images")
        #expect(commands.contains { $0.contains("run --provider proxy") }, "teams behind a signed proxy")
        #expect(text.contains("secrets.ALTBENCH_PROXY_APP_KEY"))
        #expect(commands.contains { $0.contains("run --offline") }, "forks replay stored answers")
        #expect(commands.contains { $0.contains("check --baseline results/baseline.json") })
        #expect(text.contains("secrets.OPENAI_API_KEY"))
        #expect(!text.contains("sk-"), "no key-shaped literal")

        for command in commands {
            let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
            let index = try #require(words.firstIndex(of: "altbench"))
            let subcommand = words[index + 1]
            let help = try await AltbenchProcess.run([subcommand, "--help"], in: Workspace.repository)
            #expect(help.status == 0, "altbench \(subcommand) --help failed: \(help.stderr)")
            for flag in words[(index + 2)...] where flag.hasPrefix("--") {
                #expect(help.stdout.contains(flag), "altbench \(subcommand) has no \(flag)")
            }
        }
    }

    /// The workflow's steps that run altbench, line continuations joined, in order:
    /// `["altbench run --provider openai || test $? -eq 3", …]`.
    static func workflowSteps() throws -> [String] {
        let file = Workspace.repository.appendingPathComponent("examples/ci/altbench.yml")
        let workflow = try #require(try Yams.load(yaml: try String(contentsOf: file, encoding: .utf8)) as? [String: Any])
        let job = try #require((workflow["jobs"] as? [String: Any])?["alt-text"] as? [String: Any])
        let steps = try #require(job["steps"] as? [[String: Any]])
        return steps.compactMap { $0["run"] as? String }
            .map { $0.replacingOccurrences(of: "\\\n", with: " ") }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { $0.hasPrefix("altbench ") }
    }

    /// The paths (`with: path:`, one a line) of the steps that use an action whose name starts
    /// with `action`, such as `actions/upload-artifact`.
    static func paths(ofStepsUsing action: String) throws -> [String] {
        let file = Workspace.repository.appendingPathComponent("examples/ci/altbench.yml")
        let workflow = try #require(try Yams.load(yaml: try String(contentsOf: file, encoding: .utf8)) as? [String: Any])
        let job = try #require((workflow["jobs"] as? [String: Any])?["alt-text"] as? [String: Any])
        let steps = try #require(job["steps"] as? [[String: Any]])
        return steps.filter { ($0["uses"] as? String)?.hasPrefix(action + "@") == true }
            .compactMap { ($0["with"] as? [String: Any])?["path"] as? String }
            .flatMap { $0.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty }
    }

    /// The arguments the step gives altbench (up to a `||`).
    static func arguments(_ step: String) -> [String] {
        let words = step.split(whereSeparator: \.isWhitespace).map(String.init)
        return Array(words.drop { $0 != "altbench" }.dropFirst().prefix { !["||", "&&", ";", "|"].contains($0) })
    }

    /// Runs a step's shell line as GitHub Actions does on a hosted runner (`bash -e`), with the
    /// built altbench first on PATH, where the action puts it; returns its exit status.
    static func runStep(_ step: String, in directory: URL, environment: [String: String]) async throws -> Int32 {
        var environment = environment
        environment["PATH"] = AltbenchProcess.executable.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return try await AltbenchProcess.run(
            ["-e", "-c", step], in: directory, environment: environment, executable: URL(fileURLWithPath: "/bin/bash")
        ).status
    }

    /// A fork's pull request edits a prompt: the offline replay has no stored answers for it,
    /// so every trial of that prompt fails (exit 3), and the gate must fail on it (exit 1)
    /// instead of passing checks it could not measure.
    @Test func aForkThatEditsAPromptFailsTheGateOnItsUnansweredTrials() async throws {
        let steps = try Self.workflowSteps()
        try #require(steps.count == 5)
        let (live, replay, check) = (Self.arguments(steps[0]), Self.arguments(steps[2]), Self.arguments(steps[3]))
        #expect(live.starts(with: ["run", "--provider", "openai"]))
        #expect(replay == ["run", "--offline"])
        #expect(check.starts(with: ["check", "--baseline", "results/baseline.json"]))

        let key = "sk" + "-ci-example-0123456789"
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: key))
        let workspace = try Workspace()
        defer { workspace.remove() }
        // The repository's settings point at the model; here, the loopback one.
        try workspace.write("altbench.yml", "base_url: \(server.baseURL)\nmax_tokens: [50]\n")

        // On main: the workflow's live run records the answers, and a baseline is saved from it.
        let recorded = try await AltbenchProcess.run(
            live, in: workspace.root, environment: AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": key]))
        #expect(recorded.status == 0, "\(recorded.stderr)")
        let saved = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")
        await server.stop()

        // A fork's pull request edits one prompt; it has no API key, so the workflow replays.
        let prompt = workspace.url("prompts/icecubes.md")
        try (try String(contentsOf: prompt, encoding: .utf8) + "\nMention the weather when it shows.\n")
            .write(to: prompt, atomically: true, encoding: .utf8)
        let fork = AltbenchProcess.cleanEnvironment(["CI": "true"])
        let replayed = try await AltbenchProcess.run(replay, in: workspace.root, environment: fork)
        #expect(replayed.status == 3, "\(replayed.stdout)\(replayed.stderr)")
        #expect(replayed.stderr.contains("4 trials had no stored answer"), "\(replayed.stderr)")
        // The workflow's step lets exit status 3 through, so that the check step runs and decides.
        #expect(try await Self.runStep(steps[2], in: workspace.root, environment: fork) == 0)

        let summary = workspace.url("step-summary.md")
        let gate = try await AltbenchProcess.run(
            check, in: workspace.root, environment: AltbenchProcess.cleanEnvironment(["CI": "true", "GITHUB_STEP_SUMMARY": summary.path]))
        #expect(gate.status == 1, "\(gate.stdout)\(gate.stderr)")
        let lines = gate.stdout.components(separatedBy: "\n")
        #expect(
            lines[0].hasPrefix("altbench check: regression — icecubes @ 50: errors rose: 0 of 4 trials failed in the baseline, 4 of 4 in the run"),
            "\(lines[0])")
        #expect(lines[0].hasSuffix("may not rise) (and 5 more)"), "the headline stays one short line: \(lines[0])")
        // The failed checks say why and what to do.
        let why = try #require(lines.first { $0.hasPrefix("  icecubes @ 50 errors: rose") }, "\(gate.stdout)")
        #expect(why.contains("The run got no answer for this pair; first reason: no stored answer for this trial"), "\(why)")
        #expect(why.contains("Fix the cause"))
        // One line per pair: the edited prompt lost every answer, the other held.
        let edited = try #require(lines.first { $0.hasPrefix("icecubes @ 50 ") }, "\(gate.stdout)")
        #expect(edited.contains("4/0 → 0/4"), "\(edited)")
        #expect(edited.contains("failed: errors, quality, first_person, refusal, truncated, significance"), "\(edited)")
        #expect(edited.hasSuffix("; prompt changed"), "the edit is named beside the verdict: \(edited)")
        let untouched = try #require(lines.first { $0.hasPrefix("icecubes-original @ 50 ") }, "\(gate.stdout)")
        #expect(untouched.contains("4/0 → 4/0") && untouched.hasSuffix("held"), "\(untouched)")
        #expect(!gate.stdout.contains("not measured on both sides"))

        let junit = try workspace.read("results/altbench-junit.xml")
        #expect(junit.contains("<testsuite name=\"icecubes @ 50\" tests=\"6\" failures=\"6\""), "\(junit)")
        #expect(junit.contains("<property name=\"run.failed\" value=\"4\"/>"))
        #expect(junit.contains("<testsuite name=\"icecubes-original @ 50\" tests=\"6\" failures=\"0\""))
        let stepSummary = try String(contentsOf: summary, encoding: .utf8)
        #expect(stepSummary.contains("| icecubes @ 50 (*prompt changed*) | 4 / 0 → 0 / 4 ▼ |"), "\(stepSummary)")

        // The report step writes the HTML that is uploaded with its images inside: the artifact
        // has no dataset beside it.
        #expect(steps[4].hasPrefix("altbench report --format html --embed-images"))
        #expect(try await Self.runStep(steps[4], in: workspace.root, environment: fork) == 0)
        let html = try workspace.read("results/latest.html")
        let sources = html.matches(of: /<img[^>]*\ssrc="([^"]*)"/).map { String($0.1) }
        #expect(!sources.isEmpty, "the report shows the images")
        #expect(sources.allSatisfy { $0.hasPrefix("data:image/") }, "not inside the file: \(sources.filter { !$0.hasPrefix("data:") })")
        // What the workflow uploads and caches is what its steps wrote.
        let kept = try Self.paths(ofStepsUsing: "actions/upload-artifact") + Self.paths(ofStepsUsing: "actions/cache/save")
        #expect(kept.contains("results/latest.html") && kept.contains("results/altbench.sqlite"), "\(kept)")
        for path in kept {
            #expect(FileManager.default.fileExists(atPath: workspace.url(path).path), "the workflow keeps \(path), which no step wrote")
        }

        let json = try await AltbenchProcess.run(check + ["--format", "json"], in: workspace.root)
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let pairs = try #require(object["pairs"] as? [[String: Any]])
        let pair = try #require(pairs.first { $0["variant"] as? String == "icecubes" })
        #expect((pair["after"] as? [String: Any])?["failed"] as? Int == 4)
        #expect((pair["after"] as? [String: Any])?["answered"] as? Int == 0)
        #expect((pair["before"] as? [String: Any])?["answered"] as? Int == 4)
    }
}
