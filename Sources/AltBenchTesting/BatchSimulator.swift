import AltBenchCore
import Foundation

// The Batch API side of the test server: `/v1/files` and `/v1/batches` (or Azure's
// `/openai/v1/…`), simulated in memory and driven by polls, so that a batch run can be tested
// end to end without waiting for anything. Attach one to a server:
//
//     let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 3))
//     let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(), batches: batches)
//
// Each line of a batch is answered by the server's chat handler, so scripted chat answers
// (a `ResponseScript`, `ResponseRules`) answer batch lines as well.

/// How a ``BatchSimulator`` behaves.
package struct BatchSimulatorOptions: Sendable {
    /// Whose Batch API is simulated.
    package enum Flavour: String, Sendable, Hashable {
        /// OpenAI: routes under `/v1`, `endpoint` "/v1/chat/completions", Unix-second dates,
        /// lowercase statuses, 50,000 lines per file, `batch_expired` after the window.
        case openAI = "openai"
        /// Azure OpenAI's global batch on the v1 API: routes under `/openai/v1`, `endpoint`
        /// "/chat/completions", the `api-key` header, ISO-8601 dates, capitalised statuses
        /// ("InProgress", "Completed"), 100,000 lines per file, a zero-byte error file for a
        /// clean batch, never expired (``BatchFaults/expiring`` is ignored), and a UTF-8 BOM
        /// at the start of an input file failing validation with a message that does not
        /// mention it.
        case azure
    }

    package var flavour: Flavour
    /// How many polls (`GET …/batches/{id}`) it takes a batch to end: the first poll sees it
    /// `in_progress`, the one before last `finalizing`, the last `completed` (with 2 there is
    /// no `finalizing`; with 1 the first poll sees it `completed`). The lines are answered
    /// across the `in_progress` polls, so a batch cancelled midway has some finished.
    package var pollsUntilComplete: Int
    /// The most lines an input file may have (nil: 50,000, or 100,000 for Azure).
    package var maxLines: Int?
    /// The largest input file (200 MB); a larger one fails validation.
    package var maxBytes: Int
    /// When set, OpenAI routes answer 401 unless `Authorization: Bearer <apiKey>` is sent.
    package var apiKey: String?
    /// When set, Azure routes answer Azure's 401 unless `api-key: <azureAPIKey>` is sent.
    package var azureAPIKey: String?
    package var faults: BatchFaults
    /// When set, an upload's body is read at this many bytes per second (the client is held
    /// back by TCP flow control): a slow upload, to kill a client midway.
    package var uploadBytesPerSecond: Int?
    /// With `uploadBytesPerSecond`, only the first this many uploads are slow (`nil`: every
    /// one), so a client killed during a slow upload uploads again at full speed.
    package var slowUploads: Int?
    /// Called for each event (synchronously, on the simulator), e.g. to print it.
    package var onEvent: (@Sendable (BatchEvent) -> Void)?

    package init(
        flavour: Flavour = .openAI,
        pollsUntilComplete: Int = 3,
        maxLines: Int? = nil,
        maxBytes: Int = 200 * 1024 * 1024,
        apiKey: String? = nil,
        azureAPIKey: String? = nil,
        faults: BatchFaults = BatchFaults(),
        uploadBytesPerSecond: Int? = nil,
        slowUploads: Int? = nil,
        onEvent: (@Sendable (BatchEvent) -> Void)? = nil
    ) {
        self.flavour = flavour
        self.pollsUntilComplete = max(1, pollsUntilComplete)
        self.maxLines = maxLines
        self.maxBytes = maxBytes
        self.apiKey = apiKey
        self.azureAPIKey = azureAPIKey
        self.faults = faults
        self.uploadBytesPerSecond = uploadBytesPerSecond
        self.slowUploads = slowUploads
        self.onEvent = onEvent
    }

    /// "/v1" or "/openai/v1".
    package var pathPrefix: String { flavour == .azure ? "/openai/v1" : "/v1" }
    /// The batch `endpoint` and every line's `url`.
    package var chatEndpoint: String { flavour == .azure ? "/chat/completions" : "/v1/chat/completions" }
    /// The path the chat handler sees for a line.
    var chatPath: String { flavour == .azure ? AzureRoute.v1Path : "/v1/chat/completions" }
    var lineLimit: Int { maxLines ?? (flavour == .azure ? 100_000 : 50_000) }
}

