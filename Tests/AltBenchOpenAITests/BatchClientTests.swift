import AltBenchCore
import AltBenchHTTP
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

// MARK: Helpers

/// A key shaped like OpenAI's, built from parts so no file holds a key-shaped literal.
let batchTestKey = "sk" + "-proj-batch-" + String(repeating: "k", count: 24)

/// A vision request body as altbench writes it on a batch line.
func batchLineBody(_ text: String = "Describe the image.", model: String = "gpt-4o-mini") -> JSONValue {
    [
        "model": .string(model),
        "max_tokens": 60,
        "messages": [
            [
                "role": "user",
                "content": [
                    ["type": "text", "text": .string(text)],
                    ["type": "image_url", "image_url": ["url": .string(mastodonImage.absoluteString), "detail": "low"]],
                ],
            ]
        ],
    ]
}

/// One input line: `{"custom_id", "method": "POST", "url", "body"}`.
func batchLine(_ customID: String, url: String = "/v1/chat/completions", body: JSONValue = batchLineBody()) -> String {
    let line: JSONValue = ["custom_id": .string(customID), "method": "POST", "url": .string(url), "body": body]
    return line.canonicalText
}

/// A JSONL file of `lines` in a fresh temporary directory.
func batchInputFile(_ lines: [String], name: String = "input.jsonl") throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-batch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: url)
    return url
}

/// A destination for a download beside nothing else.
func downloadDestination(_ name: String = "output.jsonl") throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-download-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent(name)
}

/// A server with a batch simulator and the strict chat handler.
func batchServer(
    _ options: BatchSimulatorOptions = BatchSimulatorOptions(),
    handler: @escaping OpenAITestServer.Handler = OpenAITestServer.compatible()
) async throws -> (OpenAITestServer, BatchSimulator) {
    let simulator = BatchSimulator(options)
    let server = try await OpenAITestServer.start(handler: handler, batches: simulator)
    return (server, simulator)
}

func batchClient(_ server: OpenAITestServer, key: String? = batchTestKey, timeout: Duration = .seconds(30)) -> BatchClient {
    BatchClient(base: URL(string: server.baseURL)!, authorization: .bearer(key.map(Secret.init)), timeout: timeout)
}

func azureBatchClient(_ server: OpenAITestServer, key: String? = azureTestKey) -> BatchClient {
    BatchClient(
        base: URL(string: "http://127.0.0.1:\(server.port)/openai/v1")!, authorization: .azure(key.map(Secret.init)),
        timeout: .seconds(30))
}

/// Polls until the batch is terminal (at most `limit` polls).
func pollToEnd(_ client: BatchClient, _ id: String, limit: Int = 20) async throws -> (BatchObject, [BatchStatus]) {
    var seen: [BatchStatus] = []
    for _ in 0..<limit {
        let batch = try await client.batch(id: id)
        seen.append(batch.status)
        if batch.status.isTerminal { return (batch, seen) }
    }
    throw BatchFormatError("batch \(id) did not end within \(limit) polls")
}

/// The lines of a downloaded file.
func downloadedLines(_ client: BatchClient, fileID: String) async throws -> [BatchOutputLine] {
    let destination = try downloadDestination()
    _ = try await client.downloadContent(fileID: fileID, to: destination)
    let data = try Data(contentsOf: destination)
    return try data.split(separator: 10).map { try BatchOutputLine.parse(Data($0)) }
}

/// The failure `body` throws; fails the test if it throws anything else or nothing.
func expectModelFailure(_ body: () async throws -> Void) async -> ModelFailure? {
    do {
        try await body()
        Issue.record("expected a ModelFailure, but the call succeeded")
    } catch let failure as ModelFailure {
        return failure
    } catch {
        Issue.record("expected a ModelFailure, got \(error)")
    }
    return nil
}

/// A running batch of three lines, uploaded and created.
func createdBatch(
    _ client: BatchClient, ids: [String] = ["trial-1", "trial-2", "trial-3"], metadata: [String: String] = ["altbench_run": "7"]
) async throws -> BatchObject {
    let input = try batchInputFile(ids.map { batchLine($0, url: client.chatEndpoint, body: batchLineBody("Describe \($0).")) })
    let file = try await client.uploadFile(input, filename: "altbench-run-7.jsonl")
    return try await client.createBatch(inputFileID: file.id, metadata: metadata)
}

// MARK: The whole flow

