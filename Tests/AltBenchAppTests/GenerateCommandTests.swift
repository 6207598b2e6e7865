import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchApp
@testable import AltBenchCore

/// `altbench datasets generate` against a scripted Images API on 127.0.0.1: the images
/// written, the manifest, the cache, and the failures that fail an item or stop the command.
@Suite("datasets generate")
struct GenerateCommandTests {
    static let key = "sk" + "-test-generate-0123456789"

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        func add(_ more: String) { lock.withLock { text += more } }
        var all: String { lock.withLock { text } }
    }

    static func console(_ out: Lines, _ err: Lines) -> Console {
        Console(out: { out.add($0) }, err: { err.add($0) }, interactive: false)
    }

    static func workspace(spec: String) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-generate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try spec.write(to: root.appendingPathComponent("spec.yml"), atomically: true, encoding: .utf8)
        return root
    }

    static let png = PNGEncoder.indexed(width: 4, height: 2, palette: [(255, 0, 0), (0, 0, 255)], indices: [0, 1, 0, 1, 1, 0, 1, 0])

    /// An Images API: base64 for GPT image models, a URL it serves itself for DALL·E; prompts
    /// with "forbidden" are refused on content policy; "html" URLs serve an HTML page.
    final class Port: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func set(_ port: Int) { lock.withLock { value = port } }
        var port: Int { lock.withLock { value } }
    }

    /// The scripted server, told its own port so that its URLs point back at it.
    static func startImagesAPI() async throws -> OpenAITestServer {
        let port = Port()
        let server = try await OpenAITestServer.start(handler: imagesAPI(port))
        port.set(server.port)
        return server
    }

    static func imagesAPI(_ port: Port) -> OpenAITestServer.Handler {
        { request in
            if request.method == "GET" {
                if request.path.hasSuffix("/page.png") { return .html(status: 200, body: "<html><title>Sign in</title></html>") }
                return .raw(status: 200, body: png, contentType: "image/png")
            }
            guard request.header("authorization") == "Bearer \(key)" else {
                return .error(status: 401, message: "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key")
            }
            let body = (try? request.json()) ?? .null
            let prompt = body["prompt"]?.stringValue ?? ""
            if prompt.contains("forbidden") {
                return .error(
                    status: 400, message: "Your request was rejected as a result of our safety system.", type: "invalid_request_error",
                    code: "content_policy_violation")
            }
            let n = body["n"]?.intValue ?? 1
            let host = "127.0.0.1:\(port.port)"
            let data: [JSONValue] = (0..<n).map { _ in
                if body["response_format"]?.stringValue == "url" {
                    let name = prompt.contains("html") ? "page.png" : "image.png"
                    return .object(["url": .string("http://\(host)/files/\(name)"), "revised_prompt": .string("Revised: \(prompt)")])
                }
                return .object(["b64_json": .string(png.base64EncodedString())])
            }
            return .json(value: .object(["created": .int(1_764_000_000), "data": .array(data)]))
        }
    }

    static let spec = """
        items:
          - id: sign
            prompt: A sign reading OPEN
            expected_text: OPEN
            references: ["A sign reading OPEN."]
          - id: ducks
            prompt: Two ducks
            n: 2
          - id: bike
            prompt: A red bicycle
            model: dall-e-3
        """

    func command(_ root: URL, _ server: OpenAITestServer?, edit: (inout GenerateCommand.Options) -> Void = { _ in }, out: Lines, err: Lines)
        -> GenerateCommand
    {
        var options = GenerateCommand.Options(spec: "spec.yml", out: "datasets/gen")
        if let server { options.baseURL = server.baseURL }
        edit(&options)
        return GenerateCommand(
            options: options, environment: server == nil ? [:] : ["OPENAI_API_KEY": Self.key], console: Self.console(out, err),
            workingDirectory: root, retryPolicy: RetryPolicy(maxRetries: 2, initialDelay: .milliseconds(1), jitter: false))
    }

    @Test func imagesAndManifestLinesAreWrittenAndASecondRunSendsAndRewritesNothing() async throws {
        let root = try Self.workspace(spec: Self.spec)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await Self.startImagesAPI()
        let out = Lines(), err = Lines()
        let outcome = try await command(root, server, out: out, err: err).run()
        let posts = await server.requests().filter { $0.method == "POST" }
        #expect(outcome.exitCode == 0, "\(err.all)")
        #expect(outcome.generated == 4 && outcome.fromStore == 0)
        #expect(posts.count == 3 && posts.allSatisfy { $0.path == "/v1/images/generations" })
        // ShipThatApp's request for the dall-e item, GPT image's for the others.
        let bike = try #require(posts.first { (try? $0.json())?["model"]?.stringValue == "dall-e-3" })
        #expect(String(decoding: bike.body, as: UTF8.self) == #"{"prompt":"A red bicycle","model":"dall-e-3","n":1,"quality":"hd","response_format":"url","size":"1024x1024","style":"natural"}"#)

        let folder = root.appendingPathComponent("datasets/gen")
        for name in ["sign.png", "ducks-1.png", "ducks-2.png", "bike.png"] {
            #expect(try Data(contentsOf: folder.appendingPathComponent("images/\(name)")) == Self.png, "\(name)")
        }
        let manifest = try String(contentsOf: folder.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        let lines = try manifest.split(separator: "\n").map { try JSONValue.parse(Data($0.utf8)) }
        #expect(lines.map { $0["id"]?.stringValue } == ["sign", "ducks-1", "ducks-2", "bike"])
        #expect(lines[0]["expected_text"] == .string("OPEN") && lines[0]["reviewed"] == .bool(false))
        #expect(lines[3]["generated"]?["revised_prompt"] == .string("Revised: A red bicycle"))
        #expect(lines[3]["generated"]?["style"] == .string("natural"))
        #expect(lines[3]["generated"]?["endpoint"] == .string("\(server.baseURL)/images/generations"))
        let dataset = try DatasetLoader().load(directory: folder, displayPath: "datasets/gen")
        #expect(dataset.items.count == 4 && dataset.items.allSatisfy { $0.problem == nil && $0.isUnreviewedGeneration })

        // Again: nothing sent, nothing rewritten.
        let before = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("manifest.jsonl").path)[.modificationDate] as? Date
        try await Task.sleep(for: .milliseconds(20))
        let second = try await command(root, server, out: Lines(), err: Lines()).run()
        #expect(second.exitCode == 0 && second.fromStore == 4 && second.generated == 0 && !second.manifestWritten)
        #expect(await server.requests().filter { $0.method == "POST" }.count == 3)
        let after = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("manifest.jsonl").path)[.modificationDate] as? Date
        #expect(before == after)

        // --no-cache asks again.
        let third = try await command(root, server, edit: { $0.noCache = true }, out: Lines(), err: Lines()).run()
        #expect(third.generated == 4)
        #expect(await server.requests().filter { $0.method == "POST" }.count == 6)
        await server.stop()
    }

    @Test func aContentPolicyRefusalAndAnHTMLPageFailTheirItemsAlone() async throws {
        let root = try Self.workspace(spec: """
            items:
              - id: ok
                prompt: A sign reading OPEN
              - id: refused
                prompt: Something forbidden
              - id: page
                prompt: An html trap
                model: dall-e-3
            """)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await Self.startImagesAPI()
        let err = Lines()
        let outcome = try await command(root, server, out: Lines(), err: err).run()
        let posts = await server.requests().filter { $0.method == "POST" }
        await server.stop()
        #expect(outcome.exitCode == 3)
        #expect(outcome.failed == ["refused", "page"])
        #expect(err.all.contains("refused: failed: refused by the provider's content policy (content_policy_violation)"), "\(err.all)")
        #expect(err.all.contains("page: failed: the image at http://"), "\(err.all)")
        #expect(err.all.contains("is an HTML page"), "\(err.all)")
        // A refusal is not retried: one request each.
        #expect(posts.count == 3)
        let manifest = try String(contentsOf: root.appendingPathComponent("datasets/gen/manifest.jsonl"), encoding: .utf8)
        #expect(manifest.split(separator: "\n").count == 1 && manifest.contains(#""id":"ok""#))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("datasets/gen/images/page.png").path))
    }

    @Test func aRateLimitAndAServerErrorAreRetriedThenTheImageIsKept() async throws {
        let root = try Self.workspace(spec: "items:\n  - id: sign\n    prompt: A sign reading OPEN\n")
        defer { try? FileManager.default.removeItem(at: root) }
        let port = Port()
        let script = ResponseScript(
            [
                .error(status: 429, message: "Rate limit reached for images per minute.", type: "requests", code: "rate_limit_exceeded", headers: [("retry-after-ms", "5")]),
                .html(status: 502),
            ], then: Self.imagesAPI(port))
        let server = try await OpenAITestServer.start(handler: script.handler)
        port.set(server.port)
        let err = Lines()
        let outcome = try await command(root, server, out: Lines(), err: err).run()
        let posts = await server.requests().filter { $0.method == "POST" }.count
        await server.stop()
        #expect(outcome.exitCode == 0, "\(err.all)")
        #expect(posts == 3 && outcome.generated == 1)
    }

    @Test func aRejectedKeyStopsAtOnce() async throws {
        let root = try Self.workspace(spec: Self.spec)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await Self.startImagesAPI()
        let err = Lines()
        var generate = command(root, server, edit: { $0.concurrency = 1 }, out: Lines(), err: err)
        generate.environment = ["OPENAI_API_KEY": "sk" + "-wrong-0000000000"]
        let outcome = try await generate.run()
        let posts = await server.requests().filter { $0.method == "POST" }.count
        await server.stop()
        #expect(outcome.exitCode == 1)
        #expect(posts == 1, "the first 401 stops the items not yet sent")
        #expect(err.all.contains("error: generation stopped: HTTP 401"), "\(err.all)")
        #expect(!err.all.contains("sk" + "-wrong-0000000000"))
    }

    @Test func againstTheTestServersImagesAPIBothShapesAreAcceptedAndARemovedModelStopsWithTheReplacement() async throws {
        let root = try Self.workspace(spec: Self.spec)
        defer { try? FileManager.default.removeItem(at: root) }
        // The strict Images API: both request shapes must pass its validation.
        let strict = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: Self.key))
        let err = Lines()
        let outcome = try await command(root, strict, out: Lines(), err: err).run()
        let posts = await strict.requests(path: OpenAITestServer.imagesGenerationsPath)
        await strict.stop()
        #expect(outcome.exitCode == 0, "\(err.all)")
        #expect(outcome.generated == 4 && posts.count == 3)
        let bike = try Data(contentsOf: root.appendingPathComponent("datasets/gen/images/bike.png"))
        #expect(try ImageSniffer.sniff(bike, path: "bike.png").format == .png)

        // OpenAI since 2026-05-12: DALL·E is gone.
        let removed = try await OpenAITestServer.start(
            handler: OpenAITestServer.compatible(options: CompatibleServerOptions(apiKey: Self.key, removedModels: ["dall-e-3"])))
        let stopErr = Lines()
        let stopped = try await command(root, removed, edit: { $0.model = "dall-e-3"; $0.noCache = true; $0.concurrency = 1 }, out: Lines(), err: stopErr).run()
        await removed.stop()
        #expect(stopped.exitCode == 1)
        #expect(stopErr.all.contains("dall-e-3 was removed from OpenAI's API on 2026-05-12: use --model gpt-image-1"), "\(stopErr.all)")
    }

    @Test func theMockMakesADatasetOfflineAndSaysSo() async throws {
        let root = try Self.workspace(spec: Self.spec)
        defer { try? FileManager.default.removeItem(at: root) }
        let err = Lines()
        let outcome = try await command(root, nil, out: Lines(), err: err).run()
        #expect(outcome.exitCode == 0 && outcome.generated == 4)
        #expect(err.all.contains("*** OFFLINE MOCK: no image model is called"))
        let dataset = try DatasetLoader().load(directory: root.appendingPathComponent("datasets/gen"), displayPath: "gen")
        #expect(dataset.items.map(\.id) == ["sign", "ducks-1", "ducks-2", "bike"])
        #expect(dataset.items.allSatisfy { $0.imageInfo?.format == .png && $0.generated?["mock"] == .bool(true) })
        #expect(dataset.items[1].imageInfo?.sha256 != dataset.items[2].imageInfo?.sha256)
    }

    @Test func aDryRunPrintsTheRequestsAndSendsNothing() async throws {
        let root = try Self.workspace(spec: Self.spec)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await Self.startImagesAPI()
        let out = Lines()
        let outcome = try await command(root, server, edit: { $0.dryRun = true }, out: out, err: Lines()).run()
        let requests = await server.requests().count
        await server.stop()
        #expect(outcome.exitCode == 0 && requests == 0)
        #expect(out.all.contains("bike: POST \(server.baseURL)/images/generations"))
        #expect(out.all.contains(#""response_format":"url""#))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("datasets/gen").path))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("results").path))
    }
}
