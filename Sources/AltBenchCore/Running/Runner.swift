import Foundation

/// Executes trials: cache look-up, pacing through a `RequestGate`, the request with retries,
/// scoring, and hand-off to the sink as each trial completes.
///
/// Failures fall into three classes (`ModelFailure.Severity`): retryable ones are retried
/// under the `RetryPolicy`; item-fatal ones are recorded as the trial's failure; run-fatal
/// ones stop the run. A server that cannot be reached at all stops the run too: until some
/// request reaches the server, `connectFailureLimit` requests in a row (retries included)
/// that could not connect end it as misconfigured, rather than retrying every trial for
/// minutes. Once a request has reached the server, connection failures are retried like any
/// other, but a server that stays gone stops the run as lost (``StopReason/serverLost(_:)``,
/// resumable): `serverLostRequests` requests in a row that could not connect, spread over at
/// least `serverLostAfter`, so a restart of a few seconds costs retries, not the run. A server
/// that answers, but only with 5xx errors, stops the run as misconfigured the same way: until
/// some request is answered, `connectFailureLimit` 5xx answers in a row over at least 2 s
/// (a proxy whose upstream is down, a server that cannot load its model). A 429 while other
/// requests are answered is the server pacing the run: it is retried without using up an
/// attempt, so rate limits never fail a trial. A stop — that, a signal, or the deadline — starts no new request and
/// ends every wait at once; requests in flight get `gracePeriod` to finish, then are
/// cancelled. Trials that did not finish are not recorded (a later run or `--resume` asks
/// them again); everything recorded stays recorded.
///
/// Every result carries its cost (``TrialResult/costUSD``): 0 for an answer from the store;
/// the model's price (`prices`) applied to the usage an answer reports; `nil` for an answer
/// without usage or a model without a price; 0 for a failed trial, since an HTTP error is
/// not billed — though a request that timed out or lost its connection midway may still have
/// been, which the budget counts even where the result cannot. With `maxCost`, a
/// ``CostBudget`` holds each request's high estimate while it is asked, and the run stops
/// before a request that could take spending past the limit
/// (``StopReason/costLimit(limit:spent:)``), as gracefully as a deadline stop.
package struct Runner: Sendable {
    package var model: any VisionModel
    /// Where ``run(_:)`` records its trials; a runner that only judges (``judge(_:sink:)``)
    /// needs none.
    package var sink: (any ResultSink)?
    package var scorers: [any Scorer]
    package var settings: ScoringSettings
    /// The run's references, for CIDEr-D's document frequencies (``ReferenceCorpus``).
    package var corpus: ReferenceCorpus?
    package var retryPolicy: RetryPolicy
    /// The most requests in flight at once (`--concurrency`); the gate adapts below it.
    package var concurrency: Int
    package var requestsPerMinute: Double?
    package var tokensPerMinute: Double?
    package var useCache: Bool
    package var clock: any RunClock
    package var control: RunControl
    /// How long requests in flight may take to finish once the run is stopping.
    package var gracePeriod: Duration
    /// How long the run may take from its start (`--deadline`).
    package var deadline: Duration?
    /// Prices per model, for each trial's cost; `nil` leaves costs unknown.
    package var prices: PriceTable?
    /// The most the run may spend, in USD (`--max-cost`); needs a price for every model the
    /// trials' requests name (the app refuses to start a run with a limit otherwise).
    package var maxCost: Double?
    /// How many requests in a row that could not connect, with none reaching the server
    /// before them, stop the run (``connectFailureLimit(concurrency:)`` by default).
    package var connectFailureLimit: Int
    /// How long a server that had answered may refuse connections (with at least
    /// ``serverLostRequests`` requests in a row failing to connect) before the run stops as
    /// lost.
    package var serverLostAfter: Duration
    package var onProgress: (@Sendable (RunProgress) -> Void)?

    package init(
        model: any VisionModel, sink: (any ResultSink)?, scorers: [any Scorer] = ScoringSuite.standard,
        settings: ScoringSettings = ScoringSettings(), corpus: ReferenceCorpus? = nil,
        retryPolicy: RetryPolicy = RetryPolicy(), concurrency: Int = 4, requestsPerMinute: Double? = nil, tokensPerMinute: Double? = nil,
        useCache: Bool = true, clock: any RunClock = SystemRunClock(), control: RunControl = RunControl(),
        gracePeriod: Duration = .seconds(5), deadline: Duration? = nil, prices: PriceTable? = nil,
        maxCost: Double? = nil, connectFailureLimit: Int? = nil,
        serverLostAfter: Duration = .seconds(30), onProgress: (@Sendable (RunProgress) -> Void)? = nil
    ) {
        self.model = model
        self.sink = sink
        self.scorers = scorers
        self.settings = settings
        self.corpus = corpus
        self.retryPolicy = retryPolicy
        self.concurrency = max(1, concurrency)
        self.requestsPerMinute = requestsPerMinute
        self.tokensPerMinute = tokensPerMinute
        self.useCache = useCache
        self.clock = clock
        self.control = control
        self.gracePeriod = gracePeriod
        self.deadline = deadline
        self.prices = prices
        self.maxCost = maxCost
        self.connectFailureLimit = max(1, connectFailureLimit ?? Self.connectFailureLimit(concurrency: concurrency))
        self.serverLostAfter = serverLostAfter
        self.onProgress = onProgress
    }

    /// The rule for a server that cannot be reached: the run's concurrency, at least 3 and at
    /// most 10. At concurrency 4 the first four requests, sent at once, decide within the
    /// time one connection attempt takes; at concurrency 1 the first request and two retries
    /// (0.5 s and 1 s later) give a server that is still starting a moment; above 10, ten
    /// failures are evidence enough.
    package static func connectFailureLimit(concurrency: Int) -> Int {
        min(10, max(3, concurrency))
    }

    /// How many workers run jobs for `concurrency` requests in flight: a few more than the
    /// gate's slots, so that scoring and storing one answer never holds a request slot idle —
    /// at concurrency 50 the answers of a 100 ms round arrive together, and scoring and
    /// storing them one worker each left the slots idle for a tenth of the run. The gate
    /// still lets no more than `concurrency` requests be in flight; below 8 there are no
    /// spare workers, so a slow run's requests go out in plan order as before.
    package static func workers(concurrency: Int) -> Int {
        concurrency + concurrency / 8
    }

    /// How recently the server must have answered a request for a 429 to be its pacing rather
    /// than a refusal: retried without using up an attempt.
    package static let pacingEvidence = Duration.seconds(30)

    /// Requests in a row that could not connect, after the server had answered, that (over
    /// ``serverLostAfter``) make it lost.
    package static let serverLostRequests = 10

    /// How a run ended.
    package struct Outcome: Sendable {
        package var progress: RunProgress
        /// Why the run stopped early; `nil` when every trial was done.
        package var stopReason: StopReason?
        /// The gate's figures: 429s seen, window decreases, paced waits.
        package var pacing: RequestGate.Statistics
        /// USD spent against `maxCost`: actual costs, and high estimates where the cost could
        /// not be known (``CostBudget/spent``); `nil` when the run had no limit.
        package var spentUSD: Double? = nil

        package init(progress: RunProgress, stopReason: StopReason?, pacing: RequestGate.Statistics, spentUSD: Double? = nil) {
            self.progress = progress
            self.stopReason = stopReason
            self.pacing = pacing
            self.spentUSD = spentUSD
        }
    }

    private enum Role: Sendable {
        case worker, watchdog, timer
    }

    /// Raised inside the run when the grace period ends with requests still in flight.
    private struct GraceExpired: Error {}

    /// Runs every trial (or until stopped) and returns the tally.
    @discardableResult
    package func run(_ trials: [Trial]) async throws -> Outcome {
        guard let sink else { preconditionFailure("Runner.run needs a sink to record its trials") }
        let costing = Costing(models: Set(trials.compactMap(\.request?.model)), prices: prices, maxCost: maxCost)
        var counts: [String: Int] = [:]
        for key in trials.compactMap(\.key) { counts[key, default: 0] += 1 }
        let shared = SharedRequests(keys: Set(counts.filter { $0.value > 1 }.keys))
        return try await drive(trials, costing: costing, shared: shared) { trial, context in
            try await self.perform(trial, sink: sink, context: context)
        }
    }

    /// Asks the judge every call (or until stopped) through the same pacing, retries, stop
    /// rules and spending limit as the trials, handing each result to `sink`; `model` is the
    /// judge's client.
    ///
    /// A call whose key the sink has an answer for costs nothing and sends nothing.
    @discardableResult
    package func judge(_ calls: [JudgeCall], sink: any JudgeSink) async throws -> Outcome {
        let costing = Costing(models: Set(calls.map(\.request.model)), prices: prices, maxCost: maxCost)
        return try await drive(calls, costing: costing, shared: SharedRequests(keys: [])) { call, context in
            try await self.perform(call, sink: sink, context: context)
        }
    }

    /// What a unit of work uses while it runs: the shared gate, tally, reachability and costs.
    private struct Context: Sendable {
        let gate: RequestGate
        let tally: Tally
        let reach: ServerReach
        let costing: Costing
        let shared: SharedRequests
    }

    /// Runs `perform` on every job with `concurrency` workers until all are done or the run
    /// stops: the watchdog closes the gate and gives requests in flight the grace period, and
    /// the deadline timer stops the run when it passes.
    private func drive<Job: Sendable>(
        _ jobs: [Job], costing: Costing, shared: SharedRequests,
        perform: @escaping @Sendable (Job, Context) async throws -> Void
    ) async throws -> Outcome {
        let tally = Tally(total: jobs.count, start: clock.now, clock: clock)
        let gate = RequestGate(
            settings: .init(
                maxConcurrency: concurrency, requestsPerMinute: requestsPerMinute, tokensPerMinute: tokensPerMinute),
            clock: clock, control: control)
        let queue = JobQueue(jobs, control: control)
        let reach = ServerReach(limit: connectFailureLimit, lostRequests: Self.serverLostRequests, lostAfter: serverLostAfter)
        let context = Context(gate: gate, tally: tally, reach: reach, costing: costing, shared: shared)
        let workers = min(Self.workers(concurrency: concurrency), max(jobs.count, 1))
        let start = clock.now
        do {
            try await withThrowingTaskGroup(of: Role.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        while let job = queue.next() {
                            try await perform(job, context)
                        }
                        return .worker
                    }
                }
                group.addTask {
                    await self.control.wait(for: .stopping)
                    guard !Task.isCancelled else { return .watchdog }
                    await gate.close()
                    await self.graceWait()
                    guard !Task.isCancelled else { return .watchdog }
                    throw GraceExpired()
                }
                if let deadline {
                    group.addTask {
                        // Cancelled once every worker is done.
                        if (try? await self.control.sleep(until: start + deadline, on: self.clock)) == true {
                            self.control.stop(.deadline(deadline))
                        }
                        return .timer
                    }
                }
                var working = workers
                while let role = try await group.next() {
                    guard role == .worker else { continue }
                    working -= 1
                    if working == 0 { group.cancelAll() }
                }
            }
        } catch is GraceExpired {
            // Requests still in flight were cancelled; their jobs stay unrecorded.
        } catch is CancellationError where control.isStopping {
        }
        return Outcome(
            progress: await tally.snapshot(), stopReason: control.stopReason, pacing: await gate.statistics,
            spentUSD: await costing.budget?.spent)
    }

    /// The grace period, cut short by `abort`.
    private func graceWait() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await self.clock.sleep(for: self.gracePeriod) }
            group.addTask { await self.control.wait(for: .aborting) }
            await group.next()
            group.cancelAll()
        }
    }

    private func perform(_ trial: Trial, sink: any ResultSink, context: Context) async throws {
        let started = Date()
        guard let (outcome, attempts, leads) = try await outcome(for: trial, sink: sink, context: context) else { return }
        var result = scoredResult(trial, outcome: outcome, attempts: attempts, startedAt: started)
        result.costUSD = context.costing.cost(of: outcome, model: trial.request?.model)
        do {
            try await sink.record(result)
        } catch {
            if let leads { await context.shared.finish(leads, nil) }
            throw error
        }
        // The trials waiting for this answer take it once it is stored, so that what they
        // record points at a stored answer.
        if let leads { await context.shared.finish(leads, outcome) }
        let progress = await context.tally.add(failed: result.failure != nil, cached: result.cached)
        onProgress?(progress)
    }

    /// A trial's result once its outcome is known, its answer scored with the run's scorers:
    /// the one rule for live requests and for answers from a batch.
    package func scoredResult(_ trial: Trial, outcome: TrialOutcome, attempts: Int, startedAt: Date) -> TrialResult {
        let scores: [Score]
        if case .answered(let answer, _) = outcome {
            scores = ScoringSuite.evaluate(answer.scoringInput(settings, item: ScoringItem(trial.item), corpus: corpus), scorers: scorers)
        } else {
            scores = []
        }
        return TrialResult(
            trial: trial, outcome: outcome, scores: scores, attempts: attempts, startedAt: startedAt, finishedAt: Date())
    }

    private func perform(_ call: JudgeCall, sink: any JudgeSink, context: Context) async throws {
        let started = Date()
        let outcome: TrialOutcome
        let attempts: Int
        if useCache, let cached = try await sink.cachedJudgeAnswer(forKey: call.key) {
            (outcome, attempts) = (.answered(cached, cached: true), 0)
        } else {
            guard let asked = try await send(call.request, estimate: call.estimate, context: context) else { return }
            (outcome, attempts) = asked
        }
        var result = JudgeCallResult(call: call, outcome: outcome, attempts: attempts, startedAt: started, finishedAt: Date())
        result.costUSD = context.costing.cost(of: outcome, model: call.request.model)
        try await sink.record(result)
        let progress = await context.tally.add(failed: result.outcome.failure != nil, cached: result.outcome.cached)
        onProgress?(progress)
    }

    /// The trial's outcome, the requests it took, and the cache key of the request it sent
    /// for other trials too (they wait until it is recorded: ``perform(_:sink:context:)``
    /// finishes it); `nil` when the run stopped first.
    ///
    /// Under a spending limit the trial reserves its high estimate once it may send, and
    /// keeps it until its answer; a reservation that does not fit stops the run, and the trial
    /// is left unrecorded for a `--resume`. Retries reuse the reservation after a failure that
    /// is not billed (an HTTP error, no connection); after one that may have been (a timeout,
    /// a connection lost midway), the reservation is spent and the retry reserves anew.
    private func outcome(
        for trial: Trial, sink: any ResultSink, context: Context
    ) async throws -> (TrialOutcome, Int, leads: String?)? {
        guard let request = trial.request, let key = trial.key else {
            let message = trial.item.problem?.message ?? "the image of item '\(trial.item.id)' cannot be sent."
            return (.failed(ModelFailure(kind: .image, message: message, retryable: false)), 0, nil)
        }
        if useCache, let cached = try await sink.cachedAnswer(forKey: key) {
            return (.answered(cached, cached: true), 0, nil)
        }
        guard context.shared.shares(key) else {
            return try await send(request, estimate: Costing.estimate(trial, request: request), context: context)
                .map { ($0.0, $0.1, nil) }
        }
        // A request byte-identical to another trial's (the same cache key) is sent once; the
        // others take its outcome, as from the store (sent once, billed once).
        if let joined = await context.shared.join(key) {
            switch joined {
            case .answered(let answer, _)?: return (.answered(answer, cached: true), 0, nil)
            case .failed(let failure)?: return (.failed(failure), 0, nil)
            case nil: return nil
            }
        }
        do {
            guard let outcome = try await send(request, estimate: Costing.estimate(trial, request: request), context: context) else {
                await context.shared.finish(key, nil)
                return nil
            }
            return (outcome.0, outcome.1, key)
        } catch {
            await context.shared.finish(key, nil)
            throw error
        }
    }

    /// Sends `request` under the spending limit: it reserves its high estimate once it may
    /// send and keeps it until its answer; `nil` when the run stopped first.
    private func send(
        _ request: ModelRequest, estimate: RequestEstimate, context: Context
    ) async throws -> (TrialOutcome, Int)? {
        var claim = BudgetClaim(budget: context.costing.budget, amount: context.costing.highEstimate(request, estimate))
        do {
            // Pacing counts what OpenAI counts against a tokens-per-minute limit: the input and
            // the whole output ceiling, reserved up front; the answer's usage corrects it.
            let tokens = Double(estimate.inputTokens + estimate.outputTokensMax)
            let outcome = try await ask(request, tokens: tokens, claim: &claim, context: context)
            await claim.release()
            return outcome
        } catch {
            await claim.release()
            throw error
        }
    }

    /// Sends `request` until it is answered, fails for good or the run stops; `claim` holds
    /// the trial's reservation while it is asked.
    private func ask(
        _ request: ModelRequest, tokens cost: Double, claim: inout BudgetClaim, context: Context
    ) async throws -> (TrialOutcome, Int)? {
        let (gate, tally, reach, costing) = (context.gate, context.tally, context.reach, context.costing)
        // Requests sent, and those that count against the retry policy: a 429 while other
        // requests are answered is the server pacing the run, not the trial failing.
        var attempt = 0
        var counted = 0
        while true {
            guard let permit = try await gate.acquire(cost: cost) else { return nil }
            if let refusal = await claim.hold() {
                await gate.release(permit, .abandoned)
                control.stop(refusal.stopReason)
                return nil
            }
            if control.isStopping {
                // Stopped while the reservation was being made: the request does not start.
                await gate.release(permit, .abandoned)
                return nil
            }
            attempt += 1
            counted += 1
            let failure: ModelFailure
            let start = ContinuousClock.now
            do {
                var answer = try await model.complete(request)
                answer.latencyMs = (ContinuousClock.now - start).milliseconds
                reach.reached()
                reach.answered()
                await gate.release(permit, .answered(answer.rateLimit, usedTokens: answer.totalTokens))
                await claim.settle(cost: costing.cost(of: answer, model: request.model))
                return (.answered(answer, cached: false), attempt)
            } catch let error as ModelFailure {
                failure = error
            } catch {
                if error is CancellationError || Task.isCancelled {
                    await gate.release(permit, .abandoned)
                    // Cut off in flight: the server may bill it all the same.
                    await claim.settle(cost: nil)
                    throw CancellationError()
                }
                failure = ModelFailure(kind: .transport, message: String(describing: error), retryable: true)
            }
            await gate.release(
                permit,
                failure.isRateLimit
                    ? .rateLimited(retryAfter: failure.retryAfter, failure.rateLimit) : .failed(failure.rateLimit))
            if Self.mayBeBilled(failure) { await claim.settle(cost: nil) }
            if failure.cannotConnect {
                switch reach.failedToConnect(at: clock.now) {
                case .unreachable:
                    var stop = failure
                    stop.stopsRun = true
                    control.stop(.failure(stop))
                    return nil
                case .lost(let requests, let over):
                    var stop = failure
                    stop.message =
                        "the server stopped answering: \(requests) requests in a row over \(DurationText.format(over)) could not connect, after it had answered. \(failure.message)"
                    control.stop(.serverLost(stop))
                    return nil
                case .retry:
                    break
                }
            } else if failure.kind != .image && failure.kind != .notStored {
                // An HTTP error, a timeout or a connection lost midway: the server is there.
                reach.reached()
                if let status = failure.status, status >= 500, let count = reach.serverError(at: clock.now) {
                    var stop = failure
                    stop.stopsRun = true
                    stop.message = Self.onlyServerErrors(failure, requests: count)
                    control.stop(.failure(stop))
                    return nil
                }
            }
            switch failure.severity {
            case .runFatal:
                control.stop(.failure(failure))
                return nil
            case .itemFatal:
                if failure.kind == .http { reach.answered() }
                // An image that could not be read, or --offline: nothing was sent.
                let sent = failure.kind == .image || failure.kind == .notStored ? attempt - 1 : attempt
                return (.failed(failure), sent)
            case .retryable:
                if failure.isRateLimit, await gate.answered(within: Self.pacingEvidence) {
                    // The server answers other requests: wait as asked (the gate paces the
                    // rest) and ask again without using up an attempt.
                    counted -= 1
                    await tally.retried()
                    let wait = min(max(failure.retryAfter ?? .zero, .zero), retryPolicy.maxDelay)
                    guard try await control.sleep(until: clock.now + wait, on: clock) else { return nil }
                    continue
                }
                guard let wait = retryPolicy.delay(afterFailure: failure, retry: counted - 1) else {
                    return (.failed(failure), attempt)
                }
                await tally.retried()
                guard try await control.sleep(until: clock.now + wait, on: clock) else { return nil }
            }
        }
    }

    /// The reason a run stops when its server answered only 5xx errors, `requests` in a row and
    /// none answered: the status, what the server said, and where the trouble likely is.
    static func onlyServerErrors(_ failure: ModelFailure, requests: Int) -> String {
        let status = failure.status.map(String.init) ?? "5xx"
        var said = failure.message
        if let code = failure.code, !said.contains(code) { said = "\(code): \(said)" }
        let hint: String
        switch failure.status {
        case 502, 504:
            hint = "A 502 or 504 comes from a gateway or proxy in front of the model: the proxy is up, but the server behind it is not answering. Check the proxy's upstream URL and its log."
        case 503:
            hint = "The server is up but says it cannot serve: it may be starting, overloaded or missing its model. Check the server's log, or try again later."
        default:
            hint = "The server is up but fails on every request: check its log."
        }
        return "the server answered \(status) to all \(requests) requests so far and none succeeded, so the run stopped instead of retrying every trial (\(said)). \(hint)"
    }

    /// Whether the server may bill a request that failed this way: it timed out, lost its
    /// connection midway or answered 2xx with something that is not a completion. An HTTP
    /// error status is not billed, and neither is a request that never connected or was never
    /// sent (a bad image, `--offline`).
    static func mayBeBilled(_ failure: ModelFailure) -> Bool {
        switch failure.kind {
        case .timeout, .malformed: return true
        case .transport: return !failure.cannotConnect
        case .http, .image, .notStored: return false
        }
    }
}

