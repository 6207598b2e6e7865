import AltBenchCore
import AltBenchProxy
import AltBenchTesting
import Foundation
import Testing

/// The images kept for `/dalle` answers: their names, their 60 minutes, the byte bound, and
/// how `GET /generated/<name>` is logged.
@Suite("signed proxy kept images")
struct ProxyImageStoreTests {
    /// A proxy whose upstream answers every `/dalle` with the next of `images` as `b64_json`,
    /// and a session.
    static func harness(
        keeping images: [Data], _ configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> (ProxyHarness, TestSession) {
        let harness = try await ProxyHarness.start(upstreamHandler: ResponseScript(images.map(ImageFixtures.base64Answer)).handler, configure)
        return (harness, try await harness.session())
    }

    /// Sends one `/dalle` request and returns the path of the URL it answered.
    static func generate(_ harness: ProxyHarness, _ session: TestSession, prompt: String) async throws -> String {
        let response = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: prompt).body))
        #expect(response.status == 200, "\(response.bodyText)")
        let url = try #require(try response.jsonObject()["url"] as? String)
        return String(url.dropFirst(harness.proxy.baseURL.count))
    }

    @Test("a kept image is served for 60 minutes on the proxy's clock, with max-age counting down, then 404")
    func expiry() async throws {
        let png = ImageFixtures.png()
        let (harness, session) = try await Self.harness(keeping: [png])
        let path = try await Self.generate(harness, session, prompt: "icon")

        harness.clock.advance(by: 1800.4)
        let half = try await harness.get(path)
        #expect(half.status == 200)
        #expect(half.header("cache-control") == "private, max-age=1799")

        harness.clock.advance(by: 1799)
        let last = try await harness.get(path)
        #expect(last.status == 200)
        #expect(last.header("cache-control") == "private, max-age=0")

        harness.clock.advance(by: 0.6)  // exactly 3600 s after it was kept
        let gone = try await harness.get(path)
        #expect(gone.status == 404)
        #expect(gone.errorCode == "not_found")
        #expect(gone.header("content-type") == "application/json")
        #expect(Set(try #require(gone.error).keys) == ["message", "type", "code"])
        #expect(try await harness.get(path).status == 404)
        await harness.stop()
    }

    @Test("unknown or malformed names are 404 not_found; anything not under /generated/ byte for byte is 403")
    func names() async throws {
        let png = ImageFixtures.png()
        let (harness, session) = try await Self.harness(keeping: [png])
        let path = try await Self.generate(harness, session, prompt: "icon")
        let hash = RequestSigning.bodyHash(png)
        #expect(path == "/generated/\(hash).png")

        let notFound = [
            "/generated/\(RequestSigning.bodyHash(Data("never kept".utf8))).png",
            "/generated/\(hash.uppercased()).png", "/generated/\(hash).PNG", "/generated/\(hash).jpg", "/generated/\(hash).jpeg",
            "/generated/\(hash).gif", "/generated/\(hash)", "/generated/\(hash).png/", "/generated/\(hash).png.png",
            "/generated/\(hash.dropLast()).png", "/generated/\(hash)0.png", "/generated//\(hash).png", "/generated/./\(hash).png",
            "/generated/x/../\(hash).png", "/generated/..", "/generated/../auth_token", "/generated/%2E%2E%2Fauth_token",
            "/generated/\(hash)%2Epng", "/generated/\(hash).png%00", "/generated/", "/generated/\(hash).png;x",
        ]
        for target in notFound {
            let response = try await harness.get(target)
            #expect(response.status == 404, "\(target)")
            #expect(response.errorCode == "not_found", "\(target)")
        }
        let notAllowed: [(String, String)] = [
            ("GET", "/generated"), ("GET", "/generated%2F\(hash).png"), ("GET", "/Generated/\(hash).png"),
            ("GET", "//generated/\(hash).png"), ("GET", "/v1/generated/\(hash).png"), ("POST", "/generated/\(hash).png"),
            ("PUT", "/generated/\(hash).png"), ("DELETE", "/generated/\(hash).png"), ("HEAD", "/generated/\(hash).png"),
        ]
        for (method, target) in notAllowed {
            let response = try await harness.send(RawRequest(method: method, target: target, headers: [], body: Data()))
            #expect(response.status == 403, "\(method) \(target)")
            if method != "HEAD" { #expect(response.errorCode == "path_not_allowed", "\(method) \(target)") }
        }
        // The real name still works, and the upstream saw only the one /dalle request.
        #expect(try await harness.get(path).status == 200)
        #expect(await harness.upstreamCount() == 1)
        await harness.stop()
    }

    @Test("the store is bounded by bytes: the oldest images are evicted, and an image kept again counts as new")
    func byteBound() async throws {
        let images = (1...5).map { ImageFixtures.png(UInt8($0)) }
        let size = images[0].count
        #expect(images.allSatisfy { $0.count == size })
        // Room for two images, not three.
        let (harness, session) = try await Self.harness(keeping: [images[0], images[1], images[0], images[2]]) {
            $0.generatedImageBytes = size * 2 + size / 2
        }
        let first = try await Self.generate(harness, session, prompt: "a")
        let second = try await Self.generate(harness, session, prompt: "b")
        #expect(try await harness.get(first).status == 200)
        #expect(try await harness.get(second).status == 200)
        // The first again: the same name, now the newest, so the second is the oldest.
        #expect(try await Self.generate(harness, session, prompt: "c") == first)
        let third = try await Self.generate(harness, session, prompt: "d")
        #expect(try await harness.get(second).status == 404)
        #expect(try await harness.get(first).body == images[0])
        #expect(try await harness.get(third).body == images[2])
        await harness.stop()
    }

    @Test("expired images make room before any live one is evicted; an image larger than the store is a 502 and not kept")
    func expiredFirstAndTooLarge() async throws {
        let small = [ImageFixtures.png(1), ImageFixtures.png(2), ImageFixtures.png(3)]
        let large = PNGEncoder.rgb(width: 64, height: 64, pixels: Array(repeating: 200, count: 64 * 64 * 3))
        let (harness, session) = try await Self.harness(keeping: small + [large]) {
            $0.generatedImageBytes = small[0].count * 2
            $0.tokenTTL = .seconds(7200)  // one session across the hour
        }
        let first = try await Self.generate(harness, session, prompt: "a")
        harness.clock.advance(by: 3000)
        let second = try await Self.generate(harness, session, prompt: "b")
        harness.clock.advance(by: 600)  // the first has expired, the second has not
        let third = try await Self.generate(harness, session, prompt: "c")
        #expect(try await harness.get(first).status == 404)
        #expect(try await harness.get(second).status == 200)
        #expect(try await harness.get(third).status == 200)

        let tooLarge = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "d").body))
        #expect(tooLarge.status == 502)
        #expect(tooLarge.errorCode == "upstream_response_too_large")
        #expect(try await harness.get("/generated/\(ImageFixtures.name(large))").status == 404)
        // Nothing was evicted for it.
        #expect(try await harness.get(second).status == 200)
        await harness.stop()
    }

    @Test("the log: /dalle and /v1/images/generations with their session, GET /generated/ with session null and the name redacted, no secrets")
    func logLines() async throws {
        let png = ImageFixtures.png()
        let harness = try await ProxyHarness.start(
            upstreamHandler: ResponseScript([
                ImageFixtures.base64Answer(png), ImageFixtures.urlAnswer(ProxyImageTests.openAIImageURL),
            ]).handler)
        let session = try await harness.session()
        let dalle = harness.signed(session, target: "/dalle?trace=query-secret", body: DALLERequest(prompt: "icon").body)
        let kept = try await harness.send(dalle)
        let path = String(try #require(try kept.jsonObject()["url"] as? String).dropFirst(harness.proxy.baseURL.count))
        let images = harness.signed(session, target: "/v1/images/generations", body: Data(#"{"model":"gpt-image-1","prompt":"x"}"#.utf8))
        _ = try await harness.send(images)
        _ = try await harness.get(path)
        _ = try await harness.get("/generated/../auth_token")
        _ = try await harness.get("/generated/\(RequestSigning.bodyHash(Data("other".utf8))).webp")

        let lines = Array(harness.logs.all.dropFirst())  // after the token request
        try #require(lines.count == 5)
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }

        #expect(objects[0]["path"] as? String == "/dalle")
        #expect(objects[0]["session"] as? String == session.id)
        #expect(objects[0]["upstream_status"] as? Int == 200)
        #expect(objects[0]["status"] as? Int == 200)
        #expect(objects[1]["path"] as? String == "/v1/images/generations")
        #expect(objects[1]["session"] as? String == session.id)

        #expect(objects[2]["path"] as? String == "/generated/[redacted]")
        #expect(objects[2]["method"] as? String == "GET")
        #expect(objects[2]["session"] is NSNull)
        #expect(objects[2]["upstream_status"] is NSNull)
        #expect(objects[2]["status"] as? Int == 200)
        #expect(objects[2]["code"] == nil)
        // A malformed name is no capability: logged as sent, so probes show.
        #expect(objects[3]["path"] as? String == "/generated/../auth_token")
        #expect(objects[3]["status"] as? Int == 404)
        #expect(objects[3]["code"] as? String == "not_found")
        #expect(objects[4]["path"] as? String == "/generated/[redacted]")
        #expect(objects[4]["code"] as? String == "not_found")

        let secrets =
            harness.secrets([session], signatures: [dalle.header("x-signature")!, images.header("x-signature")!])
            + [RequestSigning.bodyHash(png), "query-secret", ProxyImageTests.openAIImageURL]
        for line in lines {
            for secret in secrets { #expect(!line.contains(secret), "\(line)") }
        }
        await harness.stop()
    }
}
