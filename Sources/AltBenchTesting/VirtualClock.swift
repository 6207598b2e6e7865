import AltBenchCore
import Foundation

/// A `RunClock` whose time moves only when something sleeps on it: `sleep(until:)` records
/// the wait, jumps the clock to the deadline and returns at once. Tests of retries, pauses
/// and pacing assert on the waits without spending them.
///
/// With several tasks sleeping at once the jumps interleave in arrival order, so exact
/// assertions belong to tests with one request in flight.
package final class VirtualClock: RunClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Duration = .zero
    private var recorded: [Duration] = []

    package init() {}

    package var now: Duration { lock.withLock { current } }

    package func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        lock.withLock {
            recorded.append(max(.zero, deadline - current))
            current = max(current, deadline)
        }
        await Task.yield()
        try Task.checkCancellation()
    }

    /// Moves the clock on without a sleep (time spent "working").
    package func advance(by duration: Duration) {
        lock.withLock { current += duration }
    }

    /// Every wait asked so far, in order.
    package var sleeps: [Duration] { lock.withLock { recorded } }

    /// The sum of every wait asked so far.
    package var totalSlept: Duration { lock.withLock { recorded.reduce(.zero, +) } }
}
