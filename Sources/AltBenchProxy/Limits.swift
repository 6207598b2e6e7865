import AltBenchCore
import Crypto
import Foundation

extension TokenBucket {
    /// `requestsPerMinute` as a bucket refilled at `rpm / 60` a second holding
    /// `max(1, rpm / 10)`: six seconds' worth, so a client may send a short burst but not a
    /// minute's allowance at once. `now` is the proxy's clock in seconds.
    static func perSession(requestsPerMinute rpm: Double, now: Double) -> TokenBucket {
        TokenBucket(perMinute: rpm, holdingSeconds: 6, now: .seconds(now))
    }

    /// Takes a token and returns nil, or returns the whole seconds (at least 1) until one is
    /// there, for a Retry-After header.
    mutating func take(now: Double) -> Int? {
        let now = Duration.seconds(now)
        if take(1, at: now) { return nil }
        return max(1, Int(((1 - available(at: now)) / perSecond).rounded(.up)))
    }
}

/// The signatures seen inside the replay window, so that a second use of one is refused, with
/// the memory divided among the owners that fill it.
///
/// The memory is bounded three ways. In all, it holds at most `capacity` entries (the pool).
/// Each owner (a session, or a client address for token requests) holds at most its share,
/// which the caller gives per request; an owner whose share is full is refused alone, and
/// others go on. Token requests' owners hold together at most a tenth of the pool, so that
/// addresses minting sessions cannot crowd out the sessions already working.
///
/// An entry is forgotten only once its window has passed. When the pool, a share or the
/// token requests' part is full of entries still inside their window the cache refuses new
/// ones (the caller answers 429) instead of evicting one, which would let that request be
/// replayed.
struct ReplayCache: Sendable {
    /// Who signed (a session id, or nil for a token request signed with the app key) and the
    /// signature, kept as the first 16 bytes of the SHA-256 of both: a fixed 16 bytes per
    /// entry whatever the client sent.
    struct Key: Hashable, Sendable {
        let high: UInt64
        let low: UInt64

