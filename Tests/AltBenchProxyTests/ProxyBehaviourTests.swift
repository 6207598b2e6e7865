import AltBenchCore
import AltBenchProxy
import AltBenchTesting
import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// The proxy's routes, answers, log, limits and lifecycle.
@Suite("signed proxy behaviour")
struct ProxyBehaviourTests {
    @Test("GET /healthz answers without a signature; any other spelling or method is refused")
    func healthz() async throws {
        let harness = try await ProxyHarness.start()
        let ok = try await harness.send(RawRequest(method: "GET", target: "/healthz", headers: [], body: Data()))
        #expect(ok.status == 200)
        #expect(try ok.jsonObject()["status"] as? String == "ok")
        #expect(ok.header("content-type") == "application/json")
        #expect(try await harness.send(RawRequest(method: "GET", target: "/healthz?probe=1", headers: [], body: Data())).status == 200)
        for (method, target) in [("POST", "/healthz"), ("GET", "/healthz/"), ("GET", "/Healthz"), ("GET", "/v1/healthz"), ("HEAD", "/healthz")] {
            let refused = try await harness.send(RawRequest(method: method, target: target, headers: [], body: Data()))
            #expect(refused.status == 403, "\(method) \(target)")
            if method != "HEAD" { #expect(refused.errorCode == "path_not_allowed") }
        }
        #expect(await harness.upstreamCount() == 0)
        await harness.stop()
    }

    @Test("a token request answers token, session_id, expires_at and server_time")
    func tokenAnswer() async throws {
        let harness = try await ProxyHarness.start { $0.tokenTTL = .seconds(600) }
        let response = try await harness.send(harness.tokenRequest())
        #expect(response.status == 200)
        let object = try response.jsonObject()
        let token = try #require(object["token"] as? String)
        let id = try #require(object["session_id"] as? String)
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit) && token == token.lowercased())
        #expect(id.hasPrefix("sess_") && id.count == 29)
        #expect(object["expires_at"] as? Int == Int(ProxyHarness.start) + 600)
        #expect(object["server_time"] as? Int == Int(ProxyHarness.start))
        let again = try await harness.session()
        #expect(again.token != token && again.id != id)
        await harness.stop()
    }

    @Test(
        "a token request's body must be {\"nonce\": 32 lowercase hex}",
        arguments: ["", "{}", "{\"nonce\":\"short\"}", "{\"nonce\":\"0123456789ABCDEF0123456789ABCDEF\"}", "{\"nonce\":12}", "nonce"])
    func tokenNonce(body: String) async throws {
        let harness = try await ProxyHarness.start()
        let data = Data(body.utf8)
        let signature = RequestSigning.signature(
            key: ProxyHarness.appKey, method: "POST", path: "/auth_token", timestamp: harness.timestamp, body: data)
        let response = try await harness.send(
            RawRequest(
                method: "POST", target: "/auth_token", headers: [("x-timestamp", harness.timestamp), ("x-signature", signature)],
                body: data))
        #expect(response.status == 400)
        #expect(response.errorCode == "invalid_request")
        await harness.stop()
    }

    @Test("a token request signed with another key is invalid_signature")
    func tokenWrongKey() async throws {
        let harness = try await ProxyHarness.start()
        let response = try await harness.send(harness.tokenRequest(key: "not-the-app-key"))
        #expect(response.status == 401)
        #expect(response.errorCode == "invalid_signature")
        await harness.stop()
    }

    @Test("errors are OpenAI-shaped: message, type and code")
    func errorShape() async throws {
        let harness = try await ProxyHarness.start()
        let response = try await harness.send(RawRequest(method: "POST", target: "/v1/models", headers: [], body: Data()))
        let error = try #require(response.error)
        #expect(Set(error.keys) == ["message", "type", "code"])
        #expect(error["type"] as? String == "permission_error")
        #expect((error["message"] as? String)?.contains("POST /v1/chat/completions") == true)
        #expect(response.header("content-type") == "application/json")
        await harness.stop()
    }

    @Test("a successful answer comes back with the upstream's status, body and headers")
    func answerPassesBack() async throws {
        let completion = ScriptedResponse.chatCompletion(content: "A tabby cat asleep.", headers: [("x-request-id", "req_123")])
        let harness = try await ProxyHarness.start(upstreamHandler: { _ in completion })
        let session = try await harness.session()
        let response = try await harness.send(harness.chat(session))
        #expect(response.status == 200)
        #expect(response.body == completion.body)
        #expect(response.header("x-request-id") == "req_123")
        await harness.stop()
    }

    @Test("an upstream that cannot be reached is a 502, one that does not answer in time a 504")
    func upstreamFailures() async throws {
        let slow = try await ProxyHarness.start(upstreamHandler: { _ in
            ScriptedResponse.chatCompletion(content: "late").delayed(by: .seconds(5))
        }) { $0.upstreamTimeout = .seconds(1) }
        let session = try await slow.session()
        let timedOut = try await slow.send(slow.chat(session))
        #expect(timedOut.status == 504)
        #expect(timedOut.errorCode == "upstream_timeout")
        #expect(slow.logs.last?.contains("\"code\":\"upstream_timeout\"") == true)
        await slow.stop()

        let gone = try await ProxyHarness.start()
        await gone.upstream.stop()
        let other = try await gone.session()
        let unreachable = try await gone.send(gone.chat(other))
        #expect(unreachable.status == 502)
        #expect(unreachable.errorCode == "upstream_unreachable")
        await gone.proxy.stop()
    }

    @Test("one JSON log line per request: time, session, method, path without query, status, upstream status, latency, code")
    func logLines() async throws {
        let harness = try await ProxyHarness.start()
        _ = try await harness.send(RawRequest(method: "GET", target: "/healthz", headers: [], body: Data()))
        let session = try await harness.session()
        _ = try await harness.send(harness.chat(session, target: "/v1/chat/completions?api-version=secret-ish"))
        _ = try await harness.send(harness.chat(session, target: "/v1/chat/completions\\x\\"))
        _ = try await harness.send(harness.chat(session, timestamp: "1"))

        let lines = harness.logs.all
        try #require(lines.count == 5)
        let objects = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        #expect(lines.allSatisfy { !$0.contains("\n") })
        for (line, object) in zip(lines, objects) {
            #expect(line.hasPrefix("{\"time\":\""))
            let time = try #require(object["time"] as? String)
            #expect(time.hasSuffix("Z") && time.contains("."), "\(time)")
            #expect(object["latency_ms"] is Double || object["latency_ms"] is Int)
        }
        // /healthz
        #expect(objects[0]["path"] as? String == "/healthz")
        #expect(objects[0]["status"] as? Int == 200)
        #expect(objects[0]["session"] is NSNull)
        #expect(objects[0]["upstream_status"] is NSNull)
        #expect(objects[0]["code"] == nil)
        // /auth_token: no session yet
        #expect(objects[1]["path"] as? String == "/auth_token")
        #expect(objects[1]["session"] is NSNull)
        // a forwarded request, query left out
        #expect(objects[2]["path"] as? String == "/v1/chat/completions")
        #expect(objects[2]["session"] as? String == session.id)
        #expect(objects[2]["method"] as? String == "POST")
        #expect(objects[2]["upstream_status"] as? Int == 200)
        #expect(!lines[2].contains("secret-ish"))
        // a refused path, escaped
        #expect(objects[3]["path"] as? String == "/v1/chat/completions\\x\\")
        #expect(lines[3].contains(#""path":"/v1/chat/completions\\x\\""#))
        #expect(objects[3]["status"] as? Int == 403)
        #expect(objects[3]["code"] as? String == "path_not_allowed")
        #expect(objects[3]["session"] is NSNull)  // refused before its headers are read
        // a refused timestamp: the claimed id, since it has an id's shape
        #expect(objects[4]["code"] as? String == "stale_timestamp")
        #expect(objects[4]["session"] as? String == session.id)
        await harness.stop()
    }

    @Test("the replay memory is bounded: full of unexpired signatures it refuses (429), and expiry frees room")
    func replayCapacity() async throws {
        // Room for the token request and three chat requests.
        let harness = try await ProxyHarness.start { $0.replayCapacity = 4 }
        let session = try await harness.session()
        for index in 0..<3 {
            #expect(try await harness.send(harness.chat(session, body: ProxyHarness.chatBody("c\(index)"))).status == 200)
        }
        let before = await harness.upstreamCount()
        let full = try await harness.send(harness.chat(session, body: ProxyHarness.chatBody("c3")))
        #expect(full.status == 429)
        #expect(full.errorCode == "rate_limit_exceeded")
        #expect(full.header("retry-after") == "600")
        #expect(await harness.upstreamCount() == before)
        // Nothing was forgotten: the first request is still a replay... (its timestamp is
        // still fresh, so only the replay memory can refuse it).
        let replayed = try await harness.send(harness.chat(session, body: ProxyHarness.chatBody("c0")))
        #expect(replayed.errorCode == "replayed_request")

        // Once the window has passed, the entries are forgotten and there is room again.
        harness.clock.advance(by: 600)
        let later = try await harness.send(harness.chat(session, body: ProxyHarness.chatBody("c3")))
        #expect(later.status == 200, "\(later.bodyText)")
        await harness.stop()
    }

    @Test("the number of live sessions is capped; expired sessions make room")
    func sessionCap() async throws {
        let harness = try await ProxyHarness.start {
            $0.maxSessions = 2
            $0.tokenTTL = .seconds(60)
        }
        _ = try await harness.session()
        _ = try await harness.session()
        let refused = try await harness.send(harness.tokenRequest())
        #expect(refused.status == 429)
        #expect(refused.errorCode == "rate_limit_exceeded")
        #expect(refused.header("retry-after") == "60")
        harness.clock.advance(by: 60)
        _ = try await harness.session()
        await harness.stop()
    }

    @Test("stop() lets a request in flight finish")
    func gracefulStop() async throws {
        let harness = try await ProxyHarness.start(upstreamHandler: { _ in
            ScriptedResponse.chatCompletion(content: "slow").delayed(by: .milliseconds(800))
        })
        let session = try await harness.session()
        let request = harness.chat(session)
        let port = harness.proxy.port
        let inFlight = Task { try await RawHTTP.send(request.bytes(), port: port) }
        // Wait until the upstream has the request, then stop the proxy.
        for _ in 0..<200 where await harness.upstreamCount() == 0 { try await Task.sleep(for: .milliseconds(10)) }
        await harness.proxy.stop()
        let response = try await inFlight.value
        #expect(response.status == 200)
        // Stopped: no more connections.
        await #expect(throws: (any Error).self) { try await RawHTTP.send(request.bytes(), port: port) }
        await harness.upstream.stop()
    }

    @Test("a configuration that cannot work is refused at start")
    func badConfiguration() async throws {
        var configuration = ProxyConfiguration(
            upstream: URL(string: "ftp://example.invalid/v1")!, upstreamKey: Secret("k"), appKey: Secret("a"))
        configuration.port = 0
        await #expect(throws: SignedProxyError.self) { _ = try await SignedProxy.start(configuration) }
        configuration.upstream = URL(string: "http://user:pass@127.0.0.1:9/v1")!
        await #expect(throws: SignedProxyError.self) { _ = try await SignedProxy.start(configuration) }
        configuration.upstream = URL(string: "http://127.0.0.1:9/v1")!
        configuration.requestsPerMinute = 0
        await #expect(throws: SignedProxyError.self) { _ = try await SignedProxy.start(configuration) }
    }

    @Test("baseURL has no /v1 and a client signing like altbench gets through over AsyncHTTPClient")
    func overHTTPClient() async throws {
        let harness = try await ProxyHarness.start()
        #expect(harness.proxy.baseURL == "http://127.0.0.1:\(harness.proxy.port)")
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let session = try await harness.session()
            let signed = harness.chat(session)
            var request = HTTPClientRequest(url: harness.proxy.baseURL + "/v1/chat/completions")
            request.method = .POST
            for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(ByteBuffer(data: signed.body))
            let response = try await client.execute(request, timeout: .seconds(30))
            #expect(response.status.code == 200)
            _ = try await response.body.collect(upTo: 1 << 20)
        } catch {
            Issue.record(error)
        }
        try await client.shutdown()
        await harness.stop()
    }
}
