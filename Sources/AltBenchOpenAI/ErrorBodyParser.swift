import AltBenchCore
import Foundation

/// Turns an HTTP error answer into a `ModelFailure`: what happened, whether to retry, how
/// long to wait, and whether the whole run is misconfigured.
///
/// Reads every error shape the compatible servers send: OpenAI's
/// `{"error":{"message","type","param","code"}}` (with `code` a string, null, or an integer
/// on llama.cpp, vLLM and OpenRouter), LM Studio's `{"error":"text"}`, top-level
/// `message`/`detail` objects (vLLM, FastAPI), and HTML or empty bodies from proxies.
package enum ErrorBodyParser {
    /// - Parameters:
    ///   - headers: response headers, names lowercased.
    ///   - url: the endpoint, named in the message so the user sees where the answer came from.
    ///   - apiKeyVariable: the environment variable the key came from, named in the 401 advice.
    ///   - azure: the Azure resource asked, when it is one: the advice then names its settings
    ///     (deployment, endpoint, key variable, api-version) instead of OpenAI's.
    package static func failure(
        status: Int, headers: [String: String], body: Data, redactor: Redactor, url: String? = nil,
        apiKeyVariable: String = "OPENAI_API_KEY", azure: AzureSettings? = nil
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
        if let azure, let advice = azureAdvice(status: effective, code: code, azure: azure) {
            text += advice
        } else {
            text += openAIAdvice(
                status: effective, quota: quota, tooLarge: tooLarge, apiKeyVariable: apiKeyVariable,
                modelNotAllowed: code == SignedProxyConventions.ErrorCode.modelNotAllowed.rawValue)
        }
        return ModelFailure(
            kind: .http, status: status, message: text, code: code, type: type, param: param,
            requestID: headers["x-request-id"] ?? headers["apim-request-id"], retryable: retryable,
            // The x-ratelimit-reset-* headers come with every OpenAI answer; they describe the
            // rate-limit window, so they mean "wait" only when the answer is a rate limit.
            retryAfter: RetryAfter.parse(headers, includeRateLimitResets: effective == 429), stopsRun: stops,
            rateLimit: RateLimitStatus.parse(headers))
    }

    /// What to check after an OpenAI-style error that stops the run; empty for the others.
    static func openAIAdvice(
        status effective: Int, quota: Bool, tooLarge: Bool, apiKeyVariable: String, modelNotAllowed: Bool = false
    ) -> String {
        var text = ""
        switch effective {
        case 401:
            text += ". The server rejected the API key: check \(apiKeyVariable) (or the key your server expects)."
        case 403 where modelNotAllowed:
            // `altbench proxy --allow-model` refused it: the key is fine, the proxy's list is not.
            text += ". The signed proxy allows only the models its --allow-model flags name: use one of them (--model), or add this one to the proxy's --allow-model."
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
        return text
    }

    /// What to check after an Azure OpenAI error that stops the run, naming the run's own
    /// Azure settings and where each came from; `nil` leaves the OpenAI advice (quota, a
    /// request too large).
    static func azureAdvice(status: Int, code: String?, azure: AzureSettings) -> String? {
        let endpoint = "the endpoint \(azure.endpoint.absoluteString) (\(azure.endpointSource))"
        let version = azure.apiVersion.map { " and the api-version \($0) (\(azure.apiVersionSource ?? "--azure-api-version"))" } ?? ""
        switch status {
        case 401:
            return ". Azure rejected the key: check that \(azure.apiKeyVariable) holds a key of the resource at \(azure.endpoint.absoluteString) (Keys and Endpoint in the Azure portal), and \(endpoint)."
        case 403:
            return ". The key may not use this resource from here: check the resource's networking (firewall, private endpoint), that \(azure.apiKeyVariable) belongs to it, and \(endpoint)."
        case 404 where code == "DeploymentNotFound":
            if let deployment = azure.deployment {
                return ". The resource has no deployment named '\(deployment)': check the deployment name (\(azure.deploymentSource ?? "--azure-deployment"); its name in Azure AI Foundry, not the model's) and \(endpoint)."
            }
            return ". The resource has no deployment named by the request's model: in Azure's v1 API --model (or the prompt's model) names the deployment. Check it, or give --azure-deployment NAME, and check \(endpoint)."
        case 404:
            if azure.deployment == nil {
                return ". Nothing there: check \(endpoint), and that the resource offers the v1 API (else give --azure-deployment NAME for the deployment URL)."
            }
            return ". Nothing there: check \(endpoint)\(version), and the deployment name '\(azure.deployment ?? "")'."
        default:
            return nil
        }
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
    package static func snippet(_ body: Data, redactor: Redactor, limit: Int = 200) -> String {
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