/// A run's prices, looked up once per model, and its spending budget.
private struct Costing: Sendable {
    /// The price of every model the trials' requests name, where the table has one.
    let prices: [String: ModelPrice]
    /// The whole table, for the model an answer says answered it.
    let table: PriceTable?
    let budget: CostBudget?

    init(models: Set<String>, prices table: PriceTable?, maxCost: Double?) {
        self.table = table
        var prices: [String: ModelPrice] = [:]
        if let table {
            for model in models {
                if let found = table.price(forModel: model) { prices[model] = found.price }
            }
        }
        if maxCost != nil {
            for model in models {
                precondition(
                    prices[model] != nil,
                    "Runner: a run with maxCost needs a price for every model its requests name, and '\(model)' has none in the price table. Check prices before starting such a run."
                )
            }
        }
        self.prices = prices
        budget = maxCost.map { CostBudget(limit: $0) }
    }

    /// USD for a request at its ceiling: every input token uncached and every output token it
    /// may use; 0 without a limit (nothing reserves).
    func highEstimate(_ request: ModelRequest, _ estimate: RequestEstimate) -> Double {
        guard budget != nil, let price = prices[request.model] else { return 0 }
        return price.cost(inputTokens: estimate.inputTokens, outputTokens: estimate.outputTokensMax)
    }

