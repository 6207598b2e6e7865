import AltBenchCore
@testable import AltBenchTesting
import Foundation
import Testing

// MARK: Helpers

func postImages(
    _ server: OpenAITestServer,
    _ body: JSONValue,
    headers: [(String, String)] = [("content-type", "application/json")]
) async throws -> HTTPResult {
    try await send("\(server.baseURL)/images/generations", body: Data(body.canonicalText.utf8), headers: headers)
}

/// An image request for `model`; `edit` changes it.
func imageBody(
    model: String? = "dall-e-3",
    prompt: String = "A red bicycle leaning on a blue door",
    edit: (inout [String: JSONValue]) -> Void = { _ in }
) -> JSONValue {
    var object: [String: JSONValue] = ["prompt": .string(prompt)]
    if let model { object["model"] = .string(model) }
    edit(&object)
    return .object(object)
}

/// ShipThatApp's request, field for field.
func shipThatAppBody(prompt: String = "A red bicycle leaning on a blue door") -> JSONValue {
    [
        "prompt": .string(prompt), "model": "dall-e-3", "n": 1, "quality": "hd", "response_format": "url",
        "size": "1024x1024", "style": "natural",
    ]
}

/// The `error` object of an answer.
func imageError(_ result: HTTPResult) throws -> JSONValue {
    try #require(try result.json()["error"], "no error object in \(result.text)")
}

/// The `data` items of an answer.
func imageItems(_ result: HTTPResult) throws -> [JSONValue] {
    try #require(try result.json()["data"]?.arrayValue, "no data in \(result.text)")
}

/// The bytes of a `b64_json` item.
func decodedImage(_ item: JSONValue) throws -> Data {
    try #require(item["b64_json"]?.stringValue.flatMap { Data(base64Encoded: $0) }, "no b64_json in \(item)")
}

struct ImageCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: JSONValue
    var status = 400
    var code: String?
    var param: String?
    var message: String?
    var testDescription: String { name }
}

func longPrompt(_ length: Int) -> String { String(repeating: "a", count: length) }

