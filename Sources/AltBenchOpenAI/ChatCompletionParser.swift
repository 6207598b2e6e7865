import AltBenchCore
import Foundation

/// Reads chat-completion bodies leniently, the way real servers send them.
///
/// Unknown fields never fail a decode; `usage`, `refusal`, `id` and the rest may be missing;
/// `content` may be null (a refusal), a string, or an array of text parts.
public enum ChatCompletionParser {
    /// Largest part of a body kept in `ModelAnswer.rawBody`.
    static let rawBodyLimit = 64 * 1024

    /// The answer in a 2xx body, or a failure: `.malformed` when it is not a chat completion,
    /// `.http` when the server reported an error with a 2xx status.
    public static func answer(
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
        return ModelAnswer(
            content: message?["content"].flatMap(text(of:)),
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
            rawBody: redactor.redact(String(decoding: body.prefix(rawBodyLimit), as: UTF8.self)))
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