    /// The planner's estimate for the trial's request, or one made now for a trial built
    /// without it.
    static func estimate(_ trial: Trial, request: ModelRequest) -> RequestEstimate {
        trial.estimate
            ?? RequestEstimate.make(
                request: request, imageWidth: trial.item.imageInfo?.width, imageHeight: trial.item.imageInfo?.height)
    }

    /// USD for one answer from the usage it reports and the model's price; `nil` when the
    /// answer reports no prompt or completion tokens, or no price is known.
    ///
    /// A request model without a price is priced by the model the server says answered
    /// (`responseModel`): Azure's v1 API and many proxies take a deployment or route name as
    /// `model` and answer with the real model's name (`gpt-4o-2024-08-06`).
    func cost(of answer: ModelAnswer, model: String) -> Double? {
        let price = prices[model] ?? answer.responseModel.flatMap { table?.price(forModel: $0)?.price }
        guard let price, let prompt = answer.promptTokens, let completion = answer.completionTokens
        else { return nil }
        return price.cost(TokenUsage(promptTokens: prompt, cachedTokens: answer.cachedTokens ?? 0, completionTokens: completion))
    }

    /// A finished trial's cost (``TrialResult/costUSD``): 0 for an answer from the store and
    /// for a failed trial (an HTTP error is not billed; a timed-out request may still have
    /// been, which only the budget counts), the priced usage of an answer, `nil` when that is
    /// unknown.
    func cost(of outcome: TrialOutcome, model: String?) -> Double? {
        switch outcome {
        case .answered(_, cached: true), .failed: return 0
        case .answered(let answer, cached: false):
            guard let model else { return nil }
            return cost(of: answer, model: model)
        }
    }
}

