import AltBenchCore
import AltBenchProxy
import AltBenchTesting
import Foundation
import NIOCore
import NIOPosix
import Testing

/// A proxy in-process with an `OpenAITestServer` as its upstream, a clock the test sets, and
/// the log captured.
final class ProxyHarness: Sendable {
    static let upstreamKey = "sk" + "-proxy-UPSTREAM-0123456789abcdefABCDEF"
    static let appKey = "altbench-app-key-0001-test"
    /// The proxy's clock starts here (the reference's test-vector time).
    static let start: Int64 = 1_764_000_000

    let upstream: OpenAITestServer
    let proxy: SignedProxy
    let clock: TestClock
    let logs: LogCapture

    private init(upstream: OpenAITestServer, proxy: SignedProxy, clock: TestClock, logs: LogCapture) {
        self.upstream = upstream
        self.proxy = proxy
        self.clock = clock
        self.logs = logs
    }

    /// Starts an upstream answering with a short completion, and the proxy, configured by
    /// `configure`.
    static func start(_ configure: (inout ProxyConfiguration) -> Void = { _ in }) async throws -> ProxyHarness {
        try await start(upstreamHandler: { _ in .chatCompletion(content: "A cat on a sofa.") }, configure)
    }

    /// Starts the upstream (answering with `upstreamHandler`) and the proxy, configured by
    /// `configure`.
    static func start(
        upstreamHandler: @escaping OpenAITestServer.Handler, _ configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> ProxyHarness {
        let upstream = try await OpenAITestServer.start(handler: upstreamHandler)
        let clock = TestClock(Double(start))
        let logs = LogCapture()
        var configuration = ProxyConfiguration(
            upstream: URL(string: upstream.baseURL)!, upstreamKey: Secret(upstreamKey), appKey: Secret(appKey))
        configuration.port = 0
        configuration.now = { clock.now }
        configuration.log = { logs.append($0) }
        configure(&configuration)
        do {
            let proxy = try await SignedProxy.start(configuration)
            return ProxyHarness(upstream: upstream, proxy: proxy, clock: clock, logs: logs)
        } catch {
            await upstream.stop()
            throw error
        }
    }

    func stop() async {
        await proxy.stop()
        await upstream.stop()
    }

    /// Sends exact bytes to the proxy.
    func send(_ bytes: [UInt8]) async throws -> RawResponse {
        try await RawHTTP.send(bytes, port: proxy.port)
    }

    func send(_ request: RawRequest) async throws -> RawResponse {
        try await send(request.bytes())
    }

    /// The requests the upstream received.
    func upstreamCount() async -> Int {
        await upstream.requests().count
    }

    /// The proxy's clock as a timestamp header value.
    var timestamp: String { String(Int64(clock.now.rounded(.down))) }

    // MARK: Signing like a client

    /// A token request signed with the app key.
    func tokenRequest(nonce: String = RequestSigning.nonce(), timestamp: String? = nil, key: String = appKey) -> RawRequest {
        let body = Data("{\"nonce\":\"\(nonce)\"}".utf8)
        let timestamp = timestamp ?? self.timestamp
        let signature = RequestSigning.signature(key: key, method: "POST", path: "/auth_token", timestamp: timestamp, body: body)
        return RawRequest(
            method: "POST", target: "/auth_token",
            headers: [("content-type", "application/json"), ("x-timestamp", timestamp), ("x-signature", signature)], body: body)
    }

    /// A fresh session from `/auth_token`.
    func session() async throws -> TestSession {
        let response = try await send(tokenRequest())
        #expect(response.status == 200, "token request: \(response.bodyText)")
        let object = try response.jsonObject()
        return TestSession(id: try #require(object["session_id"] as? String), token: try #require(object["token"] as? String))
    }

    /// A chat request signed with `session`'s token over exactly these method, target,
    /// timestamp and body.
    func chat(
        _ session: TestSession, body: Data = ProxyHarness.chatBody(), method: String = "POST",
        target: String = "/v1/chat/completions", timestamp: String? = nil
    ) -> RawRequest {
        let timestamp = timestamp ?? self.timestamp
        let signature = RequestSigning.signature(key: session.token, method: method, path: target, timestamp: timestamp, body: body)
        return RawRequest(
            method: method, target: target,
            headers: [
                ("content-type", "application/json"), ("x-session-id", session.id), ("x-timestamp", timestamp),
                ("x-signature", signature),
            ],
            body: body)
    }

    /// A request to any signed route (`/v1/images/generations`, `/dalle`, …), signed with
    /// `session`'s token like ``chat(_:body:method:target:timestamp:)``.
    func signed(_ session: TestSession, target: String, body: Data, timestamp: String? = nil) -> RawRequest {
        chat(session, body: body, target: target, timestamp: timestamp)
    }

    /// An unsigned `GET` (`/generated/…`, `/healthz`).
    func get(_ target: String) async throws -> RawResponse {
        try await send(RawRequest(method: "GET", target: target, headers: [], body: Data()))
    }

    /// A small chat body; `text` keeps two requests' signatures apart on a clock that stands still.
    static func chatBody(_ text: String = "Describe this image.", model: String = "gpt-4o-mini") -> Data {
        Data("{\"model\":\"\(model)\",\"messages\":[{\"role\":\"user\",\"content\":\"\(text)\"}],\"max_tokens\":50}".utf8)
    }

    /// Every secret a response or log line must never carry.
    func secrets(_ sessions: [TestSession] = [], signatures: [String] = []) -> [String] {
        [Self.upstreamKey, Self.appKey] + sessions.map(\.token) + signatures
    }
}

struct TestSession: Sendable {
    let id: String
    let token: String
}

/// A clock the test moves.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double
    init(_ value: Double) { self.value = value }
    var now: Double { lock.withLock { value } }
    func advance(by seconds: Double) { lock.withLock { value += seconds } }
}

/// The proxy's log lines.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
    var last: String? { all.last }
}