/// What goes wrong in a simulated batch. Each applies to every batch of the simulator.
package struct BatchFaults: Sendable, Hashable {
    /// Requests never run: the batch ends `expired` (instead of `completed`), these lines are
    /// in the error file as `{"response": null, "error": {"code": "batch_expired", …}}`, and
    /// the others in the output file as usual. Ignored for Azure, which does not expire.
    package var expiring: Set<String>
    /// Every request fails (a 500 `server_error` per line, without asking the chat
    /// handler): the batch ends `completed` with `output_file_id` null.
    package var failAllRequests: Bool
    /// A clean batch reports `error_file_id: ""` instead of null (OpenAI does).
    package var emptyErrorFileID: Bool
    /// After this many polls a batch is gone: it and every later request for it answer 404
    /// "No batch found with id '…'.", and lists leave it out.
    package var goneAfterPolls: Int?
    /// The first this many batches created hit the enqueued token limit: create succeeds, and
    /// the first poll finds the batch `failed` with `token_limit_exceeded`.
    package var tokenLimitBatches: Int
    /// Output and error files list their lines in a shuffled (deterministic) order instead of
    /// the input's.
    package var shuffledOutput: Bool
    /// The lines with these custom_ids fail validation: the batch ends `failed` at its first
    /// poll, `errors.data` naming each such line (`invalid_request`, param `body.messages`).
    package var invalidLines: Set<String>
    /// The first this many batches created are cancelled at the provider (as from its
    /// dashboard) at their first poll: it answers `cancelling` (with the lines that poll ran),
    /// the next `cancelled`, with the lines answered so far in its output file.
    package var cancelledBatches: Int

    package init(
        expiring: Set<String> = [], failAllRequests: Bool = false, emptyErrorFileID: Bool = false,
        goneAfterPolls: Int? = nil, tokenLimitBatches: Int = 0, shuffledOutput: Bool = false,
        invalidLines: Set<String> = [], cancelledBatches: Int = 0
    ) {
        self.expiring = expiring
        self.failAllRequests = failAllRequests
        self.emptyErrorFileID = emptyErrorFileID
        self.goneAfterPolls = goneAfterPolls
        self.tokenLimitBatches = tokenLimitBatches
        self.shuffledOutput = shuffledOutput
        self.invalidLines = invalidLines
        self.cancelledBatches = cancelledBatches
    }
}

/// Something a client did to the simulated Batch API.
package enum BatchEvent: Sendable, Hashable, CustomStringConvertible {
    /// An upload's head arrived; its body is being read.
    case uploadStarted
    case uploaded(fileID: String, bytes: Int)
    case created(batchID: String)
    /// A poll, and the status it answered (OpenAI's spelling), or "gone" for a 404.
    case polled(batchID: String, status: String)
    case cancelRequested(batchID: String)
    case downloaded(fileID: String, bytes: Int)

    package var description: String {
        switch self {
        case .uploadStarted: return "upload started"
        case .uploaded(let id, let bytes): return "uploaded \(id) (\(bytes) bytes)"
        case .created(let id): return "created \(id)"
        case .polled(let id, let status): return "polled \(id): \(status)"
        case .cancelRequested(let id): return "cancel requested for \(id)"
        case .downloaded(let id, let bytes): return "downloaded \(id) (\(bytes) bytes)"
        }
    }
}

/// How often each kind of Batch API request reached the simulator.
package struct BatchCounts: Sendable, Hashable {
    /// Uploads answered (a slow upload killed midway is not counted; see `uploadsStarted`).
    package var uploads = 0
    /// Uploads whose head arrived, finished or not.
    package var uploadsStarted = 0
    /// Uploads the server is done with: answered, refused, or cut off by a client that went
    /// away. Equal to `uploadsStarted` once no upload is in progress.
    package var uploadsSettled = 0
    package var creates = 0
    /// `GET …/batches/{id}`, 404s included.
    package var polls = 0
    package var cancels = 0
    /// `GET …/files/{id}/content`.
    package var downloads = 0
    /// `GET …/batches` and `GET …/files`.
    package var lists = 0
    /// Batch lines answered by the chat handler (or by `failAllRequests`).
    package var linesRun = 0

    package init() {}
}

