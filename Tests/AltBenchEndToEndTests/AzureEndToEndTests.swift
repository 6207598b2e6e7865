import AltBenchTesting
import Foundation
import Testing

/// The built `altbench run` against the built `altbench-test-server`'s Azure routes: both URL
/// forms complete with the same tables as a direct run, the key is nowhere in what the run
/// wrote, and a wrong key or deployment stops the run with advice naming the Azure settings.
@Suite("run against Azure OpenAI routes")
struct AzureEndToEndTests {
    static let key = "azure" + "-e2e-key-SECRET-" + String(repeating: "9", count: 16)

    static func startServer(in directory: URL, latencyMilliseconds: Int = 0) async throws -> (RunningAltbench, endpoint: String) {
        let server = try RunningAltbench.testServer(
            [
                "--port", "0", "--azure-api-key", key, "--azure-deployments", "alt-text,gpt-4o-mini", "--latency-ms",
                String(latencyMilliseconds),
            ], in: directory)
        let baseURL = try #require(try await server.baseURL(), "the test server did not start")
        // "http://127.0.0.1:PORT/v1" → the resource's endpoint, "http://127.0.0.1:PORT".
        return (server, String(baseURL.dropLast("/v1".count)))
    }

    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        AltbenchProcess.cleanEnvironment(["AZURE_OPENAI_API_KEY": key].merging(extra) { $1 })
    }

    @Test func aDeploymentRunCompletesWithTheTablesOfADirectRunAndNoKeyAnywhere() async throws {
        let workspace = try Workspace()
        let direct = try Workspace()
        defer {
            workspace.remove()
            direct.remove()
        }
        let (server, endpoint) = try await Self.startServer(in: workspace.root)
        let run = try await AltbenchProcess.run(
            ["run", "--provider", "azure", "--azure-endpoint", endpoint, "--azure-deployment", "alt-text", "--max-tokens", "5,50"],
            in: workspace.root, environment: Self.environment(["CI": "true"]))
        let sent = try await AltbenchProcess.run(
            ["run", "--base-url", endpoint + "/v1", "--max-tokens", "5,50"], in: direct.root)
        let serverOutput = try await server.stop()

        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "altbench: sending to Azure OpenAI deployment alt-text at \(endpoint) (api-version 2024-10-21, key from AZURE_OPENAI_API_KEY)."),
            "\(run.stderr)")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(ProxyEndToEndTests.withoutLatency(run.stdout) == ProxyEndToEndTests.withoutLatency(sent.stdout))
        let latest = try workspace.read("results/latest.md")
        #expect(latest.components(separatedBy: "\n")[0].contains("(azure)"), "\(latest.prefix(300))")
        #expect(latest.contains("azure: --provider azure"), "\(latest.prefix(1200))")

        let text = try ProxyEndToEndTests.everything([run, serverOutput], workspace)
        #expect(!text.contains(Self.key))
        let database = try Data(contentsOf: workspace.url("results/altbench.sqlite"))
        #expect(database.range(of: Data(Self.key.utf8)) == nil, "the key is not in the store")
        #expect(database.range(of: Data("api-version=2024-10-21".utf8)) != nil, "the endpoint (with its api-version) is")
    }

    @Test func theEnvironmentAloneRunsTheV1FormAndOfflineReplaysIt() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let (server, endpoint) = try await Self.startServer(in: workspace.root)
        let env = Self.environment(["AZURE_OPENAI_ENDPOINT": endpoint + "/openai/v1/", "OPENAI_API_VERSION": "2024-06-01"])
        let run = try await AltbenchProcess.run(["run", "--max-tokens", "50"], in: workspace.root, environment: env)
        _ = try await server.stop()
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("sending to Azure OpenAI at \(endpoint) (v1 API"), "\(run.stderr)")
        #expect(!run.stderr.contains("OFFLINE MOCK"))
        let latest = try workspace.read("results/latest.md")
        #expect(latest.contains(#"| provider | azure: AZURE\_OPENAI\_ENDPOINT is set |"#), "\(latest.prefix(1200))")
        #expect(latest.contains("| endpoint | \(endpoint)/openai/v1/chat/completions |"), "\(latest.prefix(1200))")

        // The server is gone: the same settings replay every answer from the store, with no key.
        var keyless = env
        keyless["AZURE_OPENAI_API_KEY"] = nil
        let replay = try await AltbenchProcess.run(["run", "--max-tokens", "50", "--offline"], in: workspace.root, environment: keyless)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("nothing is sent to \(endpoint)/openai/v1/chat/completions"), "\(replay.stderr)")
    }

    @Test func aWrongKeyStopsTheRunAtOnceNamingAZURE_OPENAI_API_KEY() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let (server, endpoint) = try await Self.startServer(in: workspace.root)
        let wrong = "azure" + "-wrong-e2e-" + String(repeating: "4", count: 16)
        let run = try await AltbenchProcess.run(
            ["run", "--azure-endpoint", endpoint, "--azure-deployment", "alt-text", "--max-tokens", "5,50"], in: workspace.root,
            environment: AltbenchProcess.cleanEnvironment(["AZURE_OPENAI_API_KEY": wrong]))
        let serverOutput = try await server.stop()

        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("Access denied due to invalid subscription key"), "\(run.stderr)")
        #expect(run.stderr.contains("check that AZURE_OPENAI_API_KEY holds a key of the resource at \(endpoint)"), "\(run.stderr)")
        #expect(!run.stderr.contains("--base-url"))
        // The first answer stops the run: no trial is retried, and most are never sent.
        let stopped = try #require(run.stderr.firstMatch(of: /the run stopped after (\d+) of 16 trials/), "\(run.stderr)")
        #expect(Int(stopped.1)! < 16)
        let text = try ProxyEndToEndTests.everything([run, serverOutput], workspace)
        #expect(!text.contains(wrong) && !text.contains(Self.key))
    }

    @Test func anUnknownDeploymentStopsTheRunNamingIt() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let (server, endpoint) = try await Self.startServer(in: workspace.root)
        try workspace.write("altbench.yml", "azure:\n  endpoint: \(endpoint)\n  deployment: alt-txet\n")
        let run = try await AltbenchProcess.run(["run", "--max-tokens", "50"], in: workspace.root, environment: Self.environment())
        _ = try await server.stop()

        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("DeploymentNotFound"), "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "The resource has no deployment named 'alt-txet': check the deployment name (deployment under azure: in altbench.yml"),
            "\(run.stderr)")
    }

    @Test func aStoppedAzureRunResumesWithItsOwnDeployment() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let (server, endpoint) = try await Self.startServer(in: workspace.root, latencyMilliseconds: 400)
        let env = Self.environment(["AZURE_OPENAI_ENDPOINT": endpoint])
        let first = try await AltbenchProcess.run(
            ["run", "--azure-deployment", "alt-text", "--max-tokens", "5,50", "--concurrency", "1", "--deadline", "1s"],
            in: workspace.root, environment: env)
        #expect(first.status == 124, "\(first.stderr)")
        let hint = try #require(first.stderr.split(separator: "\n").first { $0.hasPrefix("Continue this run with: ") })
        let runID = try #require(hint.split(separator: " ").last.map(String.init))

        // Another deployment would ask other questions: refused, naming the run's own.
        let other = try await AltbenchProcess.run(
            ["run", "--resume", runID, "--azure-deployment", "gpt-4o-mini"], in: workspace.root, environment: env)
        #expect(other.status == 1)
        #expect(other.stderr.contains("--azure-deployment gpt-4o-mini would change what the run asks: the run's own is alt-text"), "\(other.stderr)")
        // The run's endpoint and deployment come from the store; only the key is needed again.
        let resumed = try await AltbenchProcess.run(
            ["run", "--resume", runID], in: workspace.root, environment: Self.environment())
        _ = try await server.stop()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming run \(runID)"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("sending to Azure OpenAI deployment alt-text at \(endpoint)"), "\(resumed.stderr)")
        let runs = try await AltbenchProcess.run(["runs", "--format", "json"], in: workspace.root)
        #expect(runs.stdout.contains("\"answered\" : 16"), "\(runs.stdout)")
    }
}
