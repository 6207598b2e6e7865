import Foundation

/// A model's answer to one request, with what the response said about it.
public struct ModelAnswer: Sendable, Hashable, Codable {
    /// `choices[0].message.content`, as sent (not trimmed); `nil` when absent or null.
    public var content: String?
    /// `choices[0].message.refusal`.
    public var refusal: String?
    public var finishReason: String?
    /// The model the server says answered (may differ from the one asked for).
    public var responseModel: String?
    public var responseID: String?
    /// `x-request-id` (Azure: `apim-request-id`), for support tickets.
    public var requestID: String?
    public var systemFingerprint: String?
    public var promptTokens: Int?
    public var completionTokens: Int?
    public var totalTokens: Int?
    public var reasoningTokens: Int?
    /// `usage.prompt_tokens_details.cached_tokens`: prompt tokens served from the provider's
    /// prompt cache (billed at the cached-input price).
    public var cachedTokens: Int? = nil
    /// `usage.prompt_tokens_details.image_tokens`: the image's share of the prompt tokens, where
    /// the server reports it.
    public var imageTokens: Int? = nil
    /// Wall time of the request that produced this answer, in milliseconds.
    public var latencyMs: Double
    /// The token-limit field actually sent (it can differ from the plan after a fallback).
    public var tokenField: String?
    /// The response body, secrets removed, for debugging.
    public var rawBody: String?
    /// What the response's `x-ratelimit-*` headers said; not stored, only steers the pace of
    /// the run.
    public var rateLimit: RateLimitStatus?
    /// Whether a test server marked the answer as scripted (``scriptedHeader``): it is stored
    /// apart from the cache unless the run asks otherwise. Not stored.
    public var scripted: Bool? = nil

    /// The response header `altbench-test-server --script` sets on the answers its rules chose.
    public static let scriptedHeader = "x-altbench-scripted"

    public init(
        content: String?, refusal: String? = nil, finishReason: String? = nil, responseModel: String? = nil,
        responseID: String? = nil, requestID: String? = nil, systemFingerprint: String? = nil,
        promptTokens: Int? = nil, completionTokens: Int? = nil, totalTokens: Int? = nil,
        reasoningTokens: Int? = nil, latencyMs: Double = 0, tokenField: String? = nil, rawBody: String? = nil,
        rateLimit: RateLimitStatus? = nil, cachedTokens: Int? = nil, imageTokens: Int? = nil
    ) {
        self.content = content
        self.refusal = refusal
        self.finishReason = finishReason
        self.responseModel = responseModel
        self.responseID = responseID
        self.requestID = requestID
        self.systemFingerprint = systemFingerprint
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.totalTokens = totalTokens
        self.reasoningTokens = reasoningTokens
        self.latencyMs = latencyMs
        self.tokenField = tokenField
        self.rawBody = rawBody
        self.rateLimit = rateLimit
        self.cachedTokens = cachedTokens
        self.imageTokens = imageTokens
    }

    /// What the scorers judge.
    public func scoringInput(
        _ settings: ScoringSettings, item: ScoringItem = ScoringItem(), corpus: ReferenceCorpus? = nil
    ) -> ScoringInput {
        ScoringInput(
            content: content, refusal: refusal, finishReason: finishReason, settings: settings, item: item,
            corpus: corpus)
    }
}