/// The simulated Batch API of one test server: files and batches in memory, advanced by
/// polls with no clock (dates are a counter from `OpenAITestServer.fixedCreated`, one second
/// per request), so the same requests always get the same answers.
///
/// Validation happens as OpenAI does it: `POST /batches` checks its own fields (the input
/// file exists, `endpoint`, `completion_window` "24h", metadata at most 16 pairs with keys up
/// to 64 and values up to 512 characters) and answers 400 for those; the file's lines are
/// checked at the first poll, and a bad file makes the batch `failed` with `errors.data`
/// naming each bad line: not JSON (`invalid_json_line`), no `custom_id`, `method` other than
/// POST, no `body` (`missing_required_parameter`), a `url` other than the endpoint
/// (`invalid_url`), a repeated `custom_id` (`duplicate_custom_id`), a second model
/// (`mismatched_model`), too many lines (`too_many_requests`), too many bytes
/// (`file_too_large`).
package actor BatchSimulator {
    package nonisolated let options: BatchSimulatorOptions

    private var files: [String: StoredFile] = [:]
    private var fileOrder: [String] = []
    private var batches: [String: SimulatedBatch] = [:]
    private var batchOrder: [String] = []
    private var tally = BatchCounts()
    private var clock = OpenAITestServer.fixedCreated
    private var fileSequence = 0
    private var batchSequence = 0
    private var lineNumber = 0
    private var runLines: [RecordedRequest] = []
    private let gate = AsyncGate()

    package init(_ options: BatchSimulatorOptions = BatchSimulatorOptions()) {
        self.options = options
    }

    // MARK: For tests

    /// How often each kind of request came.
    package var counts: BatchCounts { tally }

    /// The bytes of a stored file (an upload, an output or an error file).
    package func fileContent(id: String) -> Data? { files[id]?.data }

    /// The ids of the files stored, oldest first.
    package func fileIDs() -> [String] { fileOrder.filter { files[$0] != nil } }

    /// The ids of the batches created (and not gone), oldest first.
    package func batchIDs() -> [String] { batchOrder.filter { batches[$0] != nil } }

    /// The chat requests made for batch lines so far, as the chat handler saw them.
    package func lineRequests() -> [RecordedRequest] { runLines }

    /// The batch's status now (OpenAI's spelling), or nil when unknown or gone.
    package func status(ofBatch id: String) -> String? { batches[id]?.state.rawValue }

    // MARK: Routing

    /// The Batch API route of a request, or nil when the path is not a files or batches path
    /// of this flavour (the chat handler answers it then).
    nonisolated func route(method: String, path: String) -> BatchRoute? {
        BatchRoute(method: method, path: path, prefix: options.pathPrefix)
    }

    /// Answers a Batch API request; `chat` answers the batch's lines.
    func respond(
        to request: RecordedRequest, route: BatchRoute, chat: @escaping OpenAITestServer.Handler
    ) async -> ScriptedResponse {
        await gate.enter()
        let answer = await answer(request, route: route, chat: chat)
        await gate.leave()
        let id = options.flavour == .azure
            ? ("apim-request-id", AzureRoute.requestID(number: request.number)) : ("x-request-id", "req_test_\(request.number)")
        return answer.adding(headers: [id])
    }

    /// Counts an upload whose head has arrived; the rate its body is read at (`nil`: at once).
    func uploadStarted() -> Int? {
        tally.uploadsStarted += 1
        emit(.uploadStarted)
        if let slow = options.slowUploads, tally.uploadsStarted > slow { return nil }
        return options.uploadBytesPerSecond
    }

    /// Counts an upload the server is done with, whatever its end.
    func uploadSettled() {
        tally.uploadsSettled += 1
    }

    private func emit(_ event: BatchEvent) {
        options.onEvent?(event)
    }

    private func answer(
        _ request: RecordedRequest, route: BatchRoute, chat: @escaping OpenAITestServer.Handler
    ) async -> ScriptedResponse {
        clock += 1
        do {
            try checkAuthorization(request)
            switch route {
            case .invalid:
                throw APIError(status: 404, message: "Invalid URL (\(request.method) \(request.path))")
            case .uploadFile:
                return try upload(request)
            case .listFiles:
                tally.lists += 1
                return listFiles(request)
            case .file(let id):
                return json(try storedFile(id).object(flavour: options.flavour))
            case .fileContent(let id):
                let file = try storedFile(id)
                tally.downloads += 1
                emit(.downloaded(fileID: id, bytes: file.data.count))
                return ScriptedResponse.raw(status: 200, body: file.data, contentType: "application/octet-stream")
            case .deleteFile(let id):
                _ = try storedFile(id)
                files[id] = nil
                return json(["id": .string(id), "object": "file", "deleted": true])
            case .createBatch:
                tally.creates += 1
                return try create(request)
            case .listBatches:
                tally.lists += 1
                return try listBatches(request)
            case .batch(let id):
                tally.polls += 1
                return try await poll(id, request: request, chat: chat)
            case .cancel(let id):
                tally.cancels += 1
                return try cancel(id)
            }
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError(status: 500, message: "\(error)", type: "server_error").response
        }
    }

    private func json(_ value: JSONValue, status: Int = 200) -> ScriptedResponse {
        .json(status: status, value: value)
    }

    // MARK: Authorization

    private func checkAuthorization(_ request: RecordedRequest) throws {
        switch options.flavour {
        case .openAI:
            guard let key = options.apiKey else { return }
            try CompatibleHandler(options: CompatibleServerOptions(apiKey: key), images: GeneratedImageStore())
                .checkAuthorization(request)
        case .azure:
            guard let expected = options.azureAPIKey else { return }
            guard let given = request.header("api-key"), !given.isEmpty else {
                throw APIError(status: 401, message: AzureRoute.missingKeyMessage, azureCode: "401")
            }
            guard given == expected else {
                throw APIError(status: 401, message: AzureRoute.invalidKeyMessage, azureCode: "401")
            }
        }
    }

    // MARK: Files

    private func upload(_ request: RecordedRequest) throws -> ScriptedResponse {
        let contentType = request.header("content-type") ?? ""
        guard let boundary = MultipartFormData.boundary(contentType: contentType) else {
            throw APIError(
                message: "Invalid 'Content-Type' header: expected 'multipart/form-data' with a boundary, but got '\(contentType)' instead.",
                code: "invalid_content_type")
        }
        let form: MultipartFormData
        do {
            form = try MultipartFormData.parse(request.body, boundary: boundary)
        } catch {
            throw APIError(message: "Could not parse the multipart form: \(error).")
        }
        guard let purposePart = form.part(named: "purpose") else {
            throw APIError(message: "Missing required parameter: 'purpose'.", param: "purpose", code: "missing_required_parameter")
        }
        let purpose = String(decoding: purposePart.body, as: UTF8.self)
        let purposes = ["assistants", "batch", "fine-tune", "vision", "user_data", "evals"]
        guard purposes.contains(purpose) else {
            throw APIError(
                message: "'\(purpose)' is not one of [\(purposes.map { "'\($0)'" }.joined(separator: ", "))] - 'purpose'", param: "purpose",
                code: "invalid_value")
        }
        guard let filePart = form.part(named: "file"), let filename = filePart.filename else {
            throw APIError(message: "Missing required parameter: 'file'.", param: "file", code: "missing_required_parameter")
        }
        if purpose == "batch", !filename.lowercased().hasSuffix(".jsonl") {
            throw APIError(message: "Invalid file format for Batch API. Must be .jsonl", param: "file")
        }
        let file = store(filePart.body, filename: filename, purpose: purpose)
        tally.uploads += 1
        emit(.uploaded(fileID: file.id, bytes: file.data.count))
        return json(file.object(flavour: options.flavour))
    }

    private func store(_ data: Data, filename: String, purpose: String) -> StoredFile {
        fileSequence += 1
        let id = "file-\(options.flavour == .azure ? "az" : "")\(String(format: "%06d", fileSequence))"
        let file = StoredFile(id: id, filename: filename, purpose: purpose, data: data, createdAt: clock)
        files[id] = file
        fileOrder.append(id)
        return file
    }

    private func storedFile(_ id: String) throws -> StoredFile {
        guard let file = files[id] else {
            throw APIError(status: 404, message: "No such File object: \(id)", param: "id")
        }
        return file
    }

    private func listFiles(_ request: RecordedRequest) -> ScriptedResponse {
        let purpose = Self.query(request)["purpose"]
        let listed = fileIDs().reversed().compactMap { files[$0] }.filter { purpose == nil || $0.purpose == purpose }
        return json([
            "object": "list", "data": .array(listed.map { $0.object(flavour: options.flavour) }),
            "first_id": listed.first.map { .string($0.id) } ?? .null, "last_id": listed.last.map { .string($0.id) } ?? .null,
            "has_more": false,
        ])
    }

    static func query(_ request: RecordedRequest) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(string: "?" + (request.query ?? ""))?.queryItems ?? [] {
            result[item.name] = item.value ?? ""
        }
        return result
    }

    // MARK: Batches

    private func create(_ request: RecordedRequest) throws -> ScriptedResponse {
        let handler = CompatibleHandler(options: CompatibleServerOptions(), images: GeneratedImageStore())
        let body = try handler.parseBody(request)
        let allowed: Set<String> = ["input_file_id", "endpoint", "completion_window", "metadata", "output_expires_after"]
        for key in body.keys.sorted() where !allowed.contains(key) {
            throw APIError(message: "Unknown parameter: '\(key)'.", param: key, code: "unknown_parameter")
        }
        func required(_ name: String) throws -> String {
            guard let value = body[name], !value.isNull else {
                throw APIError(message: "Missing required parameter: '\(name)'.", param: name, code: "missing_required_parameter")
            }
            guard let text = value.stringValue else {
                throw APIError(
                    message: "Invalid type for '\(name)': expected a string, but got \(value.typeDescription) instead.",
                    param: name, code: "invalid_type")
            }
            return text
        }
        let inputFileID = try required("input_file_id")
        let endpoint = try required("endpoint")
        let window = try required("completion_window")
        guard endpoint == options.chatEndpoint else {
            throw APIError(
                message: "Invalid value: '\(endpoint)'. Supported values are: '\(options.chatEndpoint)' (this test server simulates chat completions only).",
                param: "endpoint", code: "invalid_value")
        }
        guard window == "24h" else {
            throw APIError(
                message: "Invalid value: '\(window)'. Supported values are: '24h'.", param: "completion_window", code: "invalid_value")
        }
        var metadata: [String: String] = [:]
        if let value = body["metadata"], !value.isNull {
            guard case .object(let pairs) = value else {
                throw APIError(
                    message: "Invalid type for 'metadata': expected an object, but got \(value.typeDescription) instead.",
                    param: "metadata", code: "invalid_type")
            }
            guard pairs.count <= 16 else {
                throw APIError(
                    message: "Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with \(pairs.count) properties instead.",
                    param: "metadata", code: "object_above_max_properties")
            }
            for (key, item) in pairs.sorted(by: { $0.key < $1.key }) {
                guard key.count <= 64 else {
                    throw APIError(
                        message: "Invalid 'metadata': key '\(key.prefix(20))…' is too long. Expected a key of at most 64 characters, but got one of \(key.count) characters instead.",
                        param: "metadata", code: "invalid_value")
                }
                guard let text = item.stringValue else {
                    throw APIError(
                        message: "Invalid type for 'metadata.\(key)': expected a string, but got \(item.typeDescription) instead.",
                        param: "metadata.\(key)", code: "invalid_type")
                }
                guard text.count <= 512 else {
                    throw APIError(
                        message: "Invalid 'metadata.\(key)': string too long. Expected a string with maximum length 512, but got a string with length \(text.count) instead.",
                        param: "metadata.\(key)", code: "string_above_max_length")
                }
                metadata[key] = text
            }
        }
        guard let file = files[inputFileID] else {
            throw APIError(status: 404, message: "No such File object: \(inputFileID)", param: "input_file_id")
        }
        guard file.purpose == "batch" else {
            throw APIError(
                message: "Invalid 'input_file_id': '\(inputFileID)'. The file's purpose must be 'batch', but it is '\(file.purpose)'.",
                param: "input_file_id", code: "invalid_value")
        }
        batchSequence += 1
        let id = "batch_\(String(format: "%06d", batchSequence))"
        var batch = SimulatedBatch(
            id: id, sequence: batchSequence, inputFileID: inputFileID, endpoint: endpoint, metadata: metadata, createdAt: clock)
        batch.hitsTokenLimit = batchSequence <= options.faults.tokenLimitBatches
        // Lines are sent as the batch's creator was allowed to send.
        batch.lineHeaders = request.headers.filter { ["authorization", "api-key"].contains($0.name.lowercased()) }
        batch.serverPort = request.serverPort
        batches[id] = batch
        batchOrder.append(id)
        emit(.created(batchID: id))
        return json(batch.object(options))
    }

    private func listBatches(_ request: RecordedRequest) throws -> ScriptedResponse {
        let query = Self.query(request)
        var limit = 20
        if let text = query["limit"] {
            guard let value = Int(text), (1...100).contains(value) else {
                throw APIError(
                    message: "Invalid 'limit': expected an integer between 1 and 100, but got '\(text)' instead.", param: "limit",
                    code: "invalid_value")
            }
            limit = value
        }
        var listed = batchIDs().reversed().compactMap { batches[$0] }
        if let after = query["after"] {
            if let index = listed.firstIndex(where: { $0.id == after }) {
                listed = Array(listed[(index + 1)...])
            } else {
                listed = []
            }
        }
        let page = Array(listed.prefix(limit))
        return json([
            "object": "list", "data": .array(page.map { $0.object(options) }),
            "first_id": page.first.map { .string($0.id) } ?? .null, "last_id": page.last.map { .string($0.id) } ?? .null,
            "has_more": .bool(listed.count > limit),
        ])
    }

    private func batchNotFound(_ id: String) -> APIError {
        APIError(status: 404, message: "No batch found with id '\(id)'.", param: "batch_id")
    }

    private func poll(_ id: String, request: RecordedRequest, chat: @escaping OpenAITestServer.Handler) async throws -> ScriptedResponse {
        guard var batch = batches[id] else {
            emit(.polled(batchID: id, status: "gone"))
            throw batchNotFound(id)
        }
        batch.polls += 1
        if let gone = options.faults.goneAfterPolls, batch.polls > gone {
            batches[id] = nil
            emit(.polled(batchID: id, status: "gone"))
            throw batchNotFound(id)
        }
        try await advance(&batch, chat: chat)
        if batch.sequence <= options.faults.cancelledBatches, [.inProgress, .finalizing].contains(batch.state) {
            batch.state = .cancelling
            batch.times["cancelling_at"] = clock
        }
        batches[id] = batch
        emit(.polled(batchID: id, status: batch.state.rawValue))
        return json(batch.object(options))
    }

    private func cancel(_ id: String) throws -> ScriptedResponse {
        guard var batch = batches[id] else { throw batchNotFound(id) }
        switch batch.state {
        case .validating, .inProgress, .finalizing:
            batch.state = .cancelling
            batch.times["cancelling_at"] = clock
        case .cancelling:
            break
        case .completed, .failed, .expired, .cancelled:
            throw APIError(message: "Cannot cancel a batch with status '\(batch.state.rawValue)'.", param: "batch_id")
        }
        batches[id] = batch
        emit(.cancelRequested(batchID: id))
        return json(batch.object(options))
    }

    /// One poll's worth of progress (see ``BatchSimulatorOptions/pollsUntilComplete``).
    private func advance(_ batch: inout SimulatedBatch, chat: @escaping OpenAITestServer.Handler) async throws {
        switch batch.state {
        case .validating:
            guard let file = files[batch.inputFileID] else {
                fail(&batch, [BatchLineError(code: "file_not_found", message: "The input file \(batch.inputFileID) was deleted.")])
                return
            }
            let (lines, errors) = validate(file.data)
            guard errors.isEmpty else {
                fail(&batch, errors)
                return
            }
            batch.lines = lines
            if batch.hitsTokenLimit {
                let model = lines.first?.model ?? "gpt-4o-mini"
                fail(
                    &batch,
                    [
                        BatchLineError(
                            code: "token_limit_exceeded",
                            message: "Enqueued token limit reached for \(model) in organization org-test. Limit: 90,000 enqueued tokens. Please try again once some in_progress batches have been completed."
                        )
                    ])
                return
            }
            batch.state = .inProgress
            batch.times["in_progress_at"] = clock
            try await step(&batch, chat: chat)
        case .inProgress, .finalizing:
            try await step(&batch, chat: chat)
        case .cancelling:
            batch.state = .cancelled
            batch.times["cancelled_at"] = clock
            writeFiles(&batch, expired: [])
        case .completed, .failed, .expired, .cancelled:
            break
        }
    }

    /// Progress of a running batch at its `polls`th poll: lines answered, `finalizing`, the end.
    private func step(_ batch: inout SimulatedBatch, chat: @escaping OpenAITestServer.Handler) async throws {
        let total = options.pollsUntilComplete
        let running = total >= 3 ? total - 2 : (total == 2 ? 1 : 0)
        let poll = batch.polls
        if poll >= total {
            try await run(&batch, upTo: batch.lines.count, chat: chat)
            finish(&batch)
        } else if poll > running {
            try await run(&batch, upTo: batch.lines.count, chat: chat)
            // A batch with requests left to expire stays in progress until its window ends.
            if batch.held.isEmpty, batch.state != .finalizing {
                batch.state = .finalizing
                batch.times["finalizing_at"] = clock
            }
        } else {
            let share = (batch.lines.count * poll + running - 1) / running
            try await run(&batch, upTo: share, chat: chat)
        }
    }

    /// Answers the lines before `end` not answered yet; lines set to expire are held back.
    private func run(_ batch: inout SimulatedBatch, upTo end: Int, chat: @escaping OpenAITestServer.Handler) async throws {
        let expiring = options.flavour == .azure ? [] : options.faults.expiring
        while batch.next < min(end, batch.lines.count) {
            let line = batch.lines[batch.next]
            batch.next += 1
            if expiring.contains(line.customID) {
                batch.held.append(line)
                continue
            }
            lineNumber += 1
            tally.linesRun += 1
            let request = RecordedRequest(
                number: lineNumber, method: "POST", path: options.chatPath, query: nil,
                headers: [(name: "content-type", value: "application/json")] + batch.lineHeaders,
                body: Data(line.body.canonicalBytes), serverPort: batch.serverPort)
            runLines.append(request)
            let answer: ScriptedResponse
            if options.faults.failAllRequests {
                answer = .error(
                    status: 500, message: "The server had an error while processing your request. Sorry about that!",
                    type: "server_error")
            } else {
                answer = await chat(request)
            }
            let body = (try? JSONValue.parse(answer.body)) ?? .string(String(decoding: answer.body, as: UTF8.self))
            let result: JSONValue = [
                "id": .string("batch_req_\(String(format: "%06d", batch.sequence))_\(String(format: "%06d", line.number))"),
                "custom_id": .string(line.customID),
                "response": [
                    "status_code": .int(answer.status),
                    "request_id": .string("req_batch_\(batch.sequence)_\(line.number)"),
                    "body": body,
                ],
                "error": .null,
            ]
            if (200..<400).contains(answer.status) {
                batch.succeeded.append(result)
            } else {
                batch.failed.append(result)
            }
        }
    }

    private func fail(_ batch: inout SimulatedBatch, _ errors: [BatchLineError]) {
        batch.state = .failed
        batch.errors = errors
        batch.times["failed_at"] = clock
    }

    private func finish(_ batch: inout SimulatedBatch) {
        if batch.times["finalizing_at"] == nil { batch.times["finalizing_at"] = clock }
        if batch.held.isEmpty {
            batch.state = .completed
            batch.times["completed_at"] = clock
        } else {
            batch.state = .expired
            batch.times["expired_at"] = clock
        }
        writeFiles(&batch, expired: batch.held)
    }

    /// The output file (successes; none without any) and the error file (failures and
    /// expired requests; for a clean batch none, "" with `emptyErrorFileID`, or a zero-byte
    /// file on Azure).
    private func writeFiles(_ batch: inout SimulatedBatch, expired: [InputLine]) {
        let expiredLines: [JSONValue] = expired.map { line in
            [
                "id": .string("batch_req_\(String(format: "%06d", batch.sequence))_\(String(format: "%06d", line.number))"),
                "custom_id": .string(line.customID),
                "response": .null,
                "error": [
                    "code": "batch_expired",
                    "message": "This request could not be executed before the completion window expired.",
                ],
            ]
        }
        let errorLines = batch.failed + expiredLines
        if !batch.succeeded.isEmpty {
            let data = jsonl(order(batch.succeeded, seed: batch.sequence))
            batch.outputFileID = store(data, filename: "\(batch.id)_output.jsonl", purpose: "batch_output").id
        }
        if !errorLines.isEmpty {
            let data = jsonl(order(errorLines, seed: batch.sequence &+ 7))
            batch.errorFileID = store(data, filename: "\(batch.id)_error.jsonl", purpose: "batch_output").id
        } else if options.flavour == .azure {
            batch.errorFileID = store(Data(), filename: "\(batch.id)_error.jsonl", purpose: "batch_output").id
        } else if options.faults.emptyErrorFileID {
            batch.errorFileID = ""
        }
    }

    private func jsonl(_ lines: [JSONValue]) -> Data {
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line.canonicalBytes
            bytes.append(10)
        }
        return Data(bytes)
    }

    /// `lines` in input order, or shuffled (never left in order) with `shuffledOutput`.
    private func order(_ lines: [JSONValue], seed: Int) -> [JSONValue] {
        guard options.faults.shuffledOutput, lines.count > 1 else { return lines }
        var generator = SplitMix64(seed: UInt64(seed))
        var shuffled = lines
        shuffled.shuffle(using: &generator)
        if shuffled == lines { shuffled.reverse() }
        return shuffled
    }

    // MARK: Validation

    /// The lines of an input file, or the errors that fail it.
    private func validate(_ data: Data) -> ([InputLine], [BatchLineError]) {
        let bytes = [UInt8](data)
        if bytes.count > options.maxBytes {
            return (
                [],
                [
                    BatchLineError(
                        code: "file_too_large",
                        message: "The input file is \(bytes.count) bytes; a batch input file may have at most \(options.maxBytes) bytes.")
                ]
            )
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            if options.flavour == .azure {
                // Azure's message does not say that the byte order mark is the trouble.
                return ([], [BatchLineError(code: "invalid_request", message: "The input file is empty or contains no valid requests.")])
            }
            // A JSON parser may skip the mark; OpenAI's line reader does not.
            return ([], [BatchLineError(code: "invalid_json_line", message: "This line is not parseable as valid JSON.", line: 1)])
        }
        var lines: [InputLine] = []
        var errors: [BatchLineError] = []
        var seen: [String: Int] = [:]
        var model: String?
        var start = 0
        var number = 0
        func invalid(_ code: String, _ message: String, param: String? = nil) {
            if errors.count < 1000 { errors.append(BatchLineError(code: code, message: message, param: param, line: number)) }
        }
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 10) ?? bytes.count
            var lineBytes = bytes[start..<end]
            start = end + 1
            number += 1
            if lineBytes.last == 13 { lineBytes = lineBytes.dropLast() }
            if end == bytes.count, lineBytes.isEmpty { break }
            guard let value = try? JSONValue.parse(Data(lineBytes)), case .object(let fields) = value else {
                invalid("invalid_json_line", "This line is not parseable as valid JSON.")
                continue
            }
            guard let customID = fields["custom_id"]?.stringValue, !customID.isEmpty else {
                invalid("missing_required_parameter", "Missing required parameter: 'custom_id'.", param: "custom_id")
                continue
            }
            guard fields["method"]?.stringValue == "POST" else {
                invalid("invalid_value", "Invalid value for 'method': only POST is supported.", param: "method")
                continue
            }
            guard let url = fields["url"]?.stringValue, url == options.chatEndpoint else {
                invalid(
                    "invalid_url",
                    "The URL provided for this request does not match the batch endpoint \(options.chatEndpoint).", param: "url")
                continue
            }
            guard case .object(let body)? = fields["body"] else {
                invalid("missing_required_parameter", "Missing required parameter: 'body'.", param: "body")
                continue
            }
            guard let lineModel = body["model"]?.stringValue else {
                invalid("missing_required_parameter", "Missing required parameter: 'body.model'.", param: "body.model")
                continue
            }
            if let first = seen[customID] {
                invalid(
                    "duplicate_custom_id",
                    "The custom_id for this request is a duplicate of another request (line \(first)). The custom_id parameter must be unique for each request in a batch.",
                    param: "custom_id")
                continue
            }
            if options.faults.invalidLines.contains(customID) {
                invalid(
                    "invalid_request",
                    "Invalid 'body.messages': the request body is not a valid chat completion request.",
                    param: "body.messages")
                continue
            }
            if let model, model != lineModel {
                invalid(
                    "mismatched_model",
                    "The provided model '\(lineModel)' does not match the model '\(model)' of the other requests in this batch. All requests in a batch must use the same model.",
                    param: "body.model")
                continue
            }
            model = model ?? lineModel
            seen[customID] = number
            lines.append(InputLine(number: number, customID: customID, model: lineModel, body: .object(body)))
        }
        if number > options.lineLimit {
            errors.append(
                BatchLineError(
                    code: "too_many_requests",
                    message: "The input file has \(number) lines; a batch may have at most \(options.lineLimit) requests."))
        }
        if lines.isEmpty && errors.isEmpty {
            errors.append(BatchLineError(code: "empty_file", message: "The input file has no requests."))
        }
        return (lines, errors)
    }
}

