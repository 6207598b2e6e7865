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
/// - **A probe, then a ramp.** Until the first answer arrives only one request is in flight,
///   so the first wave is sized by what the server says rather than fired blind. Then the
///   window opens over time rather than at once: from 2, doubling every quarter of the probe's
///   latency (at least every millisecond), until it is full or the first 429 comes. A
///   latency-bound run loses a fraction of one round trip to it; a server that limits below
///   the window answers a few 429s, not a window's worth.
/// - **The rate the server sustains, measured** (``RateFinder``). Headers are believed as far
///   as the server bears them out: servers may announce a bigger bucket than they enforce
///   (OpenAI quantizes per-minute limits, so 1,200 a minute may be enforced as 20 a second;
///   proxies and Azure deployments do the like) or send no headers at all. From the first
///   429 the gate also paces requests with a bucket of its own, at the rate the server's 429s
///   show it sustains (never above the rate the headers imply, when they imply one), a little
///   below it so the server's bucket keeps some slack. A 429 that names no wait then pauses
///   nothing beyond that pace. Honest headers never let a 429 happen, so they never start it.
/// - **`--rpm` / `--tpm` caps.** Local token buckets holding one second's worth, so the
///   pace is even rather than a burst per minute. Token costs are estimates until the
///   answer's `usage` corrects them.
///
/// Waits for time go through `RunControl`, so stopping the run ends them at once.
package actor RequestGate {
    package struct Settings: Sendable, Hashable {
        package var maxConcurrency: Int
        package var requestsPerMinute: Double?
        package var tokensPerMinute: Double?
        /// Whether the first request goes alone.
        package var probeFirst: Bool
        /// Pause after a 429 that named no wait.
        package var defaultPause: Duration
        /// The longest pause or wait the gate imposes at once.
        package var longestWait: Duration

        package init(
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
    package struct Permit: Sendable, Hashable {
        let id: Int
        let grantedAt: Duration
        /// Estimated tokens the request spends.
        let cost: Double
    }

    /// How a request ended, as far as pacing cares.
    package enum Outcome: Sendable {
        case answered(RateLimitStatus?, usedTokens: Int?)
        case rateLimited(retryAfter: Duration?, RateLimitStatus?)
        case failed(RateLimitStatus?)
        /// Cancelled before an answer.
        case abandoned
    }

    /// Figures for progress lines and benchmarks.
    package struct Statistics: Sendable, Hashable {
        package var granted = 0
        package var rateLimited = 0
        package var windowDecreases = 0
        package var smallestWindow: Int
        /// Requests held back for time (a pause, the rate-limit model or the caps) before they
        /// were let go; waits for a free place in the window are not counted.
        package var pacedWaits = 0
        /// Requests the server answered (2xx).
        package var answered = 0
        /// 429 episodes that set the measured rate (``RateFinder``).
        package var rateMeasurements = 0
        /// The rate, in requests per second, the server's 429s showed it sustains (at the last
        /// 429); `nil` while no 429 came.
        package var measuredRate: Double?

        package init(smallestWindow: Int) { self.smallestWindow = smallestWindow }
    }

    package let settings: Settings
    private let clock: any RunClock
    private let control: RunControl

    package private(set) var window: Int
    package private(set) var statistics: Statistics
    private var inFlight: [Int: Permit] = [:]
    private var nextID = 0
    private var answeredOnce = false
    private var streak = 0
    /// The number of the last permit granted when the window was last halved.
    private var lastDecrease: Int?
    private var pausedUntil: Duration = .zero
    private var serverRequests: ServerBucket?
    private var serverTokens: ServerBucket?
    /// While the window opens after the probe: when the ramp began and how long it takes to
    /// double (see the type's comment).
    private var ramp: (start: Duration, doubling: Duration)?
    /// The rate measured from 429s, and the gate's own bucket that paces at it.
    private var finder: RateFinder?
    private var paced: TokenBucket?
    /// The permit whose 429 last reset `paced`: those granted after it are counted against it.
    private var pacedSince = 0
    /// When the requests the server took were let go, over the last second, until the first
    /// 429 (the finder's first estimate).
    private var recentAdmissions: [Duration] = []
    private var requestCap: TokenBucket?
    private var tokenCap: TokenBucket?
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var closed = false

    package init(settings: Settings, clock: any RunClock, control: RunControl) {
        self.settings = settings
        self.clock = clock
        self.control = control
        window = settings.maxConcurrency
        statistics = Statistics(smallestWindow: settings.maxConcurrency)
        let now = clock.now
        requestCap = settings.requestsPerMinute.map { TokenBucket(perMinute: $0, holdingSeconds: 1, now: now) }
        tokenCap = settings.tokensPerMinute.map { TokenBucket(perMinute: $0, holdingSeconds: 1, now: now) }
    }

    /// When the server last answered a request, if it has.
    package private(set) var lastAnswered: Duration?

    /// Whether the server answered a request within `span` before now: a 429 then is the
    /// server pacing the run, not refusing it.
    package func answered(within span: Duration) -> Bool {
        guard let lastAnswered else { return false }
        return clock.now - lastAnswered <= span
    }

    /// Requests in flight now.
    var inFlightCount: Int { inFlight.count }

    /// Waits until a request costing `cost` tokens may start; `nil` once the run is stopping.
    package func acquire(cost: Double = 0) async throws -> Permit? {
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
    package func release(_ permit: Permit, _ outcome: Outcome) {
        guard inFlight.removeValue(forKey: permit.id) != nil else { return }
        let now = clock.now
        switch outcome {
        case .answered(let status, let used):
            statistics.answered += 1
            lastAnswered = now
            if settings.probeFirst, !answeredOnce, window > 2 {
                ramp = (now, max(.milliseconds(1), (now - permit.grantedAt) / 4))
                window = 2
            }
            answeredOnce = true
            admitted(permit, at: now)
            observe(status, for: permit, at: now)
            if let used, var cap = tokenCap {
                cap.refund(permit.cost - Double(used), at: now)
                tokenCap = cap
            }
            if ramp == nil {
                streak += 1
                if streak >= window, window < settings.maxConcurrency {
                    window = min(settings.maxConcurrency, window + max(1, window / 4))
                    streak = 0
                }
            }
        case .rateLimited(let retryAfter, let status):
            answeredOnce = true
            updateRamp(at: now)
            ramp = nil
            statistics.rateLimited += 1
            observe(status, for: permit, at: now)
            streak = 0
            if var bucket = paced, permit.id > pacedSince {
                // Counted against the gate's own bucket, but the server took nothing for it.
                bucket.refund(1, at: now)
                paced = bucket
            }
            // Permits are numbered in the order granted: only one granted after the last
            // 429 episode began starts a new one.
            if lastDecrease.map({ permit.id > $0 }) ?? true {
                let measuring = finder != nil
                measureRate(after: permit, at: now)
                // Until a pace is measured each episode halves the window; then the pace rules.
                if !measuring {
                    window = max(1, window / 2)
                    statistics.windowDecreases += 1
                    statistics.smallestWindow = min(statistics.smallestWindow, window)
                }
                lastDecrease = nextID
            }
            // The measured pace already holds the next request back; only a wait the server
            // named pauses every request.
            let pause = min(max(retryAfter ?? (finder == nil ? settings.defaultPause : .zero), .zero), settings.longestWait)
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
    package func close() {
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
        updateRamp(at: now)
        if inFlight.count >= window {
            if let ramp {
                // The window grows with time: look again when it has room for one more.
                let doublings = log2(Double(inFlight.count + 1) / 2)
                return .waitUntil(max(now + .microseconds(1), ramp.start + ramp.doubling * max(0, doublings)))
            }
            return .waitForRelease
        }
        if pausedUntil > now { return .waitUntil(pausedUntil) }
        if let finder, var bucket = paced {
            bucket.setRate(finder.pace(at: now), at: now)
            paced = bucket
        }
        let waits = [
            requestCap?.wait(for: 1, at: now),
            tokenCap?.wait(for: cost, at: now),
            serverRequests?.wait(for: 1, at: now),
            serverTokens?.wait(for: cost, at: now),
            paced?.wait(for: 1, at: now),
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
        paced?.spend(1, at: now)
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
        }
        if let limit = status.limitTokens, let remaining = status.remainingTokens {
            serverTokens = ServerBucket.observed(
                previous: serverTokens, limit: limit, remaining: remaining, reset: status.resetTokens,
                spentSince: later.reduce(0) { $0 + $1.cost }, now: now)
        }
    }

    /// Opens the window as far as the ramp has come by `now`.
    private func updateRamp(at now: Duration) {
        guard let ramp else { return }
        let doublings = max(0, (now - ramp.start).secondsValue / max(ramp.doubling.secondsValue, 1e-6))
        // A hair over, so that the instant `decision` computed for a place opens it.
        let opened = doublings >= 10 ? settings.maxConcurrency : Int(2 * pow(2, doublings) + 1e-6)
        window = min(settings.maxConcurrency, max(window, opened))
        if window == settings.maxConcurrency { self.ramp = nil }
    }

    /// The server took `permit`'s request: evidence for the rate it sustains.
    private func admitted(_ permit: Permit, at now: Duration) {
        if var finder {
            if permit.id > finder.anchorPermit {
                finder.admit()
                self.finder = finder
            }
        } else {
            recentAdmissions.removeAll { $0 < now - .seconds(1) }
            recentAdmissions.append(permit.grantedAt)
        }
    }

    /// A 429 that begins an episode: the server's bucket was empty when `permit` arrived, so
    /// the measured rate is (re)set, and the gate's own bucket starts empty, less the requests
    /// let go after `permit` (they may take what the server refills; those that get a 429 give
    /// their place back).
    private func measureRate(after permit: Permit, at now: Duration) {
        let later = Double(inFlight.keys.filter { $0 > permit.id }.count)
        if var finder {
            let pending = inFlight.keys.filter { $0 > finder.anchorPermit && $0 < permit.id }.count
            finder.rateLimited(grantedAt: permit.grantedAt, pending: pending, now: now)
            self.finder = finder
        } else {
            let since = permit.grantedAt - .seconds(1)
            // What the server took in the second before: answered, or still in flight (it
            // would have answered 429 at once).
            let recent =
                recentAdmissions.filter { $0 >= since && $0 <= permit.grantedAt }.count
                + inFlight.values.filter { $0.id < permit.id && $0.grantedAt >= since }.count
            // Nothing admitted yet: no evidence of a rate (a later 429 starts the finder).
            guard recent > 0 else { return }
            finder = RateFinder(
                permit: permit.id, grantedAt: permit.grantedAt, recent: recent, impliedRate: serverRequests?.rate, now: now)
            recentAdmissions = []
        }
        guard let finder else { return }
        let pace = finder.pace(at: now)
        paced = TokenBucket(capacity: max(1, pace / 10), perSecond: pace, level: -later, now: now)
        pacedSince = permit.id
        statistics.rateMeasurements += 1
        statistics.measuredRate = finder.rate(at: now)
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

    /// The bucket the headers describe, when they gave its refill rate.
    private var refilling: TokenBucket? {
        rate.map { TokenBucket(capacity: limit, perSecond: $0, level: level, now: asOf) }
    }

    func available(at now: Duration) -> Double {
        if let refilling { return refilling.available(at: now) }
        if let fullAt, now >= fullAt { return limit }
        return level
    }

    /// How long until `cost` is available (a cost above the limit waits for a full bucket);
    /// `nil` when it is available now or the model cannot tell.
    func wait(for cost: Double, at now: Duration) -> Duration? {
        if let refilling { return refilling.wait(for: cost, at: now) }
        guard available(at: now) < min(cost, limit), let fullAt, fullAt > now else { return nil }
        return fullAt - now
    }

    mutating func spend(_ cost: Double, at now: Duration) {
        level = available(at: now) - cost
        asOf = now
        if rate == nil, let fullAt, now >= fullAt { self.fullAt = nil }
    }
}
