import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

// MARK: Helpers

/// Ice Cubes' alt-text prompt (prompts/icecubes.md), byte for byte.
let iceCubesPrompt =
    "What’s in this image? Be brief, it's for image alt description on a social network. Don't write in the first person."
let mastodonImage = URL(string: "https://files.mastodon.social/media/x.png")!
let testKey = "sk" + "-test-altbench-0123456789abcdef"

/// A real photo from the sample dataset.
let chelseaPNG = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("datasets/sample/chelsea.png")

func iceCubesRequest(image: ImagePayload = .remote(mastodonImage)) -> ModelRequest {
    ModelRequest(
        model: "gpt-4o-mini", prompt: iceCubesPrompt, image: image, imageIdentity: "identity", maxTokens: 50)
}

func model(
    _ server: OpenAITestServer, key: String? = testKey, timeout: Duration = .seconds(10), variable: String = "OPENAI_API_KEY"
) -> OpenAIVisionModel {
    OpenAIVisionModel(
        baseURL: URL(string: server.baseURL)!, apiKey: key.map(Secret.init), apiKeyVariable: variable, timeout: timeout)
}

/// The failure `complete` throws; records a test failure when it answers instead.
func expectFailure(_ model: OpenAIVisionModel, _ request: ModelRequest = iceCubesRequest()) async throws -> ModelFailure {
    try await #require(throws: ModelFailure.self) { try await model.complete(request) }
}

/// Requests altbench builds from prompt files, one per option that changes the body.
struct BuiltRequest: Sendable, CustomTestStringConvertible {
    var name: String
    var request: ModelRequest
    var testDescription: String { name }

    init(_ name: String, _ edit: (inout ModelRequest) -> Void) {
        var request = iceCubesRequest()
        edit(&request)
        self.name = name
        self.request = request
    }
}

let builtRequests: [BuiltRequest] = [
    BuiltRequest("Ice Cubes") { _ in },
    BuiltRequest("system message") { $0.system = "You write alt text for blind and low-vision readers." },
    BuiltRequest("detail low") { $0.detail = .low },
    BuiltRequest("detail high") { $0.detail = .high },
    BuiltRequest("detail auto") { $0.detail = .auto },
    BuiltRequest("temperature 0") { $0.temperature = 0 },
    BuiltRequest("temperature 0.7") { $0.temperature = 0.7 },
    BuiltRequest("temperature 2") { $0.temperature = 2 },
    BuiltRequest("max_completion_tokens") { $0.tokenField = .maxCompletionTokens },
    BuiltRequest("no token limit") { $0.maxTokens = nil },
    BuiltRequest("no token limit, max_completion_tokens field") {
        $0.maxTokens = nil
        $0.tokenField = .maxCompletionTokens
    },
    BuiltRequest("local PNG, everything set") {
        $0.image = .file(chelseaPNG, .png)
        $0.system = "Be concise."
        $0.detail = .low
        $0.temperature = 0.2
        $0.tokenField = .maxCompletionTokens
        $0.maxTokens = 300
    },
    BuiltRequest("prompt with quotes, backslashes, newlines and emoji") {
        $0.prompt = "Say \"what\" you see.\\n\nNo \u{1F600}, no </script>, no \t tabs."
    },
]

// MARK: Tests

