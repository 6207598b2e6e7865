import AltBenchCore
import AltBenchProxy
import AltBenchTesting
import Foundation
import Testing

/// Every attack in the reference's list ("How a proxy is attacked", items 1–11), sent as
/// exact bytes on the wire: each is refused with its status and `error.code`, and the
/// upstream receives nothing for it.
@Suite("signed proxy refuses every attack")
struct ProxyAttackTests {
    /// Sends `request`, expects `status` and `code`, and that the upstream received nothing.
    @discardableResult
    static func expectRefused(
        _ harness: ProxyHarness, _ request: RawRequest, status: Int, code: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RawResponse {
        let before = await harness.upstreamCount()
        let response = try await harness.send(request)
        #expect(response.status == status, "\(request.method) \(request.target): \(response.bodyText)", sourceLocation: sourceLocation)
        #expect(response.errorCode == code, "\(request.method) \(request.target): \(response.bodyText)", sourceLocation: sourceLocation)
        #expect(await harness.upstreamCount() == before, "forwarded: \(request.target)", sourceLocation: sourceLocation)
        return response
    }

    /// Sends a valid request and expects the upstream to get it.
    static func expectForwarded(
        _ harness: ProxyHarness, _ request: RawRequest, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = await harness.upstreamCount()
        let response = try await harness.send(request)
        #expect(response.status == 200, "\(request.target): \(response.bodyText)", sourceLocation: sourceLocation)
        #expect(await harness.upstreamCount() == before + 1, sourceLocation: sourceLocation)
    }

    // MARK: 1

    @Test("1. a changed body byte, or a body re-encoded after signing (whitespace, gzip), fails the signature")
    func changedBody() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        let signed = harness.chat(session)

        var oneByte = signed
        var bytes = Array(oneByte.body)
        bytes[bytes.count - 3] = UInt8(ascii: "6")  // "max_tokens":50 → 60
        oneByte.body = Data(bytes)
        try await Self.expectRefused(harness, oneByte, status: 401, code: "invalid_signature")

        var spaced = signed
        spaced.body = Data(String(decoding: signed.body, as: UTF8.self).replacingOccurrences(of: ",", with: ", ").utf8)
        try await Self.expectRefused(harness, spaced, status: 401, code: "invalid_signature")

        // The same JSON gzipped (Python's gzip.compress with mtime 0).
        var gzipped = signed.adding("Content-Encoding", "gzip")
        gzipped.body = try #require(
            Data(
                base64Encoded:
                    "H4sIAAAAAAACAw3LOwqAQAyE4atIahULbay9hYj4GDTobmQTQRDvbtr553spyIqTWtouK2opAkemnAJUpw1Kbf9SkhP+uBXJ0yLREM2HDroknpHZzppxcFDSN7ientHkQHTfVN8P6AyWwmUAAAA="
            ))
        try await Self.expectRefused(harness, gzipped, status: 401, code: "invalid_signature")