/// A trial's reservation in the budget, if the run has one: taken before a request is sent,
/// settled at the answer's cost or at its whole amount, released when nothing was billed.
private struct BudgetClaim {
    let budget: CostBudget?
    /// The trial's high estimate.
    let amount: Double
    private var held: CostBudget.Reservation?

    init(budget: CostBudget?, amount: Double) {
        self.budget = budget
        self.amount = amount
    }

    /// Reserves the amount unless it is held already; the refusal when it does not fit.
    mutating func hold() async -> CostBudget.Refusal? {
        guard let budget, held == nil else { return nil }
        switch await budget.reserve(amount) {
        case .success(let reservation):
            held = reservation
            return nil
        case .failure(let refusal):
            return refusal
        }
    }

    /// The request was billed `cost` (`nil`: unknown, so the whole reservation).
    mutating func settle(cost: Double?) async {
        guard let budget, let reservation = held else { return }
        held = nil
        await budget.settle(reservation, cost: cost)
    }

    /// Nothing (more) was billed: the reservation, if any is held, goes back.
    mutating func release() async {
        guard let budget, let reservation = held else { return }
        held = nil
        await budget.release(reservation)
    }
}

/// Requests that more than one trial of a run would send byte for byte (the same cache key:
/// e.g. two prompts that render alike for an item without a post): the first trial to ask
/// sends it; the others wait for its outcome.
private actor SharedRequests {
    private let keys: Set<String>
    private var owned: Set<String> = []
    private var outcomes: [String: TrialOutcome] = [:]
    private var waiting: [String: [CheckedContinuation<TrialOutcome?, Never>]] = [:]

    init(keys: Set<String>) { self.keys = keys }

    nonisolated func shares(_ key: String) -> Bool { keys.contains(key) }

    /// `nil` when the caller is the first and sends the request (then calls ``finish(_:_:)``);
    /// otherwise the sender's outcome, `.some(nil)` when it stopped without one.
    func join(_ key: String) async -> TrialOutcome?? {
        if let outcome = outcomes[key] { return .some(outcome) }
        guard owned.contains(key) else {
            owned.insert(key)
            return nil
        }
        let outcome = await withCheckedContinuation { waiting[key, default: []].append($0) }
        return .some(outcome)
    }

    /// The sender's outcome (`nil`: it stopped first; a later trial with the key sends again).
    func finish(_ key: String, _ outcome: TrialOutcome?) {
        if let outcome { outcomes[key] = outcome } else { owned.remove(key) }
        for waiter in waiting.removeValue(forKey: key) ?? [] { waiter.resume(returning: outcome) }
    }
}

