import AltBenchCore
import Foundation

/// Everything `altbench proxy` needs: where to forward, the two secrets, and the limits.
///
/// The defaults are the reference proxy's; `altbench proxy` sets them from its flags and
/// tests shift `now` to move the proxy's clock.
package struct ProxyConfiguration: Sendable {
    /// The upstream API base, ending in `/v1`: `POST /v1/chat/completions` goes to
    /// `{upstream}/chat/completions`. http or https, with a host, no credentials or query.
    package var upstream: URL
    /// The real API key; only the proxy holds it, and it goes only to `upstream`.
    package var upstreamKey: Secret
    /// The team's long-lived app key: it signs `/auth_token` requests and is never sent.
    package var appKey: Secret
    /// The address to listen on. Anything but loopback needs TLS in front of the proxy.
    package var host: String = "127.0.0.1"
    /// The TCP port; 0 picks a free one (``SignedProxy/port`` tells which).
    package var port: Int = 8787
    /// How long a session token signs requests.
    package var tokenTTL: Duration = .seconds(900)
    /// Requests per minute of one session: a token bucket refilled at `rpm / 60` a second
    /// holding at most `max(1, rpm / 10)`.
    package var requestsPerMinute: Double = 600
    /// Token requests per minute from one client address: a bucket holding at most 10.
    package var authRequestsPerMinute: Double = 30
    /// Models a chat, images or `/dalle` request may name; empty allows any model.
    package var allowedModels: [String] = []
    /// With a value, a chat request must name `max_tokens` or `max_completion_tokens`, and
    /// each (times `n`) at most this; others are refused (403 `max_tokens_not_allowed`).
    package var maxTokensCap: Int?
    /// Client headers forwarded besides Content-Type, Accept and User-Agent (any case), e.g.
    /// `OpenAI-Beta`. Credentials, signing and hop-by-hop headers cannot be named.
    package var forwardedHeaders: [String] = []
    /// Largest request body, checked from `Content-Length` and again while reading.
    package var maxBodyBytes: Int = 32 * 1024 * 1024
    /// How long an upstream answer (head and body) may take.
    package var upstreamTimeout: Duration = .seconds(300)
    /// How many (session, signature) pairs the proxy remembers at most (the pool). Each owner
    /// (a session, or a client address's token requests) holds at most its share: what its
    /// rate allows in the replay window, and never more than 1% of the pool (at least 100).
    /// When a share or the pool is full of pairs still inside the replay window, requests are
    /// refused (429) rather than a pair forgotten early, which would reopen the window to a
    /// replay. About 70 bytes a pair.
    package var replayCapacity: Int = 1_000_000
    /// How many sessions may be alive at once; token requests beyond it get a 429.
    package var maxSessions: Int = 10_000
    /// How many sessions one client address may have alive at once; its token requests
    /// beyond it get a 429.
    package var maxSessionsPerClient: Int = 50
    /// Client addresses whose token-request bucket is kept; beyond it the least recently
    /// seen is forgotten.
    package var trackedClients: Int = 4096
    /// Reverse proxies whose `X-Forwarded-For` names the client: a connection from one of
    /// these ranges is charged to the rightmost address in the header outside them. Empty: the
    /// header is ignored and the connection's peer is the client.
    package var trustedForwarders: [IPRange] = []
    /// How long a client has to send a request's head (request line and headers), from the
    /// connection's start or the first byte after an idle keep-alive.
    package var headerTimeout: Duration = .seconds(10)
    /// How long a client has to send a request's body, from the moment the proxy reads it.
    package var bodyTimeout: Duration = .seconds(60)
    /// How long a keep-alive connection may sit idle between requests.
    package var idleTimeout: Duration = .seconds(75)
    /// Client connections open at once at most; beyond it new ones wait in the listen backlog.
    package var maxClientConnections: Int = 1024
    /// Connections the proxy keeps open to the upstream at most. Each request in flight holds
    /// one for the model's whole answer time, so this caps the proxy's concurrency: a run at
    /// `--concurrency 50` through a pool of AsyncHTTPClient's default 8 would take six times
    /// as long (the signed-proxy leg of `altbench-bench load` measures it).
    package var maxUpstreamConnections: Int = 256
    /// Largest upstream answer passed back; a larger one is a 502. It must hold base64
    /// images: an Images API answer with several `b64_json` images runs to tens of MB.
    package var maxResponseBytes: Int = 64 * 1024 * 1024
    /// The proxy's address as clients reach it, when that is not `http://HOST:PORT` (a proxy
    /// behind TLS or a reverse proxy, e.g. `https://proxy.example.com`, a path prefix
    /// allowed). It starts the URLs of kept images in `/dalle` answers; nil uses the proxy's
    /// own `http://HOST:PORT`. http or https, with a host, no credentials, query or fragment.
    package var publicURL: URL?
    /// At most this many bytes of images kept for `/dalle` answers (``GeneratedImages``); when
    /// full, the oldest are evicted. A cache of deliverables, not a security bound.
    package var generatedImageBytes: Int = 256 * 1024 * 1024
    /// Header names and routes shared with the client.
    package var protocolSettings: SignedProxyConventions = .default
    /// The proxy's clock in Unix seconds: timestamps, token expiry, the replay window and
    /// the rate buckets all read it (tests shift it). Latency is measured separately.
    package var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    /// Receives one JSON line per request, without the newline. By default, standard error.
    package var log: @Sendable (String) -> Void = ProxyConfiguration.standardErrorLog

    package init(upstream: URL, upstreamKey: Secret, appKey: Secret) {
        self.upstream = upstream
        self.upstreamKey = upstreamKey
        self.appKey = appKey
    }

    /// Writes `line` and a newline to standard error in one write, so concurrent lines do not
    /// interleave.
    package static let standardErrorLog: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Why this configuration cannot start a proxy, or nil when it can.
    package func problem() -> String? {
        if let problem = Self.upstreamProblem(upstream) { return problem }
        if let publicURL, let problem = Self.publicURLProblem(publicURL) { return problem }
        if upstreamKey.value.isEmpty { return "the upstream key is empty." }
        if appKey.value.isEmpty { return "the app key is empty." }
        if !(0...65535).contains(port) { return "the port must be between 0 and 65535 (got \(port))." }
        if tokenTTL <= .zero { return "the token lifetime must be positive." }
        if upstreamTimeout <= .zero { return "the upstream timeout must be positive." }
        for (name, value) in [("header timeout", headerTimeout), ("body timeout", bodyTimeout), ("idle timeout", idleTimeout)]
        where value <= .zero {
            return "the \(name) must be positive."
        }
        if let maxTokensCap, maxTokensCap < 1 { return "the token cap must be at least 1 (got \(maxTokensCap))." }
        let signing = Set([protocolSettings.sessionHeader, protocolSettings.timestampHeader, protocolSettings.signatureHeader].map { $0.lowercased() })
        for name in forwardedHeaders {
            if let problem = UpstreamForwarder.forwardProblem(name, signing: signing) { return problem }
        }
        for (name, value) in [("requests per minute", requestsPerMinute), ("token requests per minute", authRequestsPerMinute)]
        where !(value > 0 && value.isFinite) {
            return "\(name) must be a positive number (got \(value))."
        }
        for (name, value) in [
            ("the body cap", maxBodyBytes), ("the replay capacity", replayCapacity), ("the session cap", maxSessions),
            ("the answer cap", maxResponseBytes), ("the upstream connection cap", maxUpstreamConnections),
            ("the generated image store", generatedImageBytes), ("the per-client session cap", maxSessionsPerClient),
            ("the number of tracked clients", trackedClients), ("the client connection cap", maxClientConnections),
        ] where value < 1 {
            return "\(name) must be at least 1 (got \(value))."
        }
        return nil
    }

    /// Why `url` cannot be the upstream base, or nil when it can: http(s), a host, and no
    /// credentials, query or fragment (the URL is shown in messages; a secret belongs in the
    /// key variable).
    package static func upstreamProblem(_ url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return "the upstream must be an http or https URL, e.g. https://api.openai.com/v1." }
        guard let host = components.host, !host.isEmpty else {
            return "the upstream URL needs a host, e.g. https://api.openai.com/v1."
        }
        if components.user != nil || components.password != nil {
            return "the upstream URL must not carry credentials; the key comes from the key variable."
        }
        if components.query != nil || components.fragment != nil {
            return "the upstream URL takes no query or fragment; give the API base, e.g. https://api.openai.com/v1."
        }
        return nil
    }

    /// Why `name` cannot be a forwarded header, or nil when it can: a header field name, and
    /// not a credential, a signing header (`signing`, lowercase), a hop-by-hop header or one the
    /// proxy sets itself.
    package static func forwardedHeaderProblem(_ name: String, signing: Set<String>) -> String? {
        UpstreamForwarder.forwardProblem(name, signing: signing)
    }

    /// Why `url` cannot be the public URL, or nil when it can: http(s), a host, and no
    /// credentials, query or fragment (a path prefix is kept).
    package static func publicURLProblem(_ url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return "the public URL must be an http or https URL, e.g. https://proxy.example.com." }
        guard let host = components.host, !host.isEmpty else {
            return "the public URL needs a host, e.g. https://proxy.example.com."
        }
        if components.user != nil || components.password != nil || components.query != nil || components.fragment != nil {
            return "the public URL takes no credentials, query or fragment; give the address clients reach the proxy at, e.g. https://proxy.example.com."
        }
        return nil
    }

    /// The start of the URLs the proxy gives for kept images: ``publicURL`` without trailing
    /// slashes, or `ownBase` (the proxy's `http://HOST:PORT`).
    func publicBase(ownBase: String) -> String {
        guard let publicURL else { return ownBase }
        var base = publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }
}
