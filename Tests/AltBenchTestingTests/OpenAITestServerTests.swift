import AltBenchCore
import AltBenchTesting
import AsyncHTTPClient
import Foundation
import Testing

// MARK: Helpers

/// One answer as the client saw it.
struct HTTPResult: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func json() throws -> JSONValue { try JSONValue.parse(body) }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A 1x1 PNG.
let pngBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
let pngDataURL = "data:image/png;base64,\(pngBase64)"

func send(
    _ url: String,
    method: String = "POST",
    body: Data? = nil,
    headers: [(String, String)] = [("content-type", "application/json")],
    timeout: Duration = .seconds(10)
) async throws -> HTTPResult {
    var request = HTTPClientRequest(url: url)
    request.method = .init(rawValue: method)
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(Array(body)) }
    let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
    let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(milliseconds))
    let buffer = try await response.body.collect(upTo: 1 << 22)
    return HTTPResult(
        status: Int(response.status.code),
        headers: response.headers.map { (name: $0.name, value: $0.value) },
        body: Data(buffer.readableBytesView)
    )
}

func postCompletion(
    _ server: OpenAITestServer,
    _ body: JSONValue,
    headers: [(String, String)] = [("content-type", "application/json")],
    timeout: Duration = .seconds(10)
) async throws -> HTTPResult {
    try await send("\(server.baseURL)/chat/completions", body: Data(body.canonicalText.utf8), headers: headers, timeout: timeout)
}

/// A valid vision request; `edit` changes it.
func visionBody(
    prompt: String = "Describe this image for a screen reader.",
    imageURL: String = pngDataURL,
    edit: (inout [String: JSONValue]) -> Void = { _ in }
) -> JSONValue {
    var object: [String: JSONValue] = [
        "model": "gpt-4o-mini",
        "messages": [
            ["role": "system", "content": "You write alt text."],
            [
                "role": "user",
                "content": [
                    ["type": "text", "text": .string(prompt)],
                    ["type": "image_url", "image_url": ["url": .string(imageURL), "detail": "low"]],
                ],
            ],
        ],
        "max_tokens": 300,
        "temperature": 0.2,
    ]
    edit(&object)
    return .object(object)
}

/// Replaces the user message's parts.
func userParts(_ parts: [JSONValue]) -> (inout [String: JSONValue]) -> Void {
    { body in body["messages"] = [["role": "user", "content": .array(parts)]] }
}

struct InvalidCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: JSONValue
    var param: String
    var code: String
    var testDescription: String { name }
}

let textPart: JSONValue = ["type": "text", "text": "Describe."]
func imagePart(_ url: String = pngDataURL, detail: JSONValue? = nil) -> JSONValue {
    var image: [String: JSONValue] = ["url": .string(url)]
    if let detail { image["detail"] = detail }
    return ["type": "image_url", "image_url": .object(image)]
}