/// Every request here is refused, with the status, code, param (and message, where OpenAI's
/// wording is known) given.
let refusedImageCases: [ImageCase] = [
    // dall-e-3
    ImageCase(
        name: "dall-e-3 n=2", body: imageBody { $0["n"] = 2 }, code: nil, param: nil,
        message: "You must provide n=1 for this model."),
    ImageCase(name: "dall-e-3 n=0", body: imageBody { $0["n"] = 0 }, code: "integer_below_min_value", param: "n"),
    ImageCase(name: "dall-e-3 n a string", body: imageBody { $0["n"] = "1" }, code: "invalid_type", param: "n"),
    ImageCase(
        name: "dall-e-3 size 512x512", body: imageBody { $0["size"] = "512x512" }, code: "invalid_size", param: nil,
        message: "The size is not supported by this model."),
    ImageCase(name: "dall-e-3 size 1536x1024", body: imageBody { $0["size"] = "1536x1024" }, code: "invalid_size"),
    ImageCase(name: "dall-e-3 quality low", body: imageBody { $0["quality"] = "low" }, code: "invalid_value", param: "quality"),
    ImageCase(
        name: "dall-e-3 response_format png", body: imageBody { $0["response_format"] = "png" }, code: "invalid_value",
        param: "response_format",
        message: "Invalid value: 'png'. Supported values are: 'url' and 'b64_json'."),
    ImageCase(name: "dall-e-3 style bright", body: imageBody { $0["style"] = "bright" }, code: "invalid_value", param: "style"),
    ImageCase(
        name: "dall-e-3 prompt of 4001", body: imageBody(prompt: longPrompt(4001)), code: "string_above_max_length",
        param: "prompt"),
    ImageCase(
        name: "dall-e-3 output_format", body: imageBody { $0["output_format"] = "png" }, code: "unsupported_parameter",
        param: "output_format"),
    ImageCase(
        name: "dall-e-3 background", body: imageBody { $0["background"] = "auto" }, code: "unsupported_parameter",
        param: "background"),
    // dall-e-2
    ImageCase(name: "dall-e-2 n=11", body: imageBody(model: "dall-e-2") { $0["n"] = 11 }, code: "integer_above_max_value", param: "n"),
    ImageCase(name: "dall-e-2 size 1792x1024", body: imageBody(model: "dall-e-2") { $0["size"] = "1792x1024" }, code: "invalid_size"),
    ImageCase(
        name: "dall-e-2 style", body: imageBody(model: "dall-e-2") { $0["style"] = "natural" }, code: "unsupported_parameter",
        param: "style", message: "Unsupported parameter: 'style' is not supported with this model."),
    ImageCase(name: "dall-e-2 quality hd", body: imageBody(model: "dall-e-2") { $0["quality"] = "hd" }, code: "invalid_value", param: "quality"),
    ImageCase(
        name: "dall-e-2 prompt of 1001", body: imageBody(model: "dall-e-2", prompt: longPrompt(1001)),
        code: "string_above_max_length", param: "prompt"),
    ImageCase(name: "no model is dall-e-2", body: imageBody(model: nil) { $0["size"] = "1024x1792" }, code: "invalid_size"),
    // GPT image models
    ImageCase(
        name: "gpt-image-1 response_format", body: imageBody(model: "gpt-image-1") { $0["response_format"] = "b64_json" },
        code: "unknown_parameter", param: "response_format", message: "Unknown parameter: 'response_format'."),
    ImageCase(
        name: "gpt-image-1-mini style", body: imageBody(model: "gpt-image-1-mini") { $0["style"] = "vivid" },
        code: "unknown_parameter", param: "style", message: "Unknown parameter: 'style'."),
    ImageCase(name: "gpt-image-1 n=11", body: imageBody(model: "gpt-image-1") { $0["n"] = 11 }, code: "integer_above_max_value", param: "n"),
    ImageCase(
        name: "gpt-image-1 quality hd", body: imageBody(model: "gpt-image-1") { $0["quality"] = "hd" }, code: "invalid_value",
        param: "quality", message: "Invalid value: 'hd'. Supported values are: 'auto', 'low', 'medium', and 'high'."),
    ImageCase(
        name: "gpt-image-2 size 1792x1024", body: imageBody(model: "gpt-image-2") { $0["size"] = "1792x1024" },
        code: "invalid_value", param: "size"),
    ImageCase(
        name: "gpt-image-1 output_format gif", body: imageBody(model: "gpt-image-1") { $0["output_format"] = "gif" },
        code: "invalid_value", param: "output_format"),
    ImageCase(
        name: "gpt-image-1 output_compression 101", body: imageBody(model: "gpt-image-1") { $0["output_compression"] = 101 },
        code: "integer_above_max_value", param: "output_compression"),
    ImageCase(
        name: "gpt-image-1 output_compression -1", body: imageBody(model: "gpt-image-1") { $0["output_compression"] = -1 },
        code: "integer_below_min_value", param: "output_compression"),
    ImageCase(
        name: "gpt-image-1 background white", body: imageBody(model: "gpt-image-1") { $0["background"] = "white" },
        code: "invalid_value", param: "background"),
    ImageCase(
        name: "gpt-image-1 transparent jpeg",
        body: imageBody(model: "gpt-image-1") {
            $0["background"] = "transparent"
            $0["output_format"] = "jpeg"
        }, code: "invalid_value", param: "background"),
    ImageCase(
        name: "gpt-image-1 moderation high", body: imageBody(model: "gpt-image-1") { $0["moderation"] = "high" },
        code: "invalid_value", param: "moderation"),
    ImageCase(
        name: "gpt-image-1 prompt of 32001", body: imageBody(model: "gpt-image-1", prompt: longPrompt(32001)),
        code: "string_above_max_length", param: "prompt"),
    ImageCase(
        name: "gpt-image-1 stream", body: imageBody(model: "gpt-image-1") { $0["stream"] = true }, code: "unsupported_value",
        param: "stream"),
    // Any model
    ImageCase(
        name: "an unknown model", body: imageBody(model: "stable-diffusion-xl"), status: 404, code: "model_not_found",
        message: "The model `stable-diffusion-xl` does not exist or you do not have access to it."),
    ImageCase(name: "a chat model", body: imageBody(model: "gpt-4o-mini"), status: 404, code: "model_not_found"),
    ImageCase(
        name: "no prompt", body: imageBody { $0["prompt"] = nil }, code: "missing_required_parameter", param: "prompt",
        message: "Missing required parameter: 'prompt'."),
    ImageCase(name: "an empty prompt", body: imageBody(prompt: ""), code: "empty_string", param: "prompt"),
    ImageCase(name: "a prompt not a string", body: imageBody { $0["prompt"] = 7 }, code: "invalid_type", param: "prompt"),
    ImageCase(
        name: "an unknown field", body: imageBody { $0["seed"] = 42 }, code: "unknown_parameter", param: "seed",
        message: "Unknown parameter: 'seed'."),
    ImageCase(name: "a body that is not an object", body: ["prompt", "x"], code: "invalid_type"),
]

