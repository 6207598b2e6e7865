import Foundation

/// How a run goes through the Batch API (`--batch`, `batch: true`).
package struct BatchSettings: Sendable, Hashable {
    /// Each input file's limits: the provider's, lowered by `--batch-max-lines` and
    /// `--batch-max-bytes`.
    package var limits: BatchLimits
    /// How many times requests that expired unanswered go into a new batch (`--batch-retries`).
    package var retries: Int
    /// The longest wait between two looks at the batches (`--batch-poll`); the first is 2 s
    /// or less, and each next one half again as long.
    package var longestPoll: Duration

    package static let defaultRetries = 2
    package static let retriesRange = 0...10
    package static let defaultLongestPoll = Duration.seconds(60)

    package init(limits: BatchLimits, retries: Int = defaultRetries, longestPoll: Duration = defaultLongestPoll) {
        self.limits = limits
        self.retries = retries
        self.longestPoll = longestPoll
    }

    /// The settings recorded with a run, so `--resume` continues it through batches too.
    package var recorded: JSONValue {
        ["max_lines": .int(limits.maxLines), "max_bytes": .int(limits.maxBytes), "retries": .int(retries),
         "poll_seconds": .double(longestPoll.secondsValue)]
    }
}
