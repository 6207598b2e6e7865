import AltBenchCore
import AltBenchProxy
import AltBenchTesting
import Foundation
import Testing

/// ShipThatApp's request and answer, as its source declares them: the app encodes a
/// `DALLERequest` with `JSONEncoder` and decodes the proxy's answer as a `DALLEResponse`.
struct DALLERequest: Codable {
    let prompt: String
    let model: String?
    let n: Int?
    let quality: String?
    let response_format: String?
    let size: String?
    let style: String?

    init(
        prompt: String, model: String? = "dall-e-3", n: Int? = 1, quality: String? = "hd", response_format: String? = "url",
        size: String? = "1024x1024", style: String? = "natural"
    ) {
        self.prompt = prompt
        self.model = model
        self.n = n
        self.quality = quality
        self.response_format = response_format
        self.size = size
        self.style = style
    }

    /// The body ShipThatApp sends.
    var body: Data { try! JSONEncoder().encode(self) }
}

struct DALLEResponse: Decodable {
    let url: String
}

/// Images and Images API answers for the tests.
enum ImageFixtures {
    /// A real 4×4 indexed PNG; `seed` makes different bytes.
    static func png(_ seed: UInt8 = 0) -> Data {
        PNGEncoder.indexed(
            width: 4, height: 4, palette: [(seed, 0, 0), (0, 255, 0), (0, 0, 255)],
            indices: [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
    }

    /// The smallest bytes ImageSniffer reads as a 3×2 baseline JPEG (SOI, then a frame header).
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x02, 0x00, 0x03, 0x03] + Array(repeating: 0, count: 12))

    /// The smallest bytes ImageSniffer reads as a lossless 1×1 WEBP.
    static let webp = Data(Array("RIFF".utf8) + [26, 0, 0, 0] + Array("WEBPVP8L".utf8) + [5, 0, 0, 0, 0x2F, 0, 0, 0, 0] + [0, 0])

    /// An Images API answer with one `data` item.
    static func answer(_ item: JSONValue) -> ScriptedResponse {
        .json(value: ["created": 1_713_833_628, "data": [item]])
    }

    static func urlAnswer(_ url: String) -> ScriptedResponse {
        answer(["url": .string(url), "revised_prompt": "An icon."])
    }

    static func base64Answer(_ bytes: Data) -> ScriptedResponse {
        answer(["b64_json": .string(bytes.base64EncodedString()), "revised_prompt": "An icon."])
    }

    /// The name the proxy keeps `bytes` under.
    static func name(_ bytes: Data, ext: String = "png") -> String {
        RequestSigning.bodyHash(bytes) + "." + ext
    }
}

/// The image routes: `POST /v1/images/generations` forwarded, ShipThatApp's `POST /dalle`
/// answered `{"url": …}`, and `GET /generated/<name>` serving what `/dalle` kept.
@Suite("signed proxy image routes")
struct ProxyImageTests {
    static let openAIImageURL = "https://oaidalleapiprodscus.blob.core.windows.net/private/img-abc.png?st=2026&sig=xyz%2B"

