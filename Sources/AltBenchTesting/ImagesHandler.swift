import AltBenchCore
import Foundation

// The Images API of the compatible handler: `POST /v1/images/generations`, validated per model
// family as OpenAI does, answered with small real PNGs derived from the prompt, whose `url`s
// the server itself serves at `GET /generated/<sha256>.png`.
//
// Sources of the rules (see also /work/shared/reference/IMAGES-API.md):
// - openai-python `image_generate_params.py` / `images_response.py`: the fields, their values
//   per family, the answer's shape;
// - OpenAI's API reference: `n` 1–10 (dall-e-3: 1), prompt lengths 1,000 / 4,000 / 32,000,
//   `model` defaulting to `dall-e-2`, a transparent background needing png or webp;
// - errors seen from the API in client bug reports: "You must provide n=1 for this model.",
//   `invalid_size` "The size is not supported by this model.", `content_policy_violation`,
//   `moderation_blocked`, "Unknown parameter: 'response_format'.", the removed-model 404.
// Messages without such a source use the wording the chat handler already uses for the same
// kind of fault ("Invalid value: …", "Invalid 'n': integer above maximum value. …").

extension OpenAITestServer {
    /// The Images API's path.
    package static let imagesGenerationsPath = "/v1/images/generations"

    /// What `dall-e-3` answers put before the prompt in `revised_prompt`.
    package static let revisedPromptPrefix = "A detailed image of: "

    /// The longest side, in pixels, of every generated image.
    package static let generatedImageSide = 64

    /// The pixel size of a generated image for an API `size` ("1792x1024"): the same aspect
    /// ratio with the longest side `generatedImageSide` (rounded, at least 1); "auto" is square.
    package static func generatedImageDimensions(size: String) -> (width: Int, height: Int) {
        let parts = size.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return (generatedImageSide, generatedImageSide) }
        let longest = Double(max(parts[0], parts[1]))
        func scaled(_ side: Int) -> Int { max(1, Int((Double(side) * Double(generatedImageSide) / longest).rounded())) }
        return (scaled(parts[0]), scaled(parts[1]))
    }

    /// The PNG generated for item `index` (0-based) of an answer to `prompt` at `size`: four
    /// quadrants in colours taken from the SHA-256 of the prompt and the index, so the same
    /// request always gets the same bytes and every item differs. A transparent background
    /// makes the top-left quadrant's colour fully transparent (a `tRNS` chunk).
    package static func generatedImage(prompt: String, index: Int, size: String, transparentBackground: Bool = false) -> Data {
        let (width, height) = generatedImageDimensions(size: size)
        let digest = Array(Hashing.sha256Hex("\(index)\n\(prompt)").utf8)
        // Two hex digits per colour channel: 4 colours × 3 channels from the first 24 digits.
        let channel: (Int) -> UInt8 = { at in UInt8(Int(String(decoding: digest[(2 * at)..<(2 * at + 2)], as: UTF8.self), radix: 16) ?? 0) }
        let palette = (0..<4).map { colour in (channel(3 * colour), channel(3 * colour + 1), channel(3 * colour + 2)) }
        var indices: [UInt8] = []
        indices.reserveCapacity(width * height)
        for y in 0..<height {
            for x in 0..<width {
                indices.append(UInt8((x * 2 / width) + 2 * (y * 2 / height)))
            }
        }
        let png = PNGEncoder.indexed(width: width, height: height, palette: palette, indices: indices)
        return transparentBackground ? withTransparentFirstColour(png) : png
    }

    /// The HTML page an `image_content: html` rule stores in place of item `index`'s image:
    /// a login page, as a CDN or proxy sends with status 200 for a URL it will not serve.
    package static func generatedHTML(prompt: String, index: Int) -> Data {
        Data(
            """
            <!DOCTYPE html>
            <html><head><title>Sign in</title></head>
            <body><h1>Sign in to continue</h1><p>Image \(index) of prompt \(shortHash(prompt)) is not available.</p></body></html>

            """.utf8)
    }

    /// The message of a DALL·E content-policy refusal (400 `content_policy_violation`).
    package static let dallEContentPolicyMessage =
        "Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system."

    /// The message of a GPT image model's moderation refusal (400 `moderation_blocked`),
    /// naming the request's ID as OpenAI's does.
    package static func moderationBlockedMessage(requestID: String) -> String {
        "Your request was rejected by the safety system. If you believe this is an error, contact us at help.openai.com and include the request ID \(requestID)."
    }

    /// Inserts a `tRNS` chunk making palette entry 0 transparent, before the `IDAT` chunk.
    private static func withTransparentFirstColour(_ png: Data) -> Data {
        var bytes = [UInt8](png)
        guard let idat = (8..<(bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual("IDAT".utf8) }) else {
            return png
        }
        let body: [UInt8] = Array("tRNS".utf8) + [0]  // alpha 0 for entry 0; later entries stay opaque
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        let chunk: [UInt8] = [0, 0, 0, 1] + body + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        bytes.insert(contentsOf: chunk, at: idat - 4)
        return Data(bytes)
    }
}

