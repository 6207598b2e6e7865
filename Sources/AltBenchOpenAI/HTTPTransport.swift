import AltBenchCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// A whole HTTP answer: status, headers (names lowercased) and body.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// One request and its whole answer over AsyncHTTPClient, with the errors a user can act on:
/// a timeout (one deadline for the head and the body), a connection that could not be opened
/// or broke (``TransportFailure``), an answer over the size limit. The chat client, the
/// token requests and the image client all send through it.
public enum HTTPTransport {
    /// POSTs JSON `body` to `url` with `headers` added.
    /// - Parameters:
    ///   - setting: the flag that set the URL, named in advice ("is --base-url right?").
    ///   - tooLarge: what to say after "the answer from URL is larger than N MB;".
    public static func post(
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

    /// GETs `url` (a generated image to download).
    public static func get(
        _ url: URL, httpClient: HTTPClient, timeout: Duration, limit: Int, redactor: Redactor, setting: String, tooLarge: String
    ) async throws -> HTTPAnswer {
        var http = HTTPClientRequest(url: url.absoluteString)
        http.method = .GET
        http.headers.add(name: "User-Agent", value: "altbench/\(AltBenchVersion.current)")
        return try await send(
            http, url: url, httpClient: httpClient, timeout: timeout, limit: limit, redactor: redactor, setting: setting,
            tooLarge: tooLarge)
    }

    static func send(
        _ http: HTTPClientRequest, url: URL, httpClient: HTTPClient, timeout: Duration, limit: Int, redactor: Redactor,
        setting: String, tooLarge: String
    ) async throws -> HTTPAnswer {
        let shown = redactor.redact(url.absoluteString)
        do {
            let deadline = ContinuousClock.now + timeout
            let response = try await httpClient.execute(http, deadline: NIODeadline.now() + TimeAmount(timeout))
            let buffer = try await ResponseReading.collect(response.body, limit: limit, until: deadline)
            var headers: [String: String] = [:]
            for header in response.headers { headers[header.name.lowercased()] = header.value }
            return HTTPAnswer(status: Int(response.status.code), headers: headers, body: Data(buffer: buffer))
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
}
