import Foundation

/// The time source of a run: retry waits, rate-limit pauses, the grace period of a stop and
/// the run deadline all read it, so tests can drive them with a virtual clock instead of
/// waiting for real.
///
/// Instants are durations since the clock's own origin, which keeps the protocol free of
/// associated types (a `Clock`'s `Instant` cannot be stored behind `any`).
package protocol RunClock: Sendable {
    /// Time since the clock's origin.
    var now: Duration { get }
    /// Returns at `deadline` (at once when it has passed). Throws `CancellationError` when
    /// the task is cancelled first.
    func sleep(until deadline: Duration) async throws
}

extension RunClock {
    /// Sleeps for `duration` from now.
    package func sleep(for duration: Duration) async throws {
        try await sleep(until: now + duration)
    }
}

/// Wall time, from `ContinuousClock` (which keeps counting while the machine sleeps).
package struct SystemRunClock: RunClock {
    private let origin: ContinuousClock.Instant

    package init() { origin = .now }

    package var now: Duration { .now - origin }

    package func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin + deadline, clock: .continuous)
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    package var secondsValue: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// A duration from fractional seconds; negative and non-finite values become zero, and
    /// values beyond a day are capped there so they cannot overflow.
    package static func seconds(clamping value: Double) -> Duration {
        guard value.isFinite, value > 0 else { return .zero }
        return .nanoseconds(Int64(min(value, 86_400) * 1e9))
    }
}