/// What a generated image's bytes are.
package enum GeneratedImageContent: String, Sendable, CaseIterable {
    /// The deterministic PNG (`OpenAITestServer.generatedImage`).
    case png
    /// An HTML page (`OpenAITestServer.generatedHTML`), served with status 200 and
    /// `text/html` at the image's `url`, or base64-encoded in `b64_json`: a client must check
    /// the bytes are an image.
    case html
}

extension ScriptedResponse {
    /// The content-policy refusal of `model`'s family: for `gpt-image-*` models 400 with type
    /// `image_generation_user_error` and code `moderation_blocked`; for DALL·E (and any other
    /// model) 400 `invalid_request_error` with code `content_policy_violation`.
    package static func contentPolicyRefusal(model: String, requestID: String = "req_test_1") -> ScriptedResponse {
        if ImageModelFamily(model: model) == .gptImage {
            return error(
                status: 400, message: OpenAITestServer.moderationBlockedMessage(requestID: requestID),
                type: "image_generation_user_error", code: "moderation_blocked")
        }
        return error(status: 400, message: OpenAITestServer.dallEContentPolicyMessage, code: "content_policy_violation")
    }

    /// OpenAI's answer naming a removed model: 404 `model_not_found`, "The model `X` has been
    /// deprecated, learn more here: …".
    package static func removedModel(_ model: String) -> ScriptedResponse {
        error(status: 404, message: OpenAITestServer.removedModelMessage(model), code: "model_not_found")
    }
}

/// Generated images by the SHA-256 of their bytes, for `GET /generated/<sha256>.png`: the
/// last `capacity` kept, older ones forgotten (their URL answers 404, as an expired one does).
final class GeneratedImageStore: @unchecked Sendable {
    static let capacity = 1000
    static let pathPrefix = "/generated/"

    private let lock = NSLock()
    private var entries: [String: (body: Data, contentType: String)] = [:]
    private var order: [String] = []

    /// Keeps `body` and returns its path ("/generated/<sha256>.png").
    func put(_ body: Data, contentType: String) -> String {
        let digest = Hashing.sha256Hex(body)
        lock.withLock {
            if entries[digest] == nil {
                order.append(digest)
                if order.count > Self.capacity { entries[order.removeFirst()] = nil }
            }
            entries[digest] = (body, contentType)
        }
        return "\(Self.pathPrefix)\(digest).png"
    }

    /// The body and content type kept under `path`, if any.
    func get(path: String) -> (body: Data, contentType: String)? {
        guard path.hasPrefix(Self.pathPrefix), path.hasSuffix(".png") else { return nil }
        let digest = String(path.dropFirst(Self.pathPrefix.count).dropLast(".png".count))
        return lock.withLock { entries[digest] }
    }
}