/// Every request here is answered 200.
let acceptedImageCases: [ImageCase] = [
    ImageCase(name: "ShipThatApp's request", body: shipThatAppBody()),
    ImageCase(name: "dall-e-3 defaults", body: imageBody()),
    ImageCase(name: "dall-e-3 n=1", body: imageBody { $0["n"] = 1 }),
    ImageCase(name: "dall-e-3 1792x1024", body: imageBody { $0["size"] = "1792x1024" }),
    ImageCase(name: "dall-e-3 1024x1792", body: imageBody { $0["size"] = "1024x1792" }),
    ImageCase(name: "dall-e-3 standard", body: imageBody { $0["quality"] = "standard" }),
    ImageCase(name: "dall-e-3 vivid", body: imageBody { $0["style"] = "vivid" }),
    ImageCase(name: "dall-e-3 b64_json", body: imageBody { $0["response_format"] = "b64_json" }),
    ImageCase(name: "dall-e-3 user", body: imageBody { $0["user"] = "user-1234" }),
    ImageCase(name: "dall-e-3 prompt of 4000", body: imageBody(prompt: longPrompt(4000))),
    ImageCase(name: "dall-e-3 null fields", body: imageBody { $0["n"] = .null; $0["size"] = .null }),
    ImageCase(name: "dall-e-2 n=10 256x256", body: imageBody(model: "dall-e-2") { $0["n"] = 10; $0["size"] = "256x256" }),
    ImageCase(name: "dall-e-2 512x512 standard", body: imageBody(model: "dall-e-2") { $0["size"] = "512x512"; $0["quality"] = "standard" }),
    ImageCase(name: "dall-e-2 prompt of 1000", body: imageBody(model: "dall-e-2", prompt: longPrompt(1000))),
    ImageCase(name: "no model (dall-e-2)", body: imageBody(model: nil)),
    ImageCase(name: "gpt-image-1 defaults", body: imageBody(model: "gpt-image-1")),
    ImageCase(
        name: "gpt-image-1 every field",
        body: imageBody(model: "gpt-image-1") {
            $0["n"] = 10
            $0["quality"] = "high"
            $0["size"] = "1536x1024"
            $0["output_format"] = "webp"
            $0["output_compression"] = 100
            $0["background"] = "transparent"
            $0["moderation"] = "low"
            $0["partial_images"] = 0
            $0["stream"] = false
            $0["user"] = "u"
        }),
    ImageCase(name: "gpt-image-1 low 1024x1536 jpeg 0", body: imageBody(model: "gpt-image-1") {
        $0["quality"] = "low"
        $0["size"] = "1024x1536"
        $0["output_format"] = "jpeg"
        $0["output_compression"] = 0
        $0["background"] = "opaque"
        $0["moderation"] = "auto"
    }),
    ImageCase(name: "gpt-image-1-mini medium auto", body: imageBody(model: "gpt-image-1-mini") { $0["quality"] = "medium"; $0["size"] = "auto" }),
    ImageCase(name: "gpt-image-2 auto", body: imageBody(model: "gpt-image-2") { $0["quality"] = "auto"; $0["background"] = "auto" }),
    ImageCase(name: "gpt-image-1 prompt of 32000", body: imageBody(model: "gpt-image-1", prompt: longPrompt(32000))),
]

// MARK: Tests