@Suite("OpenAIVisionModel against OpenAITestServer")
struct OpenAIVisionModelTests {
    @Test func iceCubesRequestIsExactlyWhatIceCubesSends() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: testKey))
        let answer = try await model(server).complete(iceCubesRequest())
        let requests = await server.requests()
        await server.stop()

        let recorded = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(recorded.method == "POST")
        #expect(recorded.path == "/v1/chat/completions")
        #expect(recorded.query == nil)
        #expect(recorded.headerValues("Authorization") == ["Bearer \(testKey)"])
        #expect(recorded.headerValues("Content-Type") == ["application/json"])
        let expected: JSONValue = [
            "model": "gpt-4o-mini",
            "messages": [
                [
                    "role": "user",
                    "content": [
                        ["type": "text", "text": .string(iceCubesPrompt)],
                        ["type": "image_url", "image_url": ["url": "https://files.mastodon.social/media/x.png"]],
                    ],
                ]
            ],
            "max_tokens": 50,
        ]
        #expect(try recorded.json() == expected)

        #expect(answer.content == OpenAITestServer.compatibleContent(imageURL: mastodonImage.absoluteString, prompt: iceCubesPrompt))
        #expect(answer.finishReason == "stop")
        #expect(answer.requestID == "req_test_1")
        #expect(answer.responseModel == "gpt-4o-mini")
        #expect(answer.tokenField == "max_tokens")
        #expect(answer.systemFingerprint == "fp_altbench_test")
        #expect(answer.promptTokens != nil)
    }

    @Test func localImageIsSentAsABase64DataURL() async throws {
        let bytes = try Data(contentsOf: chelseaPNG)
        #expect(bytes.count > 100_000)
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: testKey))
        let answer = try await model(server).complete(iceCubesRequest(image: .file(chelseaPNG, .png)))
        let requests = await server.requests()
        await server.stop()

        let body = try #require(requests.first).json()
        let dataURL = "data:image/png;base64,\(bytes.base64EncodedString())"
        #expect(body["messages"]?[0]?["content"]?[1]?["image_url"]?["url"]?.stringValue == dataURL)
        #expect(body["messages"]?[0]?["content"]?[1]?["image_url"]?.objectValue?.keys.sorted() == ["url"])
        #expect(body.objectValue?.keys.sorted() == ["max_tokens", "messages", "model"])
        #expect(answer.content == OpenAITestServer.compatibleContent(imageURL: dataURL, prompt: iceCubesPrompt))
    }

    @Test(arguments: builtRequests)
    func strictServerAcceptsEveryRequestAltbenchBuilds(_ built: BuiltRequest) async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: testKey))
        let answer: ModelAnswer
        do {
            answer = try await model(server).complete(built.request)
        } catch {
            await server.stop()
            throw error
        }
        let requests = await server.requests()
        await server.stop()

        #expect(requests.count == 1)
        #expect(answer.content?.hasPrefix("A test description") == true)
        let body = try #require(requests.first).json()
        // The wire body is the request's own body, nothing added or dropped. The expected
        // value goes through JSON text too, since JSON does not tell 2.0 from 2.
        let imageURL = try built.request.image.urlString()
        let expected = try JSONValue.parse(Data(built.request.body(imageURL: imageURL).canonicalText.utf8))
        #expect(body == expected)
        #expect(answer.tokenField == built.request.maxTokens.map { _ in built.request.tokenField.rawValue })
    }

    @Test func noKeyMeansNoAuthorizationHeader() async throws {
        let server = try await OpenAITestServer.start()
        _ = try await model(server, key: nil).complete(iceCubesRequest())
        let recorded = try #require(await server.requests().first)
        await server.stop()
        #expect(recorded.header("authorization") == nil)
        #expect(recorded.header("content-type") == "application/json")
    }

    @Test func wrongKeyStopsTheRunWithoutShowingTheKey() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: testKey))
        let wrongKey = "sk" + "-wrong-altbench-9876543210fedcba"
        let failure = try await expectFailure(model(server, key: wrongKey))
        let missing = try await expectFailure(model(server, key: nil, variable: "LOCAL_LLM_KEY"))
        await server.stop()

        #expect(failure.kind == .http)
        #expect(failure.status == 401)
        #expect(failure.code == "invalid_api_key")
        #expect(failure.stopsRun)
        #expect(!failure.retryable)
        #expect(failure.requestID == "req_test_1")
        #expect(failure.message.contains("check OPENAI_API_KEY"), "\(failure.message)")
        #expect(!failure.message.contains(wrongKey))
        #expect(!failure.message.contains("sk-"), "\(failure.message)")
        #expect(!failure.message.contains("9876"), "\(failure.message)")
        #expect(missing.stopsRun)
        #expect(missing.message.contains("check LOCAL_LLM_KEY"), "\(missing.message)")
    }

    @Test func forbiddenStopsTheRun() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .error(
                    status: 403, message: "Project `proj_1` does not have access to model `gpt-4o-mini`",
                    code: "model_not_found")
            ]).handler)
        let failure = try await expectFailure(model(server))
        await server.stop()
        #expect(failure.status == 403)
        #expect(failure.stopsRun)
        #expect(failure.message.contains("--model"))
    }

    @Test func baseURLWithoutV1Is404AndStopsTheRun() async throws {
        let server = try await OpenAITestServer.start()
        let client = OpenAIVisionModel(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, apiKey: nil)
        let failure = try await expectFailure(client)
        let paths = await server.requests().map(\.path)
        await server.stop()
        #expect(paths == ["/chat/completions"])
        #expect(failure.status == 404)
        #expect(failure.stopsRun)
        #expect(failure.message.contains("check --base-url (it usually ends in /v1)"), "\(failure.message)")
    }

    @Test func unknownModelIs404AndStopsTheRun() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(knownModels: ["llava"]))
        let failure = try await expectFailure(model(server))
        await server.stop()
        #expect(failure.status == 404)
        #expect(failure.code == "model_not_found")
        #expect(failure.stopsRun)
    }

    @Test func noQuotaStopsTheRun() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([.fixture("09_429_insufficient_quota", status: 429)]).handler)
        let failure = try await expectFailure(model(server))
        await server.stop()
        #expect(failure.status == 429)
        #expect(failure.stopsRun)
        #expect(!failure.retryable)
    }

    @Test func rateLimitIsRetryableAfterTheServersWait() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .error(
                    status: 429, message: "Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.",
                    type: "requests", code: "rate_limit_exceeded",
                    headers: [("retry-after-ms", "250"), ("x-ratelimit-reset-requests", "20s"), ("x-request-id", "req_rl")])
            ]).handler)
        let failure = try await expectFailure(model(server))
        await server.stop()
        #expect(failure.status == 429)
        #expect(failure.retryable)
        #expect(!failure.stopsRun)
        #expect(failure.retryAfter == .milliseconds(250))
        #expect(failure.requestID == "req_rl")
    }

    @Test func htmlServerErrorIsRetryable() async throws {
        let server = try await OpenAITestServer.start(handler: ResponseScript([.html(status: 500)]).handler)
        let failure = try await expectFailure(model(server))
        await server.stop()
        #expect(failure.kind == .http)
        #expect(failure.status == 500)
        #expect(failure.retryable)
        #expect(!failure.stopsRun)
        #expect(failure.message.contains("500 Internal Server Error"))
        #expect(!failure.message.contains("<"))
    }

    @Test func malformedJSONIsMalformed() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .raw(status: 200, body: #"{"id": "chatcmpl-1", "choices": ["#, headers: [("x-request-id", "req_cut")])
            ]).handler)
        let failure = try await expectFailure(model(server))
        await server.stop()
        #expect(failure.kind == .malformed)
        #expect(failure.retryable)
        #expect(failure.requestID == "req_cut")
    }

    @Test func slowAnswerTimesOut() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([ScriptedResponse.chatCompletion(content: "slow").delayed(by: .seconds(300))]).handler)
        let clock = ContinuousClock()
        let start = clock.now
        let failure = try await expectFailure(model(server, timeout: .milliseconds(200)))
        let elapsed = clock.now - start
        await server.stop()
        #expect(failure.kind == .timeout)
        #expect(failure.retryable)
        #expect(!failure.stopsRun)
        #expect(failure.message.contains("0.2 s"), "\(failure.message)")
        // Well before the answer would come (300 s), with room for a starved machine.
        #expect(elapsed < .seconds(150))
    }

    @Test func bodyStalledAfterTheHeadTimesOut() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([ScriptedResponse.chatCompletion(content: "stuck").stallingMidBody(for: .seconds(300))]).handler)
        let clock = ContinuousClock()
        let start = clock.now
        let failure = try await expectFailure(model(server, timeout: .milliseconds(300)))
        let elapsed = clock.now - start
        await server.stop()
        #expect(failure.kind == .timeout, "\(failure.message)")
        #expect(failure.retryable)
        // Well before the body would resume (300 s), with room for a starved machine.
        #expect(elapsed < .seconds(150))
    }

    @Test func refusedConnectionIsATransportFailure() async throws {
        let stopped = try ClosedPort()
        defer { withExtendedLifetime(stopped) {} }
        let client = OpenAIVisionModel(
            baseURL: URL(string: stopped.baseURL)!, apiKey: Secret(testKey), timeout: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        let failure = try await expectFailure(client)
        #expect(failure.kind == .transport, "\(failure.message)")
        #expect(failure.retryable)
        #expect(!failure.stopsRun)
        #expect(failure.cannotConnect)
        #expect(failure.message.hasPrefix("could not connect to 127.0.0.1:\(URL(string: stopped.baseURL)!.port!) (connection refused)"))
        #expect(!failure.message.contains(testKey))
        // It does not hang: a refused connection fails within the request's own timeout. Alone
        // it takes 0.3 s; under the whole parallel suite it was seen at 10–22 s, so the bound is
        // loose and catches a hang (no answer until a minute-long default), not a slow machine.
        #expect(clock.now - start < .seconds(45))
    }

    @Test func unreadableImageFailsWithoutARequest() async throws {
        let server = try await OpenAITestServer.start()
        let missing = URL(fileURLWithPath: "/nonexistent/altbench/cat.png")
        let failure = try await expectFailure(model(server), iceCubesRequest(image: .file(missing, .png)))
        let count = await server.requests().count
        await server.stop()
        #expect(failure.kind == .image)
        #expect(!failure.retryable)
        #expect(failure.message.hasPrefix("could not read the image /nonexistent/altbench/cat.png: "), "\(failure.message)")
        #expect(count == 0)
    }

    // MARK: Token-limit fallback

    @Test func reasoningModelGetsMaxCompletionTokensOnTheSecondTry() async throws {
        let server = try await OpenAITestServer.start(
            handler: OpenAITestServer.compatible(apiKey: testKey, reasoningModels: ["o4-mini"]))
        var request = iceCubesRequest()
        request.model = "o4-mini"
        request.maxTokens = 300
        request.tokenField = .maxTokens
        let answer = try await model(server).complete(request)
        let requests = await server.requests()
        await server.stop()

        #expect(requests.count == 2)
        let first = try requests[0].json()
        let second = try requests[1].json()
        #expect(first["max_tokens"] == .int(300))
        #expect(first["max_completion_tokens"] == nil)
        #expect(second["max_completion_tokens"] == .int(300))
        #expect(second["max_tokens"] == nil)
        #expect(answer.tokenField == "max_completion_tokens")
        #expect(answer.content?.hasPrefix("A test description") == true)
        #expect(answer.requestID == "req_test_2")
    }

    @Test func aRejectedFieldIsRememberedForTheModel() async throws {
        let server = try await OpenAITestServer.start(
            handler: OpenAITestServer.compatible(apiKey: testKey, reasoningModels: ["o4-mini"]))
        let client = model(server)
        var request = iceCubesRequest()
        request.model = "o4-mini"
        request.maxTokens = 300
        for _ in 0..<3 { _ = try await client.complete(request) }
        let requests = await server.requests()
        await server.stop()
        // One rejected request, then max_completion_tokens straight away for every call.
        #expect(requests.count == 4)
        #expect(try requests.dropFirst().allSatisfy { try $0.json()["max_completion_tokens"] == .int(300) })
    }

    @Test func fallbackGoesBackToMaxTokensToo() async throws {
        // Servers that only know max_tokens reject the newer field the same way.
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .error(
                    status: 400, message: "Unsupported parameter: 'max_completion_tokens'.", code: "unsupported_parameter",
                    param: "max_completion_tokens")
            ]).handler)
        var request = iceCubesRequest()
        request.tokenField = .maxCompletionTokens
        let answer = try await model(server).complete(request)
        let requests = await server.requests()
        await server.stop()
        #expect(requests.count == 2)
        #expect(try requests[1].json()["max_tokens"] == .int(50))
        #expect(answer.tokenField == "max_tokens")
    }

    @Test func fallbackHappensOnlyOnce() async throws {
        let rejection = ScriptedResponse.fixture("06_400_unsupported_parameter_max_tokens", status: 400)
        let otherRejection = ScriptedResponse.error(
            status: 400, message: "Unsupported parameter: 'max_completion_tokens'.", code: "unsupported_parameter",
            param: "max_completion_tokens")
        let server = try await OpenAITestServer.start(handler: ResponseScript([rejection, otherRejection]).handler)
        let failure = try await expectFailure(model(server))
        let count = await server.requests().count
        await server.stop()
        #expect(count == 2)
        #expect(failure.param == "max_completion_tokens")
        #expect(!failure.retryable)
    }

    struct NoFallback: Sendable, CustomTestStringConvertible {
        var name: String
        var response: ScriptedResponse
        var maxTokens: Int?
        var testDescription: String { name }
    }

    @Test(arguments: [
        NoFallback(
            name: "temperature rejected", response: .fixture("11_400_temperature_unsupported_value", status: 400),
            maxTokens: 50),
        NoFallback(
            name: "other parameter", response: .error(status: 400, message: "x", code: "unsupported_parameter", param: "top_p"),
            maxTokens: 50),
        NoFallback(
            name: "no token limit sent", response: .fixture("06_400_unsupported_parameter_max_tokens", status: 400),
            maxTokens: nil),
    ])
    func otherRejectionsAreNotRetriedHere(_ rejection: NoFallback) async throws {
        let server = try await OpenAITestServer.start(handler: ResponseScript([rejection.response]).handler)
        var request = iceCubesRequest()
        request.maxTokens = rejection.maxTokens
        let failure = try await expectFailure(model(server), request)
        let count = await server.requests().count
        await server.stop()
        #expect(count == 1)
        #expect(failure.status == 400)
        #expect(!failure.retryable)
    }
}
