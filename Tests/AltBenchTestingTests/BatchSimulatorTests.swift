import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

// The simulated Batch API spoken to in raw HTTP: what it accepts and refuses, in OpenAI's
// words. The client's side (BatchClient) is tested against it in AltBenchOpenAITests.

/// A `multipart/form-data` body with the given parts (name, filename, content).
func multipartBody(_ parts: [(name: String, filename: String?, content: Data)], boundary: String = "test-boundary-42") -> Data {
    var body = Data()
    for part in parts {
        var disposition = "Content-Disposition: form-data; name=\"\(part.name)\""
        if let filename = part.filename { disposition += "; filename=\"\(filename)\"" }
        body.append(contentsOf: "--\(boundary)\r\n\(disposition)\r\n\r\n".utf8)
        body.append(part.content)
        body.append(contentsOf: "\r\n".utf8)
    }
    body.append(contentsOf: "--\(boundary)--\r\n".utf8)
    return body
}

/// One valid input line for the OpenAI flavour.
func simulatorLine(_ customID: String, model: String = "gpt-4o-mini", url: String = "/v1/chat/completions") -> String {
    let line: JSONValue = [
        "custom_id": .string(customID), "method": "POST", "url": .string(url),
        "body": visionBody { $0["model"] = .string(model) },
    ]
    return line.canonicalText
}

/// Uploads `content` as `filename` with purpose batch; returns the answer.
func uploadToSimulator(
    _ server: OpenAITestServer, _ content: Data, filename: String = "input.jsonl", prefix: String = "/v1",
    headers: [(String, String)] = []
) async throws -> HTTPResult {
    try await send(
        "http://127.0.0.1:\(server.port)\(prefix)/files",
        body: multipartBody([("purpose", nil, Data("batch".utf8)), ("file", filename, content)]),
        headers: [("content-type", "multipart/form-data; boundary=test-boundary-42")] + headers)
}

func createOnSimulator(_ server: OpenAITestServer, _ body: JSONValue, prefix: String = "/v1") async throws -> HTTPResult {
    try await send("http://127.0.0.1:\(server.port)\(prefix)/batches", body: Data(body.canonicalText.utf8))
}

@Suite("BatchSimulator on the test server")
struct BatchSimulatorTests {
    @Test("an upload is parsed from its multipart body and stored byte for byte")
    func upload() async throws {
        let simulator = BatchSimulator()
        let server = try await OpenAITestServer.start(batches: simulator)
        let content = Data((simulatorLine("a") + "\n" + simulatorLine("b") + "\n").utf8)
        let answer = try await uploadToSimulator(server, content)
        let listed = try await send("\(server.baseURL)/files?purpose=batch", method: "GET")
        let stored = await simulator.fileIDs()
        await server.stop()
        #expect(answer.status == 200)
        #expect(answer.header("x-request-id") == "req_test_1")
        let object = try answer.json()
        #expect(object["object"] == "file")
        #expect(object["bytes"] == .int(content.count))
        #expect(object["filename"] == "input.jsonl")
        #expect(object["purpose"] == "batch")
        #expect(object["created_at"] == .int(OpenAITestServer.fixedCreated + 1))
        #expect(stored == [object["id"]?.stringValue].compactMap { $0 })
        #expect(await simulator.fileContent(id: stored[0]) == content)
        #expect(try listed.json()["data"]?.arrayValue?.count == 1)
    }

    @Test(
        "uploads refused with OpenAI's 400s",
        arguments: [
            ("no purpose", multipartBody([("file", "a.jsonl", Data("{}".utf8))]), "Missing required parameter: 'purpose'."),
            ("no file", multipartBody([("purpose", nil, Data("batch".utf8))]), "Missing required parameter: 'file'."),
            (
                "not .jsonl", multipartBody([("purpose", nil, Data("batch".utf8)), ("file", "a.json", Data("{}".utf8))]),
                "Invalid file format for Batch API. Must be .jsonl"
            ),
            (
                "unknown purpose", multipartBody([("purpose", nil, Data("batches".utf8)), ("file", "a.jsonl", Data("{}".utf8))]),
                "'batches' is not one of ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] - 'purpose'"
            ),
            ("no closing boundary", Data("--test-boundary-42\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch".utf8), "Could not parse the multipart form"),
        ])
    func refusedUpload(_ name: String, _ body: Data, _ message: String) async throws {
        let simulator = BatchSimulator()
        let server = try await OpenAITestServer.start(batches: simulator)
        let answer = try await send(
            "\(server.baseURL)/files", body: body, headers: [("content-type", "multipart/form-data; boundary=test-boundary-42")])
        await server.stop()
        #expect(answer.status == 400)
        let error = try answer.json()["error"]
        #expect(error?["message"]?.stringValue?.hasPrefix(message) == true, "\(answer.text)")
        #expect(error?["type"] == "invalid_request_error")
        #expect(await simulator.counts.uploads == 0)
    }

