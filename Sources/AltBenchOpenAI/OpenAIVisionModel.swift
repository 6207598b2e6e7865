import AltBenchCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// An OpenAI-compatible chat-completions client over AsyncHTTPClient.
///
/// One `complete` call sends one request (the runner owns retries), except for one fallback:
/// a 400 `unsupported_parameter` naming the token-limit field is answered by sending the
/// other field once, since reasoning models reject `max_tokens`.
public struct OpenAIVisionModel: VisionModel {
    public let baseURL: URL
    let apiKey: Secret?
    let apiKeyVariable: String
    let timeout: Duration
    let httpClient: HTTPClient
    let redactor: Redactor
    /// Largest response body read; chat completions for alt text are tiny.
    let maxBodyBytes = 8 * 1024 * 1024
    /// Token-limit fields a server rejected per model, so the fallback costs one extra
    /// request per model and run rather than one per trial.
    let rejectedFields = RejectedTokenFields()

    public init(
        baseURL: URL, apiKey: Secret?, apiKeyVariable: String = "OPENAI_API_KEY", timeout: Duration = .seconds(60),
        httpClient: HTTPClient = .shared
    ) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.apiKeyVariable = apiKeyVariable
        self.timeout = timeout
        self.httpClient = httpClient
        self.redactor = Redactor(secrets: [apiKey?.value])
    }

    public var chatCompletionsURL: URL { baseURL.appendingPathComponent("chat/completions") }
    public var endpoint: String { chatCompletionsURL.absoluteString }

    public func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        let imageURL: String
        do {
            imageURL = try request.image.urlString()
        } catch {
            let reference: String
            switch request.image {
            case .file(let url, _): reference = url.path
            case .remote(let url): reference = url.absoluteString
            }
            throw ModelFailure(
                kind: .image,
                message: "could not read the image \(reference): \(error.localizedDescription) Check that the file still exists and is readable.",
                retryable: false)
        }
        var request = request
        if request.maxTokens != nil, await rejectedFields.isRejected(request.tokenField, model: request.model) {
            request.tokenField = request.tokenField.other
        }
        do {
            return try await send(request, imageURL: imageURL)
        } catch let failure as ModelFailure
            where failure.status == 400 && failure.code == "unsupported_parameter"
            && failure.param == request.tokenField.rawValue && request.maxTokens != nil
        {
            await rejectedFields.reject(request.tokenField, model: request.model)
            var other = request
            other.tokenField = request.tokenField.other
            return try await send(other, imageURL: imageURL)
        }
    }

    /// An HTTP client for one run: a refused connection fails at once (and the runner's retry
    /// policy decides what next) instead of being retried inside the client until the request
    /// timeout; and the pool opens as many connections as the run has requests in flight
    /// (AsyncHTTPClient's default of 8 per host would quietly cap `--concurrency`). The caller
    /// shuts it down.
    public static func makeHTTPClient(connectTimeout: Duration = .seconds(10), maxConnections: Int = 8) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, maxConnections)
        configuration.timeout.connect = .nanoseconds(
            connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The exact bytes sent for a request (also what tests compare against).
    public func bodyData(_ request: ModelRequest, imageURL: String) -> Data {
        Data(request.body(imageURL: imageURL).canonicalText.utf8)
    }

    private func send(_ request: ModelRequest, imageURL: String) async throws -> ModelAnswer {
        var http = HTTPClientRequest(url: endpoint)
        http.method = .POST
        http.headers.add(name: "Content-Type", value: "application/json")
        http.headers.add(name: "Accept", value: "application/json")
        http.headers.add(name: "User-Agent", value: "altbench/\(AltBenchVersion.current)")
        if let apiKey { http.headers.add(name: "Authorization", value: "Bearer \(apiKey.value)") }
        http.body = .bytes(ByteBuffer(data: bodyData(request, imageURL: imageURL)))

        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            // One deadline for the head and the body: a server that stalls mid-body is as
            // slow as one that never answers.
            let deadline = ContinuousClock.now + timeout
            response = try await httpClient.execute(http, deadline: NIODeadline.now() + TimeAmount(timeout))
            body = try await collect(response.body, until: deadline)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw ModelFailure(
                kind: .timeout, message: "no answer from \(endpoint) within \(timeout.seconds) s (timeout).",
                retryable: true)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError where error == .cancelled {
            throw CancellationError()
        } catch is NIOTooManyBytesError {
            // Asking again gets the same oversized answer.
            throw ModelFailure(
                kind: .malformed,
                message: "the answer from \(endpoint) is larger than \(maxBodyBytes / 1024 / 1024) MB; a chat completion is a few KB. Is --base-url a chat-completions endpoint?",
                retryable: false)
        } catch {
            throw TransportFailure.failure(for: error, endpoint: chatCompletionsURL, redactor: redactor)
        }

        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        let data = Data(buffer: body)
        let status = Int(response.status.code)
        let requestID = headers["x-request-id"] ?? headers["apim-request-id"]
        guard (200..<300).contains(status) else {
            throw ErrorBodyParser.failure(
                status: status, headers: headers, body: data, redactor: redactor, url: endpoint,
                apiKeyVariable: apiKeyVariable)
        }
        var answer = try ChatCompletionParser.answer(
            from: data, requestID: requestID, redactor: redactor, headers: headers)
        answer.tokenField = request.maxTokens == nil ? nil : request.tokenField.rawValue
        answer.rateLimit = RateLimitStatus.parse(headers)
        return answer
    }
}

extension OpenAIVisionModel {
    /// Reads a whole body, giving up at `deadline`: AsyncHTTPClient's own deadline ends
    /// once the head has arrived, so without this a stalled body would wait forever.
    func collect(_ body: HTTPClientResponse.Body, until deadline: ContinuousClock.Instant) async throws -> ByteBuffer {
        let limit = maxBodyBytes
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: limit) }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard case .some(.some(let buffer)) = try await group.next() else {
                throw HTTPClientError.deadlineExceeded
            }
            return buffer
        }
    }
}

extension Duration {
    /// Whole and fractional seconds, for messages.
    var seconds: String {
        let value = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

/// Remembers which token-limit field a server rejected for which model.
actor RejectedTokenFields {
    private var rejected: Set<String> = []

    func isRejected(_ field: TokenField, model: String) -> Bool {
        rejected.contains("\(model)\u{0}\(field.rawValue)")
    }

    func reject(_ field: TokenField, model: String) {
        rejected.insert("\(model)\u{0}\(field.rawValue)")
    }
}

extension TokenField {
    /// The field to try when a server rejects this one.
    var other: TokenField { self == .maxTokens ? .maxCompletionTokens : .maxTokens }
}
