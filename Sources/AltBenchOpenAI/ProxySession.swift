import AltBenchCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// The client half of the signed-proxy protocol: one session token at a time, minted from the
/// team's app key, and the signature headers for each request.
///
/// - The token comes from `POST {proxy}/auth_token` with body `{"nonce": "<32 hex>"}`, signed
///   with the app key (which never goes on the wire). It is renewed shortly before its
///   `expires_at`, and on demand when the proxy answers `token_expired` or `invalid_session`.
///   A renewal is single-flight: every request waiting for a token awaits the same one.
/// - Timestamps are the proxy's time: the offset from its `server_time` (in each token answer
///   and each `stale_timestamp` refusal) is added to this machine's clock.
/// - Two requests with the same method, path and body never share a timestamp within a
///   session: a signature the proxy has seen is refused as a replay, and a retry or a repeat
///   of the same question would otherwise sign the same bytes in the same second. The later
///   one takes the next second (the proxy accepts up to 300 s ahead).
///
/// The token, the app key and the signatures live only here and in the request headers: no
/// message this type builds contains them.
package actor ProxySession {
    /// A session token and what the proxy said about it.
    package struct Credentials: Sendable {
        let token: Secret
        package let sessionID: String
        /// Unix seconds on the proxy's clock.
        package let expiresAt: Double
        /// How long the token lived when issued, in seconds.
        let lifetime: Double
        /// Counts renewals, so that a request refused under an old token does not renew again
        /// when another request already did.
        package let generation: Int
    }

    package let proxyURL: URL
    package let settings: SignedProxyConventions
    let appKey: Secret
    let appKeyVariable: String
    let httpClient: HTTPClient
    let timeout: Duration
    /// This machine's clock, Unix seconds (tests skew it).
    let clock: @Sendable () -> Double

    private var current: Credentials?
    private var renewal: Task<Credentials, any Error>?
    private var generation = 0
    /// The proxy's clock minus this machine's, in seconds.
    private var clockOffset: Double = 0
    /// The last timestamp used for each (method, target, body), for unique signatures.
    private var lastTimestamps: [String: Int64] = [:]
    /// Token requests sent, for tests and the run's notes.
    package private(set) var tokenRequests = 0
    /// How far ahead of the proxy's clock a timestamp may run (the proxy accepts 300 s; the
    /// margin covers the trip and a second of rounding).
    var maxLead: Int64 = 240

    package init(
        proxyURL: URL, appKey: Secret, appKeyVariable: String = ProxySettings.defaultAppKeyVariable,
        settings: SignedProxyConventions = .default, httpClient: HTTPClient = .shared, timeout: Duration = .seconds(60),
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
    ) {
        self.proxyURL = proxyURL
        self.appKey = appKey
        self.appKeyVariable = appKeyVariable
        self.settings = settings
        self.httpClient = httpClient
        self.timeout = timeout
        self.clock = clock
    }

    /// A session for a run's resolved proxy settings; throws when the app key is missing
    /// (only `--offline` resolves a proxy without one, and it sends nothing).
    package static func make(_ proxy: ProxySettings, httpClient: HTTPClient, timeout: Duration) throws -> ProxySession {
        guard let appKey = proxy.appKey else {
            throw AltBenchError.missingProxyAppKey(variable: proxy.appKeyVariable, proxy: proxy.url.absoluteString)
        }
        return ProxySession(
            proxyURL: proxy.url, appKey: appKey, appKeyVariable: proxy.appKeyVariable, settings: proxy.protocolSettings,
            httpClient: httpClient, timeout: timeout)
    }

    /// `{proxy}{route}`.
    package nonisolated func url(for route: String) -> URL {
        ProxySettings(url: proxyURL, appKey: nil, appKeyVariable: appKeyVariable, protocolSettings: settings).url(for: route)
    }

    /// The proxy's time now, as this session knows it.
    var proxyNow: Double { clock() + clockOffset }

    /// A token that is good for a while yet: the current one, or a new one.
    package func credentials() async throws -> Credentials {
        if let current, proxyNow < current.expiresAt - Self.renewalMargin(lifetime: current.lifetime) {
            return current
        }
        return try await renew(replacing: current?.generation)
    }

    /// A new token, unless one newer than `generation` exists already (another request renewed
    /// it) or a renewal is under way (then its result).
    package func renew(replacing generation: Int?) async throws -> Credentials {
        if let current, let generation, current.generation > generation { return current }
        if let renewal { return try await renewal.value }
        let task = Task { try await self.fetchToken() }
        renewal = task
        defer { renewal = nil }
        let fresh = try await task.value
        current = fresh
        return fresh
    }

    /// Renew this long before `expires_at`: a tenth of the token's life, at most a minute, so
    /// a request signed just before expiry is not refused on arrival.
    static func renewalMargin(lifetime: Double) -> Double {
        min(60, max(0, lifetime / 10))
    }

    /// Sets the offset from a time the proxy reported.
    package func correctClock(serverTime: Double) {
        clockOffset = serverTime - clock()
    }

    /// The headers that sign one request under `credentials`.
    package func signatureHeaders(
        method: String, target: String, body: Data, credentials: Credentials
    ) async throws -> [(String, String)] {
        let timestamp = try await uniqueTimestamp(method: method, target: target, body: body)
        let signature = RequestSigning.signature(
            key: credentials.token.value, method: method, path: target, timestamp: timestamp, body: body)
        return [
            (settings.sessionHeader, credentials.sessionID), (settings.timestampHeader, timestamp),
            (settings.signatureHeader, signature),
        ]
    }

    /// The proxy's current second, or the second after the last one used for the same bytes.
    /// A timestamp may run at most ``maxLead`` seconds ahead of the proxy's clock (it accepts
    /// 300): many identical requests in a burst (`--repeats` in the hundreds) wait for the
    /// clock to catch up rather than be refused as stale.
    func uniqueTimestamp(method: String, target: String, body: Data) async throws -> String {
        let key = Hashing.sha256Hex("\(method)\n\(target)\n\(RequestSigning.bodyHash(body))")
        while true {
            let now = Int64(proxyNow.rounded(.down))
            let timestamp = max(now, (lastTimestamps[key] ?? now - 1) + 1)
            if timestamp - now > maxLead {
                try await Task.sleep(for: .seconds(Double(timestamp - now - maxLead)))
                continue
            }
            lastTimestamps[key] = timestamp
            // Forget what the proxy's replay window has forgotten.
            if lastTimestamps.count > 10_000 {
                lastTimestamps = lastTimestamps.filter { $0.value > now - SignedProxyConventions.replayWindowSeconds }
            }
            return String(timestamp)
        }
    }

    /// The request target of a URL, as sent and signed: the path, then `?query` if any.
    package nonisolated static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? url.path
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        return target
    }

    // MARK: The token request

    private func fetchToken() async throws -> Credentials {
        let authURL = url(for: settings.authPath)
        var refusedForClock = false
        while true {
            tokenRequests += 1
            let body = Data(JSONValue.object(["nonce": .string(RequestSigning.nonce())]).canonicalText.utf8)
            let timestamp = String(Int64(proxyNow.rounded(.down)))
            let signature = RequestSigning.signature(
                key: appKey.value, method: "POST", path: Self.target(of: authURL), timestamp: timestamp, body: body)
            let sentAt = clock()
            let answer = try await HTTPTransport.post(
                body, to: authURL, headers: [(settings.timestampHeader, timestamp), (settings.signatureHeader, signature)],
                httpClient: httpClient, timeout: timeout, limit: 1024 * 1024, redactor: Redactor(secrets: [appKey.value]),
                setting: "--proxy", tooLarge: "a token answer is a few hundred bytes. Is --proxy the signed proxy's base URL?")
            let (status, headers, data) = (answer.status, answer.headers, answer.body)
            let receivedAt = clock()
            if status == 200 {
                return try credentials(from: data, url: authURL, sentAt: sentAt, receivedAt: receivedAt)
            }
            let refusal = ProxyRefusalAnswer(status: status, headers: headers, body: data)
            if status == 401, refusal.code == SignedProxyConventions.ErrorCode.staleTimestamp.rawValue, !refusedForClock,
                let serverTime = refusal.serverTime
            {
                refusedForClock = true
                correctClock(serverTime: serverTime)
                continue
            }
            throw tokenFailure(refusal, url: authURL)
        }
    }

    private func credentials(from data: Data, url: URL, sentAt: Double, receivedAt: Double) throws -> Credentials {
        let root = try? JSONValue.parse(data)
        guard let token = root?["token"]?.stringValue, !token.isEmpty,
            let sessionID = root?["session_id"]?.stringValue, !sessionID.isEmpty,
            let expiresAt = root?["expires_at"]?.doubleValue,
            let serverTime = root?["server_time"]?.doubleValue
        else {
            throw ModelFailure(
                kind: .malformed,
                message: "the token answer from \(url.absoluteString) is not {\"token\", \"session_id\", \"expires_at\", \"server_time\"}: is --proxy the signed proxy's base URL, and is proxy.auth_path right?",
                retryable: false, stopsRun: true)
        }
        // The proxy read its clock somewhere between sending and receiving.
        clockOffset = serverTime - (sentAt + receivedAt) / 2
        generation += 1
        return Credentials(
            token: Secret(token), sessionID: sessionID, expiresAt: expiresAt, lifetime: max(0, expiresAt - serverTime),
            generation: generation)
    }

    /// Why a token request failed, as the run should see it.
    private func tokenFailure(_ refusal: ProxyRefusalAnswer, url: URL) -> ModelFailure {
        let redactor = Redactor(secrets: [appKey.value, current?.token.value])
        let said = refusal.summary(redactor: redactor)
        switch refusal.status {
        case 401, 403:
            // The likeliest cause first: a signature the proxy cannot verify is a wrong key; a
            // stale timestamp is a clock.
            let message: String
            switch refusal.code {
            case SignedProxyConventions.ErrorCode.invalidSignature.rawValue:
                message = "\(appKeyVariable) does not hold the app key the signed proxy \(proxyURL.absoluteString) expects: it refused altbench's token request (\(said)). Set \(appKeyVariable) to the proxy's app key (the one `altbench proxy` was started with); if it is right, see the proxy's log."
            case SignedProxyConventions.ErrorCode.staleTimestamp.rawValue:
                message = "this machine's clock and the signed proxy's disagree: \(proxyURL.absoluteString) refused altbench's token request (\(said)). Set both clocks right (NTP), then run again."
            default:
                message = "the signed proxy \(proxyURL.absoluteString) refused altbench's token request (\(said)). Check that \(appKeyVariable) holds the proxy's app key, that this machine's and the proxy's clocks are right, and the proxy's log."
            }
            return ModelFailure(
                kind: .http, status: refusal.status, message: message, code: refusal.code, retryable: false, stopsRun: true)
        case 404, 405:
            return ModelFailure(
                kind: .http, status: refusal.status,
                message: "no token route at \(url.absoluteString) (\(said)): is --proxy the signed proxy's base URL (without /v1), and is proxy.auth_path right?",
                code: refusal.code, retryable: false, stopsRun: true)
        default:
            var failure = ErrorBodyParser.failure(
                status: refusal.status, headers: refusal.headers, body: refusal.body, redactor: redactor, url: url.absoluteString,
                apiKeyVariable: appKeyVariable)
            failure.message = "token request: " + failure.message
            return failure
        }
    }

    /// Sends `body` to `url` signed under this session's token, by calling `send` with the
    /// signature headers. A `401` that a new token or a corrected clock can fix
    /// (`token_expired`, `invalid_session`, `stale_timestamp`) is answered once, with the
    /// request signed afresh; any other `401`, or a second one in a row, stops the run.
    package nonisolated func sendSigned(
        _ body: Data, to url: URL, send: @Sendable ([(String, String)]) async throws -> HTTPAnswer
    ) async throws -> HTTPAnswer {
        let target = Self.target(of: url)
        let redactor = Redactor(secrets: [appKey.value])
        var credentials = try await credentials()
        var first: ProxyRefusalAnswer?
        while true {
            let signature = try await signatureHeaders(method: "POST", target: target, body: body, credentials: credentials)
            let answer = try await send(signature)
            guard answer.status == 401 else { return answer }
            let refusal = ProxyRefusalAnswer(status: answer.status, headers: answer.headers, body: answer.body)
            let said = refusal.summary(redactor: redactor)
            if let first {
                let before = first.code.map { " (\($0) first)" } ?? ""
                let fix = first.code == SignedProxyConventions.ErrorCode.staleTimestamp.rawValue ? "clock correction" : "token"
                throw ModelFailure(
                    kind: .http, status: 401,
                    message: "the signed proxy \(proxyURL.absoluteString) refused the request again after a fresh \(fix)\(before): \(said). Check that \(appKeyVariable) holds the proxy's app key, that the proxy's clock is right, and the proxy's log.",
                    code: refusal.code, retryable: false, stopsRun: true)
            }
            first = refusal
            switch refusal.code {
            case SignedProxyConventions.ErrorCode.tokenExpired.rawValue, SignedProxyConventions.ErrorCode.invalidSession.rawValue:
                credentials = try await renew(replacing: credentials.generation)
            case SignedProxyConventions.ErrorCode.staleTimestamp.rawValue where refusal.serverTime != nil:
                await correctClock(serverTime: refusal.serverTime!)
            default:
                throw ModelFailure(
                    kind: .http, status: 401,
                    message: "the signed proxy \(proxyURL.absoluteString) refused the request (\(said)). Check that the proxy speaks altbench's signing protocol (header names and auth_path under `proxy:` in altbench.yml), that nothing between here and the proxy rewrites the path or body, and the proxy's log.",
                    code: refusal.code, retryable: false, stopsRun: true)
            }
        }
    }
}

/// A signed proxy's `401`/`403` answer as the client reads it: its code, and the proxy's time
/// when it said. (The proxy's own side of it is `AltBenchProxy.ProxyRefusal`.)
struct ProxyRefusalAnswer {
    var status: Int
    var headers: [String: String]
    var body: Data
    var code: String?
    var message: String?
    /// `error.server_time`, else the `Date` header, as Unix seconds.
    var serverTime: Double?

    init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
        let error = (try? JSONValue.parse(body))?["error"]
        code = error?["code"]?.stringValue
        message = error?["message"]?.stringValue
        serverTime = error?["server_time"]?.doubleValue ?? headers["date"].flatMap(DateText.parseHTTPDate)?.timeIntervalSince1970
    }

    /// "HTTP 401 invalid_signature: the signature does not match", secrets removed.
    func summary(redactor: Redactor) -> String {
        let detail = message.map { ErrorBodyParser.oneLine(redactor.redact($0), limit: 300) }
            ?? ErrorBodyParser.snippet(body, redactor: redactor)
        return "HTTP \(status)\(code.map { " \(redactor.redact($0))" } ?? ""): \(detail)"
    }
}
