import AltBenchCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A client for OpenAI's Batch API, and Azure OpenAI's global batch through its v1 routes:
/// uploading a JSONL input file (`POST {base}/files`, multipart, streamed from disk),
/// creating, polling, listing and cancelling batches (`{base}/batches`), and downloading
/// output and error files (`GET {base}/files/{id}/content`, streamed to disk).
///
/// One call sends one request: the caller polls and retries. Every failure is a
/// `ModelFailure` filled as the chat client fills it (``ErrorBodyParser`` for an HTTP error,
/// ``TransportFailure`` for a connection, `.timeout`, `.malformed` for a 2xx answer that is
/// not the object asked for), with the key never in a message; a 404 for a batch or a file
/// has `status` 404 and says the batch or file is gone. A local file that cannot be read or
/// written throws ``LocalFileError``.
///
/// ```swift
/// let client = BatchClient(base: URL(string: "https://api.openai.com/v1")!, authorization: .bearer(key))
/// let file = try await client.uploadFile(input, filename: "altbench-run-1.jsonl")
/// var batch = try await client.createBatch(inputFileID: file.id, metadata: ["altbench_run": "1"])
/// while !batch.status.isTerminal { batch = try await client.batch(id: batch.id) }   // with a pause
/// if let output = batch.outputFileID { _ = try await client.downloadContent(fileID: output, to: outputURL) }
/// ```
package struct BatchClient: Sendable {
    /// How requests prove they may be sent.
    package enum BatchAuthorization: Sendable {
        /// `Authorization: Bearer KEY`, or no header without a key (a local server).
        case bearer(Secret?)
        /// Azure OpenAI's `api-key: KEY` header; no header without a key.
        case azure(Secret?)
    }

    /// The API base: "https://api.openai.com/v1", or "{resource}/openai/v1" for Azure.
    package let base: URL
    package let authorization: BatchAuthorization
    /// The environment variable the key came from, named in a 401's advice.
    let apiKeyVariable: String
    let timeout: Duration
    let httpClient: HTTPClient
    let redactor: Redactor
    /// The largest JSON answer read: a list of 100 batches is about 200 KB, OpenAI's files
    /// list of up to 10,000 files a few MB.
    let limit = 32 * 1024 * 1024

    /// The slowest upload allowed for, in bytes per second: an upload may take `timeout` plus
    /// its size at this rate (a 200 MB file: 800 s more) before it is abandoned.
    package static let minimumUploadRate = 250_000

    /// - Parameters:
    ///   - apiKeyVariable: where the key came from, for a 401's advice; by default
    ///     `OPENAI_API_KEY`, or `AZURE_OPENAI_API_KEY` for `.azure`.
    ///   - timeout: for each JSON request; for an upload, `timeout` plus its size at
    ///     ``minimumUploadRate``; for a download, until the head, then the longest stall.
    package init(
        base: URL, authorization: BatchAuthorization, apiKeyVariable: String? = nil, timeout: Duration = .seconds(120),
        httpClient: HTTPClient = .shared
    ) {
        // "…/v1/" and "…/v1" are the same base.
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        self.base = URL(string: text) ?? base
        self.authorization = authorization
        self.timeout = timeout
        self.httpClient = httpClient
        switch authorization {
        case .bearer(let key):
            self.apiKeyVariable = apiKeyVariable ?? "OPENAI_API_KEY"
            self.redactor = Redactor(secrets: [key?.value])
        case .azure(let key):
            self.apiKeyVariable = apiKeyVariable ?? "AZURE_OPENAI_API_KEY"
            self.redactor = Redactor(secrets: [key?.value])
        }
    }

    /// The batch's `endpoint` and each input line's `url`: "/v1/chat/completions" for OpenAI,
    /// "/chat/completions" for Azure's v1 API.
    package var chatEndpoint: String {
        switch authorization {
        case .bearer: return "/v1/chat/completions"
        case .azure: return "/chat/completions"
        }
    }

    /// The header that carries the key, if there is a key.
    var authorizationHeaders: [(String, String)] {
        switch authorization {
        case .bearer(let key): return key.map { [("Authorization", "Bearer \($0.value)")] } ?? []
        case .azure(let key): return key.map { [("api-key", $0.value)] } ?? []
        }
    }

    /// The flag that set the base URL, for advice.
    var setting: String {
        switch authorization {
        case .bearer: return "--base-url"
        case .azure: return "--azure-endpoint"
        }
    }

    // MARK: Files

    /// Uploads a JSONL input file with `purpose=batch` as `multipart/form-data`, streamed from
    /// disk in 256 KB chunks with its length declared (so a 200 MB file is never in memory).
    /// Throws ``LocalFileError`` when the file cannot be read.
    package func uploadFile(_ file: URL, filename: String, purpose: String = "batch") async throws -> BatchFileObject {
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            try FileHandle(forReadingFrom: file).close()
        } catch {
            throw LocalFileError(path: file.path, message: "cannot read the batch input file: \(error.localizedDescription)")
        }
        let form = MultipartForm(purpose: purpose, filename: filename)
        let url = endpoint("files")
        var http = request(url, method: .POST)
        http.headers.add(name: "Content-Type", value: form.contentType)
        http.headers.add(name: "Accept", value: "application/json")
        let body = FileUploadBody(head: form.head, file: file, size: size, tail: form.tail)
        http.body = .stream(body, length: .known(Int64(form.head.count + size + form.tail.count)))
        let deadline = timeout + .seconds(size / Self.minimumUploadRate)
        let answer = try await HTTPTransport.send(
            http, url: url, httpClient: httpClient, timeout: deadline, limit: limit, redactor: redactor, setting: setting,
            tooLarge: "a file object is a few hundred bytes. Is \(setting) an OpenAI-compatible API?")
        return try decode(answer, url: url, what: "a file object") { try BatchFileObject($0) }
    }

    /// `GET {base}/files?purpose=…`, following `has_more` pages.
    package func listFiles(purpose: String = "batch") async throws -> [BatchFileObject] {
        var files: [BatchFileObject] = []
        var after: String?
        for _ in 0..<1000 {
            var query = [URLQueryItem(name: "purpose", value: purpose)]
            if let after { query.append(URLQueryItem(name: "after", value: after)) }
            let url = endpoint("files", query: query)
            let answer = try await send(url, method: .GET)
            let (page, more) = try decodeList(answer, url: url, what: "a list of files") { try BatchFileObject($0) }
            files += page
            guard more, let last = page.last?.id, last != after else { break }
            after = last
        }
        return files
    }

    /// `DELETE {base}/files/{id}`: an input file no longer needed. A 404 (already gone) is
    /// not an error.
    package func deleteFile(id: String) async throws {
        let url = endpoint("files", id)
        let answer = try await send(url, method: .DELETE)
        guard (200..<300).contains(answer.status) || answer.status == 404 else {
            throw failure(answer, url: url)
        }
    }

    /// Streams a file's content (an output or error file, JSONL) to `destination`, which is
    /// replaced only once the whole body has come (see ``HTTPTransport/download(_:headers:to:httpClient:timeout:errorLimit:redactor:setting:)``).
    /// Returns the bytes written. A 404 says the file is gone.
    package func downloadContent(fileID: String, to destination: URL) async throws -> Int {
        let url = endpoint("files", fileID, "content")
        let (answer, written) = try await HTTPTransport.download(
            url, headers: authorizationHeaders, to: destination, httpClient: httpClient, timeout: timeout,
            redactor: redactor, setting: setting)
        guard (200..<300).contains(answer.status) else {
            throw failure(
                answer, url: url,
                notFound: "The file \(fileID) is not on the server (deleted, expired, or another account's).")
        }
        return written
    }

    // MARK: Batches

    /// `POST {base}/batches` for `inputFileID` on ``chatEndpoint``. The batch starts
    /// `validating`; a file that fails validation, or the enqueued token limit, shows later as
    /// status `failed` with `errors`, not here.
    package func createBatch(
        inputFileID: String, metadata: [String: String], completionWindow: String = "24h"
    ) async throws -> BatchObject {
        var object: [String: JSONValue] = [
            "input_file_id": .string(inputFileID),
            "endpoint": .string(chatEndpoint),
            "completion_window": .string(completionWindow),
        ]
        if !metadata.isEmpty { object["metadata"] = .object(metadata.mapValues(JSONValue.string)) }
        let url = endpoint("batches")
        let answer = try await send(url, method: .POST, json: .object(object))
        return try decode(answer, url: url, what: "a batch object") { try BatchObject($0) }
    }

    /// `GET {base}/batches/{id}`. A batch the server no longer knows answers a failure with
    /// `status` 404 whose message says so.
    package func batch(id: String) async throws -> BatchObject {
        let url = endpoint("batches", id)
        let answer = try await send(url, method: .GET)
        return try decode(answer, url: url, what: "a batch object", notFound: Self.goneMessage(id)) { try BatchObject($0) }
    }

    /// `POST {base}/batches/{id}/cancel`: the batch goes `cancelling`, then `cancelled` with
    /// the requests finished so far in its output file.
    package func cancelBatch(id: String) async throws -> BatchObject {
        let url = endpoint("batches", id, "cancel")
        let answer = try await send(url, method: .POST)
        return try decode(answer, url: url, what: "a batch object", notFound: Self.goneMessage(id)) { try BatchObject($0) }
    }

    /// `GET {base}/batches?limit=…&after=…`: one page, newest first, and whether more follow
    /// (ask again with `after:` the last id).
    package func listBatches(limit: Int = 100, after: String? = nil) async throws -> (batches: [BatchObject], hasMore: Bool) {
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let after { query.append(URLQueryItem(name: "after", value: after)) }
        let url = endpoint("batches", query: query)
        let answer = try await send(url, method: .GET)
        let (batches, more) = try decodeList(answer, url: url, what: "a list of batches") { try BatchObject($0) }
        return (batches, more)
    }

    static func goneMessage(_ id: String) -> String {
        "The batch \(id) is not on the server: it was deleted, or belongs to another account or resource."
    }

    // MARK: Requests

    /// `{base}/a/b/c` with each component percent-encoded (an id can never add a path level).
    func endpoint(_ components: String..., query: [URLQueryItem] = []) -> URL {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        var text = base.absoluteString
        for component in components {
            text += "/" + (component.addingPercentEncoding(withAllowedCharacters: allowed) ?? component)
        }
        if !query.isEmpty, var parts = URLComponents(string: text) {
            parts.queryItems = query
            if let url = parts.url { return url }
        }
        return URL(string: text) ?? base
    }

    func request(_ url: URL, method: HTTPMethod) -> HTTPClientRequest {
        var http = HTTPClientRequest(url: url.absoluteString)
        http.method = method
        http.headers.add(name: "User-Agent", value: "altbench/\(AltBenchVersion.current)")
        for (name, value) in authorizationHeaders { http.headers.add(name: name, value: value) }
        return http
    }

    /// One JSON request (a body only with `json`), its whole answer read within `timeout`.
    func send(_ url: URL, method: HTTPMethod, json: JSONValue? = nil) async throws -> HTTPAnswer {
        var http = request(url, method: method)
        http.headers.add(name: "Accept", value: "application/json")
        if let json {
            http.headers.add(name: "Content-Type", value: "application/json")
            http.body = .bytes(ByteBuffer(bytes: json.canonicalBytes))
        }
        return try await HTTPTransport.send(
            http, url: url, httpClient: httpClient, timeout: timeout, limit: limit, redactor: redactor, setting: setting,
            tooLarge: "Batch API answers are far smaller. Is \(setting) an OpenAI-compatible API?")
    }

    /// The object of a 2xx answer, or the failure of any other.
    func decode<T>(
        _ answer: HTTPAnswer, url: URL, what: String, notFound: String? = nil, _ make: (JSONValue) throws -> T
    ) throws -> T {
        guard (200..<300).contains(answer.status) else { throw failure(answer, url: url, notFound: notFound) }
        do {
            guard let root = try? JSONValue.parse(answer.body) else {
                throw BatchFormatError("not JSON: \(ErrorBodyParser.snippet(answer.body, redactor: redactor))")
            }
            return try make(root)
        } catch let error as BatchFormatError {
            throw malformed(url: url, what: what, error)
        }
    }

    /// The `data` of a 2xx list answer and its `has_more`, or the failure of any other answer.
    func decodeList<T>(
        _ answer: HTTPAnswer, url: URL, what: String, _ make: (JSONValue) throws -> T
    ) throws -> ([T], Bool) {
        try decode(answer, url: url, what: what) { root in
            guard let data = root["data"]?.arrayValue else {
                throw BatchFormatError("no `data` list: \(ErrorBodyParser.snippet(answer.body, redactor: redactor))")
            }
            return (try data.map(make), root["has_more"]?.boolValue ?? false)
        }
    }

    func malformed(url: URL, what: String, _ error: BatchFormatError) -> ModelFailure {
        ModelFailure(
            kind: .malformed,
            message: redactor.redact("the answer from \(url.absoluteString) is not \(what): \(error.message)"),
            retryable: false)
    }

    /// An HTTP error answer as a failure, as the chat client reads it; a 404 with `notFound`
    /// says what is gone instead of advising to check the base URL.
    func failure(_ answer: HTTPAnswer, url: URL, notFound: String? = nil) -> ModelFailure {
        let shown = redactor.redact(url.absoluteString)
        var failure = ErrorBodyParser.failure(
            status: answer.status, headers: answer.headers, body: answer.body, redactor: redactor, url: shown,
            apiKeyVariable: apiKeyVariable)
        if answer.status == 404, let notFound {
            let fields = ErrorBodyParser.ErrorFields(body: answer.body)
            let detail = fields.message.map { ErrorBodyParser.oneLine(redactor.redact($0), limit: 300) }
                .flatMap { $0.isEmpty ? nil : $0 } ?? ErrorBodyParser.snippet(answer.body, redactor: redactor)
            failure.message = "HTTP 404 from \(shown): \(detail). \(notFound)"
        }
        return failure
    }
}

