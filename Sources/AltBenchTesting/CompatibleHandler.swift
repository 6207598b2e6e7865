import AltBenchCore
import Foundation

/// Settings of the strict OpenAI-compatible handler.
package struct CompatibleServerOptions: Sendable {
    /// When set, every request must carry `Authorization: Bearer <apiKey>`, else 401.
    package var apiKey: String?
    /// When set, every completion answers this text (still cut to the token limit)
    /// instead of the derived description.
    package var content: String?
    /// When set, other model names get OpenAI's 404 `model_not_found`.
    package var knownModels: Set<String>?
    /// Models that behave like OpenAI reasoning models: `max_tokens` is rejected
    /// (400 `unsupported_parameter`), `temperature` other than 1 is rejected
    /// (400 `unsupported_value`), and `reasoningTokens` hidden tokens are spent from
    /// `max_completion_tokens` before any visible word (a small budget gives empty content).
    package var reasoningModels: Set<String>
    package var reasoningTokens: Int
    /// Require `Content-Type: application/json` on completion requests.
    package var requireJSONContentType: Bool
    /// Models the server treats as removed from the API (as OpenAI removed `dall-e-2` and
    /// `dall-e-3` on 2026-05-12): chat and image requests naming one get OpenAI's answer for a
    /// removed model, 404 `model_not_found` with "The model `X` has been deprecated, learn more
    /// here: https://platform.openai.com/docs/deprecations".
    package var removedModels: Set<String>
    /// Azure routes (see `AzureRoute`): when set, every request to one must carry
    /// `api-key: <azureAPIKey>`, else Azure's 401.
    package var azureAPIKey: String?
    /// Azure deployments that exist; when set, others get 404 `DeploymentNotFound` (on the v1
    /// route, the body's `model` is the deployment).
    package var azureDeployments: Set<String>?
    /// Azure api-versions the deployment route accepts; when set, others get Azure's 404
    /// "Resource not found" (as a retired or mistyped version does).
    package var azureAPIVersions: Set<String>?

    package init(
        apiKey: String? = nil,
        content: String? = nil,
        knownModels: Set<String>? = nil,
        reasoningModels: Set<String> = [],
        reasoningTokens: Int = 16,
        requireJSONContentType: Bool = true,
        removedModels: Set<String> = [],
        azureAPIKey: String? = nil,
        azureDeployments: Set<String>? = nil,
        azureAPIVersions: Set<String>? = nil
    ) {
        self.apiKey = apiKey
        self.content = content
        self.knownModels = knownModels
        self.reasoningModels = reasoningModels
        self.reasoningTokens = reasoningTokens
        self.requireJSONContentType = requireJSONContentType
        self.removedModels = removedModels
        self.azureAPIKey = azureAPIKey
        self.azureDeployments = azureDeployments
        self.azureAPIVersions = azureAPIVersions
    }
}

extension OpenAITestServer {
    /// The strict OpenAI-compatible vision handler (see `CompatibleServerOptions`).
    package static func compatible(
        apiKey: String? = nil,
        content: String? = nil,
        knownModels: Set<String>? = nil,
        reasoningModels: Set<String> = []
    ) -> Handler {
        compatible(
            options: CompatibleServerOptions(
                apiKey: apiKey, content: content, knownModels: knownModels, reasoningModels: reasoningModels
            )
        )
    }

    /// The strict OpenAI-compatible handler (see `CompatibleServerOptions`): chat completions
    /// with images, and the Images API (`POST /v1/images/generations`, with its generated
    /// images served at `GET /generated/<sha256>.png`; see `ImagesHandler.swift`).
    ///
    /// The generated images are kept by the returned handler (the last
    /// `GeneratedImageStore.capacity`), so they live as long as the server using it.
    package static func compatible(options: CompatibleServerOptions) -> Handler {
        let images = GeneratedImageStore()
        return { request in CompatibleHandler(options: options, images: images).respond(to: request) }
    }

