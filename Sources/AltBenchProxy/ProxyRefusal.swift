import AltBenchCore
import Foundation

/// An answer the proxy gives itself instead of forwarding: an OpenAI-shaped error
/// `{"error":{"message","type","code"}}` so that any OpenAI client classifies it.
///
/// Messages say what to fix. They never contain a key, a token, a signature or a header value
/// the client sent: whatever a caller sent is described, not echoed.
struct ProxyRefusal: Error, Sendable {
    var status: Int
    var code: String
    var message: String
    /// Seconds until a retry can succeed (`Retry-After`), for 429s.
    var retryAfter: Int?
    /// The proxy's clock in Unix seconds, for `stale_timestamp` (`error.server_time`).
    var serverTime: Int64?

    init(_ status: Int, _ code: String, _ message: String, retryAfter: Int? = nil, serverTime: Int64? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.serverTime = serverTime
    }

    init(
        _ status: Int, _ code: SignedProxyConventions.ErrorCode, _ message: String, retryAfter: Int? = nil,
        serverTime: Int64? = nil
    ) {
        self.init(status, code.rawValue, message, retryAfter: retryAfter, serverTime: serverTime)
    }

    /// OpenAI's `error.type` family for the status.
    var type: String {
        switch status {
        case 401: "authentication_error"
        case 403: "permission_error"
        case 429: "rate_limit_error"
        case 502, 504: "upstream_error"
        default: "invalid_request_error"
        }
    }

    /// The error body, fields in a fixed order.
    var body: String {
        var fields = [
            "\"message\":\(JSONValue.quoted(message))",
            "\"type\":\(JSONValue.quoted(type))",
            "\"code\":\(JSONValue.quoted(code))",
        ]
        if let serverTime { fields.append("\"server_time\":\(serverTime)") }
        return "{\"error\":{\(fields.joined(separator: ","))}}"
    }
}

/// The proxy's own codes beyond ``SignedProxyConventions/ErrorCode`` (which client and proxy share).
enum ProxyCode {
    /// 400: a token request whose body is not `{"nonce": "<32 lowercase hex>"}`, or a query
    /// that cannot be forwarded.
    static let invalidRequest = "invalid_request"
    /// 403: with `--max-tokens-cap`, a chat request naming no token limit, or one that (times
    /// `n`) is over the cap.
    static let maxTokensNotAllowed = "max_tokens_not_allowed"
    /// 502: the upstream could not be reached or its answer could not be read.
    static let upstreamUnreachable = "upstream_unreachable"
    /// 502: the upstream answered with more than the answer cap.
    static let upstreamResponseTooLarge = "upstream_response_too_large"
    /// 504: the upstream did not answer within the upstream timeout.
    static let upstreamTimeout = "upstream_timeout"
    /// 404: no image is kept under the name asked for (never kept, expired, evicted, or not a
    /// name the proxy gives).
    static let notFound = "not_found"
    /// 502: a `/dalle` answer's `b64_json` is not a PNG, JPEG or WEBP image.
    static let upstreamNotAnImage = "upstream_not_an_image"
    /// 502: a successful `/dalle` answer holds neither `data[0].url` nor `data[0].b64_json`
    /// (or is not JSON, or its base64 does not decode).
    static let upstreamInvalidAnswer = "upstream_invalid_answer"
}