    /// Starts a proxy whose upstream answers `answers` in order.
    static func harness(
        _ answers: [ScriptedResponse], _ configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> ProxyHarness {
        try await ProxyHarness.start(upstreamHandler: ResponseScript(answers).handler, configure)
    }

    // MARK: POST /v1/images/generations

    @Test("the images route is forwarded byte for byte with only the upstream key, and its answer (base64 images included) passed back")
    func imagesForwarded() async throws {
        // A few MB of base64, as a GPT image model answers.
        let big = Data((0..<(2 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let upstreamAnswer = ScriptedResponse.json(
            value: ["created": 1, "data": [["b64_json": .string(big.base64EncodedString())]]], headers: [("x-request-id", "req_img")])
        let harness = try await Self.harness([upstreamAnswer])
        let session = try await harness.session()
        let body = Data(#"{"model":"gpt-image-1","prompt":"A red fox, flat icon","n":1,"size":"1024x1024"}"#.utf8)
        let request = harness.signed(session, target: "/v1/images/generations?api-version=2025-04-01", body: body)
            .adding("Authorization", "Bearer client-supplied").adding("OpenAI-Organization", "org-team")

        let response = try await harness.send(request)
        #expect(response.status == 200)
        #expect(response.body == upstreamAnswer.body)
        #expect(response.header("x-request-id") == "req_img")

        let received = try #require(await harness.upstream.requests().first)
        #expect(received.method == "POST")
        #expect(received.path == "/v1/images/generations")
        #expect(received.query == "api-version=2025-04-01")
        #expect(received.body == body)
        #expect(received.headerValues("authorization") == ["Bearer \(ProxyHarness.upstreamKey)"])
        // A client does not choose the organisation the proxy's key bills.
        #expect(received.header("openai-organization") == nil)
        for name in ["x-session-id", "x-timestamp", "x-signature"] { #expect(received.header(name) == nil, "\(name)") }

        let line = try #require(harness.logs.last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["path"] as? String == "/v1/images/generations")
        #expect(object["session"] as? String == session.id)
        #expect(object["upstream_status"] as? Int == 200)
        #expect(!line.contains("api-version"))
        for secret in harness.secrets([session], signatures: [request.header("x-signature")!]) { #expect(!line.contains(secret)) }
        await harness.stop()
    }

    @Test("an upstream error on the images route is passed back with its status and code")
    func imagesError() async throws {
        let refusal = ScriptedResponse.error(
            status: 400, message: "Your request was rejected by the safety system.", type: "image_generation_user_error",
            code: "moderation_blocked")
        let harness = try await Self.harness([refusal])
        let session = try await harness.session()
        let response = try await harness.send(
            harness.signed(session, target: "/v1/images/generations", body: Data(#"{"model":"gpt-image-1","prompt":"x"}"#.utf8)))
        #expect(response.status == 400)
        #expect(response.errorCode == "moderation_blocked")
        #expect(response.body == refusal.body)
        await harness.stop()
    }

    // MARK: POST /dalle

    @Test("/dalle with an upstream url answers ShipThatApp's {\"url\": same}, the DALLERequest forwarded byte for byte")
    func dalleURL() async throws {
        let harness = try await Self.harness([ImageFixtures.urlAnswer(Self.openAIImageURL)])
        let session = try await harness.session()
        let body = DALLERequest(prompt: "Generate an iOS icon").body
        let response = try await harness.send(harness.signed(session, target: "/dalle", body: body))

        #expect(response.status == 200, "\(response.bodyText)")
        #expect(response.header("content-type") == "application/json")
        #expect(try response.jsonObject().keys.sorted() == ["url"])
        #expect(try JSONDecoder().decode(DALLEResponse.self, from: response.body).url == Self.openAIImageURL)

        let received = try #require(await harness.upstream.requests().first)
        #expect(received.path == "/v1/images/generations")
        #expect(received.body == body)
        #expect(received.headerValues("authorization") == ["Bearer \(ProxyHarness.upstreamKey)"])
        await harness.stop()
    }

    @Test("/dalle with b64_json keeps the PNG and answers /generated/<sha256>.png, which serves exactly those bytes")
    func dalleBase64() async throws {
        let png = ImageFixtures.png()
        let harness = try await Self.harness([ImageFixtures.base64Answer(png)])
        let session = try await harness.session()
        let response = try await harness.send(
            harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "An icon", response_format: "b64_json").body))
        #expect(response.status == 200, "\(response.bodyText)")
        let url = try JSONDecoder().decode(DALLEResponse.self, from: response.body).url
        let name = ImageFixtures.name(png)
        #expect(url == "\(harness.proxy.baseURL)/generated/\(name)")

        let image = try await harness.get("/generated/\(name)")
        #expect(image.status == 200)
        #expect(image.body == png)
        #expect(image.header("content-type") == "image/png")
        #expect(image.header("cache-control") == "private, max-age=3600")
        #expect(image.header("x-content-type-options") == "nosniff")
        // A query is ignored, as on /healthz.
        #expect(try await harness.get("/generated/\(name)?v=2").body == png)
        await harness.stop()
    }

    @Test(
        "/dalle keeps JPEG and WEBP under their own extension and Content-Type",
        arguments: [(ImageFixtures.jpeg, "jpg", "image/jpeg"), (ImageFixtures.webp, "webp", "image/webp")])
    func dalleOtherFormats(bytes: Data, ext: String, contentType: String) async throws {
        let harness = try await Self.harness([ImageFixtures.base64Answer(bytes)])
        let session = try await harness.session()
        let response = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "x").body))
        let name = ImageFixtures.name(bytes, ext: ext)
        #expect(try response.jsonObject()["url"] as? String == "\(harness.proxy.baseURL)/generated/\(name)")
        let image = try await harness.get("/generated/\(name)")
        #expect(image.status == 200)
        #expect(image.header("content-type") == contentType)
        #expect(image.body == bytes)
        #expect(try await harness.get("/generated/\(ImageFixtures.name(bytes, ext: "png"))").status == 404)
        await harness.stop()
    }

    @Test("/dalle: base64 that is not a PNG, JPEG or WEBP (an HTML page, a GIF) is a 502 and nothing is kept")
    func dalleNotAnImage() async throws {
        let html = Data("<!DOCTYPE html><html><body>Sign in to continue</body></html>".utf8)
        let gif = Data("GIF89a".utf8 + [1, 0, 1, 0, 0, 0, 0, 0x3B])
        let harness = try await Self.harness([ImageFixtures.base64Answer(html), ImageFixtures.base64Answer(gif)])
        let session = try await harness.session()
        for (index, bytes) in [html, gif].enumerated() {
            let response = try await harness.send(
                harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "icon \(index)").body))
            #expect(response.status == 502)
            #expect(response.errorCode == "upstream_not_an_image")
            #expect(response.error?["type"] as? String == "upstream_error")
            #expect(response.bodyText.contains("PNG, JPEG or WEBP"))
            for ext in ["png", "jpg", "webp"] {
                #expect(try await harness.get("/generated/\(ImageFixtures.name(bytes, ext: ext))").status == 404)
            }
        }
        let line = try #require(harness.logs.all.first { $0.contains("\"status\":502") })
        #expect(line.contains("\"upstream_status\":200") && line.contains("\"code\":\"upstream_not_an_image\""))
        await harness.stop()
    }

    @Test(
        "/dalle: a 2xx with neither url nor b64_json, or base64 that does not decode, is a 502 upstream_invalid_answer",
        arguments: [
            ScriptedResponse.json(value: ["created": 1, "data": []]),
            ScriptedResponse.json(value: ["created": 1, "data": [["revised_prompt": "x"]]]),
            ScriptedResponse.json(value: ["created": 1, "data": [["url": ""]]]),
            ScriptedResponse.json(value: ["created": 1, "data": [["b64_json": "not base64!"]]]),
            ScriptedResponse.chatCompletion(content: "hello"),
            ScriptedResponse.html(status: 200, body: "<html>ok</html>"),
        ])
    func dalleNeither(answer: ScriptedResponse) async throws {
        let harness = try await Self.harness([answer])
        let session = try await harness.session()
        let response = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "x").body))
        #expect(response.status == 502)
        #expect(response.errorCode == "upstream_invalid_answer")
        await harness.stop()
    }