    @Test("an upload that is not multipart is refused")
    func notMultipart() async throws {
        let server = try await OpenAITestServer.start(batches: BatchSimulator())
        let answer = try await send("\(server.baseURL)/files", body: Data("{}".utf8))
        await server.stop()
        #expect(answer.status == 400)
        #expect(try answer.json()["error"]?["code"] == "invalid_content_type")
    }

    @Test("create checks its own fields with 400s; a file's lines only at the first poll")
    func createChecks() async throws {
        let server = try await OpenAITestServer.start(batches: BatchSimulator())
        let file = try await uploadToSimulator(server, Data("{not json\n".utf8))
        let id = try #require(try file.json()["id"]?.stringValue)
        func create(_ edit: (inout [String: JSONValue]) -> Void) async throws -> HTTPResult {
            var body: [String: JSONValue] = ["input_file_id": .string(id), "endpoint": "/v1/chat/completions", "completion_window": "24h"]
            edit(&body)
            return try await createOnSimulator(server, .object(body))
        }
        let endpoint = try await create { $0["endpoint"] = "/v1/embeddings" }
        let missing = try await create { $0["input_file_id"] = nil }
        let unknown = try await create { $0["priority"] = "high" }
        let metadataType = try await create { $0["metadata"] = ["n": 1] }
        let longKey = try await create { $0["metadata"] = .object([String(repeating: "k", count: 65): "v"]) }
        let accepted = try await create { $0["metadata"] = ["run": "1"] }
        let batchID = try #require(try accepted.json()["id"]?.stringValue)
        let polled = try await send("\(server.baseURL)/batches/\(batchID)", method: "GET")
        await server.stop()
        #expect(endpoint.status == 400)
        #expect(try endpoint.json()["error"]?["param"] == "endpoint")
        #expect(missing.status == 400)
        #expect(try missing.json()["error"]?["message"] == "Missing required parameter: 'input_file_id'.")
        #expect(unknown.status == 400)
        #expect(try unknown.json()["error"]?["code"] == "unknown_parameter")
        #expect(metadataType.status == 400)
        #expect(try metadataType.json()["error"]?["param"] == "metadata.n")
        #expect(longKey.status == 400)
        #expect(accepted.status == 200)
        #expect(try accepted.json()["status"] == "validating")
        #expect(try accepted.json()["errors"] == .null)
        #expect(try accepted.json()["request_counts"] == ["total": 0, "completed": 0, "failed": 0])
        let failed = try polled.json()
        #expect(failed["status"] == "failed")
        #expect(failed["errors"]?["data"]?[0]?["line"] == 1)
        #expect(failed["errors"]?["data"]?[0]?["code"] == "invalid_json_line")
    }