        init(session: String?, signature: String) {
            var hash = SHA256()
            if let session {
                hash.update(data: Array(("s" + session).utf8))
            } else {
                hash.update(data: [UInt8(ascii: "t")])
            }
            hash.update(data: [0])
            hash.update(data: Array(signature.utf8))
            let digest = Array(hash.finalize())
            high = digest[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
            low = digest[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// Whom a remembered signature is charged to.
    enum Owner: Hashable, Sendable {
        /// A session's requests.
        case session(String)
        /// The token requests of one client address.
        case client(String)
    }

    enum Outcome: Equatable, Sendable {
        /// First use: remembered until the window passes.
        case fresh
        /// Seen inside the window.
        case replayed
        /// The pool (or the token requests' part of it) is full of unexpired entries; room
        /// comes in this many whole seconds (at least 1).
        case full(retryAfter: Int)
        /// This owner's share is full of unexpired entries; room comes in this many whole
        /// seconds (at least 1). Other owners are not affected.
        case shareFull(retryAfter: Int)
    }

    /// One remembered signature, in the order they were remembered.
    private struct Entry: Sendable {
        var key: Key
        var owner: Int
        var expiry: Double
    }

    /// What one owner holds: the expiries of its entries, oldest first.
    private struct Holding: Sendable {
        var owner: Owner
        var expiries = FIFO<Double>()
    }

    let capacity: Int
    let window: Double
    /// When each remembered key's window ends.
    private var expiries: [Key: Double] = [:]
    /// Every entry, oldest first, pruned from the front. The window is the same for every
    /// entry, so the front expires first.
    private var order = FIFO<Entry>()
    /// Each owner's holding under a small number, so that an entry carries 8 bytes of owner.
    private var holdings: [Int: Holding] = [:]
    private var numbers: [Owner: Int] = [:]
    private var nextNumber = 0
    /// Entries charged to token requests' owners.
    private var clientEntries = 0

    init(capacity: Int, window: Double) {
        self.capacity = capacity
        self.window = window
    }

    /// How many entries are held.
    var count: Int { order.count }

    /// The most entries all token requests' owners may hold together: a tenth of the pool.
    var clientPart: Int { max(1, capacity / 10) }

    /// How many entries `owner` holds.
    func held(by owner: Owner) -> Int {
        numbers[owner].flatMap { holdings[$0]?.expiries.count } ?? 0
    }

    /// Whether `key` was remembered and its window has not passed at `now`.
    func contains(_ key: Key, now: Double) -> Bool {
        if let expiry = expiries[key], expiry > now { return true }
        return false
    }

    /// Remembers `key` at `now`, for a session or a token request with no share of its own
    /// (the pool is its share), unless it was seen inside the window or there is no room.
    /// Checking and remembering are one step, so two copies of a request sent at once cannot
    /// both pass.
    mutating func remember(_ key: Key, now: Double) -> Outcome {
        if contains(key, now: now) { return .replayed }
        return insert(key, owner: .session(""), share: capacity, now: now)
    }

    /// Remembers `key` at `now`, charged to `owner`, who may hold at most `share` entries;
    /// the caller has checked with ``contains(_:now:)`` that it is not a replay.
    mutating func insert(_ key: Key, owner: Owner, share: Int, now: Double) -> Outcome {
        pruneExpired(now: now)
        if order.count >= capacity {
            return .full(retryAfter: Self.seconds(until: order.first?.expiry ?? now + window, now: now))
        }
        let number = numbers[owner]
        if let number, let holding = holdings[number], holding.expiries.count >= share {
            return .shareFull(retryAfter: Self.seconds(until: holding.expiries.first ?? now + window, now: now))
        }
        if case .client = owner, clientEntries >= clientPart {
            // The oldest entry of the pool is no later than the oldest token request's.
            return .full(retryAfter: Self.seconds(until: order.first?.expiry ?? now + window, now: now))
        }
        let expiry = now + window
        let ownerNumber = number ?? newNumber(for: owner)
        expiries[key] = expiry
        order.append(Entry(key: key, owner: ownerNumber, expiry: expiry))
        holdings[ownerNumber, default: Holding(owner: owner)].expiries.append(expiry)
        if case .client = owner { clientEntries += 1 }
        return .fresh
    }

    private mutating func newNumber(for owner: Owner) -> Int {
        let number = nextNumber
        nextNumber += 1
        numbers[owner] = number
        return number
    }

    /// Whole seconds, at least 1, from `now` until `instant`.
    private static func seconds(until instant: Double, now: Double) -> Int {
        max(1, Int((instant - now).rounded(.up)))
    }

    /// Forgets the entries at the front whose window has passed. Entries are added in clock
    /// order, so the front holds the oldest; if the clock went backwards an expired entry
    /// may wait behind a newer one, which only keeps it longer (never forgets one early).
    /// Each owner's entries are in the same order as the pool's, so its oldest goes with it.
    private mutating func pruneExpired(now: Double) {
        while let entry = order.first, entry.expiry <= now {
            order.removeFirst()
            // The key may have been remembered again after this entry expired.
            if let current = expiries[entry.key], current <= now { expiries[entry.key] = nil }
            if var holding = holdings[entry.owner] {
                holding.expiries.removeFirst()
                if case .client = holding.owner { clientEntries -= 1 }
                if holding.expiries.isEmpty {
                    holdings[entry.owner] = nil
                    numbers[holding.owner] = nil
                } else {
                    holdings[entry.owner] = holding
                }
            }
        }
    }
}

/// A first-in first-out queue over an array: appending and removing the first are O(1)
/// amortised (the removed front is dropped once it is half the storage).
struct FIFO<Element: Sendable>: Sendable {
    private var storage: [Element] = []
    private var front = 0

    var count: Int { storage.count - front }
    var isEmpty: Bool { count == 0 }
    var first: Element? { front < storage.count ? storage[front] : nil }

    mutating func append(_ element: Element) { storage.append(element) }

    @discardableResult
    mutating func removeFirst() -> Element {
        let element = storage[front]
        front += 1
        if front == storage.count {
            storage.removeAll(keepingCapacity: storage.count < 4096)
            front = 0
        } else if front > 1024, front * 2 > storage.count {
            storage.removeFirst(front)
            front = 0
        }
        return element
    }
}

/// A map of at most `capacity` entries that forgets the least recently used one to make room
/// for a new key, in O(1): a dictionary from key to slot, and the slots in a doubly linked
/// list from the most to the least recently used.
struct RecentlyUsed<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var key: Key
        var value: Value
        var newer: Int
        var older: Int
    }

    let capacity: Int
    private var slots: [Slot] = []
    private var index: [Key: Int] = [:]
    /// The most and the least recently used slot, or -1 when empty.
    private var newest = -1
    private var oldest = -1

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    var count: Int { index.count }

    /// The value for `key`, which becomes the most recently used.
    mutating func value(for key: Key) -> Value? {
        guard let slot = index[key] else { return nil }
        moveToNewest(slot)
        return slots[slot].value
    }

    /// Sets the value for `key`, which becomes the most recently used; a new key beyond the
    /// capacity takes the least recently used one's place, which is forgotten (and returned).
    @discardableResult
    mutating func set(_ value: Value, for key: Key) -> Key? {
        if let slot = index[key] {
            slots[slot].value = value
            moveToNewest(slot)
            return nil
        }
        if slots.count < capacity {
            slots.append(Slot(key: key, value: value, newer: -1, older: -1))
            let slot = slots.count - 1
            index[key] = slot
            link(slot)
            return nil
        }
        let slot = oldest
        let forgotten = slots[slot].key
        unlink(slot)
        index[forgotten] = nil
        slots[slot] = Slot(key: key, value: value, newer: -1, older: -1)
        index[key] = slot
        link(slot)
        return forgotten
    }

    /// The keys from the most to the least recently used (for tests).
    var keysByRecency: [Key] {
        var keys: [Key] = []
        var slot = newest
        while slot >= 0 {
            keys.append(slots[slot].key)
            slot = slots[slot].older
        }
        return keys
    }

    private mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        link(slot)
    }

    /// Puts `slot`, unlinked, at the newest end.
    private mutating func link(_ slot: Int) {
        slots[slot].newer = -1
        slots[slot].older = newest
        if newest >= 0 { slots[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let newer = slots[slot].newer
        let older = slots[slot].older
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = -1
        slots[slot].older = -1
    }
}
