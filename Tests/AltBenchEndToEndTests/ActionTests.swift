import AltBenchCore
import AltBenchTesting
import Foundation
import Testing
import Yams

/// altbench's GitHub Action (`action.yml`): its steps run as a runner runs them, against the
/// release archive served from 127.0.0.1.
@Suite("the GitHub Action")
struct ActionTests {
    /// A release server on 127.0.0.1 holding one archive (and its checksum) under
    /// `/releases/download/v<version>/`; `checksum` replaces the right one when given.
    static func releaseServer(archive: URL, checksum: String? = nil) async throws -> (server: OpenAITestServer, downloadURL: String) {
        let name = archive.lastPathComponent
        let version = try #require(name.firstMatch(of: /altbench-(\d+\.\d+\.\d+)-/)).1
        let bytes = try Data(contentsOf: archive)
        let sum = try checksum ?? String(contentsOf: archive.deletingLastPathComponent().appendingPathComponent(name + ".sha256"), encoding: .utf8)
        let prefix = "/releases/download/v\(version)/"
        let server = try await OpenAITestServer.start { request in
            switch request.path {
            case prefix + name: .raw(body: bytes, contentType: "application/gzip")
            case prefix + name + ".sha256": .raw(body: sum, contentType: "text/plain")
            default: .raw(status: 404, body: "Not Found", contentType: "text/plain")
            }
        }
        return (server, "http://127.0.0.1:\(server.port)/releases/download")
    }

    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-action-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("installs the archive from the download URL, verified, onto PATH; altbench --version runs from there; a second run uses the install")
    func installs() async throws {
        let (server, downloadURL) = try await Self.releaseServer(archive: try await ReleaseArchive.archive())
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        let runner = ActionRunner(inputs: ["download-url": downloadURL], toolCache: workspace.appendingPathComponent("tool-cache"))

        let first = try await runner.run(in: workspace.appendingPathComponent("first"))
        #expect(first.succeeded, "\(first.stderr)")
        #expect(first.skipped == ["actions/cache@v4"], "the cache step is GitHub's; the rest ran")
        #expect(first.steps.map(\.name) == ["Resolve the altbench release", "Install altbench"], "no args: nothing is run")
        let bin = try #require(first.path.last)
        #expect(bin.hasPrefix(workspace.appendingPathComponent("tool-cache/altbench/\(AltBenchVersion.current)/").path))
        #expect(first.steps.last?.outputs["version"] == AltBenchVersion.current)
        #expect(await server.requests().map(\.path).count == 2, "the archive and its checksum")

        let installed = URL(fileURLWithPath: bin).appendingPathComponent("altbench")
        let version = try await AltbenchProcess.run(["--version"], in: workspace, executable: installed)
        #expect(version.status == 0 && version.stdout.hasPrefix(AltBenchVersion.current + " "), "\(version.stdout)\(version.stderr)")
        #expect(FileManager.default.fileExists(atPath: URL(fileURLWithPath: bin).deletingLastPathComponent().appendingPathComponent("share/altbench/datasets/sample/manifest.jsonl").path))

        // The same tool cache (a restored actions/cache): nothing downloaded again.
        let second = try await runner.run(in: workspace.appendingPathComponent("second"))
        #expect(second.succeeded, "\(second.stderr)")
        #expect(second.stdout.contains("(cached)"))
        #expect(await server.requests().count == 2)
        await server.stop()
    }

    @Test("args runs altbench once installed, quoted words whole and nothing expanded")
    func runsArgs() async throws {
        let (server, downloadURL) = try await Self.releaseServer(archive: try await ReleaseArchive.archive())
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        var runner = ActionRunner(toolCache: workspace.appendingPathComponent("tool-cache"))
        runner.inputs = ["download-url": downloadURL, "args": "datasets validate 'no such $(touch pwned) folder'"]
        let result = try await runner.run(in: workspace)
        #expect(result.steps.map(\.name).last == "Run altbench")
        #expect(result.steps.last?.status == 1, "datasets validate of a missing folder exits 1: \(result.stderr)")
        #expect(result.stdout.contains("no such $(touch pwned) folder"), "one word, as written: \(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: workspace.appendingPathComponent("pwned").path))
        await server.stop()
    }

    @Test("a checksum that does not match installs nothing and says why")
    func refusesABadChecksum() async throws {
        let archive = try await ReleaseArchive.archive()
        let wrong = String(repeating: "0", count: 64) + "  " + archive.lastPathComponent + "\n"
        let (server, downloadURL) = try await Self.releaseServer(archive: archive, checksum: wrong)
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        let runner = ActionRunner(inputs: ["download-url": downloadURL], toolCache: workspace.appendingPathComponent("tool-cache"))
        let result = try await runner.run(in: workspace)
        #expect(!result.succeeded)
        #expect(result.stderr.contains("\(archive.lastPathComponent) does not match its checksum"), "\(result.stderr)")
        #expect(result.stdout.contains("::error title=altbench::"), "an annotation on the run")
        #expect(result.path.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: workspace.appendingPathComponent("tool-cache/altbench").path + "/\(AltBenchVersion.current)/linux-x86_64/bin"))
        await server.stop()
    }

    @Test("a version that was never released: a clear error naming the URL")
    func missingVersion() async throws {
        let (server, downloadURL) = try await Self.releaseServer(archive: try await ReleaseArchive.archive())
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        let runner = ActionRunner(inputs: ["download-url": downloadURL, "version": "9.9.9"], toolCache: workspace.appendingPathComponent("tool-cache"))
        let result = try await runner.run(in: workspace)
        #expect(!result.succeeded)
        #expect(result.stderr.contains("cannot download \(downloadURL)/v9.9.9/altbench-9.9.9-"), "\(result.stderr)")
        #expect(result.stderr.contains("is altbench 9.9.9 released for this platform?"))
        await server.stop()
    }