    /// OpenAI's message for a model that does not exist (404 `model_not_found`).
    package static func unknownModelMessage(_ model: String) -> String {
        "The model `\(model)` does not exist or you do not have access to it."
    }

    /// OpenAI's message for a model removed from the API (404 `model_not_found`), as it
    /// answered for `text-davinci-003` and `davinci` after their shutdown.
    package static func removedModelMessage(_ model: String) -> String {
        "The model `\(model)` has been deprecated, learn more here: https://platform.openai.com/docs/deprecations"
    }

    /// The first 8 hex digits of the SHA-256 of `text`'s UTF-8 bytes.
    package static func shortHash(_ text: String) -> String {
        String(Hashing.sha256Hex(text).prefix(8))
    }

    /// The full answer the compatible handler derives for a request, before any token cut.
    /// - Parameters:
    ///   - imageURL: the `url` of the first image part (nil when the request has none).
    ///   - prompt: every text of the request (string contents and text parts of all
    ///     messages, in order) joined with "\n".
    package static func compatibleContent(imageURL: String?, prompt: String) -> String {
        let image = imageURL.map(shortHash) ?? "none"
        return "A test description of image \(image) for prompt \(shortHash(prompt))."
    }
}

/// An OpenAI-style rejection: HTTP status plus the `error` object's fields.
struct APIError: Error {
    var status = 400
    var message: String
    var type = "invalid_request_error"
    var param: String?
    var code: String?
    /// Set for Azure's own errors, which have only `code` and `message`.
    var azureCode: String? = nil

    var response: ScriptedResponse {
        if let azureCode { return .azureError(status: status, code: azureCode, message: message) }
        return .error(status: status, message: message, type: type, code: code, param: param)
    }
}

/// Validates chat-completion and image-generation requests the way the OpenAI API does and
/// answers deterministically.
struct CompatibleHandler {
    let options: CompatibleServerOptions
    /// Where generated images are kept for their `url`s.
    let images: GeneratedImageStore

    static let topLevelKeys: Set<String> = [
        "model", "messages", "max_tokens", "max_completion_tokens", "temperature", "top_p", "n", "stream",
        "stream_options", "stop", "presence_penalty", "frequency_penalty", "logit_bias", "logprobs",
        "top_logprobs", "user", "seed", "response_format", "tools", "tool_choice", "parallel_tool_calls",
        "reasoning_effort", "service_tier", "store", "metadata", "modalities", "prediction", "audio",
        "web_search_options", "verbosity", "prompt_cache_key", "safety_identifier", "functions", "function_call",
    ]
    static let roles = ["system", "user", "assistant"]
    static let details = ["low", "high", "auto"]
    static let imageTypes = ["png", "jpeg", "webp", "gif"]

    func respond(to request: RecordedRequest) -> ScriptedResponse {
        switch Route(request) {
        case .download: return download(request)
        case .images: return respondToImages(request)
        case .chat: break
        }
        switch validated(request) {
        case .success(let parsed):
            return completion(for: parsed, number: request.number).adding(headers: [Self.requestID(request)])
        case .failure(let error):
            return error.response.adding(headers: [Self.requestID(request)])
        }
    }

    /// Which part of the server a request is for.
    enum Route {
        /// `GET /generated/…`: a generated image's `url` (not an API call: no key, no rules).
        case download
        /// `/v1/images/generations` (any method: a wrong one gets the API's 404).
        case images
        /// Everything else: chat completions, or the API's 404 for an unknown path.
        case chat

        init(_ request: RecordedRequest) {
            if request.method == "GET", request.path.hasPrefix(GeneratedImageStore.pathPrefix) {
                self = .download
            } else if request.path == OpenAITestServer.imagesGenerationsPath {
                self = .images
            } else {
                self = .chat
            }
        }
    }

