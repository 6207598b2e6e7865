import Foundation

/// The request field that carries the token limit.
///
/// Reasoning models (o-series, gpt-5) reject `max_tokens` and need `max_completion_tokens`;
/// Ollama and LM Studio read only `max_tokens`. See OPENAI-PROTOCOL notes in the README.
public enum TokenField: String, Sendable, Hashable, Codable, CaseIterable {
    case maxTokens = "max_tokens"
    case maxCompletionTokens = "max_completion_tokens"

    /// The field a model name calls for: `max_completion_tokens` for reasoning models.
    public static func preferred(forModel model: String) -> TokenField {
        let name = model.lowercased().split(separator: "/").last.map(String.init) ?? model.lowercased()
        if name.hasPrefix("gpt-5") { return .maxCompletionTokens }
        for series in ["o1", "o3", "o4"] where name == series || name.hasPrefix(series + "-") {
            return .maxCompletionTokens
        }
        return .maxTokens
    }
}

/// How the image reaches the model.
public enum ImagePayload: Sendable, Hashable {
    /// A local file, sent as a base64 data URL.
    case file(URL, ImageFormat)
    /// An http(s) URL, sent as is.
    case remote(URL)

    /// The `image_url.url` value: the remote URL, or the file read now as a data URL.
    public func urlString() throws -> String {
        switch self {
        case .remote(let url):
            return url.absoluteString
        case .file(let url, let format):
            let data = try Data(contentsOf: url)
            return "data:\(format.mimeType);base64,\(data.base64EncodedString())"
        }
    }
}

/// One chat-completions request for one image, independent of transport.
///
/// `body(imageURL:)` builds the JSON body sent on the wire; the cache key is built from the
/// same body with the image replaced by its hash, so the two cannot drift apart.
public struct ModelRequest: Sendable, Hashable {
    public var model: String
    public var system: String?
    public var prompt: String
    public var image: ImagePayload
    /// What stands for the image in the cache key: "sha256:<hex>" or the remote URL.
    public var imageIdentity: String
    public var detail: ImageDetail?
    public var maxTokens: Int?
    public var tokenField: TokenField
    public var temperature: Double?
    /// `response_format`, sent only when set: the vision judge asks for a JSON schema with it.
    /// Unset for every alt-text request, so their bodies and cache keys are what they were.
    public var responseFormat: JSONValue? = nil

    public init(
        model: String, system: String? = nil, prompt: String, image: ImagePayload, imageIdentity: String,
        detail: ImageDetail? = nil, maxTokens: Int? = nil, tokenField: TokenField = .maxTokens,
        temperature: Double? = nil, responseFormat: JSONValue? = nil
    ) {
        self.model = model
        self.system = system
        self.prompt = prompt
        self.image = image
        self.imageIdentity = imageIdentity
        self.detail = detail
        self.maxTokens = maxTokens
        self.tokenField = tokenField
        self.temperature = temperature
        self.responseFormat = responseFormat
    }

    /// The chat-completions body. Keys that the prompt did not set are absent, not null.
    public func body(imageURL: String) -> JSONValue {
        var imagePart: [String: JSONValue] = ["url": .string(imageURL)]
        if let detail { imagePart["detail"] = .string(detail.rawValue) }
        let user: JSONValue = [
            "role": "user",
            "content": [
                ["type": "text", "text": .string(prompt)],
                ["type": "image_url", "image_url": .object(imagePart)],
            ],
        ]
        var messages: [JSONValue] = []
        if let system { messages.append(["role": "system", "content": .string(system)]) }
        messages.append(user)
        var body: [String: JSONValue] = ["model": .string(model), "messages": .array(messages)]
        if let maxTokens { body[tokenField.rawValue] = .int(maxTokens) }
        if let temperature { body["temperature"] = .double(temperature) }
        if let responseFormat { body["response_format"] = responseFormat }
        return .object(body)
    }

    /// The body as the cache key sees it: the image replaced by its identity.
    public func keyBody() -> JSONValue {
        body(imageURL: imageIdentity)
    }

    /// The settings of the request apart from its prompt text and image, by name, as they
    /// reach the body: `model`; `max_tokens` and `token_field` (the field that carries it) when
    /// a limit is set; `detail`, `temperature` when set; `system_sha256` and
    /// `response_format_sha256`, digests of the system message and the response format, when
    /// set. A comparison names the ones that differ between two runs' requests.
    public var settings: [String: String] {
        var settings = ["model": model]
        if let maxTokens {
            settings["max_tokens"] = String(maxTokens)
            settings["token_field"] = tokenField.rawValue
        }
        if let detail { settings["detail"] = detail.rawValue }
        if let temperature { settings["temperature"] = JSONValue.double(temperature).canonicalText }
        if let system { settings["system_sha256"] = Hashing.sha256Hex(system) }
        if let responseFormat { settings["response_format_sha256"] = Hashing.sha256Hex(responseFormat.canonicalText) }
        return settings
    }
}
