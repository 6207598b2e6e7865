import AltBenchCore
import AsyncHTTPClient
import Foundation

/// One image an Images API (or a signed proxy's `/dalle`) answered with, downloaded when it
/// came as a URL.
package struct GeneratedImage: Sendable, Hashable {
    package var data: Data
    package var format: ImageFormat
    package var revisedPrompt: String?
    package var created: Int?

    package init(data: Data, format: ImageFormat, revisedPrompt: String? = nil, created: Int? = nil) {
        self.data = data
        self.format = format
        self.revisedPrompt = revisedPrompt
        self.created = created
    }
}

/// Sends image generation requests, as `run` sends chat completions: directly with a key
/// (`POST {base}/images/generations`), through a signed proxy's images route, or through
/// ShipThatApp's signed `/dalle` route (a `DALLERequest` in, `{"url": …}` out). A `url`
/// answer is downloaded at once (OpenAI's expire after 60 minutes), through a size cap, and
/// kept only if its magic bytes say PNG, JPEG or WEBP; `b64_json` is decoded and checked the
/// same way. One call sends once: the caller retries.
package struct ImageGenerationClient: Sendable {
    package enum Route: Sendable {
        /// `POST {base}/images/generations` with `Authorization: Bearer KEY` (none without a key).
        case direct(baseURL: URL, apiKey: Secret?, apiKeyVariable: String)
        /// The signed proxy's Images API route.
        case proxyImages(ProxySession)
        /// The signed proxy's `/dalle`: ShipThatApp's exact flow.
        case proxyDalle(ProxySession)
    }

    package let route: Route
    let timeout: Duration
    let httpClient: HTTPClient
    /// The largest answer or image read (a base64 1536×1024 PNG is a few MB).
    let limit = 64 * 1024 * 1024

    package init(route: Route, timeout: Duration = .seconds(300), httpClient: HTTPClient = .shared) {
        self.route = route
        self.timeout = timeout
        self.httpClient = httpClient
    }

    /// Where requests go: the endpoint's identity in cache keys and manifests.
    package var endpointURL: URL {
        switch route {
        case .direct(let base, _, _): return base.appendingPathComponent("images/generations")
        case .proxyImages(let session): return session.url(for: session.settings.imagesPath)
        case .proxyDalle(let session): return session.url(for: session.settings.dallePath)
        }
    }

    package var endpoint: String { endpointURL.absoluteString }

    var redactor: Redactor {
        switch route {
        case .direct(_, let key, _): return Redactor(secrets: [key?.value])
        case .proxyImages(let session), .proxyDalle(let session): return Redactor(secrets: [session.appKey.value])
        }
    }

    var setting: String {
        if case .direct = route { return "--base-url" }
        return "--proxy"
    }

    /// Sends `request` once and returns its images. Throws `ModelFailure`.
    package func generate(_ request: ImageGenerationRequest) async throws -> [GeneratedImage] {
        let body = request.body
        let url = endpointURL
        let redactor = self.redactor
        let post = { @Sendable (headers: [(String, String)]) async throws -> HTTPAnswer in
            try await HTTPTransport.post(
                body, to: url, headers: headers, httpClient: httpClient, timeout: timeout, limit: limit,
                redactor: redactor, setting: setting, tooLarge: "no generated image is that large.")
        }
        let answer: HTTPAnswer
        var keyVariable = "OPENAI_API_KEY"
        switch route {
        case .direct(_, let key, let variable):
            keyVariable = variable
            answer = try await post(key.map { [("Authorization", "Bearer \($0.value)")] } ?? [])
        case .proxyImages(let session), .proxyDalle(let session):
            keyVariable = session.appKeyVariable
            answer = try await session.sendSigned(body, to: url, send: post)
        }
        guard (200..<300).contains(answer.status) else {
            throw Self.failure(answer, request: request, url: endpoint, redactor: redactor, keyVariable: keyVariable)
        }
        return try await images(in: answer.body)
    }

    /// The images of a 2xx answer: `{"data": [{"url"} | {"b64_json"}, …]}` or `/dalle`'s `{"url"}`.
    func images(in body: Data) async throws -> [GeneratedImage] {
        let root = try? JSONValue.parse(body)
        let created = root?["created"]?.intValue
        var entries: [JSONValue] = root?["data"]?.arrayValue ?? []
        if entries.isEmpty, let url = root?["url"], url.stringValue != nil { entries = [.object(["url": url])] }
        guard !entries.isEmpty else {
            throw ModelFailure(
                kind: .malformed,
                message: "the answer from \(endpoint) holds no image (\(ErrorBodyParser.snippet(body, redactor: redactor))): is \(setting) an Images API or a signed proxy?",
                retryable: false)
        }
        var images: [GeneratedImage] = []
        for entry in entries {
            let revised = entry["revised_prompt"]?.stringValue
            let data: Data
            let source: String
            if let base64 = entry["b64_json"]?.stringValue {
                guard let decoded = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
                    throw ModelFailure(kind: .malformed, message: "the b64_json from \(endpoint) is not base64.", retryable: false)
                }
                data = decoded
                source = "the b64_json from \(endpoint)"
            } else if let text = entry["url"]?.stringValue, let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                data = try await download(url)
                source = "the image at \(Self.shown(url))"
            } else {
                throw ModelFailure(
                    kind: .malformed, message: "an image in the answer from \(endpoint) has neither b64_json nor an http(s) url.",
                    retryable: false)
            }
            images.append(GeneratedImage(data: data, format: try Self.format(of: data, source: source), revisedPrompt: revised, created: created))
        }
        return images
    }

    /// Downloads a generated image: a GET with the size cap; its status must be 2xx.
    func download(_ url: URL) async throws -> Data {
        let answer = try await HTTPTransport.get(
            url, httpClient: httpClient, timeout: timeout, limit: limit, redactor: redactor, setting: setting,
            tooLarge: "no generated image is that large.")
        guard (200..<300).contains(answer.status) else {
            throw ModelFailure(
                kind: .http, status: answer.status,
                message: "downloading the image at \(Self.shown(url)) answered HTTP \(answer.status) (\(ErrorBodyParser.snippet(answer.body, redactor: redactor))); generated URLs expire after an hour.",
                retryable: answer.status >= 500 || answer.status == 429)
        }
        return answer.body
    }

    /// PNG, JPEG or WEBP by magic bytes; anything else (an HTML error page) is refused.
    static func format(of data: Data, source: String) throws -> ImageFormat {
        if let header = try? ImageSniffer.sniff(data, path: source), [.png, .jpeg, .webp].contains(header.format) {
            return header.format
        }
        let start = String(decoding: data.prefix(512), as: UTF8.self).lowercased()
        let what = start.contains("<html") || start.contains("<!doctype") ? "an HTML page" : "not a PNG, JPEG or WEBP image"
        throw ModelFailure(
            kind: .malformed, message: "\(source) is \(what) (\(data.count) bytes), so it was not kept.", retryable: false)
    }

    /// A URL without its query (signed storage URLs carry their signature there).
    static func shown(_ url: URL) -> String {
        var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
        parts?.query = nil
        parts?.fragment = nil
        return parts?.string ?? url.absoluteString
    }

    /// An error answer as a failure: a content-policy refusal fails its item (and is not
    /// retried), a removed or unknown model says what replaced it, the rest as for chat.
    static func failure(
        _ answer: HTTPAnswer, request: ImageGenerationRequest, url: String, redactor: Redactor, keyVariable: String
    ) -> ModelFailure {
        var failure = ErrorBodyParser.failure(
            status: answer.status, headers: answer.headers, body: answer.body, redactor: redactor, url: url,
            apiKeyVariable: keyVariable)
        let code = failure.code ?? ""
        if ["content_policy_violation", "moderation_blocked"].contains(code) || failure.type == "image_generation_user_error" {
            failure.retryable = false
            failure.stopsRun = false
            failure.message = "refused by the provider's content policy (\(code.isEmpty ? "HTTP \(answer.status)" : code)): \(failure.message). Reword the prompt; this item is skipped."
        } else if answer.status == 404 || code == "model_not_found" {
            if request.family == .dalle {
                failure.message += " \(request.model) was removed from OpenAI's API on 2026-05-12: use --model gpt-image-1 (or gpt-image-1-mini), or a server that still serves DALL·E."
            } else {
                failure.message += " Check --model: OpenAI's image models are gpt-image-1 and gpt-image-1-mini."
            }
        }
        return failure
    }
}
