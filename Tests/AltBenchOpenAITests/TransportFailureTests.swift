import AltBenchCore
import AltBenchHTTP
import AltBenchTesting
import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import AltBenchOpenAI

/// Transport errors (no HTTP answer) become one short sentence with the server, the cause
/// and what to check, and say whether the connection never opened.
@Suite("Transport failures: clean messages, and whether the server was reached")
struct TransportFailureTests {
    static let endpoint = URL(string: "http://127.0.0.1:8099/v1/chat/completions")!

    static func failure(_ error: any Error) -> ModelFailure {
        TransportFailure.failure(for: error, endpoint: endpoint, redactor: Redactor(secrets: [testKey]))
    }

    /// The failure a request to `url` gets through a client configured as `altbench run`
    /// configures it (no connection retries inside the client: the runner decides).
    static func runFailure(_ url: URL, timeout: Duration = .seconds(60)) async throws -> ModelFailure {
        let client = HTTPClients.make()
        let failure = try await expectFailure(OpenAIVisionModel(baseURL: url, apiKey: Secret(testKey), timeout: timeout, httpClient: client))
        try await client.shutdown()
        return failure
    }

    /// No NIO type names, errno numbers, "error set" or doubled parentheses.
    static func expectClean(_ message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for dirt in ["errno", "error set", "))", "NIO", "IOError", "HTTPClientError", "SingleConnectionFailure", "Error("] {
            #expect(!message.contains(dirt), "'\(dirt)' in: \(message)", sourceLocation: sourceLocation)
        }
        #expect(message.filter { $0 == "(" }.count == message.filter { $0 == ")" }.count, "\(message)", sourceLocation: sourceLocation)
    }