/// The Images API's model families, each with its own rules.
enum ImageModelFamily: Equatable {
    case dallE2, dallE3, gptImage

    /// nil for a model the Images API does not know.
    init?(model: String) {
        switch model {
        case "dall-e-2": self = .dallE2
        case "dall-e-3": self = .dallE3
        default:
            guard model.hasPrefix("gpt-image-") else { return nil }
            self = .gptImage
        }
    }

    /// The longest prompt, in characters (Unicode scalars).
    var maxPromptLength: Int {
        switch self {
        case .dallE2: 1000
        case .dallE3: 4000
        case .gptImage: 32000
        }
    }

    var sizes: [String] {
        switch self {
        case .dallE2: ["256x256", "512x512", "1024x1024"]
        case .dallE3: ["1024x1024", "1792x1024", "1024x1792"]
        case .gptImage: ["1024x1024", "1536x1024", "1024x1536", "auto"]
        }
    }

    var qualities: [String] {
        switch self {
        case .dallE2: ["standard"]
        case .dallE3: ["standard", "hd"]
        case .gptImage: ["auto", "low", "medium", "high"]
        }
    }

    var maxImages: Int { self == .dallE3 ? 1 : 10 }
}

/// What a valid image-generation request asks.
struct ImageRequest {
    var model: String
    var family: ImageModelFamily
    var prompt: String
    var n = 1
    var size: String
    var quality: String
    /// `url` or `b64_json`; GPT image models always answer `b64_json`.
    var responseFormat = "url"
    var style = "vivid"
    var outputFormat = "png"
    var background = "auto"
}

extension CompatibleHandler {
    /// Every field the Images API takes, for some family; others are unknown parameters.
    static let imageKeys: Set<String> = [
        "prompt", "model", "n", "quality", "response_format", "size", "style", "user",
        "background", "moderation", "output_compression", "output_format", "partial_images", "stream",
    ]
    /// Fields only DALL·E takes: a GPT image model answers "Unknown parameter" (as OpenAI does
    /// for `response_format`).
    static let dallEOnlyKeys = ["response_format", "style"]
    /// Fields only GPT image models take: DALL·E answers `unsupported_parameter`.
    static let gptImageOnlyKeys = ["background", "moderation", "output_compression", "output_format", "partial_images", "stream"]

    func respondToImages(_ request: RecordedRequest) -> ScriptedResponse {
        switch validatedImages(request) {
        case .success(let parsed):
            return imagesAnswer(for: parsed, request: request).adding(headers: [Self.requestID(request)])
        case .failure(let error):
            return error.response.adding(headers: [Self.requestID(request)])
        }
    }

    /// `GET /generated/<sha256>.png`: the kept bytes with their content type, else 404.
    func download(_ request: RecordedRequest) -> ScriptedResponse {
        guard let stored = images.get(path: request.path) else {
            return .raw(status: 404, body: "Not found: no generated image is kept at \(request.path).\n", contentType: "text/plain; charset=utf-8")
        }
        return .raw(status: 200, body: stored.body, contentType: stored.contentType)
    }

    /// What a valid image-generation request asks, or the error the API answers it with.
    func validatedImages(_ request: RecordedRequest) -> Result<ImageRequest, APIError> {
        do {
            guard request.path == OpenAITestServer.imagesGenerationsPath, request.method == "POST" else {
                throw APIError(status: 404, message: "Invalid URL (\(request.method) \(request.path))")
            }
            try checkAuthorization(request)
            return .success(try validateImages(try parseBody(request)))
        } catch let error as APIError {
            return .failure(error)
        } catch {
            return .failure(APIError(status: 500, message: "\(error)", type: "server_error"))
        }
    }

