import AltBenchCore
import AltBenchTesting
import Foundation
import Testing
import Yams

/// `examples/ci/altbench-sharded.yml`, rehearsed: its shard jobs' commands run as the matrix
/// expands them, their stores are laid out as the artifact actions lay them out, and the
/// merge job's commands run on them with bash, as a hosted runner would.
@Suite("examples/ci sharded workflow")
struct ShardedWorkflowTests {
    static let file = Workspace.repository.appendingPathComponent("examples/ci/altbench-sharded.yml")

    static func jobs() throws -> [String: [String: Any]] {
        let workflow = try #require(try Yams.load(yaml: try String(contentsOf: file, encoding: .utf8)) as? [String: Any])
        let jobs = try #require(workflow["jobs"] as? [String: Any])
        return jobs.compactMapValues { $0 as? [String: Any] }
    }

    static func steps(_ job: [String: Any]) throws -> [[String: Any]] {
        try #require(job["steps"] as? [[String: Any]])
    }

    /// A step's `run:` with line continuations joined.
    static func command(_ step: [String: Any]) -> String? {
        (step["run"] as? String).map {
            $0.replacingOccurrences(of: "\\\n", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test func theShardJobsFeedTheMergeJobAndEveryFlagIsReal() async throws {
        let jobs = try Self.jobs()
        let shard = try #require(jobs["shard"])
        let merge = try #require(jobs["merge"])
        #expect(merge["needs"] as? String == "shard")
        #expect(merge["if"] as? String == "always()", "a failed shard still gets the others merged and named")
        let strategy = try #require(shard["strategy"] as? [String: Any])
        #expect(strategy["fail-fast"] as? Bool == false)
        let shards = try #require((strategy["matrix"] as? [String: Any])?["shard"] as? [Int])
        #expect(shards == Array(1...shards.count), "shards numbered 1…N")
        #expect(shards.count > 1)

        let text = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(!text.contains("sk-"), "no key-shaped literal")
        #expect(text.contains("secrets.OPENAI_API_KEY"))
        for step in try Self.steps(shard) + Self.steps(merge) {
            if let uses = step["uses"] as? String, uses.hasPrefix("altbench/altbench@v") {
                #expect(uses == "altbench/altbench@v\(AltBenchVersion.current)", "the action of this release")
            }
            guard let command = Self.command(step), command.hasPrefix("altbench ") else { continue }
            let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
            let help = try await AltbenchProcess.run([words[1], "--help"], in: Workspace.repository)
            #expect(help.status == 0, "altbench \(words[1]) --help failed: \(help.stderr)")
            for flag in words.dropFirst(2) where flag.hasPrefix("--") {
                #expect(help.stdout.contains(flag), "altbench \(words[1]) has no \(flag)")
            }
        }
    }

    /// The matrix runs against a loopback model; the merge job's steps then merge, check and
    /// report. The merged run passes a baseline saved from an unsharded run of the same plan.
    @Test func theWorkflowRunsEndToEndOnALoopbackModel() async throws {
        let jobs = try Self.jobs()
        let shardJob = try #require(jobs["shard"])
        let mergeJob = try #require(jobs["merge"])
        let shards = try #require(
            ((shardJob["strategy"] as? [String: Any])?["matrix"] as? [String: Any])?["shard"] as? [Int])
        let shardSteps = try Self.steps(shardJob)
        let runStep = try #require(shardSteps.compactMap(Self.command).first { $0.hasPrefix("altbench run") })
        let upload = try #require(
            shardSteps.first { ($0["uses"] as? String)?.hasPrefix("actions/upload-artifact@") == true }?["with"]
                as? [String: Any])
        let uploadPath = try #require(upload["path"] as? String)
        let artifactName = try #require(upload["name"] as? String)
        let mergeSteps = try Self.steps(mergeJob)
        let download = try #require(
            mergeSteps.first { ($0["uses"] as? String)?.hasPrefix("actions/download-artifact@") == true }?["with"]
                as? [String: Any])
        let downloadPath = try #require(download["path"] as? String)
        let pattern = try #require(download["pattern"] as? String)
        let mergeCommands = mergeSteps.compactMap(Self.command).filter { $0.hasPrefix("altbench ") }
        try #require(mergeCommands.count == 3, "\(mergeCommands)")

        let key = "sk" + "-ci-shards-0123"
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: key))
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("altbench.yml", "base_url: \(server.baseURL)\nmax_tokens: [30, 50, 80]\n")
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": key])

        // The baseline the repository commits, from an unsharded run on main.
        let main = try await AltbenchProcess.run(
            ["run", "--provider", "openai", "--results", "main"], in: workspace.root, environment: environment)
        #expect(main.status == 0, "\(main.stderr)")
        let saved = try await AltbenchProcess.run(
            ["baseline", "save", "--results", "main", "--output", "results/baseline.json"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")

        // Each matrix job: its own runner (a fresh copy of the repository), its run, its upload.
        for shard in shards {
            let runner = try Workspace()
            defer { runner.remove() }
            try runner.write("altbench.yml", try String(contentsOf: workspace.url("altbench.yml"), encoding: .utf8))
            let line = runStep.replacingOccurrences(of: "${{ matrix.shard }}", with: String(shard))
                .replacingOccurrences(of: "${{ strategy.job-total }}", with: String(shards.count))
            #expect(!line.contains("${{"), "\(line)")
            #expect(try await CIExampleTests.runStep(line, in: runner.root, environment: environment) == 0)
            // upload-artifact keeps a single file's name at the artifact's root; download-artifact
            // with a pattern puts each artifact in a folder named after it.
            let name = artifactName.replacingOccurrences(of: "${{ matrix.shard }}", with: String(shard))
            #expect(Self.matches(name, pattern: pattern), "\(name) is downloaded by \(pattern)")
            let folder = workspace.url("\(downloadPath)/\(name)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: runner.url(uploadPath), to: folder.appendingPathComponent(URL(fileURLWithPath: uploadPath).lastPathComponent))
        }
        await server.stop()

        // The merge job: merge, check, report, each as bash runs it.
        let ci = AltbenchProcess.cleanEnvironment(["CI": "true"])
        for command in mergeCommands {
            #expect(try await CIExampleTests.runStep(command, in: workspace.root, environment: ci) == 0, "\(command)")
        }
        #expect(FileManager.default.fileExists(atPath: workspace.url("results/altbench-junit.xml").path))
        #expect(FileManager.default.fileExists(atPath: workspace.url("results/latest.html").path))
        let runs = try await AltbenchProcess.run(["runs"], in: workspace.root)
        #expect(runs.stdout.contains("      24       0       24  finished"), "\(runs.stdout)")

        // One shard lost: the merge step fails and says which.
        try FileManager.default.removeItem(at: workspace.url("\(downloadPath)/\(artifactName.replacingOccurrences(of: "${{ matrix.shard }}", with: "2"))"))
        try FileManager.default.removeItem(at: workspace.url("results"))
        let partial = try await AltbenchProcess.run(
            ["-e", "-c", mergeCommands[0]], in: workspace.root,
            environment: ci.merging(["PATH": AltbenchProcess.executable.deletingLastPathComponent().path + ":/usr/bin:/bin"]) { $1 },
            executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(partial.status == 3)
        #expect(partial.stdout.contains("shard 2/\(shards.count) missing"), "\(partial.stdout)")
    }

    /// GitHub's artifact `pattern:` glob, for the `*` it uses here.
    static func matches(_ name: String, pattern: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { return name == pattern }
        return name.hasPrefix(parts[0]) && name.hasSuffix(parts[1]) && name.count >= parts[0].count + parts[1].count
    }
}
