// `altbench-bench proxy-abuse`: the signed proxy under hostile load, on 127.0.0.1 only and
// bounded in count and time (about a minute and a half).
//
// The proxy runs in a child process (ProxyLoad.swift), so its resident memory and the bytes it
// reads are its own, with the default limits and 127.0.0.1 trusted as a reverse proxy: each
// client below names its address in X-Forwarded-For, as behind the TLS front the docs require.
//
// 1. Idle: an honest session sends 10 requests a second for 20 s; its p99 latency is the base.
// 2. Loaded: the same session goes on while one client floods 20,000 token requests (signed
//    with the app key, which ships in apps; four addresses), 2,500 replays of one of its own
//    requests and 2,500 unsigned requests, and holds 500 slow connections that send one header
//    byte a second (each reconnects when it is cut off). Targets: the honest session ≥ 99%
//    answered, its p99 ≤ 2× the idle p99; the proxy's peak RSS ≤ 150 MB.
// 3. Unauthenticated bytes: 1,000 requests that never pass a signature, each on a connection
//    of its own and each sending far more than it should (a 32 MiB /auth_token body, an 8 MiB
//    unsigned body, a forged token request, a body for a session that does not exist). The
//    proxy's `rchar` (/proc/PID/io: every byte its read calls returned) over the requests.
//    Target ≤ 2 KiB a request.
import AltBenchCore
import AltBenchTesting
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the abuse benchmark and prints its figures with the targets beside them.
func proxyAbuseBenchmark() async throws {
    print("altbench-bench \(AltBenchVersion.current): proxy-abuse (127.0.0.1 only)\n")
    let upstream = try await OpenAITestServer.start(recordsBodies: false, handler: OpenAITestServer.fixedCompletion())
    let proxy = try ProxyProcess(upstream: upstream.baseURL, extraArguments: [ProxyProcess.abuseFlag])
    let port = proxy.url.port ?? 0
    let honestClient = HTTPClient(eventLoopGroupProvider: .singleton)
    var floodConfiguration = HTTPClient.Configuration()
    floodConfiguration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 8
    let floodClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: floodConfiguration)
    let base = proxy.url.absoluteString
    defer { proxy.stop() }

    do {
        let honest = try await AbuseClient.session(client: honestClient, base: base, address: "198.51.100.7")

        // 1. Idle.
        let idle = try await HonestLoad.run(client: honestClient, base: base, session: honest, label: "i", until: { $0 >= 200 })
        print(String(format: "idle:   %d honest requests at 10/s: %.1f%% answered, p50 %.1f ms, p99 %.1f ms", idle.count, idle.successPercent, idle.p50, idle.p99))

        // 2. Loaded.
        let memory = MemorySampler(pid: proxy.process.processIdentifier)
        let slow = SlowClients(port: port, count: 500)
        slow.start()
        let floodsDone = SharedFlag()
        let floods = Task {
            defer { floodsDone.set() }
            return try await AbuseClient.flood(client: floodClient, base: base)
        }
        let loaded = try await HonestLoad.run(client: honestClient, base: base, session: honest, label: "l", until: { _ in floodsDone.isSet })
        let flooded = try await floods.value
        let slowFigures = await slow.stop()
        let peak = memory.stop()
        let ratio = loaded.p99 / max(idle.p99, 0.001)
        print(
            "loaded: \(flooded.tokens.total) token requests (\(flooded.tokens.summary)), \(flooded.replays.total) replays (\(flooded.replays.summary)), \(flooded.unsigned.total) unsigned (\(flooded.unsigned.summary)), 500 slow connections held (\(slowFigures.cutOff) cut off at the header deadline, after \(String(format: "%.1f", slowFigures.meanLife)) s on average)"
        )
        print(
            String(
                format: "honest under load: %d requests at 10/s: %.1f%% answered (target ≥ 99%%: %@), p50 %.1f ms, p99 %.1f ms = %.2f× idle (target ≤ 2×: %@)",
                loaded.count, loaded.successPercent, loaded.successPercent >= 99 ? "met" : "MISSED", loaded.p50, loaded.p99, ratio,
                ratio <= 2 ? "met" : "MISSED"))
        print(String(format: "proxy RSS: peak %.0f MB (target ≤ 150 MB: %@)", peak, peak <= 150 ? "met" : "MISSED"))

        // 3. Unauthenticated bytes read.
        var total = 0.0
        var count = 0
        var most = 0.0
        var parts: [String] = []
        for kind in UnauthenticatedKind.allCases {
            let before = readCharacters(pid: proxy.process.processIdentifier)
            let sent = await kind.send(count: 250, port: port)
            // The proxy closed every connection, so it has read all it will.
            let after = readCharacters(pid: proxy.process.processIdentifier)
            guard let before, let after else { continue }
            let per = Double(after - before) / Double(sent)
            total += Double(after - before)
            most = max(most, per)
            count += sent
            parts.append(String(format: "%@ %.0f", kind.label, per))
        }
        if count > 0 {
            let per = total / Double(count)
            print(
                String(
                    format: "unauthenticated bytes read per request: %.0f on average, %.0f for the costliest kind (target ≤ 2,048 for every kind: %@); %@",
                    per, most, most <= 2048 ? "met" : "MISSED", parts.joined(separator: ", ")))
        } else {
            print("unauthenticated bytes read per request: not measured (no /proc/PID/io)")
        }
    } catch {
        try? await honestClient.shutdown()
        try? await floodClient.shutdown()
        await upstream.stop()
        throw error
    }
    try await honestClient.shutdown()
    try await floodClient.shutdown()
    await upstream.stop()
}

