import AltBenchCore
import Foundation

/// The answer the test server sends to one request.
package struct ScriptedResponse: Sendable {
    package var status: Int
    /// Header fields to send, in order. The server adds content-length itself.
    package var headers: [(name: String, value: String)]
    package var body: Data
    /// Time to wait before answering (slow servers, client timeouts).
    package var delay: Duration?
    /// Time to wait after sending the head and the first half of the body, before the rest:
    /// a server that stalls mid-answer, which a client deadline on the head alone misses.
    package var bodyStall: Duration?
    /// Close the connection after the head and the first half of the body (after `bodyStall`,
    /// if set). The head declares the whole body's length, so the client sees the connection
    /// end mid-body: a reset or crashed upstream, which must fail the body read. On the wire
    /// the half body is followed by an orderly close (FIN), not a reset; AsyncHTTPClient
    /// reports it from the body stream as NIOHTTP1's `HTTPParserError.invalidEOFState`.
    package var closesConnectionMidBody: Bool

    package init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: Data = Data(),
        delay: Duration? = nil,
        bodyStall: Duration? = nil,
        closesConnectionMidBody: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.bodyStall = bodyStall
        self.closesConnectionMidBody = closesConnectionMidBody
    }

    /// The first value of header `name`, compared case-insensitively.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// A copy answered only after `delay`.
    package func delayed(by delay: Duration) -> ScriptedResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// A copy that sends its head and half its body, then waits `stall` before the rest.
    package func stallingMidBody(for stall: Duration) -> ScriptedResponse {
        var copy = self
        copy.bodyStall = stall
        return copy
    }

    /// A copy that sends its head (with the whole body's content-length) and half its body,
    /// then closes the connection: the client's body read must fail.
    package func closingConnectionMidBody() -> ScriptedResponse {
        var copy = self
        copy.closesConnectionMidBody = true
        return copy
    }

    /// A copy with extra header fields appended.
    package func adding(headers extra: [(String, String)]) -> ScriptedResponse {
        var copy = self
        copy.headers += extra.map { (name: $0.0, value: $0.1) }
        return copy
    }

    // MARK: Conveniences

    /// A JSON body given as text (sent as is, so it may be deliberately odd).
    package static func json(status: Int = 200, _ text: String, headers: [(String, String)] = []) -> ScriptedResponse {
        ScriptedResponse(
            status: status,
            headers: [(name: "content-type", value: "application/json")] + headers.map { (name: $0.0, value: $0.1) },
            body: Data(text.utf8)
        )
    }

    /// A JSON body built from a value.
    package static func json(status: Int = 200, value: JSONValue, headers: [(String, String)] = []) -> ScriptedResponse {
        json(status: status, value.canonicalText, headers: headers)
    }

    /// A `chat.completion` with one choice. `usage` is omitted when both token counts are nil.
    package static func chatCompletion(
        content: String?,
        finishReason: String = "stop",
        refusal: String? = nil,
        promptTokens: Int? = 10,
        completionTokens: Int? = 5,
        model: String = "test-model",
        id: String = "chatcmpl-test",
        headers: [(String, String)] = []
    ) -> ScriptedResponse {
        var object: [String: JSONValue] = [
            "id": .string(id),
            "object": "chat.completion",
            "created": .int(OpenAITestServer.fixedCreated),
            "model": .string(model),
            "choices": [
                [
                    "index": 0,
                    "message": [
                        "role": "assistant",
                        "content": content.map(JSONValue.string) ?? .null,
                        "refusal": refusal.map(JSONValue.string) ?? .null,
                        "annotations": [],
                    ],
                    "logprobs": .null,
                    "finish_reason": .string(finishReason),
                ]
            ],
        ]
        if promptTokens != nil || completionTokens != nil {
            let prompt = promptTokens ?? 0
            let completion = completionTokens ?? 0
            object["usage"] = [
                "prompt_tokens": .int(prompt),
                "completion_tokens": .int(completion),
                "total_tokens": .int(prompt + completion),
            ]
        }
        return json(value: .object(object), headers: headers)
    }

    /// An OpenAI-shaped error: `{"error":{"message","type","param","code"}}`.
    package static func error(
        status: Int,
        message: String,
        type: String = "invalid_request_error",
        code: String? = nil,
        param: String? = nil,
        headers: [(String, String)] = []
    ) -> ScriptedResponse {
        json(status: status, value: errorBody(message: message, type: type, param: param, code: code), headers: headers)
    }

    static func errorBody(message: String, type: String, param: String?, code: String?) -> JSONValue {
        [
            "error": [
                "message": .string(message),
                "type": .string(type),
                "param": param.map(JSONValue.string) ?? .null,
                "code": code.map(JSONValue.string) ?? .null,
            ]
        ]
    }

    /// An HTML page, as proxies and load balancers send for 5xx answers.
    package static func html(
        status: Int = 500,
        body: String = "<html><head><title>500 Internal Server Error</title></head><body><h1>Internal Server Error</h1></body></html>",
        headers: [(String, String)] = []
    ) -> ScriptedResponse {
        ScriptedResponse(
            status: status,
            headers: [(name: "content-type", value: "text/html; charset=utf-8")] + headers.map { (name: $0.0, value: $0.1) },
            body: Data(body.utf8)
        )
    }

    /// Arbitrary bytes, e.g. truncated or malformed JSON. `contentType` nil sends no content-type.
    package static func raw(
        status: Int = 200,
        body: Data,
        contentType: String? = "application/json",
        headers: [(String, String)] = []
    ) -> ScriptedResponse {
        let typeHeader = contentType.map { [(name: "content-type", value: $0)] } ?? []
        return ScriptedResponse(status: status, headers: typeHeader + headers.map { (name: $0.0, value: $0.1) }, body: body)
    }

    /// Arbitrary text, e.g. truncated or malformed JSON. `contentType` nil sends no content-type.
    package static func raw(
        status: Int = 200,
        body: String,
        contentType: String? = "application/json",
        headers: [(String, String)] = []
    ) -> ScriptedResponse {
        raw(status: status, body: Data(body.utf8), contentType: contentType, headers: headers)
    }

    /// A stored OpenAI example body (see `OpenAIFixtures`), e.g. `.fixture("09_429_insufficient_quota", status: 429)`.
    package static func fixture(_ name: String, status: Int = 200, headers: [(String, String)] = []) -> ScriptedResponse {
        let contentType = OpenAIFixtures.fileName(for: name).hasSuffix(".sse") ? "text/event-stream" : "application/json"
        return raw(status: status, body: OpenAIFixtures.body(name), contentType: contentType, headers: headers)
    }
}