/// A request of the Batch API, by method and path.
enum BatchRoute: Equatable {
    case uploadFile, listFiles, file(String), fileContent(String), deleteFile(String)
    case createBatch, listBatches, batch(String), cancel(String)
    /// A files or batches path with a method it does not take.
    case invalid

    init?(method: String, path: String, prefix: String) {
        guard path.hasPrefix(prefix + "/") else { return nil }
        let parts = path.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
            .map { String($0).removingPercentEncoding ?? String($0) }
        guard let collection = parts.first, collection == "files" || collection == "batches" else { return nil }
        switch (collection, parts.count, method) {
        case ("files", 1, "POST"): self = .uploadFile
        case ("files", 1, "GET"): self = .listFiles
        case ("files", 2, "GET") where !parts[1].isEmpty: self = .file(parts[1])
        case ("files", 2, "DELETE") where !parts[1].isEmpty: self = .deleteFile(parts[1])
        case ("files", 3, "GET") where !parts[1].isEmpty && parts[2] == "content": self = .fileContent(parts[1])
        case ("batches", 1, "POST"): self = .createBatch
        case ("batches", 1, "GET"): self = .listBatches
        case ("batches", 2, "GET") where !parts[1].isEmpty: self = .batch(parts[1])
        case ("batches", 3, "POST") where !parts[1].isEmpty && parts[2] == "cancel": self = .cancel(parts[1])
        default: self = .invalid
        }
    }

