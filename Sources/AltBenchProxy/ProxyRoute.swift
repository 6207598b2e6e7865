import AltBenchCore

/// One entry of the proxy's allowlist: a method and a path, matched byte for byte, and what
/// the proxy does with a request to it.
///
/// Matching is exact string equality on the request target as received (with the query cut
/// off at the first `?`), never on a decoded or normalised path: `//`, `/./`, `%2F`, a
/// trailing slash, a case change or an encoded newline is another path, and another path is
/// not on the list. A new route (images, `/dalle`) is one more entry in ``table(for:)``.
struct ProxyRoute: Sendable {
    enum Action: Sendable {
        /// `GET /healthz`: `{"status":"ok"}`, no signature.
        case health
        /// The token route: signed with the app key; mints a session.
        case issueToken
        /// Signed with a session token; forwarded to `{upstream}{upstreamPath}?{query}`.
        /// `checksModel`: the body's `model` must be on the allowlist when there is one.
        case forward(upstreamPath: String, checksModel: Bool)
    }

    /// Uppercase, as it must be sent.
    let method: String
    /// The path, as it must be sent.
    let path: String
    let action: Action

    /// Whether requests must carry a valid signature.
    var isSigned: Bool {
        if case .health = action { return false }
        return true
    }

    /// Whether requests name a session (every signed route but the token route, which is
    /// signed with the app key).
    var needsSession: Bool {
        if case .forward = action { return true }
        return false
    }

    /// The proxy's routes for the header names and paths of `settings`.
    static func table(for settings: SignedProxyProtocol) -> [ProxyRoute] {
        [
            ProxyRoute(method: "GET", path: "/healthz", action: .health),
            ProxyRoute(method: "POST", path: settings.authPath, action: .issueToken),
            ProxyRoute(
                method: "POST", path: settings.chatPath, action: .forward(upstreamPath: "/chat/completions", checksModel: true)),
        ]
    }

    /// The request target split at its first `?`: the path, and the query without the `?`
    /// (nil when there is no `?`).
    static func split(target: String) -> (path: String, query: String?) {
        let bytes = Array(target.utf8)
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return (target, nil) }
        return (String(decoding: bytes[..<mark], as: UTF8.self), String(decoding: bytes[(mark + 1)...], as: UTF8.self))
    }
}

extension Array where Element == ProxyRoute {
    /// The route for `method` and `path`, compared byte for byte (Swift's `==` on strings
    /// would also equate canonically equivalent Unicode spellings).
    func match(method: String, path: String) -> ProxyRoute? {
        first { $0.method.utf8.elementsEqual(method.utf8) && $0.path.utf8.elementsEqual(path.utf8) }
    }
}