    @Test("the fixture's input line (13) is valid, and its answer is the chat handler's")
    func fixtureLine() async throws {
        let simulator = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 1))
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.fixedCompletion(content: "4."), batches: simulator)
        let file = try await uploadToSimulator(server, OpenAIFixtures.lines("13_batch_input_line")[0] + Data([10]))
        let created = try await createOnSimulator(
            server,
            ["input_file_id": .string(try #require(try file.json()["id"]?.stringValue)), "endpoint": "/v1/chat/completions", "completion_window": "24h"])
        let id = try #require(try created.json()["id"]?.stringValue)
        let done = try await send("\(server.baseURL)/batches/\(id)", method: "GET").json()
        #expect(done["status"] == "completed")
        let output = try #require(done["output_file_id"]?.stringValue)
        let content = try await send("\(server.baseURL)/files/\(output)/content", method: "GET")
        await server.stop()
        let line = try JSONValue.parse(content.body.prefix { $0 != 10 })
        #expect(line["custom_id"] == "request-1")
        #expect(line["response"]?["status_code"] == 200)
        #expect(line["response"]?["body"]?["choices"]?[0]?["message"]?["content"] == "4.")
        #expect(line["error"] == .null)
        #expect(content.body.last == 10)
    }

    @Test("unknown batches and files answer 404; cancelling a finished batch 400; wrong methods 404")
    func notFound() async throws {
        let server = try await OpenAITestServer.start(batches: BatchSimulator())
        let batch = try await send("\(server.baseURL)/batches/batch_nope", method: "GET")
        let content = try await send("\(server.baseURL)/files/file-nope/content", method: "GET")
        let wrongMethod = try await send("\(server.baseURL)/batches/batch_nope", method: "DELETE")
        let badLimit = try await send("\(server.baseURL)/batches?limit=500", method: "GET")
        await server.stop()
        #expect(batch.status == 404)
        #expect(try batch.json()["error"]?["message"] == "No batch found with id 'batch_nope'.")
        #expect(content.status == 404)
        #expect(try content.json()["error"]?["message"] == "No such File object: file-nope")
        #expect(wrongMethod.status == 404)
        #expect(badLimit.status == 400)
    }

    @Test("without a simulator the batch paths are the chat handler's 404")
    func withoutSimulator() async throws {
        let server = try await OpenAITestServer.start()
        let answer = try await send("\(server.baseURL)/batches", method: "GET")
        await server.stop()
        #expect(answer.status == 404)
        #expect(try answer.json()["error"]?["message"] == "Invalid URL (GET /v1/batches)")
    }

    @Test("the OpenAI key is checked on every batch route")
    func bearerKey() async throws {
        let server = try await OpenAITestServer.start(batches: BatchSimulator(BatchSimulatorOptions(apiKey: "test-key-1234567890")))
        let none = try await send("\(server.baseURL)/batches", method: "GET")
        let right = try await send("\(server.baseURL)/batches", method: "GET", headers: [("authorization", "Bearer test-key-1234567890")])
        await server.stop()
        #expect(none.status == 401)
        #expect(try none.json()["error"]?["code"] == "invalid_api_key")
        #expect(right.status == 200)
        #expect(try right.json()["object"] == "list")
    }

    @Test("Azure: its paths only, Azure's 401 without api-key, ISO dates and capitalised statuses, apim-request-id")
    func azure() async throws {
        let simulator = BatchSimulator(BatchSimulatorOptions(flavour: .azure, pollsUntilComplete: 2, azureAPIKey: "azure-key-123456"))
        let server = try await OpenAITestServer.start(batches: simulator)
        let key = [("api-key", "azure-key-123456")]
        let openAIPath = try await send("\(server.baseURL)/batches", method: "GET", headers: key)
        let noKey = try await send("http://127.0.0.1:\(server.port)/openai/v1/batches", method: "GET")
        let line: JSONValue = ["custom_id": "a", "method": "POST", "url": "/chat/completions", "body": visionBody()]
        let file = try await uploadToSimulator(server, Data((line.canonicalText + "\n").utf8), prefix: "/openai/v1", headers: key)
        let fileID = try #require(try file.json()["id"]?.stringValue)
        let created = try await send(
            "http://127.0.0.1:\(server.port)/openai/v1/batches",
            body: Data(JSONValue.object(["input_file_id": .string(fileID), "endpoint": "/chat/completions", "completion_window": "24h"]).canonicalText.utf8),
            headers: [("content-type", "application/json")] + key)
        let id = try #require(try created.json()["id"]?.stringValue)
        var statuses: [String] = []
        var last = JSONValue.null
        for _ in 0..<2 {
            last = try await send("http://127.0.0.1:\(server.port)/openai/v1/batches/\(id)", method: "GET", headers: key).json()
            statuses.append(last["status"]?.stringValue ?? "")
        }
        let errorFile = try #require(last["error_file_id"]?.stringValue)
        let errors = try await send("http://127.0.0.1:\(server.port)/openai/v1/files/\(errorFile)/content", method: "GET", headers: key)
        await server.stop()
        #expect(openAIPath.status == 404)
        #expect(noKey.status == 401)
        #expect(try noKey.json()["error"]?["code"] == "401")
        #expect(try file.json()["status"] == "processed")
        #expect(created.header("apim-request-id") != nil)
        #expect(try created.json()["status"] == "Validating")
        // The third request the simulator answered (the refused one counts).
        #expect(try created.json()["created_at"] == "2023-11-14T22:13:23.0000000+00:00")
        #expect(statuses == ["InProgress", "Completed"])
        #expect(errors.status == 200 && errors.body.isEmpty)
    }

    @Test("events and counts: one of each, in order")
    func eventsAndCounts() async throws {
        let events = EventRecorder()
        let simulator = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 1, onEvent: { events.record($0) }))
        let server = try await OpenAITestServer.start(batches: simulator)
        let file = try await uploadToSimulator(server, Data((simulatorLine("a") + "\n").utf8))
        let fileID = try #require(try file.json()["id"]?.stringValue)
        let created = try await createOnSimulator(
            server, ["input_file_id": .string(fileID), "endpoint": "/v1/chat/completions", "completion_window": "24h"])
        let id = try #require(try created.json()["id"]?.stringValue)
        let done = try await send("\(server.baseURL)/batches/\(id)", method: "GET").json()
        let output = try #require(done["output_file_id"]?.stringValue)
        _ = try await send("\(server.baseURL)/files/\(output)/content", method: "GET")
        let counts = await simulator.counts
        await server.stop()
        let fileBytes = try file.json()["bytes"]?.intValue ?? 0
        let outputBytes = await simulator.fileContent(id: output)?.count ?? 0
        #expect(
            events.all.map(\.description) == [
                "upload started", "uploaded \(fileID) (\(fileBytes) bytes)", "created \(id)", "polled \(id): completed",
                "downloaded \(output) (\(outputBytes) bytes)",
            ])
        #expect(counts.uploads == 1 && counts.uploadsStarted == 1 && counts.creates == 1 && counts.polls == 1 && counts.downloads == 1)
        #expect(counts.linesRun == 1)
    }

    @Test("batch lines reach scripted chat rules: a rule's 429 lands in the error file")
    func scriptedLines() async throws {
        let rules = try ResponseRules.parse(
            """
            rules:
              - match: {prompt: "second"}
                respond: {status: 429}
            """, displayPath: "inline.yml")
        let script = ResponseRules(rules)
        let simulator = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 1))
        let server = try await OpenAITestServer.start(handler: script.handler, batches: simulator)
        var lines: [String] = []
        for (id, text) in [("a", "first"), ("b", "second")] {
            let line: JSONValue = [
                "custom_id": .string(id), "method": "POST", "url": "/v1/chat/completions",
                "body": visionBody(prompt: text),
            ]
            lines.append(line.canonicalText)
        }
        let file = try await uploadToSimulator(server, Data(lines.joined(separator: "\n").utf8))
        let created = try await createOnSimulator(
            server,
            ["input_file_id": .string(try #require(try file.json()["id"]?.stringValue)), "endpoint": "/v1/chat/completions", "completion_window": "24h"])
        let done = try await send("\(server.baseURL)/batches/\(try #require(try created.json()["id"]?.stringValue))", method: "GET").json()
        let errors = try await send("\(server.baseURL)/files/\(try #require(done["error_file_id"]?.stringValue))/content", method: "GET")
        await server.stop()
        #expect(done["request_counts"] == ["total": 2, "completed": 1, "failed": 1])
        let line = try JSONValue.parse(errors.body.prefix { $0 != 10 })
        #expect(line["custom_id"] == "b")
        #expect(line["response"]?["status_code"] == 429)
        #expect(line["response"]?["body"]?["error"]?["code"] == "rate_limit_exceeded")
    }
}

/// Events as the simulator reported them.
final class EventRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [BatchEvent] = []

    func record(_ event: BatchEvent) { lock.withLock { events.append(event) } }

    var all: [BatchEvent] { lock.withLock { events } }
}

