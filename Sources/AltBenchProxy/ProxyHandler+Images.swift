import AltBenchCore
import Foundation
import Hummingbird
import NIOCore

/// The image routes' own work, after the checks every route shares (``ProxyHandler``).
///
/// - `POST {imagesPath}` is an ordinary forward (the Images API, answer passed back).
/// - `POST {dallePath}` is ShipThatApp's: the `DALLERequest` goes upstream byte for byte, and
///   a successful answer comes back as its `DALLEResponse`, `{"url": "…"}` and nothing else.
/// - `GET {generatedPath}/<name>` serves the images the proxy kept for `/dalle` answers.
extension ProxyHandler {
    /// The first image of an Images API answer, as the upstream gave it.
    enum FirstImage: Equatable {
        /// `data[0].url`: an address the upstream hosts.
        case url(String)
        /// `data[0].b64_json`: the image itself, in base64.
        case base64(String)
    }

    /// The client's answer for an upstream answer to a `/dalle` request:
    ///
    /// - an error status (4xx, 5xx, or anything but 2xx) is passed back as it is, redacted, so
    ///   the client classifies a content-policy refusal, a 429 or a 5xx as from OpenAI;
    /// - 2xx with `data[0].url` (a non-empty string) → `{"url": that url}`; a `url` wins over
    ///   a `b64_json` in the same item;
    /// - 2xx with `data[0].b64_json` → the bytes are decoded and kept when they are a PNG, JPEG
    ///   or WEBP (magic bytes, ``ImageSniffer``), and the answer is
    ///   `{"url": "<public base>{generatedPath}/<sha256>.<png|jpg|webp>"}`; other bytes are a
    ///   502 `upstream_not_an_image` and nothing is kept;
    /// - 2xx with neither (not JSON, no `data`, an empty list) → 502 `upstream_invalid_answer`.
    ///
    /// Only `data[0]` is used (ShipThatApp asks for `n: 1`); `revised_prompt`, `usage` and the
    /// upstream's headers are not part of a `DALLEResponse` and are dropped.
    func dalleAnswer(to exchange: UpstreamForwarder.Exchange, listeningPort: Int) async throws(ProxyRefusal) -> Response {
        guard (200..<300).contains(exchange.status) else { return exchange.response }
        switch Self.firstImage(in: exchange.body) {
        case .url(let url):
            return Self.dalleResponse(url: url)
        case .base64(let text):
            let name = try await keep(base64: text)
            let base = configuration.publicBase(ownBase: SignedProxy.baseURL(host: configuration.host, port: listeningPort))
            return Self.dalleResponse(url: base + configuration.protocolSettings.generatedPath + "/" + name)
        case nil:
            throw ProxyRefusal(
                502, ProxyCode.upstreamInvalidAnswer,
                "The upstream answered the image request with neither data[0].url nor data[0].b64_json; check that the upstream speaks the Images API.")
        }
    }

    /// `data[0].url`, else `data[0].b64_json`, of an Images API answer; nil when it has neither
    /// as a non-empty string.
    static func firstImage(in body: [UInt8]) -> FirstImage? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let data = object["data"] as? [Any], let first = data.first as? [String: Any]
        else { return nil }
        if let url = first["url"] as? String, !url.isEmpty { return .url(url) }
        if let base64 = first["b64_json"] as? String, !base64.isEmpty { return .base64(base64) }
        return nil
    }

    /// Decodes `base64` (strictly: no line breaks or other characters), checks the bytes are
    /// a PNG, JPEG or WEBP, and keeps them; returns the name they are served under.
    func keep(base64: String) async throws(ProxyRefusal) -> String {
        guard let bytes = Data(base64Encoded: base64) else {
            throw ProxyRefusal(
                502, ProxyCode.upstreamInvalidAnswer, "The upstream's data[0].b64_json is not valid base64; nothing was kept.")
        }
        guard let header = try? ImageSniffer.sniff(bytes, path: "b64_json"), let format = GeneratedImages.Format(header.format)
        else {
            throw ProxyRefusal(
                502, ProxyCode.upstreamNotAnImage,
                "The upstream's data[0].b64_json is not a PNG, JPEG or WEBP image; nothing was kept. Check what the upstream serves at its images route.")
        }
        guard let name = await images.keep(bytes, format: format, now: configuration.now()) else {
            throw ProxyRefusal(
                502, ProxyCode.upstreamResponseTooLarge,
                "The generated image (\(bytes.count) bytes) is larger than the proxy keeps in all (\(configuration.generatedImageBytes) bytes); raise --generated-image-bytes.")
        }
        return name
    }

    /// ShipThatApp's `DALLEResponse`: `{"url": "…"}`.
    static func dalleResponse(url: String) -> Response {
        json(200, "{\"url\":\(JSONValue.quoted(url))}")
    }

    /// `GET {generatedPath}/<name>`: the image kept under exactly `name`, with its
    /// `Content-Type` and `Cache-Control: private, max-age=<whole seconds it has left>`, or
    /// 404 `not_found` for a name never kept, expired, evicted or not of a kept name's shape.
    /// No signature: the name is the SHA-256 of bytes only the requester has seen.
    func generatedImage(named name: String) async throws(ProxyRefusal) -> Response {
        guard GeneratedImages.isWellFormed(name: name), let image = await images.image(named: name, now: configuration.now()) else {
            throw ProxyRefusal(
                404, ProxyCode.notFound,
                "No image is kept under this name. Generated images are served for \(Int(GeneratedImages.lifetime) / 60) minutes from their \(configuration.protocolSettings.dallePath) answer, at exactly the URL it gave."
            )
        }
        var headers = HTTPFields()
        headers[.contentType] = image.contentType
        headers[.cacheControl] = "private, max-age=\(image.secondsLeft)"
        // The bytes were sniffed before they were kept; browsers must not guess otherwise.
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: image.bytes)))
    }

    /// The path as the log shows it: under `{generatedPath}/`, a name of a kept image's shape
    /// is written `[redacted]` (the name is what grants access to the image); any other path,
    /// including a malformed name, as received.
    func loggedPath(_ path: String) -> String {
        let folder = configuration.protocolSettings.generatedPath + "/"
        guard path.utf8.starts(with: folder.utf8) else { return path }
        let name = String(decoding: path.utf8.dropFirst(folder.utf8.count), as: UTF8.self)
        return GeneratedImages.isWellFormed(name: name) ? folder + Redactor.placeholder : path
    }
}
