import Foundation

/// When and how long to wait before trying a failed request again.
///
/// Follows the OpenAI SDKs: 2 retries by default, waits of min(0.5·2^k, 8) s less up to 25%
/// jitter, and the server's own `Retry-After` when it gives one (up to 60 s, as openai-node).
public struct RetryPolicy: Sendable, Hashable {
    public var maxRetries: Int
    public var initialDelay: Duration
    public var maxDelay: Duration
    public var maxServerDelay: Duration
    /// Whether to subtract random jitter; off in tests for exact waits.
    public var jitter: Bool

    public init(
        maxRetries: Int = 2, initialDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(8),
        maxServerDelay: Duration = .seconds(60), jitter: Bool = true
    ) {
        self.maxRetries = maxRetries
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxServerDelay = maxServerDelay
        self.jitter = jitter
    }

    /// The wait before retry number `retry` (0-based) after `failure`, or `nil` to give up.
    public func delay(afterFailure failure: ModelFailure, retry: Int) -> Duration? {
        guard failure.retryable, !failure.stopsRun, retry < maxRetries else { return nil }
        if let asked = failure.retryAfter, asked <= maxServerDelay {
            return max(asked, .zero)
        }
        var wait = initialDelay * Int(pow(2.0, Double(min(retry, 20))))
        if wait > maxDelay { wait = maxDelay }
        if jitter { wait = wait * (1 - 0.25 * Double.random(in: 0..<1)) }
        return wait
    }
}