// MARK: Faults

/// How a 429 tells the client when to try again. OpenAI-compatible servers differ: OpenAI
/// sends `retry-after-ms`/`retry-after` and `x-ratelimit-*` headers, proxies send an HTTP
/// date, some local servers send nothing.
package enum RateLimitHeaderStyle: Sendable, Equatable {
    /// `retry-after-ms: <ms>` only.
    case retryAfterMilliseconds(Int)
    /// `retry-after: <seconds>` only.
    case retryAfterSeconds(Int)
    /// `retry-after: <IMF-fixdate>` only, e.g. "Wed, 21 Oct 2015 07:28:00 GMT".
    case retryAfterDate(Date)
    /// No retry-after; `x-ratelimit-limit-*`, `x-ratelimit-remaining-*` and
    /// `x-ratelimit-reset-*` for requests and tokens, durations as OpenAI writes them
    /// ("120ms", "1s", "6m0s").
    case rateLimitReset(requests: String, tokens: String)
    /// No wait hint at all.
    case none

}

/// The limit a 429 `rate_limit_exceeded` reports as exhausted (its error `type`).
package enum RateLimitResource: String, Sendable {
    /// Requests per minute (RPM).
    case requests
    /// Tokens per minute (TPM).
    case tokens
}

extension ScriptedResponse {
    /// A 200 `chat.completion` whose complete HTTP body stops in the middle of its JSON
    /// (content-length matches the cut body, so only the JSON parse can notice).
    package static func truncatedJSON(content: String = "A short test description.") -> ScriptedResponse {
        var response = chatCompletion(content: content)
        response.body = response.body.prefix(response.body.count / 2)
        return response
    }

