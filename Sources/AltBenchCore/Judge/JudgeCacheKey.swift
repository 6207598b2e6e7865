import Foundation

/// The cache key of one judgement.
///
/// It covers everything that changes the judge's verdict: the endpoint and model, the
/// rubric's text (by its hash: renaming the file changes nothing), altbench's own contract,
/// preamble and schema (``JudgeRequest/templateDigest``), the image and the detail it is sent
/// at, the answer, the post text and language, the judge's `max_tokens` (a smaller ceiling may
/// cut the verdict off) and whether structured output was asked for. The parts are encoded as one
/// JSON array, so no two different sets of parts give the same text ("ab" + "c" is not
/// "a" + "bc", and an absent post is not an empty one).
public enum JudgeCacheKey {
    /// The key's prefix; raise its number when the encoding changes.
    public static let version = "judge-v1"

    public static func make(
        endpoint: String, model: String, rubric: JudgeRubric, imageIdentity: String, detail: ImageDetail?,
        answer: String, context: String?, lang: String?, maxTokens: Int, structuredOutput: Bool
    ) -> String {
        let parts: JSONValue = [
            .string(version), .string(endpoint), .string(model), .string(rubric.sha256),
            .string(JudgeRequest.templateDigest), .string(imageIdentity), detail.map { .string($0.rawValue) } ?? .null,
            .string(answer), context.map(JSONValue.string) ?? .null, lang.map(JSONValue.string) ?? .null,
            .int(maxTokens), .bool(structuredOutput),
        ]
        return version + ":" + Hashing.sha256Hex(parts.canonicalText)
    }
}
