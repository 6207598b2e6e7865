import AltBenchTesting
import Foundation
import Testing

/// The built `altbench run --proxy` through the built `altbench proxy` to the built
/// `altbench-test-server`: the same tables as a direct run, no secret anywhere, and a wrong
/// app key stopping the run at once.
@Suite("run through the built proxy")
struct ProxyEndToEndTests {
    static let upstreamKey = "sk" + "-e2e-upstream-SECRET-0123456789"
    static let appKey = "e2e-app-key-SECRET-000111222333"

    /// A running `altbench proxy` and its upstream `altbench-test-server`.
    struct Servers {
        var server: RunningAltbench
        var proxy: RunningAltbench
        var serverURL: String
        var proxyURL: String

        func stop() async throws -> (server: AltbenchProcess.Output, proxy: AltbenchProcess.Output) {
            let proxyOutput = try await proxy.stop()
            let serverOutput = try await server.stop()
            return (serverOutput, proxyOutput)
        }
    }

    static func startServers(in directory: URL, latencyMilliseconds: Int = 0) async throws -> Servers {
        let server = try RunningAltbench.testServer(
            ["--port", "0", "--api-key", upstreamKey, "--latency-ms", String(latencyMilliseconds)], in: directory)
        let serverURL = try #require(try await server.baseURL(), "the test server did not start")
        let proxy = try RunningAltbench(
            ["proxy", "--port", "0", "--upstream", serverURL], in: directory,
            environment: AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": upstreamKey, "ALTBENCH_PROXY_APP_KEY": appKey]))
        let proxyURL = try #require(try await proxy.proxyURL(), "the proxy did not start")
        return Servers(server: server, proxy: proxy, serverURL: serverURL, proxyURL: proxyURL)
    }

    /// Everything a run left behind: what it printed and every file under results/.
    static func everything(_ outputs: [AltbenchProcess.Output], _ workspace: Workspace) throws -> String {
        var text = outputs.map { $0.stdout + $0.stderr }.joined()
        let results = workspace.url("results")
        for path in try FileManager.default.subpathsOfDirectory(atPath: results.path) {
            let url = results.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            if !isDirectory.boolValue { text += String(decoding: try Data(contentsOf: url), as: UTF8.self) }
        }
        return text
    }

    @Test func aRunThroughTheProxyGivesTheSameTablesAsADirectRun() async throws {
        let direct = try Workspace()
        let proxied = try Workspace()
        defer {
            direct.remove()
            proxied.remove()
        }
        let servers = try await Self.startServers(in: proxied.root)

        let viaProxy = try await AltbenchProcess.run(
            ["run", "--proxy", servers.proxyURL, "--max-tokens", "5,50"], in: proxied.root,
            environment: AltbenchProcess.cleanEnvironment(["ALTBENCH_PROXY_APP_KEY": Self.appKey, "CI": "true"]))
        let sent = try await AltbenchProcess.run(
            ["run", "--base-url", servers.serverURL, "--max-tokens", "5,50"], in: direct.root,
            environment: AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.upstreamKey]))
        let (_, proxyOutput) = try await servers.stop()

        #expect(viaProxy.status == 0, "\(viaProxy.stderr)")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(viaProxy.stderr.contains("sending through the signed proxy \(servers.proxyURL)"), "\(viaProxy.stderr)")
        // The same tables, answer for answer; only the latency column may differ (the proxy is
        // one more hop).
        #expect(!viaProxy.stdout.isEmpty)
        #expect(Self.withoutLatency(viaProxy.stdout) == Self.withoutLatency(sent.stdout))
        #expect(viaProxy.stdout.contains("p50 latency"))
        let latest = try proxied.read("results/latest.md")
        #expect(latest.components(separatedBy: "\n")[0].contains("(proxy)"), "\(latest.prefix(300))")
        #expect(latest.contains("\(servers.proxyURL)/v1/chat/completions") || latest.contains(URL(string: servers.proxyURL)!.host!))

        // One token request, 16 signed completions, all forwarded.
        let log = proxyOutput.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(log.filter { $0["path"] as? String == "/auth_token" }.count == 1, "\(proxyOutput.stderr)")
        let chat = log.filter { $0["path"] as? String == "/v1/chat/completions" }
        #expect(chat.count == 16)
        #expect(chat.allSatisfy { $0["status"] as? Int == 200 && $0["upstream_status"] as? Int == 200 })
        #expect(proxyOutput.status == 0, "SIGTERM stops the proxy cleanly: \(proxyOutput.stderr)")

