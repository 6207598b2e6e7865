import Foundation

/// A token bucket: holds at most `capacity` tokens and refills at `perSecond`; each request
/// takes one.
struct TokenBucket: Sendable {
    let capacity: Double
    let perSecond: Double
    private(set) var tokens: Double
    private var updated: Double

    /// A full bucket at time `now`.
    init(capacity: Double, perSecond: Double, now: Double) {
        self.capacity = capacity
        self.perSecond = perSecond
        self.tokens = capacity
        self.updated = now
    }

    /// `requestsPerMinute` as a bucket refilled at `rpm / 60` a second holding
    /// `max(1, rpm / 10)`: six seconds' worth, so a client may send a short burst but not a
    /// minute's allowance at once.
    static func perSession(requestsPerMinute rpm: Double, now: Double) -> TokenBucket {
        TokenBucket(capacity: max(1, rpm / 10), perSecond: rpm / 60, now: now)
    }

    /// Takes a token and returns nil, or returns the whole seconds (at least 1) until one is
    /// there. A clock that went backwards refills nothing.
    mutating func take(now: Double) -> Int? {
        refill(now: now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return max(1, Int(((1 - tokens) / perSecond).rounded(.up)))
    }

    /// Whether the bucket is full at `now`: then it is the same as a fresh one and may be
    /// forgotten.
    func isFull(now: Double) -> Bool {
        tokens + max(0, now - updated) * perSecond >= capacity
    }

    private mutating func refill(now: Double) {
        tokens = min(capacity, tokens + max(0, now - updated) * perSecond)
        updated = max(updated, now)
    }
}

/// The signatures seen inside the replay window, so that a second use of one is refused.
///
/// The memory is bounded: an entry is forgotten only once its window has passed. When the
/// cache is full of entries still inside their window it refuses new ones (the caller
/// answers 429) instead of evicting one, which would let that request be replayed.
struct ReplayCache: Sendable {
    /// Who signed (a session id, or nil for a token request signed with the app key) and
    /// the signature.
    struct Key: Hashable, Sendable {
        var session: String?
        var signature: String
    }

    enum Outcome: Equatable, Sendable {
        /// First use: remembered until the window passes.
        case fresh
        /// Seen inside the window.
        case replayed
        /// Full of unexpired entries; room comes in this many whole seconds (at least 1).
        case full(retryAfter: Int)
    }

    let capacity: Int
    let window: Double
    /// When each remembered key's window ends.
    private var expiries: [Key: Double] = [:]
    /// Keys in the order they were remembered (so oldest first), pruned from the front.
    private var order: [(key: Key, expiry: Double)] = []
    private var front = 0

    init(capacity: Int, window: Double) {
        self.capacity = capacity
        self.window = window
    }

    /// How many keys are remembered.
    var count: Int { expiries.count }

    /// Remembers `key` at `now` unless it was seen inside the window or there is no room.
    /// Checking and remembering are one step, so two copies of a request sent at once cannot
    /// both pass.
    mutating func remember(_ key: Key, now: Double) -> Outcome {
        if let expiry = expiries[key], expiry > now { return .replayed }
        pruneExpired(now: now)
        if expiries.count >= capacity {
            let oldest = order[front...].first { expiries[$0.key] == $0.expiry }?.expiry ?? now + window
            return .full(retryAfter: max(1, Int((oldest - now).rounded(.up))))
        }
        let expiry = now + window
        expiries[key] = expiry
        order.append((key, expiry))
        return .fresh
    }

    /// Forgets the entries at the front whose window has passed. Entries are added in clock
    /// order, so the front holds the oldest; if the clock went backwards an expired entry
    /// may wait behind a newer one, which only keeps it longer (never forgets one early).
    private mutating func pruneExpired(now: Double) {
        while front < order.count, order[front].expiry <= now {
            let entry = order[front]
            // The key may have been remembered again after this entry expired.
            if let current = expiries[entry.key], current <= now { expiries[entry.key] = nil }
            front += 1
        }
        if front > 1024, front * 2 > order.count {
            order.removeFirst(front)
            front = 0
        }
    }
}
