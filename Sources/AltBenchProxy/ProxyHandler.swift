import AltBenchCore
import Foundation
import Hummingbird
import NIOCore

/// Answers one request: the allowlist, then the signature checks in a fixed order, then the
/// route's own work. Each check either passes or throws the ``ProxyRefusal`` the client gets,
/// so the order below is the order a request meets them:
///
/// 1. the route: method and path on the allowlist, byte for byte (403 `path_not_allowed`);
/// 2. `Content-Length` over the body cap, 1 KiB on the token route (413 `body_too_large`,
///    before a byte is read);
/// 3. the signing headers, each exactly once (401 `missing_headers`);
/// 4. the timestamp: well formed and within 300 s of the proxy's clock (401 `stale_timestamp`);
/// 5. the session: known (401 `invalid_session`) and not expired (401 `token_expired`);
/// 6. the body, read only now and with the cap enforced while reading (413 `body_too_large`);
/// 7. the signature (401 `invalid_signature`);
/// 8. replay: the signature not seen in the last 600 s (401 `replayed_request`);
/// 9. the rate: the session's bucket, or the client address's for token requests (429); only
///    a request within its rate has its signature remembered, in its owner's share of the
///    replay memory (429 when the share or the memory is full);
/// 10. the body's content: a token request's nonce (400), a chat, images or `/dalle`
///     request's model (403), a chat request's token limit under the cap (403).
///
/// Cheap checks come first and nothing reaches the upstream before all of them pass. The
/// unsigned routes (`/healthz`, the kept images) are answered right after step 1. A request
/// refused before its body was read to its end closes its connection (``ConnectionGuard``), so
/// the rest of that body is never read.
struct ProxyHandler: Sendable {
    let configuration: ProxyConfiguration
    let routes: [ProxyRoute]
    let state: ProxyState
    /// The images kept for `/dalle` answers.
    let images: GeneratedImages
    let forwarder: UpstreamForwarder
    /// Which address a request comes from (the peer, or `X-Forwarded-For` behind a trusted
    /// reverse proxy).
    let clients: ClientAddressResolver

    /// The largest token request body: `{"nonce": "<32 hex>"}` is 45 bytes, so a kibibyte is
    /// room for any spelling of it and nothing more is read before the app key is checked.
    static let maxTokenRequestBytes = 1024

    /// The headers of a signed request.
    struct SigningHeaders {
        var session: String?
        var timestamp: String
        var signature: String
    }

    /// Answers `request`, which arrived from `peerAddress` on `listeningPort` over `channel`
    /// (told when the body is wanted; nil reads it at once), and writes its log line.
    func respond(
        to request: Request, peerAddress: String, listeningPort: Int, channel: (any Channel)? = nil
    ) async -> Response {
        let clientAddress = clients.client(peer: peerAddress, forwardedFor: request.headers[values: Self.forwardedFor])
        let started = ContinuousClock.now
        let time = Date()
        let target = request.head.path ?? ""
        var record = AccessLogRecord(method: request.method.rawValue, path: loggedPath(ProxyRoute.split(target: target).path))
        var response: Response
        do {
            response = try await handle(
                request, target: target, clientAddress: clientAddress, listeningPort: listeningPort, channel: channel,
                record: &record)
        } catch {
            record.code = error.code
            response = Self.response(for: error)
        }
        record.status = response.status.code
        configuration.log(record.line(time: time, latency: ContinuousClock.now - started))
        return response
    }