        // Neither key is anywhere the run or the proxy wrote.
        let text = try Self.everything([viaProxy, proxyOutput], proxied)
        #expect(!text.contains(Self.appKey) && !text.contains(Self.upstreamKey))
        #expect(text.range(of: "\"(token|signature)\"", options: .regularExpression) == nil)
    }

    /// A terminal summary with its last column (p50 latency) cut off each line.
    static func withoutLatency(_ table: String) -> String {
        table.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard let cut = line.range(of: #"\s+(\S+ ms|p50 latency|-+)$"#, options: .regularExpression) else { return String(line) }
            return String(line[..<cut.lowerBound])
        }.joined(separator: "\n")
    }

    @Test func aWrongAppKeyStopsTheRunAtOnceWithExitOne() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let servers = try await Self.startServers(in: workspace.root)
        let wrong = "wrong-app-key-SECRET-424242"
        let started = ContinuousClock.now
        let run = try await AltbenchProcess.run(
            ["run", "--proxy", servers.proxyURL, "--max-tokens", "5,50"], in: workspace.root,
            environment: AltbenchProcess.cleanEnvironment(["ALTBENCH_PROXY_APP_KEY": wrong]))
        let elapsed = ContinuousClock.now - started
        let (_, proxyOutput) = try await servers.stop()

        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("refused altbench's token request (HTTP 401 invalid_signature"), "\(run.stderr)")
        #expect(run.stderr.contains("ALTBENCH_PROXY_APP_KEY does not hold the app key the signed proxy"), "\(run.stderr)")
        #expect(elapsed < .seconds(20), "a misconfiguration stops the run within seconds, not minutes")
        let log = proxyOutput.stderr.split(separator: "\n").filter { $0.contains("\"/v1/chat/completions\"") }
        #expect(log.isEmpty, "nothing reached the chat route: \(proxyOutput.stderr)")
        let text = try Self.everything([run, proxyOutput], workspace)
        #expect(!text.contains(wrong) && !text.contains(Self.appKey) && !text.contains(Self.upstreamKey))
    }

    @Test func aProxyWhoseUpstreamIsDownStopsTheRunWithinSecondsNamingTheUpstream() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        // The proxy forwards to a port nothing listens on: every chat request is its 502.
        let closed = try ClosedPort()
        let proxy = try RunningAltbench(
            ["proxy", "--port", "0", "--upstream", closed.baseURL], in: workspace.root,
            environment: AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.upstreamKey, "ALTBENCH_PROXY_APP_KEY": Self.appKey]))
        let proxyURL = try #require(try await proxy.proxyURL(), "the proxy did not start")
        let started = ContinuousClock.now
        let run = try await AltbenchProcess.run(
            ["run", "--proxy", proxyURL], in: workspace.root,
            environment: AltbenchProcess.cleanEnvironment(["ALTBENCH_PROXY_APP_KEY": Self.appKey]))
        let elapsed = ContinuousClock.now - started
        _ = try await proxy.stop()

        #expect(run.status == 1, "\(run.stderr)")
        // About 2 s of retries, then the report; room for a busy machine.
        #expect(elapsed < .seconds(30), "\(elapsed)")
        #expect(run.stderr.contains("502"), "\(run.stderr)")
        #expect(run.stderr.contains("upstream_unreachable"), "\(run.stderr)")
        #expect(run.stderr.contains("Check the proxy's --upstream URL"), "\(run.stderr)")
    }

    @Test func aStoppedRunThroughTheProxyResumesThroughIt() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let servers = try await Self.startServers(in: workspace.root, latencyMilliseconds: 400)
        let withKey = AltbenchProcess.cleanEnvironment(["ALTBENCH_PROXY_APP_KEY": Self.appKey])
        let first = try await AltbenchProcess.run(
            ["run", "--proxy", servers.proxyURL, "--max-tokens", "5,50", "--concurrency", "1", "--deadline", "1s"],
            in: workspace.root, environment: withKey)
        #expect(first.status == 124, "\(first.stderr)")
        let hint = try #require(first.stderr.split(separator: "\n").first { $0.hasPrefix("Continue this run with: ") })
        let runID = try #require(hint.split(separator: " ").last.map(String.init))

        // The app key is needed again to send what is missing, and named when it is not there.
        let keyless = try await AltbenchProcess.run(["run", "--resume", runID], in: workspace.root)
        #expect(keyless.status == 1 && keyless.stderr.contains("ALTBENCH_PROXY_APP_KEY is not set"), "\(keyless.stderr)")
        let resumed = try await AltbenchProcess.run(["run", "--resume", runID, "--proxy", servers.proxyURL], in: workspace.root, environment: withKey)
        _ = try await servers.stop()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming run \(runID)"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("sending through the signed proxy \(servers.proxyURL)"))
        let runs = try await AltbenchProcess.run(["runs", "--format", "json"], in: workspace.root)
        #expect(runs.stdout.contains("\"answered\" : 16"), "\(runs.stdout)")
    }

    @Test func theWorkflowsProxyVariantRecordsAndAForkReplaysIt() async throws {
        let steps = try CIExampleTests.workflowSteps()
        let throughProxy = try #require(steps.first { $0.contains("--provider proxy") })
        let replay = try #require(steps.first { $0.contains("--offline") })
        let workspace = try Workspace()
        defer { workspace.remove() }
        let servers = try await Self.startServers(in: workspace.root)
        try workspace.write("altbench.yml", "proxy:\n  url: \(servers.proxyURL)\nmax_tokens: [50]\n")

        // On main: CI holds only the app key.
        let main = AltbenchProcess.cleanEnvironment(["ALTBENCH_PROXY_APP_KEY": Self.appKey, "CI": "true"])
        #expect(try await CIExampleTests.runStep(throughProxy, in: workspace.root, environment: main) == 0)
        _ = try await servers.stop()
        let saved = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")

        // A fork has no key at all: the replay answers every trial from the proxy run's answers.
        let fork = AltbenchProcess.cleanEnvironment(["CI": "true"])
        let replayed = try await AltbenchProcess.run(CIExampleTests.arguments(replay), in: workspace.root, environment: fork)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let gate = try await AltbenchProcess.run(["check", "--baseline", "results/baseline.json"], in: workspace.root, environment: fork)
        #expect(gate.status == 0, "\(gate.stdout)\(gate.stderr)")
    }
}

extension RunningAltbench {
    /// The URL from `altbench proxy`'s first line, "altbench proxy listening on URL".
    func proxyURL() async throws -> String? {
        let prefix = "altbench proxy listening on "
        for _ in 0..<600 {
            let text = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
            if let newline = text.firstIndex(of: "\n") {
                let line = text[..<newline]
                #expect(line.hasPrefix(prefix), "the first line is the listening line: \(line)")
                if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
            }
            if !process.isRunning { return nil }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}