    /// The `x-request-id` header every answer carries; Azure routes send `apim-request-id`.
    static func requestID(_ request: RecordedRequest) -> (String, String) {
        if AzureRoute(request) != nil { return ("apim-request-id", AzureRoute.requestID(number: request.number)) }
        return ("x-request-id", "req_test_\(request.number)")
    }

    /// What a valid chat-completion request asks, or the error the API answers it with.
    func validated(_ request: RecordedRequest) -> Result<Parsed, APIError> {
        do {
            if let azure = AzureRoute(request) {
                guard request.method == "POST" else {
                    throw APIError(status: 404, message: AzureRoute.resourceNotFoundMessage, azureCode: "404")
                }
                try checkAzure(azure, request)
                var parsed = try validate(try parseBody(request))
                if azure == .v1 { try checkDeployment(parsed.model) }
                parsed.azure = azure
                return .success(parsed)
            }
            guard request.path == "/v1/chat/completions", request.method == "POST" else {
                throw APIError(status: 404, message: "Invalid URL (\(request.method) \(request.path))")
            }
            try checkAuthorization(request)
            let body = try parseBody(request)
            return .success(try validate(body))
        } catch let error as APIError {
            return .failure(error)
        } catch {
            return .failure(APIError(status: 500, message: "\(error)", type: "server_error"))
        }
    }

    // MARK: Request checks

    func checkAuthorization(_ request: RecordedRequest) throws {
        guard let expected = options.apiKey else { return }
        guard let header = request.header("authorization"), !header.isEmpty else {
            throw APIError(
                status: 401,
                message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
                code: "invalid_api_key"
            )
        }
        guard header != "Bearer \(expected)" else { return }
        let given = header.hasPrefix("Bearer ") ? String(header.dropFirst("Bearer ".count)) : header
        throw APIError(
            status: 401,
            message: "Incorrect API key provided: \(Self.mask(given)). You can find your API key at https://platform.openai.com/account/api-keys.",
            code: "invalid_api_key"
        )
    }

    /// Shows a key the way OpenAI's 401 does: first 8 and last 4 characters.
    static func mask(_ key: String) -> String {
        guard key.count > 12 else { return String(repeating: "*", count: key.count) }
        return String(key.prefix(8)) + String(repeating: "*", count: key.count - 12) + String(key.suffix(4))
    }

