import AltBenchCore
import Foundation

/// Turns an HTTP error answer into a `ModelFailure`: what happened, whether to retry, how
/// long to wait, and whether the whole run is misconfigured.
///
/// Reads every error shape the compatible servers send: OpenAI's
/// `{"error":{"message","type","param","code"}}` (with `code` a string, null, or an integer
/// on llama.cpp, vLLM and OpenRouter), LM Studio's `{"error":"text"}`, top-level
/// `message`/`detail` objects (vLLM, FastAPI), and HTML or empty bodies from proxies.
public enum ErrorBodyParser {
    /// - Parameters:
    ///   - headers: response headers, names lowercased.
    ///   - url: the endpoint, named in the message so the user sees where the answer came from.
    ///   - apiKeyVariable: the environment variable the key came from, named in the 401 advice.
    public static func failure(
        status: Int, headers: [String: String], body: Data, redactor: Redactor, url: String? = nil,
        apiKeyVariable: String = "OPENAI_API_KEY"
    ) -> ModelFailure {
        let fields = ErrorFields(body: body)
        // Some servers put whole tracebacks in `message`: keep one readable line.
        let message = fields.message.map { oneLine(redactor.redact($0), limit: 1000) }
        let code = fields.code.map { redactor.redact($0) }
        let type = fields.type.map { redactor.redact($0) }
        let param = fields.param.map { redactor.redact($0) }
        let detail = message.flatMap { $0.isEmpty ? nil : $0 } ?? snippet(body, redactor: redactor)

        // A 2xx answer carrying an error is judged by the HTTP status its code names, if any
        // (llama.cpp and OpenRouter send integer codes such as 401 or 429).
        var effective = status
        if (200..<300).contains(status), let number = code.flatMap({ Int($0) }), (400..<600).contains(number) {
            effective = number
        }

        let quota = code == "insufficient_quota" || type == "insufficient_quota"
        // "Request too large ... Requested N": the request can never fit the TPM limit.
        let tooLarge = effective == 429 && detail.lowercased().contains("request too large")

        var retryable: Bool
        switch effective {
        case 408, 409: retryable = true
        case 429: retryable = !quota && !tooLarge
        case 500...599: retryable = true
        default: retryable = false
        }
        let shouldRetry = headers["x-should-retry"]?.trimmingCharacters(in: .whitespaces).lowercased()
        switch shouldRetry {
        case "true": retryable = true
        case "false": retryable = false
        default: break
        }

        // A request too large for the tokens-per-minute limit fails the same way every time,
        // and every trial of the run sends a similar one.
        // The server's own `x-should-retry: true` outranks the status, as in the OpenAI SDKs.
        let stops = ([401, 403, 404].contains(effective) || quota || tooLarge) && shouldRetry != "true"
        let source = url.map { " from \($0)" } ?? ""
        let codeText = [code, param.map { "param \($0)" }].compactMap { $0 }.joined(separator: ", ")
        var text = "HTTP \(status)\(source): \(detail)\(codeText.isEmpty ? "" : " (\(codeText))")"
        switch effective {
        case 401:
            text += ". The server rejected the API key: check \(apiKeyVariable) (or the key your server expects)."
        case 403:
            text += ". The key has no access to this model or endpoint: check the key's project and --model."
        case 404:
            text += ". Nothing there: check --base-url (it usually ends in /v1) and --model."
        case _ where quota:
            text += ". The account has no quota left: check billing, or use another key."
        case _ where tooLarge:
            text += ". One request is larger than the tokens-per-minute limit allows: lower max_tokens, send smaller images (detail: low), or raise the limit."
        default:
            break
        }
        return ModelFailure(
            kind: .http, status: status, message: text, code: code, type: type, param: param,
            requestID: headers["x-request-id"] ?? headers["apim-request-id"], retryable: retryable,
            // The x-ratelimit-reset-* headers come with every OpenAI answer; they describe the
            // rate-limit window, so they mean "wait" only when the answer is a rate limit.
            retryAfter: RetryAfter.parse(headers, includeRateLimitResets: effective == 429), stopsRun: stops,
            rateLimit: RateLimitStatus.parse(headers))
    }

    /// The `error` fields of a body, whichever shape it has.
    struct ErrorFields {
        var message: String?
        var type: String?
        var code: String?
        var param: String?

        init(body: Data) {
            guard let root = try? JSONValue.parse(body) else { return }
            switch root["error"] {
            case .object(let error)?:
                read(JSONValue.object(error))
            case .string(let text)?:
                message = text
            default:
                // vLLM's `{"object":"error","message":...,"code":400}`, FastAPI's `{"detail":...}`.
                read(root)
                if message == nil { message = root["detail"].flatMap(ErrorBodyParser.text(of:)) }
            }
        }

        private mutating func read(_ object: JSONValue) {
            message = object["message"].flatMap(ErrorBodyParser.text(of:))
            type = object["type"].flatMap(ErrorBodyParser.text(of:))
            code = object["code"].flatMap(ErrorBodyParser.text(of:))
            param = object["param"].flatMap(ErrorBodyParser.text(of:))
        }
    }

    /// A scalar as text (integer codes become "401"); null as nil; anything else as JSON.
    static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let flag): return String(flag)
        case .null: return nil
        case .array, .object: return value.canonicalText
        }
    }

    /// A short, single-line, secret-free excerpt of a body; an HTML page reduced to its title
    /// (or its text), since proxies answer 5xx with HTML that means nothing in a terminal.
    public static func snippet(_ body: Data, redactor: Redactor, limit: Int = 200) -> String {
        var text = String(decoding: body.prefix(16 * 1024), as: UTF8.self)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "(empty body)" }
        if trimmed.hasPrefix("<") || text.range(of: "<html", options: .caseInsensitive) != nil {
            text = "HTML page: " + htmlSummary(text)
        }
        return oneLine(redactor.redact(text), limit: limit)
    }

    /// Whitespace runs collapsed to one space, cut to `limit` characters.
    static func oneLine(_ text: String, limit: Int) -> String {
        let collapsed = text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return collapsed.count > limit ? String(collapsed.prefix(limit)) + "…" : collapsed
    }

    /// The page's `<title>`, else its visible text.
    static func htmlSummary(_ html: String) -> String {
        if let start = html.range(of: "<title[^>]*>", options: [.regularExpression, .caseInsensitive]),
            let end = html.range(of: "</title>", options: .caseInsensitive, range: start.upperBound..<html.endIndex)
        {
            let title = html[start.upperBound..<end.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
            if !title.isEmpty { return title }
        }
        return html
            .replacingOccurrences(of: "(?is)<(script|style)\\b.*?</\\1\\s*>", with: " ", options: .regularExpression)
            .replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
    }
}