    @Test func aRefusedConnectionToARealClosedPortIsTheIssuesSentence() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let url = URL(string: closed.baseURL)!
        let failure = try await Self.runFailure(url)
        #expect(failure.cannotConnect)
        #expect(failure.kind == .transport)
        #expect(failure.retryable)
        #expect(
            failure.message
                == "could not connect to 127.0.0.1:\(url.port!) (connection refused): is the server running, and is --base-url right?")
        Self.expectClean(failure.message)
    }

    @Test func aURLNoSettingNamedIsCalledTheDefaultEndpoint() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let client = HTTPClients.make()
        var model = OpenAIVisionModel(baseURL: URL(string: closed.baseURL)!, apiKey: Secret(testKey), httpClient: client)
        model.urlSource = "the default endpoint \(closed.baseURL) (no --base-url, OPENAI_BASE_URL or base_url: is set)"
        let failure = try await expectFailure(model)
        try await client.shutdown()
        #expect(failure.message.hasSuffix("is the server running, and is the default endpoint \(closed.baseURL) (no --base-url, OPENAI_BASE_URL or base_url: is set) right?"), "\(failure.message)")
        Self.expectClean(failure.message)
    }

    @Test func httpsToAPlainHTTPServerIsAFailedTLSHandshake() async throws {
        let server = try await OpenAITestServer.start()
        let plain = URL(string: server.baseURL)!
        let https = URL(string: server.baseURL.replacingOccurrences(of: "http://", with: "https://"))!
        let failure = try await Self.runFailure(https)
        await server.stop()
        #expect(failure.cannotConnect, "\(failure.message)")
        #expect(failure.message.hasPrefix("could not connect to 127.0.0.1:\(plain.port!) (TLS handshake failed"), "\(failure.message)")
        #expect(failure.message.contains("http://"))
        Self.expectClean(failure.message)
    }

    @Test func aHostNameThatDoesNotResolveIsNamed() async throws {
        // `.invalid` never resolves (RFC 6761).
        let url = URL(string: "http://altbench-no-such-host.invalid:8099/v1")!
        let failure = try await Self.runFailure(url)
        #expect(failure.cannotConnect, "\(failure.message)")
        #expect(
            failure.message
                == "could not connect to altbench-no-such-host.invalid:8099 (host name not found): is the host name in --base-url right, and is the network up?")
    }

    /// Runs `trials` at concurrency 1 against a real server that answers the first request and
    /// then goes away for good (retries quick, on a virtual clock).
    static func runAgainstAServerThatGoesAway(
        _ trials: Int, serverLostAfter: Duration = .seconds(30)
    ) async throws -> (outcome: Runner.Outcome, results: [TrialResult]) {
        let server = try await OpenAITestServer.start()
        let client = HTTPClients.make()
        let stopping = StopAfterFirstAnswer(
            wrapped: OpenAIVisionModel(baseURL: URL(string: server.baseURL)!, apiKey: Secret(testKey), httpClient: client),
            server: server)
        let sink = CollectingSink()
        let outcome = try await Runner(
            model: stopping, sink: sink, retryPolicy: quickRetries, concurrency: 1, clock: VirtualClock(),
            serverLostAfter: serverLostAfter
        ).run(iceCubesTrials(trials))
        try await client.shutdown()
        return (outcome, await sink.results)
    }

    /// The rule for unreachable servers, against a real server that answers and then goes
    /// away: the later trials are retried and recorded as failed, and a few failures in a row
    /// (over less than `serverLostAfter`) do not stop the run.
    @Test func aServerThatAnsweredAndThenWentAwayIsNotAStopReason() async throws {
        let (outcome, results) = try await Self.runAgainstAServerThatGoesAway(5)
        #expect(outcome.stopReason == nil)
        #expect(results.count == 5)
        #expect(results.filter { $0.answer != nil }.count == 1)
        let failures = results.compactMap(\.failure)
        #expect(failures.count == 4)
        #expect(failures.allSatisfy { $0.kind == .transport && $0.message.contains("127.0.0.1") }, "\(failures.map(\.message))")
        #expect(failures.contains { $0.cannotConnect })
        #expect(results.filter { $0.failure != nil }.allSatisfy { $0.attempts == 3 })
    }

    /// A real server that answers and then stays gone: after `serverLostRequests` requests in
    /// a row that cannot connect (over `serverLostAfter`, here nothing), the run stops as lost,
    /// resumable, instead of retrying every remaining trial.
    @Test func aServerThatStaysGoneStopsTheRunAsLost() async throws {
        let (outcome, results) = try await Self.runAgainstAServerThatGoesAway(40, serverLostAfter: .zero)
        guard case .serverLost(let failure) = outcome.stopReason else {
            Issue.record("expected the server to be lost, got \(String(describing: outcome.stopReason))")
            return
        }
        #expect(failure.message.hasPrefix("the server stopped answering: 10 requests in a row over "))
        #expect(failure.message.contains("could not connect to 127.0.0.1:"), "\(failure.message)")
        #expect(outcome.stopReason?.kind == "server_lost")
        #expect(results.filter { $0.answer != nil }.count == 1)
        #expect(results.count < 10, "stopped long before the 40 trials: \(results.count)")
    }

    @Test func eachConnectCauseHasItsOwnWords() {
        let cases: [(any Error, String)] = [
            (IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"), "(connection refused): is the server running, and is --base-url right?"),
            (HTTPClientError.connectTimeout, "(connection timed out): is the server running and reachable from here"),
            (ChannelError.connectTimeout(.seconds(10)), "(connection timed out)"),
            (IOError(errnoCode: ENETUNREACH, reason: "connect"), "(network unreachable): is the network up"),
            (IOError(errnoCode: EHOSTUNREACH, reason: "connect"), "(host unreachable)"),
            (HTTPClientError.tlsHandshakeTimeout, "(TLS handshake failed: timed out)"),
        ]
        for (error, expected) in cases {
            let failure = Self.failure(error)
            #expect(failure.cannotConnect, "\(error)")
            #expect(failure.message.hasPrefix("could not connect to 127.0.0.1:8099 "), "\(failure.message)")
            #expect(failure.message.contains(expected), "\(failure.message)")
            Self.expectClean(failure.message)
        }
    }

    @Test func aConnectionLostMidwayIsNotAConnectFailure() {
        let cases: [(any Error, String)] = [
            (IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)"), "(connection reset by peer)"),
            (HTTPClientError.remoteConnectionClosed, "(the server closed the connection)"),
            (HTTPClientError.uncleanShutdown, "(unclean shutdown)"),
        ]
        for (error, expected) in cases {
            let failure = Self.failure(error)
            #expect(!failure.cannotConnect, "\(error)")
            #expect(failure.retryable)
            #expect(failure.message == "the request to \(Self.endpoint.absoluteString) failed before an answer came \(expected).")
            Self.expectClean(failure.message)
        }
    }

    @Test func nioTextIsTidied() {
        #expect(TransportFailure.tidy("connection reset (error set): Connection refused) (errno: 111)") == "connection reset (error set): Connection refused")
        #expect(TransportFailure.tidy("a)) b (c) (errno: -3)\n  d") == "a b (c) d")
        #expect(TransportFailure.tidy(String(repeating: "x", count: 300)).count == 201)
    }

    @Test func anUnknownErrorIsTidiedAndKeepsNoSecret() {
        struct Odd: Error, CustomStringConvertible {
            var description: String { "odd thing) with \(testKey) (errno: 5)" }
        }
        let failure = Self.failure(Odd())
        #expect(!failure.cannotConnect)
        #expect(!failure.message.contains(testKey))
        #expect(failure.message.contains("(odd thing with [redacted])"), "\(failure.message)")
        Self.expectClean(failure.message)
    }

    @Test func theServerIsNamedByHostAndPort() {
        #expect(TransportFailure.server(of: URL(string: "https://api.openai.com/v1")!) == "api.openai.com:443")
        #expect(TransportFailure.server(of: URL(string: "http://localhost/v1")!) == "localhost:80")
        #expect(TransportFailure.server(of: URL(string: "http://127.0.0.1:8099/v1")!) == "127.0.0.1:8099")
        #expect(TransportFailure.server(of: URL(string: "http://[::1]:8080/v1")!) == "[::1]:8080")
    }
}

/// Passes requests to `wrapped`, and stops `server` once the first answer has come back.
private struct StopAfterFirstAnswer: VisionModel {
    let wrapped: OpenAIVisionModel
    let server: OpenAITestServer
    var endpoint: String { wrapped.endpoint }

    func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        let answer = try await wrapped.complete(request)
        await server.stop()
        return answer
    }
}
