import Foundation

/// Decides when each request may start, so that a run goes as fast as the API allows and no
/// faster.
///
/// - **Adaptive concurrency.** Requests in flight are bounded by a window between 1 and the
///   run's `--concurrency`. A 429 halves it, once per episode: 429s for requests that were
///   already in flight when it was halved do not halve it again. A clean round (as many
///   successes in a row as the window is wide) grows it by a quarter, back up to the maximum.
/// - **Pauses.** A 429 pauses every request, not only the one that got it, for as long as
///   the server asked (`retry-after-ms`, `Retry-After`, `x-ratelimit-reset-*`; one second
///   when it said nothing), so a 429 storm does not multiply into more 429s.
/// - **The server's own headers, before any 429.** Each answer's `x-ratelimit-limit-*`,
///   `-remaining-*` and `-reset-*` describe the server's token bucket: its size, what is
///   left, and how long until it is full, hence its refill rate. The gate keeps a model of
///   that bucket, spends from it as it lets requests go (including those the latest answer
///   could not count yet), and holds requests back when it runs dry. While the server's
///   bucket is far from empty this costs nothing.
/// - **A probe.** Until the first answer arrives only one request is in flight, so the first
///   wave is sized by what the server says rather than fired blind.
/// - **Headers are believed as far as the server bears them out.** Servers may announce a
///   bigger bucket than they enforce: OpenAI quantizes per-minute limits (1,200 a minute may be
///   enforced as 20 a second), and proxies and Azure deployments do the like. So:
///   - when the probe's answer carries request-limit headers, the window does not open at once:
///     it starts at 2 and grows by one with each answer (doubling each round) until it is
///     full or the first 429 comes, so an overstated burst is found by a few 429s rather than
///     a whole window of them;
///   - a 429 that arrives while the headers (the bucket model above) still claimed room shows
///     they overstate the burst. From then on the gate also paces requests with a token bucket
///     of its own: it holds one second's worth of the rate the headers imply (never more than
///     their limit), refills at the lowest rate they have implied since (rounding `remaining`
///     down can only make a single reading too high), and starts empty at that 429, less the
///     requests sent after it that may still take what the server refills (those that get a
///     429 give their place back). Each later such 429, in a new episode, halves what it may
///     hold, down to one request. Honest headers never trigger it; without
///     `x-ratelimit-*-requests` headers there are only the window and the pauses.
/// - **`--rpm` / `--tpm` caps.** Local token buckets holding one second's worth, so the
///   pace is even rather than a burst per minute. Token costs are estimates until the
///   answer's `usage` corrects them.
///
/// Waits for time go through `RunControl`, so stopping the run ends them at once.
public actor RequestGate {
    public struct Settings: Sendable, Hashable {
        public var maxConcurrency: Int
        public var requestsPerMinute: Double?
        public var tokensPerMinute: Double?
        /// Whether the first request goes alone.
        public var probeFirst: Bool
        /// Pause after a 429 that named no wait.
        public var defaultPause: Duration
        /// The longest pause or wait the gate imposes at once.
        public var longestWait: Duration

        public init(
            maxConcurrency: Int, requestsPerMinute: Double? = nil, tokensPerMinute: Double? = nil,
            probeFirst: Bool = true, defaultPause: Duration = .seconds(1), longestWait: Duration = .seconds(60)
        ) {
            self.maxConcurrency = max(1, maxConcurrency)
            self.requestsPerMinute = requestsPerMinute
            self.tokensPerMinute = tokensPerMinute
            self.probeFirst = probeFirst
            self.defaultPause = defaultPause
            self.longestWait = longestWait
        }
    }

    /// Leave to send one request.
    public struct Permit: Sendable, Hashable {
        let id: Int
        let grantedAt: Duration
        /// Estimated tokens the request spends.
        let cost: Double
    }

    /// How a request ended, as far as pacing cares.
    public enum Outcome: Sendable {
        case answered(RateLimitStatus?, usedTokens: Int?)
        case rateLimited(retryAfter: Duration?, RateLimitStatus?)
        case failed(RateLimitStatus?)
        /// Cancelled before an answer.
        case abandoned
    }

    /// Figures for progress lines and benchmarks.
    public struct Statistics: Sendable, Hashable {
        public var granted = 0
        public var rateLimited = 0
        public var windowDecreases = 0
        public var smallestWindow: Int
        /// Requests held back for time (a pause, the rate-limit model or the caps) before they
        /// were let go; waits for a free place in the window are not counted.
        public var pacedWaits = 0
        /// 429 episodes that began while the server's headers claimed room: each set up or
        /// halved the burst the gate trusts.
        public var overstatedBursts = 0
        /// The most requests the gate trusts the server to take at once, once a 429 showed its
        /// headers overstate it; `nil` while they have not.
        public var trustedBurst: Double?
    }

    public let settings: Settings
    private let clock: any RunClock
    private let control: RunControl

    public private(set) var window: Int
    public private(set) var statistics: Statistics
    private var inFlight: [Int: Permit] = [:]
    private var nextID = 0
    private var answeredOnce = false
    private var streak = 0
    /// The number of the last permit granted when the window was last halved.
    private var lastDecrease: Int?
    private var pausedUntil: Duration = .zero
    private var serverRequests: ServerBucket?
    private var serverTokens: ServerBucket?
    /// Whether the window is still opening one place per answer (see the type's comment).
    private var slowStart = false
    /// The gate's own bucket for requests once a 429 showed the headers overstate the burst.
    private var trustedBurst: LocalBucket?
    /// The permit whose 429 set `trustedBurst` up (or last halved it): those granted after it
    /// are counted against it.
    private var trustedSince = 0
    private var requestCap: LocalBucket?
    private var tokenCap: LocalBucket?
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var closed = false

    public init(settings: Settings, clock: any RunClock, control: RunControl) {
        self.settings = settings
        self.clock = clock
        self.control = control
        window = settings.maxConcurrency
        statistics = Statistics(smallestWindow: settings.maxConcurrency)
        let now = clock.now
        requestCap = settings.requestsPerMinute.map { LocalBucket(perMinute: $0, now: now) }
        tokenCap = settings.tokensPerMinute.map { LocalBucket(perMinute: $0, now: now) }
    }

    /// Requests in flight now.
    public var inFlightCount: Int { inFlight.count }

    /// Waits until a request costing `cost` tokens may start; `nil` once the run is stopping.
    public func acquire(cost: Double = 0) async throws -> Permit? {
        var paced = false
        while true {
            if closed || control.isStopping { return nil }
            let now = clock.now
            switch decision(at: now, cost: cost) {
            case .grant:
                if paced { statistics.pacedWaits += 1 }
                return grant(at: now, cost: cost)
            case .waitForRelease:
                await withCheckedContinuation { waiters.append($0) }
            case .waitUntil(let instant):
                paced = true
                let until = min(instant, now + settings.longestWait)
                guard try await control.sleep(until: until, on: clock) else { return nil }
            }
        }
    }

    /// Hands a permit back with what the answer said.
    public func release(_ permit: Permit, _ outcome: Outcome) {
        guard inFlight.removeValue(forKey: permit.id) != nil else { return }
        let now = clock.now
        switch outcome {
        case .answered(let status, let used):
            if settings.probeFirst, !answeredOnce, status?.limitRequests != nil, window > 2 {
                slowStart = true
                window = 1
            }
            answeredOnce = true
            observe(status, for: permit, at: now)
            if let used, var cap = tokenCap {
                cap.refund(permit.cost - Double(used), now: now)
                tokenCap = cap
            }
            if slowStart {
                window = min(settings.maxConcurrency, window + 1)
                if window == settings.maxConcurrency { slowStart = false }
            } else {
                streak += 1
                if streak >= window, window < settings.maxConcurrency {
                    window = min(settings.maxConcurrency, window + max(1, window / 4))
                    streak = 0
                }
            }
        case .rateLimited(let retryAfter, let status):
            answeredOnce = true
            slowStart = false
            statistics.rateLimited += 1
            observe(status, for: permit, at: now)
            streak = 0
            // Permits are numbered in the order granted: only one granted after the last
            // halving starts a new episode.
            if var trusted = trustedBurst, permit.id > trustedSince {
                // Counted against the trusted bucket, but the server took nothing for it.
                trusted.refund(1, now: now)
                trustedBurst = trusted
            }
            if lastDecrease.map({ permit.id > $0 }) ?? true {
                if headersClaimRoom(for: permit, at: now) { distrustBurst(after: permit, at: now) }
                window = max(1, window / 2)
                lastDecrease = nextID
                statistics.windowDecreases += 1
                statistics.smallestWindow = min(statistics.smallestWindow, window)
            }
            let pause = min(max(retryAfter ?? settings.defaultPause, .zero), settings.longestWait)
            pausedUntil = max(pausedUntil, now + pause)
        case .failed(let status):
            answeredOnce = true
            observe(status, for: permit, at: now)
            streak = 0
        case .abandoned:
            break
        }
        wakeAll()
    }

    /// Ends every wait: `acquire` returns `nil` from now on.
    public func close() {
        closed = true
        wakeAll()
    }

    // MARK: Deciding

    private enum Decision {
        case grant
        case waitForRelease
        case waitUntil(Duration)
    }

    private func decision(at now: Duration, cost: Double) -> Decision {
        if settings.probeFirst, !answeredOnce, !inFlight.isEmpty { return .waitForRelease }
        if inFlight.count >= window { return .waitForRelease }
        if pausedUntil > now { return .waitUntil(pausedUntil) }
        let waits = [
            requestCap?.wait(for: 1, at: now),
            tokenCap?.wait(for: cost, at: now),
            serverRequests?.wait(for: 1, at: now),
            serverTokens?.wait(for: cost, at: now),
            trustedBurst?.wait(for: 1, at: now),
        ].compactMap { $0 }
        if let longest = waits.max(), longest > .zero { return .waitUntil(now + longest) }
        return .grant
    }

    private func grant(at now: Duration, cost: Double) -> Permit {
        nextID += 1
        let permit = Permit(id: nextID, grantedAt: now, cost: cost)
        inFlight[permit.id] = permit
        statistics.granted += 1
        requestCap?.spend(1, at: now)
        tokenCap?.spend(cost, at: now)
        serverRequests?.spend(1, at: now)
        serverTokens?.spend(cost, at: now)
        trustedBurst?.spend(1, at: now)
        return permit
    }

    /// Replaces the model of the server's buckets with what an answer said, less the
    /// requests that left after this one (the server had not seen them when it counted).
    private func observe(_ status: RateLimitStatus?, for permit: Permit, at now: Duration) {
        guard let status, !status.isEmpty else { return }
        let later = inFlight.values.filter { $0.grantedAt > permit.grantedAt || ($0.grantedAt == permit.grantedAt && $0.id > permit.id) }
        if let limit = status.limitRequests, let remaining = status.remainingRequests {
            serverRequests = ServerBucket.observed(
                previous: serverRequests, limit: limit, remaining: remaining, reset: status.resetRequests,
                spentSince: Double(later.count), now: now)
            if var trusted = trustedBurst,
                let rate = ServerBucket.impliedRate(limit: limit, remaining: remaining, reset: status.resetRequests),
                rate < trusted.rate
            {
                trusted.setRate(rate, at: now)
                trustedBurst = trusted
            }
        }
        if let limit = status.limitTokens, let remaining = status.remainingTokens {
            serverTokens = ServerBucket.observed(
                previous: serverTokens, limit: limit, remaining: remaining, reset: status.resetTokens,
                spentSince: later.reduce(0) { $0 + $1.cost }, now: now)
        }
    }

    /// Whether, as far as the server's headers tell, `permit` should have found room: the
    /// requests bucket had one to spare and the tokens bucket (when the server has one) its
    /// cost. Read after the 429's own headers, when it had any, were taken in.
    private func headersClaimRoom(for permit: Permit, at now: Duration) -> Bool {
        guard let requests = serverRequests, requests.available(at: now) >= 1 else { return false }
        guard let tokens = serverTokens else { return true }
        return tokens.available(at: now) >= min(permit.cost, tokens.limit)
    }

    /// The headers overstate the burst: pace requests with the gate's own bucket from now on
    /// (or halve the one it has). The server's bucket was empty when `permit` got there, and
    /// requests sent after it may still take what refills, so the bucket starts that far below
    /// empty; those that get a 429 give their place back.
    private func distrustBurst(after permit: Permit, at now: Duration) {
        guard let rate = serverRequests?.rate, rate > 0 else { return }
        let capacity: Double
        if let trusted = trustedBurst {
            capacity = max(1, trusted.capacity / 2)
        } else {
            capacity = max(1, min(serverRequests?.limit ?? rate, rate))
        }
        let later = inFlight.keys.filter { $0 > permit.id }.count
        trustedBurst = LocalBucket(
            capacity: capacity, rate: min(rate, trustedBurst?.rate ?? rate), level: -Double(later), now: now)
        trustedSince = permit.id
        statistics.overstatedBursts += 1
        statistics.trustedBurst = capacity
    }

    private func wakeAll() {
        let ready = waiters
        waiters.removeAll()
        for waiter in ready { waiter.resume() }
    }
}