/// Hands out jobs in plan order until the run starts stopping.
private final class JobQueue<Job: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private let jobs: [Job]
    private var position = 0
    private let control: RunControl

    init(_ jobs: [Job], control: RunControl) {
        self.jobs = jobs
        self.control = control
    }

    func next() -> Job? {
        if control.isStopping { return nil }
        return lock.withLock {
            guard position < jobs.count else { return nil }
            defer { position += 1 }
            return jobs[position]
        }
    }
}

/// Whether any request has reached the server yet, and how many requests in a row could not
/// connect (and since when): the evidence for stopping a run whose server is not there, or
/// is gone.
private final class ServerReach: @unchecked Sendable {
    enum Verdict {
        /// Retry under the policy.
        case retry
        /// The server was never reached: the run is misconfigured.
        case unreachable
        /// The server had answered and has refused connections for this many requests, over
        /// this long.
        case lost(requests: Int, over: Duration)
    }

    private let lock = NSLock()
    private let limit: Int
    private let lostRequests: Int
    private let lostAfter: Duration
    private var hasReached = false
    /// Whether the server has answered a request (2xx, or a 4xx about that request): its errors
    /// are then the server's moods, not a misconfiguration.
    private var hasAnswered = false
    private var serverErrors = 0
    private var serverErrorsSince: Duration?
    private var failures = 0
    private var failingSince: Duration?

