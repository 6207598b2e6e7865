import Foundation

/// How a run goes through the Batch API (`--batch`, `batch: true`).
public struct BatchSettings: Sendable, Hashable {
    /// Each input file's limits: the provider's, lowered by `--batch-max-lines` and
    /// `--batch-max-bytes`.
    public var limits: BatchLimits
    /// How many times requests that expired unanswered go into a new batch (`--batch-retries`).
    public var retries: Int
    /// The longest wait between two looks at the batches (`--batch-poll`); the first is 2 s
    /// or less, and each next one half again as long.
    public var longestPoll: Duration

    public static let defaultRetries = 2
    public static let retriesRange = 0...10
    public static let defaultLongestPoll = Duration.seconds(60)

    public init(limits: BatchLimits, retries: Int = defaultRetries, longestPoll: Duration = defaultLongestPoll) {
        self.limits = limits
        self.retries = retries
        self.longestPoll = longestPoll
    }

    /// The settings recorded with a run, so `--resume` continues it through batches too.
    public var recorded: JSONValue {
        ["max_lines": .int(limits.maxLines), "max_bytes": .int(limits.maxBytes), "retries": .int(retries),
         "poll_seconds": .double(longestPoll.secondsValue)]
    }
}
