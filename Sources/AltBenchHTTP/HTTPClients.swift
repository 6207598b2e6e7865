import AsyncHTTPClient
import NIOCore

/// The HTTP client altbench opens, for the model client and for the signed proxy's upstream
/// calls alike: one rule for connection pools, connect timeouts and redirects.
package enum HTTPClients {
    /// A client whose pool opens up to `maxConnections` connections per host (at least 8,
    /// AsyncHTTPClient's default, which would otherwise quietly cap a run's `--concurrency`),
    /// gives up connecting after `connectTimeout`, and fails a refused connection at once, so
    /// that the caller's retry policy decides what next instead of the pool retrying until the
    /// request's timeout. Without `followsRedirects` a redirect is answered as it is: a request
    /// carrying a key must not be carried to another host. The caller shuts it down.
    package static func make(
        maxConnections: Int = 8, connectTimeout: Duration = .seconds(10), followsRedirects: Bool = true
    ) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(8, maxConnections)
        configuration.timeout.connect = .nanoseconds(
            connectTimeout.components.seconds * 1_000_000_000 + connectTimeout.components.attoseconds / 1_000_000_000)
        if !followsRedirects { configuration.redirectConfiguration = .disallow }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}

/// Reading a response body with a deadline (the client's and the signed proxy's).
package enum ResponseReading {
    /// Reads a whole body of at most `limit` bytes, giving up at `deadline`: AsyncHTTPClient's
    /// own deadline ends once the head has arrived, so without this a stalled body would wait
    /// forever.
    package static func collect(
        _ body: HTTPClientResponse.Body, limit: Int, until deadline: ContinuousClock.Instant
    ) async throws -> ByteBuffer {
        try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: limit) }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            guard case .some(.some(let buffer)) = try await group.next() else {
                throw HTTPClientError.deadlineExceeded
            }
            return buffer
        }
    }
}
