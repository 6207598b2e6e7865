import AltBenchCore
import Foundation

/// What the proxy remembers between requests, all in memory: the live sessions, the replay
/// memory and the rate buckets. One actor, so each check-and-update is atomic.
///
/// Everything here is bounded: sessions by ``ProxyConfiguration/maxSessions`` and, per client
/// address, ``ProxyConfiguration/maxSessionsPerClient``; the replay memory by its pool and each
/// owner's share (``ReplayCache``); the token-request buckets by the number of addresses
/// tracked, the least recently used forgotten first.
actor ProxyState {
    struct Session: Sendable {
        let token: String
        /// Unix seconds; the token signs requests before this instant, not at or after it.
        let expiresAt: Int64
        /// The client address that asked for it, whose session count it is part of.
        let client: String
        var bucket: TokenBucket
    }

    /// A freshly issued session.
    struct Issued: Sendable {
        let id: String
        let token: String
        let expiresAt: Int64
    }

    /// Which token signs a session's requests, or why none does.
    enum Lookup: Sendable {
        case token(String)
        case unknown
        case expired
    }

    /// Whether a verified request may go on, and why not.
    enum Admission: Equatable, Sendable {
        /// Charged to its bucket and its signature remembered.
        case admitted
        /// Its signature was seen inside the replay window.
        case replayed
        /// Its session's (or, for a token request, its address's) bucket is empty; nothing was
        /// remembered.
        case rateLimited(retryAfter: Int)
        /// Its owner's share of the replay memory is full.
        case shareFull(retryAfter: Int)
        /// The replay memory is full.
        case memoryFull(retryAfter: Int)
    }

    /// Token requests one address may send at once.
    static let authBurst = 10.0
    /// Seconds whose worth of a session's rate its share of the replay memory holds: the
    /// replay window, so a session within its rate never fills its share.
    static let shareSeconds = Double(SignedProxyConventions.replayWindowSeconds)

    /// Sessions, issued in expiry order (the lifetime is the same for all): the live ones,
    /// then the expired ones still kept so their requests hear `token_expired`.
    private struct Issue: Sendable {
        let id: String
        let expiresAt: Int64
        let client: String
    }

    private let configuration: ProxyConfiguration
    private var sessions: [String: Session] = [:]
    private var live = FIFO<Issue>()
    private var expired = FIFO<Issue>()
    /// Each client address's live sessions' expiries, oldest first.
    private var clientSessions: [String: [Int64]] = [:]
    private var replays: ReplayCache
    private var authBuckets: RecentlyUsed<String, TokenBucket>
    /// The most replay entries one owner may hold: 1% of the pool, at least 100.
    let shareCap: Int

    init(configuration: ProxyConfiguration) {
        self.configuration = configuration
        self.replays = ReplayCache(
            capacity: configuration.replayCapacity, window: Double(SignedProxyConventions.replayWindowSeconds))
        self.authBuckets = RecentlyUsed(capacity: max(1, configuration.trackedClients))
        self.shareCap = max(100, configuration.replayCapacity / 100)
    }

    // MARK: Sessions

    /// The token of session `id` at `now`.
    func lookup(session id: String, now: Double) -> Lookup {
        guard let session = sessions[id] else { return .unknown }
        return Double(session.expiresAt) > now ? .token(session.token) : .expired
    }

    /// A new session for `client` (a 64-hex token and a `sess_` id), or the whole seconds
    /// until one can be issued when `maxSessions` are alive, or `client` has
    /// `maxSessionsPerClient` alive.
    ///
    /// An expired session is kept a while so its requests hear `token_expired` (the client
    /// then fetches a new token) rather than `invalid_session`; it is forgotten once it has
    /// been expired for the replay window, or at once when the store is full. Every step is
    /// O(1) amortised: sessions leave the queues in the order they were issued.
    func issueSession(client: String, now: Double) -> Result<Issued, ProxyRefusal> {
        retireSessions(now: now)
        if sessions.count >= configuration.maxSessions {
            while let issue = expired.first {
                expired.removeFirst()
                forget(issue)
            }
        }
        if sessions.count >= configuration.maxSessions {
            let soonest = live.first.map { Double($0.expiresAt) - now } ?? 1
            return .failure(
                ProxyRefusal(
                    429, .rateLimitExceeded,
                    "The proxy has as many live sessions as it allows (\(configuration.maxSessions)); reuse a token until it expires, or retry later.",
                    retryAfter: max(1, Int(soonest.rounded(.up)))))
        }
        if let mine = clientSessions[client], mine.count >= configuration.maxSessionsPerClient {
            let soonest = Double(mine[0]) - now
            return .failure(
                ProxyRefusal(
                    429, .rateLimitExceeded,
                    "This client address has as many live sessions as the proxy allows one address (\(configuration.maxSessionsPerClient)); reuse a token until it expires, or retry later.",
                    retryAfter: max(1, Int(soonest.rounded(.up)))))
        }
        let ttl = Int64(configuration.tokenTTL.components.seconds)
        let issued = Issued(
            id: "sess_" + Hashing.randomHex(bytes: 12), token: Hashing.randomHex(bytes: 32),
            expiresAt: Int64(now.rounded(.down)) + max(1, ttl))
        sessions[issued.id] = Session(
            token: issued.token, expiresAt: issued.expiresAt, client: client,
            bucket: .perSession(requestsPerMinute: configuration.requestsPerMinute, now: now))
        live.append(Issue(id: issued.id, expiresAt: issued.expiresAt, client: client))
        clientSessions[client, default: []].append(issued.expiresAt)
        return .success(issued)
    }

    /// Moves the sessions that have expired from the live queue (they no longer count
    /// against their address) to the expired one, and forgets those expired for longer than
    /// the replay window.
    private func retireSessions(now: Double) {
        while let issue = live.first, Double(issue.expiresAt) <= now {
            live.removeFirst()
            if var mine = clientSessions[issue.client], !mine.isEmpty {
                mine.removeFirst()
                clientSessions[issue.client] = mine.isEmpty ? nil : mine
            }
            expired.append(issue)
        }
        let grace = Double(SignedProxyConventions.replayWindowSeconds)
        while let issue = expired.first, Double(issue.expiresAt) + grace <= now {
            expired.removeFirst()
            forget(issue)
        }
    }

    private func forget(_ issue: Issue) {
        if sessions[issue.id]?.expiresAt == issue.expiresAt { sessions[issue.id] = nil }
    }

    // MARK: Admission: replay, rate, memory

    /// Admits a verified request: refused as a replay if its signature was seen in the
    /// window; else charged to its bucket (the session's, or for a token request, signed by no
    /// session, its client address's); only then is its signature remembered, charged to the
    /// same owner's share. So a replay costs its session nothing, a request over the rate
    /// costs no memory, and an owner can fill only its own share.
    func admit(signature: String, session: String?, client: String, now: Double) -> Admission {
        let key = ReplayCache.Key(session: session, signature: signature)
        if replays.contains(key, now: now) { return .replayed }
        let wait: Int?
        let owner: ReplayCache.Owner
        let share: Int
        if let session {
            wait = takeSessionToken(session: session, now: now)
            owner = .session(session)
            share = Self.share(requestsPerMinute: configuration.requestsPerMinute, cap: shareCap)
        } else {
            wait = takeAuthToken(address: client, now: now)
            owner = .client(client)
            share = Self.share(requestsPerMinute: configuration.authRequestsPerMinute, burst: Self.authBurst, cap: shareCap)
        }
        if let wait { return .rateLimited(retryAfter: wait) }
        switch replays.insert(key, owner: owner, share: share, now: now) {
        case .fresh: return .admitted
        case .replayed: return .replayed
        case .shareFull(let retryAfter): return .shareFull(retryAfter: retryAfter)
        case .full(let retryAfter): return .memoryFull(retryAfter: retryAfter)
        }
    }

    /// An owner's share of the replay memory: what its rate lets it send within the replay
    /// window (a minute's worth per minute, plus its burst), at most `cap`.
    static func share(requestsPerMinute rpm: Double, burst: Double? = nil, cap: Int) -> Int {
        let allowed = rpm / 60 * shareSeconds + (burst ?? max(1, rpm / 10))
        guard allowed.isFinite, allowed < Double(cap) else { return cap }
        return max(1, Int(allowed.rounded(.up)))
    }

    /// Takes a token from the session's bucket: nil, or the whole seconds to wait.
    func takeSessionToken(session id: String, now: Double) -> Int? {
        guard var session = sessions[id] else { return 1 }
        let wait = session.bucket.take(now: now)
        sessions[id] = session
        return wait
    }

    /// Takes a token from the client address's token-request bucket: nil, or the whole
    /// seconds to wait. At most `trackedClients` addresses are tracked; a new one takes the
    /// place of the least recently seen, whose bucket has had the longest to refill.
    func takeAuthToken(address: String, now: Double) -> Int? {
        var bucket =
            authBuckets.value(for: address)
            ?? TokenBucket(capacity: Self.authBurst, perSecond: configuration.authRequestsPerMinute / 60, now: .seconds(now))
        let wait = bucket.take(now: now)
        authBuckets.set(bucket, for: address)
        return wait
    }

    /// Signatures remembered, for tests.
    var rememberedSignatures: Int { replays.count }
}