    private func handle(
        _ request: Request, target: String, clientAddress: String, listeningPort: Int, channel: (any Channel)?,
        record: inout AccessLogRecord
    ) async throws(ProxyRefusal) -> Response {
        let (path, query) = ProxyRoute.split(target: target)
        guard let route = routes.match(method: request.method.rawValue, path: path) else { throw pathNotAllowed() }
        switch route.action {
        case .health:
            return Self.healthy()
        case .generatedImage:
            return try await generatedImage(named: route.name(in: path))
        case .issueToken, .forward, .dalle:
            break
        }

        let bodyLimit = route.needsSession ? configuration.maxBodyBytes : Self.maxTokenRequestBytes
        try checkDeclaredLength(request.headers, limit: bodyLimit)
        let headers = try signingHeaders(request.headers, needsSession: route.needsSession)
        if let session = headers.session { record.session = AccessLogRecord.loggable(session: session) }
        let now = configuration.now()
        try checkTimestamp(headers.timestamp, now: now)
        let key = try await signingKey(for: headers.session, now: now)
        if let session = headers.session { record.session = session }
        channel?.triggerUserOutboundEvent(ConnectionGuard.BodyWanted(), promise: nil)
        let body = try await readBody(request.body, limit: bodyLimit)
        try checkSignature(headers, key: key, method: request.method.rawValue, target: target, body: body)
        try await admit(headers, clientAddress: clientAddress, now: now)

        switch route.action {
        case .health, .generatedImage:
            // Unsigned: answered before the checks above, so never here.
            throw pathNotAllowed()
        case .issueToken:
            try Self.checkNonce(body)
            return try await issueToken(client: clientAddress, now: now)
        case .forward(let upstreamPath, let checksModel, let capsTokens):
            if checksModel { try checkModel(body) }
            if capsTokens { try checkTokenCap(body) }
            let answer = try await forwarder.forward(
                method: request.method.rawValue, upstreamPath: upstreamPath, query: query, headers: request.headers, body: body)
            record.upstreamStatus = answer.upstreamStatus
            return answer.response
        case .dalle(let upstreamPath):
            try checkModel(body)
            let exchange = try await forwarder.exchange(
                method: request.method.rawValue, upstreamPath: upstreamPath, query: query, headers: request.headers, body: body)
            record.upstreamStatus = exchange.status
            return try await dalleAnswer(to: exchange, listeningPort: listeningPort)
        }
    }

    /// 403 `path_not_allowed`, naming every route.
    private func pathNotAllowed() -> ProxyRefusal {
        ProxyRefusal(
            403, .pathNotAllowed,
            "This proxy serves only \(routes.map(\.summary).joined(separator: ", ")), spelled exactly so (no extra or encoded slashes, dots, case changes or trailing slash)."
        )
    }

    // MARK: The checks, in order

    /// A declared `Content-Length` over `limit` is refused before a byte of the body is read.
    /// (A body without one, chunked, is capped while it is read.)
    func checkDeclaredLength(_ headers: HTTPFields, limit: Int) throws(ProxyRefusal) {
        for value in headers[values: .contentLength] {
            guard let length = Int(value.trimmingCharacters(in: .whitespaces)), length <= limit else {
                throw bodyTooLarge(limit: limit)
            }
        }
    }

    /// The session, timestamp and signature headers, each present exactly once (empty counts as
    /// present; its value is judged by the next checks). Token requests need no session header,
    /// and one sent there is ignored. Header names are case-insensitive, so `X-Signature` and
    /// `x-signature` together are two signatures.
    func signingHeaders(_ fields: HTTPFields, needsSession: Bool) throws(ProxyRefusal) -> SigningHeaders {
        let settings = configuration.protocolSettings
        var required = [settings.timestampHeader, settings.signatureHeader]
        if needsSession { required.insert(settings.sessionHeader, at: 0) }
        var values: [String: String] = [:]
        for name in required {
            let found = HTTPFields.Element.Name(name).map { fields[values: $0] } ?? []
            guard found.count == 1 else {
                throw ProxyRefusal(
                    401, .missingHeaders,
                    "Send each of \(required.joined(separator: ", ")) exactly once; \(name) is \(found.isEmpty ? "missing" : "sent \(found.count) times").")
            }
            values[name] = found[0]
        }
        return SigningHeaders(
            session: needsSession ? values[settings.sessionHeader] : nil, timestamp: values[settings.timestampHeader] ?? "",
            signature: values[settings.signatureHeader] ?? "")
    }

    /// The timestamp is integer Unix seconds spelled one way only (``RequestSigning/isWellFormedTimestamp(_:)``)
    /// and at most 300 s from the proxy's clock, either way. The refusal carries the proxy's
    /// time so a client with a skewed clock can correct it in one round trip.
    func checkTimestamp(_ timestamp: String, now: Double) throws(ProxyRefusal) {
        let serverTime = Int64(now.rounded(.down))
        guard RequestSigning.isWellFormedTimestamp(timestamp), let seconds = Int64(timestamp) else {
            throw ProxyRefusal(
                401, .staleTimestamp,
                "The timestamp header must be whole Unix seconds: digits only, no sign, fraction, spaces or leading zero (server_time has the proxy's clock).",
                serverTime: serverTime)
        }
        guard abs(serverTime - seconds) <= SignedProxyConventions.clockWindowSeconds else {
            throw ProxyRefusal(
                401, .staleTimestamp,
                "The timestamp is more than \(SignedProxyConventions.clockWindowSeconds) s from the proxy's clock; sign again with server_time plus your clock's offset.",
                serverTime: serverTime)
        }
    }

