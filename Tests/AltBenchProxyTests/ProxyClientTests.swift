import AltBenchCore
import AltBenchHTTP
import AltBenchOpenAI
import AltBenchProxy
import AltBenchTesting
import AsyncHTTPClient
import Foundation
import Testing

/// altbench's client (`OpenAIVisionModel(proxy:)` with a `ProxySession`) against the real
/// reference proxy on 127.0.0.1, with the test server as its upstream: tokens, renewal,
/// clock skew, re-signing, and the stops a misconfiguration needs.
@Suite("client through the signed proxy")
struct ProxyClientTests {
    static let appKey = "proxy-app-key-SECRET-0001"
    static let upstreamKey = "sk" + "-upstream-SECRET-0123456789"

    /// A clock the proxy or the client reads: real time moved by `shift` seconds.
    final class ShiftedClock: @unchecked Sendable {
        private let lock = NSLock()
        private var shift: Double
        init(_ shift: Double = 0) { self.shift = shift }
        func now() -> Double { lock.withLock { Date().timeIntervalSince1970 + shift } }
        func advance(_ seconds: Double) { lock.withLock { shift += seconds } }
    }

    /// The proxy's log lines, parsed.
    final class LogLines: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
        func entries(path: String) -> [JSONValue] {
            all.compactMap { try? JSONValue.parse(Data($0.utf8)) }.filter { $0["path"]?.stringValue == path }
        }
        func statuses(path: String) -> [Int] { entries(path: path).compactMap { $0["status"]?.intValue } }
    }

    struct Setup {
        var upstream: OpenAITestServer
        var proxy: SignedProxy
        var log: LogLines
        var proxyClock: ShiftedClock

        func stop() async {
            await proxy.stop()
            await upstream.stop()
        }
    }

    static func start(
        upstream handler: @escaping OpenAITestServer.Handler = OpenAITestServer.compatible(apiKey: upstreamKey),
        existing: OpenAITestServer? = nil, port: Int = 0, proxyClock: ShiftedClock = ShiftedClock(),
        log: LogLines = LogLines(), configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> Setup {
        let upstream: OpenAITestServer
        if let existing { upstream = existing } else { upstream = try await OpenAITestServer.start(handler: handler) }
        var configuration = ProxyConfiguration(
            upstream: URL(string: upstream.baseURL)!, upstreamKey: Secret(upstreamKey), appKey: Secret(appKey))
        configuration.port = port
        configuration.requestsPerMinute = 100_000
        configuration.now = { proxyClock.now() }
        configuration.log = { log.append($0) }
        configure(&configuration)
        let proxy = try await SignedProxy.start(configuration)
        return Setup(upstream: upstream, proxy: proxy, log: log, proxyClock: proxyClock)
    }

    static func client(
        _ setup: Setup, appKey: String = appKey, clock: ShiftedClock = ShiftedClock(),
        // These tests check the protocol, not latency: fifty signed requests at once on a machine
        // busy with the whole suite (browser tests included) were seen to take over 10 s.
        settings: SignedProxyConventions = .default, timeout: Duration = .seconds(60)
    ) -> (OpenAIVisionModel, ProxySession) {
        // A pool as large as the tests' concurrency, as `altbench run` makes it.
        let http = sharedClient
        let session = ProxySession(
            proxyURL: URL(string: setup.proxy.baseURL)!, appKey: Secret(appKey), settings: settings, httpClient: http,
            timeout: timeout, clock: { clock.now() })
        return (OpenAIVisionModel(proxy: session, timeout: timeout, httpClient: http), session)
    }

    static let sharedClient = HTTPClients.make(maxConnections: 64)

    static func request(_ prompt: String = "What’s in this image? Be brief.") -> ModelRequest {
        ModelRequest(
            model: "gpt-4o-mini", prompt: prompt, image: .remote(URL(string: "https://files.mastodon.social/media/x.png")!),
            imageIdentity: "identity", maxTokens: 50)
    }

    /// `model.complete`, asked once more after a lost connection: a pooled connection to a
    /// proxy that restarted breaks on first use, which `altbench run` retries the same way.
    static func completeRetryingLostConnections(_ model: OpenAIVisionModel, _ request: ModelRequest) async throws -> ModelAnswer {
        do {
            return try await model.complete(request)
        } catch let failure as ModelFailure where failure.kind == .transport {
            return try await model.complete(request)
        }
    }

    @Test func aRequestReachesTheUpstreamWithOnlyTheUpstreamKey() async throws {
        let setup = try await Self.start()
        let (model, session) = Self.client(setup)
        let answer = try await model.complete(Self.request())
        let requests = await setup.upstream.requests()
        let tokenRequests = await session.tokenRequests
        await setup.stop()

        #expect(answer.content?.hasPrefix("A test description") == true)
        #expect(model.endpoint == "\(setup.proxy.baseURL)/v1/chat/completions")
        #expect(tokenRequests == 1)
        let forwarded = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(forwarded.header("authorization") == "Bearer \(Self.upstreamKey)")
        for name in ["x-signature", "x-timestamp", "x-session-id"] { #expect(forwarded.header(name) == nil) }
        #expect(setup.log.statuses(path: "/auth_token") == [200])
        #expect(setup.log.statuses(path: "/v1/chat/completions") == [200])
    }

    @Test func fiftyRequestsInFlightShareOneTokenRequest() async throws {
        let setup = try await Self.start()
        // Fifty signed requests at once, each with an image: on a machine busy with the rest of
        // the suite the last may wait well over 10 s, which is not what this test is about.
        let (model, session) = Self.client(setup, timeout: .seconds(60))
        let answers = try await withThrowingTaskGroup(of: ModelAnswer.self) { group in
            for index in 0..<50 { group.addTask { try await model.complete(Self.request("Describe image \(index).")) } }
            return try await group.reduce(into: [ModelAnswer]()) { $0.append($1) }
        }
        let tokenRequests = await session.tokenRequests
        await setup.stop()
        #expect(answers.count == 50)
        #expect(tokenRequests == 1)
        #expect(setup.log.statuses(path: "/auth_token") == [200])
        #expect(setup.log.statuses(path: "/v1/chat/completions") == Array(repeating: 200, count: 50))
    }

    /// Requests in flight at the upstream at once, and the most seen.
    final class InFlight: @unchecked Sendable {
        private let lock = NSLock()
        private var current = 0
        private(set) var peak = 0
        func enter() { lock.withLock { current += 1; peak = max(peak, current) } }
        func leave() { lock.withLock { current -= 1 } }
        var highest: Int { lock.withLock { peak } }
    }

    @Test func theProxyForwardsAsManyRequestsAtOnceAsTheClientSends() async throws {
        // AsyncHTTPClient's default pool holds 8 connections per host; a proxy using it would
        // queue a run at concurrency 50 behind 8 slow answers.
        let inFlight = InFlight()
        let answer = OpenAITestServer.compatible(apiKey: Self.upstreamKey)
        let setup = try await Self.start(upstream: { request in
            inFlight.enter()
            // The answers wait (at most 2 s each) until more than 8 have been in flight at once,
            // then all go: a proxy that forwards the requests together gets there however loaded
            // the machine; one that queues them behind 8 connections never does.
            var waited = 0
            while inFlight.highest <= 8, waited < 200 {
                try? await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            inFlight.leave()
            return await answer(request)
        })
        // What is measured is how many requests overlap, not how fast: on a machine busy with the
        // rest of the suite forty answers may take well over the default 10 s.
        let (model, _) = Self.client(setup, timeout: .seconds(60))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 { group.addTask { _ = try await model.complete(Self.request("Image \(index).")) } }
            try await group.waitForAll()
        }
        await setup.stop()
        #expect(inFlight.highest > 8, "the upstream saw at most \(inFlight.highest) requests at once")
    }

    @Test func aTokenNearItsExpiryIsRenewedOnceBeforeUse() async throws {
        // Both clocks move together: the proxy's time passes, and the client sees it pass.
        let clock = ShiftedClock()
        let setup = try await Self.start(proxyClock: clock) { $0.tokenTTL = .seconds(900) }
        let (model, session) = Self.client(setup, clock: clock)
        _ = try await model.complete(Self.request())
        clock.advance(850)  // 50 s left: inside the renewal margin (a tenth of the life, at most 60 s)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 { group.addTask { _ = try await model.complete(Self.request("Image \(index).")) } }
            try await group.waitForAll()
        }
        let tokenRequests = await session.tokenRequests
        await setup.stop()
        #expect(tokenRequests == 2)
        #expect(setup.log.statuses(path: "/auth_token") == [200, 200])
        #expect(!setup.log.statuses(path: "/v1/chat/completions").contains(401))
    }

    @Test func aProxyThatForgotTheSessionIsAskedForOneNewToken() async throws {
        let first = try await Self.start()
        let (model, session) = Self.client(first)
        _ = try await model.complete(Self.request())
        // The proxy restarts on the same port: its sessions are gone.
        let port = first.proxy.port
        await first.proxy.stop()
        let second = try await Self.start(existing: first.upstream, port: port)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { _ = try await Self.completeRetryingLostConnections(model, Self.request("Image \(index).")) }
            }
            try await group.waitForAll()
        }
        let tokenRequests = await session.tokenRequests
        await second.stop()
        #expect(tokenRequests == 2)
        #expect(second.log.statuses(path: "/auth_token") == [200])
        let chat = second.log.entries(path: "/v1/chat/completions")
        #expect(chat.filter { $0["status"]?.intValue == 200 }.count == 20)
        #expect(chat.allSatisfy { [200, 401].contains($0["status"]?.intValue ?? 0) })
        #expect(chat.filter { $0["status"]?.intValue == 401 }.allSatisfy { $0["code"]?.stringValue == "invalid_session" })
    }

    @Test(arguments: [600.0, -600.0])
    func aClockTenMinutesOffIsCorrectedByTheProxysTime(_ skew: Double) async throws {
        let setup = try await Self.start()
        let (model, session) = Self.client(setup, clock: ShiftedClock(skew))
        for index in 0..<3 { _ = try await model.complete(Self.request("Image \(index).")) }
        let tokenRequests = await session.tokenRequests
        await setup.stop()
        // The first token request is refused as stale; its server_time fixes every later one.
        #expect(tokenRequests == 2)
        #expect(setup.log.statuses(path: "/auth_token") == [401, 200])
        #expect(setup.log.entries(path: "/auth_token").first?["code"]?.stringValue == "stale_timestamp")
        #expect(setup.log.statuses(path: "/v1/chat/completions") == [200, 200, 200])
    }

    @Test func identicalRequestsInOneSecondAreSignedApart() async throws {
        let setup = try await Self.start()
        let (model, _) = Self.client(setup)
        // The same bytes five times in a row and five at once: repeats of one question. Each
        // must carry its own signature, or the proxy refuses it as a replay.
        for _ in 0..<5 { _ = try await model.complete(Self.request()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { _ = try await model.complete(Self.request()) } }
            try await group.waitForAll()
        }
        await setup.stop()
        #expect(setup.log.statuses(path: "/v1/chat/completions") == Array(repeating: 200, count: 10))
    }

    @Test func aRetriedRequestIsSignedAfresh() async throws {
        let script = ResponseScript([.html(status: 502), .html(status: 503)], then: OpenAITestServer.compatible(apiKey: Self.upstreamKey))
        let setup = try await Self.start(upstream: script.handler)
        let (model, _) = Self.client(setup)
        let variant = PromptVariant(name: "icecubes", file: "prompts/icecubes.md", text: "Describe.", model: "gpt-4o-mini")
        let item = DatasetItem(id: "x", image: .remote(URL(string: "https://files.mastodon.social/media/x.png")!))
        let trial = Trial(id: 0, variant: variant, item: item, maxTokens: 50, repeatIndex: 0, request: Self.request(), key: "k")
        let sink = Sink()
        let runner = Runner(
            model: model, sink: sink, retryPolicy: RetryPolicy(maxRetries: 3, initialDelay: .milliseconds(1), jitter: false),
            concurrency: 1)
        let outcome = try await runner.run([trial])
        let upstreamRequests = await setup.upstream.requests().count
        await setup.stop()
        let result = try #require(await sink.results.first)
        #expect(outcome.stopReason == nil)
        #expect(result.attempts == 3 && result.failure == nil)
        #expect(upstreamRequests == 3)
        // Three signatures for one body within a second or two: none refused as a replay.
        #expect(setup.log.statuses(path: "/v1/chat/completions") == [502, 503, 200])
    }

    @Test func aWrongAppKeyStopsTheRunAtTheFirstTokenRequest() async throws {
        let setup = try await Self.start()
        let wrongKey = "wrong-app-key-SECRET-9999"
        let (model, _) = Self.client(setup, appKey: wrongKey)
        let variant = PromptVariant(name: "icecubes", file: "prompts/icecubes.md", text: "Describe.", model: "gpt-4o-mini")
        let item = DatasetItem(id: "x", image: .remote(URL(string: "https://files.mastodon.social/media/x.png")!))
        let trials = (0..<20).map {
            Trial(id: $0, variant: variant, item: item, maxTokens: 50, repeatIndex: $0, request: Self.request("Image \($0)."), key: "k\($0)")
        }
        let runner = Runner(model: model, sink: Sink(), retryPolicy: RetryPolicy(maxRetries: 3, initialDelay: .milliseconds(1)), concurrency: 4)
        let outcome = try await runner.run(trials)
        let upstreamRequests = await setup.upstream.requests().count
        await setup.stop()

        guard case .failure(let failure) = outcome.stopReason else {
            Issue.record("the run did not stop: \(String(describing: outcome.stopReason))")
            return
        }
        #expect(failure.stopsRun && failure.status == 401)
        #expect(failure.message.contains("refused altbench's token request"))
        #expect(failure.message.hasPrefix("ALTBENCH_PROXY_APP_KEY does not hold the app key"), "the likely cause first: \(failure.message)")
        #expect(failure.message.contains(setup.proxy.baseURL))
        #expect(failure.message.contains("invalid_signature"))
        #expect(!failure.message.contains(wrongKey) && !failure.message.contains(Self.appKey))
        #expect(upstreamRequests == 0)
        // Single-flight: the requests in flight waited for the one token request.
        #expect(setup.log.statuses(path: "/auth_token") == [401])
    }

    @Test func aProxyWithOtherHeaderNamesStopsTheRunNamingTheSettings() async throws {
        let setup = try await Self.start()
        var settings = SignedProxyConventions.default
        settings.sessionHeader = "x-team-session"
        let (model, _) = Self.client(setup, settings: settings)
        let failure = try await #require(throws: ModelFailure.self) { try await model.complete(Self.request()) }
        let upstreamRequests = await setup.upstream.requests().count
        await setup.stop()
        #expect(failure.stopsRun && failure.status == 401 && failure.code == "missing_headers")
        #expect(failure.message.contains("header names and auth_path under `proxy:`"))
        #expect(upstreamRequests == 0)
    }

    @Test func aProxyWithADifferentAppKeyAfterARestartStopsTheRun() async throws {
        // A second 401 in a row: the session is gone, and the new token request is refused.
        let first = try await Self.start()
        let (model, _) = Self.client(first)
        _ = try await model.complete(Self.request())
        let port = first.proxy.port
        await first.proxy.stop()
        let second = try await Self.start(existing: first.upstream, port: port) { $0.appKey = Secret("rotated-app-key-0002") }
        let failure = try await #require(throws: ModelFailure.self) {
            try await Self.completeRetryingLostConnections(model, Self.request("Again."))
        }
        await second.stop()
        #expect(failure.stopsRun)
        #expect(failure.message.contains("ALTBENCH_PROXY_APP_KEY"))
        #expect(second.log.statuses(path: "/v1/chat/completions") == [401])
        #expect(second.log.statuses(path: "/auth_token") == [401])
    }

    @Test func noKeyTokenOrSignatureInAnyLogLineOrMessage() async throws {
        let setup = try await Self.start()
        let (model, _) = Self.client(setup)
        for index in 0..<3 { _ = try await model.complete(Self.request("Image \(index).")) }
        await setup.stop()
        let log = setup.log.all.joined(separator: "\n")
        #expect(!log.contains(Self.appKey) && !log.contains(Self.upstreamKey))
        #expect(!log.contains("signature\":") && !log.contains("token\":"))
        // No 64-hex value (a token or a signature) in the log.
        #expect(log.range(of: "[0-9a-f]{64}", options: .regularExpression) == nil)
    }

    actor Sink: ResultSink {
        private(set) var results: [TrialResult] = []
        func cachedAnswer(forKey key: String) async throws -> ModelAnswer? { nil }
        func record(_ result: TrialResult) async throws { results.append(result) }
    }
}