/// Why a request got no answer.
public struct ModelFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The server answered with an HTTP error status.
        case http
        /// No HTTP answer: connection refused, reset, DNS, TLS (``ModelFailure/cannotConnect``
        /// tells a connection never opened from one lost on the way).
        case transport
        /// No answer within the timeout.
        case timeout
        /// A 2xx answer that is not a chat completion.
        case malformed
        /// The image could not be read or sent.
        case image
        /// `--offline`: the store has no answer for the trial, and no request may be sent.
        case notStored = "not_stored"
    }

    /// What a failure means for the trial and for the run.
    public enum Severity: String, Sendable, Hashable {
        /// Asking again may help: connection errors, timeouts, 408, 409, 429 rate limits, 5xx.
        case retryable
        /// This trial cannot succeed (400, 422: e.g. an image the model rejects); the others can.
        case itemFatal = "item"
        /// The whole run is misconfigured (401, 403, 404, no quota, a request too large for the
        /// rate limit): the run stops rather than record the same failure for every trial.
        case runFatal = "run"
    }

    public var kind: Kind
    /// HTTP status, when there was one.
    public var status: Int?
    /// What went wrong, secrets removed.
    public var message: String
    /// `error.code` (string or integer, kept as text), `error.type`, `error.param`.
    public var code: String?
    public var type: String?
    public var param: String?
    public var requestID: String?
    /// Whether trying again may help.
    public var retryable: Bool
    /// How long the server asked the client to wait, when it said.
    public var retryAfter: Duration?
    /// Whether the whole run is misconfigured (bad key, no access, unknown model or path,
    /// no quota): the run stops at once rather than recording the same failure for every trial.
    public var stopsRun: Bool
    /// The server's `x-ratelimit-*` headers on the error answer.
    public var rateLimit: RateLimitStatus?
    /// Whether the request never reached the server because no connection could be opened
    /// (refused, unknown host, connect timeout, unreachable network, failed TLS handshake).
    /// Retryable on its own; the runner stops the run when every request so far failed this
    /// way (``Runner/connectFailureLimit(concurrency:)``).
    public var cannotConnect: Bool

    public init(
        kind: Kind, status: Int? = nil, message: String, code: String? = nil, type: String? = nil,
        param: String? = nil, requestID: String? = nil, retryable: Bool, retryAfter: Duration? = nil,
        stopsRun: Bool = false, rateLimit: RateLimitStatus? = nil, cannotConnect: Bool = false
    ) {
        self.kind = kind
        self.status = status
        self.message = message
        self.code = code
        self.type = type
        self.param = param
        self.requestID = requestID
        self.retryable = retryable
        self.retryAfter = retryAfter
        self.stopsRun = stopsRun
        self.rateLimit = rateLimit
        self.cannotConnect = cannotConnect
    }

    public var description: String { message }

    public var severity: Severity {
        if stopsRun { return .runFatal }
        return retryable ? .retryable : .itemFatal
    }

    /// A 429 the client may retry after a pause: the signal to slow the whole run down.
    public var isRateLimit: Bool { status == 429 && retryable && !stopsRun }
}

/// Anything that answers a vision request: the OpenAI-compatible client, the mock, a test fake.
public protocol VisionModel: Sendable {
    /// The endpoint's identity in cache keys (a URL, or "mock").
    var endpoint: String { get }
    /// Sends one request once (the runner retries). Throws `ModelFailure`.
    func complete(_ request: ModelRequest) async throws -> ModelAnswer
}

/// What a response's `x-ratelimit-*` headers say about the server's limits: the bucket size,
/// what is left of it, and how long until it is full again.
public struct RateLimitStatus: Sendable, Hashable, Codable {
    public var limitRequests: Int?
    public var remainingRequests: Int?
    public var resetRequests: Duration?
    public var limitTokens: Int?
    public var remainingTokens: Int?
    public var resetTokens: Duration?

    public init(
        limitRequests: Int? = nil, remainingRequests: Int? = nil, resetRequests: Duration? = nil,
        limitTokens: Int? = nil, remainingTokens: Int? = nil, resetTokens: Duration? = nil
    ) {
        self.limitRequests = limitRequests
        self.remainingRequests = remainingRequests
        self.resetRequests = resetRequests
        self.limitTokens = limitTokens
        self.remainingTokens = remainingTokens
        self.resetTokens = resetTokens
    }

    /// Whether the headers said anything at all.
    public var isEmpty: Bool { self == RateLimitStatus() }
}