    /// The key that signs this request: the session's token, or the app key for a token
    /// request (no session).
    func signingKey(for session: String?, now: Double) async throws(ProxyRefusal) -> String {
        guard let session else { return configuration.appKey.value }
        switch await state.lookup(session: session, now: now) {
        case .token(let token):
            return token
        case .unknown:
            throw ProxyRefusal(
                401, .invalidSession, "The session is unknown to this proxy; get a new token from \(configuration.protocolSettings.authPath).")
        case .expired:
            throw ProxyRefusal(
                401, .tokenExpired, "The session's token has expired; get a new one from \(configuration.protocolSettings.authPath).")
        }
    }

    /// The whole body, refused as soon as it grows past `limit` (a chunked body declares no
    /// length), and before it is hashed.
    func readBody(_ body: RequestBody, limit: Int) async throws(ProxyRefusal) -> ByteBuffer {
        var collected = ByteBuffer()
        do {
            for try await chunk in body {
                guard collected.readableBytes + chunk.readableBytes <= limit else { throw bodyTooLarge(limit: limit) }
                collected.writeImmutableBuffer(chunk)
            }
        } catch let refusal as ProxyRefusal {
            throw refusal
        } catch {
            throw ProxyRefusal(400, ProxyCode.invalidRequest, "The request body could not be read to its end.")
        }
        return collected
    }

    /// The signature is HMAC-SHA256 under the key of the method, the request target exactly
    /// as received (query included), the timestamp header and the body's SHA-256
    /// (``RequestSigning``). Anything but the 64 lowercase hex characters expected fails
    /// here: uppercase, base64, truncated or empty.
    func checkSignature(
        _ headers: SigningHeaders, key: String, method: String, target: String, body: ByteBuffer
    ) throws(ProxyRefusal) {
        let expected = RequestSigning.signature(
            key: key, method: method, path: target, timestamp: headers.timestamp, body: body.readableBytesView)
        guard RequestSigning.matches(headers.signature, expected: expected) else {
            throw ProxyRefusal(
                401, .invalidSignature,
                "The signature does not match this request. Sign METHOD, the request target exactly as sent (path and query), the timestamp header and the body's SHA-256, with HMAC-SHA256 under the \(headers.session == nil ? "app key" : "session's token"), as 64 lowercase hex characters."
            )
        }
    }

    /// A verified request is checked against the replay memory, then charged to its bucket
    /// (its session's, or its client address's for a token request), and only then is its
    /// signature remembered, for the replay window, in its owner's share of the memory. A
    /// replay costs its session's rate nothing; a request over the rate costs no memory; a
    /// request refused later (model, token cap) has spent its signature.
    func admit(_ headers: SigningHeaders, clientAddress: String, now: Double) async throws(ProxyRefusal) {
        let session = headers.session
        switch await state.admit(signature: headers.signature, session: session, client: clientAddress, now: now) {
        case .admitted:
            return
        case .replayed:
            throw ProxyRefusal(
                401, .replayedRequest,
                "This signed request was already received; sign every request afresh (a new timestamp or body gives a new signature).")
        case .rateLimited(let wait):
            throw ProxyRefusal(
                429, .rateLimitExceeded,
                session == nil
                    ? "Too many token requests from this address; retry after \(wait) s, and reuse a token until it expires."
                    : "This session sent more requests than the proxy allows per minute; retry after \(wait) s.",
                retryAfter: wait)
        case .shareFull(let wait):
            throw ProxyRefusal(
                429, .rateLimitExceeded,
                session == nil
                    ? "The proxy remembers as many recent token requests from this address as it allows one address; retry after \(wait) s."
                    : "The proxy remembers as many recent requests of this session as it allows one session; retry after \(wait) s.",
                retryAfter: wait)
        case .memoryFull(let wait):
            throw ProxyRefusal(
                429, .rateLimitExceeded,
                "The proxy is remembering as many recent requests as it can; retry after \(wait) s.",
                retryAfter: wait)
        }
    }

