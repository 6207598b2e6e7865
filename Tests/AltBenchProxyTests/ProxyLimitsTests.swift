import AltBenchCore
@testable import AltBenchProxy
import Foundation
import Testing

/// The replay memory and the token bucket on their own, on a clock given per call.
@Suite("signed proxy limits")
struct ProxyLimitsTests {
    typealias Key = ReplayCache.Key

    @Test("a signature is refused the second time inside the window and forgotten after it")
    func replayWindow() {
        var cache = ReplayCache(capacity: 10, window: 600)
        let key = Key(session: "sess_a", signature: "s1")
        #expect(cache.remember(key, now: 1000) == .fresh)
        #expect(cache.remember(key, now: 1000) == .replayed)
        #expect(cache.remember(key, now: 1599) == .replayed)
        #expect(cache.remember(key, now: 1600) == .fresh)
        // The same signature from another session, or from a token request, is another key.
        #expect(cache.remember(Key(session: "sess_b", signature: "s1"), now: 1600) == .fresh)
        #expect(cache.remember(Key(session: nil, signature: "s1"), now: 1600) == .fresh)
    }

    @Test("full of unexpired entries it refuses new ones rather than forget one, and expiry frees room")
    func replayBound() {
        var cache = ReplayCache(capacity: 3, window: 600)
        for (index, time) in [1000.0, 1100, 1200].enumerated() {
            #expect(cache.remember(Key(session: "s", signature: "\(index)"), now: time) == .fresh)
        }
        #expect(cache.remember(Key(session: "s", signature: "new"), now: 1300) == .full(retryAfter: 300))
        // Every remembered signature is still a replay.
        for index in 0..<3 { #expect(cache.remember(Key(session: "s", signature: "\(index)"), now: 1300) == .replayed) }
        // The first expires at 1600: one slot frees.
        #expect(cache.remember(Key(session: "s", signature: "new"), now: 1600) == .fresh)
        #expect(cache.remember(Key(session: "s", signature: "newer"), now: 1600) == .full(retryAfter: 100))
        #expect(cache.count == 3)
    }

    @Test("a clock that goes backwards never makes the cache forget an unexpired entry")
    func replayClockBackwards() {
        var cache = ReplayCache(capacity: 2, window: 600)
        #expect(cache.remember(Key(session: "s", signature: "a"), now: 2000) == .fresh)
        #expect(cache.remember(Key(session: "s", signature: "b"), now: 1000) == .fresh)
        // At 1700, b has expired but sits behind a, which has not: still full.
        if case .full = cache.remember(Key(session: "s", signature: "c"), now: 1700) {} else { Issue.record("expected full") }
        #expect(cache.remember(Key(session: "s", signature: "a"), now: 1700) == .replayed)
        // Past both windows, both are forgotten.
        #expect(cache.remember(Key(session: "s", signature: "c"), now: 2600) == .fresh)
        #expect(cache.remember(Key(session: "s", signature: "a"), now: 2600) == .fresh)
    }

    @Test("many entries through a small cache keep the memory at the cap")
    func replayChurn() {
        var cache = ReplayCache(capacity: 100, window: 10)
        for index in 0..<10_000 {
            let outcome = cache.remember(Key(session: "s", signature: "\(index)"), now: Double(index) / 10)
            #expect(outcome == .fresh)
            #expect(cache.count <= 100)
        }
    }

    @Test("a session bucket holds rpm/10 (at least 1) and refills at rpm/60 a second")
    func bucket() {
        var bucket = TokenBucket.perSession(requestsPerMinute: 600, now: 0)
        for _ in 0..<60 { #expect(bucket.take(now: 0) == nil) }
        #expect(bucket.take(now: 0) == 1)
        #expect(bucket.take(now: 0.1) == nil)
        #expect(bucket.take(now: 0.1) == 1)

        var slow = TokenBucket.perSession(requestsPerMinute: 1, now: 0)
        #expect(slow.capacity == 1)
        #expect(slow.take(now: 0) == nil)
        #expect(slow.take(now: 0) == 60)
        #expect(slow.take(now: 30) == 30)
        // A clock that goes back refills nothing.
        #expect(slow.take(now: 10) == 30)
        #expect(slow.take(now: 60) == nil)
    }
}