@Suite("Images API")
struct ImagesEndpointTests {
    @Test(arguments: refusedImageCases)
    func eachRuleRefuses(_ example: ImageCase) async throws {
        let server = try await OpenAITestServer.start()
        defer { Task { await server.stop() } }
        let result = try await postImages(server, example.body)
        #expect(result.status == example.status, "\(result.text)")
        let error = try imageError(result)
        #expect(error["code"]?.stringValue == example.code, "\(result.text)")
        #expect(error["param"]?.stringValue == example.param, "\(result.text)")
        #expect(error["type"]?.stringValue == "invalid_request_error")
        if let message = example.message { #expect(error["message"]?.stringValue == message) }
        #expect(result.header("x-request-id") == "req_test_1")
    }

    @Test(arguments: acceptedImageCases)
    func eachRuleAccepts(_ example: ImageCase) async throws {
        let server = try await OpenAITestServer.start()
        defer { Task { await server.stop() } }
        let result = try await postImages(server, example.body)
        #expect(result.status == 200, "\(result.text.prefix(500))")
        let asked = example.body["n"]?.intValue ?? 1
        #expect(try imageItems(result).count == asked)
    }

    @Test func shipThatAppsRequestGetsAServedURLAndARevisedPrompt() async throws {
        let server = try await OpenAITestServer.start()
        defer { Task { await server.stop() } }
        let prompt = "A red bicycle leaning on a blue door"
        let result = try await postImages(server, shipThatAppBody(prompt: prompt))
        #expect(result.status == 200)
        #expect(try result.json()["created"]?.intValue == OpenAITestServer.fixedCreated)
        let items = try imageItems(result)
        #expect(items.count == 1)
        #expect(items[0]["revised_prompt"]?.stringValue == "A detailed image of: \(prompt)")
        #expect(items[0]["b64_json"] == nil)
        let url = try #require(items[0]["url"]?.stringValue)

        let expected = OpenAITestServer.generatedImage(prompt: prompt, index: 0, size: "1024x1024")
        #expect(url == "http://127.0.0.1:\(server.port)/generated/\(Hashing.sha256Hex(expected)).png")
        let download = try await send(url, method: "GET", headers: [])
        #expect(download.status == 200)
        #expect(download.header("content-type") == "image/png")
        #expect(download.body == expected)
        let header = try ImageSniffer.sniff(download.body, path: "generated.png")
        #expect(header == ImageHeader(format: .png, width: 64, height: 64))

        // The same request gets the same bytes.
        let again = try await postImages(server, shipThatAppBody(prompt: prompt))
        #expect(try imageItems(again)[0]["url"]?.stringValue == url)
    }

    @Test(arguments: [
        ("dall-e-3", "1792x1024", 64, 37), ("dall-e-3", "1024x1792", 37, 64), ("dall-e-3", "1024x1024", 64, 64),
        ("dall-e-2", "256x256", 64, 64), ("dall-e-2", "512x512", 64, 64),
    ])
    func base64AnswersAreRealPNGsOfTheAskedAspect(model: String, size: String, width: Int, height: Int) async throws {
        let server = try await OpenAITestServer.start()
        defer { Task { await server.stop() } }
        let result = try await postImages(
            server, imageBody(model: model) {
                $0["size"] = .string(size)
                $0["response_format"] = "b64_json"
            })
        let items = try imageItems(result)
        #expect(items[0]["url"] == nil)
        let bytes = try decodedImage(items[0])
        #expect(try ImageSniffer.sniff(bytes, path: "b64.png") == ImageHeader(format: .png, width: width, height: height))
        #expect(bytes == OpenAITestServer.generatedImage(prompt: "A red bicycle leaning on a blue door", index: 0, size: size))
        #expect((items[0]["revised_prompt"] != nil) == (model == "dall-e-3"))
    }

    @Test func dallE2AnswersSeveralDistinctImagesEachServed() async throws {
        let server = try await OpenAITestServer.start()
        defer { Task { await server.stop() } }
        let result = try await postImages(server, imageBody(model: "dall-e-2") { $0["n"] = 3; $0["size"] = "512x512" })
        let urls = try imageItems(result).map { try #require($0["url"]?.stringValue) }
        #expect(Set(urls).count == 3)
        for (index, url) in urls.enumerated() {
            let download = try await send(url, method: "GET", headers: [])
            #expect(download.body == OpenAITestServer.generatedImage(prompt: "A red bicycle leaning on a blue door", index: index, size: "512x512"))
            #expect(try ImageSniffer.sniff(download.body, path: url).format == .png)
        }
        #expect(try imageItems(result).allSatisfy { $0["revised_prompt"] == nil })
    }

    @Test func gptImageModelsAnswerBase64WithTheirExtraFields() async throws {
        let server = try await OpenAITestServer.start()
        defer { Task { await server.stop() } }
        let defaults = try await postImages(server, imageBody(model: "gpt-image-1", prompt: "two red apples"))
        let json = try defaults.json()
        #expect(json["background"]?.stringValue == "opaque")
        #expect(json["output_format"]?.stringValue == "png")
        #expect(json["quality"]?.stringValue == "medium")
        #expect(json["size"]?.stringValue == "1024x1024")
        #expect(json["usage"]?["input_tokens"]?.intValue == 3)
        #expect(json["usage"]?["output_tokens"]?.intValue == 1056)
        #expect(json["usage"]?["total_tokens"]?.intValue == 1059)
        let item = try #require(try imageItems(defaults).first)
        #expect(item["url"] == nil && item["revised_prompt"] == nil)
        #expect(try ImageSniffer.sniff(try decodedImage(item), path: "a.png") == ImageHeader(format: .png, width: 64, height: 64))

        let wide = try await postImages(
            server, imageBody(model: "gpt-image-1-mini") {
                $0["n"] = 2
                $0["size"] = "1536x1024"
                $0["quality"] = "high"
                $0["background"] = "transparent"
                $0["output_format"] = "webp"
            })
        let wideJSON = try wide.json()
        #expect(wideJSON["background"]?.stringValue == "transparent")
        // The bytes are PNG whatever was asked, and the answer says so.
        #expect(wideJSON["output_format"]?.stringValue == "png")
        #expect(wideJSON["quality"]?.stringValue == "high")
        #expect(wideJSON["size"]?.stringValue == "1536x1024")
        #expect(wideJSON["usage"]?["output_tokens"]?.intValue == 2 * 6208)
        let images = try imageItems(wide).map(decodedImage)
        #expect(images.count == 2 && images[0] != images[1])
        for image in images {
            #expect(try ImageSniffer.sniff(image, path: "w.png") == ImageHeader(format: .png, width: 64, height: 43))
            #expect(image.range(of: Data("tRNS".utf8)) != nil)
        }
    }

    @Test func theURLIsGoneWithTheServer() async throws {
        let server = try await OpenAITestServer.start()
        let result = try await postImages(server, imageBody())
        let url = try #require(try imageItems(result)[0]["url"]?.stringValue)
        #expect(try await send(url, method: "GET", headers: []).status == 200)
        // An image the server never made.
        let unknown = "http://127.0.0.1:\(server.port)/generated/\(String(repeating: "0", count: 64)).png"
        #expect(try await send(unknown, method: "GET", headers: []).status == 404)
        await server.stop()
        await #expect(throws: (any Error).self) { _ = try await send(url, method: "GET", headers: [], timeout: .seconds(2)) }
    }

    @Test func downloadsPassTheRateLimiterUncounted() async throws {
        let limiter = TokenBucketServerLimiter(requestsPerSecond: 0.001, burst: 1)
        let server = try await OpenAITestServer.start(handler: limiter.handler)
        defer { Task { await server.stop() } }
        let result = try await postImages(server, imageBody())
        #expect(result.status == 200)
        let url = try #require(try imageItems(result)[0]["url"]?.stringValue)
        #expect(try await send(url, method: "GET", headers: []).status == 200)
        #expect(try await send(url, method: "GET", headers: []).status == 200)
        #expect(try await postImages(server, imageBody()).status == 429)
    }

    @Test func theStoreKeepsTheLastThousandImages() {
        let store = GeneratedImageStore()
        let paths = (0...GeneratedImageStore.capacity).map { store.put(Data("image \($0)".utf8), contentType: "image/png") }
        #expect(store.get(path: paths[0]) == nil)
        #expect(store.get(path: paths[1])?.body == Data("image 1".utf8))
        #expect(store.get(path: paths[GeneratedImageStore.capacity])?.contentType == "image/png")
    }

    @Test func imageRequestsAreRecordedAndTheAPIKeyChecked() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: "sk" + "-test-images-key"))
        defer { Task { await server.stop() } }
        let anonymous = try await postImages(server, imageBody())
        #expect(anonymous.status == 401)
        #expect(try imageError(anonymous)["code"]?.stringValue == "invalid_api_key")
        let result = try await postImages(
            server, imageBody(), headers: [("content-type", "application/json"), ("authorization", "Bearer sk-test-images-key")])
        #expect(result.status == 200)
        // The download needs no key: the URL is its own permission, as OpenAI's are.
        let url = try #require(try imageItems(result)[0]["url"]?.stringValue)
        #expect(try await send(url, method: "GET", headers: []).status == 200)

