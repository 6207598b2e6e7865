import AltBenchCore
import Foundation

// The objects of OpenAI's Batch API (`/v1/files`, `/v1/batches`) as altbench reads them, from
// OpenAI and from Azure OpenAI's global batch, whose answers differ in spelling: Azure's
// sample answers capitalise the status ("Completed") and write dates as ISO-8601 text where
// OpenAI writes Unix seconds. Every reader here is lenient about those differences and
// strict about what it needs (an `id`, a `custom_id`).

/// Where a batch is in its life. Read case-insensitively, with or without the underscore
/// ("in_progress", "InProgress", "in progress"); a status altbench does not know is kept as
/// `other` rather than refused, so a new status never breaks a poll.
package enum BatchStatus: Sendable, Hashable, CustomStringConvertible {
    case validating, inProgress, finalizing, completed, failed, expired, cancelling, cancelled
    case other(String)

    package init(parsing text: String) {
        let folded = text.lowercased().filter { $0.isLetter }
        switch folded {
        case "validating": self = .validating
        case "inprogress": self = .inProgress
        case "finalizing", "finalising": self = .finalizing
        case "completed": self = .completed
        case "failed": self = .failed
        case "expired": self = .expired
        case "cancelling", "canceling": self = .cancelling
        case "cancelled", "canceled": self = .cancelled
        default: self = .other(text)
        }
    }

    /// Whether the batch will not change again: completed, failed, expired or cancelled.
    package var isTerminal: Bool {
        switch self {
        case .completed, .failed, .expired, .cancelled: return true
        default: return false
        }
    }

    /// OpenAI's spelling ("in_progress"), for storing; an unknown status as it came.
    package var rawValue: String {
        switch self {
        case .validating: return "validating"
        case .inProgress: return "in_progress"
        case .finalizing: return "finalizing"
        case .completed: return "completed"
        case .failed: return "failed"
        case .expired: return "expired"
        case .cancelling: return "cancelling"
        case .cancelled: return "cancelled"
        case .other(let text): return text
        }
    }

    package var description: String { rawValue }
}

/// `request_counts`: how many of a batch's requests are done, and how many of those failed.
package struct BatchRequestCounts: Sendable, Hashable {
    package var total: Int
    package var completed: Int
    package var failed: Int

    package init(total: Int, completed: Int, failed: Int) {
        self.total = total
        self.completed = completed
        self.failed = failed
    }
}

/// One error of a batch (`errors.data[]`: a line that failed validation, the enqueued token
/// limit) or the top-level `error` of an output line (`batch_expired`, `batch_cancelled`).
package struct BatchError: Sendable, Hashable {
    package var code: String?
    package var message: String
    package var param: String?
    /// The 1-based line of the input file, for validation errors.
    package var line: Int?

    package init(code: String?, message: String, param: String? = nil, line: Int? = nil) {
        self.code = code
        self.message = message
        self.param = param
        self.line = line
    }

    /// An error object as either provider writes it; `nil` for null or a non-object.
    init?(_ value: JSONValue?) {
        guard let value, case .object(let fields) = value else { return nil }
        code = fields["code"].flatMap(ErrorBodyParser.text(of:))
        message = fields["message"].flatMap(ErrorBodyParser.text(of:)) ?? ""
        param = fields["param"].flatMap(ErrorBodyParser.text(of:))
        line = fields["line"]?.intValue
    }
}

