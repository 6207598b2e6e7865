import Foundation

/// One request to an Images API (`POST {base}/images/generations`, or a signed proxy's
/// route), in the shape its model family accepts.
///
/// - GPT image models (`gpt-image-1`, `gpt-image-1-mini`, …) take `prompt`, `model`, `n`,
///   `quality`, `size` and `output_format`, and reject `response_format` and `style`; they
///   always answer base64.
/// - `dall-e-*` models get ShipThatApp's `DALLERequest`, field for field and in its order:
///   `prompt`, `model`, `n`, `quality`, `response_format`, `size`, `style`, with its defaults
///   (`n` 1, `quality` hd, `response_format` url, `size` 1024x1024, `style` natural).
package struct ImageGenerationRequest: Sendable, Hashable {
    package enum Family: String, Sendable, Hashable {
        case gptImage = "gpt-image"
        case dalle = "dall-e"
    }

    package var prompt: String
    package var model: String
    package var n: Int
    package var quality: String
    package var size: String
    /// DALL·E only.
    package var style: String?
    /// DALL·E only: `url` (ShipThatApp's) or `b64_json`.
    package var responseFormat: String?
    /// GPT image only: `png`, `jpeg` or `webp`.
    package var outputFormat: String?

    package static let defaultModel = "gpt-image-1"

    /// The family a model name belongs to: `dall-e-*` is DALL·E, anything else the GPT image
    /// shape (the current one, which compatible servers also take).
    package static func family(of model: String) -> Family {
        model.lowercased().hasPrefix("dall-e") ? .dalle : .gptImage
    }

    package var family: Family { Self.family(of: model) }

    /// A request with the family's defaults for what is not given.
    package init(
        prompt: String, model: String = defaultModel, n: Int? = nil, quality: String? = nil, size: String? = nil,
        style: String? = nil, responseFormat: String? = nil, outputFormat: String? = nil
    ) {
        self.prompt = prompt
        self.model = model
        self.n = n ?? 1
        switch Self.family(of: model) {
        case .dalle:
            self.quality = quality ?? "hd"
            self.size = size ?? "1024x1024"
            self.style = style ?? "natural"
            self.responseFormat = responseFormat ?? "url"
            self.outputFormat = nil
        case .gptImage:
            self.quality = quality ?? "medium"
            self.size = size ?? "1024x1024"
            self.style = nil
            self.responseFormat = nil
            self.outputFormat = outputFormat ?? "png"
        }
    }

    /// The exact bytes sent: compact JSON, fields in the family's order.
    package var body: Data {
        var fields: [(String, String)] = [("prompt", JSONValue.quoted(prompt)), ("model", JSONValue.quoted(model)), ("n", String(n))]
        switch family {
        case .dalle:
            fields += [
                ("quality", JSONValue.quoted(quality)), ("response_format", JSONValue.quoted(responseFormat ?? "url")),
                ("size", JSONValue.quoted(size)), ("style", JSONValue.quoted(style ?? "natural")),
            ]
        case .gptImage:
            fields += [
                ("quality", JSONValue.quoted(quality)), ("size", JSONValue.quoted(size)),
                ("output_format", JSONValue.quoted(outputFormat ?? "png")),
            ]
        }
        return Data(("{" + fields.map { "\(JSONValue.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}").utf8)
    }

    /// The values each family accepts (OpenAI's Images API reference, 2026-11), for checking a
    /// spec before anything is sent. `nil`: any value.
    package static func accepted(_ field: String, family: Family) -> [String]? {
        switch (field, family) {
        case ("quality", .dalle): return ["standard", "hd"]
        case ("quality", .gptImage): return ["auto", "low", "medium", "high"]
        case ("size", .dalle): return ["1024x1024", "1792x1024", "1024x1792", "256x256", "512x512"]
        case ("size", .gptImage): return ["1024x1024", "1536x1024", "1024x1536", "auto"]
        case ("style", .dalle): return ["vivid", "natural"]
        case ("output_format", .gptImage): return ["png", "jpeg", "webp"]
        case ("response_format", .dalle): return ["url", "b64_json"]
        default: return nil
        }
    }

    /// The size as width and height, for a mock image of the same shape (`auto`: square).
    package var dimensions: (width: Int, height: Int) {
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return (1024, 1024) }
        return (parts[0], parts[1])
    }
}