/// The gate's model of one of the server's buckets (requests or tokens).
struct ServerBucket: Sendable, Hashable {
    var limit: Double
    /// What is left at `asOf`, by the model.
    var level: Double
    var asOf: Duration
    /// Refill per second, when the headers allowed working it out.
    var rate: Double?
    /// When the server said the bucket would be full.
    var fullAt: Duration?

    static func observed(
        previous: ServerBucket?, limit: Int, remaining: Int, reset: Duration?, spentSince: Double, now: Duration
    ) -> ServerBucket {
        let rate = impliedRate(limit: limit, remaining: remaining, reset: reset) ?? previous?.rate
        return ServerBucket(
            limit: Double(limit), level: Double(remaining) - spentSince, asOf: now, rate: rate,
            fullAt: reset.map { now + $0 })
    }

    /// The refill rate per second one reading implies: what is missing over the time to full;
    /// `nil` for a full bucket or no reset.
    static func impliedRate(limit: Int, remaining: Int, reset: Duration?) -> Double? {
        guard let reset, reset > .zero, limit > remaining else { return nil }
        return Double(limit - remaining) / reset.secondsValue
    }

    func available(at now: Duration) -> Double {
        guard let rate else {
            if let fullAt, now >= fullAt { return limit }
            return level
        }
        return min(limit, level + rate * max(0, (now - asOf).secondsValue))
    }

