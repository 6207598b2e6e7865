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

    @Test("after the probe the window opens over time, doubling every quarter of the probe's latency, until a 429")
    func ramp() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 16, clock: clock)
        let probe = try #require(try await gate.acquire())
        clock.advance(by: .milliseconds(100))
        await gate.release(probe, .answered(nil, usedTokens: nil))
        // Two at once; the third and fourth wait for the window to grow: it doubles in 25 ms
        // (a quarter of 100 ms).
        var permits = try await (0..<4).asyncMap { _ in try await gate.acquire()! }
        #expect(clock.sleeps.count == 2)
        let waited: Double = clock.totalSlept.milliseconds
        #expect(abs(waited - 25) < 0.5, "\(clock.sleeps)")
        #expect(await gate.window == 4)
        // By 100 ms after the probe the whole window is open, whatever the answers.
        clock.advance(by: .milliseconds(75))
        permits += try await (0..<12).asyncMap { _ in try await gate.acquire()! }
        #expect(await gate.window == 16)
        #expect(await gate.inFlightCount == 16)
        #expect(clock.sleeps.count == 2)

        // A 429 ends the ramp: the window halves from where it has come.
        let other = Self.gate(max: 64, clock: clock)
        let first = try await other.acquire()!
        clock.advance(by: .milliseconds(40))
        await other.release(first, .answered(nil, usedTokens: nil))
        clock.advance(by: .milliseconds(20))  // two doublings: 8
        let eight = try await (0..<8).asyncMap { _ in try await other.acquire()! }
        await other.release(eight[0], .rateLimited(retryAfter: .zero, nil))
        #expect(await other.window == 4)
        clock.advance(by: .seconds(1))
        #expect(await other.window == 4, "no longer growing with time")
        _ = permits
    }

    @Test("from the first 429 the gate paces at the rate the server's 429s show, whatever its headers say")
    func measuredRate() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 50, probe: false, clock: clock)
        // 20 answered in the first half second, then a 429: the first estimate is those 20 a
        // second, less the headers' implied rate when lower (here they imply none).
        for _ in 0..<20 {
            let permit = try await gate.acquire()!
            clock.advance(by: .milliseconds(25))
            await gate.release(permit, .answered(nil, usedTokens: nil))
        }
        let limited = try await gate.acquire()!
        await gate.release(limited, .rateLimited(retryAfter: nil, nil))
        #expect(await gate.statistics.measuredRate == 20)
        #expect(await gate.statistics.rateMeasurements == 1)
        // Paced at 95% of 20 a second, with no one-second pause for the 429 that named no wait.
        for _ in 0..<4 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .answered(nil, usedTokens: nil))
        }
        #expect(clock.sleeps.count == 4)
        let spacing: Double = 1000 / 19
        #expect(clock.sleeps.allSatisfy { abs($0.milliseconds - spacing) < 1 }, "\(clock.sleeps)")
        // A second 429 two seconds after the first, with 30 more taken since (in about 1.6 s,
        // at the pace): the server
        // sustains at most 31 in 2 s, so 15.5 a second, whatever came before.
        for _ in 0..<26 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .answered(nil, usedTokens: nil))
        }
        // The first 429's request went at 0.5 s; this one goes 2 s later.
        clock.advance(by: .milliseconds(2500) - clock.now)
        let second = try await gate.acquire()!
        await gate.release(second, .rateLimited(retryAfter: .milliseconds(10), nil))
        #expect(await gate.statistics.rateMeasurements == 2)
        let measured = try #require(await gate.statistics.measuredRate)
        #expect(abs(measured - 15.5) < 0.01, "\(measured)")
        // A wait the server named pauses every request; then the pace is 95% of 15.5.
        let before = clock.sleeps.count
        let next = try await gate.acquire()!
        await gate.release(next, .answered(nil, usedTokens: nil))
        let waited: Double = clock.sleeps.dropFirst(before).reduce(Duration.zero, +).milliseconds
        let expected: Double = 1000 / (15.5 * 0.95)
        #expect(abs(waited - expected) < 2, "\(clock.sleeps)")
    }

    @Test("headers that imply a lower rate cap the first estimate; honest headers never start it")
    func impliedRateCapsTheEstimate() async throws {
        let clock = VirtualClock()
        let gate = Self.gate(max: 50, probe: false, clock: clock)
        for _ in 0..<30 {
            let permit = try await gate.acquire()!
            await gate.release(permit, .answered(Self.perMinute(remaining: 1190), usedTokens: nil))
        }
        // The headers say 1,190 left of 1,200 at 20 a second, yet the server answers 429.
        let limited = try await gate.acquire()!
        await gate.release(limited, .rateLimited(retryAfter: .zero, Self.perMinute(remaining: 1190)))
        #expect(await gate.statistics.measuredRate == 20)

        // A server whose headers describe its bucket runs dry in the gate's model first.
        let honest = Self.gate(max: 50, probe: false, clock: clock)
        let start = clock.sleeps.count
        for remaining in (0..<20).reversed() {
            let permit = try await honest.acquire()!
            await honest.release(
                permit,
                .answered(RateLimitStatus(limitRequests: 20, remainingRequests: remaining, resetRequests: .milliseconds(Int64((20 - remaining) * 50))), usedTokens: nil))
        }
        _ = try await honest.acquire()
        #expect(clock.sleeps.count == start + 1)
        #expect(await honest.statistics.rateLimited == 0)
        #expect(await honest.statistics.measuredRate == nil)
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