/// The parts of an upload's `multipart/form-data` body around the file's bytes: `purpose`,
/// then `file` with its filename (RFC 7578).
struct MultipartForm {
    let boundary: String
    let head: [UInt8]
    let tail: [UInt8]

    init(purpose: String, filename: String, boundary: String = "altbench-" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()) {
        self.boundary = boundary
        let name = Self.quoted(filename)
        let text =
            "--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"purpose\"\r\n\r\n"
            + "\(purpose)\r\n"
            + "--\(boundary)\r\n"
            + "Content-Disposition: form-data; name=\"file\"; filename=\"\(name)\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        head = Array(text.utf8)
        tail = Array("\r\n--\(boundary)--\r\n".utf8)
    }

    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// A filename inside quotes: quotes and backslashes escaped, line breaks dropped.
    static func quoted(_ filename: String) -> String {
        var out = ""
        for character in filename {
            switch character {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\r", "\n": continue
            default: out.append(character)
            }
        }
        return out
    }
}

/// An upload body read from disk chunk by chunk as the connection takes it: the form's head,
/// the file's `size` bytes, the form's tail. Each iteration opens the file afresh, so a
/// request the HTTP client sends again reads it again from the start.
struct FileUploadBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let head: [UInt8]
    let file: URL
    let size: Int
    let tail: [UInt8]
    static let chunkSize = 256 * 1024

    func makeAsyncIterator() -> Iterator { Iterator(body: self) }

    struct Iterator: AsyncIteratorProtocol {
        enum Stage { case head, file, tail, done }

        let body: FileUploadBody
        var stage = Stage.head
        var handle: FileHandle?
        var sent = 0

        init(body: FileUploadBody) { self.body = body }

        mutating func next() async throws -> ByteBuffer? {
            switch stage {
            case .head:
                stage = body.size > 0 ? .file : .tail
                return ByteBuffer(bytes: body.head)
            case .file:
                if handle == nil {
                    do {
                        handle = try FileHandle(forReadingFrom: body.file)
                    } catch {
                        throw LocalFileError(path: body.file.path, message: "cannot read the batch input file: \(error.localizedDescription)")
                    }
                }
                let wanted = Swift.min(FileUploadBody.chunkSize, body.size - sent)
                let data: Data
                do {
                    data = try handle?.read(upToCount: wanted) ?? Data()
                } catch {
                    throw LocalFileError(path: body.file.path, message: "cannot read the batch input file: \(error.localizedDescription)")
                }
                guard !data.isEmpty else {
                    try? handle?.close()
                    throw LocalFileError(
                        path: body.file.path, message: "the file shrank from \(body.size) bytes while it was being uploaded")
                }
                sent += data.count
                if sent >= body.size {
                    try? handle?.close()
                    handle = nil
                    stage = .tail
                }
                return ByteBuffer(data: data)
            case .tail:
                stage = .done
                return ByteBuffer(bytes: body.tail)
            case .done:
                return nil
            }
        }
    }
}
