import AltBenchCore
import Foundation

/// What the proxy remembers between requests, all in memory: the live sessions, the replay
/// cache and the rate buckets. One actor, so each check-and-update is atomic.
actor ProxyState {
    struct Session: Sendable {
        let token: String
        /// Unix seconds; the token signs requests before this instant, not at or after it.
        let expiresAt: Int64
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

    /// Client addresses whose token-request bucket is kept; beyond it, full buckets (the same
    /// as fresh ones) are forgotten.
    static let trackedAddresses = 10_000
    /// Token requests one address may send at once.
    static let authBurst = 10.0

    private let configuration: ProxyConfiguration
    private var sessions: [String: Session] = [:]
    private var replays: ReplayCache
    private var authBuckets: [String: TokenBucket] = [:]

    init(configuration: ProxyConfiguration) {
        self.configuration = configuration
        self.replays = ReplayCache(
            capacity: configuration.replayCapacity, window: Double(SignedProxyProtocol.replayWindowSeconds))
    }

    // MARK: Sessions

    /// The token of session `id` at `now`.
    func lookup(session id: String, now: Double) -> Lookup {
        guard let session = sessions[id] else { return .unknown }
        return Double(session.expiresAt) > now ? .token(session.token) : .expired
    }

    /// A new session (a 64-hex token and a `sess_` id), or the whole seconds until one can
    /// be issued when `maxSessions` are alive.
    ///
    /// An expired session is kept a while so its requests hear `token_expired` (the client
    /// then fetches a new token) rather than `invalid_session`; it is forgotten once it has
    /// been expired for the replay window, or at once when the store is full.
    func issueSession(now: Double) -> Result<Issued, ProxyRefusal> {
        let grace = Double(SignedProxyProtocol.replayWindowSeconds)
        sessions = sessions.filter { Double($0.value.expiresAt) + grace > now }
        if sessions.count >= configuration.maxSessions {
            sessions = sessions.filter { Double($0.value.expiresAt) > now }
        }
        if sessions.count >= configuration.maxSessions {
            let soonest = sessions.values.map(\.expiresAt).min().map { Double($0) - now } ?? 1
            return .failure(
                ProxyRefusal(
                    429, .rateLimitExceeded,
                    "The proxy has as many live sessions as it allows (\(configuration.maxSessions)); reuse a token until it expires, or retry later.",
                    retryAfter: max(1, Int(soonest.rounded(.up)))))
        }
        let ttl = Int64(configuration.tokenTTL.components.seconds)
        let issued = Issued(
            id: "sess_" + Self.randomHex(bytes: 12), token: Self.randomHex(bytes: 32),
            expiresAt: Int64(now.rounded(.down)) + max(1, ttl))
        sessions[issued.id] = Session(
            token: issued.token, expiresAt: issued.expiresAt,
            bucket: .perSession(requestsPerMinute: configuration.requestsPerMinute, now: now))
        return .success(issued)
    }

    // MARK: Replay and rate

    /// Remembers a verified signature; see ``ReplayCache``.
    func remember(signature: String, session: String?, now: Double) -> ReplayCache.Outcome {
        replays.remember(ReplayCache.Key(session: session, signature: signature), now: now)
    }

    /// Takes a token from the session's bucket: nil, or the whole seconds to wait.
    func takeSessionToken(session id: String, now: Double) -> Int? {
        guard var session = sessions[id] else { return 1 }
        let wait = session.bucket.take(now: now)
        sessions[id] = session
        return wait
    }

    /// Takes a token from the client address's token-request bucket: nil, or the whole
    /// seconds to wait.
    func takeAuthToken(address: String, now: Double) -> Int? {
        if authBuckets[address] == nil, authBuckets.count >= Self.trackedAddresses {
            authBuckets = authBuckets.filter { !$0.value.isFull(now: now) }
        }
        var bucket =
            authBuckets[address]
            ?? TokenBucket(capacity: Self.authBurst, perSecond: configuration.authRequestsPerMinute / 60, now: now)
        let wait = bucket.take(now: now)
        authBuckets[address] = bucket
        return wait
    }

    /// Counts, for tests.
    var sessionCount: Int { sessions.count }
    var rememberedSignatures: Int { replays.count }

    /// `bytes` random bytes from the system's generator as lowercase hex.
    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}
