import AltBenchCore
import AltBenchHTTP
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

/// The key of the Azure tests' resource, built from parts so no file holds a key-shaped literal.
let azureTestKey = "azure" + "-test-key-" + String(repeating: "7", count: 24)

/// A client for the test server's Azure routes: the deployment form when `deployment` is
/// given, else the v1 form.
func azureModel(
    _ server: OpenAITestServer, deployment: String? = "alt-text", apiVersion: String? = nil, key: String? = azureTestKey,
    endpointSource: String = "--azure-endpoint"
) -> OpenAIVisionModel {
    OpenAIVisionModel(
        azure: azureSettings(server, deployment: deployment, apiVersion: apiVersion, key: key, endpointSource: endpointSource),
        timeout: .seconds(10))
}

func azureSettings(
    _ server: OpenAITestServer, deployment: String? = "alt-text", apiVersion: String? = nil, key: String? = azureTestKey,
    endpointSource: String = "--azure-endpoint"
) -> AzureSettings {
    AzureSettings(
        endpoint: URL(string: "http://127.0.0.1:\(server.port)")!, deployment: deployment, apiVersion: apiVersion,
        apiKey: key.map(Secret.init), endpointSource: endpointSource)
}

/// The strict handler with an Azure resource: its key, one deployment, the GA api-version.
func azureServer(_ options: (inout CompatibleServerOptions) -> Void = { _ in }) async throws -> OpenAITestServer {
    var settings = CompatibleServerOptions(azureAPIKey: azureTestKey, azureDeployments: ["alt-text", "gpt-4o-mini"])
    options(&settings)
    return try await OpenAITestServer.start(handler: OpenAITestServer.compatible(options: settings))
}

@Suite("Azure OpenAI client against OpenAITestServer")
struct AzureClientTests {
    @Test("the deployment form: exact path and api-version, api-key header, no Authorization header")
    func deploymentRequest() async throws {
        let server = try await azureServer()
        let answer = try await azureModel(server).complete(iceCubesRequest())
        let requests = await server.requests()
        await server.stop()

        let recorded = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(recorded.method == "POST")
        #expect(recorded.path == "/openai/deployments/alt-text/chat/completions")
        #expect(recorded.query == "api-version=2024-10-21")
        #expect(recorded.headerValues("api-key") == [azureTestKey])
        #expect(recorded.headerValues("Authorization").isEmpty)
        #expect(recorded.headerValues("Content-Type") == ["application/json"])
        // The body is the same as OpenAI's.
        #expect(recorded.body == azureModel(server).bodyData(iceCubesRequest(), imageURL: mastodonImage.absoluteString))

        #expect(answer.content == OpenAITestServer.compatibleContent(imageURL: mastodonImage.absoluteString, prompt: iceCubesPrompt))
        #expect(answer.refusal == nil, "unfiltered content_filter_results are not a refusal")
        #expect(answer.finishReason == "stop")
        #expect(answer.requestID == "00000000-0000-4000-8000-000000000001", "apim-request-id is kept without x-request-id")
        #expect(answer.cachedTokens == 0)
        // A remote image, whose bytes the server does not fetch: gpt-4o-mini's price of 1024×1024 at high.
        #expect(answer.imageTokens == 25_501)
        #expect(answer.rawBody?.contains("prompt_filter_results") == true)
    }

    @Test("the v1 form: no api-version, the model names the deployment")
    func v1Request() async throws {
        let server = try await azureServer()
        let answer = try await azureModel(server, deployment: nil).complete(iceCubesRequest())
        let recorded = try #require(await server.requests().first)
        await server.stop()
        #expect(recorded.path == "/openai/v1/chat/completions")
        #expect(recorded.query == nil)
        #expect(recorded.headerValues("api-key") == [azureTestKey])
        #expect(try recorded.json()["model"]?.stringValue == "gpt-4o-mini")
        #expect(answer.content?.hasPrefix("A test description") == true)
        #expect(azureModel(server, deployment: nil).endpoint == "http://127.0.0.1:\(server.port)/openai/v1/chat/completions")
    }