    @Test(
        "which version: the input, else the action's version tag, else the version this action ships with",
        arguments: [
            ("", "v0.4.2", "0.4.2"), ("", "0.4.2", "0.4.2"), ("", "v\(AltBenchVersion.current)", AltBenchVersion.current),
            ("", "main", AltBenchVersion.current),
            ("", "0123456789abcdef0123456789abcdef01234567", AltBenchVersion.current), ("v1.2.3", "v0.4.2", "1.2.3"),
            ("1.2.3", "", "1.2.3"),
        ])
    func resolvesTheVersion(input: String, ref: String, expected: String) async throws {
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        var runner = ActionRunner(inputs: ["version": input], toolCache: workspace.appendingPathComponent("tool-cache"))
        runner.github["action_ref"] = ref
        runner.stepLimit = 1
        let result = try await runner.run(in: workspace)
        #expect(result.succeeded, "\(result.stderr)")
        let outputs = try #require(result.steps.first?.outputs)
        #expect(outputs["version"] == expected)
        #expect(
            outputs["url"] == "https://github.com/altbench/altbench/releases/download/v\(expected)/altbench-\(expected)-\(outputs["platform"] ?? "?").tar.gz",
            "by default, the action's own repository's releases")
    }

    @Test("refused before any download: a version that is not one, a Windows runner, a 32-bit one")
    func refusals() async throws {
        let cases: [(inputs: [String: String], os: String, arch: String, message: String)] = [
            (["version": "1.2; rm -rf /"], "Linux", "X64", "is not a release version"),
            (["version": "../../evil"], "Linux", "X64", "is not a release version"),
            (["download-url": "file:///etc"], "Linux", "X64", "is not an http(s) URL"),
            ([:], "Windows", "X64", "not 'Windows'"),
            ([:], "Linux", "X86", "not 'X86'"),
        ]
        for item in cases {
            let workspace = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: workspace) }
            var runner = ActionRunner(inputs: item.inputs, toolCache: workspace.appendingPathComponent("tool-cache"))
            runner.runnerOS = item.os
            runner.runnerArch = item.arch
            let result = try await runner.run(in: workspace)
            #expect(!result.succeeded && result.steps.count == 1, "\(item)")
            #expect(result.stderr.contains(item.message), "\(item): \(result.stderr)")
        }
        // macOS runners get the universal archive, whatever their architecture.
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        var mac = ActionRunner(toolCache: workspace.appendingPathComponent("tool-cache"))
        (mac.runnerOS, mac.runnerArch, mac.stepLimit) = ("macOS", "ARM64", 1)
        #expect(try await mac.run(in: workspace).steps.first?.outputs["platform"] == "macos-universal")
    }

    @Test("the version the action ships with (baked into action.yml) is altbench's")
    func defaultVersion() throws {
        let text = try String(contentsOf: Repository.root.appendingPathComponent("action.yml"), encoding: .utf8)
        let action = try #require(try Yams.load(yaml: text) as? [String: Any])
        let steps = try #require((action["runs"] as? [String: Any])?["steps"] as? [[String: Any]])
        let resolve = try #require(steps.first { $0["id"] as? String == "resolve" })
        let baked = (resolve["env"] as? [String: Any])?["ALTBENCH_DEFAULT_VERSION"]
        #expect(baked as? String == AltBenchVersion.current, "action.yml's ALTBENCH_DEFAULT_VERSION is \(String(describing: baked))")
    }

    @Test("blank args: installed, nothing run")
    func blankArgs() async throws {
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        let script = Repository.root.appendingPathComponent("scripts/action/install.sh").path
        // No altbench in ALTBENCH_DIR: running it would fail the step.
        let environment = ["PATH": "/usr/bin:/bin", "RUNNER_TEMP": workspace.path, "ALTBENCH_ARGS": " \t\n ", "ALTBENCH_DIR": workspace.appendingPathComponent("none").path]
        let result = try await AltbenchProcess.run(
            [script, "run"], in: workspace, environment: environment, executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("args is blank"), "\(result.stdout)")
    }

    /// The test's runner knows only the expressions action.yml uses; anything else stops the
    /// test instead of being run with a guessed value.
    @Test(
        "the test's action runner refuses an expression it cannot evaluate",
        arguments: [
            "      env:\n        TOKEN: ${{ secrets.TOKEN }}\n      run: echo \"$TOKEN\"\n",
            "      run: echo ${{ hashFiles('x') }}\n",
            "      if: runner.os == 'Linux' && inputs.args != ''\n      run: echo\n",
        ])
    func runnerRefusesUnknownExpressions(step: String) async throws {
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        let action = workspace.appendingPathComponent("action.yml")
        try """
            name: t
            description: t
            inputs:
              args: {default: ""}
            runs:
              using: composite
              steps:
                - shell: bash

            """.appending(step).write(to: action, atomically: true, encoding: .utf8)
        var runner = ActionRunner(toolCache: workspace.appendingPathComponent("tool-cache"))
        runner.action = action
        await #expect(throws: ActionRunner.UnsupportedExpression.self) { try await runner.run(in: workspace) }
    }

    @Test("install.sh passes shellcheck", .enabled(if: WorkflowFilesTests.onPath("shellcheck") != nil, "shellcheck is not on PATH"))
    func shellcheck() async throws {
        let shellcheck = try #require(WorkflowFilesTests.onPath("shellcheck"))
        let workspace = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: workspace) }
        let script = Repository.root.appendingPathComponent("scripts/action/install.sh").path
        let result = try await AltbenchProcess.run(
            ["--shell=bash", script], in: workspace, environment: ProcessInfo.processInfo.environment, executable: shellcheck)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }
}