        let recorded = await server.requests(path: "/v1/images/generations")
        #expect(recorded.map(\.number) == [1, 2])
        #expect(recorded.allSatisfy { $0.method == "POST" && $0.serverPort == server.port })
        #expect(try recorded[1].json()["model"]?.stringValue == "dall-e-3")
        #expect(await server.requests().count == 3)
    }

    @Test func malformedRequestsGetTheChatHandlersErrors() async throws {
        let server = try await OpenAITestServer.start()
        defer { Task { await server.stop() } }
        let notJSON = try await send("\(server.baseURL)/images/generations", body: Data("{prompt:".utf8))
        #expect(notJSON.status == 400)
        #expect(try imageError(notJSON)["message"]?.stringValue?.hasPrefix("We could not parse the JSON body") == true)
        let plain = try await postImages(server, imageBody(), headers: [("content-type", "text/plain")])
        #expect(try imageError(plain)["code"]?.stringValue == "invalid_content_type")
        let get = try await send("\(server.baseURL)/images/generations", method: "GET", headers: [])
        #expect(get.status == 404)
        #expect(try imageError(get)["message"]?.stringValue == "Invalid URL (GET /v1/images/generations)")
    }

    @Test func removedModelsAreRefusedAsOpenAIRefusesThem() async throws {
        let server = try await OpenAITestServer.start(
            handler: OpenAITestServer.compatible(options: CompatibleServerOptions(removedModels: ["dall-e-2", "dall-e-3", "gpt-4o-mini"])))
        defer { Task { await server.stop() } }
        for body in [imageBody(model: "dall-e-3"), shipThatAppBody(), imageBody(model: nil)] {
            let result = try await postImages(server, body)
            #expect(result.status == 404)
            let error = try imageError(result)
            let model = body["model"]?.stringValue ?? "dall-e-2"
            #expect(error["message"]?.stringValue == "The model `\(model)` has been deprecated, learn more here: https://platform.openai.com/docs/deprecations")
            #expect(error["code"]?.stringValue == "model_not_found")
            #expect(error["type"]?.stringValue == "invalid_request_error")
        }
        #expect(try await postImages(server, imageBody(model: "gpt-image-1")).status == 200)
        // Chat models too.
        let chat = try await postCompletion(server, visionBody())
        #expect(chat.status == 404)
        #expect(try imageError(chat)["message"]?.stringValue?.contains("`gpt-4o-mini` has been deprecated") == true)
    }
}

