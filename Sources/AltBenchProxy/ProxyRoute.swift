import AltBenchCore

/// One entry of the proxy's allowlist: a method and a path, matched byte for byte, and what
/// the proxy does with a request to it.
///
/// Matching is exact string equality on the request target as received (with the query cut
/// off at the first `?`), never on a decoded or normalised path: `//`, `/./`, `%2F`, a
/// trailing slash, a case change or an encoded newline is another path, and another path is
/// not on the list. A new route is one more entry in ``table(for:)``.
///
/// One route is a folder rather than a path: the kept images, `GET {generatedPath}/<name>`.
/// It matches every target whose path starts, byte for byte, with `{generatedPath}/`; the
/// name after it is then looked up as it is (``GeneratedImages``), so a name that is not
/// exactly a kept image's (`..`, `%2F`, uppercase hex, another extension, an extra slash) is
/// a 404, never a file elsewhere.
struct ProxyRoute: Sendable {
    enum Action: Sendable {
        /// `GET /healthz`: `{"status":"ok"}`, no signature.
        case health
        /// The token route: signed with the app key; mints a session.
        case issueToken
        /// Signed with a session token; forwarded to `{upstream}{upstreamPath}?{query}`, and
        /// the upstream's answer passed back. `checksModel`: the body's `model` must be on the
        /// allowlist when there is one; `capsTokens`: its token limit must be under the cap
        /// when there is one.
        case forward(upstreamPath: String, checksModel: Bool, capsTokens: Bool = false)
        /// ShipThatApp's `/dalle`: signed with a session token, the model checked, forwarded to
        /// `{upstream}{upstreamPath}?{query}`; a successful answer becomes `{"url": "…"}`
        /// (see `ProxyHandler.dalleAnswer`).
        case dalle(upstreamPath: String)
        /// `GET {generatedPath}/<name>`: an image kept for a `/dalle` answer, no signature.
        case generatedImage

        // `.health` and `.generatedImage` are unsigned and answered right after the route is
        // matched; every other action is signed and meets all the checks first.
    }

    /// Uppercase, as it must be sent.
    let method: String
    /// The path, as it must be sent; for a folder route, the folder without its final `/`.
    let path: String
    /// Whether `path` is a folder: the route then matches `path + "/" + name` for any name.
    var isFolder = false
    let action: Action

    /// Whether requests name a session (every signed route but the token route, which is
    /// signed with the app key).
    var needsSession: Bool {
        switch action {
        case .forward, .dalle: true
        case .health, .issueToken, .generatedImage: false
        }
    }

    /// The route as the path_not_allowed message names it.
    var summary: String {
        isFolder ? "\(method) \(path)/<sha256>.<png|jpg|webp>" : "\(method) \(path)"
    }

    /// The proxy's routes for the header names and paths of `settings`, one entry per route.
    static func table(for settings: SignedProxyConventions) -> [ProxyRoute] {
        [
            ProxyRoute(method: "GET", path: "/healthz", action: .health),
            ProxyRoute(method: "POST", path: settings.authPath, action: .issueToken),
            ProxyRoute(
                method: "POST", path: settings.chatPath, action: .forward(upstreamPath: "/chat/completions", checksModel: true, capsTokens: true)),
            ProxyRoute(
                method: "POST", path: settings.imagesPath, action: .forward(upstreamPath: "/images/generations", checksModel: true)),
            ProxyRoute(method: "POST", path: settings.dallePath, action: .dalle(upstreamPath: "/images/generations")),
            ProxyRoute(method: "GET", path: settings.generatedPath, isFolder: true, action: .generatedImage),
        ]
    }

    /// Whether `method` and `path` are this route's, compared byte for byte (Swift's `==` on
    /// strings would also equate canonically equivalent Unicode spellings).
    func matches(method: String, path: String) -> Bool {
        guard self.method.utf8.elementsEqual(method.utf8) else { return false }
        if isFolder { return path.utf8.starts(with: (self.path + "/").utf8) }
        return self.path.utf8.elementsEqual(path.utf8)
    }

    /// For a folder route, what follows `{path}/` in `path` (possibly empty).
    func name(in path: String) -> String {
        String(decoding: path.utf8.dropFirst(self.path.utf8.count + 1), as: UTF8.self)
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
    /// The first route that matches `method` and `path` byte for byte.
    func match(method: String, path: String) -> ProxyRoute? {
        first { $0.matches(method: method, path: path) }
    }
}