    @Test("a wrong or missing key stops the run, naming AZURE_OPENAI_API_KEY and the endpoint, never the key")
    func wrongKey() async throws {
        let server = try await azureServer()
        let wrongKey = "azure" + "-wrong-key-" + String(repeating: "3", count: 20)
        let wrong = try await expectFailure(azureModel(server, key: wrongKey))
        let missing = try await expectFailure(azureModel(server, key: nil))
        let recorded = await server.requests()
        await server.stop()

        #expect(recorded.last?.headerValues("api-key").isEmpty == true, "no key, no header")
        for failure in [wrong, missing] {
            #expect(failure.status == 401)
            #expect(failure.severity == .runFatal)
            #expect(failure.code == "401")
            #expect(failure.message.contains("Access denied due to"), "\(failure.message)")
            #expect(failure.message.contains("check that AZURE_OPENAI_API_KEY holds a key of the resource at http://127.0.0.1:\(server.port)"))
            #expect(!failure.message.contains("--base-url"), "no OpenAI advice: \(failure.message)")
            #expect(!failure.message.contains(wrongKey) && !failure.message.contains(azureTestKey))
            #expect(failure.requestID?.hasPrefix("00000000-0000-4000-8000-") == true)
        }
    }

    @Test("a key the server echoes back is redacted from the failure")
    func echoedKeyIsRedacted() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([.azureError(status: 401, message: "Key \(azureTestKey) is not valid for this resource.")]).handler)
        let failure = try await expectFailure(azureModel(server))
        await server.stop()
        #expect(!failure.message.contains(azureTestKey))
        #expect(failure.message.contains("Key [redacted] is not valid"))
    }

    @Test("an unknown deployment stops the run, naming the deployment and where it was set")
    func deploymentNotFound() async throws {
        let server = try await azureServer()
        let failure = try await expectFailure(azureModel(server, deployment: "alt-txet"))
        let v1 = try await expectFailure(
            azureModel(server, deployment: nil), ModelRequest(model: "gpt-5-typo", prompt: "p", image: .remote(mastodonImage), imageIdentity: "i"))
        await server.stop()

        #expect(failure.status == 404 && failure.code == "DeploymentNotFound")
        #expect(failure.severity == .runFatal)
        #expect(failure.message.contains("The API deployment for this resource does not exist"))
        #expect(failure.message.contains("The resource has no deployment named 'alt-txet': check the deployment name (--azure-deployment"))
        #expect(v1.code == "DeploymentNotFound")
        #expect(v1.message.contains("in Azure's v1 API --model (or the prompt's model) names the deployment"), "\(v1.message)")
    }

    @Test("a retired api-version is Azure's 404 Resource not found, naming the api-version")
    func unknownAPIVersion() async throws {
        let server = try await azureServer { $0.azureAPIVersions = ["2024-10-21"] }
        let failure = try await expectFailure(
            OpenAIVisionModel(
                azure: AzureSettings(
                    endpoint: URL(string: "http://127.0.0.1:\(server.port)")!, deployment: "alt-text", apiVersion: "2023-05-15",
                    apiKey: Secret(azureTestKey), endpointSource: "AZURE_OPENAI_ENDPOINT", apiVersionSource: "OPENAI_API_VERSION"),
                timeout: .seconds(10)))
        await server.stop()
        #expect(failure.status == 404 && failure.code == "404")
        #expect(failure.severity == .runFatal)
        #expect(failure.message.contains(": Resource not found (404). Nothing there: check the endpoint http://127.0.0.1:\(server.port) (AZURE_OPENAI_ENDPOINT) and the api-version 2023-05-15 (OPENAI_API_VERSION)"), "\(failure.message)")
    }

    @Test("a connection failure names where the endpoint came from")
    func refusedConnectionNamesTheAzureSetting() async throws {
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let settings = AzureSettings(
            endpoint: URL(string: "http://127.0.0.1:\(closed.port)")!, deployment: "alt-text", apiVersion: nil,
            apiKey: Secret(azureTestKey), endpointSource: "AZURE_OPENAI_ENDPOINT")
        // A client that does not retry the connection itself, as a run's does.
        let client = HTTPClients.make()
        let failure = try await expectFailure(OpenAIVisionModel(azure: settings, timeout: .seconds(10), httpClient: client))
        try await client.shutdown()
        #expect(failure.kind == .transport)
        #expect(failure.message.contains("AZURE_OPENAI_ENDPOINT"), "\(failure.message)")
        #expect(!failure.message.contains("--base-url"))
    }

    @Test("Azure's 429 is retried after its retry-after, then answered")
    func rateLimitRetriedAfterTheHeader() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript(
                [.azureRateLimited(retryAfter: 6)],
                then: OpenAITestServer.compatible(options: CompatibleServerOptions(azureAPIKey: azureTestKey))
            ).handler)
        let sink = CollectingSink()
        let clock = VirtualClock()
        let runner = Runner(
            model: azureModel(server), sink: sink, retryPolicy: RetryPolicy(jitter: false), concurrency: 1, clock: clock)
        let outcome = try await runner.run(iceCubesTrials(1))
        let requests = await server.requests()
        await server.stop()

        let result = try #require(await sink.results.first)
        #expect(requests.count == 2)
        #expect(result.attempts == 2)
        #expect(result.failure == nil)
        #expect(result.answer?.content?.hasPrefix("A test description") == true)
        #expect(clock.sleeps == [.seconds(6)])
        #expect(outcome.pacing.rateLimited == 1)
    }

    @Test("a completion the content filter stopped is a refusal naming the categories, content kept as sent")
    func filteredCompletion() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .azureFilteredCompletion([ContentFilterCategory("violence", "medium")], content: "A knife held against"),
                .azureFilteredCompletion([ContentFilterCategory("protected_material_text"), ContentFilterCategory("sexual", "high")]),
            ]).handler)
        let partial = try await azureModel(server).complete(iceCubesRequest())
        let empty = try await azureModel(server).complete(iceCubesRequest())
        await server.stop()

        #expect(partial.refusal == "content filter: violence (medium)")
        #expect(partial.content == "A knife held against")
        #expect(partial.finishReason == "content_filter")
        #expect(empty.refusal == "content filter: protected_material_text, sexual (high)")
        #expect(empty.content == nil)
        #expect(empty.cachedTokens == 0)
    }

    @Test("a prompt the content filter refused (400 content_filter) is a refusal, not a failure")
    func filteredPrompt() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([.azurePromptFiltered([ContentFilterCategory("jailbreak")])]).handler)
        let answer = try await azureModel(server).complete(iceCubesRequest())
        await server.stop()
        #expect(answer.content == nil)
        #expect(answer.refusal == "content filter (prompt): jailbreak")
        #expect(answer.finishReason == "content_filter")
        #expect(answer.tokenField == "max_tokens")
        #expect(answer.rawBody?.contains("ResponsibleAIPolicyViolation") == true)
    }

    @Test("filtered trials score as refusals through the runner", arguments: ["prompt", "completion"])
    func filteredTrialsScoreAsRefusals(_ stage: String) async throws {
        let filtered: ScriptedResponse =
            stage == "prompt"
            ? .azurePromptFiltered([ContentFilterCategory("jailbreak")])
            : .azureFilteredCompletion([ContentFilterCategory("hate", "high")])
        let server = try await OpenAITestServer.start(handler: ResponseScript([filtered]).handler)
        let sink = CollectingSink()
        let runner = Runner(model: azureModel(server), sink: sink, retryPolicy: quickRetries, concurrency: 1)
        let outcome = try await runner.run(iceCubesTrials(1))
        let requests = await server.requests()
        await server.stop()

        let result = try #require(await sink.results.first)
        #expect(requests.count == 1, "a refusal is not retried")
        #expect(result.failure == nil)
        #expect(outcome.progress.failed == 0)
        let refusal = try #require(result.scores.first { $0.name == ScoreName.refusal })
        #expect(refusal.isFlagged)
        #expect(refusal.detail == "refusal field")
    }
}

