import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchCore

@Suite("RequestGate")
struct RequestGateTests {
    static func gate(
        max: Int = 8, rpm: Double? = nil, tpm: Double? = nil, probe: Bool = true, clock: VirtualClock = VirtualClock(),
        control: RunControl = RunControl()
    ) -> RequestGate {
        RequestGate(
            settings: .init(maxConcurrency: max, requestsPerMinute: rpm, tokensPerMinute: tpm, probeFirst: probe),
            clock: clock, control: control)
    }

    /// An `acquire` running in its own task, which says when it has returned.
    final class Pending: @unchecked Sendable {
        private let lock = NSLock()
        private var finished = false
        private(set) var task: Task<RequestGate.Permit?, any Error>!

        init(_ gate: RequestGate) {
            task = Task { [self] in
                defer { lock.withLock { finished = true } }
                return try await gate.acquire()
            }
        }

        /// Whether it is still waiting after the gate had every chance to grant it.
        func isWaiting() async -> Bool {
            for _ in 0..<20 { await Task.yield() }
            try? await Task.sleep(for: .milliseconds(50))
            return lock.withLock { !finished }
        }

        var value: RequestGate.Permit? { get async throws { try await task.value } }
    }

    @Test("the first request goes alone; the rest wait for its answer")
    func probe() async throws {
        let gate = Self.gate()
        let first = try #require(try await gate.acquire())
        let second = Pending(gate)
        #expect(await second.isWaiting())
        await gate.release(first, .answered(nil, usedTokens: nil))
        #expect(try await second.value != nil)
        // After the probe the window is open: several at once.
        let more = try await (0..<6).asyncMap { _ in try await gate.acquire() }
        #expect(more.allSatisfy { $0 != nil })
        #expect(await gate.inFlightCount == 7)
    }

    @Test("requests in flight never exceed the window")
    func window() async throws {
        let gate = Self.gate(max: 3, probe: false)
        let permits = try await (0..<3).asyncMap { _ in try await gate.acquire() }
        let fourth = Pending(gate)
        #expect(await fourth.isWaiting())
        await gate.release(permits[0]!, .answered(nil, usedTokens: nil))
        #expect(try await fourth.value != nil)
    }