// MARK: Scripting

@Suite("Images API: response rules")
struct ImageResponseRulesTests {
    static func rules(_ yaml: String) throws -> [ResponseRule] {
        try ResponseRules.parse(yaml, displayPath: "images.yml")
    }

    static func start(_ yaml: String, options: CompatibleServerOptions = CompatibleServerOptions()) async throws
        -> (OpenAITestServer, ResponseRules)
    {
        let rules = ResponseRules(try rules(yaml), options: options)
        return (try await OpenAITestServer.start(handler: rules.handler), rules)
    }

    @Test func contentPolicyRefusalsTakeEachFamilysShape() async throws {
        let (server, rules) = try await Self.start(
            """
            rules:
              - name: refuse knives
                match: {prompt: knife}
                respond: {content_policy: true}
            """)
        defer { Task { await server.stop() } }
        let dallE = try await postImages(server, imageBody(prompt: "a knife on a table"))
        #expect(dallE.status == 400)
        let dallEError = try imageError(dallE)
        #expect(dallEError["code"]?.stringValue == "content_policy_violation")
        #expect(dallEError["type"]?.stringValue == "invalid_request_error")
        #expect(dallEError["message"]?.stringValue?.hasPrefix("Your request was rejected as a result of our safety system.") == true)
        #expect(dallEError["param"] == .null)

        let gpt = try await postImages(server, imageBody(model: "gpt-image-1", prompt: "a knife on a table"))
        #expect(gpt.status == 400)
        let gptError = try imageError(gpt)
        #expect(gptError["code"]?.stringValue == "moderation_blocked")
        #expect(gptError["type"]?.stringValue == "image_generation_user_error")
        #expect(gptError["message"]?.stringValue?.hasPrefix("Your request was rejected by the safety system.") == true)
        #expect(gptError["message"]?.stringValue?.contains("req_test_2") == true)
        #expect(gpt.header("x-request-id") == "req_test_2")

        // Other prompts, and chat requests (a refusal answers only image requests), pass.
        #expect(try await postImages(server, imageBody(prompt: "a spoon")).status == 200)
        #expect(try await postCompletion(server, visionBody(prompt: "knife")).status == 200)
        #expect(await rules.appliedCounts == [2])
    }