let invalidCases: [InvalidCase] = [
    InvalidCase(name: "missing model", body: visionBody { $0["model"] = nil }, param: "model", code: "missing_required_parameter"),
    InvalidCase(name: "empty model", body: visionBody { $0["model"] = "" }, param: "model", code: "empty_string"),
    InvalidCase(name: "model not a string", body: visionBody { $0["model"] = 4 }, param: "model", code: "invalid_type"),
    InvalidCase(name: "missing messages", body: visionBody { $0["messages"] = nil }, param: "messages", code: "missing_required_parameter"),
    InvalidCase(name: "empty messages", body: visionBody { $0["messages"] = [] }, param: "messages", code: "empty_array"),
    InvalidCase(name: "messages not an array", body: visionBody { $0["messages"] = "hi" }, param: "messages", code: "invalid_type"),
    InvalidCase(
        name: "bad role", body: visionBody { $0["messages"] = [["role": "tool", "content": "x"]] },
        param: "messages[0].role", code: "invalid_value"),
    InvalidCase(
        name: "missing content", body: visionBody { $0["messages"] = [["role": "user"]] },
        param: "messages[0].content", code: "missing_required_parameter"),
    InvalidCase(
        name: "content a number", body: visionBody { $0["messages"] = [["role": "user", "content": 3]] },
        param: "messages[0].content", code: "invalid_type"),
    InvalidCase(name: "content empty array", body: visionBody(edit: userParts([])), param: "messages[0].content", code: "empty_array"),
    InvalidCase(
        name: "unknown message key", body: visionBody { $0["messages"] = [["role": "user", "content": "x", "colour": "red"]] },
        param: "messages[0].colour", code: "unknown_parameter"),
    InvalidCase(
        name: "unknown part type", body: visionBody(edit: userParts([["type": "image", "url": "https://example.com/a.png"]])),
        param: "messages[0].content[0].type", code: "invalid_value"),
    InvalidCase(
        name: "text not a string", body: visionBody(edit: userParts([["type": "text", "text": 1]])),
        param: "messages[0].content[0].text", code: "invalid_type"),
    InvalidCase(
        name: "image_url as a string", body: visionBody(edit: userParts([textPart, ["type": "image_url", "image_url": .string(pngDataURL)]])),
        param: "messages[0].content[1].image_url", code: "invalid_type"),
    InvalidCase(
        name: "bad detail", body: visionBody(edit: userParts([textPart, imagePart(detail: "medium")])),
        param: "messages[0].content[1].image_url.detail", code: "invalid_value"),
    InvalidCase(
        name: "bad base64", body: visionBody(edit: userParts([textPart, imagePart("data:image/png;base64,@@not base64@@")])),
        param: "messages[0].content[1].image_url.url", code: "invalid_value"),
    InvalidCase(
        name: "empty base64", body: visionBody(edit: userParts([textPart, imagePart("data:image/png;base64,")])),
        param: "messages[0].content[1].image_url.url", code: "invalid_value"),
    InvalidCase(
        name: "unsupported image type", body: visionBody(edit: userParts([textPart, imagePart("data:image/bmp;base64,\(pngBase64)")])),
        param: "messages[0].content[1].image_url.url", code: "invalid_image_format"),
    InvalidCase(
        name: "data URL without base64", body: visionBody(edit: userParts([textPart, imagePart("data:image/png,abc")])),
        param: "messages[0].content[1].image_url.url", code: "invalid_value"),
    InvalidCase(
        name: "file URL", body: visionBody(edit: userParts([textPart, imagePart("file:///tmp/a.png")])),
        param: "messages[0].content[1].image_url.url", code: "invalid_value"),
    InvalidCase(
        name: "unknown image_url key", body: visionBody(edit: userParts([["type": "image_url", "image_url": ["url": .string(pngDataURL), "size": 3]]])),
        param: "messages[0].content[0].image_url.size", code: "unknown_parameter"),
    InvalidCase(
        name: "image in a system message",
        body: visionBody { $0["messages"] = [["role": "system", "content": [imagePart()]], ["role": "user", "content": "x"]] },
        param: "messages[0].content[0]", code: "invalid_value"),
    InvalidCase(name: "max_tokens 0", body: visionBody { $0["max_tokens"] = 0 }, param: "max_tokens", code: "integer_below_min_value"),
    InvalidCase(name: "max_tokens decimal", body: visionBody { $0["max_tokens"] = 2.5 }, param: "max_tokens", code: "invalid_type"),
    InvalidCase(name: "max_tokens string", body: visionBody { $0["max_tokens"] = "10" }, param: "max_tokens", code: "invalid_type"),
    InvalidCase(
        name: "max_completion_tokens negative", body: visionBody { $0["max_tokens"] = nil; $0["max_completion_tokens"] = -1 },
        param: "max_completion_tokens", code: "integer_below_min_value"),
    InvalidCase(
        name: "both token limits", body: visionBody { $0["max_completion_tokens"] = 10 },
        param: "max_tokens", code: "invalid_value"),
    InvalidCase(name: "temperature above 2", body: visionBody { $0["temperature"] = 2.5 }, param: "temperature", code: "decimal_above_max_value"),
    InvalidCase(name: "temperature below 0", body: visionBody { $0["temperature"] = -0.1 }, param: "temperature", code: "decimal_below_min_value"),
    InvalidCase(name: "temperature string", body: visionBody { $0["temperature"] = "warm" }, param: "temperature", code: "invalid_type"),
    InvalidCase(name: "unknown top-level key", body: visionBody { $0["max_output_tokens"] = 5 }, param: "max_output_tokens", code: "unknown_parameter"),
    InvalidCase(name: "stream", body: visionBody { $0["stream"] = true }, param: "stream", code: "unsupported_value"),
]

