import AltBenchCore
import Foundation

/// One line per request, as JSON with a fixed field order:
///
///     {"time":"2025-11-24T16:00:00.123Z","session":"sess_…","method":"POST","path":"/v1/chat/completions",
///      "status":200,"upstream_status":200,"latency_ms":12.3}
///
/// plus `"code"` on errors. It never holds a key, a token, a signature, a timestamp header or
/// the query (which may carry credentials such as Azure's `api-key`); the path and method are
/// the client's bytes, JSON-escaped, so no request can break a line or forge one.
struct AccessLogRecord: Sendable {
    var method: String
    /// The path without the query.
    var path: String
    /// A known session's id, or the claimed one when it looks like an id (see ``loggable(session:)``).
    var session: String?
    var status = 0
    var upstreamStatus: Int?
    var code: String?

    /// The line for a request that began at `time` and took `latency`.
    func line(time: Date, latency: Duration) -> String {
        let milliseconds = Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15
        var fields = [
            "\"time\":\(JSONValue.quoted(Self.timeFormat.format(time)))",
            "\"session\":\(session.map(JSONValue.quoted) ?? "null")",
            "\"method\":\(JSONValue.quoted(method))",
            "\"path\":\(JSONValue.quoted(path))",
            "\"status\":\(status)",
            "\"upstream_status\":\(upstreamStatus.map(String.init) ?? "null")",
            "\"latency_ms\":\(String(format: "%.1f", milliseconds))",
        ]
        if let code { fields.append("\"code\":\(JSONValue.quoted(code))") }
        return "{\(fields.joined(separator: ","))}"
    }

    /// ISO 8601 in UTC with milliseconds.
    static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// A claimed session id as it may be logged before it is known: only when it has the
    /// shape of the ids this proxy issues (`sess_` and 24 lowercase hex), else null. A
    /// session header is the client's text; a client that put its token or app key there by
    /// mistake must not find it in the log.
    static func loggable(session: String) -> String? {
        let bytes = Array(session.utf8)
        guard bytes.count == 29, session.hasPrefix("sess_"),
            bytes.dropFirst(5).allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        else { return nil }
        return session
    }
}