    var isUpload: Bool { self == .uploadFile }
}

/// A file the simulator keeps.
struct StoredFile {
    var id: String
    var filename: String
    var purpose: String
    var data: Data
    var createdAt: Int

    func object(flavour: BatchSimulatorOptions.Flavour) -> JSONValue {
        var object: [String: JSONValue] = [
            "id": .string(id), "object": "file", "bytes": .int(data.count), "filename": .string(filename),
            "purpose": .string(purpose), "created_at": SimulatedBatch.date(createdAt, flavour: flavour),
        ]
        if flavour == .azure { object["status"] = "processed" }
        return .object(object)
    }
}

/// One valid line of an input file.
struct InputLine {
    var number: Int
    var customID: String
    var model: String
    var body: JSONValue
}

/// One entry of a batch's `errors.data`.
struct BatchLineError {
    var code: String
    var message: String
    var param: String? = nil
    var line: Int? = nil

    var json: JSONValue {
        [
            "code": .string(code), "message": .string(message), "param": param.map(JSONValue.string) ?? .null,
            "line": line.map(JSONValue.int) ?? .null,
        ]
    }
}

/// A batch the simulator runs.
struct SimulatedBatch {
    enum State: String {
        case validating, inProgress = "in_progress", finalizing, completed, failed, expired, cancelling, cancelled