    /// How long until `cost` is available (a cost above the limit waits for a full bucket);
    /// `nil` when it is available now or the model cannot tell.
    func wait(for cost: Double, at now: Duration) -> Duration? {
        let needed = min(cost, limit)
        let have = available(at: now)
        guard have < needed else { return nil }
        if let rate, rate > 0 { return .seconds(clamping: (needed - have) / rate) }
        if let fullAt, fullAt > now { return fullAt - now }
        return nil
    }

    mutating func spend(_ cost: Double, at now: Duration) {
        level = available(at: now) - cost
        asOf = now
        if rate == nil, let fullAt, now >= fullAt { self.fullAt = nil }
    }
}

/// A token bucket the gate keeps itself: a local cap (`--rpm`, `--tpm`, holding one second's
/// worth) or the burst it trusts once the server's headers proved to overstate it.
struct LocalBucket: Sendable, Hashable {
    var capacity: Double
    var rate: Double
    var level: Double
    var asOf: Duration

    init(perMinute: Double, now: Duration) {
        rate = max(perMinute, 0.001) / 60
        capacity = max(1, rate)
        level = capacity
        asOf = now
    }

    init(capacity: Double, rate: Double, level: Double, now: Duration) {
        self.capacity = capacity
        self.rate = max(rate, 0.001)
        self.level = min(level, capacity)
        asOf = now
    }

    /// Refills at `rate` from `now` on (what was refilled before stays).
    mutating func setRate(_ rate: Double, at now: Duration) {
        level = available(at: now)
        asOf = now
        self.rate = max(rate, 0.001)
    }

    func available(at now: Duration) -> Double {
        min(capacity, level + rate * max(0, (now - asOf).secondsValue))
    }

    func wait(for cost: Double, at now: Duration) -> Duration? {
        let needed = min(cost, capacity)
        let have = available(at: now)
        // A refill computed to the instant may fall short by a rounding error.
        guard have < needed - 1e-9 else { return nil }
        return .seconds(clamping: (needed - have) / rate)
    }

    mutating func spend(_ cost: Double, at now: Duration) {
        level = available(at: now) - cost
        asOf = now
    }

    /// Gives back what an estimate overcharged (or takes what it undercharged).
    mutating func refund(_ amount: Double, now: Duration) {
        level = min(capacity, available(at: now) + amount)
        asOf = now
    }
}