/// A batch object, the answer of create, retrieve, cancel and list.
package struct BatchObject: Sendable, Hashable {
    package var id: String
    package var status: BatchStatus
    package var endpoint: String?
    package var inputFileID: String?
    /// The file of successful requests; `nil` when absent, null or "" (a batch whose every
    /// request failed ends `completed` without one).
    package var outputFileID: String?
    /// The file of failed and expired requests; `nil` when absent, null or "" (OpenAI sends ""
    /// for a clean batch).
    package var errorFileID: String?
    package var completionWindow: String?
    package var requestCounts: BatchRequestCounts?
    /// `errors.data`: why the batch failed (validation errors with their line, the enqueued
    /// token limit); empty when `errors` is null.
    package var errors: [BatchError]
    package var createdAt: Date?
    package var inProgressAt: Date?
    package var expiresAt: Date?
    package var finalizingAt: Date?
    package var completedAt: Date?
    package var failedAt: Date?
    package var expiredAt: Date?
    package var cancellingAt: Date?
    package var cancelledAt: Date?
    /// Only the string values of `metadata` (OpenAI allows no others).
    package var metadata: [String: String]

    package init(
        id: String, status: BatchStatus, endpoint: String? = nil, inputFileID: String? = nil, outputFileID: String? = nil,
        errorFileID: String? = nil, completionWindow: String? = nil, requestCounts: BatchRequestCounts? = nil,
        errors: [BatchError] = [], createdAt: Date? = nil, inProgressAt: Date? = nil, expiresAt: Date? = nil,
        finalizingAt: Date? = nil, completedAt: Date? = nil, failedAt: Date? = nil, expiredAt: Date? = nil,
        cancellingAt: Date? = nil, cancelledAt: Date? = nil, metadata: [String: String] = [:]
    ) {
        self.id = id
        self.status = status
        self.endpoint = endpoint
        self.inputFileID = inputFileID
        self.outputFileID = outputFileID
        self.errorFileID = errorFileID
        self.completionWindow = completionWindow
        self.requestCounts = requestCounts
        self.errors = errors
        self.createdAt = createdAt
        self.inProgressAt = inProgressAt
        self.expiresAt = expiresAt
        self.finalizingAt = finalizingAt
        self.completedAt = completedAt
        self.failedAt = failedAt
        self.expiredAt = expiredAt
        self.cancellingAt = cancellingAt
        self.cancelledAt = cancelledAt
        self.metadata = metadata
    }

    /// Reads a batch object. Throws ``BatchFormatError`` naming what is wrong: not JSON, not
    /// an object, no `id`, no `status`, a date that is neither Unix seconds nor ISO-8601.
    package static func parse(_ data: Data) throws -> BatchObject {
        guard let root = try? JSONValue.parse(data) else {
            throw BatchFormatError("the batch object is not JSON: \(BatchFormatError.excerpt(data))")
        }
        return try BatchObject(root)
    }

    init(_ root: JSONValue) throws {
        guard case .object(let fields) = root else {
            throw BatchFormatError("the batch object is \(Self.kind(of: root)), not an object")
        }
        guard let id = fields["id"]?.stringValue, !id.isEmpty else {
            throw BatchFormatError("the batch object has no `id`: \(BatchFormatError.excerpt(root))")
        }
        guard let status = fields["status"]?.stringValue, !status.isEmpty else {
            throw BatchFormatError("the batch object \(id) has no `status`")
        }
        func date(_ key: String) throws -> Date? {
            do {
                return try BatchDate.parse(fields[key])
            } catch let error as BatchFormatError {
                throw BatchFormatError("the batch object \(id): `\(key)` \(error.message)")
            }
        }
        self.id = id
        self.status = BatchStatus(parsing: status)
        endpoint = fields["endpoint"]?.stringValue
        inputFileID = Self.fileID(fields["input_file_id"])
        outputFileID = Self.fileID(fields["output_file_id"])
        errorFileID = Self.fileID(fields["error_file_id"])
        completionWindow = fields["completion_window"]?.stringValue
        if case .object(let counts)? = fields["request_counts"] {
            requestCounts = BatchRequestCounts(
                total: counts["total"]?.intValue ?? 0, completed: counts["completed"]?.intValue ?? 0,
                failed: counts["failed"]?.intValue ?? 0)
        }
        // `errors` is `{"object": "list", "data": [...]}`; a bare array is read too.
        let list = fields["errors"]?["data"]?.arrayValue ?? fields["errors"]?.arrayValue ?? []
        errors = list.compactMap { BatchError($0) }
        createdAt = try date("created_at")
        inProgressAt = try date("in_progress_at")
        expiresAt = try date("expires_at")
        finalizingAt = try date("finalizing_at")
        completedAt = try date("completed_at")
        failedAt = try date("failed_at")
        expiredAt = try date("expired_at")
        cancellingAt = try date("cancelling_at")
        cancelledAt = try date("cancelled_at")
        metadata = (fields["metadata"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }

    /// A file id, with "" and null as none.
    static func fileID(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, !text.isEmpty else { return nil }
        return text
    }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A file object, the answer of an upload and an entry of the files list.
package struct BatchFileObject: Sendable, Hashable {
    package var id: String
    package var bytes: Int?
    package var filename: String?
    package var purpose: String?
    package var createdAt: Date?
    /// Azure's `status` ("processed", "pending", "error") and OpenAI's deprecated one.
    package var status: String?

    package init(
        id: String, bytes: Int? = nil, filename: String? = nil, purpose: String? = nil, createdAt: Date? = nil,
        status: String? = nil
    ) {
        self.id = id
        self.bytes = bytes
        self.filename = filename
        self.purpose = purpose
        self.createdAt = createdAt
        self.status = status
    }

    /// Reads a file object; throws ``BatchFormatError`` without an `id`.
    package static func parse(_ data: Data) throws -> BatchFileObject {
        guard let root = try? JSONValue.parse(data) else {
            throw BatchFormatError("the file object is not JSON: \(BatchFormatError.excerpt(data))")
        }
        return try BatchFileObject(root)
    }

    init(_ root: JSONValue) throws {
        guard case .object(let fields) = root else {
            throw BatchFormatError("the file object is \(BatchObject.kind(of: root)), not an object")
        }
        guard let id = fields["id"]?.stringValue, !id.isEmpty else {
            throw BatchFormatError("the file object has no `id`: \(BatchFormatError.excerpt(root))")
        }
        self.id = id
        bytes = fields["bytes"]?.intValue
        filename = fields["filename"]?.stringValue
        purpose = fields["purpose"]?.stringValue
        status = fields["status"]?.stringValue
        do {
            createdAt = try BatchDate.parse(fields["created_at"])
        } catch let error as BatchFormatError {
            throw BatchFormatError("the file object \(id): `created_at` \(error.message)")
        }
    }
}

/// One line of an output or error file:
///
/// - a success (output file): `{"id", "custom_id", "response": {"status_code": 200,
///   "request_id", "body": {chat completion}}, "error": null}`;
/// - a request the model's API refused (error file): the same with a 4xx/5xx `status_code`
///   and `body: {"error": {message, type, param, code}}`;
/// - a request the batch never ran (error file): `"response": null, "error": {code, message}`,
///   e.g. `batch_expired` or `batch_cancelled`.
package struct BatchOutputLine: Sendable, Hashable {
    package var customID: String
    /// The line's own `id` ("batch_req_…").
    package var id: String?
    /// `response.status_code`.
    package var statusCode: Int?
    /// `response.request_id`.
    package var requestID: String?
    /// `response.body` exactly as the line holds it (a chat completion, or `{"error": …}`);
    /// `nil` without a response or with a null body.
    package var body: Data?
    /// The top-level `error` (`batch_expired`, …); `nil` when null.
    package var error: BatchError?

    package init(
        customID: String, id: String? = nil, statusCode: Int? = nil, requestID: String? = nil, body: Data? = nil,
        error: BatchError? = nil
    ) {
        self.customID = customID
        self.id = id
        self.statusCode = statusCode
        self.requestID = requestID
        self.body = body
        self.error = error
    }

    /// Whether the request got a 2xx chat completion.
    package var succeeded: Bool {
        error == nil && statusCode.map { (200..<300).contains($0) } == true && body != nil
    }

    /// Reads one line (its trailing newline, if any, is ignored). Throws ``BatchFormatError``
    /// for a line that is not a JSON object, or has no `custom_id`.
    ///
    /// An output file has up to 50,000 lines, so the line is read with `JSONSerialization`
    /// (two orders of magnitude faster than decoding a `JSONValue`), and `body` is the exact
    /// bytes of `response.body` as they stand in the line, found by ``JSONSpans``.
    package static func parse(_ line: Data) throws -> BatchOutputLine {
        guard let root = try? JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed]) else {
            throw BatchFormatError("the output line is not JSON: \(BatchFormatError.excerpt(line))")
        }
        guard let fields = root as? [String: Any] else {
            throw BatchFormatError("the output line is \(Self.kind(of: root)), not an object")
        }
        guard let customID = fields["custom_id"] as? String else {
            throw BatchFormatError("the output line has no `custom_id`: \(BatchFormatError.excerpt(line))")
        }
        var parsed = BatchOutputLine(customID: customID, id: fields["id"] as? String)
        if let error = fields["error"] as? [String: Any] {
            parsed.error = BatchError(
                code: Self.text(error["code"]), message: Self.text(error["message"]) ?? "", param: Self.text(error["param"]),
                line: (error["line"] as? NSNumber)?.intValue)
        }
        if let response = fields["response"] as? [String: Any] {
            parsed.statusCode = (response["status_code"] as? NSNumber)?.intValue
                ?? (response["status_code"] as? String).flatMap { Int($0) }
            parsed.requestID = response["request_id"] as? String
            if let body = response["body"], !(body is NSNull) {
                let bytes = [UInt8](line)
                if let span = JSONSpans.member("body", ofMember: "response", in: bytes) {
                    parsed.body = Data(bytes[span])
                } else {
                    parsed.body = try? JSONSerialization.data(withJSONObject: body, options: [.fragmentsAllowed])
                }
            }
        }
        if parsed.error == nil && parsed.statusCode == nil {
            throw BatchFormatError("the output line for \(customID) has neither a `response` nor an `error`")
        }
        return parsed
    }

    /// A scalar from `JSONSerialization` as text (an integer code as "401"); nil for null.
    static func text(_ value: Any?) -> String? {
        switch value {
        case let text as String: return text
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }

    static func kind(of value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case is String: return "a string"
        case is NSNumber: return "a number or boolean"
        case is [Any]: return "an array"
        default: return "an object"
        }
    }
}

/// Where the values of an object's members stand in the bytes of a JSON text already known to
/// be valid: enough to lift one member's value out verbatim without decoding the rest.
enum JSONSpans {
    /// The bytes of `object[outer][inner]` in `bytes`, a JSON object; nil when either member
    /// is missing or not where an object is expected. Keys are compared as written (a key
    /// spelled with escapes does not match).
    static func member(_ inner: String, ofMember outer: String, in bytes: [UInt8]) -> Range<Int>? {
        guard let outerSpan = member(outer, inObjectAt: skipWhitespace(bytes, 0), in: bytes) else { return nil }
        return member(inner, inObjectAt: outerSpan.lowerBound, in: bytes)
    }

    /// The span of member `key`'s value in the object starting at `start`.
    static func member(_ key: String, inObjectAt start: Int, in bytes: [UInt8]) -> Range<Int>? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "{") else { return nil }
        let wanted = Array(key.utf8)
        var index = skipWhitespace(bytes, start + 1)
        while index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            let keyEnd = skipString(bytes, index)
            let name = bytes[(index + 1)..<(keyEnd - 1)]
            index = skipWhitespace(bytes, keyEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            let valueStart = skipWhitespace(bytes, index + 1)
            let valueEnd = skipValue(bytes, valueStart)
            if name.elementsEqual(wanted) { return valueStart..<valueEnd }
            index = skipWhitespace(bytes, valueEnd)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipWhitespace(bytes, index + 1)
        }
        return nil
    }

    static func skipWhitespace(_ bytes: [UInt8], _ start: Int) -> Int {
        var index = start
        while index < bytes.count, [9, 10, 13, 32].contains(bytes[index]) { index += 1 }
        return index
    }

    /// The index after the string starting at `start` (its opening quote).
    static func skipString(_ bytes: [UInt8], _ start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The index after the value starting at `start`.
    static func skipValue(_ bytes: [UInt8], _ start: Int) -> Int {
        guard start < bytes.count else { return start }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return skipString(bytes, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = skipString(bytes, index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return bytes.count
        default:
            var index = start
            while index < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 9, 10, 13, 32].contains(bytes[index]) {
                index += 1
            }
            return index
        }
    }
}