@Suite("Batch API client against the simulated Batch API")
struct BatchClientTests {
    @Test("upload, create, poll through in_progress and finalizing to completed, download: every line answered by the chat handler")
    func wholeFlow() async throws {
        let (server, simulator) = try await batchServer(BatchSimulatorOptions(pollsUntilComplete: 3, apiKey: batchTestKey))
        let client = batchClient(server)
        #expect(client.chatEndpoint == "/v1/chat/completions")

        let ids = ["trial-1", "trial-2", "trial-3"]
        let input = try batchInputFile(ids.map { batchLine($0, body: batchLineBody("Describe \($0).")) })
        let inputBytes = try Data(contentsOf: input)
        let file = try await client.uploadFile(input, filename: "altbench-run-7.jsonl")
        #expect(file.id.hasPrefix("file-"))
        #expect(file.bytes == inputBytes.count)
        #expect(file.filename == "altbench-run-7.jsonl")
        #expect(file.purpose == "batch")
        #expect(file.createdAt == Date(timeIntervalSince1970: TimeInterval(OpenAITestServer.fixedCreated + 1)))
        #expect(await simulator.fileContent(id: file.id) == inputBytes)

        let created = try await client.createBatch(inputFileID: file.id, metadata: ["altbench_run": "7", "prompt": "short"])
        #expect(created.status == .validating)
        #expect(created.inputFileID == file.id)
        #expect(created.endpoint == "/v1/chat/completions")
        #expect(created.completionWindow == "24h")
        #expect(created.metadata == ["altbench_run": "7", "prompt": "short"])
        #expect(created.outputFileID == nil && created.errorFileID == nil)
        #expect(created.errors.isEmpty)
        let createdAt = try #require(created.createdAt)
        #expect(created.expiresAt == createdAt.addingTimeInterval(86_400))

        let (done, seen) = try await pollToEnd(client, created.id)
        #expect(seen == [.inProgress, .finalizing, .completed])
        #expect(done.requestCounts == BatchRequestCounts(total: 3, completed: 3, failed: 0))
        #expect(done.errorFileID == nil)
        #expect(done.completedAt != nil)
        let outputID = try #require(done.outputFileID)

        let lines = try await downloadedLines(client, fileID: outputID)
        #expect(lines.map(\.customID) == ids)
        for line in lines {
            #expect(line.statusCode == 200)
            #expect(line.error == nil)
            #expect(line.succeeded)
            let answer = try ChatCompletionParser.answer(from: try #require(line.body), requestID: line.requestID, redactor: Redactor(secrets: []))
            #expect(
                answer.content
                    == OpenAITestServer.compatibleContent(imageURL: mastodonImage.absoluteString, prompt: "Describe \(line.customID)."))
        }

        // The chat handler saw each line's body on the chat path, with the batch's key.
        let run = await simulator.lineRequests()
        #expect(run.count == 3)
        #expect(run.allSatisfy { $0.path == "/v1/chat/completions" && $0.header("authorization") == "Bearer \(batchTestKey)" })
        #expect(try run.map { try $0.json() } == [batchLineBody("Describe trial-1."), batchLineBody("Describe trial-2."), batchLineBody("Describe trial-3.")])

        let counts = await simulator.counts
        #expect(counts.uploads == 1 && counts.creates == 1 && counts.polls == 3 && counts.downloads == 1 && counts.linesRun == 3)

        let requests = await server.requests()
        await server.stop()
        let upload = try #require(requests.first { $0.path == "/v1/files" })
        #expect(upload.method == "POST")
        #expect(upload.header("authorization") == "Bearer \(batchTestKey)")
        #expect(upload.header("content-type")?.hasPrefix("multipart/form-data; boundary=altbench-") == true)
        #expect(upload.header("content-length") == String(upload.body.count))
        let create = try #require(requests.first { $0.path == "/v1/batches" })
        #expect(
            try create.json()
                == [
                    "input_file_id": .string(file.id), "endpoint": "/v1/chat/completions", "completion_window": "24h",
                    "metadata": ["altbench_run": "7", "prompt": "short"],
                ])
        #expect(requests.contains { $0.method == "GET" && $0.path == "/v1/batches/\(created.id)" })
        #expect(requests.contains { $0.method == "GET" && $0.path == "/v1/files/\(outputID)/content" })
    }

    @Test("the upload is a standard multipart/form-data body: the bytes of a golden checked once with Python's email parser")
    func multipartGolden() async throws {
        // Checked with Python 3: email.parser.BytesParser(policy=email.policy.HTTP) reads two
        // parts, purpose "batch" and file 'run "1".jsonl' (application/octet-stream) with the
        // content's bytes exactly.
        let golden =
            "--altbench-0123456789abcdef0123456789abcdef\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
            + "--altbench-0123456789abcdef0123456789abcdef\r\nContent-Disposition: form-data; name=\"file\"; filename=\"run \\\"1\\\".jsonl\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
            + "{\"custom_id\":\"a\",\"method\":\"POST\"}\n{\"custom_id\":\"b\"}\n"
            + "\r\n--altbench-0123456789abcdef0123456789abcdef--\r\n"
        let content = Data("{\"custom_id\":\"a\",\"method\":\"POST\"}\n{\"custom_id\":\"b\"}\n".utf8)
        let form = MultipartForm(purpose: "batch", filename: "run \"1\".jsonl", boundary: "altbench-0123456789abcdef0123456789abcdef")
        #expect(Data(form.head) + content + Data(form.tail) == Data(golden.utf8))
        #expect(form.contentType == "multipart/form-data; boundary=altbench-0123456789abcdef0123456789abcdef")

        // What the client really sends is the golden with its own boundary, and the server's
        // parser reads the same parts.
        let (server, simulator) = try await batchServer()
        let input = try batchInputFile([], name: "golden.jsonl")
        try content.write(to: input)
        let file = try await batchClient(server).uploadFile(input, filename: "run \"1\".jsonl")
        let upload = try #require(await server.requests(path: "/v1/files").first)
        await server.stop()
        let boundary = try #require(MultipartFormData.boundary(contentType: upload.header("content-type") ?? ""))
        let expected = golden.replacingOccurrences(of: "altbench-0123456789abcdef0123456789abcdef", with: boundary)
        #expect(upload.body == Data(expected.utf8))
        let parsed = try MultipartFormData.parse(upload.body, boundary: boundary)
        #expect(parsed.parts.map(\.name) == ["purpose", "file"])
        #expect(parsed.part(named: "file")?.filename == "run \"1\".jsonl")
        #expect(await simulator.fileContent(id: file.id) == content)
    }

    @Test("a 30 MB upload is read from disk in chunks of at most 256 KB, and arrives byte for byte")
    func largeUploadIsStreamed() async throws {
        let size = 30 * 1024 * 1024 + 17
        let input = try batchInputFile([], name: "large.jsonl")
        // Lines of 1 KB, so the file is real JSONL; the last is cut short.
        let line = batchLine("x", body: batchLineBody(String(repeating: "a", count: 700)))
        var data = Data()
        data.reserveCapacity(size)
        while data.count < size { data.append(contentsOf: (line + "\n").utf8) }
        data = data.prefix(size)
        try data.write(to: input)

        // The body the HTTP client pulls: the form's head, the file in bounded chunks, the tail.
        let form = MultipartForm(purpose: "batch", filename: "large.jsonl")
        var chunks: [Int] = []
        var total = 0
        for try await chunk in FileUploadBody(head: form.head, file: input, size: size, tail: form.tail) {
            chunks.append(chunk.readableBytes)
            total += chunk.readableBytes
        }
        #expect(total == form.head.count + size + form.tail.count)
        #expect(chunks.max() ?? 0 <= FileUploadBody.chunkSize)
        #expect(chunks.count >= size / FileUploadBody.chunkSize)

        let (server, simulator) = try await batchServer()
        let file = try await batchClient(server).uploadFile(input, filename: "large.jsonl")
        let stored = await simulator.fileContent(id: file.id)
        await server.stop()
        #expect(file.bytes == size)
        #expect(stored?.count == size)
        #expect(stored == data)
    }

    @Test("a download is streamed to a .partial file and moved into place; the bytes are the stored file's")
    func largeDownloadIsStreamed() async throws {
        let size = 12 * 1024 * 1024 + 5
        let input = try batchInputFile([], name: "big.jsonl")
        // Bytes 0…250 over and over (a prime period, so no chunk looks like the one before).
        let period = Data((0..<251).map { UInt8($0) })
        var data = Data(capacity: size + period.count)
        while data.count < size { data.append(period) }
        data = data.prefix(size)
        try data.write(to: input)
        let (server, _) = try await batchServer()
        let client = batchClient(server)
        let file = try await client.uploadFile(input, filename: "big.jsonl")
        let destination = try downloadDestination()
        try Data("an older file".utf8).write(to: destination)
        let written = try await client.downloadContent(fileID: file.id, to: destination)
        await server.stop()
        #expect(written == size)
        #expect(try Data(contentsOf: destination) == data)
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial"))
    }

    @Test("a download cut off midway leaves the earlier file untouched and no .partial behind")
    func interruptedDownload() async throws {
        let body = Data(String(repeating: "{\"custom_id\":\"a\"}\n", count: 4000).utf8)
        let server = try await OpenAITestServer.start { _ in
            ScriptedResponse.raw(status: 200, body: body, contentType: "application/octet-stream").closingConnectionMidBody()
        }
        let destination = try downloadDestination()
        try Data("an older file".utf8).write(to: destination)
        let failure = await expectModelFailure {
            _ = try await batchClient(server).downloadContent(fileID: "file-1", to: destination)
        }
        await server.stop()
        #expect(failure?.kind == .transport)
        #expect(failure?.retryable == true)
        #expect(try Data(contentsOf: destination) == Data("an older file".utf8))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial"))
    }

    @Test("a download whose body stalls longer than the timeout fails as a timeout")
    func stalledDownload() async throws {
        let body = Data(String(repeating: "{\"custom_id\":\"a\"}\n", count: 1000).utf8)
        let server = try await OpenAITestServer.start { _ in
            ScriptedResponse.raw(status: 200, body: body, contentType: "application/octet-stream").stallingMidBody(for: .seconds(30))
        }
        let destination = try downloadDestination()
        let failure = await expectModelFailure {
            _ = try await batchClient(server, timeout: .seconds(1)).downloadContent(fileID: "file-1", to: destination)
        }
        await server.stop(grace: .zero)
        #expect(failure?.kind == .timeout)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(!FileManager.default.fileExists(atPath: destination.path + ".partial"))
    }

    @Test("list batches newest first with has_more and after; list files by purpose; delete a file")
    func listing() async throws {
        let (server, _) = try await batchServer()
        let client = batchClient(server)
        var created: [String] = []
        for _ in 0..<3 { created.append(try await createdBatch(client).id) }
        let first = try await client.listBatches(limit: 2)
        #expect(first.batches.map(\.id) == [created[2], created[1]])
        #expect(first.hasMore)
        let second = try await client.listBatches(limit: 2, after: first.batches.last?.id)
        #expect(second.batches.map(\.id) == [created[0]])
        #expect(!second.hasMore)
        #expect(second.batches.first?.metadata == ["altbench_run": "7"])

        let files = try await client.listFiles()
        #expect(files.count == 3)
        #expect(files.allSatisfy { $0.purpose == "batch" && $0.filename == "altbench-run-7.jsonl" })
        let (done, _) = try await pollToEnd(client, created[0])
        #expect(try await client.listFiles(purpose: "batch_output").map(\.id) == [try #require(done.outputFileID)])

        try await client.deleteFile(id: files[0].id)
        try await client.deleteFile(id: files[0].id)  // already gone: not an error
        #expect(try await client.listFiles().count == 2)
        await server.stop()
    }
}

