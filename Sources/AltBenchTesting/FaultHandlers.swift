import AltBenchCore
import Foundation

// Handlers that misbehave the way real OpenAI-compatible servers do: transient failures per
// request, fixed latency, and a token-bucket rate limiter with OpenAI's headers.

extension OpenAITestServer {
    /// Answers the n-th arrival of each distinct request body (0-based) with `responses[n]`,
    /// and later arrivals with `fallback`. `[.html(status: 503)]` gives "503, then success"
    /// for every request, whatever the concurrency and arrival order. Use `RequestSequences`
    /// directly to read how often each body was seen.
    package static func sequencePerRequest(
        _ responses: [ScriptedResponse],
        then fallback: @escaping Handler = OpenAITestServer.compatible()
    ) -> Handler {
        RequestSequences(responses, then: fallback).handler
    }

    /// `handler` with `delay` added to every answer. The wait happens in the server's
    /// responder (`ScriptedResponse.delay`), so `stop()` cancels it.
    package static func withLatency(_ delay: Duration, _ handler: @escaping Handler) -> Handler {
        { request in
            var answer = await handler(request)
            answer.delay = (answer.delay ?? .zero) + delay
            return answer
        }
    }

    /// Answers every request, whatever its path or body, with the same valid `chat.completion`
    /// (plus `x-request-id: req_test_N`). The body is never parsed, so a benchmark measures
    /// the client rather than the server's validation of large image bodies.
    package static func fixedCompletion(
        content: String = "A short test description.",
        model: String = "gpt-4o-mini"
    ) -> Handler {
        let answer = ScriptedResponse.chatCompletion(content: content, model: model)
        return { request in answer.adding(headers: [("x-request-id", "req_test_\(request.number)")]) }
    }

    /// A duration as OpenAI writes it in `x-ratelimit-reset-*` headers and rate-limit messages
    /// (Go's duration format at millisecond precision, rounded up so a client never retries
    /// early): "0s", "120ms", "1s", "1.5s", "59.999s", "6m0s", "1m30.5s", "1h0m0s".
    package static func rateLimitDurationText(_ duration: Duration) -> String {
        let milliseconds = ceilMilliseconds(duration)
        if milliseconds == 0 { return "0s" }
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let secondMilliseconds = milliseconds % 60_000
        var seconds = String(secondMilliseconds / 1000)
        let fraction = secondMilliseconds % 1000
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: 3 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            seconds += "." + digits
        }
        if hours > 0 { return "\(hours)h\(minutes)m\(seconds)s" }
        if minutes > 0 { return "\(minutes)m\(seconds)s" }
        return "\(seconds)s"
    }

    /// Whole milliseconds in `duration`, rounded up; 0 for zero or negative durations.
    static func ceilMilliseconds(_ duration: Duration) -> Int64 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let partial = attoseconds % perMillisecond == 0 ? 0 : 1
        return seconds * 1000 + attoseconds / perMillisecond + Int64(partial)
    }
}

// MARK: Per-request sequences

/// Scripted answers per distinct request body: the n-th arrival (0-based) of a body gets
/// `responses[n]`, later arrivals the fallback. Bodies are told apart by the SHA-256 of their
/// bytes, so a client's retry of the same request advances that request's sequence only.
///
/// ```swift
/// let sequences = RequestSequences([.html(status: 503)])
/// let server = try await OpenAITestServer.start(handler: sequences.handler)
/// // ... every distinct request gets 503 first, then the compatible answer
/// #expect(await sequences.counts.values.allSatisfy { $0 == 2 })
/// ```
package actor RequestSequences {
    private let responses: [ScriptedResponse]
    private let fallback: OpenAITestServer.Handler
    private var seen: [String: Int] = [:]

    package init(
        _ responses: [ScriptedResponse],
        then fallback: @escaping OpenAITestServer.Handler = OpenAITestServer.compatible()
    ) {
        self.responses = responses
        self.fallback = fallback
    }

    /// Arrivals so far per body, keyed by `key(for:)`.
    package var counts: [String: Int] { seen }

    /// Arrivals so far of `body`.
    package func count(for body: Data) -> Int {
        seen[Self.key(for: body), default: 0]
    }

    /// The key of `body` in `counts`: the lowercase hex SHA-256 of its bytes.
    package static func key(for body: Data) -> String {
        Hashing.sha256Hex(body)
    }

    /// The answer to `request`, counting its arrival.
    package func respond(to request: RecordedRequest) async -> ScriptedResponse {
        let key = Self.key(for: request.body)
        let index = seen[key, default: 0]
        seen[key] = index + 1
        if index < responses.count { return responses[index] }
        return await fallback(request)
    }

    /// These sequences as a server handler.
    package nonisolated var handler: OpenAITestServer.Handler {
        { request in await self.respond(to: request) }
    }
}

