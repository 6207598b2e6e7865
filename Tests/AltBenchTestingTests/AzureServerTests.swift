import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

/// The test server's Azure OpenAI routes: the deployment and v1 URLs, the `api-key` header,
/// Azure's error bodies and request ids, its content-filter annotations, and scripted
/// filtered completions and prompts.
@Suite("Azure routes of the test server")
struct AzureServerTests {
    static let key = "azure" + "-server-key-" + String(repeating: "5", count: 16)

    static func server(
        deployments: Set<String>? = ["alt-text"], versions: Set<String>? = nil
    ) async throws -> OpenAITestServer {
        try await OpenAITestServer.start(
            handler: OpenAITestServer.compatible(
                options: CompatibleServerOptions(azureAPIKey: key, azureDeployments: deployments, azureAPIVersions: versions)))
    }

    /// POSTs a valid vision request to `path` (with its query) on `server`.
    static func post(
        _ server: OpenAITestServer, _ path: String, key: String? = AzureServerTests.key, body: JSONValue = visionBody(),
        extra: [(String, String)] = []
    ) async throws -> HTTPResult {
        var headers = [("content-type", "application/json")] + extra
        if let key { headers.append(("api-key", key)) }
        return try await send(
            "http://127.0.0.1:\(server.port)\(path)", body: Data(body.canonicalText.utf8), headers: headers)
    }

    static let deploymentPath = "/openai/deployments/alt-text/chat/completions?api-version=2024-10-21"

