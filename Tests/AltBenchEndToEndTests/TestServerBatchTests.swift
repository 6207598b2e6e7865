import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `altbench-test-server --batches`: the simulated Batch API as a child process serves it, its
/// faults chosen by flags, and its events on stderr for a test to watch.
@Suite("altbench-test-server --batches")
struct TestServerBatchTests {
    /// One HTTP exchange with the server: status and JSON body.
    static func exchange(
        _ url: String, method: String = "GET", body: Data? = nil, contentType: String = "application/json"
    ) async throws -> (Int, JSONValue) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "content-type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = try #require(response as? HTTPURLResponse).statusCode
        return (status, (try? JSONValue.parse(data)) ?? .string(String(decoding: data, as: UTF8.self)))
    }

    /// A two-line input file, uploaded; returns the file id and the file's size.
    static func upload(_ baseURL: String) async throws -> (id: String, bytes: Int) {
        let image = try Data(contentsOf: Repository.root.appendingPathComponent("datasets/sample/artwork-grid.png"))
        let lines = ["one", "two"].map { id -> String in
            let line: JSONValue = [
                "custom_id": .string(id), "method": "POST", "url": "/v1/chat/completions",
                "body": [
                    "model": "gpt-4o-mini", "max_tokens": 40,
                    "messages": [
                        [
                            "role": "user",
                            "content": [
                                ["type": "text", "text": "Describe this image for a screen reader."],
                                ["type": "image_url", "image_url": ["url": .string("data:image/png;base64,\(image.base64EncodedString())")]],
                            ],
                        ]
                    ],
                ],
            ]
            return line.canonicalText
        }
        let boundary = "e2e-boundary"
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n".utf8)
        body.append(contentsOf: "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"run.jsonl\"\r\n\r\n".utf8)
        body.append(contentsOf: (lines.joined(separator: "\n") + "\n").utf8)
        body.append(contentsOf: "\r\n--\(boundary)--\r\n".utf8)
        let (status, file) = try await exchange(
            "\(baseURL)/files", method: "POST", body: body, contentType: "multipart/form-data; boundary=\(boundary)")
        #expect(status == 200, "\(file)")
        return (try #require(file["id"]?.stringValue), (lines.joined(separator: "\n") + "\n").utf8.count)
    }

    static func create(_ baseURL: String, file: String) async throws -> String {
        let body: JSONValue = ["input_file_id": .string(file), "endpoint": "/v1/chat/completions", "completion_window": "24h"]
        let (status, batch) = try await exchange("\(baseURL)/batches", method: "POST", body: Data(body.canonicalBytes))
        #expect(status == 200, "\(batch)")
        return try #require(batch["id"]?.stringValue)
    }

    @Test func faultsFromFlagsAndEventsOnStderr() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-batch-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try RunningAltbench.testServer(
            ["--batch-polls", "2", "--batch-fault", "token-limit", "--batch-fault", "expire:two"], in: folder)
        let baseURL = try #require(try await server.baseURL(), "the server did not start")

        // The first batch hits the enqueued token limit at its first poll.
        let (file, bytes) = try await Self.upload(baseURL)
        let first = try await Self.create(baseURL, file: file)
        let (_, failed) = try await Self.exchange("\(baseURL)/batches/\(first)")
        #expect(failed["status"] == "failed")
        #expect(failed["errors"]?["data"]?[0]?["code"] == "token_limit_exceeded")

        // The second runs: in progress, then expired, with "one" answered and "two" expired.
        let second = try await Self.create(baseURL, file: file)
        let (_, running) = try await Self.exchange("\(baseURL)/batches/\(second)")
        #expect(running["status"] == "in_progress")
        let (_, expired) = try await Self.exchange("\(baseURL)/batches/\(second)")
        #expect(expired["status"] == "expired")
        #expect(expired["request_counts"] == ["total": 2, "completed": 1, "failed": 1])
        let output = try #require(expired["output_file_id"]?.stringValue)
        let (_, line) = try await Self.exchange("\(baseURL)/files/\(output)/content")
        #expect(line["custom_id"] == "one")
        #expect(line["response"]?["body"]?["choices"]?[0]?["message"]?["content"]?.stringValue?.hasPrefix("A test description") == true)

        let ended = try await server.stop()
        #expect(ended.status == 0)
        // Each event as it happened; the byte counts checked apart.
        let events = ended.stderr.split(separator: "\n").filter { $0.hasPrefix("batch: ") }.map(String.init)
        let shown = events.map { $0.replacingOccurrences(of: #" \(\d+ bytes\)"#, with: "", options: .regularExpression) }
        #expect(
            shown == [
                "batch: upload started", "batch: uploaded \(file)", "batch: created \(first)", "batch: polled \(first): failed",
                "batch: created \(second)", "batch: polled \(second): in_progress", "batch: polled \(second): expired",
                "batch: downloaded \(output)",
                "batch: 1 uploads (1 started), 2 creates, 3 polls, 0 cancels, 1 downloads, 1 lines run",
            ], "\(ended.stderr)")
        #expect(events.contains("batch: uploaded \(file) (\(bytes) bytes)"))
    }

    @Test func azureFlavourServesItsOwnPaths() async throws {
        try await TestServerRateLimitTests.withServer(["--batch-flavour", "azure"]) { baseURL in
            let root = String(baseURL.dropLast("/v1".count))
            let (azure, list) = try await Self.exchange("\(root)/openai/v1/batches")
            #expect(azure == 200)
            #expect(list["object"] == "list")
            let (openAI, _) = try await Self.exchange("\(baseURL)/batches")
            #expect(openAI == 404)
        }
    }

    @Test(arguments: [
        ["--batch-fault", "nonsense"], ["--batch-fault", "gone-after:x"], ["--batch-polls", "0"], ["--batch-flavour", "aws"],
        ["--batch-fault", "invalid:"], ["--batch-fault", "cancel:0"],
    ])
    func badFlagsStopAtStartup(_ arguments: [String]) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-batch-flags-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ended = try await RunningAltbench.testServer(arguments, in: folder).wait()
        #expect(ended.status == 64)
        #expect(ended.stderr.hasPrefix("Error: The value '\(arguments[1])' is invalid for '\(arguments[0])"), "\(ended.stderr)")
        #expect(ended.stdout.isEmpty)
    }
}