    func validateImages(_ body: [String: JSONValue]) throws -> ImageRequest {
        for key in body.keys.sorted() where !Self.imageKeys.contains(key) {
            throw APIError(message: "Unknown parameter: '\(key)'.", param: key, code: "unknown_parameter")
        }
        // The API reference: `model` defaults to dall-e-2.
        var model = "dall-e-2"
        if let value = body["model"], !value.isNull { model = try requiredString(value, param: "model") }
        try checkModelAvailable(model)
        guard let family = ImageModelFamily(model: model) else {
            throw APIError(status: 404, message: OpenAITestServer.unknownModelMessage(model), code: "model_not_found")
        }

        let prompt = try requiredString(body["prompt"], param: "prompt")
        let length = prompt.unicodeScalars.count
        guard length <= family.maxPromptLength else {
            throw APIError(
                message: "Invalid 'prompt': string too long. Expected a string with maximum length \(family.maxPromptLength), but got a string with length \(length) instead.",
                param: "prompt",
                code: "string_above_max_length"
            )
        }

        // Parameters of the other family.
        if family == .gptImage {
            for key in Self.dallEOnlyKeys where body[key] != nil {
                throw APIError(message: "Unknown parameter: '\(key)'.", param: key, code: "unknown_parameter")
            }
        } else {
            let notTaken = Self.gptImageOnlyKeys + (family == .dallE2 ? ["style"] : [])
            for key in notTaken where body[key] != nil {
                throw APIError(
                    message: "Unsupported parameter: '\(key)' is not supported with this model.",
                    param: key,
                    code: "unsupported_parameter"
                )
            }
        }

        var parsed = ImageRequest(
            model: model, family: family, prompt: prompt,
            size: family == .gptImage ? "auto" : "1024x1024",
            quality: family == .gptImage ? "auto" : "standard")

        if let n = try integer(body["n"], param: "n", in: 1...Int.max) {
            guard n <= family.maxImages else {
                if family == .dallE3 {
                    throw APIError(message: "You must provide n=1 for this model.")
                }
                throw APIError(
                    message: "Invalid 'n': integer above maximum value. Expected a value <= \(family.maxImages), but got \(n) instead.",
                    param: "n",
                    code: "integer_above_max_value"
                )
            }
            parsed.n = n
        }
        if let size = try optionalString(body["size"], param: "size") {
            guard family.sizes.contains(size) else {
                if family == .gptImage { throw invalidValue(size, supported: family.sizes, param: "size") }
                throw APIError(message: "The size is not supported by this model.", code: "invalid_size")
            }
            parsed.size = size
        }
        if let quality = try optionalString(body["quality"], param: "quality") {
            guard family.qualities.contains(quality) else {
                throw invalidValue(quality, supported: family.qualities, param: "quality")
            }
            parsed.quality = quality
        }
        _ = try optionalString(body["user"], param: "user")

        switch family {
        case .dallE2, .dallE3:
            if let format = try optionalString(body["response_format"], param: "response_format") {
                guard ["url", "b64_json"].contains(format) else {
                    throw invalidValue(format, supported: ["url", "b64_json"], param: "response_format")
                }
                parsed.responseFormat = format
            }
            if family == .dallE3, let style = try optionalString(body["style"], param: "style") {
                guard ["vivid", "natural"].contains(style) else {
                    throw invalidValue(style, supported: ["vivid", "natural"], param: "style")
                }
                parsed.style = style
            }
        case .gptImage:
            parsed.responseFormat = "b64_json"
            if let format = try optionalString(body["output_format"], param: "output_format") {
                guard ["png", "jpeg", "webp"].contains(format) else {
                    throw invalidValue(format, supported: ["png", "jpeg", "webp"], param: "output_format")
                }
                parsed.outputFormat = format
            }
            _ = try integer(body["output_compression"], param: "output_compression", in: 0...100)
            if let background = try optionalString(body["background"], param: "background") {
                guard ["transparent", "opaque", "auto"].contains(background) else {
                    throw invalidValue(background, supported: ["transparent", "opaque", "auto"], param: "background")
                }
                // The API reference: a transparent background needs png or webp.
                if background == "transparent", parsed.outputFormat == "jpeg" {
                    throw APIError(
                        message: "Invalid value: 'transparent'. A transparent background needs output_format 'png' or 'webp', but got 'jpeg'.",
                        param: "background",
                        code: "invalid_value"
                    )
                }
                parsed.background = background
            }
            if let moderation = try optionalString(body["moderation"], param: "moderation") {
                guard ["low", "auto"].contains(moderation) else {
                    throw invalidValue(moderation, supported: ["low", "auto"], param: "moderation")
                }
            }
            _ = try integer(body["partial_images"], param: "partial_images", in: 0...3)
            try rejectStreaming(body)
        }
        return parsed
    }