/// A batch answer or file line that is not what the Batch API sends; the message says what
/// is wrong.
package struct BatchFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }

    /// The start of a body, one line, for messages.
    static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(200), as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        let short = line.isEmpty ? "(empty)" : line
        return data.count > 200 ? short + "…" : short
    }

    static func excerpt(_ value: JSONValue) -> String {
        excerpt(Data(value.canonicalBytes))
    }
}

/// The dates of batch and file objects: Unix seconds (OpenAI; an integer, a decimal or a
/// numeric string) or ISO-8601 text (Azure's samples: "2024-07-19T21:19:42.0785524+00:00",
/// "2024-07-19T21:19:42Z", with or without a fraction of any length, "Z" or an offset, or no
/// zone at all, read as UTC).
package enum BatchDate {
    /// The date in `value`; `nil` for absent or null. Throws for anything else.
    package static func parse(_ value: JSONValue?) throws -> Date? {
        guard let value else { return nil }
        switch value {
        case .null: return nil
        case .int(let seconds): return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .double(let seconds): return Date(timeIntervalSince1970: seconds)
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return nil }
            if let seconds = Double(trimmed), seconds.isFinite { return Date(timeIntervalSince1970: seconds) }
            if let date = iso8601(trimmed) { return date }
            throw BatchFormatError("is neither Unix seconds nor an ISO-8601 date: \"\(text.prefix(60))\"")
        default:
            throw BatchFormatError("is \(BatchObject.kind(of: value)), not a date")
        }
    }

    /// "YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM|±HHMM]" (a space for the "T" too).
    package static func iso8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
                guard let hours = number(2) else { return nil }
                if index < bytes.count, bytes[index] == UInt8(ascii: ":") { index += 1 }
                guard let minutes = number(2) else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            default:
                return nil
            }
        }
        guard index == bytes.count, (1...12).contains(month), (1...31).contains(day), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        // The calendar rolls 31 February over into March; such a date is no date.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date.addingTimeInterval(fraction - TimeInterval(offset))
    }
}
