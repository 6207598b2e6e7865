import Foundation

/// `proxy:` in altbench.yml: where a team's signed proxy is and how it differs from the
/// reference protocol (header names, token route). Every key is optional.
package struct ProxyConfig: Sendable, Hashable {
    package var url: String?
    /// The environment variable that holds the app key (default `ALTBENCH_PROXY_APP_KEY`).
    package var appKeyEnv: String?
    package var protocolSettings = SignedProxyConventions.default

    package init() {}

    static let knownKeys = ["url", "app_key_env", "auth_path", "session_header", "timestamp_header", "signature_header"]
}

/// A run's signed proxy, resolved.
package struct ProxySettings: Sendable, Hashable {
    package static let defaultAppKeyVariable = "ALTBENCH_PROXY_APP_KEY"
    /// The proxy's base URL (no `/v1`): the token route and `/v1/chat/completions` hang off it.
    package var url: URL
    /// `nil` only when nothing is sent (`--offline`).
    package var appKey: Secret?
    package var appKeyVariable: String
    package var protocolSettings: SignedProxyConventions

    package init(url: URL, appKey: Secret?, appKeyVariable: String, protocolSettings: SignedProxyConventions = .default) {
        self.url = url
        self.appKey = appKey
        self.appKeyVariable = appKeyVariable
        self.protocolSettings = protocolSettings
    }

    /// `url` followed by a route such as `/v1/chat/completions`.
    package func url(for route: String) -> URL {
        URL(string: url.absoluteString.trimmingTrailingSlashes() + route)!
    }
}
