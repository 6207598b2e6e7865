import AltBenchCore
import AltBenchHTTP
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import ServiceLifecycle
import UnixSignals

/// The reference signed proxy (`altbench proxy`): it issues short-lived session tokens
/// against the team's app key, verifies each request's HMAC signature, timestamp and
/// freshness, and forwards what passes to the upstream API with the real key, which never
/// leaves it. docs/proxy.md has the protocol; ``ProxyHandler`` has the checks in order.
///
/// ```swift
/// let proxy = try await SignedProxy.start(configuration)
/// // clients use proxy.baseURL ("http://127.0.0.1:PORT")
/// await proxy.stop()
/// ```
package final class SignedProxy: Sendable {
    /// The bound TCP port.
    package let port: Int
    /// "http://HOST:PORT", without `/v1`.
    package let baseURL: String

    /// What the proxy remembers (sessions, replay memory, buckets), for tests.
    let state: ProxyState
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, host: String, state: ProxyState, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.baseURL = Self.baseURL(host: host, port: port)
        self.state = state
        self.group = group
        self.task = task
    }

    /// "http://HOST:PORT" (an IPv6 address in brackets).
    static func baseURL(host: String, port: Int) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// Starts a proxy and returns once it is listening.
    package static func start(_ configuration: ProxyConfiguration) async throws -> SignedProxy {
        try await start(configuration, stopsOnSignals: false)
    }

    /// Starts a proxy and returns once it is listening; with `stopsOnSignals`, SIGINT and
    /// SIGTERM stop it as ``stop()`` does (for the command line).
    package static func start(_ configuration: ProxyConfiguration, stopsOnSignals: Bool) async throws -> SignedProxy {
        if let problem = configuration.problem() { throw SignedProxyError.invalidConfiguration(problem) }
        var upstream = configuration.upstream.absoluteString
        while upstream.hasSuffix("/") { upstream.removeLast() }
        // One client for every upstream request. Redirects are not followed: the request carries
        // the upstream key, and a redirect must not carry it to another host.
        let client = HTTPClients.make(maxConnections: configuration.maxUpstreamConnections, followsRedirects: false)
        let settings = configuration.protocolSettings
        let state = ProxyState(configuration: configuration)
        let handler = ProxyHandler(
            configuration: configuration,
            routes: ProxyRoute.table(for: settings),
            state: state,
            images: GeneratedImages(capacity: configuration.generatedImageBytes),
            forwarder: UpstreamForwarder(
                client: client, base: upstream, key: configuration.upstreamKey, timeout: configuration.upstreamTimeout,
                maxResponseBytes: configuration.maxResponseBytes,
                forwardedHeaderNames: UpstreamForwarder.forwardedByDefault.union(configuration.forwardedHeaders.map { $0.lowercased() })),
            clients: ClientAddressResolver(trusted: configuration.trustedForwarders))

        let ready = ReadySignal()
        let responder = CallbackResponder<ProxyRequestContext> { request, context in
            await handler.respond(
                to: request, peerAddress: context.clientAddress, listeningPort: context.localPort ?? configuration.port,
                channel: context.channel)
        }
        let limits = ConnectionLimits(configuration)
        var app = Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(
                    base: HTTP1Channel(responder: responder, configuration: Self.http1Configuration), limits: limits)
            },
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxClientConnections)),
            onServerRunning: { channel in
                await ready.succeed(port: channel.localAddress?.port ?? configuration.port)
            }
        )
        // The proxy logs each request itself; Hummingbird's own messages (a cancelled
        // connection at shutdown) would only be noise on the same stream.
        app.logger.logLevel = .critical
        let group = ServiceGroup(
            configuration: .init(
                services: [app], gracefulShutdownSignals: stopsOnSignals ? [.sigterm, .sigint] : [], logger: app.logger))
        let task = Task<Void, any Error> {
            // The HTTP client outlives the server: requests in flight finish forwarding first.
            do {
                try await group.run()
                await ready.fail(SignedProxyError.stoppedBeforeListening)
            } catch {
                await ready.fail(error)
                try? await client.shutdown()
                throw error
            }
            try? await client.shutdown()
        }
        do {
            let port = try await ready.wait()
            return SignedProxy(port: port, host: configuration.host, state: state, group: group, task: task)
        } catch {
            task.cancel()
            _ = await task.result
            throw error
        }
    }

    /// Stops listening, finishes the requests in flight (each within the upstream timeout),
    /// then closes the upstream connections. Safe to call more than once.
    package func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Waits until the proxy has stopped (through ``stop()`` or, when started with
    /// `stopsOnSignals`, a signal).
    package func waitUntilStopped() async {
        _ = await task.result
    }

    /// HTTP/1.1 with a request head of at most 16 KiB (Hummingbird's default is 80 KiB): an
    /// unsigned client may make the proxy read a head, and a real one is under a kilobyte.
    static let http1Configuration = HTTP1Channel.Configuration(
        httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 16 * 1024, maxHeaderFieldCount: 100))
}

package enum SignedProxyError: Error, Sendable, CustomStringConvertible {
    /// The configuration cannot start a proxy; the text says why.
    case invalidConfiguration(String)
    /// The server finished before it was listening.
    case stoppedBeforeListening

    package var description: String {
        switch self {
        case .invalidConfiguration(let problem): "cannot start the proxy: \(problem)"
        case .stoppedBeforeListening: "the proxy stopped before it was listening"
        }
    }
}

/// The request context: Hummingbird's core plus the peer's address (the client's, or a
/// reverse proxy's), the port the request arrived on (with `--port 0`, the one picked), which
/// the proxy's own URL is made of, and the connection, told when a body is wanted.
struct ProxyRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's IP address without its port ("unknown" if the channel has none).
    let clientAddress: String
    /// The proxy's bound port, as the connection's local address says.
    let localPort: Int?
    /// The client connection (its ``ConnectionGuard`` reads a body only when asked).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.clientAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
        self.localPort = source.channel.localAddress?.port
        self.channel = source.channel
    }
}