    @Test("/dalle: an upstream error (content policy, 429) is passed back as it is, redacted")
    func dalleUpstreamErrors() async throws {
        let policy = ScriptedResponse.error(
            status: 400,
            message: "Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.",
            code: "content_policy_violation")
        let limited = ScriptedResponse.error(
            status: 429, message: "Rate limit reached for images per minute.", type: "requests", code: "rate_limit_exceeded",
            headers: [("retry-after", "7")])
        let leaky = ScriptedResponse.error(
            status: 401, message: "Incorrect API key provided: \(ProxyHarness.upstreamKey).", type: "invalid_request_error",
            code: "invalid_api_key")
        let harness = try await Self.harness([policy, limited, leaky])
        let session = try await harness.session()

        let refused = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "a").body))
        #expect(refused.status == 400)
        #expect(refused.errorCode == "content_policy_violation")
        #expect(refused.body == policy.body)

        let slowDown = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "b").body))
        #expect(slowDown.status == 429)
        #expect(slowDown.errorCode == "rate_limit_exceeded")
        #expect(slowDown.header("retry-after") == "7")

        let redacted = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "c").body))
        #expect(redacted.status == 401)
        #expect(redacted.errorCode == "invalid_api_key")
        #expect(!redacted.raw.contains(ProxyHarness.upstreamKey))
        #expect(redacted.bodyText.contains("[redacted]"))

        // Passed back, not the proxy's own: upstream_status and no code in the log.
        let line = try #require(harness.logs.all.first { $0.contains("\"status\":400") })
        #expect(line.contains("\"path\":\"/dalle\"") && line.contains("\"upstream_status\":400") && !line.contains("\"code\""))
        await harness.stop()
    }

    @Test("/dalle waits for the upstream within the upstream timeout: slower is a 504")
    func dalleTimeout() async throws {
        let slow = ImageFixtures.urlAnswer(Self.openAIImageURL).delayed(by: .seconds(5))
        let harness = try await Self.harness([slow]) { $0.upstreamTimeout = .seconds(1) }
        let session = try await harness.session()
        let response = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "x").body))
        #expect(response.status == 504)
        #expect(response.errorCode == "upstream_timeout")
        await harness.stop()
    }

    // MARK: The shared checks

    @Test("the model allowlist refuses on the images route and on /dalle, with nothing forwarded")
    func modelAllowlist() async throws {
        let harness = try await Self.harness([ImageFixtures.urlAnswer(Self.openAIImageURL)]) { $0.allowedModels = ["gpt-image-1"] }
        let session = try await harness.session()
        let refusals = [
            harness.signed(session, target: "/v1/images/generations", body: Data(#"{"model":"dall-e-3","prompt":"x"}"#.utf8)),
            harness.signed(session, target: "/v1/images/generations", body: Data(#"{"prompt":"x"}"#.utf8)),
            harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "x").body),
            harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "y", model: nil).body),
            harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "z", model: "GPT-IMAGE-1").body),
        ]
        for request in refusals {
            try await ProxyAttackTests.expectRefused(harness, request, status: 403, code: "model_not_allowed")
        }
        let allowed = try await harness.send(
            harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "x", model: "gpt-image-1").body))
        #expect(allowed.status == 200)
        #expect(await harness.upstreamCount() == 1)
        await harness.stop()
    }

    @Test("an unsigned, mis-signed or replayed /dalle or images request is refused as for chat, nothing forwarded")
    func signingChecks() async throws {
        let harness = try await Self.harness([ImageFixtures.urlAnswer(Self.openAIImageURL)])
        let session = try await harness.session()
        let body = DALLERequest(prompt: "x").body
        for target in ["/dalle", "/v1/images/generations"] {
            let signed = harness.signed(session, target: target, body: body)
            try await ProxyAttackTests.expectRefused(
                harness, signed.removing("x-signature").removing("x-session-id").removing("x-timestamp"), status: 401,
                code: "missing_headers")
            try await ProxyAttackTests.expectRefused(harness, signed.removing("x-signature"), status: 401, code: "missing_headers")
            // Signed for another route: the path is part of what is signed.
            var moved = harness.signed(session, target: "/v1/chat/completions", body: body)
            moved.target = target
            try await ProxyAttackTests.expectRefused(harness, moved, status: 401, code: "invalid_signature")
            try await ProxyAttackTests.expectRefused(
                harness, signed.setting("x-session-id", "sess_000000000000000000000000"), status: 401, code: "invalid_session")
        }
        let dalle = harness.signed(session, target: "/dalle", body: body)
        try await ProxyAttackTests.expectForwarded(harness, dalle)
        try await ProxyAttackTests.expectRefused(harness, dalle, status: 401, code: "replayed_request")
        // A token request's signature (the app key) does not open /dalle.
        var appSigned = harness.tokenRequest()
        appSigned.target = "/dalle"
        try await ProxyAttackTests.expectRefused(harness, appSigned, status: 401, code: "missing_headers")
        await harness.stop()
    }

    @Test("--public-url starts the URLs of kept images; a path prefix and trailing slash are handled")
    func publicURL() async throws {
        let png = ImageFixtures.png(7)
        let harness = try await Self.harness([ImageFixtures.base64Answer(png), ImageFixtures.urlAnswer(Self.openAIImageURL)]) {
            $0.publicURL = URL(string: "https://images.example.com/team/")!
        }
        let session = try await harness.session()
        let kept = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "a").body))
        #expect(try kept.jsonObject()["url"] as? String == "https://images.example.com/team/generated/\(ImageFixtures.name(png))")
        // The image is served here all the same (a reverse proxy strips /team).
        #expect(try await harness.get("/generated/\(ImageFixtures.name(png))").body == png)
        // An upstream URL is not rewritten.
        let passed = try await harness.send(harness.signed(session, target: "/dalle", body: DALLERequest(prompt: "b").body))
        #expect(try passed.jsonObject()["url"] as? String == Self.openAIImageURL)
        await harness.stop()
    }

    @Test("a public URL that is not http(s) with a host, or carries credentials, a query or a fragment, is refused at start")
    func publicURLProblems() async throws {
        for text in ["ftp://proxy.example.com", "https://user:pw@proxy.example.com", "https://proxy.example.com/?k=1", "https://proxy.example.com/#x", "/relative"] {
            #expect(ProxyConfiguration.publicURLProblem(URL(string: text)!) != nil, "\(text)")
            var configuration = ProxyConfiguration(
                upstream: URL(string: "http://127.0.0.1:9/v1")!, upstreamKey: Secret("k"), appKey: Secret("a"))
            configuration.port = 0
            configuration.publicURL = URL(string: text)!
            await #expect(throws: SignedProxyError.self) { _ = try await SignedProxy.start(configuration) }
        }
        for text in ["https://proxy.example.com", "http://10.0.0.5:8080/ai/"] {
            #expect(ProxyConfiguration.publicURLProblem(URL(string: text)!) == nil, "\(text)")
        }
    }

    @Test("the path_not_allowed message names the image routes")
    func routesNamed() async throws {
        let harness = try await Self.harness([])
        let response = try await harness.send(RawRequest(method: "POST", target: "/v1/images/edits", headers: [], body: Data()))
        #expect(response.status == 403)
        let message = try #require(response.error?["message"] as? String)
        for route in ["POST /v1/images/generations", "POST /dalle", "GET /generated/<sha256>.<png|jpg|webp>"] {
            #expect(message.contains(route), "\(message)")
        }
        await harness.stop()
    }
}
