import AltBenchCore
import AltBenchTesting
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing

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

        // The default answers: the baseline. Both servers use a port held for this test, so
        // that no other test's server takes it while neither runs.
        let held = try ClosedPort(sharedWithServers: true)
        defer { withExtendedLifetime(held) {} }
        let plain = try RunningAltbench.testServer(["--port", "\(held.port)"], in: workspace.root)
        let plainURL = try #require(try await plain.baseURL(), "the server did not start")
        let before = try await AltbenchProcess.run(["run", "--base-url", plainURL, "--max-tokens", "50"], in: workspace.root)
        _ = try await plain.stop()
        #expect(before.status == 0, "\(before.stderr)")
        let saved = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")

        // The same prompts against the scripted server on the same port, as the documentation
        // does it: first person for one prompt only. The answers of the first run are stored
        // under the same endpoint, so the run asks again with --no-cache.
        let scripted = try RunningAltbench.testServer(["--port", "\(held.port)", "--script", Self.example.path], in: workspace.root)
        let scriptedURL = try #require(try await scripted.baseURL(), "the server did not start")
        #expect(scriptedURL == plainURL)
        let after = try await AltbenchProcess.run(
            ["run", "--base-url", scriptedURL, "--max-tokens", "50", "--no-cache"], in: workspace.root)
        let server = try await scripted.stop()
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

    @Test func scriptedAnswersAreNotReplayedByALaterPlainRunUnlessAsked() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try FileManager.default.copyItem(
            at: Workspace.repository.appendingPathComponent("prompts/one-sentence.md"),
            to: workspace.url("prompts/one-sentence.md"))
        let held = try ClosedPort(sharedWithServers: true)
        defer { withExtendedLifetime(held) {} }
        // The scripted server first: its answers must not stand in for the real ones later.
        let scripted = try RunningAltbench.testServer(["--port", "\(held.port)", "--script", Self.example.path], in: workspace.root)
        let url = try #require(try await scripted.baseURL(), "the server did not start")
        let first = try await AltbenchProcess.run(["run", "--base-url", url, "--max-tokens", "50"], in: workspace.root)
        _ = try await scripted.stop()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try workspace.read("results/latest.md").contains("I see an image here."))

        let plain = try RunningAltbench.testServer(["--port", "\(held.port)"], in: workspace.root)
        #expect(try await plain.baseURL() == url)
        let second = try await AltbenchProcess.run(["run", "--base-url", url, "--max-tokens", "50"], in: workspace.root)
        #expect(second.status == 0, "\(second.stderr)")
        // The plain server's answers, asked again; the unscripted ones came from the store.
        #expect(!(try workspace.read("results/latest.md")).contains("I see an image here."))

        // --cache-scripted keeps them as any answer, for a scripted regression replayed offline.
        _ = try await plain.stop()
        let kept = try RunningAltbench.testServer(["--port", "\(held.port)", "--script", Self.example.path], in: workspace.root)
        #expect(try await kept.baseURL() == url)
        let third = try await AltbenchProcess.run(
            ["run", "--base-url", url, "--max-tokens", "50", "--no-cache", "--cache-scripted", "--results", "scripted"], in: workspace.root)
        _ = try await kept.stop()
        #expect(third.status == 0, "\(third.stderr)")
        let offline = try await AltbenchProcess.run(
            ["run", "--base-url", url, "--max-tokens", "50", "--offline", "--results", "scripted"], in: workspace.root)
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(try workspace.read("scripted/latest.md").contains("I see an image here."))
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
        let server = try RunningAltbench.testServer(["--script", "bad.yml"], in: workspace.root)
        #expect(try await server.baseURL() == nil)
        let ended = try await server.stop()
        #expect(ended.status == 2)
        #expect(ended.stderr.contains("bad.yml:5: rule 2, `match.requests`: takes a request number or range"), "\(ended.stderr)")

        let missing = try RunningAltbench.testServer(["--script", "nowhere.json"], in: workspace.root)
        #expect(try await missing.baseURL() == nil)
        let gone = try await missing.stop()
        #expect(gone.status == 2)
        #expect(gone.stderr.contains("nowhere.json: cannot read the script"), "\(gone.stderr)")
    }

    /// POSTs `body` to the server's Images API; the status and the JSON answer.
    static func generateImage(_ baseURL: String, _ body: [String: Any]) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: "\(baseURL)/images/generations")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = try #require(response as? HTTPURLResponse).statusCode
        return (status, try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any]))
    }

    @Test func theRemovedModelsFlagRefusesThemAsOpenAIDoes() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write(
            "images.yml",
            """
            rules:
              - name: refuse knives
                match: {prompt: knife}
                respond: {content_policy: true}
            """)
        let server = try RunningAltbench.testServer(
            ["--removed-models", "dall-e-2,dall-e-3", "--script", "images.yml"], in: workspace.root)
        let baseURL = try #require(try await server.baseURL(), "the server did not start")

        // ShipThatApp's request, field for field.
        let shipThatApp: [String: Any] = [
            "prompt": "A lighthouse at dusk", "model": "dall-e-3", "n": 1, "quality": "hd", "response_format": "url",
            "size": "1024x1024", "style": "natural",
        ]
        let removed = try await Self.generateImage(baseURL, shipThatApp)
        #expect(removed.status == 404)
        let error = try #require(removed.json["error"] as? [String: Any])
        #expect(error["code"] as? String == "model_not_found")
        #expect(error["message"] as? String == "The model `dall-e-3` has been deprecated, learn more here: https://platform.openai.com/docs/deprecations")
        // No model is dall-e-2, removed too.
        #expect(try await Self.generateImage(baseURL, ["prompt": "A lighthouse"]).status == 404)

        let replacement = try await Self.generateImage(baseURL, ["prompt": "A lighthouse at dusk", "model": "gpt-image-1"])
        #expect(replacement.status == 200)
        let item = try #require((replacement.json["data"] as? [[String: Any]])?.first)
        let png = try #require((item["b64_json"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect(try ImageSniffer.sniff(png, path: "lighthouse.png") == ImageHeader(format: .png, width: 64, height: 64))

        let refused = try await Self.generateImage(baseURL, ["prompt": "A knife", "model": "gpt-image-1"])
        #expect(refused.status == 400)
        #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "moderation_blocked")

        let ended = try await server.stop()
        #expect(ended.stderr.contains("script: rule 1 (refuse knives) answered 1 request"), "\(ended.stderr)")
    }

    @Test func aBadRemovedModelsListStopsTheServer() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let server = try RunningAltbench.testServer(["--removed-models", "dall-e-2,,dall-e-3"], in: workspace.root)
        #expect(try await server.baseURL() == nil)
        let ended = try await server.stop()
        #expect(ended.status == 64)
        #expect(
            ended.stderr.contains("is invalid for '--removed-models <removed-models>': takes model names separated by commas"),
            "\(ended.stderr)")
    }
}
