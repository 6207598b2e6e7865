import AltBenchTesting
import Foundation
import Testing

/// The `altbench-test-server` executable, started as a user starts it, for as long as a
/// test needs it.
final class TestServerProcess: @unchecked Sendable {
    let process = Process()
    let outURL: URL
    let errURL: URL
    private let exited = AsyncStream<Int32>.makeStream()

    static var executable: URL {
        AltbenchProcess.executable.deletingLastPathComponent().appendingPathComponent("altbench-test-server")
    }

    init(_ arguments: [String], in directory: URL) throws {
        outURL = directory.appendingPathComponent(".server-stdout-\(UUID().uuidString)")
        errURL = directory.appendingPathComponent(".server-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process.executableURL = Self.executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        let continuation = exited.continuation
        process.terminationHandler = { continuation.yield($0.terminationStatus) }
        try process.run()
    }

    /// The base URL from the "listening on URL" line, once printed; nil if the process ends
    /// first or prints nothing for a minute (a starved machine is slow, not that slow).
    func baseURL() async throws -> String? {
        for _ in 0..<600 {
            let text = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return String(line.dropFirst("listening on ".count))
            }
            if !process.isRunning { return nil }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// Stops the server (SIGTERM, as a user's Ctrl-C would) and returns its exit status and stderr.
    func stop() async -> (status: Int32, stderr: String) {
        if process.isRunning { process.terminate() }
        var status: Int32 = -1
        for await value in exited.stream {
            status = value
            break
        }
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
        return (status, stderr)
    }
}

/// `altbench-test-server --script FILE`: rehearsing a regression offline with the example
/// script, as the documentation tells a user to.
@Suite("altbench-test-server --script")
struct TestServerScriptTests {
    static let example = Repository.root.appendingPathComponent("examples/test-server/first-person.yml")

    @Test func theExampleScriptRehearsesAFirstPersonRegression() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        // The example's prompt beside the two Ice Cubes prompts: it alone changes.
        try FileManager.default.copyItem(
            at: Workspace.repository.appendingPathComponent("prompts/one-sentence.md"),
            to: workspace.url("prompts/one-sentence.md"))

        // The default answers: the baseline.
        let plain = try TestServerProcess([], in: workspace.root)
        let plainURL = try #require(try await plain.baseURL(), "the server did not start")
        let before = try await AltbenchProcess.run(["run", "--base-url", plainURL, "--max-tokens", "50"], in: workspace.root)
        _ = await plain.stop()
        #expect(before.status == 0, "\(before.stderr)")
        let saved = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")

        // The same prompts against the scripted server: first person for one prompt only.
        let scripted = try TestServerProcess(["--script", Self.example.path], in: workspace.root)
        let scriptedURL = try #require(try await scripted.baseURL(), "the server did not start")
        let after = try await AltbenchProcess.run(["run", "--base-url", scriptedURL, "--max-tokens", "50"], in: workspace.root)
        let server = await scripted.stop()
        #expect(after.status == 0, "\(after.stderr)")
        #expect(server.stderr.contains("script: 1 rule from \(Self.example.path)"))
        #expect(server.stderr.contains("script: rule 1 (first person for the one-sentence prompt) answered 4 requests"), "\(server.stderr)")

        let check = try await AltbenchProcess.run(["check", "--baseline", "results/baseline.json"], in: workspace.root)
        #expect(check.status == 1, "\(check.stdout)\(check.stderr)")
        let headline = String(check.stdout.split(separator: "\n").first ?? "")
        #expect(headline.hasPrefix("altbench check: regression — one-sentence @ 50"), "\(headline)")

        // first_person failed for that pair, and nothing failed for the prompts left alone.
        let json = try await AltbenchProcess.run(
            ["check", "--baseline", "results/baseline.json", "--format", "json"], in: workspace.root)
        #expect(json.status == 1)
        let verdict = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let results = try #require(verdict["results"] as? [[String: Any]])
        let failed = results.filter { $0["passed"] as? Bool == false }
        #expect(failed.contains { $0["variant"] as? String == "one-sentence" && $0["check"] as? String == "first_person" })
        #expect(failed.allSatisfy { $0["variant"] as? String == "one-sentence" }, "\(failed)")
        #expect(results.contains { $0["variant"] as? String == "icecubes" && $0["passed"] as? Bool == true })
        let latest = try workspace.read("results/latest.md")
        #expect(latest.contains("I see an image here. A test description of image"))
    }

    @Test func aBadScriptStopsTheServerAtStartupNamingFileLineRuleAndField() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write(
            "bad.yml",
            """
            rules:
              - match: {prompt: "cat"}
                respond: {answer: "A cat."}
              - match:
                  requests: "5-2"
                respond:
                  status: 429
            """)
        let server = try TestServerProcess(["--script", "bad.yml"], in: workspace.root)
        #expect(try await server.baseURL() == nil)
        let ended = await server.stop()
        #expect(ended.status == 2)
        #expect(ended.stderr.contains("bad.yml:5: rule 2, `match.requests`: takes a request number or range"), "\(ended.stderr)")

        let missing = try TestServerProcess(["--script", "nowhere.json"], in: workspace.root)
        #expect(try await missing.baseURL() == nil)
        let gone = await missing.stop()
        #expect(gone.status == 2)
        #expect(gone.stderr.contains("nowhere.json: cannot read the script"), "\(gone.stderr)")
    }
}