// MARK: Tests

@Suite("OpenAITestServer")
struct OpenAITestServerTests {
    @Test func validVisionRequestGetsDeterministicCompletion() async throws {
        let server = try await OpenAITestServer.start()
        let prompt = "Describe this image for a screen reader."
        let result = try await postCompletion(
            server, visionBody(prompt: prompt),
            headers: [("content-type", "application/json"), ("Authorization", "Bearer sk-anything")]
        )
        let requests = await server.requests()
        await server.stop()

        #expect(server.baseURL == "http://127.0.0.1:\(server.port)/v1")
        #expect(result.status == 200)
        #expect(result.header("x-request-id") == "req_test_1")
        #expect(result.header("content-type") == "application/json")
        let json = try result.json()
        let expected = OpenAITestServer.compatibleContent(
            imageURL: pngDataURL, prompt: "You write alt text.\n\(prompt)")
        #expect(json["object"]?.stringValue == "chat.completion")
        #expect(json["model"]?.stringValue == "gpt-4o-mini")
        #expect(json["choices"]?[0]?["message"]?["content"]?.stringValue == expected)
        #expect(json["choices"]?[0]?["message"]?["refusal"]?.isNull == true)
        #expect(json["choices"]?[0]?["finish_reason"]?.stringValue == "stop")
        #expect(json["usage"]?["completion_tokens"]?.intValue == 9)
        // Words of the two messages, and the image at gpt-4o-mini's low-detail price.
        #expect(json["usage"]?["prompt_tokens"]?.intValue == 4 + 7 + 2833)
        #expect(expected.hasPrefix("A test description of image \(OpenAITestServer.shortHash(pngDataURL)) for prompt "))

        let recorded = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(recorded.method == "POST")
        #expect(recorded.path == "/v1/chat/completions")
        #expect(recorded.header("AUTHORIZATION") == "Bearer sk-anything")
        let body = try recorded.json()
        #expect(body["model"]?.stringValue == "gpt-4o-mini")
        #expect(body["max_tokens"]?.intValue == 300)
        #expect(body["messages"]?[1]?["content"]?[1]?["image_url"]?["url"]?.stringValue == pngDataURL)
        let object = try recorded.jsonObject()
        #expect(object["model"] as? String == "gpt-4o-mini")
    }

    @Test func bodiesCanBeLeftOutOfTheLog() async throws {
        let seen = RequestSequences([])
        let server = try await OpenAITestServer.start(recordsBodies: false, handler: seen.handler)
        let body = visionBody()
        let result = try await postCompletion(server, body)
        let requests = await server.requests()
        await server.stop()

        #expect(result.status == 200)
        #expect(requests.count == 1)
        #expect(requests.first?.path == "/v1/chat/completions")
        #expect(requests.first?.body.isEmpty == true)
        // The handler still got the whole body.
        #expect(await seen.count(for: Data(body.canonicalText.utf8)) == 1)
    }

    @Test func sameRequestSameAnswer() async throws {
        let server = try await OpenAITestServer.start()
        let first = try await postCompletion(server, visionBody())
        let second = try await postCompletion(server, visionBody())
        let other = try await postCompletion(server, visionBody(prompt: "Another prompt"))
        await server.stop()
        let content = { (result: HTTPResult) in try result.json()["choices"]?[0]?["message"]?["content"]?.stringValue }
        #expect(try content(first) == content(second))
        #expect(try content(first) != content(other))
        #expect(second.header("x-request-id") == "req_test_2")
    }

    @Test func smallTokenLimitCutsWithLength() async throws {
        let server = try await OpenAITestServer.start()
        let result = try await postCompletion(server, visionBody { $0["max_tokens"] = 3 })
        let viaCompletionTokens = try await postCompletion(
            server, visionBody { $0["max_tokens"] = nil; $0["max_completion_tokens"] = 4 })
        await server.stop()
        let json = try result.json()
        #expect(result.status == 200)
        #expect(json["choices"]?[0]?["message"]?["content"]?.stringValue == "A test description")
        #expect(json["choices"]?[0]?["finish_reason"]?.stringValue == "length")
        #expect(json["usage"]?["completion_tokens"]?.intValue == 3)
        let second = try viaCompletionTokens.json()
        #expect(second["choices"]?[0]?["message"]?["content"]?.stringValue == "A test description of")
        #expect(second["choices"]?[0]?["finish_reason"]?.stringValue == "length")
    }

