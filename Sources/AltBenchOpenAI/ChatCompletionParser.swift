import AltBenchCore
import Foundation

/// Reads chat-completion bodies leniently, the way real servers send them.
///
/// Unknown fields never fail a decode; `usage`, `refusal`, `id` and the rest may be missing;
/// `content` may be null (a refusal), a string, or an array of text parts.
package enum ChatCompletionParser {
    /// Largest part of a body kept in `ModelAnswer.rawBody`.
    static let rawBodyLimit = 64 * 1024

    /// The answer in a 2xx body, or a failure: `.malformed` when it is not a chat completion,
    /// `.http` when the server reported an error with a 2xx status.
    package static func answer(
        from body: Data, requestID: String?, redactor: Redactor, headers: [String: String] = [:]
    ) throws -> ModelAnswer {
        guard let root = try? JSONValue.parse(body), root.objectValue != nil else {
            // Retryable: a proxy or an overloaded server can cut a body short.
            throw ModelFailure(
                kind: .malformed,
                message: "the server answered 200 with a body that is not JSON: \(ErrorBodyParser.snippet(body, redactor: redactor))",
                requestID: requestID, retryable: true)
        }
        if let error = root["error"], !error.isNull {
            // Some servers (proxies, OpenRouter) report errors with status 200.
            var failure = ErrorBodyParser.failure(status: 200, headers: headers, body: body, redactor: redactor)
            failure.requestID = requestID ?? failure.requestID
            throw failure
        }
        guard let choice = root["choices"]?[0], choice.objectValue != nil else {
            throw ModelFailure(
                kind: .malformed,
                message: "the response has no choices[0]: \(ErrorBodyParser.snippet(body, redactor: redactor))",
                requestID: requestID, retryable: true)
        }
        let message = choice["message"]
        let usage = root["usage"]
        let finishReason = choice["finish_reason"]?.stringValue ?? choice["native_finish_reason"]?.stringValue
        var refusal = message?["refusal"]?.stringValue
        if refusal?.contains(where: { !$0.isWhitespace }) != true {
            refusal = contentFilterRefusal(finishReason: finishReason, choice: choice, root: root) ?? refusal
        }
        var answer = ModelAnswer(
            content: message?["content"].flatMap(text(of:)),
            refusal: refusal,
            finishReason: finishReason,
            responseModel: root["model"]?.stringValue,
            responseID: root["id"]?.stringValue,
            requestID: requestID,
            systemFingerprint: root["system_fingerprint"]?.stringValue,
            promptTokens: usage?["prompt_tokens"]?.intValue,
            completionTokens: usage?["completion_tokens"]?.intValue,
            totalTokens: usage?["total_tokens"]?.intValue,
            reasoningTokens: usage?["completion_tokens_details"]?["reasoning_tokens"]?.intValue,
            rawBody: redactor.redact(String(decoding: body.prefix(rawBodyLimit), as: UTF8.self)))
        answer.cachedTokens = usage?["prompt_tokens_details"]?["cached_tokens"]?.intValue
        answer.imageTokens = usage?["prompt_tokens_details"]?["image_tokens"]?.intValue
        return answer
    }

    // MARK: Azure's content filters

    /// The refusal text for a completion Azure's content filter stopped: "content filter:
    /// violence (medium)", with "content filter (prompt): jailbreak" when the prompt's own
    /// results (`prompt_filter_results`) flag something. `nil` when nothing was filtered.
    ///
    /// Recorded as a refusal so the trial scores as one, rather than as an empty answer or a
    /// failure; the content is kept as sent (Azure may send the part before the cut).
    static func contentFilterRefusal(finishReason: String?, choice: JSONValue, root: JSONValue) -> String? {
        let completion = filteredCategories(choice["content_filter_results"])
        let prompt = (root["prompt_filter_results"]?.arrayValue ?? []).flatMap {
            filteredCategories($0["content_filter_results"])
        }
        var parts: [String] = []
        if !completion.isEmpty { parts.append("content filter: " + completion.joined(separator: ", ")) }
        if !prompt.isEmpty { parts.append("content filter (prompt): " + prompt.joined(separator: ", ")) }
        if parts.isEmpty, finishReason?.lowercased() == "content_filter" { parts.append("content filter") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The answer for Azure's 400 `content_filter`: the prompt (here, the image or the prompt
    /// text) tripped a filter, so no completion exists. A refusal with no content and finish
    /// reason `content_filter`; `nil` for every other answer.
    package static func promptFilteredAnswer(status: Int, body: Data, requestID: String?, redactor: Redactor) -> ModelAnswer? {
        guard status == 400, let root = try? JSONValue.parse(body), let error = root["error"],
            error["code"]?.stringValue == "content_filter"
        else { return nil }
        let categories = filteredCategories(
            error["innererror"]?["content_filter_result"] ?? error["innererror"]?["content_filter_results"])
        let refusal = "content filter (prompt)" + (categories.isEmpty ? "" : ": " + categories.joined(separator: ", "))
        return ModelAnswer(
            content: nil, refusal: refusal, finishReason: "content_filter", requestID: requestID,
            rawBody: redactor.redact(String(decoding: body.prefix(rawBodyLimit), as: UTF8.self)))
    }

    /// The categories of one `content_filter_results` object whose `filtered` is true, in
    /// name order: "violence (medium)" for a severity, "jailbreak" for a detection, "custom
    /// blocklist ID" for each blocklist that matched.
    static func filteredCategories(_ results: JSONValue?) -> [String] {
        guard let categories = results?.objectValue else { return [] }
        return categories.keys.sorted().flatMap { name -> [String] in
            let result = categories[name]!
            if let lists = result.arrayValue ?? result["details"]?.arrayValue {
                // custom_blocklists: [{filtered, id}] (older versions) or {filtered, details: [...]}.
                let matched = lists.filter { $0["filtered"]?.boolValue == true }
                    .map { "custom blocklist " + ($0["id"]?.stringValue ?? "?") }
                if !matched.isEmpty { return matched }
            }
            guard result["filtered"]?.boolValue == true else { return [] }
            if let severity = result["severity"]?.stringValue { return ["\(name) (\(severity))"] }
            return [name]
        }
    }

    /// `message.content` as text: a string as is, an array as its text parts joined, else nil.
    ///
    /// Parts of other types (reasoning, images) are not alt text, so they are left out.
    static func text(of content: JSONValue) -> String? {
        switch content {
        case .string(let text):
            return text
        case .array(let parts):
            return parts.compactMap { part -> String? in
                if let text = part.stringValue { return text }
                let type = part["type"]?.stringValue
                guard type == nil || type == "text" || type == "output_text" else { return nil }
                return part["text"]?.stringValue
            }.joined()
        default:
            return nil
        }
    }
}
