import AltBenchCore
import AltBenchHTTP
import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1

/// Sends a verified request on to the upstream API with the real key, and brings the answer
/// back with that key removed from it.
struct UpstreamForwarder: Sendable {
    let client: HTTPClient
    /// The upstream base without a trailing slash, e.g. "https://api.openai.com/v1".
    let base: String
    let key: Secret
    let timeout: Duration
    let maxResponseBytes: Int
    /// The client headers forwarded, lowercase: ``forwardedByDefault`` and the operator's
    /// `--forward-header` names.
    let forwardedHeaderNames: Set<String>

    /// The client headers forwarded unless the operator names more: what the upstream needs
    /// to read the body and shape the answer, and the client's name (useful in the upstream's
    /// logs). Everything else stays at the proxy: the client's credentials (the upstream gets
    /// the proxy's key instead), the signing headers, and, above all, `OpenAI-Organization`
    /// and `OpenAI-Project`, which would let a client choose which organisation or project the
    /// proxy's key bills. `OpenAI-Beta` is not forwarded either: it opts into beta APIs
    /// (Assistants, Realtime), none of which the proxy's routes serve.
    static let forwardedByDefault: Set<String> = ["content-type", "accept", "user-agent"]

    /// Request headers that `--forward-header` may not name: the client's credentials, what
    /// the HTTP client sets itself, and `accept-encoding`, so that the answer comes
    /// uncompressed and the key can be found in it and removed.
    static let droppedRequestHeaders: Set<String> = [
        "authorization", "api-key", "cookie", "host", "content-length", "accept-encoding", "expect",
    ]

    /// Hop-by-hop headers (RFC 9110 §7.6.1 and the ones proxies traditionally drop): they
    /// describe one connection, not the message.
    static let hopByHopHeaders: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    /// Answer headers never passed back: hop-by-hop, `content-length` (the proxy's server sets
    /// it for the body it sends) and `set-cookie` (the upstream's cookies are the proxy's).
    static let droppedResponseHeaders: Set<String> = ["content-length", "set-cookie"]

    /// The forwarded answer and the upstream's status (for the log).
    struct Answer: Sendable {
        var response: Response
        var upstreamStatus: Int
    }

    /// The upstream's answer, read whole and with the key removed (``redact(_:_:isError:)``).
    struct Exchange: Sendable {
        var status: Int
        var headers: HTTPFields
        var body: [UInt8]