    /// A string field; nil when absent or null.
    private func optionalString(_ value: JSONValue?, param: String) throws -> String? {
        guard let value, !value.isNull else { return nil }
        return try requiredString(value, param: param)
    }

    // MARK: Answer

    /// The answer to a valid image request: `n` generated images (or HTML pages, for
    /// `content: .html`), each kept for its `url` when the answer gives URLs.
    func imagesAnswer(for parsed: ImageRequest, request: RecordedRequest, content: GeneratedImageContent = .png) -> ScriptedResponse {
        // The bytes are always PNG; a GPT image answer says `output_format: png` whatever was asked.
        let transparent = parsed.family == .gptImage && parsed.background == "transparent"
        let items: [JSONValue] = (0..<parsed.n).map { index in
            let bytes: Data
            let contentType: String
            switch content {
            case .png:
                bytes = OpenAITestServer.generatedImage(
                    prompt: parsed.prompt, index: index, size: parsed.size, transparentBackground: transparent)
                contentType = "image/png"
            case .html:
                bytes = OpenAITestServer.generatedHTML(prompt: parsed.prompt, index: index)
                contentType = "text/html; charset=utf-8"
            }
            var item: [String: JSONValue] = [:]
            if parsed.responseFormat == "url" {
                item["url"] = .string(Self.origin(of: request) + images.put(bytes, contentType: contentType))
            } else {
                item["b64_json"] = .string(bytes.base64EncodedString())
            }
            if parsed.family == .dallE3 {
                item["revised_prompt"] = .string(OpenAITestServer.revisedPromptPrefix + parsed.prompt)
            }
            return .object(item)
        }
        var body: [String: JSONValue] = ["created": .int(OpenAITestServer.fixedCreated), "data": .array(items)]
        if parsed.family == .gptImage {
            let size = parsed.size == "auto" ? "1024x1024" : parsed.size
            let quality = parsed.quality == "auto" ? "medium" : parsed.quality
            let input = parsed.prompt.split(whereSeparator: \.isWhitespace).count
            let output = Self.imageOutputTokens(quality: quality, size: size) * parsed.n
            body["background"] = .string(transparent ? "transparent" : "opaque")
            body["output_format"] = "png"
            body["quality"] = .string(quality)
            body["size"] = .string(size)
            body["usage"] = [
                "input_tokens": .int(input),
                "input_tokens_details": ["text_tokens": .int(input), "image_tokens": 0],
                "output_tokens": .int(output),
                "total_tokens": .int(input + output),
            ]
        }
        return .json(value: .object(body))
    }

    /// Output tokens per image of gpt-image-1 by quality and size (OpenAI's pricing table).
    static func imageOutputTokens(quality: String, size: String) -> Int {
        let column = size == "1024x1024" ? 0 : size == "1024x1536" ? 1 : 2
        switch quality {
        case "low": return [272, 408, 400][column]
        case "high": return [4160, 6240, 6208][column]
        default: return [1056, 1584, 1568][column]
        }
    }

    /// "http://127.0.0.1:PORT" of the server that received `request` (its Host header for a
    /// request made by hand).
    static func origin(of request: RecordedRequest) -> String {
        if let port = request.serverPort { return "http://127.0.0.1:\(port)" }
        return "http://\(request.header("host") ?? "127.0.0.1")"
    }
}