    @Test func rateLimitsServerErrorsAndRemovedModelsByModelAndRequestNumber() async throws {
        let (server, _) = try await Self.start(
            """
            rules:
              - match: {endpoint: images, requests: 1}
                respond: {status: 429, headers: {retry-after-ms: 10}}
              - match: {endpoint: images, requests: 2}
                respond: {status: 503}
              - match: {model: dall-e-3}
                respond: {removed_model: true}
            """)
        defer { Task { await server.stop() } }
        let limited = try await postImages(server, imageBody(model: "gpt-image-1"))
        #expect(limited.status == 429)
        #expect(limited.header("retry-after-ms") == "10")
        #expect(try imageError(limited)["code"]?.stringValue == "rate_limit_exceeded")
        #expect(try imageError(limited)["message"]?.stringValue?.hasPrefix("Rate limit reached for gpt-image-1") == true)
        let overloaded = try await postImages(server, imageBody(model: "gpt-image-1"))
        #expect(overloaded.status == 503)
        #expect(try imageError(overloaded)["type"]?.stringValue == "server_error")
        let removed = try await postImages(server, shipThatAppBody())
        #expect(removed.status == 404)
        #expect(try imageError(removed)["message"]?.stringValue == OpenAITestServer.removedModelMessage("dall-e-3"))
        #expect(try imageError(removed)["code"]?.stringValue == "model_not_found")
        #expect(try await postImages(server, imageBody(model: "gpt-image-1")).status == 200)
        #expect(await server.requests(path: "/v1/images/generations").count == 4)
    }