        /// The answer as the proxy passes it back: the upstream's status, headers and body.
        var response: Response {
            var buffer = ByteBufferAllocator().buffer(capacity: body.count)
            buffer.writeBytes(body)
            return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: buffer))
        }
    }

    /// Forwards `body` to `{base}{upstreamPath}` (plus `?query`), with the client's headers
    /// minus the dropped ones and `Authorization: Bearer <key>`, and passes the answer back.
    func forward(method: String, upstreamPath: String, query: String?, headers: HTTPFields, body: ByteBuffer) async throws(ProxyRefusal)
        -> Answer
    {
        let exchange = try await self.exchange(method: method, upstreamPath: upstreamPath, query: query, headers: headers, body: body)
        return Answer(response: exchange.response, upstreamStatus: exchange.status)
    }

    /// Sends the request as ``forward(method:upstreamPath:query:headers:body:)`` does and
    /// returns the upstream's answer, redacted, for the caller to pass back or transform.
    ///
    /// One deadline (`timeout`) covers the head and the whole body, and the body may be at
    /// most `maxResponseBytes` (base64 images included).
    func exchange(method: String, upstreamPath: String, query: String?, headers: HTTPFields, body: ByteBuffer) async throws(ProxyRefusal)
        -> Exchange
    {
        let url = base + upstreamPath + (query.map { "?" + $0 } ?? "")
        guard URL(string: url) != nil else {
            throw ProxyRefusal(400, ProxyCode.invalidRequest, "The query string cannot be forwarded; send a URL-encoded query.")
        }
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        request.headers = Self.forwardedHeaders(headers, allowing: forwardedHeaderNames)
        request.headers.add(name: "Authorization", value: "Bearer \(key.value)")
        request.body = .bytes(body)

        let status: Int
        var fields: HTTPFields
        var bytes: [UInt8]
        do {
            // One deadline for the head and the body: AsyncHTTPClient's own ends once the head
            // has arrived, and a stalled body is as slow as no answer.
            let deadline = ContinuousClock.now + timeout
            let response = try await client.execute(request, deadline: .now() + TimeAmount(timeout))
            status = Int(response.status.code)
            fields = Self.returnedHeaders(response.headers)
            var buffer = try await ResponseReading.collect(response.body, limit: maxResponseBytes, until: deadline)
            bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw ProxyRefusal(
                504, ProxyCode.upstreamTimeout,
                "The upstream API did not answer within \(DurationText.format(timeout)); retry, or raise the proxy's upstream timeout.")
        } catch is NIOTooManyBytesError {
            throw ProxyRefusal(
                502, ProxyCode.upstreamResponseTooLarge,
                "The upstream answer was larger than the proxy passes back (\(maxResponseBytes / 1024 / 1024) MB).")
        } catch {
            throw ProxyRefusal(
                502, ProxyCode.upstreamUnreachable,
                "The proxy could not reach the upstream API or read its answer; retry, and tell the proxy's operator if it persists.")
        }

        redact(&bytes, &fields, isError: status >= 400)
        return Exchange(status: status, headers: fields, body: bytes)
    }

    /// Removes the upstream key from the answer's body and header values: every occurrence of
    /// the key itself, and on an error status also anything shaped like an OpenAI key
    /// (``Redactor``), since an upstream's 401 echoes a partly masked key.
    func redact(_ body: inout [UInt8], _ fields: inout HTTPFields, isError: Bool) {
        let redactor = Redactor(secrets: [key.value])
        body = Self.replacing(Array(key.value.utf8), in: body, with: Array(Redactor.placeholder.utf8))
        if isError, let text = String(validating: body, as: UTF8.self) {
            body = Array(redactor.redact(text).utf8)
        }
        var cleaned = HTTPFields()
        for field in fields {
            let value = isError ? redactor.redact(field.value) : field.value.replacingOccurrences(of: key.value, with: Redactor.placeholder)
            cleaned.append(HTTPFields.Element(name: field.name, value: value))
        }
        fields = cleaned
    }

    /// `bytes` with every occurrence of `needle` replaced.
    static func replacing(_ needle: [UInt8], in bytes: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        guard !needle.isEmpty, bytes.count >= needle.count else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == needle[0], index + needle.count <= bytes.count,
                bytes[index..<(index + needle.count)].elementsEqual(needle)
            {
                out.append(contentsOf: replacement)
                index += needle.count
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// The client's headers as forwarded: only those named in `allowed` (lowercase), and
    /// never one the client's `Connection` header names (it is the connection's, not the
    /// message's).
    static func forwardedHeaders(_ fields: HTTPFields, allowing allowed: Set<String>) -> HTTPHeaders {
        let named = connectionNamed(fields[values: .connection])
        var headers = HTTPHeaders()
        for field in fields {
            let name = field.name.canonicalName
            guard allowed.contains(name), !named.contains(name) else { continue }
            headers.add(name: field.name.rawName, value: field.value)
        }
        return headers
    }

    /// Why `name` cannot be forwarded with `--forward-header`, or nil when it can: a header
    /// field name, and not a credential, a signing header (`signing`, lowercase), a hop-by-hop
    /// header or one the proxy sets itself.
    static func forwardProblem(_ name: String, signing: Set<String>) -> String? {
        let lower = name.lowercased()
        guard !name.isEmpty, HTTPFields.Element.Name(name) != nil else {
            return "'\(name)' is not a header name (letters, digits and !#$%&'*+-.^_`|~ only)."
        }
        if droppedRequestHeaders.contains(lower) || signing.contains(lower) || hopByHopHeaders.contains(lower) {
            return "\(name) is never forwarded: it is a credential, a signing header, hop-by-hop, or set by the proxy itself."
        }
        return nil
    }

    /// The upstream's headers as passed back: without hop-by-hop, `content-length`,
    /// `set-cookie`, and any header its `Connection` header names.
    static func returnedHeaders(_ headers: HTTPHeaders) -> HTTPFields {
        let named = connectionNamed(headers["connection"])
        var fields = HTTPFields()
        for (name, value) in headers {
            let lower = name.lowercased()
            if hopByHopHeaders.contains(lower) || droppedResponseHeaders.contains(lower) || named.contains(lower) { continue }
            guard let fieldName = HTTPFields.Element.Name(name) else { continue }
            fields.append(HTTPFields.Element(name: fieldName, value: value))
        }
        return fields
    }

    /// The lowercase header names listed in `Connection` values ("close, x-foo").
    static func connectionNamed(_ values: [String]) -> Set<String> {
        Set(values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
    }
}
