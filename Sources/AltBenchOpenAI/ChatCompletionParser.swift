import AltBenchCore
import Foundation

/// Reads chat-completion bodies leniently, the way real servers send them.
///
/// Unknown fields never fail a decode; `usage`, `refusal`, `id` and the rest may be missing;
/// `content` may be null (a refusal), a string, or an array of text parts.
public enum ChatCompletionParser {
    /// The answer in a 2xx body, or a `.malformed` failure that says what is missing.
    public static func answer(from body: Data, requestID: String?, redactor: Redactor) throws -> ModelAnswer {
        guard let root = try? JSONValue.parse(body), root.objectValue != nil else {
            throw ModelFailure(
                kind: .malformed, message: "the server answered 200 with a body that is not JSON: \(ErrorBodyParser.snippet(body, redactor: redactor))",
                requestID: requestID, retryable: true)
        }
        if let error = root["error"], !error.isNull {
            // Some servers report errors with status 200.
            var failure = ErrorBodyParser.failure(status: 200, headers: [:], body: body, redactor: redactor)
            failure.requestID = requestID
            throw failure
        }
        guard let choice = root["choices"]?[0] else {
            throw ModelFailure(
                kind: .malformed, message: "the response has no choices[0]: \(ErrorBodyParser.snippet(body, redactor: redactor))",
                requestID: requestID, retryable: true)
        }
        let message = choice["message"]
        let content: String?
        switch message?["content"] {
        case .string(let text)?: content = text
        case .array(let parts)?:
            content = parts.compactMap { $0["text"]?.stringValue ?? $0.stringValue }.joined()
        default: content = nil
        }
        let usage = root["usage"]
        return ModelAnswer(
            content: content,
            refusal: message?["refusal"]?.stringValue,
            finishReason: choice["finish_reason"]?.stringValue ?? choice["native_finish_reason"]?.stringValue,
            responseModel: root["model"]?.stringValue,
            responseID: root["id"]?.stringValue,
            requestID: requestID,
            systemFingerprint: root["system_fingerprint"]?.stringValue,
            promptTokens: usage?["prompt_tokens"]?.intValue,
            completionTokens: usage?["completion_tokens"]?.intValue,
            totalTokens: usage?["total_tokens"]?.intValue,
            reasoningTokens: usage?["completion_tokens_details"]?["reasoning_tokens"]?.intValue,
            rawBody: redactor.redact(String(decoding: body.prefix(64 * 1024), as: UTF8.self)))
    }
}

/// Turns an HTTP error answer into a `ModelFailure`: what happened, whether to retry, how
/// long to wait, and whether the whole run is misconfigured.
public enum ErrorBodyParser {
    public static func failure(
        status: Int, headers: [String: String], body: Data, redactor: Redactor, url: String? = nil,
        apiKeyVariable: String = "OPENAI_API_KEY"
    ) -> ModelFailure {
        var message: String?
        var type: String?
        var code: String?
        var param: String?
        if let root = try? JSONValue.parse(body) {
            switch root["error"] {
            case .object(let error)?:
                message = error["message"]?.stringValue
                type = error["type"]?.stringValue
                param = error["param"]?.stringValue
                code = error["code"].flatMap(text(of:))
            case .string(let text)?:
                message = text
            default:
                message = root["message"]?.stringValue ?? root["detail"].flatMap(text(of:))
            }
        }
        let detail = redactor.redact(message ?? snippet(body, redactor: redactor))
        let headerRetry = headers["x-should-retry"]?.lowercased()
        let lowered = detail.lowercased()
        let quota = code == "insufficient_quota" || type == "insufficient_quota"
        let tooLarge = status == 429 && lowered.contains("request too large")

        var retryable: Bool
        switch status {
        case 408, 409, 429: retryable = !quota && !tooLarge
        case 500...: retryable = true
        default: retryable = false
        }
        if status == 200 { retryable = false }
        if headerRetry == "true" { retryable = true }
        if headerRetry == "false" { retryable = false }

        let stops = [401, 403, 404].contains(status) || quota
        let where_ = url.map { " from \($0)" } ?? ""
        let codeText = [code, param.map { "param \($0)" }].compactMap { $0 }.joined(separator: ", ")
        var text = "HTTP \(status)\(where_): \(detail)\(codeText.isEmpty ? "" : " (\(codeText))")"
        switch status {
        case 401: text += ". The server rejected the API key: check \(apiKeyVariable) (or the key your server expects)."
        case 403: text += ". The key has no access to this model or endpoint: check the key's project and --model."
        case 404: text += ". Nothing there: check --base-url (it usually ends in /v1) and --model."
        case _ where quota: text += ". The account has no quota left: check billing, or use another key."
        default: break
        }
        return ModelFailure(
            kind: .http, status: status, message: text, code: code, type: type, param: param,
            requestID: headers["x-request-id"] ?? headers["apim-request-id"], retryable: retryable,
            retryAfter: RetryAfter.parse(headers), stopsRun: stops)
    }

    static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .null: return nil
        default: return value.canonicalText
        }
    }

    /// A short, single-line, secret-free excerpt of a body; HTML reduced to its text.
    public static func snippet(_ body: Data, redactor: Redactor, limit: Int = 200) -> String {
        var text = String(decoding: body.prefix(16 * 1024), as: UTF8.self)
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "(empty body)" }
        if text.range(of: "<html", options: .caseInsensitive) != nil || text.range(of: "<!doctype", options: .caseInsensitive) != nil {
            if let start = text.range(of: "<title>", options: .caseInsensitive),
                let end = text.range(of: "</title>", options: .caseInsensitive, range: start.upperBound..<text.endIndex)
            {
                let title = text[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
                if !title.isEmpty { text = "HTML page: \(title)" }
            } else {
                text = "HTML page: " + text.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
            }
        }
        let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        let redacted = redactor.redact(collapsed)
        return redacted.count > limit ? String(redacted.prefix(limit)) + "…" : redacted
    }
}

/// How long a server asked the client to wait, from its headers.
public enum RetryAfter {
    /// `retry-after-ms`, then `Retry-After` (seconds or HTTP date), then the larger of the
    /// `x-ratelimit-reset-*` durations ("120ms", "1s", "6m0s"). Header names are lowercase.
    public static func parse(_ headers: [String: String], now: Date = Date()) -> Duration? {
        if let ms = headers["retry-after-ms"].flatMap(Double.init), ms >= 0 {
            return .milliseconds(ms)
        }
        if let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) {
            if let seconds = Double(value), seconds >= 0 { return .milliseconds(seconds * 1000) }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
            if let date = formatter.date(from: value) {
                return .milliseconds(max(0, date.timeIntervalSince(now)) * 1000)
            }
        }
        let resets = ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"].compactMap { headers[$0] }
            .compactMap(resetDuration)
        return resets.max()
    }

    /// Sums "(\d+(\.\d+)?)(ms|s|m|h)" parts: "6m0s" → 360 s, "120ms" → 0.12 s.
    static func resetDuration(_ text: String) -> Duration? {
        var total = 0.0
        var matched = false
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            switch unit {
            case "ms": total += value / 1000
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            default: return nil
            }
            matched = true
        }
        return matched ? .milliseconds(total * 1000) : nil
    }
}