    @Test(arguments: invalidCases)
    func invalidRequestIsRejected(_ invalid: InvalidCase) async throws {
        let server = try await OpenAITestServer.start()
        let result = try await postCompletion(server, invalid.body)
        await server.stop()
        #expect(result.status == 400, "\(result.text)")
        let error = try result.json()["error"]
        #expect(error?["param"]?.stringValue == invalid.param, "\(result.text)")
        #expect(error?["code"]?.stringValue == invalid.code, "\(result.text)")
        #expect(error?["type"]?.stringValue == "invalid_request_error")
        #expect(error?["message"]?.stringValue?.isEmpty == false)
        #expect(result.header("x-request-id") == "req_test_1")
    }

    @Test func malformedBodiesAreRejected() async throws {
        let server = try await OpenAITestServer.start()
        let url = "\(server.baseURL)/chat/completions"
        let notJSON = try await send(url, body: Data("{\"model\": ".utf8))
        let array = try await send(url, body: Data("[1, 2]".utf8))
        let wrongType = try await send(url, body: Data(visionBody().canonicalText.utf8), headers: [("content-type", "text/plain")])
        await server.stop()
        #expect(notJSON.status == 400)
        #expect(try notJSON.json()["error"]?["message"]?.stringValue?.contains("could not parse the JSON body") == true)
        #expect(array.status == 400)
        #expect(try array.json()["error"]?["code"]?.stringValue == "invalid_type")
        #expect(wrongType.status == 400)
        #expect(try wrongType.json()["error"]?["code"]?.stringValue == "invalid_content_type")
    }

    @Test func otherPathsAndMethodsAre404() async throws {
        let server = try await OpenAITestServer.start()
        let wrongPath = try await send("\(server.baseURL)/completions", body: Data(visionBody().canonicalText.utf8))
        let wrongMethod = try await send("\(server.baseURL)/chat/completions", method: "GET", headers: [])
        let noVersion = try await send("http://127.0.0.1:\(server.port)/chat/completions", body: Data(visionBody().canonicalText.utf8))
        let requests = await server.requests()
        await server.stop()
        for result in [wrongPath, wrongMethod, noVersion] {
            #expect(result.status == 404)
            #expect(try result.json()["error"]?["message"]?.stringValue?.hasPrefix("Invalid URL (") == true)
        }
        #expect(try wrongMethod.json()["error"]?["message"]?.stringValue == "Invalid URL (GET /v1/chat/completions)")
        #expect(requests.map(\.path) == ["/v1/completions", "/v1/chat/completions", "/chat/completions"])
    }