        /// Azure's spelling in its sample answers: "InProgress", "Completed".
        var azureSpelling: String {
            rawValue.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        }
    }

    var id: String
    var sequence: Int
    var inputFileID: String
    var endpoint: String
    var metadata: [String: String]
    var createdAt: Int
    var state = State.validating
    var polls = 0
    var hitsTokenLimit = false
    var lineHeaders: [(name: String, value: String)] = []
    var serverPort: Int?
    var lines: [InputLine] = []
    /// The index of the next line to answer.
    var next = 0
    var held: [InputLine] = []
    var succeeded: [JSONValue] = []
    var failed: [JSONValue] = []
    var errors: [BatchLineError] = []
    var outputFileID: String?
    var errorFileID: String?
    var times: [String: Int] = [:]

    init(id: String, sequence: Int, inputFileID: String, endpoint: String, metadata: [String: String], createdAt: Int) {
        self.id = id
        self.sequence = sequence
        self.inputFileID = inputFileID
        self.endpoint = endpoint
        self.metadata = metadata
        self.createdAt = createdAt
    }

    /// Unix seconds, or (Azure) ISO-8601 with seven fraction digits and an offset, as in
    /// Azure's samples.
    static func date(_ seconds: Int?, flavour: BatchSimulatorOptions.Flavour) -> JSONValue {
        guard let seconds else { return .null }
        guard flavour == .azure else { return .int(seconds) }
        return .string(DateText.utc(Date(timeIntervalSince1970: TimeInterval(seconds)), "yyyy-MM-dd'T'HH:mm:ss") + ".0000000+00:00")
    }