    /// With a model allowlist, a chat, images or `/dalle` request must be a JSON object whose
    /// `model` is on it (a `DALLERequest` without a model is refused, not given a default).
    func checkModel(_ body: ByteBuffer) throws(ProxyRefusal) {
        guard !configuration.allowedModels.isEmpty else { return }
        let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        guard let model = object?["model"] as? String, configuration.allowedModels.contains(model) else {
            throw ProxyRefusal(
                403, .modelNotAllowed,
                "This proxy forwards only requests for \(configuration.allowedModels.joined(separator: ", ")); set \"model\" in the JSON body to one of them."
            )
        }
    }

    /// With a token cap, a chat request must be a JSON object naming `max_tokens` or
    /// `max_completion_tokens` (whole numbers), and each of them times `n` (the number of
    /// answers, 1 when absent) must be at most the cap. A request over it is refused, not
    /// clamped: a clamped answer would be cut short where the app did not ask for it, and
    /// look like the model's choice.
    func checkTokenCap(_ body: ByteBuffer) throws(ProxyRefusal) {
        guard let cap = configuration.maxTokensCap else { return }
        let refusal = ProxyRefusal(
            403, ProxyCode.maxTokensNotAllowed,
            "This proxy forwards chat requests asking for at most \(cap) tokens: set \"max_tokens\" (or \"max_completion_tokens\") to a whole number, times \"n\" when you ask for several answers, no larger than \(cap)."
        )
        guard let limits = try? JSONDecoder().decode(TokenLimits.self, from: Data(body.readableBytesView)) else { throw refusal }
        let answers = max(1, limits.n ?? 1)
        let named = [limits.max_tokens, limits.max_completion_tokens].compactMap { $0 }
        guard !named.isEmpty else { throw refusal }
        for limit in named {
            let (total, overflow) = limit.multipliedReportingOverflow(by: answers)
            guard limit >= 0, !overflow, total <= cap else { throw refusal }
        }
    }

    /// The fields of a chat request that bound what it can cost.
    private struct TokenLimits: Decodable {
        var max_tokens: Int?
        var max_completion_tokens: Int?
        var n: Int?
    }

    /// A token request's body is `{"nonce": "<32 lowercase hex>"}`: the nonce keeps two token
    /// requests in one second apart, so neither looks like a replay of the other.
    static func checkNonce(_ body: ByteBuffer) throws(ProxyRefusal) {
        let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        guard let nonce = object?["nonce"] as? String, nonce.utf8.count == 32,
            nonce.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else {
            throw ProxyRefusal(400, ProxyCode.invalidRequest, "A token request's body must be {\"nonce\": \"<32 random lowercase hex characters>\"}.")
        }
    }

    /// Mints a session for `client`: `{"token","session_id","expires_at","server_time"}`.
    func issueToken(client: String, now: Double) async throws(ProxyRefusal) -> Response {
        let issued = try await state.issueSession(client: client, now: now).get()
        return Self.json(
            200,
            "{\"token\":\(JSONValue.quoted(issued.token)),\"session_id\":\(JSONValue.quoted(issued.id)),\"expires_at\":\(issued.expiresAt),\"server_time\":\(Int64(now.rounded(.down)))}"
        )
    }

    private func bodyTooLarge(limit: Int) -> ProxyRefusal {
        ProxyRefusal(
            413, .bodyTooLarge,
            limit == Self.maxTokenRequestBytes && limit != configuration.maxBodyBytes
                ? "A token request's body is larger than this proxy accepts (\(limit) bytes); send {\"nonce\": \"<32 random hex>\"}."
                : "The request body is larger than this proxy accepts (\(limit) bytes).")
    }

    /// `X-Forwarded-For`, read only from a trusted reverse proxy.
    static let forwardedFor = HTTPFields.Element.Name("X-Forwarded-For")!

    // MARK: Responses

    /// `GET /healthz`: the proxy is up (it says nothing about the upstream).
    static func healthy() -> Response { json(200, "{\"status\":\"ok\"}") }

    static func json(_ status: Int, _ text: String, headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "application/json"
        return Response(status: .init(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The refusal as an OpenAI-shaped error, with `Retry-After` when it has one. (Every
    /// answer carries a `Date` header from the server; a stale timestamp's client may read it.)
    static func response(for refusal: ProxyRefusal) -> Response {
        var headers: HTTPFields = [:]
        if let retryAfter = refusal.retryAfter { headers[.retryAfter] = String(retryAfter) }
        return json(refusal.status, refusal.body, headers: headers)
    }
}