    @Test("a 429 halves the window once per episode and pauses everyone for the server's wait")
    func halving() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 8, probe: false, clock: clock)
        let permits = try await (0..<8).asyncMap { _ in try await gate.acquire()! }
        await gate.release(permits[0], .rateLimited(retryAfter: .seconds(2), nil))
        #expect(await gate.window == 4)
        // 429s for requests sent before the halving are the same episode.
        await gate.release(permits[1], .rateLimited(retryAfter: .seconds(2), nil))
        await gate.release(permits[2], .rateLimited(retryAfter: nil, nil))
        #expect(await gate.window == 4)
        #expect(await gate.statistics.windowDecreases == 1)
        #expect(await gate.statistics.rateLimited == 3)
        for permit in permits[3...] { await gate.release(permit, .answered(nil, usedTokens: nil)) }
        // Everyone waits out the pause, not only the request that got the 429.
        let next = try #require(try await gate.acquire())
        #expect(clock.now >= .seconds(2))
        #expect(clock.sleeps == [.seconds(2)])
        // A 429 for a request sent after the halving starts a new episode.
        await gate.release(next, .rateLimited(retryAfter: .milliseconds(10), nil))
        #expect(await gate.window == 2)
    }

    @Test("the window grows back by a quarter after each clean round, up to the maximum")
    func growth() async throws {
        let gate = Self.gate(max: 8, probe: false)
        var permits = try await (0..<8).asyncMap { _ in try await gate.acquire()! }
        await gate.release(permits.removeFirst(), .rateLimited(retryAfter: .zero, nil))
        await gate.release(permits.removeFirst(), .rateLimited(retryAfter: .zero, nil))
        #expect(await gate.window == 4)
        for permit in permits { await gate.release(permit, .answered(nil, usedTokens: nil)) }
        // Six successes: a round of 4 grows the window to 5; two more are not a round of 5.
        #expect(await gate.window == 5)
        for _ in 0..<5 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .answered(nil, usedTokens: nil))
        }
        #expect(await gate.window == 6)
        for _ in 0..<40 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .answered(nil, usedTokens: nil))
        }
        #expect(await gate.window == 8)
    }

    @Test("other failures neither shrink nor grow the window")
    func otherFailures() async throws {
        let gate = Self.gate(max: 4, probe: false)
        for _ in 0..<10 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .failed(nil))
        }
        #expect(await gate.window == 4)
        #expect(await gate.statistics.windowDecreases == 0)
    }

    @Test("a server bucket running low paces requests at its refill rate, before any 429")
    func serverBucketPacing() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 50, probe: false, clock: clock)
        // 20 a second: a full bucket of 20 refills in one second; 2 are left.
        let status = RateLimitStatus(limitRequests: 20, remainingRequests: 2, resetRequests: .milliseconds(900))
        let first = try await gate.acquire()!
        await gate.release(first, .answered(status, usedTokens: nil))
        // Two go at once, then one every 50 ms.
        for _ in 0..<6 { _ = try await gate.acquire() }
        #expect(clock.sleeps.count == 4)
        #expect(clock.sleeps.allSatisfy { abs($0.milliseconds - 50) < 1 })
        #expect(abs(clock.now.milliseconds - 200) < 2)
        #expect(await gate.statistics.pacedWaits == 4)
    }

    @Test("requests sent after the observed answer count against what it said was left")
    func inFlightCounts() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 50, probe: false, clock: clock)
        let observed = try await gate.acquire()!
        let later = try await (0..<3).asyncMap { _ in try await gate.acquire()! }
        _ = later
        // The server counted only the first: 3 left of 10, but 3 more are already on the way.
        let status = RateLimitStatus(limitRequests: 10, remainingRequests: 3, resetRequests: .seconds(7))
        await gate.release(observed, .answered(status, usedTokens: nil))
        _ = try await gate.acquire()
        // 0 left by the model: one request per second (7 missing, refilled in 7 s).
        #expect(clock.sleeps.count == 1)
        #expect(abs(clock.sleeps[0].secondsValue - 1) < 0.01)
    }

    @Test("a server bucket far from empty costs nothing")
    func plentyLeft() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 50, probe: false, clock: clock)
        let status = RateLimitStatus(
            limitRequests: 10_000, remainingRequests: 9_999, resetRequests: .milliseconds(6), limitTokens: 30_000_000,
            remainingTokens: 29_999_000, resetTokens: .milliseconds(2))
        let first = try await gate.acquire(cost: 1000)!
        await gate.release(first, .answered(status, usedTokens: 900))
        for _ in 0..<40 { _ = try await gate.acquire(cost: 1000) }
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a full bucket lets its whole size through at once")
    func fullBucket() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 50, probe: false, clock: clock)
        let first = try await gate.acquire()!
        let status = RateLimitStatus(limitRequests: 5, remainingRequests: 5, resetRequests: .zero)
        await gate.release(first, .answered(status, usedTokens: nil))
        for _ in 0..<5 { _ = try await gate.acquire() }
        #expect(clock.sleeps.isEmpty)
    }

    // MARK: Headers that overstate the burst

    /// What a server announcing a per-minute window of 1,200 (refilled at 20 a second) says
    /// when `remaining` are left of it.
    static func perMinute(remaining: Int) -> RateLimitStatus {
        RateLimitStatus(
            limitRequests: 1200, remainingRequests: remaining, resetRequests: .milliseconds(Int64((1200 - remaining) * 50)))
    }

    @Test("with request-limit headers the window opens one place per answer after the probe")
    func slowStart() async throws {
        let gate = Self.gate(max: 8)
        let probe = try #require(try await gate.acquire())
        await gate.release(probe, .answered(Self.perMinute(remaining: 1199), usedTokens: nil))
        // The headers claim room for 1,199: still only two go.
        #expect(await gate.window == 2)
        var permits = try await (0..<2).asyncMap { _ in try await gate.acquire()! }
        let third = Pending(gate)
        #expect(await third.isWaiting())
        // Each answer frees its place and adds one: two more go.
        await gate.release(permits.removeFirst(), .answered(Self.perMinute(remaining: 1198), usedTokens: nil))
        permits.append(try #require(try await third.value))
        permits.append(try await gate.acquire()!)
        #expect(await gate.window == 3)
        #expect(await gate.inFlightCount == 3)
        // Up to the maximum, then the usual growth takes over.
        for _ in 0..<10 {
            await gate.release(permits.removeFirst(), .answered(Self.perMinute(remaining: 1190), usedTokens: nil))
            while await gate.inFlightCount < gate.window { permits.append(try await gate.acquire()!) }
        }
        #expect(await gate.window == 8)
        // Without such headers the probe's answer opens the whole window (see `probe`); a 429
        // ends the opening: the window halves from where it is.
        let other = Self.gate(max: 8)
        let first = try await other.acquire()!
        await other.release(first, .answered(Self.perMinute(remaining: 1199), usedTokens: nil))
        let two = try await (0..<2).asyncMap { _ in try await other.acquire()! }
        await other.release(two[0], .rateLimited(retryAfter: .zero, Self.perMinute(remaining: 1190)))
        #expect(await other.window == 1)
        await other.release(two[1], .answered(nil, usedTokens: nil))
        #expect(await other.window == 2, "a clean round of 1 grows it by one, not by the opening rule")
    }

    @Test("a 429 while the headers claim room makes the gate pace by a bucket of its own")
    func overstatedBurst() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 50, clock: clock)
        let probe = try await gate.acquire()!
        await gate.release(probe, .answered(Self.perMinute(remaining: 1199), usedTokens: nil))
        let two = try await (0..<2).asyncMap { _ in try await gate.acquire()! }
        // The headers say 1,179 are left, yet the server answers 429.
        await gate.release(two[0], .rateLimited(retryAfter: .milliseconds(50), Self.perMinute(remaining: 1179)))
        #expect(await gate.statistics.overstatedBursts == 1)
        #expect(await gate.statistics.trustedBurst == 20, "one second's worth of the 20 a second the headers imply")
        await gate.release(two[1], .answered(Self.perMinute(remaining: 1178), usedTokens: nil))
        // Empty as of the 429, less the request sent after it (which took the next token),
        // refilled at 20 a second: one request every 50 ms, though the headers still claim
        // room. The first waits out the 429's pause and then its token.
        for _ in 0..<6 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .answered(Self.perMinute(remaining: 1180), usedTokens: nil))
        }
        #expect(clock.sleeps.count == 7)
        #expect(clock.sleeps.allSatisfy { abs($0.milliseconds - 50) < 1 }, "\(clock.sleeps)")

        // A later 429 of a new episode halves the trusted burst; one of the same episode does not.
        let late = try await (0..<2).asyncMap { _ in try await gate.acquire()! }
        await gate.release(late[0], .rateLimited(retryAfter: .milliseconds(50), Self.perMinute(remaining: 1180)))
        await gate.release(late[1], .rateLimited(retryAfter: .milliseconds(50), Self.perMinute(remaining: 1180)))
        #expect(await gate.statistics.overstatedBursts == 2)
        #expect(await gate.statistics.trustedBurst == 10)
        #expect(await gate.statistics.rateLimited == 3)
        // late[1] was counted against the halved bucket (sent after late[0]) and gave its place
        // back with its 429: one token after the 50 ms pause, not two.
        let sleptBefore = clock.sleeps.count
        _ = try await gate.acquire()
        #expect(clock.sleeps.count == sleptBefore + 1)
    }

    @Test("the trusted bucket refills at the lowest rate the headers implied since")
    func trustedRate() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 50, clock: clock)
        let probe = try await gate.acquire()!
        await gate.release(probe, .answered(Self.perMinute(remaining: 1199), usedTokens: nil))
        let permit = try await gate.acquire()!
        await gate.release(permit, .rateLimited(retryAfter: .zero, Self.perMinute(remaining: 1190)))
        // 20 missing, full in 2 s: 10 a second.
        let slower = RateLimitStatus(limitRequests: 1200, remainingRequests: 1180, resetRequests: .seconds(2))
        let next = try await gate.acquire()!
        await gate.release(next, .answered(slower, usedTokens: nil))
        // A reading implying more does not raise it again.
        let after = try await gate.acquire()!
        await gate.release(after, .answered(Self.perMinute(remaining: 1190), usedTokens: nil))
        #expect(clock.sleeps.count == 2)
        #expect(abs(clock.sleeps[1].milliseconds - 100) < 1, "\(clock.sleeps)")
        // After a quiet spell it holds what it was given (20), then refills at 10 a second.
        clock.advance(by: .seconds(10))
        for _ in 0..<22 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .answered(nil, usedTokens: nil))
        }
        #expect(clock.sleeps.count == 4)
        #expect(clock.sleeps.suffix(2).allSatisfy { abs($0.milliseconds - 100) < 1 }, "\(clock.sleeps)")
    }

    @Test("a 429 the headers foresaw leaves the burst to them")
    func honest429() async throws {
        let gate = Self.gate(max: 50)
        let probe = try await gate.acquire()!
        await gate.release(probe, .answered(RateLimitStatus(limitRequests: 20, remainingRequests: 19, resetRequests: .milliseconds(50)), usedTokens: nil))
        let permit = try await gate.acquire()!
        await gate.release(permit, .rateLimited(retryAfter: .zero, RateLimitStatus(limitRequests: 20, remainingRequests: 0, resetRequests: .seconds(1))))
        #expect(await gate.statistics.rateLimited == 1)
        #expect(await gate.statistics.overstatedBursts == 0)
        #expect(await gate.statistics.trustedBurst == nil)
        // Nor does a 429 from a server that sends no limits.
        let bare = Self.gate(max: 50)
        let first = try await bare.acquire()!
        await bare.release(first, .answered(nil, usedTokens: nil))
        let second = try await bare.acquire()!
        await bare.release(second, .rateLimited(retryAfter: .zero, nil))
        #expect(await bare.statistics.overstatedBursts == 0)
    }

    @Test("--rpm spaces requests evenly: one second's worth at a time")
    func requestsPerMinute() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 10, rpm: 120, probe: false, clock: clock)
        for _ in 0..<5 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .answered(nil, usedTokens: nil))
        }
        // A bucket of 2 (one second at 2 a second): two at once, then one every 0.5 s.
        #expect(clock.sleeps.count == 3)
        #expect(clock.sleeps.allSatisfy { abs($0.secondsValue - 0.5) < 0.001 })
    }

    @Test("--tpm paces by estimated tokens and corrects with the answer's usage")
    func tokensPerMinute() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 10, tpm: 6000, probe: false, clock: clock)
        // 100 tokens a second, a bucket of 100.
        let first = try await gate.acquire(cost: 100)!
        // The answer used only 40: 60 come back, enough for the next 50-token request.
        await gate.release(first, .answered(nil, usedTokens: 40))
        _ = try await gate.acquire(cost: 50)
        #expect(clock.sleeps.isEmpty)
        // 10 left; 100 more take 0.9 s to refill.
        _ = try await gate.acquire(cost: 100)
        #expect(clock.sleeps.count == 1)
        #expect(abs(clock.sleeps[0].secondsValue - 0.9) < 0.001)
    }

    @Test("closing the gate or stopping the run ends every wait with no permit")
    func closing() async throws {
        let control = RunControl()
        let gate = Self.gate(max: 1, probe: false, control: control)
        _ = try await gate.acquire()
        let waiting = Pending(gate)
        #expect(await waiting.isWaiting())
        await gate.close()
        #expect(try await waiting.value == nil)

        let second = Self.gate(max: 1, probe: false, control: control)
        control.stop(.interrupted(signal: "SIGINT"))
        #expect(try await second.acquire() == nil)
    }

    @Test("a pause is cut short when the run stops")
    func pauseEndsOnStop() async throws {
        let control = RunControl()
        let gate = RequestGate(settings: .init(maxConcurrency: 4, probeFirst: false), clock: SystemRunClock(), control: control)
        let permit = try await gate.acquire()!
        await gate.release(permit, .rateLimited(retryAfter: .seconds(50), nil))
        let waiting = Task { try await gate.acquire() }
        try await Task.sleep(for: .milliseconds(50))
        control.stop(.interrupted(signal: "SIGTERM"))
        #expect(try await waiting.value == nil)
    }
}

@Suite("ServerBucket")
struct ServerBucketTests {
    @Test("the refill rate follows from limit, remaining and reset")
    func rate() {
        let bucket = ServerBucket.observed(
            previous: nil, limit: 10_000, remaining: 9_999, reset: .milliseconds(6), spentSince: 0, now: .zero)
        #expect(abs(bucket.rate! - 10_000.0 / 60) < 0.5)
        let full = ServerBucket.observed(previous: bucket, limit: 10_000, remaining: 10_000, reset: .zero, spentSince: 0, now: .seconds(1))
        #expect(full.rate == bucket.rate, "a full bucket says nothing new about the rate")
    }

    @Test("a cost above the whole bucket waits for a full one rather than forever")
    func oversized() {
        let bucket = ServerBucket.observed(previous: nil, limit: 100, remaining: 0, reset: .seconds(1), spentSince: 0, now: .zero)
        #expect(bucket.wait(for: 500, at: .zero) == .seconds(1))
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var values: [T] = []
        for element in self { values.append(try await transform(element)) }
        return values
    }
}