/// An HTTP/1.1 request written byte for byte: the target and headers go on the wire exactly
/// as given. `Host` and `Connection: close` are added first, then `Content-Length` (unless
/// `chunked` or `contentLength` says otherwise).
struct RawRequest: Sendable {
    var method: String
    var target: String
    var headers: [(String, String)]
    var body: Data
    /// Sends the body in chunks of this size with `Transfer-Encoding: chunked`.
    var chunked: Int? = nil
    /// The `Content-Length` to declare; nil declares the body's length.
    var contentLength: Int? = nil

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Replaces the value of every header named `name` (any case), or adds it.
    func setting(_ name: String, _ value: String) -> RawRequest {
        var copy = self
        if copy.headers.contains(where: { $0.0.lowercased() == name.lowercased() }) {
            copy.headers = copy.headers.map { $0.0.lowercased() == name.lowercased() ? ($0.0, value) : $0 }
        } else {
            copy.headers.append((name, value))
        }
        return copy
    }

    func removing(_ name: String) -> RawRequest {
        var copy = self
        copy.headers.removeAll { $0.0.lowercased() == name.lowercased() }
        return copy
    }

    func adding(_ name: String, _ value: String) -> RawRequest {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    func bytes() -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        var out: [UInt8]
        if let chunked {
            head += "Transfer-Encoding: chunked\r\n\r\n"
            out = Array(head.utf8)
            var index = body.startIndex
            while index < body.endIndex {
                let end = min(index + chunked, body.endIndex)
                out += Array(String(end - index, radix: 16).utf8) + Array("\r\n".utf8) + Array(body[index..<end]) + Array("\r\n".utf8)
                index = end
            }
            out += Array("0\r\n\r\n".utf8)
        } else {
            head += "Content-Length: \(contentLength ?? body.count)\r\n\r\n"
            out = Array(head.utf8) + Array(body)
        }
        return out
    }
}

/// What came back: status, headers and body (de-chunked).
struct RawResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: Data
    /// Everything received, head included, as text (for leak checks).
    var raw: String

    var bodyText: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    func jsonObject() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "not a JSON object: \(bodyText)")
    }

    /// `error.code` of an OpenAI-shaped error body.
    var errorCode: String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return nil }
        return error["code"] as? String
    }

    var error: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] as? [String: Any]
    }
}

enum RawHTTPError: Error {
    case noStatusLine(String)
    case timedOut
}

/// A tiny HTTP/1.1 client over a TCP socket: writes exact bytes, reads one response (to its
/// declared end, or until the server closes the connection), and gives up after 20 s.
enum RawHTTP {
    static func send(_ bytes: [UInt8], port: Int) async throws -> RawResponse {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let received: [UInt8] = try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(bytes: bytes))
            return try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
                group.addTask {
                    var received: [UInt8] = []
                    do {
                        for try await chunk in inbound {
                            received += Array(chunk.readableBytesView)
                            if isComplete(received) { break }
                        }
                    } catch {
                        // A reset after the answer arrived still leaves the answer.
                        if received.isEmpty { throw error }
                    }
                    return received
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(20))
                    return nil
                }
                defer { group.cancelAll() }
                guard case .some(.some(let received)) = try await group.next() else { throw RawHTTPError.timedOut }
                return received
            }
        }
        return try parse(received)
    }

    /// Whether `bytes` hold a whole response: its head, and the body its length or chunking
    /// declares.
    static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let response = try? parse(bytes), let headEnd = headEnd(bytes) else { return false }
        if response.header("transfer-encoding")?.lowercased() == "chunked" {
            return bytes.count >= 5 && bytes.suffix(5).elementsEqual(Array("0\r\n\r\n".utf8))
        }
        guard let length = response.header("content-length").flatMap(Int.init) else { return false }
        return bytes.count - (headEnd + 4) >= length
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        let separator = Array("\r\n\r\n".utf8)
        return (0..<max(0, bytes.count - 3)).first { bytes[$0..<($0 + 4)].elementsEqual(separator) }
    }

    static func parse(_ bytes: [UInt8]) throws -> RawResponse {
        let raw = String(decoding: bytes, as: UTF8.self)
        guard let headEnd = headEnd(bytes) else { throw RawHTTPError.noStatusLine(raw) }
        let lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw RawHTTPError.noStatusLine(raw) }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[(headEnd + 4)...])
        let response = RawResponse(status: status, headers: headers, body: Data(), raw: raw)
        if response.header("transfer-encoding")?.lowercased() == "chunked" {
            body = dechunk(body)
        } else if let length = response.header("content-length").flatMap(Int.init) {
            body = Array(body.prefix(length))
        }
        return RawResponse(status: status, headers: headers, body: Data(body), raw: raw)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<max(index, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                let size = Int(String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16), size > 0
            else { break }
            let start = lineEnd + 2
            out += bytes[start..<min(bytes.count, start + size)]
            index = start + size + 2
        }
        return out
    }
}
