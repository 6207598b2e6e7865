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
            throw ModelFailure(
                kind: .image, message: "could not read the image \(request.image): \(error.localizedDescription)",
                retryable: false)
        }
        do {
            return try await send(request, imageURL: imageURL)
        } catch let failure as ModelFailure
            where failure.status == 400 && failure.code == "unsupported_parameter"
            && failure.param == request.tokenField.rawValue && request.maxTokens != nil
        {
            var other = request
            other.tokenField = request.tokenField == .maxTokens ? .maxCompletionTokens : .maxTokens
            return try await send(other, imageURL: imageURL)
        }
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
            response = try await httpClient.execute(http, deadline: .now() + TimeAmount(timeout))
            body = try await response.body.collect(upTo: maxBodyBytes)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw ModelFailure(
                kind: .timeout, message: "no answer from \(endpoint) within \(timeout.seconds) s (timeout).",
                retryable: true)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError where error == .cancelled {
            throw CancellationError()
        } catch {
            throw ModelFailure(
                kind: .transport,
                message: "could not reach \(endpoint): \(redactor.redact(String(describing: error))). Is the server running, and is --base-url right?",
                retryable: true)
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
        var answer = try ChatCompletionParser.answer(from: data, requestID: requestID, redactor: redactor)
        answer.tokenField = request.maxTokens == nil ? nil : request.tokenField.rawValue
        return answer
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let parts = duration.components
        self = .nanoseconds(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
    }
}

extension Duration {
    /// Whole and fractional seconds, for messages.
    var seconds: String {
        let value = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
