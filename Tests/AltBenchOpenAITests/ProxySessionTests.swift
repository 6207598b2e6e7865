import AltBenchCore
import Foundation
import Testing

@testable import AltBenchOpenAI

/// The parts of the signed-proxy client that need no proxy: request targets, timestamps that
/// keep signatures unique, and the renewal margin. The client against the real proxy is in
/// AltBenchProxyTests/ProxyClientTests.
@Suite("proxy session")
struct ProxySessionTests {
    static func session(clock: @escaping @Sendable () -> Double) -> ProxySession {
        ProxySession(proxyURL: URL(string: "http://127.0.0.1:9")!, appKey: Secret("app-key-0001"), clock: clock)
    }

    static let credentials = ProxySession.Credentials(
        token: Secret("token-0001"), sessionID: "sess_1", expiresAt: 2_000_000_000, lifetime: 900, generation: 1)

    @Test func theTargetIsThePathAndQueryAsSent() {
        #expect(ProxySession.target(of: URL(string: "http://p:8787/v1/chat/completions")!) == "/v1/chat/completions")
        #expect(
            ProxySession.target(of: URL(string: "https://p/ai/v1/chat/completions?api-version=2024-10-21")!)
                == "/ai/v1/chat/completions?api-version=2024-10-21")
        #expect(ProxySession.target(of: URL(string: "http://p/a%2Fb?x=%20")!) == "/a%2Fb?x=%20")
    }

    @Test func identicalRequestsGetSuccessiveSecondsAndOthersTheCurrentOne() async throws {
        let session = Self.session(clock: { 1_764_000_000.7 })
        let body = Data("{}".utf8)
        var stamps: [String] = []
        for _ in 0..<3 {
            let headers = try await session.signatureHeaders(method: "POST", target: "/v1/chat/completions", body: body, credentials: Self.credentials)
            stamps.append(try #require(headers.first { $0.0 == "x-timestamp" }?.1))
        }
        #expect(stamps == ["1764000000", "1764000001", "1764000002"])
        let other = try await session.signatureHeaders(
            method: "POST", target: "/v1/chat/completions", body: Data("{\"a\":1}".utf8), credentials: Self.credentials)
        #expect(other.first { $0.0 == "x-timestamp" }?.1 == "1764000000")
        #expect(other.map(\.0) == ["x-session-id", "x-timestamp", "x-signature"])
        #expect(other.first { $0.0 == "x-session-id" }?.1 == "sess_1")
    }

    @Test func aBurstOfIdenticalRequestsWaitsRatherThanRunAheadOfTheWindow() async throws {
        let start = Date().timeIntervalSince1970
        let session = Self.session(clock: { 1_764_000_000 + (Date().timeIntervalSince1970 - start) })
        await session.setMaxLead(1)
        let began = ContinuousClock.now
        var stamps: [Int] = []
        for _ in 0..<3 {
            let headers = try await session.signatureHeaders(method: "POST", target: "/x", body: Data(), credentials: Self.credentials)
            stamps.append(Int(try #require(headers.first { $0.0 == "x-timestamp" }?.1))!)
        }
        // Two seconds fit within a lead of one; the third had to wait for the clock to reach
        // its second (a busy machine may wait longer, never less).
        #expect(stamps[0] == 1_764_000_000 && stamps[1] == 1_764_000_001)
        #expect(stamps[2] >= 1_764_000_002)
        #expect(ContinuousClock.now - began >= .milliseconds(900))
    }

    @Test(arguments: [(900.0, 60.0), (300.0, 30.0), (5.0, 0.5), (0.0, 0.0)])
    func renewalComesATenthOfTheLifeBeforeExpiryAtMostAMinute(_ lifetime: Double, _ margin: Double) {
        #expect(ProxySession.renewalMargin(lifetime: lifetime) == margin)
    }
}

extension ProxySession {
    func setMaxLead(_ seconds: Int64) { maxLead = seconds }
}