/// A flag one task sets and another reads.
final class SharedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// `rchar` of process `pid`: the bytes its read calls have returned (Linux).
func readCharacters(pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return nil }
    let line = text.split(separator: "\n").first { $0.hasPrefix("rchar:") }
    return line.flatMap { Int($0.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) }
}

/// Samples a process's resident memory every half second and keeps the peak (MB).
final class MemorySampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0.0
    private var running = true
    private let pid: Int32

    init(pid: Int32) {
        self.pid = pid
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let now = Self.residentMB(pid: pid)
                lock.withLock { peak = max(peak, now) }
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
    }

    /// Stops sampling; the peak, including the kernel's own high-water mark (VmHWM).
    func stop() -> Double {
        lock.withLock { running = false }
        return max(lock.withLock { peak }, Self.field("VmHWM", pid: pid))
    }

    static func residentMB(pid: Int32) -> Double { field("VmRSS", pid: pid) }

    /// A `kB` field of /proc/PID/status in MB.
    static func field(_ name: String, pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }
}

/// What one kind of flood got back: how many of each status.
struct StatusCounts: Sendable {
    var counts: [Int: Int] = [:]
    var total: Int { counts.values.reduce(0, +) }
    var summary: String {
        counts.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key == 0 ? "failed" : String($0.key))" }.joined(separator: ", ")
    }
    mutating func add(_ status: Int) { counts[status, default: 0] += 1 }
}

/// Requests signed like a client that holds the app key.
enum AbuseClient {
    struct Session: Sendable {
        var id: String
        var token: String
        var address: String
    }

    struct FloodFigures: Sendable {
        var tokens = StatusCounts()
        var replays = StatusCounts()
        var unsigned = StatusCounts()
    }

    static func timestamp() -> String { String(Int64(Date().timeIntervalSince1970)) }

    /// A token request from `address`, signed with the app key.
    static func tokenRequest(base: String, address: String) -> HTTPClientRequest {
        let body = Data("{\"nonce\":\"\(RequestSigning.nonce())\"}".utf8)
        let timestamp = timestamp()
        let signature = RequestSigning.signature(key: ProxyProcess.appKey, method: "POST", path: "/auth_token", timestamp: timestamp, body: body)
        return post(
            base + "/auth_token", body: body,
            headers: [("content-type", "application/json"), ("x-timestamp", timestamp), ("x-signature", signature), ("x-forwarded-for", address)])
    }

    /// A chat request signed with `session`'s token.
    static func chatRequest(base: String, session: Session, text: String) -> HTTPClientRequest {
        let body = Data(
            "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"\(text)\"}],\"max_tokens\":50}".utf8)
        let timestamp = timestamp()
        let signature = RequestSigning.signature(
            key: session.token, method: "POST", path: "/v1/chat/completions", timestamp: timestamp, body: body)
        return post(
            base + "/v1/chat/completions", body: body,
            headers: [
                ("content-type", "application/json"), ("x-session-id", session.id), ("x-timestamp", timestamp), ("x-signature", signature),
                ("x-forwarded-for", session.address),
            ])
    }