    init(limit: Int, lostRequests: Int, lostAfter: Duration) {
        self.limit = limit
        self.lostRequests = lostRequests
        self.lostAfter = lostAfter
    }

    /// A request got an answer (of any kind) from the server: the streak of connection
    /// failures ends.
    func reached() {
        lock.withLock {
            hasReached = true
            failures = 0
            failingSince = nil
        }
    }

    /// The server answered a request: 5xx errors no longer stop the run.
    func answered() {
        lock.withLock { hasAnswered = true }
    }

    /// Counts a 5xx answer at `now`; the count when the run should stop: `limit` in a row, none
    /// answered, over at least ``serverErrorSpan`` (a server still loading its model for a
    /// moment is retried; one that fails for seconds is not).
    func serverError(at now: Duration) -> Int? {
        lock.withLock {
            guard !hasAnswered else { return nil }
            serverErrors += 1
            let since = serverErrorsSince ?? now
            serverErrorsSince = since
            return serverErrors >= limit && now - since >= Self.serverErrorSpan ? serverErrors : nil
        }
    }

    /// The shortest time 5xx answers must last, with nothing answered, to stop a run.
    static let serverErrorSpan = Duration.seconds(2)

    /// Counts a request that could not connect at `now`; says whether the run should stop.
    func failedToConnect(at now: Duration) -> Verdict {
        lock.withLock {
            failures += 1
            let since = failingSince ?? now
            failingSince = since
            if !hasReached { return failures >= limit ? .unreachable : .retry }
            guard failures >= lostRequests, now - since >= lostAfter else { return .retry }
            return .lost(requests: failures, over: now - since)
        }
    }
}

/// Counts finished trials for progress lines.
private actor Tally {
    let total: Int
    let start: Duration
    let clock: any RunClock
    var done = 0
    var failed = 0
    var cached = 0
    var retries = 0

    init(total: Int, start: Duration, clock: any RunClock) {
        self.total = total
        self.start = start
        self.clock = clock
    }

    func add(failed wasFailed: Bool, cached wasCached: Bool) -> RunProgress {
        done += 1
        if wasFailed { failed += 1 }
        if wasCached { cached += 1 }
        return snapshot()
    }

    func retried() { retries += 1 }

    func snapshot() -> RunProgress {
        RunProgress(
            done: done, total: total, failed: failed, cached: cached, elapsed: clock.now - start, retries: retries)
    }
}

extension Duration {
    /// The duration in (fractional) milliseconds.
    package var milliseconds: Double {
        let parts = components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }
}