    @Test func anImageURLCanServeAnHTMLPage() async throws {
        let (server, _) = try await Self.start(
            """
            rules:
              - match: {prompt: login}
                respond: {image_content: html}
            """)
        defer { Task { await server.stop() } }
        let result = try await postImages(server, imageBody(prompt: "a login wall"))
        #expect(result.status == 200)
        let url = try #require(try imageItems(result)[0]["url"]?.stringValue)
        #expect(url.hasSuffix(".png"))
        let page = try await send(url, method: "GET", headers: [])
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        #expect(page.text.hasPrefix("<!DOCTYPE html>"))
        #expect(throws: ImageProblem.notAnImage(path: "page.png")) { try ImageSniffer.sniff(page.body, path: "page.png") }

        // In base64 too.
        let inline = try await postImages(server, imageBody(model: "gpt-image-1", prompt: "a login wall"))
        let bytes = try decodedImage(try imageItems(inline)[0])
        #expect(bytes == OpenAITestServer.generatedHTML(prompt: "a login wall", index: 0))
        // Other prompts keep their images.
        let fine = try await postImages(server, imageBody(prompt: "a cat"))
        let image = try await send(try #require(try imageItems(fine)[0]["url"]?.stringValue), method: "GET", headers: [])
        #expect(image.header("content-type") == "image/png")
    }

    @Test func rulesChooseTheirEndpoint() async throws {
        let (server, rules) = try await Self.start(
            """
            rules:
              - name: a chat answer never answers images
                respond: {answer: "Scripted."}
            """)
        defer { Task { await server.stop() } }
        #expect(try await postImages(server, imageBody()).status == 200)
        let chat = try await postCompletion(server, visionBody())
        #expect(try chat.json()["choices"]?[0]?["message"]?["content"]?.stringValue == "Scripted.")
        #expect(await rules.appliedCounts == [1])

        let (both, bothRules) = try await Self.start(
            """
            rules:
              - match: {prompt: "red"}
                times: 2
                respond: {status: 500}
              - match: {endpoint: chat}
                respond: {latency_ms: 1}
            """)
        defer { Task { await both.stop() } }
        #expect(try await postImages(both, imageBody(prompt: "red")).status == 500)
        #expect(try await postCompletion(both, visionBody(prompt: "red")).status == 500)
        #expect(try await postImages(both, imageBody(prompt: "red")).status == 200)
        // Downloads are not API calls: no rule sees them.
        let result = try await postImages(both, imageBody(prompt: "blue"))
        let url = try #require(try imageItems(result)[0]["url"]?.stringValue)
        #expect(try await send(url, method: "GET", headers: []).status == 200)
        #expect(await bothRules.appliedCounts == [2, 0])
    }

    @Test func theSwiftAPIBuildsTheSameRules() async throws {
        let rules = ResponseRules([
            ResponseRule(match: .init(model: "gpt-image-1"), reply: .init(contentPolicy: true)),
            ResponseRule(match: .init(endpoint: .images), reply: .init(imageContent: .html)),
        ])
        let server = try await OpenAITestServer.start(handler: rules.handler)
        defer { Task { await server.stop() } }
        let refused = try await postImages(server, imageBody(model: "gpt-image-1"))
        #expect(try imageError(refused)["code"]?.stringValue == "moderation_blocked")
        let html = try await postImages(server, imageBody(model: "dall-e-2") { $0["response_format"] = "b64_json" })
        #expect(try decodedImage(try imageItems(html)[0]).starts(with: Data("<!DOCTYPE html>".utf8)))
        // The same answers as conveniences for a ResponseScript queue.
        let refusal = ScriptedResponse.contentPolicyRefusal(model: "dall-e-3")
        #expect(refusal.status == 400)
        #expect(try JSONValue.parse(refusal.body)["error"]?["code"]?.stringValue == "content_policy_violation")
        #expect(ScriptedResponse.removedModel("dall-e-2").status == 404)
    }

    @Test(arguments: [
        ("rules:\n  - respond: {content_policy: true, status: 429}\n", "images.yml:2: rule 1, `respond.status`: cannot be 429 beside `content_policy`"),
        ("rules:\n  - respond: {removed_model: true, answer: x}\n", "rule 1, `respond.answer`: cannot go with `removed_model`"),
        ("rules:\n  - respond: {content_policy: yes please}\n", "rule 1, `respond.content_policy`: must be true or false."),
        ("rules:\n  - respond: {image_content: jpeg}\n", "rule 1, `respond.image_content`: must be png or html, not 'jpeg'."),
        ("rules:\n  - respond: {image_content: html, status: 500}\n", "rule 1, `respond.image_content`: cannot go with status 500"),
        ("rules:\n  - match: {endpoint: chat}\n    respond: {image_content: html}\n", "rule 1, `respond.image_content`: answers only images requests, but `match.endpoint` is chat."),
        ("rules:\n  - match: {endpoint: images}\n    respond: {answer: hi}\n", "rule 1, `respond.answer`: answers only chat requests, but `match.endpoint` is images."),
        ("rules:\n  - match: {endpoint: image}\n    respond: {status: 500}\n", "rule 1, `match.endpoint`: must be `chat` (chat completions) or `images` (image generations), not 'image'."),
    ])
    func badImageRulesAreNamed(yaml: String, expected: String) throws {
        do {
            _ = try Self.rules(yaml)
            Issue.record("accepted: \(yaml)")
        } catch let error as ResponseRulesError {
            #expect(error.description.contains(expected), "\(error.description)")
        }
    }
}
