import AltBenchCore
import Foundation

/// The Azure OpenAI side of the test server: Azure's chat routes, its `api-key` header, its
/// error bodies, and its content-filter annotations, so that `altbench run --provider azure`
/// can be tested end to end on 127.0.0.1.
///
/// - `POST /openai/deployments/{deployment}/chat/completions?api-version=V`: needs an
///   `api-version` (else Azure's 404 "Resource not found"); a deployment outside
///   `CompatibleServerOptions.azureDeployments`, when set, gets 404 `DeploymentNotFound`.
/// - `POST /openai/v1/chat/completions`: no api-version; the body's `model` names the deployment.
///
/// Answers on these routes carry `apim-request-id` (no `x-request-id`), and Azure's
/// `prompt_filter_results` and per-choice `content_filter_results`, all unfiltered unless a
/// script says otherwise.
package enum AzureRoute: Sendable, Hashable {
    /// The deployment route, with its `api-version` query (nil when absent).
    case deployment(name: String, apiVersion: String?)
    /// The v1 route.
    case v1

    package static let v1Path = "/openai/v1/chat/completions"

    /// The Azure route `path` is, or nil for other paths.
    package init?(path: String, query: String?) {
        if path == Self.v1Path {
            self = .v1
            return
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[1] == "openai", parts[2] == "deployments", !parts[3].isEmpty,
            parts[4] == "chat", parts[5] == "completions"
        else { return nil }
        let version = URLComponents(string: "?" + (query ?? ""))?.queryItems?.first { $0.name == "api-version" }?.value
        self = .deployment(name: String(parts[3]), apiVersion: version.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The Azure route of `request`, if it has one.
    package init?(_ request: RecordedRequest) {
        self.init(path: request.path, query: request.query)
    }

    // MARK: Azure's words

    /// Azure's 401 for a wrong `api-key`.
    package static let invalidKeyMessage =
        "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."
    /// Azure's 401 for a request without an `api-key`.
    package static let missingKeyMessage =
        "Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API."
    /// Azure's 404 `DeploymentNotFound`.
    package static let deploymentNotFoundMessage =
        "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."
    /// Azure's 404 for a wrong path or api-version.
    package static let resourceNotFoundMessage = "Resource not found"
    /// Azure's 400 `content_filter` for a filtered prompt.
    package static let promptFilteredMessage =
        "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766"

    /// Azure's 429 text for `apiVersion`, asking to retry after `seconds`.
    package static func rateLimitMessage(apiVersion: String = AzureSettings.defaultAPIVersion, seconds: Int) -> String {
        "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version \(apiVersion) have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after \(seconds) second\(seconds == 1 ? "" : "s"). Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit."
    }

    /// Azure's request-id header value for the server's `number`th request (a GUID's shape).
    static func requestID(number: Int) -> String {
        "00000000-0000-4000-8000-" + String(format: "%012d", number)
    }
}

/// One category Azure's content filter flagged, and how: a severity (`low`, `medium`, `high`)
/// for hate, sexual, violence and self_harm; `detected` for jailbreak, indirect_attack,
/// protected_material_text, protected_material_code and profanity.
package struct ContentFilterCategory: Sendable, Hashable {
    package var name: String
    package var level: String

    package init(_ name: String, _ level: String? = nil) {
        self.name = name
        self.level = level ?? (Self.severityCategories.contains(name) ? "medium" : "detected")
    }

    package static let severityCategories = ["hate", "sexual", "violence", "self_harm"]
    package static let detectionCategories = [
        "jailbreak", "indirect_attack", "protected_material_text", "protected_material_code", "profanity",
    ]
    package static let severities = ["low", "medium", "high"]

    /// The category's result as Azure writes it.
    var result: JSONValue {
        Self.severityCategories.contains(name)
            ? ["filtered": true, "severity": .string(level)] : ["filtered": true, "detected": true]
    }

    /// Azure's `content_filter_results` for a completion (`prompt` false) or a prompt, every
    /// category present and unfiltered except `filtered`.
    static func results(prompt: Bool, filtered: [ContentFilterCategory] = []) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for name in severityCategories { object[name] = ["filtered": false, "severity": "safe"] }
        let detections = prompt ? ["jailbreak"] : ["protected_material_code", "protected_material_text"]
        for name in detections { object[name] = ["filtered": false, "detected": false] }
        for category in filtered { object[category.name] = category.result }
        return .object(object)
    }
}

extension ScriptedResponse {
    /// An Azure-shaped error: `{"error":{"code","message"}}`, `code` defaulting to the status.
    package static func azureError(
        status: Int, code: String? = nil, message: String, headers: [(String, String)] = []
    ) -> ScriptedResponse {
        json(
            status: status, value: ["error": ["code": .string(code ?? String(status)), "message": .string(message)]],
            headers: headers)
    }

    /// Azure's 429 token-rate limit with `retry-after: seconds`.
    package static func azureRateLimited(retryAfter seconds: Int, apiVersion: String = AzureSettings.defaultAPIVersion) -> ScriptedResponse {
        azureError(
            status: 429, message: AzureRoute.rateLimitMessage(apiVersion: apiVersion, seconds: seconds),
            headers: [("retry-after", String(seconds))])
    }

    /// Azure's 400 `content_filter`: the prompt tripped `categories` (e.g. jailbreak).
    package static func azurePromptFiltered(_ categories: [ContentFilterCategory]) -> ScriptedResponse {
        json(
            status: 400,
            value: [
                "error": [
                    "message": .string(AzureRoute.promptFilteredMessage),
                    "type": .null,
                    "param": "prompt",
                    "code": "content_filter",
                    "status": 400,
                    "innererror": [
                        "code": "ResponsibleAIPolicyViolation",
                        "content_filter_result": ContentFilterCategory.results(prompt: true, filtered: categories),
                    ],
                ]
            ])
    }

    /// A 200 completion Azure's filter stopped: `finish_reason` `content_filter`, `content` as
    /// given (nil: null), the choice's `content_filter_results` flagging `categories`.
    package static func azureFilteredCompletion(
        _ categories: [ContentFilterCategory], content: String? = nil, model: String = "gpt-4o-mini"
    ) -> ScriptedResponse {
        let body: JSONValue = [
            "id": "chatcmpl-test-filtered",
            "object": "chat.completion",
            "created": .int(OpenAITestServer.fixedCreated),
            "model": .string(model),
            "prompt_filter_results": [["prompt_index": 0, "content_filter_results": ContentFilterCategory.results(prompt: true)]],
            "choices": [
                [
                    "index": 0,
                    "finish_reason": "content_filter",
                    "message": ["role": "assistant", "content": content.map(JSONValue.string) ?? .null, "refusal": .null],
                    "content_filter_results": ContentFilterCategory.results(prompt: false, filtered: categories),
                    "logprobs": .null,
                ]
            ],
            "usage": ["prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13, "prompt_tokens_details": ["cached_tokens": 0]],
        ]
        return json(value: body)
    }
}

extension CompatibleHandler {
    /// Checks a request to an Azure route as Azure does: the api-version, then the `api-key`,
    /// then the deployment. The v1 route's deployment is the body's `model`, checked later.
    func checkAzure(_ route: AzureRoute, _ request: RecordedRequest) throws {
        if case .deployment(_, let version) = route {
            guard let version, options.azureAPIVersions?.contains(version) ?? true else {
                throw APIError(status: 404, message: AzureRoute.resourceNotFoundMessage, azureCode: "404")
            }
        }
        if let expected = options.azureAPIKey {
            guard let given = request.header("api-key"), !given.isEmpty else {
                throw APIError(status: 401, message: AzureRoute.missingKeyMessage, azureCode: "401")
            }
            guard given == expected else {
                throw APIError(status: 401, message: AzureRoute.invalidKeyMessage, azureCode: "401")
            }
        }
        if case .deployment(let name, _) = route {
            try checkDeployment(name)
        }
    }

    /// 404 `DeploymentNotFound` for a deployment outside `options.azureDeployments` (when set).
    func checkDeployment(_ name: String) throws {
        if let known = options.azureDeployments, !known.contains(name) {
            throw APIError(status: 404, message: AzureRoute.deploymentNotFoundMessage, azureCode: "DeploymentNotFound")
        }
    }

    /// `body` (a chat.completion) as Azure sends it: `prompt_filter_results` and each choice's
    /// `content_filter_results`; with `filter`, the choices stopped by it (`finish_reason`
    /// `content_filter`, the flagged categories, and the content nil unless `keepContent`).
    static func azureAnnotated(_ body: JSONValue, filter: [ContentFilterCategory]?, keepContent: Bool) -> JSONValue {
        guard case .object(var object) = body else { return body }
        object["prompt_filter_results"] = [["prompt_index": 0, "content_filter_results": ContentFilterCategory.results(prompt: true)]]
        if case .array(let choices)? = object["choices"] {
            object["choices"] = .array(
                choices.map { choice in
                    guard case .object(var fields) = choice else { return choice }
                    fields["content_filter_results"] = ContentFilterCategory.results(prompt: false, filtered: filter ?? [])
                    if filter != nil {
                        fields["finish_reason"] = "content_filter"
                        if !keepContent, case .object(var message)? = fields["message"] {
                            message["content"] = .null
                            fields["message"] = .object(message)
                        }
                    }
                    return .object(fields)
                })
        }
        return .object(object)
    }
}