    static func post(_ url: String, body: Data, headers: [(String, String)]) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(data: body))
        return request
    }

    /// Sends `request`; its status, or 0 when it failed.
    static func send(_ request: HTTPClientRequest, client: HTTPClient) async -> (status: Int, body: ByteBuffer?) {
        do {
            let response = try await client.execute(request, timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), body)
        } catch {
            return (0, nil)
        }
    }

    static func session(client: HTTPClient, base: String, address: String) async throws -> Session {
        let (status, body) = await send(tokenRequest(base: base, address: address), client: client)
        guard status == 200, let body,
            let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
            let id = object["session_id"] as? String, let token = object["token"] as? String
        else { throw ProxyProcessError(message: "the proxy refused a token request (HTTP \(status))") }
        return Session(id: id, token: token, address: address)
    }

    /// 20,000 token requests from four addresses at about 700 a second, and 5,000 replayed or
    /// unsigned requests at about 175 a second, each flood eight requests at a time at most.
    static func flood(client: HTTPClient, base: String) async throws -> FloodFigures {
        let attacker = try await session(client: client, base: base, address: "203.0.113.50")
        let captured = chatRequest(base: base, session: attacker, text: "the attacker's own request")
        _ = await send(captured, client: client)
        async let tokens = paced(count: 20_000, perSecond: 700, inFlight: 8) { index in
            await send(tokenRequest(base: base, address: "203.0.113.\(index % 4 + 1)"), client: client).status
        }
        async let others = paced(count: 5_000, perSecond: 175, inFlight: 8) { index in
            if index % 2 == 0 { return await send(captured, client: client).status }
            return await send(
                post(
                    base + "/v1/chat/completions", body: Data("{\"model\":\"gpt-4o-mini\",\"messages\":[]}".utf8),
                    headers: [("content-type", "application/json"), ("x-forwarded-for", attacker.address)]), client: client
            ).status
        }
        var figures = FloodFigures()
        for status in await tokens { figures.tokens.add(status) }
        for (index, status) in await others.enumerated() {
            if index % 2 == 0 { figures.replays.add(status) } else { figures.unsigned.add(status) }
        }
        return figures
    }

    /// Runs `body(index)` `count` times, started at `perSecond` and at most `inFlight` at once;
    /// the results in index order.
    static func paced(count: Int, perSecond: Double, inFlight: Int, _ body: @escaping @Sendable (Int) async -> Int) async -> [Int] {
        let start = ContinuousClock.now
        var results = [Int](repeating: 0, count: count)
        await withTaskGroup(of: (Int, Int).self) { group in
            var next = 0
            var running = 0
            while next < count || running > 0 {
                if next < count, running < inFlight {
                    let due = start + .milliseconds(Int(Double(next) / perSecond * 1000))
                    if due > .now { try? await Task.sleep(until: due) }
                    let index = next
                    group.addTask { (index, await body(index)) }
                    next += 1
                    running += 1
                    continue
                }
                if let (index, status) = await group.next() {
                    results[index] = status
                    running -= 1
                }
            }
        }
        return results
    }
}

/// The honest session: 10 requests a second, each timed.
struct HonestLoad {
    var latencies: [Double] = []
    var successes = 0
    var count: Int { latencies.count }
    var successPercent: Double { count == 0 ? 0 : Double(successes) / Double(count) * 100 }
    var p50: Double { percentile(0.50) }
    var p99: Double { percentile(0.99) }

    func percentile(_ fraction: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    /// Sends a request every 100 ms (each in its own task, so a slow answer does not delay the
    /// next) until `until(sent)` is true, then waits for the answers.
    static func run(
        client: HTTPClient, base: String, session: AbuseClient.Session, label: String, until: (Int) -> Bool
    ) async throws -> HonestLoad {
        let start = ContinuousClock.now
        var load = HonestLoad()
        await withTaskGroup(of: (Double, Bool).self) { group in
            var sent = 0
            while !until(sent), sent < 3000 {
                try? await Task.sleep(until: start + .milliseconds(100 * sent))
                let request = AbuseClient.chatRequest(base: base, session: session, text: "honest \(label)\(sent)")
                group.addTask {
                    let began = ContinuousClock.now
                    let status = await AbuseClient.send(request, client: client).status
                    let elapsed = ContinuousClock.now - began
                    return (Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000, status == 200)
                }
                sent += 1
            }
            for await (latency, success) in group {
                load.latencies.append(latency)
                if success { load.successes += 1 }
            }
        }
        return load
    }
}

/// Connections that send their head one byte a second, and reconnect when they are cut off.
final class SlowClients: @unchecked Sendable {
    let port: Int
    let count: Int
    private let lock = NSLock()
    private var stopped = false
    private var lives: [Double] = []
    private var tasks: [Task<Void, Never>] = []

    init(port: Int, count: Int) {
        self.port = port
        self.count = count
    }

    func start() {
        let tasks = (0..<count).map { index in
            Task { [self] in
                // Spread the connections over the first second.
                try? await Task.sleep(for: .milliseconds(index * 2))
                while !lock.withLock({ stopped }) {
                    let began = ContinuousClock.now
                    await holdOne()
                    let life = ContinuousClock.now - began
                    let seconds = Double(life.components.seconds) + Double(life.components.attoseconds) / 1e18
                    if !lock.withLock({ stopped }) { lock.withLock { lives.append(seconds) } }
                }
            }
        }
        lock.withLock { self.tasks = tasks }
    }

