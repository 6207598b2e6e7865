import AltBenchTesting
import Foundation
import GRDB
import Testing

/// The built binary interrupted the hard ways: SIGKILL at any moment, Ctrl-C, SIGTERM, and
/// replaying from the store with `--offline`.
@Suite("altbench interrupted, resumed and replayed", .serialized)
struct InterruptionTests {
    static let key = "sk" + "-interrupt-SECRET-0123456789abcdef"
    /// 2 prompts × 4 images × 4 token limits.
    static let limits = "30,50,80,150"
    static let planned = 32

    static func slowServer(latency: Duration) async throws -> OpenAITestServer {
        let compatible = OpenAITestServer.compatible(apiKey: key)
        return try await OpenAITestServer.start { request in
            await compatible(request).delayed(by: latency)
        }
    }

    static func environment() -> [String: String] {
        AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": key])
    }

    /// Opens the database read-only, as a second process would.
    static func database(_ workspace: Workspace) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: workspace.url("results/altbench.sqlite").path, configuration: configuration)
    }

    static func count(_ workspace: Workspace, _ sql: String) throws -> Int {
        let db = try database(workspace)
        return try db.read { (db: Database) throws -> Int in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    /// Waits until the running process has recorded at least `trials` answered trials.
    static func waitForAnswers(_ workspace: Workspace, atLeast trials: Int, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if FileManager.default.fileExists(atPath: workspace.url("results/altbench.sqlite").path),
                let answered = try? count(workspace, "SELECT count(*) FROM trial WHERE status = 'answered'"),
                answered >= trials
            {
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no \(trials) answered trials within \(timeout)")
    }

    /// The server's request count once it stops changing: bodies a killed client had already
    /// written can still be in the socket's buffer, and a busy server records them late.
    static func settledRequestCount(_ server: OpenAITestServer) async throws -> Int {
        var count = await server.requests().count
        while true {
            try await Task.sleep(for: .milliseconds(400))
            let now = await server.requests().count
            if now == count { return count }
            count = now
        }
    }

    @Test("kill -9 midway loses nothing written, the database stays sound, and a re-run asks only what is missing")
    func killNine() async throws {
        let server = try await Self.slowServer(latency: .milliseconds(150))
        let workspace = try Workspace()
        defer { workspace.remove() }
        let arguments = ["run", "--base-url", server.baseURL, "--max-tokens", Self.limits, "--concurrency", "2"]
        let running = try RunningAltbench(arguments, in: workspace.root, environment: Self.environment())
        try await Self.waitForAnswers(workspace, atLeast: 6)
        running.send(SIGKILL)
        _ = try await running.wait()
        #expect(running.termination == .signalled(SIGKILL))

        let integrity = try await Self.database(workspace).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        let answered = try Self.count(workspace, "SELECT count(*) FROM trial WHERE status = 'answered'")
        #expect(answered >= 6 && answered < Self.planned)
        #expect(try Self.count(workspace, "SELECT count(*) FROM run WHERE status = 'running'") == 1)
        let before = try await Self.settledRequestCount(server)

        let rerun = try await AltbenchProcess.run(arguments, in: workspace.root, environment: Self.environment())
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let asked = await server.requests().count - before
        #expect(asked == Self.planned - answered, "the re-run asks exactly the trials the killed run had not stored")
        #expect(try Self.count(workspace, "SELECT count(*) FROM trial t JOIN run r ON r.id = t.run_id WHERE r.status = 'finished' AND t.cached") == answered)
        await server.stop()
    }

    @Test("--resume continues a killed run in place, asking only what it lacks")
    func resumeAfterKill() async throws {
        let server = try await Self.slowServer(latency: .milliseconds(150))
        let workspace = try Workspace()
        defer { workspace.remove() }
        let running = try RunningAltbench(
            ["run", "--base-url", server.baseURL, "--max-tokens", Self.limits, "--concurrency", "2"], in: workspace.root,
            environment: Self.environment())
        try await Self.waitForAnswers(workspace, atLeast: 5)
        running.send(SIGKILL)
        _ = try await running.wait()
        let answered = try Self.count(workspace, "SELECT count(*) FROM trial WHERE status = 'answered'")
        let runID = try await Self.database(workspace).read { try String.fetchOne($0, sql: "SELECT id FROM run") }!
        let before = try await Self.settledRequestCount(server)

        // Flags that would change the plan are refused, naming both values.
        let refused = try await AltbenchProcess.run(
            ["run", "--resume", runID, "--max-tokens", "30"], in: workspace.root, environment: Self.environment())
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                "Cannot resume run \(runID): --max-tokens 30 would change what the run asks: the run's own is \(Self.limits)."),
            "\(refused.stderr)")
        let elsewhere = try await AltbenchProcess.run(
            ["run", "--resume", runID, "--base-url", "http://127.0.0.1:1/v1"], in: workspace.root, environment: Self.environment())
        #expect(elsewhere.status == 1)
        #expect(elsewhere.stderr.contains("--base-url http://127.0.0.1:1/v1 would change what the run asks: the run's own is \(server.baseURL)."))
        #expect(await server.requests().count == before)

        // The command that started the run, repeated with --resume, is accepted (the base URL
        // with a trailing slash is the same URL).
        let resumed = try await AltbenchProcess.run(
            ["run", "--resume", String(runID.prefix(15)), "--base-url", server.baseURL + "/", "--max-tokens", Self.limits,
             "--concurrency", "2"], in: workspace.root, environment: Self.environment())
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("resuming run \(runID): \(answered) of \(Self.planned) trials already answered"))
        #expect(await server.requests().count - before == Self.planned - answered)
        #expect(try Self.count(workspace, "SELECT count(*) FROM run") == 1)
        #expect(try Self.count(workspace, "SELECT count(*) FROM run WHERE status = 'finished'") == 1)
        #expect(try Self.count(workspace, "SELECT count(*) FROM trial WHERE status = 'answered'") == Self.planned)
        let latest = try workspace.read("results/latest.md")
        #expect(!latest.contains("Incomplete"))
        #expect(latest.contains("| trials | 32 of 32: 32 answered"))
        await server.stop()
    }

    @Test(
        "SIGINT and SIGTERM stop new requests, let those in flight finish, and write an incomplete report",
        arguments: [(SIGINT, "SIGINT", Int32(130)), (SIGTERM, "SIGTERM", Int32(143))])
    func signals(signal: Int32, name: String, status: Int32) async throws {
        let server = try await Self.slowServer(latency: .milliseconds(300))
        let workspace = try Workspace()
        defer { workspace.remove() }
        let running = try RunningAltbench(
            ["run", "--base-url", server.baseURL, "--max-tokens", Self.limits, "--concurrency", "3"], in: workspace.root,
            environment: Self.environment())
        try await Self.waitForAnswers(workspace, atLeast: 3)
        let stoppedAt = ContinuousClock.now
        running.send(signal)
        let output = try await running.wait()
        // The grace period is 5 s; the rest is the report, on a machine that may be loaded.
        #expect(ContinuousClock.now - stoppedAt < .seconds(15), "in-flight requests finish within the grace period")
        #expect(output.status == status, "\(output.stderr)")
        #expect(output.stderr.contains("\(name): no new requests"))
        #expect(output.stderr.contains("stopped (interrupted by \(name))"))
        #expect(output.stderr.contains("altbench run --resume "))
        let answered = try Self.count(workspace, "SELECT count(*) FROM trial WHERE status = 'answered'")
        #expect(answered < Self.planned)
        // Every request sent was answered and recorded: none was cut off.
        #expect(await server.requests().count == answered)
        #expect(try Self.count(workspace, "SELECT count(*) FROM run WHERE status = 'stopped' AND status_message LIKE 'interrupted by \(name)%'") == 1)
        let latest = try workspace.read("results/latest.md")
        #expect(latest.contains("Incomplete: this run did not finish"))
        #expect(latest.contains("interrupted by \(name)"))
        #expect(output.stdout.contains("icecubes"), "the summary of what finished is printed")
        await server.stop()
    }

    @Test("--offline answers from the store alone, and lists what it could not answer")
    func offline() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: Self.key))
        let workspace = try Workspace()
        defer { workspace.remove() }
        let recorded = try await AltbenchProcess.run(
            ["run", "--base-url", server.baseURL, "--max-tokens", "30"], in: workspace.root, environment: Self.environment())
        #expect(recorded.status == 0, "\(recorded.stderr)")
        await server.stop()
        let requests = await server.requests().count
        #expect(requests == 8)

        // CI for a fork: no key, the server unreachable, everything from the store.
        let ci = AltbenchProcess.cleanEnvironment(["CI": "true"])
        let replay = try await AltbenchProcess.run(
            ["run", "--offline", "--base-url", server.baseURL, "--max-tokens", "30"], in: workspace.root, environment: ci)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("--offline: answers come only from the store"))
        #expect(replay.stdout == recorded.stdout)

        let partial = try await AltbenchProcess.run(
            ["run", "--offline", "--base-url", server.baseURL, "--max-tokens", "30,50"], in: workspace.root, environment: ci)
        #expect(partial.status == 3)
        #expect(partial.stderr.contains("--offline: 8 trials had no stored answer from \(server.baseURL)/chat/completions:"))
        #expect(partial.stderr.contains("  icecubes @ max_tokens 50 × chelsea"))
        #expect(!partial.stderr.contains("icecubes @ max_tokens 30 × chelsea"))
        #expect(await server.requests().count == requests, "nothing was sent")

        let conflicting = try await AltbenchProcess.run(["run", "--offline", "--no-cache"], in: workspace.root, environment: ci)
        #expect(conflicting.status == 64, "a usage error, like any bad flag")
        #expect(conflicting.stderr.contains("--offline"))
    }

    @Test("errors that echo the key, and failures of every kind, leave no trace of it anywhere")
    func secretsUnderFaults() async throws {
        let compatible = OpenAITestServer.compatible(apiKey: Self.key)
        let counter = Counter()
        let server = try await OpenAITestServer.start { request in
            switch await counter.next() {
            case 1: return .html(status: 500, body: "<html><title>Bad gateway for \(Self.key)</title></html>")
            case 2: return .error(status: 400, message: "Image rejected; your key \(Self.key) is fine", code: "invalid_image")
            case 3: return .error(status: 503, message: "Overloaded (Authorization: Bearer \(Self.key))", type: "server_error")
            default: return await compatible(request)
            }
        }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let output = try await AltbenchProcess.run(
            ["run", "--base-url", server.baseURL, "--max-tokens", "30", "--concurrency", "1", "--max-retries", "1"],
            in: workspace.root, environment: Self.environment())
        await server.stop()
        #expect(output.status == 3, "the 400 fails its trial: \(output.stderr)")
        var everything = output.stdout + output.stderr
        for path in try FileManager.default.subpathsOfDirectory(atPath: workspace.url("results").path) {
            let url = workspace.url("results/\(path)")
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            if !isDirectory.boolValue { everything += String(decoding: try Data(contentsOf: url), as: UTF8.self) }
        }
        #expect(everything.contains("Image rejected"), "the server's message is kept")
        #expect(!everything.contains(Self.key))
        #expect(!everything.contains("SECRET"))
    }
}

private actor Counter {
    var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}