/// Counters of a `TokenBucketServerLimiter`.
package struct RateLimitStats: Sendable, Equatable {
    /// Requests seen.
    package var requests = 0
    /// 429s the limiter sent itself.
    package var rateLimited = 0
    /// Requests passed on to the wrapped handler.
    package var admitted = 0
    /// Admitted requests whose answer had a 2xx status.
    package var succeeded = 0

    package init(requests: Int = 0, rateLimited: Int = 0, admitted: Int = 0, succeeded: Int = 0) {
        self.requests = requests
        self.rateLimited = rateLimited
        self.admitted = admitted
        self.succeeded = succeeded
    }
}

/// A rate limiter in front of another handler, behaving like OpenAI's: a bucket of `burst`
/// request tokens refilled continuously at `requestsPerSecond` (wall clock). Each request
/// takes one token; without one it gets a 429 `rate_limit_exceeded` of type "requests" with
/// `retry-after-ms` (time until a token is available, rounded up), `retry-after` (the same in
/// whole seconds, rounded up, at least 1) and the `x-ratelimit-*-requests` headers. Admitted
/// answers carry `x-ratelimit-limit-requests` (`burst`), `x-ratelimit-remaining-requests`
/// (tokens left after this request, floored) and `x-ratelimit-reset-requests` (time until
/// the bucket is full, see `OpenAITestServer.rateLimitDurationText`).
///
/// With `tokensPerMinute`, a second bucket of that capacity refills at `tokensPerMinute / 60`
/// per second, with the matching `-tokens` headers and 429s of type "tokens". A request
/// costs `tokenCost(request)` tokens, by default `estimatedTokens` (body bytes / 4, so a
/// base64 image counts by its size, not by OpenAI's tile price). A request costing more than
/// the whole bucket gets OpenAI's "Request too large" 429 (no wait hint: waiting cannot help).
/// A request is admitted only when both buckets can pay; a rejected one takes nothing.
///
/// With `announcing: .perMinute` the request headers describe a bucket other than the one
/// enforced, the way OpenAI's quantized limits, proxies and Azure deployments do: they announce
/// a per-minute window of `60 × requestsPerSecond` (`x-ratelimit-limit-requests`), refilled at
/// `requestsPerSecond`, with `-remaining-` and `-reset-requests` counting the admitted requests
/// against that window, while the bucket that decides is still `burst` at `requestsPerSecond`.
/// So a client that believes the headers sees room for hundreds of requests and gets 429s
/// after `burst`. With `.quantized` the headers say a per-minute limit but the enforced
/// bucket's `remaining` and time until full; with `.none` they say nothing, and 429s name no
/// wait. The 429s' `retry-after-ms` and `retry-after` stay truthful (the wait for the
/// enforced bucket); their message and `x-ratelimit-*` headers quote the announced window.
///
/// ```swift
/// let limiter = TokenBucketServerLimiter(requestsPerSecond: 1, burst: 5)
/// let server = try await OpenAITestServer.start(handler: limiter.handler)
/// // ...
/// let stats = await limiter.stats
/// ```
package actor TokenBucketServerLimiter {
    /// What the `x-ratelimit-*-requests` headers describe.
    package enum Announcement: Sendable, Hashable {
        /// The bucket that is enforced: `burst` at `requestsPerSecond`.
        case bucket
        /// A per-minute window of `60 × requestsPerSecond`, refilled at `requestsPerSecond`,
        /// which overstates the burst that is enforced.
        case perMinute
        /// A per-minute limit (`60 × requestsPerSecond`) beside the enforced bucket's own
        /// `remaining` and time until full, the way a quantized limit reports itself: the limit
        /// and the rest describe different buckets, so the rate they imply is far too high.
        case quantized
        /// No `x-ratelimit-*` headers at all, and 429s without `retry-after` or
        /// `retry-after-ms`: the client learns the limit from the 429s alone.
        case none
    }

    package nonisolated let requestsPerSecond: Double
    package nonisolated let burst: Int
    package nonisolated let tokensPerMinute: Int?
    /// The model named in 429 messages.
    package nonisolated let model: String
    package nonisolated let announcement: Announcement

    private var requestBucket: TokenBucket
    /// The window the request headers describe under `.perMinute`.
    private var announcedBucket: TokenBucket?
    private var tokenBucket: TokenBucket?
    private let tokenCost: @Sendable (RecordedRequest) -> Int
    private let wrapped: OpenAITestServer.Handler
    private var counters = RateLimitStats()
    /// The time the buckets refill by: the real clock, or a fixed instant in tests that count
    /// what a burst admits (no refill between requests, however slow the machine).
    private let now: @Sendable () -> ContinuousClock.Instant
    /// The instant the buckets' times count from.
    private let origin: ContinuousClock.Instant

    package init(
        requestsPerSecond: Double,
        burst: Int,
        tokensPerMinute: Int? = nil,
        tokenCost: @escaping @Sendable (RecordedRequest) -> Int = TokenBucketServerLimiter.estimatedTokens,
        model: String = "gpt-4o-mini",
        announcing announcement: Announcement = .bucket,
        wrapping handler: @escaping OpenAITestServer.Handler = OpenAITestServer.compatible(),
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        precondition(requestsPerSecond > 0 && requestsPerSecond.isFinite, "requestsPerSecond must be positive")
        precondition(burst >= 1, "burst must be at least 1")
        precondition(tokensPerMinute.map { $0 >= 1 } ?? true, "tokensPerMinute must be at least 1")
        let origin = clock()
        let now = Duration.zero
        self.now = clock
        self.origin = origin
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
        self.tokensPerMinute = tokensPerMinute
        self.model = model
        self.announcement = announcement
        self.requestBucket = TokenBucket(capacity: Double(burst), perSecond: requestsPerSecond, now: now)
        if announcement == .perMinute {
            self.announcedBucket = TokenBucket(
                capacity: Self.announcedLimit(requestsPerSecond: requestsPerSecond), perSecond: requestsPerSecond,
                now: now)
        }
        self.tokenBucket = tokensPerMinute.map {
            TokenBucket(capacity: Double($0), perSecond: Double($0) / 60, now: now)
        }
        self.tokenCost = tokenCost
        self.wrapped = handler
    }

    /// The per-minute limit `.perMinute` announces: 60 × `requestsPerSecond`, rounded, at least 1.
    package static func announcedLimit(requestsPerSecond: Double) -> Double {
        max(1, (60 * requestsPerSecond).rounded())
    }

    /// A rough token count for a request: its body bytes / 4, rounded up, at least 1.
    package static func estimatedTokens(_ request: RecordedRequest) -> Int {
        max(1, (request.body.count + 3) / 4)
    }

    /// Counters so far.
    package var stats: RateLimitStats { counters }

    /// This limiter as a server handler.
    package nonisolated var handler: OpenAITestServer.Handler {
        { request in await self.respond(to: request) }
    }

    /// The limiter's 429, or the wrapped handler's answer with the rate-limit headers added.
    /// Downloads of generated images (`GET /generated/…`) pass uncounted: OpenAI serves image
    /// URLs from storage, outside the API's rate limits.
    package func respond(to request: RecordedRequest) async -> ScriptedResponse {
        if case .download = CompatibleHandler.Route(request) { return await wrapped(request) }
        let now = self.now() - origin
        counters.requests += 1
        let cost = tokenBucket == nil ? 0 : tokenCost(request)

        if let tokenBucket, Double(cost) > tokenBucket.capacity {
            counters.rateLimited += 1
            let message = "Request too large for \(model) in organization org-test on tokens per min (TPM): "
                + "Limit \(Int(tokenBucket.capacity)), Requested \(cost). The input or output tokens must be "
                + "reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits "
                + "to learn more."
            return .error(
                status: 429, message: message, type: "tokens", code: "rate_limit_exceeded", headers: limitHeaders(at: now))
        }

        let requestWait = requestBucket.wait(for: 1, at: now) ?? .zero
        let tokenWait = tokenBucket?.wait(for: Double(cost), at: now) ?? .zero
        guard requestWait == .zero && tokenWait == .zero else {
            counters.rateLimited += 1
            let wait = max(requestWait, tokenWait)
            let message: String
            if requestWait > .zero {
                let (limit, left) = announcedRequests(at: now)
                message = ScriptedResponse.rateLimitMessage(
                    model: model, resource: .requests, limit: limit, used: limit - left, requested: 1,
                    wait: OpenAITestServer.rateLimitDurationText(requestWait))
            } else {
                let capacity = Int(tokenBucket?.capacity ?? 0)
                let left = Int((tokenBucket?.available(at: now) ?? 0).rounded(.down))
                message = ScriptedResponse.rateLimitMessage(
                    model: model, resource: .tokens, limit: capacity, used: capacity - left, requested: cost,
                    wait: OpenAITestServer.rateLimitDurationText(tokenWait))
            }
            let milliseconds = OpenAITestServer.ceilMilliseconds(wait)
            let seconds = max(1, (milliseconds + 999) / 1000)
            let headers =
                announcement == .none
                ? [] : [("retry-after-ms", String(milliseconds)), ("retry-after", String(seconds))] + limitHeaders(at: now)
            return .error(
                status: 429, message: message, type: requestWait > .zero ? "requests" : "tokens",
                code: "rate_limit_exceeded", headers: headers)
        }

        requestBucket.take(1, at: now)
        announcedBucket?.take(1, at: now)
        tokenBucket?.take(Double(cost), at: now)
        counters.admitted += 1
        let headers = limitHeaders(at: now)
        var answer = await wrapped(request)
        if (200..<300).contains(answer.status) { counters.succeeded += 1 }
        let names = Set(headers.map { $0.0 })
        answer.headers.removeAll { names.contains($0.name.lowercased()) }
        return answer.adding(headers: headers)
    }

    /// The request limit and what is left of it, as the headers announce them.
    private func announcedRequests(at now: Duration) -> (limit: Int, left: Int) {
        let bucket = announcedBucket ?? requestBucket
        let left = Int(bucket.available(at: now).rounded(.down))
        if announcement == .quantized {
            return (Int(Self.announcedLimit(requestsPerSecond: requestsPerSecond)), left)
        }
        return (Int(bucket.capacity), left)
    }

    /// Time from `now` until `bucket` is full again.
    private func timeUntilFull(_ bucket: TokenBucket, at now: Duration) -> Duration {
        bucket.wait(for: bucket.capacity, at: now) ?? .zero
    }

    /// `x-ratelimit-limit-*`, `-remaining-*` and `-reset-*` for the buckets' current state (for
    /// requests under `.perMinute`, the announced window's).
    private func limitHeaders(at now: Duration) -> [(String, String)] {
        if announcement == .none { return [] }
        let (limit, left) = announcedRequests(at: now)
        var headers = [
            ("x-ratelimit-limit-requests", String(limit)),
            ("x-ratelimit-remaining-requests", String(left)),
            (
                "x-ratelimit-reset-requests",
                OpenAITestServer.rateLimitDurationText(timeUntilFull(announcedBucket ?? requestBucket, at: now))
            ),
        ]
        if let tokenBucket {
            headers += [
                ("x-ratelimit-limit-tokens", String(Int(tokenBucket.capacity))),
                ("x-ratelimit-remaining-tokens", String(Int(tokenBucket.available(at: now).rounded(.down)))),
                ("x-ratelimit-reset-tokens", OpenAITestServer.rateLimitDurationText(timeUntilFull(tokenBucket, at: now))),
            ]
        }
        return headers
    }
}
