import AltBenchCore
@testable import AltBenchProxy
import AltBenchTesting
import Foundation
import NIOCore
import NIOPosix
import Testing

/// The proxy under hostile load from clients that hold the app key (it ships inside apps):
/// no client can lock others out, nothing unauthenticated costs memory or is read beyond what
/// it needs, and only what is meant reaches the upstream. Raw sockets against a real proxy on
/// 127.0.0.1.
///
/// The timing tests give the proxy deadlines of a second and wait minutes for it to act, so
/// a loaded machine is slower, never wrong.
@Suite("signed proxy under abuse")
struct ProxyAbuseTests {
    /// A generous wait for something the proxy does on its own (close a connection).
    static let patience: Duration = .seconds(120)

    // MARK: 1. Rate before memory, shares of the replay memory

    @Test("a session flooding the proxy fills only its share of the replay memory: it gets 429, another session is still served")
    func sessionFloodThenHonest() async throws {
        // A pool of 150: a session's share is at most 1% of it, at least 100.
        let harness = try await ProxyHarness.start {
            $0.replayCapacity = 150
            $0.requestsPerMinute = 6000
            $0.allowedModels = ["gpt-4o-mini"]
        }
        let flooder = try await harness.session()
        let honest = try await harness.session()
        // Verified requests for a model the allowlist refuses: each one spends its signature
        // without reaching the upstream.
        var statuses: [Int: Int] = [:]
        for index in 0..<130 {
            let response = try await harness.send(harness.chat(flooder, body: ProxyHarness.chatBody("f\(index)", model: "gpt-4o")))
            statuses[response.status, default: 0] += 1
            if response.status == 429 { #expect(response.errorCode == "rate_limit_exceeded") }
        }
        #expect(statuses == [403: 100, 429: 30], "\(statuses)")
        let refused = try await harness.send(harness.chat(flooder, body: ProxyHarness.chatBody("f-last", model: "gpt-4o")))
        #expect(refused.header("retry-after") == "600")
        #expect(refused.bodyText.contains("this session"))

        let served = try await harness.send(harness.chat(honest))
        #expect(served.status == 200, "\(served.bodyText)")
        #expect(await harness.upstreamCount() == 1)
        await harness.stop()
    }

    @Test("a flood of token requests is charged to its address's bucket before anything is remembered, so a session still works")
    func tokenFloodThenHonest() async throws {
        let harness = try await ProxyHarness.start { $0.replayCapacity = 50 }
        let honest = try await harness.session()
        var statuses: [Int: Int] = [:]
        for _ in 0..<300 {
            statuses[try await harness.send(harness.tokenRequest()).status, default: 0] += 1
        }
        #expect(statuses[429, default: 0] >= 290, "\(statuses)")
        // The token requests hold at most a tenth of the pool; the rest was never remembered.
        let state = try #require(harness.proxy.stateForTests)
        #expect(await state.rememberedSignatures <= 5)

        let served = try await harness.send(harness.chat(honest))
        #expect(served.status == 200, "\(served.bodyText)")
        await harness.stop()
    }

    @Test("replaying a request costs its session nothing: the replays are refused and the session's rate is intact")
    func replaysCostNoRate() async throws {
        // 30 a minute: a bucket of 3.
        let harness = try await ProxyHarness.start { $0.requestsPerMinute = 30 }
        let session = try await harness.session()
        let first = harness.chat(session, body: ProxyHarness.chatBody("r0"))
        #expect(try await harness.send(first).status == 200)
        for _ in 0..<20 {
            #expect(try await harness.send(first).errorCode == "replayed_request")
        }
        for index in 1..<3 {
            let response = try await harness.send(harness.chat(session, body: ProxyHarness.chatBody("r\(index)")))
            #expect(response.status == 200, "\(response.bodyText)")
        }
        await harness.stop()
    }

    @Test("a request over its session's rate is not remembered: once the bucket refills, the same request passes")
    func rateLimitedIsNotRemembered() async throws {
        let harness = try await ProxyHarness.start { $0.requestsPerMinute = 6 }
        let session = try await harness.session()
        #expect(try await harness.send(harness.chat(session, body: ProxyHarness.chatBody("a"))).status == 200)
        let second = harness.chat(session, body: ProxyHarness.chatBody("b"))
        let limited = try await harness.send(second)
        #expect(limited.status == 429)
        #expect(limited.header("retry-after") == "10")
        harness.clock.advance(by: 10)
        #expect(try await harness.send(second).status == 200)
        #expect(try await harness.send(second).errorCode == "replayed_request")
        await harness.stop()
    }

    // MARK: 2. Nothing unauthenticated read beyond what it needs

    @Test("32 MiB declared to /auth_token is refused (413) after at most 1 KiB, without waiting for the rest, and the connection closed")
    func tokenBodyCapDeclared() async throws {
        let harness = try await ProxyHarness.start()
        let connection = try await RawConnection.open(port: harness.proxy.port)
        let head = "POST /auth_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(32 * 1024 * 1024)\r\n\r\n"
        try await connection.send(Array(head.utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 1024))
        let response = try await connection.response(within: Self.patience)
        #expect(response.status == 413)
        #expect(response.errorCode == "body_too_large")
        #expect(response.header("connection")?.lowercased() == "close")
        #expect(await connection.closed(within: Self.patience))
        await connection.close()
        await harness.stop()
    }

    @Test("a chunked /auth_token body is refused (413) as soon as it passes 1 KiB")
    func tokenBodyCapChunked() async throws {
        let harness = try await ProxyHarness.start()
        var request = harness.tokenRequest()
        request.body = Data(repeating: UInt8(ascii: " "), count: 1025)
        request.chunked = 256
        // The last chunk and the terminator are left off: the proxy must not wait for them.
        let bytes = request.bytes()
        let connection = try await RawConnection.open(port: harness.proxy.port)
        try await connection.send(Array(bytes.dropLast(5)))
        let response = try await connection.response(within: Self.patience)
        #expect(response.status == 413)
        #expect(response.errorCode == "body_too_large")
        #expect(await connection.closed(within: Self.patience))
        await connection.close()
        await harness.stop()
    }

    @Test("a token request body of exactly 1 KiB passes, 1,025 bytes is refused before its signature is looked at")
    func tokenBodyCapBoundary() async throws {
        let harness = try await ProxyHarness.start()
        let nonce = RequestSigning.nonce()
        let json = "{\"nonce\":\"\(nonce)\"}"
        for (size, status) in [(1024, 200), (1025, 413)] {
            let body = Data((json + String(repeating: " ", count: size - json.utf8.count)).utf8)
            let timestamp = harness.timestamp
            let signature = RequestSigning.signature(
                key: ProxyHarness.appKey, method: "POST", path: "/auth_token", timestamp: timestamp, body: body)
            let response = try await harness.send(
                RawRequest(
                    method: "POST", target: "/auth_token",
                    headers: [("content-type", "application/json"), ("x-timestamp", timestamp), ("x-signature", signature)], body: body))
            #expect(response.status == status, "\(size): \(response.bodyText)")
        }
        await harness.stop()
    }

    @Test("an unsigned request declaring a large body is refused without its body being read, and its connection closed")
    func unsignedBodyNotRead() async throws {
        let harness = try await ProxyHarness.start()
        let connection = try await RawConnection.open(port: harness.proxy.port)
        let head = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(8 * 1024 * 1024)\r\n\r\n"
        try await connection.send(Array(head.utf8) + Array("{\"model\":".utf8))
        let response = try await connection.response(within: Self.patience)
        #expect(response.status == 401)
        #expect(response.errorCode == "missing_headers")
        #expect(response.header("connection")?.lowercased() == "close")
        // Closed rather than kept open to read (and throw away) the 8 MiB.
        #expect(await connection.closed(within: Self.patience))
        await connection.close()
        await harness.stop()
    }

    @Test("slowloris: a client sending its head a byte at a time is cut off at the header deadline")
    func slowHeadCutOff() async throws {
        let harness = try await ProxyHarness.start { $0.headerTimeout = .seconds(1) }
        let connection = try await RawConnection.open(port: harness.proxy.port)
        let port = harness.proxy.port
        // A head that never ends: one more header byte every 100 ms for as long as it is read.
        let trickle = Task {
            let prefix = Array("POST /auth_token HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
            try await connection.send(prefix)
            let line = Array("X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n".utf8)
            var index = 0
            while !Task.isCancelled {
                try await connection.send([line[index % line.count]])
                index += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(await connection.closed(within: Self.patience), "the slow client was never cut off")
        #expect(connection.receivedBytes.isEmpty, "the proxy answered instead of closing")
        trickle.cancel()
        _ = await trickle.result
        await connection.close()
        // Others are still served.
        #expect(try await RawHTTP.send(RawRequest(method: "GET", target: "/healthz", headers: [], body: Data()).bytes(), port: port).status == 200)
        await harness.stop()
    }

    @Test("a connection that sends nothing is closed at the header deadline")
    func silentConnectionCutOff() async throws {
        let harness = try await ProxyHarness.start { $0.headerTimeout = .seconds(1) }
        let connection = try await RawConnection.open(port: harness.proxy.port)
        #expect(await connection.closed(within: Self.patience))
        await connection.close()
        await harness.stop()
    }

    @Test("a body sent too slowly is cut off at the body deadline")
    func slowBodyCutOff() async throws {
        let harness = try await ProxyHarness.start { $0.bodyTimeout = .seconds(1) }
        let session = try await harness.session()
        var request = harness.chat(session)
        request.contentLength = request.body.count + 100
        let connection = try await RawConnection.open(port: harness.proxy.port)
        // The whole head and part of the body, and then nothing.
        try await connection.send(request.bytes())
        #expect(await connection.closed(within: Self.patience), "the slow body was never cut off")
        #expect(connection.receivedBytes.isEmpty)
        #expect(await harness.upstreamCount() == 0)
        await connection.close()
        await harness.stop()
    }

    @Test("an idle keep-alive connection is closed at the idle deadline, after its answers")
    func idleKeepAliveClosed() async throws {
        let harness = try await ProxyHarness.start { $0.idleTimeout = .seconds(1) }
        let connection = try await RawConnection.open(port: harness.proxy.port)
        try await connection.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let response = try await connection.response(within: Self.patience)
        #expect(response.status == 200)
        #expect(response.header("connection")?.lowercased() != "close")
        #expect(await connection.closed(within: Self.patience), "the idle connection was kept open")
        await connection.close()
        await harness.stop()
    }

    @Test("with the connection cap reached, a new connection waits until one closes")
    func connectionCap() async throws {
        let harness = try await ProxyHarness.start {
            $0.maxClientConnections = 2
            $0.headerTimeout = .seconds(600)
        }
        let holders = [try await RawConnection.open(port: harness.proxy.port), try await RawConnection.open(port: harness.proxy.port)]
        // The two holders are open and silent; a third connects (the listen backlog takes it)
        // but is not served while they are.
        let third = try await RawConnection.open(port: harness.proxy.port)
        try await third.send(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        try await Task.sleep(for: .seconds(1))
        #expect(third.receivedBytes.isEmpty, "served beyond the connection cap")
        await holders[0].close()
        let response = try await third.response(within: Self.patience)
        #expect(response.status == 200)
        await third.close()
        await holders[1].close()
        await harness.stop()
    }

    // MARK: 3. Clients behind a reverse proxy

    @Test("sessions are capped per client address: the next token request is a 429 until one expires")
    func perClientSessionCap() async throws {
        let harness = try await ProxyHarness.start {
            $0.maxSessionsPerClient = 3
            $0.tokenTTL = .seconds(60)
        }
        for _ in 0..<3 { _ = try await harness.session() }
        let refused = try await harness.send(harness.tokenRequest())
        #expect(refused.status == 429)
        #expect(refused.errorCode == "rate_limit_exceeded")
        #expect(refused.header("retry-after") == "60")
        #expect(refused.bodyText.contains("client address"))
        harness.clock.advance(by: 60)
        _ = try await harness.session()
        await harness.stop()
    }

    @Test("behind a trusted reverse proxy, each X-Forwarded-For client has its own session cap and token bucket")
    func forwardedClientsHaveTheirOwnLimits() async throws {
        let harness = try await ProxyHarness.start {
            $0.maxSessionsPerClient = 2
            $0.trustedForwarders = [IPRange("127.0.0.1")!]
        }
        for client in ["203.0.113.1", "203.0.113.2"] {
            for _ in 0..<2 {
                #expect(try await harness.send(harness.tokenRequest().adding("X-Forwarded-For", client)).status == 200)
            }
            #expect(try await harness.send(harness.tokenRequest().adding("X-Forwarded-For", client)).status == 429)
        }
        await harness.stop()
    }

    @Test("X-Forwarded-For is honoured only from a trusted range, read from the right")
    func forwardedForOnlyFromTrusted() async throws {
        // Not trusted: every request is the connection's (127.0.0.1), whatever the header says.
        for trusted in [[], [IPRange("10.0.0.0/8")!]] {
            let harness = try await ProxyHarness.start { $0.trustedForwarders = trusted }
            for index in 0..<10 {
                #expect(try await harness.send(harness.tokenRequest().adding("X-Forwarded-For", "198.51.100.\(index)")).status == 200)
            }
            let refused = try await harness.send(harness.tokenRequest().adding("X-Forwarded-For", "198.51.100.99"))
            #expect(refused.status == 429, "trusted \(trusted)")
            await harness.stop()
        }

        // Trusted: each forwarded address has its own bucket (a burst of 10).
        let harness = try await ProxyHarness.start { $0.trustedForwarders = [IPRange("127.0.0.0/8")!, IPRange("10.0.0.0/8")!] }
        for index in 0..<12 {
            #expect(try await harness.send(harness.tokenRequest().adding("X-Forwarded-For", "198.51.100.\(index)")).status == 200)
        }
        // The rightmost untrusted address is the client: a trusted hop (10.0.0.5) is skipped,
        // and whatever the client wrote to the left of it is not believed.
        for index in 0..<10 {
            let forged = "192.0.2.\(index), 203.0.113.7, 10.0.0.5"
            #expect(try await harness.send(harness.tokenRequest().adding("X-Forwarded-For", forged)).status == 200)
        }
        let refused = try await harness.send(harness.tokenRequest().adding("X-Forwarded-For", "192.0.2.200, 203.0.113.7"))
        #expect(refused.status == 429)
        await harness.stop()
    }

    @Test(
        "the client address: the peer unless trusted; then the rightmost untrusted X-Forwarded-For address",
        arguments: [
            ("127.0.0.1", ["203.0.113.9"], [String](), "127.0.0.1"),
            ("127.0.0.1", ["203.0.113.9"], ["127.0.0.1/32"], "203.0.113.9"),
            ("127.0.0.1", ["198.51.100.1, 203.0.113.9, 10.1.2.3"], ["127.0.0.1", "10.0.0.0/8"], "203.0.113.9"),
            ("127.0.0.1", ["198.51.100.1", "203.0.113.9"], ["127.0.0.1"], "203.0.113.9"),
            ("127.0.0.1", ["10.0.0.1, 10.0.0.2"], ["127.0.0.1", "10.0.0.0/8"], "10.0.0.1"),
            ("127.0.0.1", ["203.0.113.9, not-an-address, 10.0.0.2"], ["127.0.0.1", "10.0.0.0/8"], "10.0.0.2"),
            ("127.0.0.1", [], ["127.0.0.1"], "127.0.0.1"),
            ("::1", ["2001:DB8::0:1"], ["::1"], "2001:db8::1"),
            ("::ffff:127.0.0.1", ["::ffff:203.0.113.9"], ["127.0.0.1"], "203.0.113.9"),
            ("192.0.2.1", ["203.0.113.9"], ["127.0.0.1"], "192.0.2.1"),
        ])
    func clientAddress(peer: String, forwardedFor: [String], trusted: [String], expected: String) throws {
        let resolver = ClientAddressResolver(trusted: try trusted.map { try #require(IPRange($0)) })
        #expect(resolver.client(peer: peer, forwardedFor: forwardedFor) == expected)
    }

    @Test("CIDR ranges: IPv4, IPv6, single addresses and IPv4-mapped ones; malformed ones are refused")
    func ranges() throws {
        let private10 = try #require(IPRange("10.1.2.3/8"))
        #expect(private10.description == "10.0.0.0/8")
        #expect(private10.contains(try #require(IPAddress("10.255.0.1"))))
        #expect(!private10.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(!private10.contains(try #require(IPAddress("fd00::1"))))
        #expect(private10.contains(try #require(IPAddress("::ffff:10.0.0.1"))))
        #expect(try #require(IPRange("127.0.0.1")).description == "127.0.0.1/32")
        let unique = try #require(IPRange("fd00::/8"))
        #expect(unique.contains(try #require(IPAddress("fd12:3456::1"))))
        #expect(!unique.contains(try #require(IPAddress("10.0.0.1"))))
        #expect(try #require(IPRange("::ffff:10.0.0.0/104")) == private10)
        #expect(try #require(IPRange("10.0.0.0/23")).contains(try #require(IPAddress("10.0.1.255"))))
        #expect(!(try #require(IPRange("10.0.0.0/23"))).contains(try #require(IPAddress("10.0.2.0"))))
        for text in ["", "10.0.0.0/33", "10.0.0.0/", "10.0.0/8", "fd00::/129", "example.com", "10.0.0.0/8/8", "10.0.0.0/-1", "::ffff:10.0.0.0/8"] {
            #expect(IPRange(text) == nil, "\(text)")
        }
    }

    @Test("the token-request buckets are kept for at most the tracked number of addresses, the least recently seen forgotten first")
    func bucketMapBounded() {
        var map = RecentlyUsed<String, Int>(capacity: 3)
        for (index, key) in ["a", "b", "c"].enumerated() { #expect(map.set(index, for: key) == nil) }
        #expect(map.value(for: "a") == 0)  // a is now the most recent
        #expect(map.set(3, for: "d") == "b")
        #expect(map.keysByRecency == ["d", "a", "c"])
        #expect(map.set(4, for: "e") == "c")
        #expect(map.set(5, for: "a") == nil)
        #expect(map.keysByRecency == ["a", "e", "d"])
        #expect(map.count == 3)
        // A long churn keeps the bound.
        for index in 0..<10_000 { map.set(index, for: "k\(index)") }
        #expect(map.count == 3)
        #expect(map.keysByRecency == ["k9999", "k9998", "k9997"])
    }

    @Test("the replay memory: a full share refuses its owner only; token requests hold a tenth of the pool")
    func replayShares() {
        var cache = ReplayCache(capacity: 100, window: 600)
        let flooder = ReplayCache.Owner.session("sess_flood")
        for index in 0..<5 {
            #expect(cache.insert(.init(session: "sess_flood", signature: "\(index)"), owner: flooder, share: 5, now: 1000 + Double(index)) == .fresh)
        }
        #expect(cache.insert(.init(session: "sess_flood", signature: "5"), owner: flooder, share: 5, now: 1010) == .shareFull(retryAfter: 590))
        #expect(cache.insert(.init(session: "sess_other", signature: "0"), owner: .session("sess_other"), share: 5, now: 1010) == .fresh)
        for index in 0..<10 {
            #expect(cache.insert(.init(session: nil, signature: "t\(index)"), owner: .client("198.51.100.\(index)"), share: 5, now: 1010) == .fresh)
        }
        #expect(cache.insert(.init(session: nil, signature: "t10"), owner: .client("198.51.100.10"), share: 5, now: 1010) == .full(retryAfter: 590))
        #expect(cache.held(by: flooder) == 5)
        // The flooder's oldest expires: one more of its own fits.
        #expect(cache.insert(.init(session: "sess_flood", signature: "5"), owner: flooder, share: 5, now: 1600) == .fresh)
        #expect(cache.held(by: flooder) == 5)
        #expect(cache.contains(.init(session: "sess_flood", signature: "4"), now: 1600))
        #expect(!cache.contains(.init(session: "sess_flood", signature: "0"), now: 1600))
    }

    @Test("a session's share is what its rate allows in the replay window, at most 1% of the pool and at least 100")
    func shareSize() {
        #expect(ProxyState.share(requestsPerMinute: 600, cap: 10_000) == 6060)
        #expect(ProxyState.share(requestsPerMinute: 60_000, cap: 10_000) == 10_000)
        #expect(ProxyState.share(requestsPerMinute: 30, burst: 10, cap: 10_000) == 310)
        #expect(ProxyState.share(requestsPerMinute: .infinity, cap: 100) == 100)
    }

    // MARK: 4. Only what is meant reaches the upstream

    @Test("only Content-Type, Accept and User-Agent are forwarded: never OpenAI-Organization or OpenAI-Project, unless named")
    func headerAllowlist() async throws {
        let extra: [(String, String)] = [
            ("OpenAI-Organization", "org-attacker"), ("OpenAI-Project", "proj_attacker"), ("OpenAI-Beta", "assistants=v2"),
            ("User-Agent", "ShipThatApp/1.0"), ("Accept", "application/json"), ("X-Custom", "1"), ("Idempotency-Key", "k1"),
        ]
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        var request = harness.chat(session)
        for (name, value) in extra { request = request.adding(name, value) }
        #expect(try await harness.send(request).status == 200)
        let forwarded = try #require(await harness.upstream.requests().last)
        for name in ["openai-organization", "openai-project", "openai-beta", "x-custom", "idempotency-key"] {
            #expect(forwarded.header(name) == nil, "\(name) was forwarded")
        }
        #expect(forwarded.header("user-agent") == "ShipThatApp/1.0")
        #expect(forwarded.header("accept") == "application/json")
        #expect(forwarded.header("content-type") == "application/json")
        #expect(forwarded.headerValues("authorization") == ["Bearer \(ProxyHarness.upstreamKey)"])
        await harness.stop()

        // Named with --forward-header (any case), a header goes through.
        let named = try await ProxyHarness.start { $0.forwardedHeaders = ["openai-beta", "OpenAI-Organization"] }
        let namedSession = try await named.session()
        var again = named.chat(namedSession)
        for (name, value) in extra { again = again.adding(name, value) }
        #expect(try await named.send(again).status == 200)
        let through = try #require(await named.upstream.requests().last)
        #expect(through.header("openai-beta") == "assistants=v2")
        #expect(through.header("openai-organization") == "org-attacker")
        #expect(through.header("openai-project") == nil)
        await named.stop()
    }

    @Test("credentials, signing and hop-by-hop headers cannot be named for forwarding")
    func forwardHeaderRefused() async throws {
        for name in ["Authorization", "api-key", "Cookie", "x-signature", "X-Session-Id", "Connection", "Host", "Accept-Encoding", "bad name", ""] {
            var configuration = ProxyConfiguration(
                upstream: URL(string: "http://127.0.0.1:9/v1")!, upstreamKey: Secret("k"), appKey: Secret("a"))
            configuration.forwardedHeaders = [name]
            #expect(configuration.problem() != nil, "\(name)")
        }
    }

    @Test("with a token cap, a chat request above it (or naming none) is refused 403 and not forwarded")
    func tokenCap() async throws {
        let harness = try await ProxyHarness.start { $0.maxTokensCap = 100 }
        let session = try await harness.session()
        func body(_ fields: String) -> Data {
            Data("{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]\(fields)}".utf8)
        }
        for (fields, status) in [
            (",\"max_tokens\":100", 200), (",\"max_completion_tokens\":100", 200), (",\"max_tokens\":50,\"n\":2", 200),
            (",\"max_tokens\":101", 403), (",\"max_completion_tokens\":5000", 403), (",\"max_tokens\":51,\"n\":2", 403),
            ("", 403), (",\"max_tokens\":\"50\"", 403), (",\"max_tokens\":50.5", 403), (",\"max_tokens\":-1", 403),
            (",\"max_tokens\":50,\"max_completion_tokens\":500", 403), (",\"max_tokens\":null", 403),
        ] {
            let before = await harness.upstreamCount()
            let response = try await harness.send(harness.chat(session, body: body(fields)))
            #expect(response.status == status, "\(fields): \(response.bodyText)")
            if status == 403 {
                #expect(response.errorCode == "max_tokens_not_allowed", "\(fields)")
                #expect(await harness.upstreamCount() == before)
            }
        }
        await harness.stop()
    }
}

extension SignedProxy {
    /// The proxy's state, for tests that look at what it remembers.
    var stateForTests: ProxyState? { state }
}

/// A client connection held open by the test: it writes what it is given, collects what comes
/// back, and notices when the proxy closes it.
final class RawConnection: @unchecked Sendable {
    private let channel: any Channel
    private let collector: Collector

    private init(channel: any Channel, collector: Collector) {
        self.channel = channel
        self.collector = collector
    }

    static func open(port: Int) async throws -> RawConnection {
        let collector = Collector()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collector) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return RawConnection(channel: channel, collector: collector)
    }

    func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    var receivedBytes: [UInt8] { collector.snapshot.bytes }

    /// The first whole response, waiting at most `patience`.
    func response(within patience: Duration) async throws -> RawResponse {
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            let (bytes, closed) = collector.snapshot
            if RawHTTP.isComplete(bytes) || (closed && !bytes.isEmpty) { return try RawHTTP.parse(bytes) }
            if closed { throw RawHTTPError.noStatusLine("closed without an answer") }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw RawHTTPError.timedOut
    }

    /// Whether the proxy closed the connection within `patience`.
    func closed(within patience: Duration) async -> Bool {
        let deadline = ContinuousClock.now + patience
        while ContinuousClock.now < deadline {
            if collector.snapshot.closed { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    func close() async {
        try? await channel.close()
    }

    /// Collects the bytes and notices the end of the connection.
    final class Collector: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        private var isClosed = false

        var snapshot: (bytes: [UInt8], closed: Bool) { lock.withLock { (bytes, isClosed) } }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            lock.withLock { bytes += Array(buffer.readableBytesView) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            lock.withLock { isClosed = true }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