    func parseBody(_ request: RecordedRequest) throws -> [String: JSONValue] {
        if options.requireJSONContentType {
            let contentType = request.header("content-type") ?? ""
            let mediaType = contentType.split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard mediaType == "application/json" else {
                throw APIError(
                    message: "Invalid 'Content-Type' header: expected 'application/json', but got '\(contentType)' instead.",
                    code: "invalid_content_type"
                )
            }
        }
        guard let json = try? request.json() else {
            throw APIError(
                message: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)"
            )
        }
        guard case .object(let object) = json else {
            throw APIError(
                message: "Invalid type for request body: expected an object, but got \(json.typeDescription) instead.",
                code: "invalid_type"
            )
        }
        return object
    }

    /// What the answer depends on, gathered while validating.
    struct Parsed {
        var model: String
        var texts: [String] = []
        var images: [(url: String, detail: String)] = []
        var limit: Int?
        var choices = 1
        var isReasoning = false
        /// The Azure route asked, if any: its answers carry Azure's filter annotations.
        var azure: AzureRoute?
    }

    func validate(_ body: [String: JSONValue]) throws -> Parsed {
        for key in body.keys.sorted() where !Self.topLevelKeys.contains(key) {
            throw APIError(message: "Unknown parameter: '\(key)'.", param: key, code: "unknown_parameter")
        }

        let model = try requiredString(body["model"], param: "model")
        try checkModelAvailable(model)
        var parsed = Parsed(model: model, isReasoning: options.reasoningModels.contains(model))

        guard let messagesValue = body["messages"] else { throw missing("messages") }
        guard case .array(let messages) = messagesValue else {
            throw invalidType("messages", expected: "an array", got: messagesValue)
        }
        guard !messages.isEmpty else { throw emptyArray("messages") }
        for (index, message) in messages.enumerated() {
            try validateMessage(message, param: "messages[\(index)]", into: &parsed)
        }

        let maxTokens = try positiveInteger(body["max_tokens"], param: "max_tokens")
        let maxCompletionTokens = try positiveInteger(body["max_completion_tokens"], param: "max_completion_tokens")
        if maxTokens != nil, maxCompletionTokens != nil {
            throw APIError(
                message: "Invalid request: 'max_tokens' and 'max_completion_tokens' cannot both be set. Use 'max_completion_tokens'.",
                param: "max_tokens",
                code: "invalid_value"
            )
        }
        if parsed.isReasoning, maxTokens != nil {
            throw APIError(
                message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                param: "max_tokens",
                code: "unsupported_parameter"
            )
        }
        parsed.limit = maxCompletionTokens ?? maxTokens

        if let temperature = try number(body["temperature"], param: "temperature", in: 0...2) {
            if parsed.isReasoning, temperature != 1 {
                throw APIError(
                    message: "Unsupported value: 'temperature' does not support \(Self.format(temperature)) with this model. Only the default (1) value is supported.",
                    param: "temperature",
                    code: "unsupported_value"
                )
            }
        }
        _ = try number(body["top_p"], param: "top_p", in: 0...1)
        if let n = try positiveInteger(body["n"], param: "n") {
            guard n <= 128 else {
                throw APIError(
                    message: "Invalid 'n': integer above maximum value. Expected a value <= 128, but got \(n) instead.",
                    param: "n",
                    code: "integer_above_max_value"
                )
            }
            parsed.choices = n
        }
        try rejectStreaming(body)
        return parsed
    }

    /// `stream`: a boolean, and never true: the test server answers whole bodies only.
    func rejectStreaming(_ body: [String: JSONValue]) throws {
        guard let stream = body["stream"], !stream.isNull else { return }
        guard case .bool(let streaming) = stream else { throw invalidType("stream", expected: "a boolean", got: stream) }
        if streaming {
            throw APIError(
                message: "Unsupported value: 'stream' is not supported by this test server.", param: "stream",
                code: "unsupported_value")
        }
    }

    private func validateMessage(_ message: JSONValue, param: String, into parsed: inout Parsed) throws {
        guard case .object(let fields) = message else {
            throw invalidType(param, expected: "an object", got: message)
        }
        let role = try requiredString(fields["role"], param: "\(param).role")
        guard Self.roles.contains(role) else {
            throw invalidValue(role, supported: Self.roles, param: "\(param).role")
        }
        let allowed: Set<String> = role == "assistant" ? ["role", "content", "name", "refusal"] : ["role", "content", "name"]
        for key in fields.keys.sorted() where !allowed.contains(key) {
            throw APIError(message: "Unknown parameter: '\(param).\(key)'.", param: "\(param).\(key)", code: "unknown_parameter")
        }
        guard let content = fields["content"] else { throw missing("\(param).content") }
        switch content {
        case .string(let text):
            parsed.texts.append(text)
        case .array(let parts):
            guard !parts.isEmpty else { throw emptyArray("\(param).content") }
            for (index, part) in parts.enumerated() {
                try validatePart(part, role: role, param: "\(param).content[\(index)]", into: &parsed)
            }
        default:
            throw invalidType("\(param).content", expected: "one of a string or array of objects", got: content)
        }
    }

    private func validatePart(_ part: JSONValue, role: String, param: String, into parsed: inout Parsed) throws {
        guard case .object(let fields) = part else {
            throw invalidType(param, expected: "an object", got: part)
        }
        let type = try requiredString(fields["type"], param: "\(param).type")
        switch type {
        case "text":
            try rejectUnknownKeys(fields, allowed: ["type", "text"], param: param)
            guard let text = fields["text"] else { throw missing("\(param).text") }
            guard case .string(let value) = text else { throw invalidType("\(param).text", expected: "a string", got: text) }
            parsed.texts.append(value)
        case "image_url":
            guard role == "user" else {
                throw APIError(
                    message: "Invalid '\(param)': Image URLs are only allowed for messages with role 'user', but this message with role '\(role)' contains an image URL.",
                    param: param,
                    code: "invalid_value"
                )
            }
            try rejectUnknownKeys(fields, allowed: ["type", "image_url"], param: param)
            guard let image = fields["image_url"] else { throw missing("\(param).image_url") }
            guard case .object(let imageFields) = image else {
                throw invalidType("\(param).image_url", expected: "an object", got: image)
            }
            try rejectUnknownKeys(imageFields, allowed: ["url", "detail"], param: "\(param).image_url")
            let url = try requiredString(imageFields["url"], param: "\(param).image_url.url")
            try validateImageURL(url, param: "\(param).image_url.url")
            var detail = "auto"
            if let detailValue = imageFields["detail"], !detailValue.isNull {
                guard case .string(let value) = detailValue else {
                    throw invalidType("\(param).image_url.detail", expected: "a string", got: detailValue)
                }
                guard Self.details.contains(value) else {
                    throw invalidValue(value, supported: Self.details, param: "\(param).image_url.detail")
                }
                detail = value
            }
            parsed.images.append((url: url, detail: detail))
        default:
            throw invalidValue(type, supported: ["text", "image_url"], param: "\(param).type")
        }
    }

    /// What the image costs the way the API counts it: the model family's published rule
    /// (gpt-4o's for a model without one) from the size in the data URL's image header; a
    /// remote URL, whose bytes the server does not fetch, at gpt-4o's 1024×1024 price.
    static func imageTokens(url: String, detail: String, model: String) -> Int {
        let formula = (ImageTokenFamily.forModel(model) ?? ImageTokenFamily.fallback).formula
        let level = ImageDetail(rawValue: detail)
        guard url.hasPrefix("data:"), let comma = url.firstIndex(of: ","),
            let bytes = Data(base64Encoded: String(url[url.index(after: comma)...])),
            let header = try? ImageSniffer.sniff(bytes, path: "image_url")
        else { return formula.tokens(width: 1024, height: 1024, detail: level) }
        return formula.tokens(width: header.width, height: header.height, detail: level)
    }

    private func validateImageURL(_ url: String, param: String) throws {
        let lowered = url.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let parsed = URL(string: url), let host = parsed.host, !host.isEmpty else {
                throw APIError(
                    message: "Invalid '\(param)': '\(url.prefix(100))' is not a valid URL.",
                    param: param,
                    code: "invalid_value"
                )
            }
            return
        }
        let dataURLHint =
            "Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got"
        guard lowered.hasPrefix("data:") else {
            throw APIError(
                message: "Invalid '\(param)'. Expected an http(s) URL or a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an unsupported URL.",
                param: param,
                code: "invalid_value"
            )
        }
        guard let comma = url.firstIndex(of: ",") else {
            throw APIError(message: "Invalid '\(param)'. \(dataURLHint) a value without data.", param: param, code: "invalid_value")
        }
        let header = url[url.index(url.startIndex, offsetBy: 5)..<comma]
        let payload = url[url.index(after: comma)...]
        let headerParts = header.split(separator: ";", omittingEmptySubsequences: false)
        guard headerParts.count == 2, headerParts[1] == "base64", headerParts[0].hasPrefix("image/") else {
            throw APIError(
                message: "Invalid '\(param)'. \(dataURLHint) '\(header.prefix(60))' instead.",
                param: param,
                code: "invalid_value"
            )
        }
        let subtype = headerParts[0].dropFirst("image/".count)
        guard Self.imageTypes.contains(String(subtype)) else {
            throw APIError(
                message: "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].",
                param: param,
                code: "invalid_image_format"
            )
        }
        guard !payload.isEmpty, let data = Data(base64Encoded: String(payload)), !data.isEmpty else {
            throw APIError(
                message: "Invalid '\(param)'. \(dataURLHint) invalid base64 data.",
                param: param,
                code: "invalid_value"
            )
        }
    }

    /// Rejects a removed model (`options.removedModels`) and, when `options.knownModels` is
    /// set, any model outside it, as OpenAI does: 404 `model_not_found`.
    func checkModelAvailable(_ model: String) throws {
        if options.removedModels.contains(model) {
            throw APIError(status: 404, message: OpenAITestServer.removedModelMessage(model), code: "model_not_found")
        }
        if let known = options.knownModels, !known.contains(model) {
            throw APIError(status: 404, message: OpenAITestServer.unknownModelMessage(model), code: "model_not_found")
        }
    }

    // MARK: Value checks

    func requiredString(_ value: JSONValue?, param: String) throws -> String {
        guard let value, !value.isNull else { throw missing(param) }
        guard case .string(let string) = value else { throw invalidType(param, expected: "a string", got: value) }
        guard !string.isEmpty else {
            throw APIError(
                message: "Invalid '\(param)': empty string. Expected a string with minimum length 1, but got an empty string instead.",
                param: param,
                code: "empty_string"
            )
        }
        return string
    }

    /// A positive integer field; nil when absent or null.
    func positiveInteger(_ value: JSONValue?, param: String) throws -> Int? {
        try integer(value, param: param, in: 1...Int.max)
    }

    /// An integer field within `range`, refused in OpenAI's words; nil when absent or null.
    func integer(_ value: JSONValue?, param: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let value, !value.isNull else { return nil }
        guard case .int(let int) = value else { throw invalidType(param, expected: "an integer", got: value) }
        if int < range.lowerBound {
            throw APIError(
                message: "Invalid '\(param)': integer below minimum value. Expected a value >= \(range.lowerBound), but got \(int) instead.",
                param: param,
                code: "integer_below_min_value"
            )
        }
        if int > range.upperBound {
            throw APIError(
                message: "Invalid '\(param)': integer above maximum value. Expected a value <= \(range.upperBound), but got \(int) instead.",
                param: param,
                code: "integer_above_max_value"
            )
        }
        return int
    }

    /// nil when absent or null.
    private func number(_ value: JSONValue?, param: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let value, !value.isNull else { return nil }
        guard let number = value.doubleValue else { throw invalidType(param, expected: "a number", got: value) }
        if number < range.lowerBound {
            throw APIError(
                message: "Invalid '\(param)': decimal below minimum value. Expected a value >= \(Self.format(range.lowerBound)), but got \(Self.format(number)) instead.",
                param: param,
                code: "decimal_below_min_value"
            )
        }
        if number > range.upperBound {
            throw APIError(
                message: "Invalid '\(param)': decimal above maximum value. Expected a value <= \(Self.format(range.upperBound)), but got \(Self.format(number)) instead.",
                param: param,
                code: "decimal_above_max_value"
            )
        }
        return number
    }

    func rejectUnknownKeys(_ fields: [String: JSONValue], allowed: Set<String>, param: String) throws {
        for key in fields.keys.sorted() where !allowed.contains(key) {
            throw APIError(message: "Unknown parameter: '\(param).\(key)'.", param: "\(param).\(key)", code: "unknown_parameter")
        }
    }

    func missing(_ param: String) -> APIError {
        APIError(message: "Missing required parameter: '\(param)'.", param: param, code: "missing_required_parameter")
    }

    func invalidType(_ param: String, expected: String, got value: JSONValue) -> APIError {
        APIError(
            message: "Invalid type for '\(param)': expected \(expected), but got \(value.typeDescription) instead.",
            param: param,
            code: "invalid_type"
        )
    }

    private func emptyArray(_ param: String) -> APIError {
        APIError(
            message: "Invalid '\(param)': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            param: param,
            code: "empty_array"
        )
    }

    func invalidValue(_ value: String, supported: [String], param: String) -> APIError {
        let quoted = supported.map { "'\($0)'" }
        let list = quoted.count <= 2
            ? quoted.joined(separator: " and ")
            : quoted.dropLast().joined(separator: ", ") + ", and " + quoted[quoted.count - 1]
        return APIError(
            message: "Invalid value: '\(value)'. Supported values are: \(list).",
            param: param,
            code: "invalid_value"
        )
    }

    static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    // MARK: Answer

    /// The answer's text before any token cut: `options.content`, else the derived description.
    func defaultContent(for parsed: Parsed) -> String {
        options.content
            ?? OpenAITestServer.compatibleContent(imageURL: parsed.images.first?.url, prompt: parsed.texts.joined(separator: "\n"))
    }

    /// A `chat.completion` for `parsed`: `content` (default: `defaultContent(for:)`) cut to the
    /// token limit, and `finishReason` in place of the one the cut implies, when given. With
    /// `contentFilter`, Azure's filter stopped it (see `azureAnnotated`): the content is null
    /// unless `content` was given. Answers on Azure routes carry Azure's filter results.
    func completion(
        for parsed: Parsed, number: Int, content: String? = nil, finishReason forcedFinishReason: String? = nil,
        contentFilter: [ContentFilterCategory]? = nil, promptTokens forcedPromptTokens: Int? = nil
    ) -> ScriptedResponse {
        let contentGiven = content != nil
        let full = content ?? defaultContent(for: parsed)
        let words = full.split(separator: " ", omittingEmptySubsequences: true)

        var reasoning = 0
        var visibleBudget = parsed.limit
        if parsed.isReasoning {
            reasoning = parsed.limit.map { min($0, options.reasoningTokens) } ?? options.reasoningTokens
            visibleBudget = parsed.limit.map { $0 - reasoning }
        }
        var content = full
        var finishReason = "stop"
        var visibleTokens = words.count
        if let budget = visibleBudget, words.count > budget {
            content = words.prefix(budget).joined(separator: " ")
            finishReason = "length"
            visibleTokens = budget
        }

        let textTokens = parsed.texts.reduce(0) { $0 + $1.split(whereSeparator: \.isWhitespace).count }
        let imageTokens = parsed.images.reduce(0) { $0 + Self.imageTokens(url: $1.url, detail: $1.detail, model: parsed.model) }
        let promptTokens = forcedPromptTokens ?? textTokens + imageTokens
        let completionTokens = visibleTokens + reasoning

        let choice: (Int) -> JSONValue = { index in
            [
                "index": .int(index),
                "message": [
                    "role": "assistant",
                    "content": .string(content),
                    "refusal": .null,
                    "annotations": [],
                ],
                "logprobs": .null,
                "finish_reason": .string(forcedFinishReason ?? finishReason),
            ]
        }
        let body: JSONValue = [
            "id": .string("chatcmpl-test-\(number)"),
            "object": "chat.completion",
            "created": .int(OpenAITestServer.fixedCreated),
            "model": .string(parsed.model),
            "choices": .array((0..<parsed.choices).map(choice)),
            "usage": [
                "prompt_tokens": .int(promptTokens),
                "completion_tokens": .int(completionTokens),
                "total_tokens": .int(promptTokens + completionTokens),
                "prompt_tokens_details": ["cached_tokens": 0, "image_tokens": .int(imageTokens)],
                "completion_tokens_details": ["reasoning_tokens": .int(reasoning)],
            ],
            "system_fingerprint": "fp_altbench_test",
        ]
        if parsed.azure != nil || contentFilter != nil {
            return .json(value: Self.azureAnnotated(body, filter: contentFilter, keepContent: contentGiven))
        }
        return .json(value: body)
    }
}
