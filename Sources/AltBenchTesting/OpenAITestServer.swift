import AltBenchCore
import Foundation
import Hummingbird
import ServiceLifecycle

/// A real HTTP server on 127.0.0.1 that answers like an OpenAI-compatible API, for testing
/// altbench's HTTP client end to end. Every request is recorded; each answer comes from a
/// handler (the strict `compatible()` handler by default, or a `ResponseScript`).
///
/// ```swift
/// let server = try await OpenAITestServer.start()
/// // point the client at server.baseURL ("http://127.0.0.1:PORT/v1")
/// let requests = await server.requests()
/// await server.stop()
/// ```
package final class OpenAITestServer: Sendable {
    package typealias Handler = @Sendable (RecordedRequest) async -> ScriptedResponse

    /// The bound TCP port.
    package let port: Int
    /// "http://127.0.0.1:PORT/v1"
    package let baseURL: String

    private let log: RequestLog
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Largest request body accepted (OpenAI's limit is 50 MB per request).
    package static let maxBodySize = 64 * 1024 * 1024

    /// The `created` timestamp in generated completions (fixed, so answers are deterministic).
    package static let fixedCreated = 1_700_000_000

    private init(port: Int, log: RequestLog, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.baseURL = "http://127.0.0.1:\(port)/v1"
        self.log = log
        self.group = group
        self.task = task
    }

    /// Starts a server on 127.0.0.1 and returns once it is listening.
    /// - Parameters:
    ///   - port: TCP port; 0 (the default) picks a free ephemeral port.
    ///   - recordsBodies: whether `requests()` keeps each body; a load benchmark sending
    ///     thousands of 200 KB bodies turns it off so its memory figure is the client's. The
    ///     handler sees every body either way.
    ///   - handler: produces the answer to each request.
    ///   - batches: a simulated Batch API (see ``BatchSimulator``): it answers the files and
    ///     batches paths of its flavour (`/v1/files…`, `/v1/batches…`, or Azure's
    ///     `/openai/v1/…`), and `handler` answers each line of a batch; without it those paths
    ///     reach `handler` like any other.
    package static func start(
        port: Int = 0,
        recordsBodies: Bool = true,
        handler: @escaping Handler = OpenAITestServer.compatible(),
        batches: BatchSimulator? = nil
    ) async throws -> OpenAITestServer {
        let log = RequestLog()
        let ready = ReadySignal()
        let boundPort = BoundPort()
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            await respond(
                to: request, port: boundPort.value, log: log, recordsBodies: recordsBodies, handler: handler, batches: batches)
        }
        var app = Application(
            responder: responder,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                let listening = channel.localAddress?.port ?? port
                boundPort.value = listening
                await ready.succeed(port: listening)
            }
        )
        // stop() may cancel the server, which Hummingbird reports at error level; keep tests quiet.
        app.logger.logLevel = .critical
        // The server runs in a service group so that stop() can shut it down gracefully.
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [], logger: app.logger))
        let task = Task<Void, any Error> {
            do {
                try await group.run()
                await ready.fail(OpenAITestServerError.stoppedBeforeListening)
            } catch {
                await ready.fail(error)
                throw error
            }
        }
        do {
            let boundPort = try await ready.wait()
            return OpenAITestServer(port: boundPort, log: log, group: group, task: task)
        } catch {
            task.cancel()
            _ = await task.result
            throw error
        }
    }

    /// Every request received so far, in arrival order.
    package func requests() async -> [RecordedRequest] {
        await log.all()
    }

    /// Requests to one path, e.g. "/v1/chat/completions".
    package func requests(path: String) async -> [RecordedRequest] {
        await log.all().filter { $0.path == path }
    }

    /// Forgets the recorded requests (numbering continues).
    package func clearRequests() async {
        await log.clear()
    }

    /// Closes the listening socket and every connection, abandoning answers still being
    /// delayed. Safe to call more than once.
    ///
    /// A graceful shutdown first: it closes the listener and hands every connection already
    /// accepted to the server, which closes it. Cancelling the server at once could drop a
    /// connection accepted in that instant unserved, which NIO traps on (apple/swift-nio#2813).
    /// Answers still delayed after `grace` are then abandoned by cancelling the server.
    package func stop(grace: Duration = .milliseconds(500)) async {
        await group.triggerGracefulShutdown()
        let task = self.task
        let stopped = Task {
            try? await Task.sleep(for: grace)
            task.cancel()
        }
        _ = await task.result
        stopped.cancel()
    }

    /// Waits until the server stops (it stops only through `stop()` or task cancellation).
    package func waitUntilStopped() async {
        _ = await task.result
    }

    private static func respond(
        to request: Request, port: Int?, log: RequestLog, recordsBodies: Bool, handler: @escaping Handler, batches: BatchSimulator?
    ) async -> Response {
        var request = request
        let batchRoute = batches?.route(method: request.method.rawValue, path: request.uri.path)
        let body: Data
        do {
            if let batches, let batchRoute, batchRoute.isUpload {
                let rate = await batches.uploadStarted()
                body = try await readUpload(
                    request, limit: max(maxBodySize, batches.options.maxBytes + 1024 * 1024), bytesPerSecond: rate)
            } else {
                let buffer = try await request.collectBody(upTo: maxBodySize)
                body = Data(buffer.readableBytesView)
            }
        } catch {
            if batchRoute?.isUpload == true { await batches?.uploadSettled() }
            return makeResponse(
                .error(status: 413, message: "Request body too large or unreadable.", type: "invalid_request_error")
            )
        }
        let number = await log.nextNumber()
        let recorded = RecordedRequest(
            number: number,
            method: request.method.rawValue,
            path: request.uri.path,
            query: request.uri.query,
            headers: request.headers.map { (name: $0.name.rawName, value: $0.value) },
            body: body,
            serverPort: port
        )
        await log.append(
            recordsBodies
                ? recorded
                : RecordedRequest(
                    number: number, method: recorded.method, path: recorded.path, query: recorded.query,
                    headers: recorded.headers, serverPort: port))
        if let batches, let batchRoute {
            let answer = await batches.respond(to: recorded, route: batchRoute, chat: handler)
            if batchRoute.isUpload { await batches.uploadSettled() }
            return makeResponse(answer)
        }
        let scripted = await handler(recorded)
        if let delay = scripted.delay {
            // Cancelled when the server stops; the connection is closed then anyway.
            try? await Task.sleep(for: delay)
        }
        return makeResponse(scripted)
    }

    /// An upload's body, read as it comes, or at `bytesPerSecond` (the client waits on TCP
    /// flow control meanwhile).
    private static func readUpload(_ request: Request, limit: Int, bytesPerSecond: Int?) async throws -> Data {
        var body = Data()
        for try await chunk in request.body {
            chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
            guard body.count <= limit else { throw UploadTooLarge() }
            if let bytesPerSecond, bytesPerSecond > 0 {
                try await Task.sleep(for: .seconds(Double(chunk.readableBytes) / Double(bytesPerSecond)))
            }
        }
        return body
    }

    private static func makeResponse(_ scripted: ScriptedResponse) -> Response {
        var fields = HTTPFields()
        for (name, value) in scripted.headers where name.lowercased() != "content-length" {
            guard let fieldName = HTTPFields.Element.Name(name) else { continue }
            fields.append(HTTPFields.Element(name: fieldName, value: value))
        }
        var buffer = ByteBufferAllocator().buffer(capacity: scripted.body.count)
        buffer.writeBytes(scripted.body)
        var body = ResponseBody(byteBuffer: buffer)
        if scripted.bodyStall != nil || scripted.closesConnectionMidBody {
            let stall = scripted.bodyStall
            let closes = scripted.closesConnectionMidBody
            let half = buffer.readableBytes / 2
            let first = buffer.getSlice(at: buffer.readerIndex, length: half) ?? ByteBuffer()
            let rest = buffer.getSlice(at: buffer.readerIndex + half, length: buffer.readableBytes - half) ?? ByteBuffer()
            // The declared length tells the client more is coming while the server waits.
            body = ResponseBody(contentLength: buffer.readableBytes) { writer in
                try await writer.write(first)
                if let stall { try await Task.sleep(for: stall) }
                // An error from the body writer makes Hummingbird close the connection
                // (after flushing what was written), without an end of message.
                if closes { throw ConnectionClosedMidBody() }
                try await writer.write(rest)
                try await writer.finish(nil)
            }
        }
        return Response(status: HTTPResponse.Status(code: scripted.status), headers: fields, body: body)
    }
}

package enum OpenAITestServerError: Error, Sendable {
    /// The server finished before it was listening.
    case stoppedBeforeListening
}

/// An upload larger than the simulator takes.
private struct UploadTooLarge: Error {}

/// Thrown from a response body writer to drop the connection mid-body.
private struct ConnectionClosedMidBody: Error {}

/// The port the server listens on, known once it is listening (before any request is read).
private final class BoundPort: @unchecked Sendable {
    private let lock = NSLock()
    private var port: Int?

    var value: Int? {
        get { lock.withLock { port } }
        set { lock.withLock { port = newValue } }
    }
}

/// Recorded requests and the arrival counter of one server.
private actor RequestLog {
    private var entries: [RecordedRequest] = []
    private var counter = 0

    func nextNumber() -> Int {
        counter += 1
        return counter
    }

    func append(_ request: RecordedRequest) {
        entries.append(request)
        entries.sort { $0.number < $1.number }
    }

    func all() -> [RecordedRequest] { entries }

    func clear() { entries.removeAll() }
}