    func object(_ options: BatchSimulatorOptions) -> JSONValue {
        let flavour = options.flavour
        func time(_ key: String) -> JSONValue { Self.date(times[key], flavour: flavour) }
        let finished = succeeded.count + failed.count + (state == .expired ? held.count : 0)
        let total = state == .validating || state == .failed ? 0 : lines.count
        return [
            "id": .string(id),
            "object": "batch",
            "endpoint": .string(endpoint),
            "errors": errors.isEmpty ? .null : ["object": "list", "data": .array(errors.map(\.json))],
            "input_file_id": .string(inputFileID),
            "completion_window": "24h",
            "status": .string(flavour == .azure ? state.azureSpelling : state.rawValue),
            "output_file_id": outputFileID.map(JSONValue.string) ?? .null,
            "error_file_id": errorFileID.map(JSONValue.string) ?? .null,
            "created_at": Self.date(createdAt, flavour: flavour),
            "in_progress_at": time("in_progress_at"),
            "expires_at": Self.date(createdAt + 86_400, flavour: flavour),
            "finalizing_at": time("finalizing_at"),
            "completed_at": time("completed_at"),
            "failed_at": time("failed_at"),
            "expired_at": time("expired_at"),
            "cancelling_at": time("cancelling_at"),
            "cancelled_at": time("cancelled_at"),
            "request_counts": [
                "total": .int(total), "completed": .int(succeeded.count), "failed": .int(finished - succeeded.count),
            ],
            "metadata": metadata.isEmpty ? .null : .object(metadata.mapValues(JSONValue.string)),
        ]
    }
}

/// A first-come, first-served lock for async code: the simulator answers one request at a
/// time, even while a line waits for the chat handler.
actor AsyncGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

