import AltBenchCore
import Foundation

/// The answer the test server sends to one request.
public struct ScriptedResponse: Sendable {
    public var status: Int
    /// Header fields to send, in order. The server adds content-length itself.
    public var headers: [(name: String, value: String)]
    public var body: Data
    /// Time to wait before answering (slow servers, client timeouts).
    public var delay: Duration?
    /// Time to wait after sending the head and the first half of the body, before the rest:
    /// a server that stalls mid-answer, which a client deadline on the head alone misses.
    public var bodyStall: Duration?

    public init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: Data = Data(),
        delay: Duration? = nil,
        bodyStall: Duration? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.bodyStall = bodyStall
    }

    /// The first value of header `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// A copy answered only after `delay`.
    public func delayed(by delay: Duration) -> ScriptedResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// A copy that sends its head and half its body, then waits `stall` before the rest.
    public func stallingMidBody(for stall: Duration) -> ScriptedResponse {
        var copy = self
        copy.bodyStall = stall
        return copy
    }

    /// A copy with extra header fields appended.
    public func adding(headers extra: [(String, String)]) -> ScriptedResponse {
        var copy = self
        copy.headers += extra.map { (name: $0.0, value: $0.1) }
        return copy
    }

    // MARK: Conveniences

    /// A JSON body given as text (sent as is, so it may be deliberately odd).
    public static func json(status: Int = 200, _ text: String, headers: [(String, String)] = []) -> ScriptedResponse {
        ScriptedResponse(
            status: status,
            headers: [(name: "content-type", value: "application/json")] + headers.map { (name: $0.0, value: $0.1) },
            body: Data(text.utf8)
        )
    }

    /// A JSON body built from a value.
    public static func json(status: Int = 200, value: JSONValue, headers: [(String, String)] = []) -> ScriptedResponse {
        json(status: status, value.canonicalText, headers: headers)
    }

    /// A `chat.completion` with one choice. `usage` is omitted when both token counts are nil.
    public static func chatCompletion(
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
    public static func error(
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
    public static func html(
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
    public static func raw(
        status: Int = 200,
        body: Data,
        contentType: String? = "application/json",
        headers: [(String, String)] = []
    ) -> ScriptedResponse {
        let typeHeader = contentType.map { [(name: "content-type", value: $0)] } ?? []
        return ScriptedResponse(status: status, headers: typeHeader + headers.map { (name: $0.0, value: $0.1) }, body: body)
    }

    /// Arbitrary text, e.g. truncated or malformed JSON. `contentType` nil sends no content-type.
    public static func raw(
        status: Int = 200,
        body: String,
        contentType: String? = "application/json",
        headers: [(String, String)] = []
    ) -> ScriptedResponse {
        raw(status: status, body: Data(body.utf8), contentType: contentType, headers: headers)
    }

    /// A stored OpenAI example body (see `OpenAIFixtures`), e.g. `.fixture("09_429_insufficient_quota", status: 429)`.
    public static func fixture(_ name: String, status: Int = 200, headers: [(String, String)] = []) -> ScriptedResponse {
        let contentType = OpenAIFixtures.fileName(for: name).hasSuffix(".sse") ? "text/event-stream" : "application/json"
        return raw(status: status, body: OpenAIFixtures.body(name), contentType: contentType, headers: headers)
    }
}
