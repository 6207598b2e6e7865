import Foundation

/// When and how long to wait before trying a failed request again.
///
/// Only retryable failures are retried (connection errors, timeouts, 408, 409, 429 rate
/// limits, 5xx, or whatever `x-should-retry` says), at most `maxRetries` times. The wait is
/// the server's own when it gave one (`retry-after-ms`, `Retry-After`, the
/// `x-ratelimit-reset-*` durations of a 429), else exponential backoff from `initialDelay`,
/// doubling, less up to 25% random jitter as the OpenAI SDKs do; every wait is capped at
/// `maxDelay`.
package struct RetryPolicy: Sendable, Hashable {
    /// The default number of retries (after the first attempt).
    package static let defaultMaxRetries = 4

    package var maxRetries: Int
    package var initialDelay: Duration
    /// The longest wait, whether the server asked for more or backoff grew past it.
    package var maxDelay: Duration
    /// Whether to subtract random jitter from backoff; off in tests for exact waits.
    package var jitter: Bool

    package init(
        maxRetries: Int = RetryPolicy.defaultMaxRetries, initialDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(60), jitter: Bool = true
    ) {
        self.maxRetries = max(0, maxRetries)
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
    }

    /// The wait before retry number `retry` (0-based) after `failure`, or `nil` to give up.
    package func delay(afterFailure failure: ModelFailure, retry: Int) -> Duration? {
        guard failure.severity == .retryable, retry < maxRetries else { return nil }
        if let asked = failure.retryAfter {
            return min(max(asked, .zero), maxDelay)
        }
        return backoff(retry: retry)
    }

    /// Exponential backoff for retry number `retry` (0-based), with jitter when enabled.
    package func backoff(retry: Int) -> Duration {
        var wait = initialDelay * Int(pow(2.0, Double(min(max(retry, 0), 20))))
        if wait > maxDelay { wait = maxDelay }
        if jitter { wait = wait * (1 - 0.25 * Double.random(in: 0..<1)) }
        return wait
    }
}