    /// A 200 labelled `application/json` whose body is not JSON.
    package static func malformedJSON(_ body: String = "{\"id\": chatcmpl-1,,}") -> ScriptedResponse {
        raw(status: 200, body: body)
    }

    /// OpenAI's 429 `rate_limit_exceeded` with the wait hint of `style`.
    /// - Parameters:
    ///   - resource: the exhausted limit, sent as the error `type` and named in the message.
    ///   - model: the model named in the message.
    ///   - limit: the limit named in the message and the `x-ratelimit-limit-*` header
    ///     (default 3 requests or 30000 tokens per minute).
    ///   - tryAgainIn: the wait named in the message; nil derives it from `style`
    ///     ("20s" when the style gives no duration).
    package static func rateLimited(
        _ style: RateLimitHeaderStyle,
        on resource: RateLimitResource = .requests,
        model: String = "gpt-4o-mini",
        limit: Int? = nil,
        tryAgainIn: String? = nil
    ) -> ScriptedResponse {
        let limit = limit ?? (resource == .requests ? 3 : 30000)
        var headers: [(String, String)] = []
        var wait = "20s"
        switch style {
        case .retryAfterMilliseconds(let milliseconds):
            headers = [("retry-after-ms", String(milliseconds))]
            wait = OpenAITestServer.rateLimitDurationText(.milliseconds(milliseconds))
        case .retryAfterSeconds(let seconds):
            headers = [("retry-after", String(seconds))]
            wait = "\(seconds)s"
        case .retryAfterDate(let date):
            headers = [("retry-after", DateText.httpDate(date))]
        case .rateLimitReset(let requests, let tokens):
            let requestsLimited = resource == .requests
            headers = [
                ("x-ratelimit-limit-requests", String(requestsLimited ? limit : 500)),
                ("x-ratelimit-limit-tokens", String(requestsLimited ? 30000 : limit)),
                ("x-ratelimit-remaining-requests", requestsLimited ? "0" : "499"),
                ("x-ratelimit-remaining-tokens", requestsLimited ? "29996" : "0"),
                ("x-ratelimit-reset-requests", requests),
                ("x-ratelimit-reset-tokens", tokens),
            ]
            wait = requestsLimited ? requests : tokens
        case .none:
            break
        }
        let message = rateLimitMessage(
            model: model, resource: resource, limit: limit,
            used: limit, requested: resource == .requests ? 1 : 850, wait: tryAgainIn ?? wait)
        return error(status: 429, message: message, type: resource.rawValue, code: "rate_limit_exceeded", headers: headers)
    }

    /// The text of OpenAI's `rate_limit_exceeded` message.
    static func rateLimitMessage(
        model: String, resource: RateLimitResource, limit: Int, used: Int, requested: Int, wait: String
    ) -> String {
        let per = resource == .requests ? "requests per min (RPM)" : "tokens per min (TPM)"
        return "Rate limit reached for \(model) in organization org-test on \(per): Limit \(limit), Used \(used), "
            + "Requested \(requested). Please try again in \(wait). "
            + "Visit https://platform.openai.com/account/rate-limits to learn more."
    }

    /// OpenAI's 429 `insufficient_quota` (fixture 09): retrying cannot help.
    package static func insufficientQuota(headers: [(String, String)] = []) -> ScriptedResponse {
        fixture("09_429_insufficient_quota", status: 429, headers: headers)
    }

    /// OpenAI's 429 "Request too large" `rate_limit_exceeded` of type `tokens` (fixture 08):
    /// the request alone exceeds the per-minute limit, so waiting cannot help.
    package static func requestTooLarge(headers: [(String, String)] = []) -> ScriptedResponse {
        fixture("08_429_rate_limit_request_too_large", status: 429, headers: headers)
    }
}