        // The untouched request still passes: the refusals above were the changes.
        try await Self.expectForwarded(harness, signed)
        await harness.stop()
    }

    // MARK: 2

    @Test("2. the same request twice inside the window is a replay, for chat and token requests")
    func replay() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        let request = harness.chat(session)
        try await Self.expectForwarded(harness, request)
        try await Self.expectRefused(harness, request, status: 401, code: "replayed_request")
        // Later, but inside the 600 s and the 300 s clock window (the timestamp is 299 s old).
        harness.clock.advance(by: 299)
        try await Self.expectRefused(harness, request, status: 401, code: "replayed_request")

        let tokenRequest = harness.tokenRequest()
        let first = try await harness.send(tokenRequest)
        #expect(first.status == 200)
        try await Self.expectRefused(harness, tokenRequest, status: 401, code: "replayed_request")
        await harness.stop()
    }

    // MARK: 3

    @Test("3. a timestamp 299 s either way passes, 301 s either way is stale and says the proxy's time")
    func clockWindow() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        let now = ProxyHarness.start
        try await Self.expectForwarded(harness, harness.chat(session, body: ProxyHarness.chatBody("a"), timestamp: String(now - 299)))
        try await Self.expectForwarded(harness, harness.chat(session, body: ProxyHarness.chatBody("b"), timestamp: String(now + 299)))
        for timestamp in [now - 301, now + 301] {
            let response = try await Self.expectRefused(
                harness, harness.chat(session, timestamp: String(timestamp)), status: 401, code: "stale_timestamp")
            #expect(response.error?["server_time"] as? Int == Int(now))
            #expect(response.header("date") != nil)
        }
        // The proxy's clock moves instead of the client's: the same holds.
        harness.clock.advance(by: 301)
        try await Self.expectRefused(harness, harness.chat(session, timestamp: String(now)), status: 401, code: "stale_timestamp")

        // A token request is held to the same window.
        try await Self.expectRefused(harness, harness.tokenRequest(timestamp: String(now)), status: 401, code: "stale_timestamp")
        await harness.stop()
    }

    @Test(
        "3. a timestamp in milliseconds, with +, a decimal point, a space or leading zeros is refused even when signed",
        arguments: ["1764000000000", "+1764000000", "1764000000.0", "1764000000.", "17640 00000", "01764000000", "0", "-1764000000", "1.764e9", ""])
    func malformedTimestamps(timestamp: String) async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        // Signed over the malformed value itself, so only the timestamp rule can refuse it.
        let response = try await Self.expectRefused(
            harness, harness.chat(session, timestamp: timestamp), status: 401, code: "stale_timestamp")
        #expect(response.error?["server_time"] as? Int == Int(ProxyHarness.start))
        await harness.stop()
    }

    @Test("3. leading or trailing spaces are HTTP whitespace: the proxy sees the bare value, so a signature over the spaced one fails")
    func spacedTimestamp() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        let request = harness.chat(session, timestamp: " \(ProxyHarness.start)")
        try await Self.expectRefused(harness, request, status: 401, code: "invalid_signature")
        await harness.stop()
    }

    // MARK: 4

    @Test("4. method or path swapped, a query added, reordered or percent-encoded: the signature no longer fits")
    func swappedTargets() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        let signed = harness.chat(session)

        var toAuth = signed
        toAuth.target = "/auth_token"
        try await Self.expectRefused(harness, toAuth, status: 401, code: "invalid_signature")

        var withQuery = signed
        withQuery.target = "/v1/chat/completions?api-version=2024-10-21"
        try await Self.expectRefused(harness, withQuery, status: 401, code: "invalid_signature")

        let twoParameters = harness.chat(session, target: "/v1/chat/completions?a=1&b=2")
        var reordered = twoParameters
        reordered.target = "/v1/chat/completions?b=2&a=1"
        try await Self.expectRefused(harness, reordered, status: 401, code: "invalid_signature")

        let versioned = harness.chat(session, target: "/v1/chat/completions?api-version=2024-10-21")
        var encoded = versioned
        encoded.target = "/v1/chat/completions?api-version=2024%2D10%2D21"
        try await Self.expectRefused(harness, encoded, status: 401, code: "invalid_signature")
        var droppedQuery = versioned
        droppedQuery.target = "/v1/chat/completions"
        try await Self.expectRefused(harness, droppedQuery, status: 401, code: "invalid_signature")

        // The absolute form names the same path, but the signature covers the target as sent.
        let absolute = harness.chat(session, target: "http://127.0.0.1/v1/chat/completions")
        try await Self.expectRefused(harness, absolute, status: 401, code: "invalid_signature")

        // A swapped method is another route, and no other route is allowed.
        for method in ["PUT", "GET", "PATCH"] {
            var swapped = signed
            swapped.method = method
            try await Self.expectRefused(harness, swapped, status: 403, code: "path_not_allowed")
        }
        // A lowercase method is not HTTP/1.1: the parser refuses it before any route is matched.
        var lowercase = signed
        lowercase.method = "post"
        #expect(try await harness.send(lowercase).status == 400)
        #expect(await harness.upstreamCount() == 0)
        await harness.stop()
    }

    @Test(
        "4. //, /./, %2F, a trailing slash or a case change is another path, refused even when signed over it",
        arguments: [
            "//v1/chat/completions", "/v1//chat/completions", "/v1/./chat/completions", "/v1/chat/../chat/completions",
            "/v1%2Fchat/completions", "/v1/chat%2Fcompletions", "/v1/chat/completions/", "/V1/chat/completions",
            "/v1/Chat/completions", "/v1/chat/completions%3F", "/v1/chat/completions;x", "/v1/chat/complet%69ons",
            "/./v1/chat/completions", "/v1/chat/completions%00", "/v1/chat/completions\\",
        ])
    func pathSpellings(target: String) async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        try await Self.expectRefused(harness, harness.chat(session, target: target), status: 403, code: "path_not_allowed")
        await harness.stop()
    }

    @Test("4. a query on an allowed route is signed with the path and passed through upstream as sent")
    func queryPassesThrough() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        try await Self.expectForwarded(harness, harness.chat(session, target: "/v1/chat/completions?api-version=2024-10-21"))
        let forwarded = try #require(await harness.upstream.requests().last)
        #expect(forwarded.path == "/v1/chat/completions")
        #expect(forwarded.query == "api-version=2024-10-21")
        await harness.stop()
    }

    // MARK: 5

    @Test("5. a signing header missing or sent twice (in any case) is missing_headers")
    func missingOrDoubledHeaders() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        let signed = harness.chat(session)
        for name in ["x-signature", "x-timestamp", "x-session-id"] {
            try await Self.expectRefused(harness, signed.removing(name), status: 401, code: "missing_headers")
            let value = try #require(signed.header(name))
            // The same value twice, and once more with the name in another case.
            try await Self.expectRefused(harness, signed.adding(name, value), status: 401, code: "missing_headers")
            try await Self.expectRefused(harness, signed.adding(name.uppercased(), value), status: 401, code: "missing_headers")
        }
        // Token requests need the timestamp and signature too.
        let token = harness.tokenRequest()
        try await Self.expectRefused(harness, token.removing("x-signature"), status: 401, code: "missing_headers")
        try await Self.expectRefused(harness, token.removing("x-timestamp"), status: 401, code: "missing_headers")
        try await Self.expectRefused(
            harness, token.adding("X-Timestamp", try #require(token.header("x-timestamp"))), status: 401, code: "missing_headers")

        // Header names are case-insensitive: one header in another case is that header.
        let renamed = RawRequest(
            method: signed.method, target: signed.target,
            headers: signed.headers.map { ($0.0.uppercased(), $0.1) }, body: signed.body)
        try await Self.expectForwarded(harness, renamed)
        await harness.stop()
    }

    @Test("5. a signature in uppercase hex, base64, truncated or empty is invalid_signature")
    func signatureSpellings() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        let signed = harness.chat(session)
        let signature = try #require(signed.header("x-signature"))
        let bytes = stride(from: 0, to: signature.count, by: 2).map { offset -> UInt8 in
            let start = signature.index(signature.startIndex, offsetBy: offset)
            return UInt8(signature[start..<signature.index(start, offsetBy: 2)], radix: 16)!
        }
        for spelling in [
            signature.uppercased(), Data(bytes).base64EncodedString(), String(signature.dropLast()), String(signature.prefix(32)), "",
            signature + "0", "sha256=" + signature,
        ] {
            try await Self.expectRefused(harness, signed.setting("x-signature", spelling), status: 401, code: "invalid_signature")
        }
        try await Self.expectForwarded(harness, signed)
        await harness.stop()
    }

    // MARK: 6

    @Test("6. an encoded newline in the path is another path; in the timestamp it is malformed")
    func encodedNewlines() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        for target in ["/v1/chat/completions%0A", "/v1/chat%0A/completions", "/v1/chat/completions%0D%0A1764000000"] {
            try await Self.expectRefused(harness, harness.chat(session, target: target), status: 403, code: "path_not_allowed")
        }
        try await Self.expectRefused(
            harness, harness.chat(session, timestamp: "\(ProxyHarness.start)%0A"), status: 401, code: "stale_timestamp")
        await harness.stop()
    }

    @Test("6. a literal newline in the request line or a header value never reaches the proxy's checks or the upstream")
    func literalNewlines() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        let signed = harness.chat(session)
        let timestamp = try #require(signed.header("x-timestamp"))
        // Moving text between the canonical string's fields: the path ends early and the
        // timestamp begins with path text.
        var shiftedPath = harness.chat(session, target: "/v1/chat\n/completions")
        shiftedPath.target = "/v1/chat\n/completions"
        let shiftedTimestamp = harness.chat(session, timestamp: "\(timestamp)\n/v1/chat/completions")
        for request in [shiftedPath, shiftedTimestamp, signed.setting("x-timestamp", "\(timestamp)\r\n/x")] {
            let before = await harness.upstreamCount()
            let response = try? await harness.send(request)
            // HTTP/1.1's parser refuses these bytes (400) before any route is matched; either
            // way nothing is forwarded.
            if let response { #expect((400..<500).contains(response.status), "\(response.raw)") }
            #expect(await harness.upstreamCount() == before)
        }
        try await Self.expectForwarded(harness, signed)
        await harness.stop()
    }

    // MARK: 7

    @Test("7. an expired token, another session's id, and a session that never existed are refused")
    func sessions() async throws {
        let harness = try await ProxyHarness.start { $0.tokenTTL = .seconds(900) }
        let mine = try await harness.session()
        let theirs = try await harness.session()

        // Signed with my token, naming their session.
        let borrowed = RawRequest(
            method: "POST", target: "/v1/chat/completions",
            headers: harness.chat(mine).headers.map { $0.0 == "x-session-id" ? ($0.0, theirs.id) : $0 },
            body: ProxyHarness.chatBody())
        try await Self.expectRefused(harness, borrowed, status: 401, code: "invalid_signature")

        let invented = TestSession(id: "sess_" + String(repeating: "0", count: 24), token: mine.token)
        try await Self.expectRefused(harness, harness.chat(invented), status: 401, code: "invalid_session")
        try await Self.expectRefused(
            harness, harness.chat(mine).setting("x-session-id", ""), status: 401, code: "invalid_session")

        // 899 s in, the token still signs; at 900 s it has expired.
        harness.clock.advance(by: 899)
        try await Self.expectForwarded(harness, harness.chat(mine, body: ProxyHarness.chatBody("late")))
        harness.clock.advance(by: 1)
        try await Self.expectRefused(harness, harness.chat(mine, body: ProxyHarness.chatBody("later")), status: 401, code: "token_expired")
        // A new token works again.
        let renewed = try await harness.session()
        try await Self.expectForwarded(harness, harness.chat(renewed))
        await harness.stop()
    }

    // MARK: 8

    @Test("8. the N+1-th request of a session inside its rate window is a 429 with Retry-After")
    func sessionRate() async throws {
        // 30 a minute: a bucket of 3 refilled at one every 2 s.
        let harness = try await ProxyHarness.start { $0.requestsPerMinute = 30 }
        let session = try await harness.session()
        for index in 0..<3 {
            try await Self.expectForwarded(harness, harness.chat(session, body: ProxyHarness.chatBody("n\(index)")))
        }
        let refused = try await Self.expectRefused(
            harness, harness.chat(session, body: ProxyHarness.chatBody("n3")), status: 429, code: "rate_limit_exceeded")
        #expect(refused.header("retry-after") == "2")
        // Another session has its own bucket.
        let other = try await harness.session()
        try await Self.expectForwarded(harness, harness.chat(other, body: ProxyHarness.chatBody("other")))
        // After Retry-After, one more passes.
        harness.clock.advance(by: 2)
        try await Self.expectForwarded(harness, harness.chat(session, body: ProxyHarness.chatBody("n4")))
        await harness.stop()
    }

    @Test("8. token requests are limited per client address: the 11th at once is a 429 with Retry-After")
    func tokenRate() async throws {
        let harness = try await ProxyHarness.start { $0.authRequestsPerMinute = 30 }
        for _ in 0..<10 {
            #expect(try await harness.send(harness.tokenRequest()).status == 200)
        }
        let refused = try await harness.send(harness.tokenRequest())
        #expect(refused.status == 429)
        #expect(refused.errorCode == "rate_limit_exceeded")
        #expect(refused.header("retry-after") == "2")
        harness.clock.advance(by: 2)
        #expect(try await harness.send(harness.tokenRequest()).status == 200)
        #expect(await harness.upstreamCount() == 0)
        await harness.stop()
    }

    // MARK: 9

    @Test("9. a body over the cap is a 413 before it is hashed: declared, or found while reading a chunked body")
    func bodyCap() async throws {
        let harness = try await ProxyHarness.start { $0.maxBodyBytes = 1024 }
        let session = try await harness.session()
        let large = ProxyHarness.chatBody(String(repeating: "x", count: 2000))
        // Signed correctly, and with a wrong signature: the cap answers first either way.
        let signed = harness.chat(session, body: large)
        try await Self.expectRefused(harness, signed, status: 413, code: "body_too_large")
        try await Self.expectRefused(harness, signed.setting("x-signature", "0"), status: 413, code: "body_too_large")
        // No signing headers at all: the length is checked before them.
        try await Self.expectRefused(harness, signed.removing("x-signature"), status: 413, code: "body_too_large")

        var chunked = harness.chat(session, body: ProxyHarness.chatBody(String(repeating: "y", count: 2000)))
        chunked.chunked = 256
        try await Self.expectRefused(harness, chunked, status: 413, code: "body_too_large")

        // Exactly at the cap passes, chunked or not.
        let base = ProxyHarness.chatBody("").count
        let atCap = ProxyHarness.chatBody(String(repeating: "z", count: 1024 - base))
        #expect(atCap.count == 1024)
        try await Self.expectForwarded(harness, harness.chat(session, body: atCap))
        var atCapChunked = harness.chat(session, body: ProxyHarness.chatBody(String(repeating: "w", count: 1024 - base)))
        atCapChunked.chunked = 100
        try await Self.expectForwarded(harness, atCapChunked)
        await harness.stop()
    }

    // MARK: 10

    @Test("10. paths outside the allowlist are 403, signed or not")
    func pathAllowlist() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        for (method, target) in [
            ("GET", "/v1/models"), ("POST", "/v1/embeddings"), ("POST", "/v1/completions"), ("POST", "/admin"), ("GET", "/"),
            ("POST", "/v1/files"), ("DELETE", "/v1/chat/completions"), ("OPTIONS", "/v1/chat/completions"),
        ] {
            try await Self.expectRefused(harness, harness.chat(session, method: method, target: target), status: 403, code: "path_not_allowed")
        }
        await harness.stop()
    }

    @Test("10. with a model allowlist, another model, no model or a body that is not JSON is 403 model_not_allowed")
    func modelAllowlist() async throws {
        let harness = try await ProxyHarness.start { $0.allowedModels = ["gpt-4o-mini", "gpt-4.1-mini"] }
        let session = try await harness.session()
        for body in [
            ProxyHarness.chatBody("a", model: "gpt-4o"), ProxyHarness.chatBody("b", model: "GPT-4O-MINI"), Data("not json".utf8),
            Data("{\"messages\":[]}".utf8), Data("{\"model\":[\"gpt-4o-mini\"]}".utf8), Data("[\"gpt-4o-mini\"]".utf8),
        ] {
            try await Self.expectRefused(harness, harness.chat(session, body: body), status: 403, code: "model_not_allowed")
        }
        try await Self.expectForwarded(harness, harness.chat(session, body: ProxyHarness.chatBody("c", model: "gpt-4.1-mini")))
        await harness.stop()
    }

    // MARK: 11

    @Test("11. the upstream sees no client credential or signing header, the proxy's key instead, and the body byte for byte")
    func upstreamSeesNoClientCredential() async throws {
        let harness = try await ProxyHarness.start()
        let session = try await harness.session()
        // Odd but valid bytes: the proxy must not re-encode them.
        let body = Data("{\"model\":\"gpt-4o-mini\",  \"messages\":[{\"role\":\"user\",\"content\":\"What’s \\u00e9 in this image?\"}]}\n".utf8)
        let request = harness.chat(session, body: body)
            .adding("Authorization", "Bearer client-secret-should-not-pass")
            .adding("api-key", "client-azure-key")
            .adding("Cookie", "session=client-cookie")
            .adding("Connection", "x-drop-me")
            .adding("x-drop-me", "1")
            .adding("Keep-Alive", "timeout=5")
            .adding("Proxy-Authorization", "Basic Y2xpZW50")
            .adding("TE", "trailers")
            .adding("Accept-Encoding", "gzip")
            .adding("x-request-tag", "kept")
        try await Self.expectForwarded(harness, request)

        let forwarded = try #require(await harness.upstream.requests().last)
        #expect(forwarded.body == body)
        #expect(forwarded.headerValues("authorization") == ["Bearer \(ProxyHarness.upstreamKey)"])
        for name in [
            "x-signature", "x-timestamp", "x-session-id", "api-key", "cookie", "x-drop-me", "keep-alive", "proxy-authorization", "te",
            "accept-encoding",
        ] {
            #expect(forwarded.header(name) == nil, "\(name) was forwarded")
        }
        // Only allowlisted headers go upstream (ProxyAbuseTests has the allowlist itself).
        #expect(forwarded.header("x-request-tag") == nil)
        #expect(forwarded.header("content-type") == "application/json")
        let everything = forwarded.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        #expect(!everything.contains(session.token))
        #expect(!everything.contains("client-secret"))
        await harness.stop()
    }

    @Test("11. an upstream error that echoes the key, in the body or a header, comes back redacted")
    func upstreamEchoRedacted() async throws {
        let key = ProxyHarness.upstreamKey
        let masked = "sk" + "-proxy-****************CDEF"
        let harness = try await ProxyHarness.start(upstreamHandler: { _ in
            .error(
                status: 401, message: "Incorrect API key provided: \(key) (also known as \(masked)).", type: "invalid_request_error",
                code: "invalid_api_key", headers: [("x-echo", "Bearer \(key)"), ("set-cookie", "upstream=1"), ("x-kept", "yes")])
        })
        let session = try await harness.session()
        let response = try await harness.send(harness.chat(session))
        #expect(response.status == 401)
        #expect(response.errorCode == "invalid_api_key")
        #expect(!response.raw.contains(key))
        #expect(!response.raw.contains(masked))
        #expect(response.bodyText.contains("[redacted]"))
        #expect(response.header("x-echo") == "Bearer [redacted]")
        #expect(response.header("set-cookie") == nil)
        #expect(response.header("x-kept") == "yes")
        #expect(harness.logs.last?.contains("\"upstream_status\":401") == true)

        // A successful answer is passed back as is, except for the key itself.
        await harness.stop()
    }

    @Test("11. no response or log line carries the upstream key, the app key, a token or a signature")
    func nothingLeaks() async throws {
        let harness = try await ProxyHarness.start { $0.requestsPerMinute = 12 }
        let session = try await harness.session()
        let other = try await harness.session()
        var requests: [RawRequest] = []
        let valid = harness.chat(session)
        requests.append(valid)
        requests.append(valid)  // replay
        requests.append(valid.setting("x-signature", valid.header("x-signature")!.uppercased()))
        requests.append(harness.chat(other, timestamp: "1"))
        requests.append(harness.chat(session, target: "/v1//chat/completions"))
        requests.append(harness.chat(TestSession(id: other.token, token: session.token)))  // a token where the id goes
        requests.append(harness.chat(TestSession(id: ProxyHarness.appKey, token: session.token)))
        requests.append(harness.tokenRequest(key: "wrong-app-key"))
        requests.append(harness.tokenRequest(nonce: "not-a-nonce"))
        for index in 0..<3 { requests.append(harness.chat(other, body: ProxyHarness.chatBody("r\(index)"))) }
        var responses: [RawResponse] = []
        for request in requests { responses.append(try await harness.send(request)) }

        let signatures = requests.compactMap { $0.header("x-signature") }.filter { !$0.isEmpty }
        let secrets = harness.secrets([session, other], signatures: signatures)
        for response in responses {
            for secret in secrets { #expect(!response.raw.contains(secret), "a response carries a secret: \(response.raw)") }
        }
        let lines = harness.logs.all
        #expect(lines.count >= requests.count + 2)
        for line in lines {
            for secret in secrets { #expect(!line.contains(secret), "a log line carries a secret: \(line)") }
            #expect(!line.contains("\(ProxyHarness.start)"), "a log line carries a timestamp header: \(line)")
        }
        await harness.stop()
    }
}
