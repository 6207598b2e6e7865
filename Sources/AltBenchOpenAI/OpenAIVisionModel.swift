import AltBenchCore
import AltBenchHTTP
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// An OpenAI-compatible chat-completions client over AsyncHTTPClient.
///
/// One `complete` call sends one request (the runner owns retries), except for two fallbacks:
/// a 400 `unsupported_parameter` naming the token-limit field is answered by sending the
/// other field once, since reasoning models reject `max_tokens`; and a 400 about
/// `response_format` (a server without structured outputs, asked by the judge) by sending the
/// request once without it. Each is remembered per model for the rest of the run.
package struct OpenAIVisionModel: VisionModel {
    /// How requests prove they may be sent.
    package enum Authorization: Sendable {
        /// `Authorization: Bearer KEY`, or no header when there is no key (a local server).
        case bearer(Secret?)
        /// Signed with a session token from a team's signed proxy; no key on this machine.
        case signed(ProxySession)
        /// Azure OpenAI's `api-key: KEY` header (no Authorization header); no header without a key.
        case azure(Secret?)
    }

    /// `{base}/chat/completions`, or the proxy's chat route.
    package let chatCompletionsURL: URL
    let authorization: Authorization
    let apiKeyVariable: String
    /// The Azure resource, for advice that names its settings; `nil` for other endpoints.
    let azure: AzureSettings?
    let timeout: Duration
    let httpClient: HTTPClient
    let redactor: Redactor
    /// Largest response body read; chat completions for alt text are tiny.
    let maxBodyBytes = 8 * 1024 * 1024
    /// Token-limit fields a server rejected per model, so the fallback costs one extra
    /// request per model and run rather than one per trial.
    let rejectedFields = RejectedTokenFields()
    /// The data URLs of the images sent last: the trials of one image encode it once.
    let imageURLs = ImageURLCache()

    package init(
        baseURL: URL, apiKey: Secret?, apiKeyVariable: String = "OPENAI_API_KEY", timeout: Duration = .seconds(60),
        httpClient: HTTPClient = .shared
    ) {
        self.chatCompletionsURL = baseURL.appendingPathComponent("chat/completions")
        self.authorization = .bearer(apiKey)
        self.apiKeyVariable = apiKeyVariable
        self.azure = nil
        self.timeout = timeout
        self.httpClient = httpClient
        self.redactor = Redactor(secrets: [apiKey?.value])
    }

    /// A client that sends every request through a signed proxy (`altbench run --proxy`).
    package init(proxy session: ProxySession, timeout: Duration = .seconds(60), httpClient: HTTPClient = .shared) {
        self.chatCompletionsURL = session.url(for: session.settings.chatPath)
        self.authorization = .signed(session)
        self.apiKeyVariable = session.appKeyVariable
        self.azure = nil
        self.timeout = timeout
        self.httpClient = httpClient
        self.redactor = Redactor(secrets: [session.appKey.value])
    }

    /// A client for an Azure OpenAI resource (`altbench run --provider azure`): its deployment
    /// URL (or the v1 one), the key in the `api-key` header, and advice naming the Azure settings.
    package init(azure settings: AzureSettings, timeout: Duration = .seconds(60), httpClient: HTTPClient = .shared) {
        self.chatCompletionsURL = settings.chatCompletionsURL
        self.authorization = .azure(settings.apiKey)
        self.apiKeyVariable = settings.apiKeyVariable
        self.azure = settings
        self.timeout = timeout
        self.httpClient = httpClient
        self.redactor = Redactor(secrets: [settings.apiKey?.value])
    }

    package var endpoint: String { chatCompletionsURL.absoluteString }

    package func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        let imageURL: String
        do {
            imageURL = try imageURLs.urlString(for: request.image, identity: request.imageIdentity)
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
        if request.responseFormat != nil, await rejectedFields.rejectsResponseFormat(model: request.model) {
            request.responseFormat = nil
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
        } catch let failure as ModelFailure where request.responseFormat != nil && Self.rejectsResponseFormat(failure) {
            // A server without structured outputs: the judge's contract asks for JSON in words
            // too, and its answer is read leniently.
            await rejectedFields.rejectResponseFormat(model: request.model)
            var plain = request
            plain.responseFormat = nil
            return try await send(plain, imageURL: imageURL)
        }
    }

    /// Whether a failure is a 400 about `response_format` (OpenAI names it in `param`; other
    /// servers only in the message).
    static func rejectsResponseFormat(_ failure: ModelFailure) -> Bool {
        guard failure.status == 400 || failure.status == 422 else { return false }
        if let param = failure.param, param.hasPrefix("response_format") { return true }
        let message = failure.message.lowercased()
        return message.contains("response_format") || message.contains("json_schema")
    }

    /// The exact bytes sent for a request (also what tests compare against).
    package func bodyData(_ request: ModelRequest, imageURL: String) -> Data {
        Data(request.body(imageURL: imageURL).canonicalBytes)
    }

    private func send(_ request: ModelRequest, imageURL: String) async throws -> ModelAnswer {
        let body = bodyData(request, imageURL: imageURL)
        let (status, headers, data): (Int, [String: String], Data)
        switch authorization {
        case .bearer(let apiKey):
            (status, headers, data) = try await post(
                body, headers: apiKey.map { [("Authorization", "Bearer \($0.value)")] } ?? [])
        case .signed(let session):
            (status, headers, data) = try await postSigned(body, session: session)
        case .azure(let apiKey):
            (status, headers, data) = try await post(body, headers: apiKey.map { [("api-key", $0.value)] } ?? [])
        }
        let requestID = headers["x-request-id"] ?? headers["apim-request-id"]
        guard (200..<300).contains(status) else {
            // Azure's content filter refusing the prompt is an answer (a refusal), not a failure.
            if var filtered = ChatCompletionParser.promptFilteredAnswer(
                status: status, body: data, requestID: requestID, redactor: redactor)
            {
                filtered.tokenField = request.maxTokens == nil ? nil : request.tokenField.rawValue
                return filtered
            }
            throw ErrorBodyParser.failure(
                status: status, headers: headers, body: data, redactor: redactor, url: endpoint,
                apiKeyVariable: apiKeyVariable, azure: azure)
        }
        var answer = try ChatCompletionParser.answer(
            from: data, requestID: requestID, redactor: redactor, headers: headers)
        answer.tokenField = request.maxTokens == nil ? nil : request.tokenField.rawValue
        answer.rateLimit = RateLimitStatus.parse(headers)
        if headers[ModelAnswer.scriptedHeader] == "true" { answer.scripted = true }
        return answer
    }

    /// One POST of a chat-completions body with `headers` added; the whole answer, read within
    /// the timeout.
    private func post(_ body: Data, headers extra: [(String, String)]) async throws -> (Int, [String: String], Data) {
        let answer = try await HTTPTransport.post(
            body, to: chatCompletionsURL, headers: extra, httpClient: httpClient, timeout: timeout, limit: maxBodyBytes,
            redactor: redactor, setting: urlSetting,
            tooLarge: "a chat completion is a few KB. Is \(urlSetting) a chat-completions endpoint?")
        return (answer.status, answer.headers, answer.body)
    }

    /// Sends a body through the signed proxy (``ProxySession/sendSigned(_:to:send:)``).
    private func postSigned(_ body: Data, session: ProxySession) async throws -> (Int, [String: String], Data) {
        let answer = try await session.sendSigned(body, to: chatCompletionsURL) { headers in
            let (status, fields, data) = try await post(body, headers: headers)
            return HTTPAnswer(status: status, headers: fields, body: data)
        }
        return (answer.status, answer.headers, answer.body)
    }

    /// Where the base URL came from, for advice, when no setting named it (the default
    /// endpoint); `nil` names `--base-url`.
    package var urlSource: String? = nil

    /// The flag that set the URL, for advice.
    var urlSetting: String {
        switch authorization {
        case .signed: return "--proxy"
        case .azure: return azure?.endpointSource ?? "--azure-endpoint"
        case .bearer: return urlSource ?? "--base-url"
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

    /// Whether the server rejected `response_format` for this model.
    func rejectsResponseFormat(model: String) -> Bool {
        rejected.contains("\(model)\u{0}response_format")
    }

    func rejectResponseFormat(model: String) {
        rejected.insert("\(model)\u{0}response_format")
    }
}

extension TokenField {
    /// The field to try when a server rejects this one.
    var other: TokenField { self == .maxTokens ? .maxCompletionTokens : .maxTokens }
}