@Suite("Azure answers and errors, parsed")
struct AzureParsingTests {
    static let redactor = Redactor(secrets: [azureTestKey])

    static func answer(_ json: String) throws -> ModelAnswer {
        try ChatCompletionParser.answer(from: Data(json.utf8), requestID: nil, redactor: redactor)
    }

    @Test("usage.prompt_tokens_details gives cached and image tokens; absent, they stay nil")
    func usageDetails() throws {
        let full = try Self.answer(
            #"{"choices":[{"message":{"content":"A cat."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1200,"completion_tokens":5,"total_tokens":1205,"prompt_tokens_details":{"cached_tokens":1024,"image_tokens":765,"audio_tokens":0}}}"#)
        #expect(full.cachedTokens == 1024)
        #expect(full.imageTokens == 765)
        #expect(full.promptTokens == 1200)
        let bare = try Self.answer(#"{"choices":[{"message":{"content":"A cat."}}],"usage":{"prompt_tokens":10}}"#)
        #expect(bare.cachedTokens == nil && bare.imageTokens == nil)
    }

    @Test(
        "filter results become refusal text: severities, detections, blocklists and the prompt's own",
        arguments: [
            (
                #"{"choices":[{"finish_reason":"content_filter","message":{"content":null},"content_filter_results":{"violence":{"filtered":true,"severity":"medium"},"hate":{"filtered":false,"severity":"safe"}}}]}"#,
                "content filter: violence (medium)"
            ),
            (
                #"{"choices":[{"finish_reason":"content_filter","message":{"content":"x"},"content_filter_results":{"protected_material_text":{"filtered":true,"detected":true},"self_harm":{"filtered":true,"severity":"high"}}}]}"#,
                "content filter: protected_material_text, self_harm (high)"
            ),
            (
                #"{"choices":[{"finish_reason":"content_filter","message":{"content":null},"content_filter_results":{"custom_blocklists":{"filtered":true,"details":[{"filtered":true,"id":"brands"}]}}}]}"#,
                "content filter: custom blocklist brands"
            ),
            (
                #"{"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"jailbreak":{"filtered":true,"detected":true}}}],"choices":[{"finish_reason":"content_filter","message":{"content":null},"content_filter_results":{}}]}"#,
                "content filter (prompt): jailbreak"
            ),
            (#"{"choices":[{"finish_reason":"content_filter","message":{"content":null}}]}"#, "content filter"),
        ])
    func filterRefusals(_ json: String, _ expected: String) throws {
        let answer = try Self.answer(json)
        #expect(answer.refusal == expected)
        #expect(answer.finishReason == "content_filter")
    }

    @Test("an unfiltered answer with Azure's annotations is no refusal; a model's own refusal is kept")
    func noFilterNoRefusal() throws {
        let plain = try Self.answer(
            #"{"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"jailbreak":{"filtered":false,"detected":false}}}],"choices":[{"finish_reason":"stop","message":{"content":"A cat."},"content_filter_results":{"violence":{"filtered":false,"severity":"low"}}}]}"#)
        #expect(plain.refusal == nil)
        let own = try Self.answer(
            #"{"choices":[{"finish_reason":"content_filter","message":{"content":null,"refusal":"I can't help with that."},"content_filter_results":{"violence":{"filtered":true,"severity":"high"}}}]}"#)
        #expect(own.refusal == "I can't help with that.")
    }

    @Test("only Azure's 400 content_filter is a prompt refusal")
    func promptFilteredOnlyFor400ContentFilter() {
        let body = Data(
            #"{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","code":"content_filter","innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"jailbreak":{"detected":true,"filtered":true},"violence":{"filtered":true,"severity":"medium"},"hate":{"filtered":false,"severity":"safe"}}}}}"#
                .utf8)
        let answer = ChatCompletionParser.promptFilteredAnswer(status: 400, body: body, requestID: "r", redactor: Self.redactor)
        #expect(answer?.refusal == "content filter (prompt): jailbreak, violence (medium)")
        #expect(answer?.requestID == "r")
        #expect(ChatCompletionParser.promptFilteredAnswer(status: 429, body: body, requestID: nil, redactor: Self.redactor) == nil)
        let other = Data(#"{"error":{"message":"bad","code":"invalid_value"}}"#.utf8)
        #expect(ChatCompletionParser.promptFilteredAnswer(status: 400, body: other, requestID: nil, redactor: Self.redactor) == nil)
    }

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var label: String
        var status: Int
        var body: String
        var headers: [String: String] = [:]
        var message: String
        var code: String?
        var severity: ModelFailure.Severity
        var advice: String
        var retryAfter: Duration? = nil
        var testDescription: String { label }
    }

    static let settings = AzureSettings(
        endpoint: URL(string: "https://r.openai.azure.com")!, deployment: "alt-text", apiKey: Secret(azureTestKey))

    static let errors: [ErrorCase] = [
        ErrorCase(
            label: "DeploymentNotFound", status: 404,
            body: #"{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}}"#,
            message: "The API deployment for this resource does not exist.", code: "DeploymentNotFound", severity: .runFatal,
            advice: "no deployment named 'alt-text'"),
        ErrorCase(
            label: "401 with a string code", status: 401,
            body: #"{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}"#,
            message: "Access denied due to invalid subscription key", code: "401", severity: .runFatal,
            advice: "check that AZURE_OPENAI_API_KEY holds a key of the resource at https://r.openai.azure.com"),
        ErrorCase(
            label: "the gateway's 401", status: 401,
            body: #"{"statusCode": 401, "message": "Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired."}"#,
            message: "Unauthorized. Access token is missing", code: nil, severity: .runFatal, advice: "AZURE_OPENAI_API_KEY"),
        ErrorCase(
            label: "429 with retry-after", status: 429,
            body: #"{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."}}"#,
            headers: ["retry-after": "6"], message: "have exceeded token rate limit", code: "429", severity: .retryable, advice: "",
            retryAfter: .seconds(6)),
        ErrorCase(
            label: "404 Resource not found", status: 404, body: #"{"error":{"code":"404","message":"Resource not found"}}"#,
            message: "Resource not found", code: "404", severity: .runFatal,
            advice: "check the endpoint https://r.openai.azure.com (--azure-endpoint) and the api-version 2024-10-21 (the default)"),
        ErrorCase(
            label: "403 from the resource's network rules", status: 403,
            body: #"{"error":{"code":"403","message":"Public access is disabled. Please configure private endpoint."}}"#,
            message: "Public access is disabled", code: "403", severity: .runFatal, advice: "resource's networking"),
    ]

    @Test("Azure's error shapes decode with their message and classify", arguments: errors)
    func azureErrors(_ error: ErrorCase) {
        let failure = ErrorBodyParser.failure(
            status: error.status, headers: error.headers, body: Data(error.body.utf8), redactor: Self.redactor,
            url: Self.settings.chatCompletionsURL.absoluteString, apiKeyVariable: "AZURE_OPENAI_API_KEY", azure: Self.settings)
        #expect(failure.message.contains(error.message), "\(failure.message)")
        #expect(error.advice.isEmpty || failure.message.contains(error.advice), "\(failure.message)")
        #expect(failure.code == error.code)
        #expect(failure.severity == error.severity)
        #expect(failure.retryAfter == error.retryAfter)
        #expect(!failure.message.contains("--base-url"), "\(failure.message)")
    }
}
