import AltBenchTesting
import Foundation
import GRDB
import Testing

/// Runs the built `altbench` binary the way a user does: offline with the mock, and against a
/// real OpenAI-compatible server on 127.0.0.1.
@Suite("altbench end to end", .serialized)
struct EndToEndTests {
    static let fakeKey = "sk" + "-test-e2e-SECRET-0123456789abcdef"

    static func database(_ workspace: Workspace) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: workspace.url("results/altbench.sqlite").path, configuration: configuration)
    }

    static func value<T: DatabaseValueConvertible & Sendable>(_ db: DatabaseQueue, _ sql: String) throws -> T? {
        try db.read { try T.fetchOne($0, sql: sql) }
    }

    @Test func mockRunWorksOfflineAndSaysSo() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let output = try await AltbenchProcess.run(["run"], in: workspace.root)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("OFFLINE MOCK"))
        #expect(output.stdout.contains("MOCK RESULTS"))
        #expect(output.stdout.contains("icecubes"))
        // stderr is not a terminal here, so no progress line is drawn.
        #expect(!output.stderr.contains("\r"))

        let latest = try workspace.read("results/latest.md")
        #expect(latest.hasPrefix("# altbench run "))
        #expect(latest.components(separatedBy: "\n")[0].contains("(mock)"))
        #expect(latest.contains("Mock results, not a model"))
        #expect(latest.contains("![chelsea](../datasets/sample/chelsea.png)"))
        let runs = try FileManager.default.contentsOfDirectory(atPath: workspace.url("results/runs").path).sorted()
        #expect(runs.count == 2 && runs[0].hasSuffix(".html") && runs[1].hasSuffix(".md"), "\(runs)")
        let runReport = try workspace.read("results/runs/\(runs[1])")
        let html = try workspace.read("results/runs/\(runs[0])")
        #expect(html.contains("MOCK RESULTS") && html.contains("src=\"../../datasets/sample/chelsea.png\""))
        #expect(FileManager.default.fileExists(atPath: workspace.url("results/latest.html").path))
        #expect(output.stderr.contains("report: results/latest.html (open it in a browser)"))
        #expect(runReport.contains("![chelsea](../../datasets/sample/chelsea.png)"))

        let db = try Self.database(workspace)
        #expect(try Self.value(db, "SELECT count(*) FROM run WHERE provider = 'mock' AND status = 'finished'") as Int? == 1)
        #expect(try Self.value(db, "SELECT count(*) FROM variant") as Int? == 2)
        #expect(try Self.value(db, "SELECT count(*) FROM item") as Int? == 4)
        #expect(try Self.value(db, "SELECT count(*) FROM trial WHERE status = 'answered'") as Int? == 8)
        #expect(try Self.value(db, "SELECT count(*) FROM response") as Int? == 8)
        #expect(try Self.value(db, "SELECT count(*) FROM trial_result WHERE length > 0 AND first_person IS NOT NULL") as Int? == 8)
        // Every answer gets the full scorer set, reference metrics against the sample's
        // references included (the mock answers with the first reference, cut).
        #expect(try Self.value(db, "SELECT count(*) FROM trial_result WHERE quality IS NOT NULL AND readability IS NOT NULL AND bleu4 > 0 AND ciderD IS NOT NULL AND perception_meta IS NOT NULL") as Int? == 8)
        #expect(try Self.value(db, "SELECT count(*) FROM item WHERE must_mention LIKE '[%'") as Int? == 4)
        #expect(runReport.contains("## Reference metrics"))
        #expect(runReport.contains("## Quality"))
    }

    /// What a fresh clone's `swift run altbench run` does: every prompt in the library at
    /// every token limit of altbench.yml on every image of the sample, offline.
    @Test func theDefaultRunCoversTheWholeSampleAndPromptLibrary() async throws {
        let workspace = try Workspace(everything: true)
        defer { workspace.remove() }
        let prompts = try FileManager.default.contentsOfDirectory(atPath: workspace.url("prompts").path)
            .filter { $0.hasSuffix(".md") && $0.uppercased() != "README.MD" }
        let items = try workspace.read("datasets/sample/manifest.jsonl").split(separator: "\n").count
        #expect(prompts.count >= 6)
        #expect(items >= 24)

        let started = Date()
        let output = try await AltbenchProcess.run(["run"], in: workspace.root)
        let seconds = Date().timeIntervalSince(started)
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("OFFLINE MOCK"))
        print("altbench run on the whole sample: \(prompts.count * items * 4) mock trials in \(String(format: "%.1f", seconds)) s")

        let db = try Self.database(workspace)
        #expect(try Self.value(db, "SELECT count(*) FROM variant") as Int? == prompts.count)
        #expect(try Self.value(db, "SELECT count(*) FROM variant WHERE description IS NOT NULL") as Int? == prompts.count)
        #expect(try Self.value(db, "SELECT count(*) FROM item WHERE problem IS NULL") as Int? == items)
        #expect(try Self.value(db, "SELECT count(*) FROM trial WHERE status = 'answered'") as Int? == prompts.count * items * 4)
        let limits = try await db.read { try Int.fetchAll($0, sql: "SELECT DISTINCT max_tokens FROM trial ORDER BY 1") }
        #expect(limits == [30, 50, 80, 150])
        // The HTML report of the whole sample stays under 1 MB with its images linked.
        let html = try FileManager.default.attributesOfItem(atPath: workspace.url("results/latest.html").path)[.size] as? Int ?? 0
        #expect(html > 0 && html < 1_000_000, "latest.html is \(html) bytes")

        // Templates are filled from each item: the post's language by name, the post's text.
        func request(_ variant: String, _ item: String) throws -> String? {
            try Self.value(
                db,
                """
                SELECT r.request FROM trial t JOIN variant v ON v.id = t.variant_id JOIN item i ON i.id = t.item_id
                JOIN response r ON r.id = t.response_id
                WHERE v.name = '\(variant)' AND i.item_key = '\(item)' AND t.max_tokens = 50
                """)
        }
        #expect(try request("language", "panneau-boulangerie")?.contains("Write the description in French") == true)
        #expect(try request("language", "schild-enten")?.contains("Write the description in German") == true)
        #expect(try request("context", "chelsea")?.contains("Chelsea has opinions about the new sofa.") == true)
        #expect(try request("icecubes", "chelsea")?.contains("{{") == false)

        let latest = try workspace.read("results/latest.md")
        for item in ["sign-closed", "chart-alt-text", "banner-waves"] {
            #expect(latest.contains("### \(item)") || latest.contains("![\(item)]"), "\(item) missing from the report")
        }
    }

    @Test func secondRunReusesEveryAnswer() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let first = try await AltbenchProcess.run(["run", "--max-tokens", "10,50"], in: workspace.root)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try await AltbenchProcess.run(["run", "--max-tokens", "10,50"], in: workspace.root)
        #expect(second.status == 0, "\(second.stderr)")
        let db = try Self.database(workspace)
        let rows = try db.read { try Row.fetchAll($0, sql: "SELECT run_id, count(*) AS n, sum(cached) AS cached FROM trial GROUP BY run_id ORDER BY min(id)") }
        #expect(rows.count == 2)
        #expect(rows.map { $0["n"] as Int } == [16, 16])
        #expect(rows.map { $0["cached"] as Int } == [0, 16])
        #expect(try Self.value(db, "SELECT count(*) FROM response") as Int? == 16)
            // The 10-token limit cuts the mock's answers, and the truncation scorer sees it.
        #expect(try Self.value(db, "SELECT avg(truncated) FROM trial_result WHERE max_tokens = 10") as Double? == 1)
        // The same tables from the same answers.
        #expect(first.stdout == second.stdout)
    }

    @Test func realServerRunSendsValidRequestsOnceAndKeepsTheKeySecret() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: Self.fakeKey))
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.fakeKey])
        let arguments = ["run", "--base-url", server.baseURL, "--max-tokens", "5,50"]
        let first = try await AltbenchProcess.run(arguments, in: workspace.root, environment: environment)
        let requests = await server.requests()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(requests.count == 16)
        for request in requests {
            #expect(request.path == "/v1/chat/completions")
            #expect(request.header("authorization") == "Bearer \(Self.fakeKey)")
            let body = try request.json()
            #expect(body["model"] == "gpt-4o-mini")
            #expect(body["temperature"] == nil)
            let image = try #require(body["messages"]?[0]?["content"]?[1]?["image_url"]?["url"]?.stringValue)
            #expect(image.hasPrefix("data:image/png;base64,") || image.hasPrefix("data:image/jpeg;base64,"))
        }
        #expect(!first.stdout.contains("MOCK"))
        let latest = try workspace.read("results/latest.md")
        #expect(latest.components(separatedBy: "\n")[0].contains("(openai)"))
        #expect(latest.contains("A test description of image"))

        let second = try await AltbenchProcess.run(arguments, in: workspace.root, environment: environment)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(await server.requests().count == 16, "a second run must not ask again")
        #expect(first.stdout == second.stdout)
        await server.stop()

        // The key is nowhere: not in the database file, the reports, or anything printed.
        var everything = first.stdout + first.stderr + second.stdout + second.stderr
        for path in try FileManager.default.subpathsOfDirectory(atPath: workspace.url("results").path) {
            let url = workspace.url("results/\(path)")
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            if !isDirectory.boolValue { everything += String(decoding: try Data(contentsOf: url), as: UTF8.self) }
        }
        #expect(!everything.contains(Self.fakeKey))
        #expect(!everything.contains("SECRET"))
    }

    /// Every shipped prompt, filled in for every sample image (PNG, JPEG, WEBP and GIF), is a
    /// request that a server checking the API's rules accepts.
    @Test func theWholeLibraryMakesValidRequests() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: Self.fakeKey))
        let workspace = try Workspace(everything: true)
        defer { workspace.remove() }
        let prompts = try FileManager.default.contentsOfDirectory(atPath: workspace.url("prompts").path)
            .filter { $0.hasSuffix(".md") && $0.uppercased() != "README.MD" }.count
        let items = try workspace.read("datasets/sample/manifest.jsonl").split(separator: "\n").count
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.fakeKey])
        let output = try await AltbenchProcess.run(
            ["run", "--base-url", server.baseURL, "--max-tokens", "50"], in: workspace.root, environment: environment)
        let requests = await server.requests()
        await server.stop()
        #expect(output.status == 0, "\(output.stderr)")
        #expect(requests.count == prompts * items)

        var mimeTypes = Set<String>()
        var systemMessages = 0
        var inFrench = 0
        for request in requests {
            let body = try request.json()
            let messages = try #require(body["messages"]?.arrayValue)
            let user = try #require(messages.last)
            let text = try #require(user["content"]?[0]?["text"]?.stringValue)
            #expect(!text.contains("{{"), "a template tag was sent: \(text)")
            let image = try #require(user["content"]?[1]?["image_url"]?["url"]?.stringValue)
            if let mime = image.split(separator: ";").first { mimeTypes.insert(String(mime)) }
            if messages.count == 2, messages[0]["role"] == "system" { systemMessages += 1 }
            if text.hasSuffix("Write the description in French, the language of the post.") { inFrench += 1 }
        }
        #expect(mimeTypes == ["data:image/png", "data:image/jpeg", "data:image/webp", "data:image/gif"])
        #expect(systemMessages == items, "only the system-message prompt sends one")
        #expect(inFrench == 2, "the two French posts")
    }

    @Test func aBadImageFailsOnlyItsOwnTrialsAndExitsThree() async throws {
        let server = try await OpenAITestServer.start()
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("datasets/sample/notes.png", "these are notes, not a picture\n")
        // A 1×1 GIF with two frames: OpenAI refuses animated GIFs.
        let frame: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00]
        let gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF] + frame + frame + [0x3B]
        try Data(gif).write(to: workspace.url("datasets/sample/wave.gif"))
        try FileManager.default.removeItem(at: workspace.url("datasets/sample/coffee.png"))
        var manifest = try workspace.read("datasets/sample/manifest.jsonl")
        manifest += "{\"id\": \"notes\", \"image\": \"notes.png\", \"references\": [\"Notes.\"]}\n"
        manifest += "{\"id\": \"wave\", \"image\": \"wave.gif\", \"references\": [\"A wave.\"]}\n"
        try manifest.write(to: workspace.url("datasets/sample/manifest.jsonl"), atomically: true, encoding: .utf8)

        let output = try await AltbenchProcess.run(["run", "--base-url", server.baseURL], in: workspace.root)
        #expect(output.status == 3, "\(output.stderr)")
        #expect(output.stderr.contains("coffee.png does not exist"))
        #expect(output.stderr.contains("notes.png is not an image"))
        #expect(output.stderr.contains("wave.gif is an animated GIF"), "\(output.stderr)")
        #expect(await server.requests().count == 6, "3 good images × 2 prompts")
        let latest = try workspace.read("results/latest.md")
        #expect(latest.contains("## Images that could not be sent"))
        #expect(latest.contains("| coffee |"))
        #expect(latest.contains("| notes |"))
        #expect(latest.contains("| wave |"))
        let db = try Self.database(workspace)
        #expect(try Self.value(db, "SELECT count(*) FROM trial WHERE status = 'failed' AND error_kind = 'image'") as Int? == 6)
        #expect(try Self.value(db, "SELECT count(*) FROM trial WHERE status = 'answered'") as Int? == 6)
        await server.stop()
    }

    @Test func aCorruptPromptStopsTheRunBeforeAnyRequest() async throws {
        let server = try await OpenAITestServer.start()
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("prompts/broken.md", "---\nname: broken\nmax_tokens: [50\n---\nDescribe it.\n")
        let output = try await AltbenchProcess.run(["run", "--base-url", server.baseURL], in: workspace.root)
        #expect(output.status == 1)
        #expect(output.stderr.contains("prompts/broken.md:"))
        #expect(output.stderr.contains("not valid YAML"))
        #expect(await server.requests().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: workspace.url("results/altbench.sqlite").path))
        await server.stop()
    }

    @Test func aManifestLineThatIsNotJSONIsNamed() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        var manifest = try workspace.read("datasets/sample/manifest.jsonl")
        manifest += "{\"id\": \"x\", \"image\": \"x.png\"\n"
        try manifest.write(to: workspace.url("datasets/sample/manifest.jsonl"), atomically: true, encoding: .utf8)
        let lines = manifest.split(separator: "\n").count
        let output = try await AltbenchProcess.run(["run"], in: workspace.root)
        #expect(output.status == 1)
        #expect(output.stderr.contains("datasets/sample/manifest.jsonl:\(lines): this line is not valid JSON"))
    }

    /// The Markdown report of the workspace's one run, under results/runs/.
    static func onlyRunReport(_ workspace: Workspace) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: workspace.url("results/runs").path).filter { $0.hasSuffix(".md") }
        #expect(names.count == 1, "\(names)")
        return try workspace.read("results/runs/\(names.first ?? "none.md")")
    }

    @Test func aRejectedKeyStopsTheRunWithAClearMessage() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: "sk" + "-the-right-key-000000"))
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.fakeKey])
        let output = try await AltbenchProcess.run(
            ["run", "--base-url", server.baseURL, "--concurrency", "1"], in: workspace.root, environment: environment)
        #expect(output.status == 1)
        #expect(output.stderr.contains("HTTP 401"))
        #expect(output.stderr.contains("OPENAI_API_KEY"))
        #expect(!output.stderr.contains(Self.fakeKey))
        #expect(await server.requests().count == 1, "a 401 stops the run instead of failing every trial")
        // A run with no answer leaves latest.md alone: its report is under runs/.
        #expect(!FileManager.default.fileExists(atPath: workspace.url("results/latest.md").path))
        let latest = try Self.onlyRunReport(workspace)
        #expect(latest.contains("Incomplete: this run did not finish"))
        #expect(!latest.contains(Self.fakeKey))
        await server.stop()
    }

    /// Nothing listens on the port: the run stops as misconfigured after the first requests
    /// (default concurrency and retries), in well under the 10 s the rule promises, rather
    /// than retrying every trial with backoff for minutes.
    @Test(.timeLimit(.minutes(1)))
    func aClosedPortStopsTheRunAtOnceWithOneSentence() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let baseURL = closed.baseURL
        let port = closed.port
        let workspace = try Workspace()
        defer { workspace.remove() }
        let started = ContinuousClock.now
        let output = try await AltbenchProcess.run(["run", "--base-url", baseURL, "--max-tokens", "30,50,80,150"], in: workspace.root)
        print("altbench run against a closed port ended after \(ContinuousClock.now - started)")
        #expect(output.status == 1, "\(output.stderr)")
        let sentence = "could not connect to 127.0.0.1:\(port) (connection refused): is the server running, and is --base-url right?"
        #expect(output.stderr.contains("error: the run stopped after 0 of 32 trials: \(sentence)"), "\(output.stderr)")
        #expect(output.stderr.contains("Fix that, then start a new run"))
        #expect(!output.stderr.contains("Continue this run with"))
        #expect(!output.stderr.contains("errno"))
        #expect(!output.stderr.contains("error set"))
        let latest = try Self.onlyRunReport(workspace)
        #expect(latest.contains("Incomplete: this run did not finish"))
        #expect(latest.contains("could not connect to 127.0.0.1:\(port) (connection refused)"))
    }

    @Test func ciWithoutAKeyIsAnErrorNotASilentMock() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let output = try await AltbenchProcess.run(
            ["run"], in: workspace.root, environment: AltbenchProcess.cleanEnvironment(["CI": "true"]))
        #expect(output.status == 1)
        #expect(output.stderr.contains("OPENAI_API_KEY is not set"))
        #expect(output.stderr.contains("--provider mock"))
        let explicit = try await AltbenchProcess.run(["run", "--provider", "openai"], in: workspace.root)
        #expect(explicit.status == 1)
        #expect(explicit.stderr.contains("OPENAI_API_KEY is not set"))
        let mockInCI = try await AltbenchProcess.run(
            ["run", "--provider", "mock"], in: workspace.root, environment: AltbenchProcess.cleanEnvironment(["CI": "true"]))
        #expect(mockInCI.status == 0, "\(mockInCI.stderr)")
    }

    @Test func reportReRendersAStoredRun() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let run = try await AltbenchProcess.run(["run"], in: workspace.root)
        #expect(run.status == 0)
        let original = try workspace.read("results/latest.md")
        try FileManager.default.removeItem(at: workspace.url("results/latest.md"))
        try FileManager.default.removeItem(at: workspace.url("results/runs"))
        let report = try await AltbenchProcess.run(["report"], in: workspace.root)
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout == run.stdout)
        #expect(try workspace.read("results/latest.md") == original)
        let missing = try await AltbenchProcess.run(["report", "nope"], in: workspace.root)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("No run 'nope'"))
    }

    @Test func badFlagsAreRejectedWithTheFix() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let output = try await AltbenchProcess.run(["run", "--max-tokens", "50,abc"], in: workspace.root)
        #expect(output.status != 0)
        #expect(output.stderr.contains("--max-tokens takes positive whole numbers"))
        let missing = try await AltbenchProcess.run(["run", "--prompts", "nowhere"], in: workspace.root)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("The prompts folder 'nowhere' does not exist"))
    }
}
