import Foundation

/// Why a run ended before every trial was done.
package enum StopReason: Sendable, Hashable, CustomStringConvertible {
    /// A signal (SIGINT from Ctrl-C, SIGTERM) asked the run to stop.
    case interrupted(signal: String)
    /// The run's deadline (`--deadline`) passed.
    case deadline(Duration)
    /// A failure that means the whole run is misconfigured (bad key, no access, unknown
    /// model or URL, no quota, a request that can never fit the rate limit).
    case failure(ModelFailure)
    /// The server answered, then refused every connection for a while: the run stops, and
    /// `--resume` continues it once the server is back.
    case serverLost(ModelFailure)
    /// The next request could have taken spending past `--max-cost` (`limit`, USD): `spent` is
    /// what was spent, counting requests then in flight at their high estimates. Nothing more
    /// was sent; `--resume` with a higher limit continues.
    case costLimit(limit: Double, spent: Double)

    /// What stopped the run, as the store keeps it: `configuration` (a run-fatal failure:
    /// fix a setting and start a new run), `interrupt`, `deadline`, `server_lost` or
    /// `cost_limit` (`--resume` continues).
    package var kind: String {
        switch self {
        case .interrupted: return "interrupt"
        case .deadline: return "deadline"
        case .failure: return "configuration"
        case .serverLost: return "server_lost"
        case .costLimit: return "cost_limit"
        }
    }

    package var description: String {
        switch self {
        case .interrupted(let signal): return "interrupted by \(signal)"
        case .deadline(let limit): return "the run deadline of \(DurationText.format(limit)) passed"
        case .failure(let failure), .serverLost(let failure): return failure.message
        case .costLimit(let limit, let spent):
            return
                "the spending limit of \(CostSummary.usd(limit)) would be passed: \(CostSummary.usd(spent)) spent, and the next request could cost more than the \(CostSummary.usd(max(0, limit - spent))) left"
        }
    }
}

/// How a run is asked to stop, shared by the runner and whoever watches it (a signal
/// handler, a deadline timer, the runner itself on a run-fatal failure).
///
/// Stopping has two levels. `stop` ends the run gracefully: no new request starts, waits
/// (retry backoff, rate-limit pauses) end at once, and requests in flight get a grace period
/// to finish. `abort` also ends the grace period now. Both are safe to call from any thread,
/// including a signal handler's dispatch queue.
package final class RunControl: @unchecked Sendable {
    package enum Level: Int, Sendable, Comparable {
        case running, stopping, aborting
        package static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    private let lock = NSLock()
    private var level = Level.running
    private var reason: StopReason?
    private var waiters: [UUID: (Level, CheckedContinuation<Void, Never>)] = [:]

    package init() {}

    /// Why the run is stopping; `nil` while it runs.
    package var stopReason: StopReason? { lock.withLock { reason } }

    package var currentLevel: Level { lock.withLock { level } }

    package var isStopping: Bool { currentLevel >= .stopping }

    /// Asks the run to stop gracefully. The first reason given is the one reported.
    /// Returns whether this call started the stop.
    @discardableResult
    package func stop(_ reason: StopReason) -> Bool {
        raise(to: .stopping, reason: reason)
    }

    /// Ends the grace period: requests in flight are cancelled now.
    package func abort(_ reason: StopReason) {
        _ = raise(to: .aborting, reason: reason)
    }

    private func raise(to newLevel: Level, reason newReason: StopReason) -> Bool {
        let (started, ready): (Bool, [CheckedContinuation<Void, Never>]) = lock.withLock {
            guard newLevel > level else { return (false, []) }
            let started = level == .running
            level = newLevel
            if reason == nil { reason = newReason }
            var ready: [CheckedContinuation<Void, Never>] = []
            for (id, (wanted, continuation)) in waiters where wanted <= newLevel {
                ready.append(continuation)
                waiters.removeValue(forKey: id)
            }
            return (started, ready)
        }
        for continuation in ready { continuation.resume() }
        return started
    }

    /// Returns once the run reaches `wanted` (stopping or aborting), or when the task is
    /// cancelled.
    package func wait(for wanted: Level) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow: Bool = lock.withLock {
                    if level >= wanted || Task.isCancelled { return true }
                    waiters[id] = (wanted, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = lock.withLock { waiters.removeValue(forKey: id)?.1 }
            continuation?.resume()
        }
    }

    /// Sleeps until `deadline` on `clock`, or until the run starts stopping, whichever comes
    /// first. Returns `true` when the full wait passed, `false` when the run is stopping.
    package func sleep(until deadline: Duration, on clock: any RunClock) async throws -> Bool {
        if isStopping { return false }
        if deadline <= clock.now { return true }
        let slept = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await clock.sleep(until: deadline)
                return true
            }
            group.addTask {
                await self.wait(for: .stopping)
                return false
            }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        return slept && !isStopping
    }
}