    @Test func apiKeyIsChecked() async throws {
        let key = "sk" + "-test-0123456789abcdef"
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: key))
        let missing = try await postCompletion(server, visionBody())
        let wrong = try await postCompletion(
            server, visionBody(), headers: [("content-type", "application/json"), ("authorization", "Bearer sk-wrong-key-987654321")])
        let noBearer = try await postCompletion(
            server, visionBody(), headers: [("content-type", "application/json"), ("authorization", key)])
        let right = try await postCompletion(
            server, visionBody(), headers: [("content-type", "application/json"), ("authorization", "Bearer \(key)")])
        await server.stop()
        for result in [missing, wrong, noBearer] {
            #expect(result.status == 401)
            #expect(try result.json()["error"]?["code"]?.stringValue == "invalid_api_key")
        }
        let message = try wrong.json()["error"]?["message"]?.stringValue ?? ""
        #expect(message.hasPrefix("Incorrect API key provided: sk-wrong"))
        #expect(!message.contains("sk" + "-wrong-key-987654321"))
        #expect(right.status == 200)
    }

    @Test func optionsChangeTheAnswer() async throws {
        let server = try await OpenAITestServer.start(
            handler: OpenAITestServer.compatible(
                options: .init(content: "A red bicycle leaning on a wall.", knownModels: ["gpt-4o-mini", "o4-mini"], reasoningModels: ["o4-mini"])
            )
        )
        let fixed = try await postCompletion(server, visionBody())
        let unknownModel = try await postCompletion(server, visionBody { $0["model"] = "gpt-9" })
        let reasoningMaxTokens = try await postCompletion(server, visionBody { $0["model"] = "o4-mini" })
        let reasoningTemperature = try await postCompletion(
            server, visionBody { $0["model"] = "o4-mini"; $0["max_tokens"] = nil })
        let reasoningSmallBudget = try await postCompletion(
            server, visionBody { $0["model"] = "o4-mini"; $0["max_tokens"] = nil; $0["temperature"] = nil; $0["max_completion_tokens"] = 10 })
        await server.stop()

        #expect(try fixed.json()["choices"]?[0]?["message"]?["content"]?.stringValue == "A red bicycle leaning on a wall.")
        #expect(unknownModel.status == 404)
        #expect(try unknownModel.json()["error"]?["code"]?.stringValue == "model_not_found")
        #expect(reasoningMaxTokens.status == 400)
        #expect(try reasoningMaxTokens.json()["error"]?["code"]?.stringValue == "unsupported_parameter")
        #expect(reasoningTemperature.status == 400)
        #expect(try reasoningTemperature.json()["error"]?["code"]?.stringValue == "unsupported_value")
        let budget = try reasoningSmallBudget.json()
        #expect(reasoningSmallBudget.status == 200)
        #expect(budget["choices"]?[0]?["message"]?["content"]?.stringValue == "")
        #expect(budget["choices"]?[0]?["finish_reason"]?.stringValue == "length")
        #expect(budget["usage"]?["completion_tokens_details"]?["reasoning_tokens"]?.intValue == 10)
    }

    @Test func scriptServesResponsesInOrderThenFallsBack() async throws {
        let script = ResponseScript([
            .error(
                status: 429, message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded",
                headers: [("retry-after-ms", "10")]),
            .html(status: 500, body: "<html><body>Bad gateway</body></html>"),
            .raw(status: 200, body: "{\"id\": \"chatcmpl-1\", \"choices\": ["),
            .chatCompletion(content: nil, refusal: "I can't help with that.", promptTokens: nil, completionTokens: nil),
        ])
        let server = try await OpenAITestServer.start(handler: script.handler)
        var results: [HTTPResult] = []
        for _ in 0..<5 {
            results.append(try await postCompletion(server, visionBody()))
        }
        let remaining = await script.remaining
        let requests = await server.requests()
        await server.stop()

        #expect(results.map(\.status) == [429, 500, 200, 200, 200])
        #expect(results[0].header("retry-after-ms") == "10")
        #expect(try results[0].json()["error"]?["code"]?.stringValue == "rate_limit_exceeded")
        #expect(results[1].header("content-type") == "text/html; charset=utf-8")
        #expect(results[1].text.contains("Bad gateway"))
        #expect(throws: (any Error).self) { try results[2].json() }
        let refusal = try results[3].json()
        #expect(refusal["choices"]?[0]?["message"]?["content"]?.isNull == true)
        #expect(refusal["choices"]?[0]?["message"]?["refusal"]?.stringValue == "I can't help with that.")
        #expect(refusal["usage"] == nil)
        #expect(try results[4].json()["choices"]?[0]?["finish_reason"]?.stringValue == "stop")
        #expect(results[4].header("x-request-id") == "req_test_5")
        #expect(remaining == 0)
        #expect(requests.map(\.number) == [1, 2, 3, 4, 5])
    }

    @Test func fixturesAreBundledAndServedVerbatim() async throws {
        #expect(OpenAIFixtures.names.contains("SOURCES.md"))
        #expect(OpenAIFixtures.names.count >= 19)
        let quota = OpenAIFixtures.body("09_429_insufficient_quota")
        #expect(try JSONValue.parse(quota)["error"]?["code"]?.stringValue == "insufficient_quota")
        #expect(OpenAIFixtures.lines("12_400_image_download_errors").count == 2)
        #expect(try OpenAIFixtures.json("15_llamacpp_error.json")["error"]?["code"]?.intValue == 401)

        let server = try await OpenAITestServer.start(
            handler: ResponseScript([.fixture("09_429_insufficient_quota", status: 429)]).handler)
        let result = try await postCompletion(server, visionBody())
        await server.stop()
        #expect(result.status == 429)
        #expect(result.body == quota)
    }

    @Test func delayedAnswerTimesOutAClientAndArrivesLate() async throws {
        let script = ResponseScript([
            ScriptedResponse.chatCompletion(content: "slow").delayed(by: .milliseconds(1500)),
            ScriptedResponse.chatCompletion(content: "late").delayed(by: .milliseconds(300)),
        ])
        let server = try await OpenAITestServer.start(handler: script.handler)
        await #expect(throws: (any Error).self) {
            _ = try await postCompletion(server, visionBody(), timeout: .milliseconds(200))
        }
        let clock = ContinuousClock()
        let start = clock.now
        let late = try await postCompletion(server, visionBody())
        let elapsed = clock.now - start
        await server.stop()
        #expect(late.status == 200)
        #expect(try late.json()["choices"]?[0]?["message"]?["content"]?.stringValue == "late")
        #expect(elapsed >= .milliseconds(300))
    }

    @Test func stalledBodySendsTheHeadAndHalfTheBodyFirst() async throws {
        let script = ResponseScript([ScriptedResponse.chatCompletion(content: "stalled").stallingMidBody(for: .milliseconds(300))])
        let server = try await OpenAITestServer.start(handler: script.handler)
        var request = HTTPClientRequest(url: "\(server.baseURL)/chat/completions")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(Array(visionBody().canonicalText.utf8))
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let headArrived = clock.now - start
        var chunks: [Int] = []
        for try await chunk in response.body { chunks.append(chunk.readableBytes) }
        let bodyArrived = clock.now - start
        await server.stop()

        #expect(response.status.code == 200)
        // Lower bounds only: a busy machine can delay anything, never hurry it.
        #expect(headArrived <= bodyArrived)
        #expect(bodyArrived >= .milliseconds(300))
        #expect(chunks.count >= 2)
        #expect(response.headers["content-length"].first == String(chunks.reduce(0, +)))
    }

    @Test func stopClosesTheServerAndStartWorksAgain() async throws {
        let first = try await OpenAITestServer.start()
        #expect(try await postCompletion(first, visionBody()).status == 200)
        await first.stop()
        await first.stop()
        // The client may retry a refused connection until its deadline, so keep that short.
        await #expect(throws: (any Error).self) {
            _ = try await postCompletion(first, visionBody(), timeout: .milliseconds(300))
        }
        await #expect(throws: (any Error).self) {
            _ = try await send("http://127.0.0.1:\(first.port)/v1/models", method: "GET", headers: [], timeout: .milliseconds(300))
        }

        for _ in 0..<3 {
            let server = try await OpenAITestServer.start()
            #expect(try await postCompletion(server, visionBody()).status == 200)
            #expect(await server.requests().count == 1)
            await server.stop()
        }
    }

    @Test func stopDoesNotWaitForADelayedAnswer() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([ScriptedResponse.chatCompletion(content: "never").delayed(by: .seconds(60))]).handler)
        let pending = Task { try await postCompletion(server, visionBody(), timeout: .seconds(30)) }
        while await server.requests().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        let clock = ContinuousClock()
        let start = clock.now
        await server.stop()
        // Far from the answer's 60 s delay (and from the client's 30 s timeout), with room for
        // a loaded machine.
        #expect(clock.now - start < .seconds(15))
        await #expect(throws: (any Error).self) { _ = try await pending.value }
    }

    @Test func concurrentServersAreIndependent() async throws {
        let a = try await OpenAITestServer.start()
        let b = try await OpenAITestServer.start(handler: ResponseScript([.html(status: 503)]).handler)
        #expect(a.port != b.port)
        async let resultA = postCompletion(a, visionBody())
        async let resultB = postCompletion(b, visionBody())
        let (ra, rb) = try await (resultA, resultB)
        await a.stop()
        await b.stop()
        #expect(ra.status == 200)
        #expect(rb.status == 503)
    }

    @Test func shortHashIsSHA256() {
        #expect(OpenAITestServer.shortHash("") == "e3b0c442")
        #expect(OpenAITestServer.shortHash("abc") == "ba7816bf")
        // 56 bytes: the padding spills into a second block.
        #expect(OpenAITestServer.shortHash("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") == "248d6a61")
    }
}
