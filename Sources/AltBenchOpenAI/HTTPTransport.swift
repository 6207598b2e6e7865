import AltBenchCore
import AltBenchHTTP
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// A whole HTTP answer: status, headers (names lowercased) and body.
package struct HTTPAnswer: Sendable {
    package var status: Int
    package var headers: [String: String]
    package var body: Data

    package init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// One request and its whole answer over AsyncHTTPClient, with the errors a user can act on:
/// a timeout (one deadline for the head and the body), a connection that could not be opened
/// or broke (``TransportFailure``), an answer over the size limit. The chat client, the
/// token requests and the image client all send through it.
package enum HTTPTransport {
    /// POSTs JSON `body` to `url` with `headers` added.
    /// - Parameters:
    ///   - setting: the flag that set the URL, named in advice ("is --base-url right?").
    ///   - tooLarge: what to say after "the answer from URL is larger than N MB;".
    package static func post(
        _ body: Data, to url: URL, headers: [(String, String)], httpClient: HTTPClient, timeout: Duration, limit: Int,
        redactor: Redactor, setting: String, tooLarge: String
    ) async throws -> HTTPAnswer {
        var http = HTTPClientRequest(url: url.absoluteString)
        http.method = .POST
        http.headers.add(name: "Content-Type", value: "application/json")
        http.headers.add(name: "Accept", value: "application/json")
        http.headers.add(name: "User-Agent", value: "altbench/\(AltBenchVersion.current)")
        for (name, value) in headers { http.headers.add(name: name, value: value) }
        http.body = .bytes(ByteBuffer(data: body))
        return try await send(
            http, url: url, httpClient: httpClient, timeout: timeout, limit: limit, redactor: redactor, setting: setting,
            tooLarge: tooLarge)
    }

    /// GETs `url` (a generated image to download, a batch object) with `headers` added.
    package static func get(
        _ url: URL, headers: [(String, String)] = [], httpClient: HTTPClient, timeout: Duration, limit: Int, redactor: Redactor,
        setting: String, tooLarge: String
    ) async throws -> HTTPAnswer {
        var http = HTTPClientRequest(url: url.absoluteString)
        http.method = .GET
        http.headers.add(name: "User-Agent", value: "altbench/\(AltBenchVersion.current)")
        for (name, value) in headers { http.headers.add(name: name, value: value) }
        return try await send(
            http, url: url, httpClient: httpClient, timeout: timeout, limit: limit, redactor: redactor, setting: setting,
            tooLarge: tooLarge)
    }

    /// Sends a prepared request and reads its whole answer (at most `limit` bytes) within
    /// `timeout`, with the error mapping of ``perform(_:url:httpClient:timeout:limit:redactor:setting:tooLarge:read:)``.
    static func send(
        _ http: HTTPClientRequest, url: URL, httpClient: HTTPClient, timeout: Duration, limit: Int, redactor: Redactor,
        setting: String, tooLarge: String
    ) async throws -> HTTPAnswer {
        try await perform(
            http, url: url, httpClient: httpClient, timeout: timeout, limit: limit, redactor: redactor, setting: setting,
            tooLarge: tooLarge
        ) { response, deadline in
            let buffer = try await ResponseReading.collect(response.body, limit: limit, until: deadline)
            return HTTPAnswer(status: Int(response.status.code), headers: headers(of: response), body: Data(buffer: buffer))
        }
    }

    /// GETs `url` and streams a 2xx body into the file `destination`, never holding it whole:
    /// the bytes go to `destination.partial` first, which is renamed over `destination` once
    /// the body has ended, so an interrupted download never looks complete. The head must come
    /// within `timeout`, and then the body may stall no longer than `timeout` between two
    /// chunks (a large file may take longer than `timeout` in all). A non-2xx answer is read
    /// whole (at most `errorLimit` bytes), nothing is written, and it is returned for the
    /// caller's error mapping with `written` 0.
    package static func download(
        _ url: URL, headers extra: [(String, String)] = [], to destination: URL, httpClient: HTTPClient, timeout: Duration,
        errorLimit: Int = 1024 * 1024, redactor: Redactor, setting: String
    ) async throws -> (answer: HTTPAnswer, written: Int) {
        var http = HTTPClientRequest(url: url.absoluteString)
        http.method = .GET
        http.headers.add(name: "User-Agent", value: "altbench/\(AltBenchVersion.current)")
        for (name, value) in extra { http.headers.add(name: name, value: value) }
        return try await perform(
            http, url: url, httpClient: httpClient, timeout: timeout, limit: errorLimit, redactor: redactor, setting: setting,
            tooLarge: "an error answer is a few KB."
        ) { response, deadline in
            let status = Int(response.status.code)
            let fields = headers(of: response)
            guard (200..<300).contains(status) else {
                let buffer = try await ResponseReading.collect(response.body, limit: errorLimit, until: deadline)
                return (HTTPAnswer(status: status, headers: fields, body: Data(buffer: buffer)), 0)
            }
            let written = try await ResponseReading.write(response.body, to: destination, idleTimeout: timeout)
            return (HTTPAnswer(status: status, headers: fields, body: Data()), written)
        }
    }

    /// Sends `http` and hands the answer to `read` with the deadline for its body (`timeout`
    /// after sending began), mapping what can go wrong to a `ModelFailure`: a timeout, a
    /// connection that could not be opened or broke (``TransportFailure``), an answer over
    /// `limit` bytes. A `ModelFailure` thrown by `read` passes unchanged, and so does a
    /// ``LocalFileError`` (a file on this machine that could not be read or written).
    static func perform<T: Sendable>(
        _ http: HTTPClientRequest, url: URL, httpClient: HTTPClient, timeout: Duration, limit: Int, redactor: Redactor,
        setting: String, tooLarge: String,
        read: (HTTPClientResponse, ContinuousClock.Instant) async throws -> T
    ) async throws -> T {
        let shown = redactor.redact(url.absoluteString)
        do {
            let deadline = ContinuousClock.now + timeout
            let response = try await httpClient.execute(http, deadline: NIODeadline.now() + TimeAmount(timeout))
            return try await read(response, deadline)
        } catch let failure as ModelFailure {
            throw failure
        } catch let local as LocalFileError {
            throw local
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw ModelFailure(kind: .timeout, message: "no answer from \(shown) within \(timeout.seconds) s (timeout).", retryable: true)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError where error == .cancelled {
            throw CancellationError()
        } catch is NIOTooManyBytesError {
            // Asking again gets the same oversized answer.
            throw ModelFailure(
                kind: .malformed,
                message: "the answer from \(shown) is larger than \(limit / 1024 / 1024) MB; \(tooLarge)", retryable: false)
        } catch {
            throw TransportFailure.failure(for: error, endpoint: url, redactor: redactor, setting: setting)
        }
    }

    /// Header fields with their names lowercased (the last of repeated ones).
    static func headers(of response: HTTPClientResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return headers
    }
}

/// A file on this machine that could not be read (a batch input being uploaded) or written
/// (a downloaded output file): not the server's fault, so never a `ModelFailure`.
package struct LocalFileError: Error, Sendable, CustomStringConvertible {
    package var path: String
    package var message: String

    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    package var description: String { "\(path): \(message)" }
}

extension ResponseReading {
    /// Writes a body to `destination` as it arrives, giving up when no bytes came for
    /// `idleTimeout` (AsyncHTTPClient's deadline ends with the head). The bytes go to
    /// `destination.partial`, renamed over `destination` once the body has ended; on any
    /// failure the partial file is removed. Returns the bytes written.
    package static func write(_ body: HTTPClientResponse.Body, to destination: URL, idleTimeout: Duration) async throws -> Int {
        let partial = destination.appendingPathExtension("partial")
        let manager = FileManager.default
        try? manager.removeItem(at: partial)
        guard manager.createFile(atPath: partial.path, contents: nil) else {
            throw LocalFileError(path: partial.path, message: "cannot create the file (is the directory there and writable?)")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: partial)
        } catch {
            throw LocalFileError(path: partial.path, message: "cannot open the file for writing: \(error.localizedDescription)")
        }
        let progress = BodyProgress()
        do {
            let written = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask {
                    var total = 0
                    for try await chunk in body {
                        do {
                            try chunk.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
                        } catch {
                            throw LocalFileError(path: partial.path, message: "cannot write: \(error.localizedDescription)")
                        }
                        total += chunk.readableBytes
                        progress.touch()
                    }
                    return total
                }
                group.addTask {
                    // Wakes when the body would have stalled for idleTimeout, and sleeps again
                    // while bytes keep coming.
                    while true {
                        let deadline = progress.last + idleTimeout
                        try await Task.sleep(until: deadline, clock: .continuous)
                        if progress.last + idleTimeout <= .now { return nil }
                    }
                }
                defer { group.cancelAll() }
                guard case .some(.some(let total)) = try await group.next() else {
                    throw HTTPClientError.readTimeout
                }
                return total
            }
            do {
                try handle.synchronize()
                try handle.close()
            } catch {
                throw LocalFileError(path: partial.path, message: "cannot write: \(error.localizedDescription)")
            }
            // rename(2) replaces an older file at once: a reader sees the old file or the new.
            guard rename(partial.path, destination.path) == 0 else {
                let reason = String(cString: strerror(errno))
                throw LocalFileError(path: destination.path, message: "cannot move the downloaded file into place: \(reason)")
            }
            return written
        } catch {
            try? handle.close()
            try? manager.removeItem(at: partial)
            throw error
        }
    }

    /// When the last bytes of a body arrived.
    private final class BodyProgress: @unchecked Sendable {
        private let lock = NSLock()
        private var instant = ContinuousClock.now

        var last: ContinuousClock.Instant { lock.withLock { instant } }

        func touch() { lock.withLock { instant = .now } }
    }
}