// MARK: Faults

@Suite("Batch API client: what goes wrong in a batch")
struct BatchFaultTests {
    @Test("expired requests: the batch ends expired, the finished lines are in the output file, the others batch_expired errors")
    func expiredRequests() async throws {
        let (server, _) = try await batchServer(BatchSimulatorOptions(faults: BatchFaults(expiring: ["trial-2"])))
        let client = batchClient(server)
        let created = try await createdBatch(client)
        let (done, seen) = try await pollToEnd(client, created.id)
        #expect(seen.last == .expired)
        #expect(!seen.contains(.finalizing))
        #expect(done.requestCounts == BatchRequestCounts(total: 3, completed: 2, failed: 1))
        let output = try await downloadedLines(client, fileID: try #require(done.outputFileID))
        #expect(output.map(\.customID) == ["trial-1", "trial-3"])
        let errors = try await downloadedLines(client, fileID: try #require(done.errorFileID))
        await server.stop()
        #expect(errors.count == 1)
        let expired = try #require(errors.first)
        #expect(expired.customID == "trial-2")
        #expect(expired.statusCode == nil && expired.body == nil)
        #expect(expired.error?.code == "batch_expired")
        #expect(!expired.succeeded)
    }

    @Test("every request failed: completed, output_file_id null, the error file holds each request's HTTP error")
    func everyRequestFailed() async throws {
        let (server, _) = try await batchServer(handler: { _ in
            .error(status: 400, message: "Invalid image.", code: "invalid_image", param: "messages[0].content[1]")
        })
        let client = batchClient(server)
        let created = try await createdBatch(client)
        let (done, _) = try await pollToEnd(client, created.id)
        #expect(done.status == .completed)
        #expect(done.outputFileID == nil)
        #expect(done.requestCounts == BatchRequestCounts(total: 3, completed: 0, failed: 3))
        let errors = try await downloadedLines(client, fileID: try #require(done.errorFileID))
        await server.stop()
        #expect(errors.map(\.customID) == ["trial-1", "trial-2", "trial-3"])
        for line in errors {
            #expect(line.statusCode == 400)
            #expect(line.error == nil)
            let failure = ErrorBodyParser.failure(
                status: line.statusCode ?? 0, headers: [:], body: try #require(line.body), redactor: Redactor(secrets: []))
            #expect(failure.code == "invalid_image")
            #expect(failure.message.contains("Invalid image."))
        }
    }

    @Test("fail-all without a handler: 500s per line, completed with no output file")
    func failAllFault() async throws {
        let (server, simulator) = try await batchServer(BatchSimulatorOptions(faults: BatchFaults(failAllRequests: true)))
        let client = batchClient(server)
        let (done, _) = try await pollToEnd(client, try await createdBatch(client).id)
        let errors = try await downloadedLines(client, fileID: try #require(done.errorFileID))
        #expect(await simulator.lineRequests().count == 3)
        await server.stop()
        #expect(done.status == .completed && done.outputFileID == nil)
        #expect(errors.allSatisfy { $0.statusCode == 500 })
    }

    @Test("a clean batch with error_file_id \"\" reads as no error file")
    func emptyErrorFileID() async throws {
        let (server, _) = try await batchServer(BatchSimulatorOptions(faults: BatchFaults(emptyErrorFileID: true)))
        let client = batchClient(server)
        let created = try await createdBatch(client)
        let (done, _) = try await pollToEnd(client, created.id)
        let raw = try await HTTPTransport.get(
            client.endpoint("batches", created.id), headers: client.authorizationHeaders, httpClient: .shared, timeout: .seconds(10),
            limit: 1 << 20, redactor: Redactor(secrets: []), setting: "--base-url", tooLarge: "")
        await server.stop()
        #expect(try JSONValue.parse(raw.body)["error_file_id"] == .string(""))
        #expect(done.status == .completed)
        #expect(done.errorFileID == nil)
        #expect(done.outputFileID != nil)
    }

    @Test("a batch that answers 404 after two polls: status 404, and the message says the batch is gone")
    func batchGone() async throws {
        let (server, simulator) = try await batchServer(BatchSimulatorOptions(pollsUntilComplete: 5, faults: BatchFaults(goneAfterPolls: 2)))
        let client = batchClient(server)
        let created = try await createdBatch(client)
        _ = try await client.batch(id: created.id)
        _ = try await client.batch(id: created.id)
        let failure = await expectModelFailure { _ = try await client.batch(id: created.id) }
        let cancel = await expectModelFailure { _ = try await client.cancelBatch(id: created.id) }
        let listed = try await client.listBatches()
        #expect(await simulator.counts.polls == 3)
        await server.stop()
        #expect(failure?.status == 404)
        #expect(failure?.kind == .http)
        #expect(failure?.message.contains("No batch found with id '\(created.id)'") == true)
        #expect(failure?.message.contains("is not on the server") == true)
        #expect(failure?.message.contains("--base-url") == false, "a gone batch is not a wrong base URL")
        #expect(cancel?.status == 404)
        #expect(listed.batches.isEmpty)
    }

    @Test("the enqueued token limit: create succeeds, the first poll finds the batch failed with token_limit_exceeded")
    func enqueuedTokenLimit() async throws {
        let (server, _) = try await batchServer(BatchSimulatorOptions(faults: BatchFaults(tokenLimitBatches: 1)))
        let client = batchClient(server)
        let first = try await createdBatch(client)
        #expect(first.status == .validating)
        let failed = try await client.batch(id: first.id)
        #expect(failed.status == .failed)
        #expect(failed.outputFileID == nil && failed.errorFileID == nil)
        let error = try #require(failed.errors.first)
        #expect(error.code == "token_limit_exceeded")
        #expect(error.message.hasPrefix("Enqueued token limit reached for gpt-4o-mini in organization org-test. Limit: 90,000 enqueued tokens."))
        #expect(error.line == nil)
        // The second batch goes through.
        let (second, _) = try await pollToEnd(client, try await createdBatch(client).id)
        await server.stop()
        #expect(second.status == .completed)
    }

    @Test("cancel midway: cancelling, then cancelled with the lines finished so far in the output file")
    func cancelMidway() async throws {
        let (server, simulator) = try await batchServer(BatchSimulatorOptions(pollsUntilComplete: 4))
        let client = batchClient(server)
        let created = try await createdBatch(client, ids: ["a", "b", "c", "d"])
        let running = try await client.batch(id: created.id)
        #expect(running.status == .inProgress)
        #expect(running.requestCounts == BatchRequestCounts(total: 4, completed: 2, failed: 0))
        let cancelling = try await client.cancelBatch(id: created.id)
        #expect(cancelling.status == .cancelling)
        #expect(cancelling.cancellingAt != nil)
        let cancelled = try await client.batch(id: created.id)
        #expect(cancelled.status == .cancelled)
        #expect(cancelled.cancelledAt != nil)
        #expect(cancelled.requestCounts == BatchRequestCounts(total: 4, completed: 2, failed: 0))
        let output = try await downloadedLines(client, fileID: try #require(cancelled.outputFileID))
        #expect(output.map(\.customID) == ["a", "b"])
        // Cancelling a finished batch is refused.
        let again = await expectModelFailure { _ = try await client.cancelBatch(id: created.id) }
        #expect(again?.status == 400)
        #expect(await simulator.lineRequests().count == 2)
        #expect(await simulator.counts.cancels == 2)
        await server.stop()
    }

    @Test("shuffled output: the same lines, not in the input's order")
    func shuffledOutput() async throws {
        let (server, _) = try await batchServer(BatchSimulatorOptions(faults: BatchFaults(shuffledOutput: true)))
        let client = batchClient(server)
        let ids = (1...12).map { "trial-\($0)" }
        let (done, _) = try await pollToEnd(client, try await createdBatch(client, ids: ids).id)
        let output = try await downloadedLines(client, fileID: try #require(done.outputFileID))
        await server.stop()
        #expect(output.map(\.customID) != ids)
        #expect(Set(output.map(\.customID)) == Set(ids))
    }

    @Test("an invalid input file: the batch is created, then fails at its first poll with the bad lines named")
    func validationFailure() async throws {
        let (server, _) = try await batchServer()
        let client = batchClient(server)
        let input = try batchInputFile([
            batchLine("a"),
            "{not json",
            batchLine("a"),
            batchLine("c", url: "/v1/embeddings"),
            batchLine("d", body: batchLineBody(model: "gpt-4o")),
            #"{"custom_id": "e", "method": "POST", "url": "/v1/chat/completions"}"#,
        ])
        let file = try await client.uploadFile(input, filename: "bad.jsonl")
        let created = try await client.createBatch(inputFileID: file.id, metadata: [:])
        #expect(created.status == .validating)
        #expect(created.metadata.isEmpty)
        let failed = try await client.batch(id: created.id)
        await server.stop()
        #expect(failed.status == .failed)
        #expect(failed.failedAt != nil)
        #expect(failed.errors.map(\.line) == [2, 3, 4, 5, 6])
        #expect(
            failed.errors.map(\.code) == [
                "invalid_json_line", "duplicate_custom_id", "invalid_url", "mismatched_model", "missing_required_parameter",
            ])
        #expect(failed.errors[1].message.contains("unique"))
    }

    @Test("a file over the line limit fails validation")
    func tooManyLines() async throws {
        let (server, _) = try await batchServer(BatchSimulatorOptions(maxLines: 2))
        let client = batchClient(server)
        let failed = try await client.batch(id: try await createdBatch(client).id)
        await server.stop()
        #expect(failed.status == .failed)
        #expect(failed.errors.map(\.code) == ["too_many_requests"])
    }

    @Test("create refuses a bad completion window and oversized metadata with 400s")
    func createValidation() async throws {
        let (server, _) = try await batchServer()
        let client = batchClient(server)
        let input = try batchInputFile([batchLine("a")])
        let file = try await client.uploadFile(input, filename: "a.jsonl")
        let window = await expectModelFailure {
            _ = try await client.createBatch(inputFileID: file.id, metadata: [:], completionWindow: "48h")
        }
        #expect(window?.status == 400)
        #expect(window?.param == "completion_window")
        #expect(window?.retryable == false)
        let many = Dictionary(uniqueKeysWithValues: (1...17).map { ("k\($0)", "v") })
        let metadata = await expectModelFailure { _ = try await client.createBatch(inputFileID: file.id, metadata: many) }
        #expect(metadata?.status == 400)
        #expect(metadata?.param == "metadata")
        let long = await expectModelFailure {
            _ = try await client.createBatch(inputFileID: file.id, metadata: ["k": String(repeating: "v", count: 513)])
        }
        #expect(long?.status == 400)
        let missing = await expectModelFailure { _ = try await client.createBatch(inputFileID: "file-nope", metadata: [:]) }
        #expect(missing?.status == 404)
        #expect(missing?.message.contains("No such File object: file-nope") == true)
        // 16 pairs, 64-character keys and 512-character values are allowed.
        var most = Dictionary(uniqueKeysWithValues: (1...15).map { ("k\($0)", "v") })
        most[String(repeating: "k", count: 64)] = String(repeating: "v", count: 512)
        let created = try await client.createBatch(inputFileID: file.id, metadata: most)
        #expect(created.metadata == most)
        await server.stop()
    }

    @Test("a slow upload can be abandoned midway: the upload started, none finished, no file stored")
    func slowUploadKilledMidway() async throws {
        let (server, simulator) = try await batchServer(BatchSimulatorOptions(uploadBytesPerSecond: 16 * 1024))
        let input = try batchInputFile([], name: "slow.jsonl")
        try Data(repeating: UInt8(ascii: "a"), count: 1024 * 1024).write(to: input)
        let client = batchClient(server)
        let upload = Task { try await client.uploadFile(input, filename: "slow.jsonl") }
        // Waits for the server to see the upload begin (no timing assertion: only a bound).
        for _ in 0..<2000 where await simulator.counts.uploadsStarted == 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        upload.cancel()
        let result = await upload.result
        let counts = await simulator.counts
        let stored = await simulator.fileIDs()
        await server.stop(grace: .zero)
        #expect(counts.uploadsStarted == 1)
        #expect(counts.uploads == 0)
        #expect(stored.isEmpty)
        #expect(throws: CancellationError.self) { try result.get() }
    }
}

// MARK: Azure

@Suite("Batch API client against Azure OpenAI's simulated global batch")
struct AzureBatchClientTests {
    @Test("v1 paths, api-key, endpoint /chat/completions, capitalised statuses, ISO dates, a zero-byte error file on success")
    func azureFlow() async throws {
        let (server, simulator) = try await batchServer(
            BatchSimulatorOptions(flavour: .azure, pollsUntilComplete: 3, azureAPIKey: azureTestKey))
        let client = azureBatchClient(server)
        #expect(client.chatEndpoint == "/chat/completions")
        let created = try await createdBatch(client)
        #expect(created.status == .validating)
        #expect(created.endpoint == "/chat/completions")
        #expect(created.createdAt == Date(timeIntervalSince1970: TimeInterval(OpenAITestServer.fixedCreated + 2)))
        let (done, seen) = try await pollToEnd(client, created.id)
        #expect(seen == [.inProgress, .finalizing, .completed])
        let output = try await downloadedLines(client, fileID: try #require(done.outputFileID))
        #expect(output.count == 3)
        let destination = try downloadDestination("errors.jsonl")
        #expect(try await client.downloadContent(fileID: try #require(done.errorFileID), to: destination) == 0)
        #expect(try Data(contentsOf: destination).isEmpty)

        let raw = try await HTTPTransport.get(
            client.endpoint("batches", created.id), headers: client.authorizationHeaders, httpClient: .shared, timeout: .seconds(10),
            limit: 1 << 20, redactor: Redactor(secrets: []), setting: "--azure-endpoint", tooLarge: "")
        let json = try JSONValue.parse(raw.body)
        #expect(json["status"] == "Completed")
        #expect(json["created_at"]?.stringValue?.hasSuffix(".0000000+00:00") == true)
        #expect(raw.headers["apim-request-id"] != nil)

        let requests = await server.requests()
        let run = await simulator.lineRequests()
        await server.stop()
        #expect(requests.allSatisfy { $0.path.hasPrefix("/openai/v1/") })
        #expect(requests.allSatisfy { $0.header("api-key") == azureTestKey && $0.header("authorization") == nil })
        #expect(run.allSatisfy { $0.path == "/openai/v1/chat/completions" && $0.header("api-key") == azureTestKey })
    }

    @Test("a wrong api-key: Azure's 401, the key never in the message, the advice naming AZURE_OPENAI_API_KEY")
    func azureWrongKey() async throws {
        let (server, _) = try await batchServer(BatchSimulatorOptions(flavour: .azure, azureAPIKey: azureTestKey))
        let wrong = "azure-wrong-key-" + String(repeating: "9", count: 20)
        let failure = await expectModelFailure { _ = try await azureBatchClient(server, key: wrong).listBatches() }
        await server.stop()
        #expect(failure?.status == 401)
        #expect(failure?.stopsRun == true)
        #expect(failure?.message.contains(wrong) == false)
        #expect(failure?.message.contains("AZURE_OPENAI_API_KEY") == true)
        #expect(failure?.message.contains("Access denied due to invalid subscription key") == true)
    }

    @Test("a UTF-8 byte order mark fails the file, with a message that does not say so")
    func azureByteOrderMark() async throws {
        let (server, _) = try await batchServer(BatchSimulatorOptions(flavour: .azure))
        let client = azureBatchClient(server)
        let input = try batchInputFile([])
        try (Data([0xEF, 0xBB, 0xBF]) + Data((batchLine("a", url: "/chat/completions") + "\n").utf8)).write(to: input)
        let file = try await client.uploadFile(input, filename: "bom.jsonl")
        let failed = try await client.batch(id: try await client.createBatch(inputFileID: file.id, metadata: [:]).id)
        await server.stop()
        #expect(failed.status == .failed)
        #expect(failed.errors.count == 1)
        #expect(failed.errors.first?.message.lowercased().contains("bom") == false)
    }
}

// MARK: Error mapping

@Suite("Batch API client: HTTP errors as ModelFailure")
struct BatchErrorMappingTests {
    @Test("401: the key redacted from the message, the advice naming the key's variable, the run stopped")
    func unauthorized() async throws {
        let (server, _) = try await batchServer(BatchSimulatorOptions(apiKey: "sk-the-right-key"))
        let failure = await expectModelFailure {
            _ = try await batchClient(server).uploadFile(try batchInputFile([batchLine("a")]), filename: "a.jsonl")
        }
        await server.stop()
        #expect(failure?.status == 401)
        #expect(failure?.code == "invalid_api_key")
        #expect(failure?.stopsRun == true)
        #expect(failure?.retryable == false)
        let message = try #require(failure?.message)
        #expect(!message.contains(batchTestKey))
        #expect(!message.contains(String(batchTestKey.suffix(12))))
        #expect(message.contains("OPENAI_API_KEY"))
        #expect(message.contains("http://127.0.0.1:\(server.port)/v1/files"))
    }

    @Test("404 for an unknown batch: status 404, recognisable, not retryable")
    func unknownBatch() async throws {
        let (server, _) = try await batchServer()
        let failure = await expectModelFailure { _ = try await batchClient(server).batch(id: "batch_missing") }
        await server.stop()
        #expect(failure?.status == 404)
        #expect(failure?.retryable == false)
        #expect(failure?.message.contains("The batch batch_missing is not on the server") == true)
    }

    @Test("429 with retry-after: retryable, with the wait")
    func rateLimited() async throws {
        let server = try await OpenAITestServer.start { _ in .rateLimited(.retryAfterSeconds(7)) }
        let failure = await expectModelFailure { _ = try await batchClient(server).batch(id: "batch_1") }
        await server.stop()
        #expect(failure?.status == 429)
        #expect(failure?.retryable == true)
        #expect(failure?.retryAfter == .seconds(7))
        #expect(failure?.code == "rate_limit_exceeded")
    }

    @Test("a 2xx answer that is not a batch object is malformed, and says what is missing")
    func malformedAnswer() async throws {
        let server = try await OpenAITestServer.start { request in
            request.path.hasSuffix("/batches/batch_1") ? .json(#"{"object": "batch", "status": "completed"}"#) : .html(status: 200)
        }
        let client = batchClient(server)
        let noID = await expectModelFailure { _ = try await client.batch(id: "batch_1") }
        let html = await expectModelFailure { _ = try await client.batch(id: "batch_2") }
        await server.stop()
        #expect(noID?.kind == .malformed)
        #expect(noID?.message.contains("is not a batch object: the batch object has no `id`") == true)
        #expect(html?.kind == .malformed)
        #expect(html?.message.contains("not JSON") == true)
    }

    @Test("no server: cannot connect, retryable")
    func noServer() async throws {
        let closed = try ClosedPort()
        // A run's HTTP client does not retry a refused connection until the timeout.
        let http = HTTPClients.make()
        let client = BatchClient(
            base: URL(string: "http://127.0.0.1:\(closed.port)/v1")!, authorization: .bearer(Secret(batchTestKey)),
            timeout: .seconds(30), httpClient: http)
        let failure = await expectModelFailure { _ = try await client.listBatches() }
        try await http.shutdown()
        #expect(failure?.kind == .transport)
        #expect(failure?.message.contains("could not connect to 127.0.0.1:\(closed.port) (connection refused)") == true)
        #expect(failure?.cannotConnect == true)
    }

    @Test("an input file that cannot be read is a local error, not a model failure")
    func unreadableInput() async throws {
        let client = BatchClient(base: URL(string: "http://127.0.0.1:9/v1")!, authorization: .bearer(nil))
        await #expect(throws: LocalFileError.self) {
            _ = try await client.uploadFile(URL(fileURLWithPath: "/nonexistent/altbench/input.jsonl"), filename: "input.jsonl")
        }
    }

    @Test("ids are percent-encoded into one path component")
    func idsStayInTheirComponent() {
        let client = BatchClient(base: URL(string: "https://api.openai.com/v1/")!, authorization: .bearer(nil))
        #expect(client.endpoint("batches", "../files").absoluteString == "https://api.openai.com/v1/batches/..%2Ffiles")
        #expect(client.endpoint("batches", query: [URLQueryItem(name: "after", value: "batch_1")]).absoluteString
            == "https://api.openai.com/v1/batches?after=batch_1")
    }
}

// MARK: Parsing

struct StatusCase: Sendable, CustomTestStringConvertible {
    var text: String
    var status: BatchStatus
    var testDescription: String { text }
}

let statusCases: [StatusCase] = [
    StatusCase(text: "validating", status: .validating),
    StatusCase(text: "Validating", status: .validating),
    StatusCase(text: "in_progress", status: .inProgress),
    StatusCase(text: "InProgress", status: .inProgress),
    StatusCase(text: "in progress", status: .inProgress),
    StatusCase(text: "IN_PROGRESS", status: .inProgress),
    StatusCase(text: "finalizing", status: .finalizing),
    StatusCase(text: "Finalizing", status: .finalizing),
    StatusCase(text: "completed", status: .completed),
    StatusCase(text: "Completed", status: .completed),
    StatusCase(text: "failed", status: .failed),
    StatusCase(text: "Failed", status: .failed),
    StatusCase(text: "expired", status: .expired),
    StatusCase(text: "cancelling", status: .cancelling),
    StatusCase(text: "Canceling", status: .cancelling),
    StatusCase(text: "cancelled", status: .cancelled),
    StatusCase(text: "Cancelled", status: .cancelled),
    StatusCase(text: "canceled", status: .cancelled),
    StatusCase(text: "paused", status: .other("paused")),
]

struct DateCase: Sendable, CustomTestStringConvertible {
    var name: String
    var value: JSONValue
    var date: Date?
    var testDescription: String { name }
}

/// 2024-07-19T21:19:42Z
let julyNineteenth = Date(timeIntervalSince1970: 1_721_423_982)

let dateCases: [DateCase] = [
    DateCase(name: "Unix seconds", value: 1_721_423_982, date: julyNineteenth),
    DateCase(name: "Unix seconds with a fraction", value: 1_721_423_982.5, date: julyNineteenth.addingTimeInterval(0.5)),
    DateCase(name: "Unix seconds as text", value: "1721423982", date: julyNineteenth),
    DateCase(name: "ISO with Z", value: "2024-07-19T21:19:42Z", date: julyNineteenth),
    DateCase(name: "ISO with milliseconds", value: "2024-07-19T21:19:42.250Z", date: julyNineteenth.addingTimeInterval(0.25)),
    DateCase(name: "ISO as Azure writes it", value: "2024-07-19T21:19:42.0785524+00:00", date: julyNineteenth.addingTimeInterval(0.0785524)),
    DateCase(name: "ISO with an offset", value: "2024-07-19T23:19:42+02:00", date: julyNineteenth),
    DateCase(name: "ISO with a compact offset", value: "2024-07-19T16:19:42-0500", date: julyNineteenth),
    DateCase(name: "ISO without a zone (UTC)", value: "2024-07-19T21:19:42", date: julyNineteenth),
    DateCase(name: "ISO with a space", value: "2024-07-19 21:19:42Z", date: julyNineteenth),
    DateCase(name: "null", value: .null, date: nil),
    DateCase(name: "empty", value: "", date: nil),
]

@Suite("Batch objects: statuses, dates, lines")
struct BatchObjectParsingTests {
    @Test("statuses are read case-insensitively, with or without the underscore", arguments: statusCases)
    func status(_ example: StatusCase) {
        let status = BatchStatus(parsing: example.text)
        #expect(status == example.status)
        if case .other(let text) = status {
            #expect(text == example.text)
            #expect(status.rawValue == example.text)
            #expect(!status.isTerminal)
        }
    }

    @Test("rawValue is OpenAI's spelling; terminal statuses are completed, failed, expired, cancelled")
    func rawValues() {
        let all: [BatchStatus] = [.validating, .inProgress, .finalizing, .completed, .failed, .expired, .cancelling, .cancelled]
        #expect(all.map(\.rawValue) == ["validating", "in_progress", "finalizing", "completed", "failed", "expired", "cancelling", "cancelled"])
        #expect(all.filter(\.isTerminal) == [.completed, .failed, .expired, .cancelled])
        #expect(all.allSatisfy { BatchStatus(parsing: $0.rawValue) == $0 })
    }

    @Test("dates: Unix seconds or ISO-8601", arguments: dateCases)
    func date(_ example: DateCase) throws {
        let parsed = try BatchDate.parse(example.value)
        if let expected = example.date {
            let value = try #require(parsed)
            #expect(abs(value.timeIntervalSince(expected)) < 0.000_001)
        } else {
            #expect(parsed == nil)
        }
    }

    @Test("a date that is neither is an error naming the field")
    func badDate() {
        let body = Data(#"{"id": "batch_1", "status": "completed", "completed_at": "yesterday"}"#.utf8)
        #expect {
            try BatchObject.parse(body)
        } throws: { error in
            "\(error)" == #"the batch object batch_1: `completed_at` is neither Unix seconds nor an ISO-8601 date: "yesterday""#
        }
        #expect(BatchDate.iso8601("2024-13-01T00:00:00Z") == nil)
        #expect(BatchDate.iso8601("2024-02-31T00:00:00Z") == nil)
        #expect(BatchDate.iso8601("2024-02-29T00:00:00Z") != nil)
        #expect(BatchDate.iso8601("2024-07-19T21:19") == nil)
        #expect(BatchDate.iso8601("2024-07-19T21:19:42Zjunk") == nil)
    }

    @Test("OpenAI's batch object: every field, \"\" file ids as none")
    func openAIObject() throws {
        let body = """
            {"id": "batch_abc123", "object": "batch", "endpoint": "/v1/chat/completions", "errors": null,
             "input_file_id": "file-abc123", "completion_window": "24h", "status": "completed",
             "output_file_id": "file-cvaTdG", "error_file_id": "", "created_at": 1711471533, "in_progress_at": 1711471538,
             "expires_at": 1711557933, "finalizing_at": 1711493133, "completed_at": 1711493163, "failed_at": null,
             "expired_at": null, "cancelling_at": null, "cancelled_at": null,
             "request_counts": {"total": 100, "completed": 95, "failed": 5},
             "metadata": {"customer_id": "user_123456789", "batch_description": "Nightly eval job", "count": 3}}
            """
        let batch = try BatchObject.parse(Data(body.utf8))
        #expect(batch.id == "batch_abc123")
        #expect(batch.status == .completed)
        #expect(batch.outputFileID == "file-cvaTdG")
        #expect(batch.errorFileID == nil)
        #expect(batch.inputFileID == "file-abc123")
        #expect(batch.requestCounts == BatchRequestCounts(total: 100, completed: 95, failed: 5))
        #expect(batch.createdAt == Date(timeIntervalSince1970: 1_711_471_533))
        #expect(batch.expiresAt == Date(timeIntervalSince1970: 1_711_557_933))
        #expect(batch.completedAt == Date(timeIntervalSince1970: 1_711_493_163))
        #expect(batch.metadata == ["customer_id": "user_123456789", "batch_description": "Nightly eval job"])
        #expect(batch.errors.isEmpty)
    }

    @Test("Azure's sample batch object: capitalised status, ISO dates")
    func azureObject() throws {
        let body = """
            {"cancelled_at": null, "cancelling_at": null, "completed_at": "2024-07-19T21:19:42.0785524+00:00",
             "completion_window": "24h", "created_at": "2024-07-19T21:13:26.0000000+00:00", "error_file_id": "file-ea4b",
             "expired_at": null, "expires_at": "2024-07-20T21:13:26.0000000+00:00", "failed_at": null,
             "finalizing_at": "2024-07-19T21:19:40.0000000+00:00", "id": "batch_4ddc7b60",
             "in_progress_at": "2024-07-19T21:13:33.0000000+00:00", "input_file_id": "file-f6d3", "errors": null,
             "metadata": null, "object": "batch", "output_file_id": "file-5d1f", "endpoint": "/chat/completions",
             "request_counts": {"total": 3, "completed": 3, "failed": 0}, "status": "Completed"}
            """
        let batch = try BatchObject.parse(Data(body.utf8))
        #expect(batch.status == .completed)
        #expect(batch.metadata.isEmpty)
        #expect(batch.errorFileID == "file-ea4b")
        let completed = try #require(batch.completedAt)
        #expect(abs(completed.timeIntervalSince(julyNineteenth) - 0.0785524) < 0.000_001)
    }

    @Test("a failed batch's errors: code, message, param, line")
    func errors() throws {
        let body = """
            {"id": "batch_1", "status": "failed", "errors": {"object": "list", "data": [
              {"code": "invalid_json_line", "message": "This line is not parseable as valid JSON.", "param": null, "line": 2},
              {"code": "token_limit_exceeded", "message": "Enqueued token limit reached for gpt-4o-mini in organization org-x.", "param": null, "line": null}]}}
            """
        let batch = try BatchObject.parse(Data(body.utf8))
        #expect(
            batch.errors == [
                BatchError(code: "invalid_json_line", message: "This line is not parseable as valid JSON.", line: 2),
                BatchError(code: "token_limit_exceeded", message: "Enqueued token limit reached for gpt-4o-mini in organization org-x."),
            ])
    }

    @Test("what a batch object must have", arguments: [
        ("not json", "the batch object is not JSON: not json"),
        ("[]", "the batch object is an array, not an object"),
        (#"{"status": "completed"}"#, #"the batch object has no `id`: {"status":"completed"}"#),
        (#"{"id": "batch_1"}"#, "the batch object batch_1 has no `status`"),
    ])
    func required(_ body: String, _ message: String) {
        #expect {
            try BatchObject.parse(Data(body.utf8))
        } throws: { error in
            "\(error)" == message
        }
    }

    @Test("a file object: Unix or ISO created_at, Azure's status")
    func fileObject() throws {
        let openAI = try BatchFileObject.parse(
            Data(#"{"id": "file-abc", "object": "file", "bytes": 120000, "created_at": 1677610602, "filename": "mydata.jsonl", "purpose": "batch"}"#.utf8))
        #expect(openAI == BatchFileObject(id: "file-abc", bytes: 120_000, filename: "mydata.jsonl", purpose: "batch", createdAt: Date(timeIntervalSince1970: 1_677_610_602)))
        let azure = try BatchFileObject.parse(
            Data(#"{"id": "file-9f3", "bytes": 12, "created_at": "2024-07-19T21:19:42Z", "filename": "a.jsonl", "purpose": "batch", "status": "processed"}"#.utf8))
        #expect(azure.createdAt == julyNineteenth)
        #expect(azure.status == "processed")
        #expect(throws: BatchFormatError.self) { try BatchFileObject.parse(Data(#"{"bytes": 1}"#.utf8)) }
    }

    @Test("OpenAI's output line (fixture 14): custom_id, status 200, request id, the chat completion as bytes")
    func outputLine() throws {
        let line = try BatchOutputLine.parse(OpenAIFixtures.lines("14_batch_output_line")[0])
        #expect(line.customID == "request-2")
        #expect(line.id == "batch_req_wnaDys")
        #expect(line.statusCode == 200)
        #expect(line.requestID == "req_c187b3")
        #expect(line.error == nil)
        #expect(line.succeeded)
        // The body's bytes exactly as the line holds them.
        let text = String(decoding: OpenAIFixtures.lines("14_batch_output_line")[0], as: UTF8.self)
        let bodyText = String(text[try #require(text.range(of: #"{"id": "chatcmpl-9758Iw""#)).lowerBound...].dropLast(#"}, "error": null}"#.count))
        #expect(line.body == Data(bodyText.utf8))
        #expect(try JSONValue.parse(try #require(line.body)) == JSONValue.parse(try batchOutputBody()))
        let answer = try ChatCompletionParser.answer(from: try #require(line.body), requestID: line.requestID, redactor: Redactor(secrets: []))
        #expect(answer.content == "2 + 2 equals 4.")
    }

    @Test("the body is lifted out verbatim: braces and quotes inside strings, nested objects, keys in any order")
    func verbatimBody() throws {
        let body = #"{"choices":[{"message":{"content":"a } \" { ] [ \\"}}],"n":1.50,"ok":true}"#
        let text = #"{"error" :null , "response": {"request_id":"r}","body":  "# + body + #" ,"status_code":200},"custom_id":"c{1}"}"#
        let line = try BatchOutputLine.parse(Data(text.utf8))
        #expect(line.customID == "c{1}")
        #expect(line.requestID == "r}")
        #expect(line.statusCode == 200)
        #expect(line.body == Data(body.utf8))
        #expect(JSONSpans.member("body", ofMember: "response", in: Array(#"{"response": null}"#.utf8)) == nil)
        #expect(JSONSpans.member("body", ofMember: "response", in: Array(#"{"response": {"bodyx": 1}}"#.utf8)) == nil)
    }

    @Test("error lines: an HTTP error of the request, and a request the batch never ran")
    func errorLines() throws {
        let refused = try BatchOutputLine.parse(
            Data(#"{"id": "batch_req_1", "custom_id": "t-1", "response": {"status_code": 400, "request_id": "req_1", "body": {"error": {"message": "Invalid image.", "type": "invalid_request_error", "param": null, "code": "invalid_image"}}}, "error": null}"#.utf8))
        #expect(refused.statusCode == 400)
        #expect(!refused.succeeded)
        #expect(try JSONValue.parse(try #require(refused.body))["error"]?["code"] == "invalid_image")
        let expired = try BatchOutputLine.parse(
            Data(#"{"id": "batch_req_2", "custom_id": "t-2", "response": null, "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}"#.utf8 + [10]))
        #expect(expired.statusCode == nil && expired.body == nil)
        #expect(expired.error == BatchError(code: "batch_expired", message: "This request could not be executed before the completion window expired."))
        #expect {
            try BatchOutputLine.parse(Data(#"{"response": null, "error": null}"#.utf8))
        } throws: { error in
            "\(error)".hasPrefix("the output line has no `custom_id`")
        }
        #expect {
            try BatchOutputLine.parse(Data(#"{"custom_id": "x", "response": null, "error": null}"#.utf8))
        } throws: { error in
            "\(error)" == "the output line for x has neither a `response` nor an `error`"
        }
    }
}
