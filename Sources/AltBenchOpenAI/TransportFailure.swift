import AltBenchCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// Turns an error from AsyncHTTPClient or SwiftNIO (no HTTP answer at all) into a
/// `ModelFailure` whose message a user can act on: the server, the cause in a few words, and
/// what to check. No NIO type names, errno numbers or doubled parentheses reach the message.
///
/// A connection that could not be opened (refused, unknown host, connect timeout,
/// unreachable network, failed TLS handshake) is marked ``ModelFailure/cannotConnect``, which
/// the runner counts to stop a run whose server is not there:
/// "could not connect to 127.0.0.1:8099 (connection refused): is the server running, and is
/// --base-url right?". Anything else (a connection reset or closed midway) is a transport
/// failure of the request, retried by the runner.
package enum TransportFailure {
    /// Why a connection could not be opened.
    package enum ConnectCause: Sendable, Hashable {
        case refused
        case hostNotFound
        case timedOut
        case unreachable(String)
        case tls(String)
        case other(String)

        /// The cause in a few words, for the parentheses of the message.
        package var text: String {
            switch self {
            case .refused: return "connection refused"
            case .hostNotFound: return "host name not found"
            case .timedOut: return "connection timed out"
            case .unreachable(let what): return what
            case .tls(let detail): return detail.isEmpty ? "TLS handshake failed" : "TLS handshake failed: \(detail)"
            case .other(let detail): return detail
            }
        }

        /// What to check, as a question.
        package func advice(setting: String = "--base-url") -> String {
            switch self {
            case .refused, .other: return "is the server running, and is \(setting) right?"
            case .hostNotFound: return "is the host name in \(setting) right, and is the network up?"
            case .timedOut: return "is the server running and reachable from here, and is \(setting) right?"
            case .unreachable: return "is the network up, and is \(setting) right?"
            case .tls: return "does the server speak HTTPS with a certificate this machine trusts, or should \(setting) start with http://?"
            }
        }
    }

    /// What a transport error means: a connection that never opened, or a request that broke.
    package enum Problem: Sendable, Hashable {
        case cannotConnect(ConnectCause)
        /// The connection was open (or its state is unknown) and the request failed; the text
        /// is the cause in a few words.
        case broken(String)
    }

    /// The failure for `error`, thrown while sending to `endpoint`.
    /// `setting` names where the URL came from, in the advice ("is --base-url right?").
    package static func failure(
        for error: any Error, endpoint: URL, redactor: Redactor, setting: String = "--base-url"
    ) -> ModelFailure {
        switch classify(error) {
        case .cannotConnect(let cause):
            return ModelFailure(
                kind: .transport,
                message: redactor.redact(connectMessage(server: server(of: endpoint), cause: cause, setting: setting)),
                retryable: true, cannotConnect: true)
        case .broken(let cause):
            return ModelFailure(
                kind: .transport,
                message: redactor.redact("the request to \(endpoint.absoluteString) failed before an answer came (\(cause))."),
                retryable: true)
        }
    }

    /// The one sentence for a connection that could not be opened.
    package static func connectMessage(server: String, cause: ConnectCause, setting: String = "--base-url") -> String {
        "could not connect to \(server) (\(cause.text)): \(cause.advice(setting: setting))"
    }

    /// `host:port` of a URL, the port defaulted from the scheme, an IPv6 host in brackets.
    package static func server(of url: URL) -> String {
        var host = url.host ?? url.absoluteString
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return "\(host):\(port)"
    }

    /// What kind of problem `error` is, and its cause in a few words.
    package static func classify(_ error: any Error) -> Problem {
        if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil || connection.dnsAAAAError != nil {
                return .cannotConnect(.hostNotFound)
            }
            // One entry per address tried; the first names the cause well enough.
            if let first = connection.connectionErrors.first {
                if case .cannotConnect(let cause) = classify(first.error) { return .cannotConnect(cause) }
                return .cannotConnect(.other(describe(first.error)))
            }
            return .cannotConnect(.other("no address to connect to"))
        }
        if error is SocketAddressError.UnknownHost {
            return .cannotConnect(.hostNotFound)
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .connectTimeout: return .cannotConnect(.timedOut)
            case .tlsHandshakeTimeout: return .cannotConnect(.tls("timed out"))
            case .socksHandshakeTimeout, .httpProxyHandshakeTimeout: return .cannotConnect(.other("the proxy did not answer in time"))
            case .remoteConnectionClosed: return .broken("the server closed the connection")
            default: return .broken(client.shortDescription.lowercased())
            }
        }
        if let channel = error as? ChannelError, case .connectTimeout = channel {
            return .cannotConnect(.timedOut)
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: return .cannotConnect(.refused)
            case ENETUNREACH: return .cannotConnect(.unreachable("network unreachable"))
            case EHOSTUNREACH: return .cannotConnect(.unreachable("host unreachable"))
            case ETIMEDOUT: return .cannotConnect(.timedOut)
            default: return .broken(errnoText(io.errnoCode))
            }
        }
        if let tls = tlsHandshakeDetail(error) {
            return .cannotConnect(.tls(tls))
        }
        return .broken(describe(error))
    }

    /// `strerror` with a lowercase first letter: "connection reset by peer".
    static func errnoText(_ code: CInt) -> String {
        guard let text = strerror(code).map({ String(cString: $0) }), !text.isEmpty else { return "error \(code)" }
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    /// For a TLS handshake error from NIOSSL (a module altbench does not import), the reason
    /// BoringSSL gave, e.g. "wrong version number"; `nil` for any other error.
    static func tlsHandshakeDetail(_ error: any Error) -> String? {
        let type = String(reflecting: Swift.type(of: error))
        guard type.hasPrefix("NIOSSL.") else { return nil }
        let text = String(describing: error)
        // `uncleanShutdown` and friends come after the handshake, from an open connection.
        let handshake = type.hasSuffix("NIOSSLExtraError") || text.hasPrefix("handshakeFailed") || type.hasSuffix("BoringSSLError")
        guard handshake else { return nil }
        // BoringSSL reasons are upper-case words at the end: "...:WRONG_VERSION_NUMBER".
        if let range = text.range(of: "[A-Z][A-Z0-9]*(_[A-Z0-9]+)+", options: [.regularExpression, .backwards]) {
            return text[range].replacingOccurrences(of: "_", with: " ").lowercased()
        }
        if text.contains("EOF during handshake") { return "the server closed the connection" }
        return ""
    }

    /// Any other error as one short line: errno numbers and unbalanced parentheses removed.
    static func describe(_ error: any Error) -> String {
        if let io = error as? IOError { return errnoText(io.errnoCode) }
        return tidy(String(describing: error))
    }

    /// One line, at most 200 characters, without `(errno: N)` or a `)` that closes nothing.
    package static func tidy(_ text: String) -> String {
        let stripped = text.replacingOccurrences(of: "\\s*\\(errno: -?[0-9]+\\)", with: "", options: .regularExpression)
        var depth = 0
        var balanced = ""
        for character in stripped {
            if character == "(" {
                depth += 1
            } else if character == ")" {
                guard depth > 0 else { continue }
                depth -= 1
            }
            balanced.append(character)
        }
        let line = balanced.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return line.count > 200 ? String(line.prefix(200)) + "…" : line
    }
}