@Suite("MultipartFormData")
struct MultipartFormDataTests {
    @Test("boundaries from Content-Type: plain, quoted, with other parameters; none for other types")
    func boundaries() {
        #expect(MultipartFormData.boundary(contentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartFormData.boundary(contentType: "Multipart/Form-Data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(MultipartFormData.boundary(contentType: "multipart/form-data") == nil)
        #expect(MultipartFormData.boundary(contentType: "application/json; boundary=abc") == nil)
    }

    @Test("parts keep their bytes exactly (CRLFs inside, a delimiter-like line that is not one); preamble and epilogue ignored")
    func parts() throws {
        let content = Data("line 1\r\n--test-boundary-4\r\n\r\nline 3\n".utf8) + Data([0, 255, 13, 10])
        var body = Data("preamble\r\n".utf8)
        body.append(multipartBody([("purpose", nil, Data("batch".utf8)), ("file", "x \\\"y\\\".jsonl", content)]))
        body.append(contentsOf: "epilogue".utf8)
        let form = try MultipartFormData.parse(body, boundary: "test-boundary-42")
        #expect(form.parts.count == 2)
        #expect(form.part(named: "purpose")?.body == Data("batch".utf8))
        #expect(form.part(named: "file")?.filename == "x \"y\".jsonl")
        #expect(form.part(named: "file")?.body == content)
    }
}