    /// One connection, held until the proxy closes it or the benchmark stops.
    private func holdOne() async {
        let closed = ClosedFlag()
        guard let channel = await rawConnection(port: port, closed: closed) else {
            try? await Task.sleep(for: .milliseconds(100))
            return
        }
        let head = Array("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: \(String(repeating: "a", count: 200))".utf8)
        var index = 0
        while !closed.isSet, !lock.withLock({ stopped }) {
            channel.writeAndFlush(ByteBuffer(bytes: [head[index % head.count]]), promise: nil)
            index += 1
            try? await Task.sleep(for: .seconds(1))
        }
        try? await channel.close()
    }

    /// Stops every connection: how many the proxy cut off, and their mean life in seconds.
    func stop() async -> (cutOff: Int, meanLife: Double) {
        let tasks = lock.withLock {
            stopped = true
            return self.tasks
        }
        for task in tasks { await task.value }
        let lives = lock.withLock { self.lives }
        return (lives.count, lives.isEmpty ? 0 : lives.reduce(0, +) / Double(lives.count))
    }
}

/// Set when the proxy closes the connection; discards what it sends.
final class ClosedFlag: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    private let lock = NSLock()
    private var closed = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    var isSet: Bool { lock.withLock { closed } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelInactive(context: ChannelHandlerContext) {
        let waiting = lock.withLock {
            closed = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Returns once the connection has closed.
    func wait() async {
        await withCheckedContinuation { continuation in
            let already = lock.withLock {
                if closed { return true }
                waiters.append(continuation)
                return false
            }
            if already { continuation.resume() }
        }
    }
}

/// Requests that never pass a signature, each sending more than it should.
enum UnauthenticatedKind: CaseIterable {
    /// `/auth_token` declaring 32 MiB, with a forged signature, 64 KiB of it sent at once.
    case bigTokenBody
    /// A chat request with no signing headers declaring 8 MiB, 64 KiB sent at once.
    case unsignedBody
    /// A token request of the real size with a forged signature.
    case forgedToken
    /// A chat request for a session that does not exist, declaring 1 MiB, 64 KiB sent at once.
    case unknownSession

    var label: String {
        switch self {
        case .bigTokenBody: "32 MiB /auth_token"
        case .unsignedBody: "8 MiB unsigned chat"
        case .forgedToken: "forged token request"
        case .unknownSession: "unknown session"
        }
    }

    func bytes() -> [UInt8] {
        let timestamp = AbuseClient.timestamp()
        let forged = String(repeating: "0", count: 64)
        let blast = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        switch self {
        case .bigTokenBody:
            return Array(
                "POST /auth_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Timestamp: \(timestamp)\r\nX-Signature: \(forged)\r\nContent-Length: \(32 << 20)\r\n\r\n"
                    .utf8) + blast
        case .unsignedBody:
            return Array(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(8 << 20)\r\n\r\n".utf8)
                + blast
        case .forgedToken:
            let body = "{\"nonce\":\"\(RequestSigning.nonce())\"}"
            return Array(
                "POST /auth_token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Timestamp: \(timestamp)\r\nX-Signature: \(forged)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    .utf8)
        case .unknownSession:
            return Array(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Session-Id: sess_\(String(repeating: "0", count: 24))\r\nX-Timestamp: \(timestamp)\r\nX-Signature: \(forged)\r\nContent-Length: \(1 << 20)\r\n\r\n"
                    .utf8) + blast
        }
    }

    /// Sends `count` of them, 16 connections at a time, each until the proxy closes it; how
    /// many were sent.
    func send(count: Int, port: Int) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            var started = 0
            var finished = 0
            var sent = 0
            while finished < count {
                if started < count, started - finished < 16 {
                    let bytes = self.bytes()
                    group.addTask { await Self.sendOne(bytes, port: port) }
                    started += 1
                    continue
                }
                if let ok = await group.next() {
                    finished += 1
                    if ok { sent += 1 }
                }
            }
            return sent
        }
    }

    private static func sendOne(_ bytes: [UInt8], port: Int) async -> Bool {
        let closed = ClosedFlag()
        guard let channel = await rawConnection(port: port, closed: closed) else { return false }
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
        // The proxy answers and closes; a client that never hears back gives up after a minute.
        let gaveUp = Task {
            try? await Task.sleep(for: .seconds(60))
            try? await channel.close()
        }
        await closed.wait()
        gaveUp.cancel()
        return true
    }
}

/// A raw TCP connection to the proxy on 127.0.0.1 whose closing `closed` records; nil when it
/// could not connect.
func rawConnection(port: Int, closed: ClosedFlag) async -> (any Channel)? {
    try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .channelInitializer({ channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(closed) }
        })
        .connect(host: "127.0.0.1", port: port).get()
}
