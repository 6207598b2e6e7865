/// A token bucket: it holds at most `capacity` tokens, refills continuously at `perSecond`, and
/// pays for requests (a cost of one each, or their tokens).
///
/// The one rate limiter of altbench: the request gate's own caps and pace, the proxy's
/// per-session and per-address limits and the test server's OpenAI-like limiter all use it.
/// Times are durations on the caller's clock (any origin), passed in so the arithmetic can be
/// tested without waiting; a clock that goes backwards refills nothing.
package struct TokenBucket: Sendable, Hashable {
    package let capacity: Double
    /// Refill per second (always positive).
    package private(set) var perSecond: Double
    /// Tokens at `asOf`: fractional while refilling, negative once a cost was spent ahead.
    package private(set) var level: Double
    package private(set) var asOf: Duration

    /// The smallest refill rate: a bucket that never refilled would make its waits infinite.
    package static let slowestRate = 0.001

    /// A bucket at `now` holding `level` (full when nil, never more than `capacity`).
    package init(capacity: Double, perSecond: Double, level: Double? = nil, now: Duration) {
        self.capacity = capacity
        self.perSecond = max(perSecond, Self.slowestRate)
        self.level = min(level ?? capacity, capacity)
        self.asOf = now
    }

    /// `perMinute` as a bucket holding `seconds` seconds' worth (at least one token).
    package init(perMinute: Double, holdingSeconds seconds: Double, now: Duration) {
        let perSecond = max(perMinute / 60, Self.slowestRate)
        self.init(capacity: max(1, perSecond * seconds), perSecond: perSecond, now: now)
    }

    /// The tokens in the bucket at `now`.
    package func available(at now: Duration) -> Double {
        min(capacity, level + perSecond * max(0, (now - asOf).secondsValue))
    }

    /// How long from `now` until `cost` is in the bucket (a cost above the capacity waits for a
    /// full bucket); nil when it is there now.
    package func wait(for cost: Double, at now: Duration) -> Duration? {
        let needed = min(cost, capacity)
        let have = available(at: now)
        // A refill computed to the instant may fall short by a rounding error.
        guard have < needed - 1e-9 else { return nil }
        return .seconds(clamping: (needed - have) / perSecond)
    }

    /// Pays `cost` whether or not it is there: the level may go below zero, which later
    /// requests wait out.
    package mutating func spend(_ cost: Double, at now: Duration) {
        settle(at: now)
        level -= cost
    }

    /// Pays `cost` if it is there now. Either way the bucket's time moves to `now`, so that a
    /// clock that later goes back refills nothing.
    /// - Returns: whether it was paid.
    @discardableResult
    package mutating func take(_ cost: Double = 1, at now: Duration) -> Bool {
        settle(at: now)
        guard wait(for: cost, at: now) == nil, cost <= capacity else { return false }
        level -= cost
        return true
    }

    /// Gives back `amount` (what an estimate overcharged, or a request the server never took);
    /// a negative amount takes more.
    package mutating func refund(_ amount: Double, at now: Duration) {
        settle(at: now)
        level = min(capacity, level + amount)
    }

    /// Refills at `perSecond` from `now` on; what was refilled before stays.
    package mutating func setRate(_ perSecond: Double, at now: Duration) {
        settle(at: now)
        self.perSecond = max(perSecond, Self.slowestRate)
    }

    /// Adds what refilled up to `now` and moves the bucket's time there (never back).
    package mutating func settle(at now: Duration) {
        level = available(at: now)
        asOf = max(asOf, now)
    }
}
