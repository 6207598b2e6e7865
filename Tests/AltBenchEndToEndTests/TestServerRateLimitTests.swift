import AltBenchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `altbench-test-server`'s rate limiter as a user starts it from the command line.
@Suite("altbench-test-server rate limits")
struct TestServerRateLimitTests {
    /// Runs the server with `arguments` until `body` returns; `body` gets its base URL.
    static func withServer(_ arguments: [String], _ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try RunningAltbench.testServer(arguments, in: folder)
        let baseURL = try await server.baseURL()
        do {
            try await body(try #require(baseURL, "the server did not start"))
        } catch {
            _ = try? await server.stop()
            throw error
        }
        _ = try await server.stop()
        #expect(baseURL?.hasPrefix("http://127.0.0.1:") == true)
    }

    /// A valid vision request with one of the sample's PNGs.
    static func visionRequest(_ baseURL: String) throws -> URLRequest {
        let image = try Data(contentsOf: Repository.root.appendingPathComponent("datasets/sample/artwork-grid.png"))
        let body: [String: Any] = [
            "model": "gpt-4o-mini",
            "messages": [
                [
                    "role": "user",
                    "content": [
                        ["type": "text", "text": "Describe this image for a screen reader."],
                        ["type": "image_url", "image_url": ["url": "data:image/png;base64,\(image.base64EncodedString())"]],
                    ],
                ]
            ],
        ]
        var request = URLRequest(url: URL(string: "\(baseURL)/chat/completions")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        return request
    }

    @Test func announcePerMinuteOverstatesTheBurstInTheHeaders() async throws {
        // Enforced: a burst of 2 at 0.05 a second (a token every 20 s, far longer than three
        // local requests take, even on a starved machine). Announced: 3 a minute.
        try await Self.withServer(["--requests-per-second", "0.05", "--burst", "2", "--announce-per-minute"]) { baseURL in
            var answers: [HTTPURLResponse] = []
            for _ in 0..<3 {
                let (_, response) = try await URLSession.shared.data(for: try Self.visionRequest(baseURL))
                answers.append(try #require(response as? HTTPURLResponse))
            }
            #expect(answers.map(\.statusCode) == [200, 200, 429])
            for answer in answers {
                #expect(answer.value(forHTTPHeaderField: "x-ratelimit-limit-requests") == "3")
            }
            #expect(answers[0].value(forHTTPHeaderField: "x-ratelimit-remaining-requests") == "2")
            // The 429 comes while the headers still claim 1 left, with the real wait.
            #expect(answers[2].value(forHTTPHeaderField: "x-ratelimit-remaining-requests") == "1")
            let wait = try #require(answers[2].value(forHTTPHeaderField: "retry-after-ms").flatMap(Int.init))
            #expect(wait > 0 && wait <= 20000)
        }
    }

    @Test func announcePerMinuteNeedsARate() async throws {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-stderr-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: errors) }
        let ended = try await ChildProcess.run(
            RunningAltbench.testServerExecutable.path, ["--announce-per-minute"], environment: ProcessInfo.processInfo.environment,
            stderr: errors)
        let message = try String(contentsOf: errors, encoding: .utf8)
        #expect(ended == .exited(64))
        #expect(message.contains("--announce-per-minute needs --requests-per-second"))
        #expect(message.contains("Usage: altbench-test-server"))
    }
}