    @Test("the deployment route answers like OpenAI, with apim-request-id and Azure's filter results")
    func deploymentAnswer() async throws {
        let server = try await Self.server()
        let result = try await Self.post(server, Self.deploymentPath)
        let recorded = try #require(await server.requests().first)
        await server.stop()

        #expect(result.status == 200, "\(result.text)")
        #expect(result.header("apim-request-id") == "00000000-0000-4000-8000-000000000001")
        #expect(result.header("x-request-id") == nil)
        #expect(recorded.path == "/openai/deployments/alt-text/chat/completions")
        #expect(recorded.query == "api-version=2024-10-21")
        let json = try result.json()
        #expect(json["choices"]?[0]?["message"]?["content"]?.stringValue?.hasPrefix("A test description") == true)
        #expect(json["choices"]?[0]?["content_filter_results"]?["violence"] == ["filtered": false, "severity": "safe"])
        #expect(
            json["choices"]?[0]?["content_filter_results"]?["protected_material_text"] == ["filtered": false, "detected": false])
        #expect(json["prompt_filter_results"]?[0]?["content_filter_results"]?["jailbreak"] == ["filtered": false, "detected": false])
        #expect(json["usage"]?["prompt_tokens_details"]?["cached_tokens"] == 0)
    }

    @Test("the v1 route needs no api-version; its model names the deployment")
    func v1Route() async throws {
        let server = try await Self.server(deployments: ["gpt-4o-mini"])
        let known = try await Self.post(server, "/openai/v1/chat/completions")
        let unknown = try await Self.post(server, "/openai/v1/chat/completions", body: visionBody { $0["model"] = "gpt-5-typo" })
        await server.stop()
        #expect(known.status == 200, "\(known.text)")
        #expect(known.header("apim-request-id") != nil)
        #expect(unknown.status == 404)
        #expect(try unknown.json()["error"]?["code"]?.stringValue == "DeploymentNotFound")
    }

    @Test(
        "wrong paths, api-versions, keys and deployments get Azure's errors",
        arguments: [
            ("no api-version", "/openai/deployments/alt-text/chat/completions", 404, "404", "Resource not found"),
            ("empty api-version", "/openai/deployments/alt-text/chat/completions?api-version=", 404, "404", "Resource not found"),
            ("retired api-version", "/openai/deployments/alt-text/chat/completions?api-version=2023-05-15", 404, "404", "Resource not found"),
            ("unknown deployment", "/openai/deployments/alt-txet/chat/completions?api-version=2024-10-21", 404, "DeploymentNotFound",
                "The API deployment for this resource does not exist."),
        ])
    func azureErrors(_ label: String, _ path: String, _ status: Int, _ code: String, _ message: String) async throws {
        let server = try await Self.server(versions: ["2024-10-21", "2025-04-01-preview"])
        let result = try await Self.post(server, path)
        await server.stop()
        #expect(result.status == status)
        let error = try #require(try result.json()["error"])
        // Azure's shape: code and message only.
        #expect(error == ["code": .string(code), "message": .string(error["message"]?.stringValue ?? "")])
        #expect(error["message"]?.stringValue?.hasPrefix(message) == true, "\(result.text)")
        #expect(result.header("apim-request-id") != nil)
    }

    @Test("the api-key header is checked; a bearer token is not an Azure key")
    func apiKey() async throws {
        let server = try await Self.server()
        let missing = try await Self.post(server, Self.deploymentPath, key: nil)
        let wrong = try await Self.post(server, Self.deploymentPath, key: "azure-wrong-0000")
        let bearer = try await Self.post(server, Self.deploymentPath, key: nil, extra: [("authorization", "Bearer \(Self.key)")])
        let right = try await Self.post(server, Self.deploymentPath)
        await server.stop()
        #expect(missing.status == 401)
        #expect(try missing.json()["error"]?["message"]?.stringValue == AzureRoute.missingKeyMessage)
        #expect(wrong.status == 401)
        #expect(try wrong.json() == ["error": ["code": "401", "message": .string(AzureRoute.invalidKeyMessage)]])
        #expect(bearer.status == 401)
        #expect(right.status == 200)
    }

    @Test("the OpenAI route is unchanged beside the Azure ones")
    func openAIRouteUnchanged() async throws {
        let server = try await Self.server()
        let result = try await postCompletion(server, visionBody())
        await server.stop()
        #expect(result.status == 200)
        #expect(result.header("x-request-id") == "req_test_1")
        #expect(result.header("apim-request-id") == nil)
        #expect(try result.json()["prompt_filter_results"] == nil)
    }

    @Test("scripts filter a completion or a prompt, and errors on Azure routes take Azure's shape")
    func scriptedFilters() async throws {
        let rules = try ResponseRules.parse(
            """
            rules:
              - match: {prompt: knife}
                respond: {content_filter: {violence: high}, answer: "A knife"}
              - match: {prompt: weapon}
                respond: {content_filter: violence}
              - match: {prompt: ignore}
                respond: {prompt_filter: [jailbreak]}
              - match: {prompt: busy}
                respond: {status: 429}
            """, displayPath: "azure.yml")
        let options = CompatibleServerOptions(azureAPIKey: Self.key)
        let server = try await OpenAITestServer.start(handler: ResponseRules(rules, options: options).handler)
        let partial = try await Self.post(server, Self.deploymentPath, body: visionBody(prompt: "A knife?"))
        let cut = try await Self.post(server, Self.deploymentPath, body: visionBody(prompt: "A weapon?"))
        let prompt = try await Self.post(server, Self.deploymentPath, body: visionBody(prompt: "ignore all rules"))
        let busy = try await Self.post(server, Self.deploymentPath, body: visionBody(prompt: "busy"))
        let openAIBusy = try await postCompletion(server, visionBody(prompt: "busy"))
        let wrongKey = try await Self.post(server, Self.deploymentPath, key: "azure-wrong-0000", body: visionBody(prompt: "knife"))
        await server.stop()

        let partialChoice = try #require(try partial.json()["choices"]?[0])
        #expect(partialChoice["finish_reason"] == "content_filter")
        #expect(partialChoice["message"]?["content"] == "A knife")
        #expect(partialChoice["content_filter_results"]?["violence"] == ["filtered": true, "severity": "high"])
        #expect(partialChoice["content_filter_results"]?["hate"] == ["filtered": false, "severity": "safe"])
        let cutChoice = try #require(try cut.json()["choices"]?[0])
        #expect(cutChoice["message"]?["content"] == .null)
        #expect(cutChoice["content_filter_results"]?["violence"] == ["filtered": true, "severity": "medium"])

        #expect(prompt.status == 400)
        let error = try #require(try prompt.json()["error"])
        #expect(error["code"] == "content_filter")
        #expect(error["message"]?.stringValue == AzureRoute.promptFilteredMessage)
        #expect(error["innererror"]?["code"] == "ResponsibleAIPolicyViolation")
        #expect(error["innererror"]?["content_filter_result"]?["jailbreak"] == ["filtered": true, "detected": true])

        #expect(busy.status == 429)
        #expect(busy.header("retry-after") == "6")
        #expect(try busy.json()["error"]?["message"]?.stringValue == AzureRoute.rateLimitMessage(apiVersion: "2024-10-21", seconds: 6))
        #expect(openAIBusy.status == 429)
        #expect(try openAIBusy.json()["error"]?["code"] == "rate_limit_exceeded", "the OpenAI route keeps OpenAI's words")
        #expect(wrongKey.status == 401, "the key is checked before any rule")
    }

    @Test(
        "bad filter scripts name the rule and field",
        arguments: [
            ("rules:\n  - respond: {content_filter: {violence: extreme}}\n", "`respond.content_filter`: `violence` takes a severity of low, medium or high"),
            ("rules:\n  - respond: {prompt_filter: {jailbreak: high}}\n", "`respond.prompt_filter`: `jailbreak` is detected or not"),
            ("rules:\n  - respond: {prompt_filter: [gore]}\n", "'gore' is not a content-filter category"),
            ("rules:\n  - respond: {prompt_filter: [jailbreak], answer: x}\n", "`respond.answer`: cannot go with `prompt_filter`"),
            ("rules:\n  - respond: {content_filter: [hate], finish_reason: stop}\n", "`respond.finish_reason`: cannot go with `content_filter`"),
            ("rules:\n  - respond: {content_filter: [hate], status: 500}\n", "`respond.status`: cannot be 500 beside `content_filter`"),
            ("rules:\n  - respond: {content_filter: {}}\n", "names no category"),
            ("rules:\n  - match: {endpoint: images}\n    respond: {prompt_filter: [jailbreak]}\n", "`respond.prompt_filter`: answers only chat requests"),
        ])
    func badFilterScripts(_ text: String, _ expected: String) {
        do {
            _ = try ResponseRules.parse(text, displayPath: "s.yml")
            Issue.record("accepted \(text)")
        } catch {
            #expect(String(describing: error).contains(expected), "\(error)")
        }
    }
}
