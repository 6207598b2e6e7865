import AltBenchCore
import Foundation

/// One HTTP request as the test server received it.
package struct RecordedRequest: Sendable {
    /// 1-based arrival number of this request on its server.
    package let number: Int
    /// HTTP method, upper case ("POST").
    package let method: String
    /// Path without the query ("/v1/chat/completions").
    package let path: String
    /// Raw query string without "?", or nil.
    package let query: String?
    /// Header fields in arrival order, names as sent.
    package let headers: [(name: String, value: String)]
    /// The request body, exactly as received.
    package let body: Data
    /// The port of the server that received it; nil for a request made by hand. Answers that
    /// point back at the server (a generated image's `url`) use it.
    package let serverPort: Int?

    package init(
        number: Int = 1,
        method: String,
        path: String,
        query: String? = nil,
        headers: [(name: String, value: String)] = [],
        body: Data = Data(),
        serverPort: Int? = nil
    ) {
        self.number = number
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.serverPort = serverPort
    }

    /// The first value of header `name`, compared case-insensitively.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// All values of header `name`, compared case-insensitively.
    package func headerValues(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// The body parsed as JSON.
    package func json() throws -> JSONValue {
        try JSONValue.parse(body)
    }

    /// The body parsed as a JSON object in Foundation form.
    package func jsonObject() throws -> [String: Any] {
        guard let object = try json().anyValue as? [String: Any] else {
            throw RecordedRequestError.notAJSONObject
        }
        return object
    }

    /// The body as UTF-8 text (invalid bytes replaced).
    package var bodyText: String { String(decoding: body, as: UTF8.self) }
}

package enum RecordedRequestError: Error, Sendable {
    case notAJSONObject
}
