import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

/// A server without structured outputs: a 400 about `response_format` is answered by sending
/// the judge's request once more without it, and the model is sent without it from then on.
@Suite("response_format fallback")
struct ResponseFormatFallbackTests {
    static let verdict = JudgeVerdict(accuracy: 4, completeness: 4, concision: 4).json

    /// A judge request (with `response_format` when `structured`).
    static func judgeRequest(model: String = "gpt-4o", structured: Bool = true) -> ModelRequest {
        JudgeRequest.make(
            model: model, rubric: JudgeRubric(name: "alt-text.md", text: "Accuracy first."),
            subject: JudgeSubject(itemID: "x", answer: "A cat on a sofa.", context: "Our cat."),
            image: .remote(mastodonImage), imageIdentity: mastodonImage.absoluteString, detail: .low, maxTokens: 400,
            tokenField: .maxTokens, structuredOutput: structured)
    }

    /// How a server may refuse `response_format`.
    struct Rejection: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int = 400
        var message: String
        var param: String?
        var code: String? = nil
        var testDescription: String { name }
    }

    static let rejections: [Rejection] = [
        Rejection(
            name: "OpenAI: param response_format",
            message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
            param: "response_format"),
        Rejection(name: "param names a field inside it", message: "Invalid schema.", param: "response_format.json_schema"),
        Rejection(name: "only the message says so: json_schema", message: "json_schema is not supported", param: nil),
        Rejection(name: "only the message says so: response_format", message: "Unknown field RESPONSE_FORMAT.", param: nil),
        Rejection(
            name: "a 422 from a validating server", status: 422, message: "body.response_format: extra fields not permitted",
            param: nil),
    ]

    /// A server that refuses any body with `response_format` as `rejection` says, and answers
    /// the others with a verdict.
    static func server(rejecting rejection: Rejection) async throws -> OpenAITestServer {
        try await OpenAITestServer.start(
            handler: ResponseScript([], then: { request in
                if (try? request.json())?["response_format"] != nil {
                    return .error(
                        status: rejection.status, message: rejection.message, code: rejection.code, param: rejection.param)
                }
                return .chatCompletion(content: verdict)
            }).handler)
    }

    static func bodies(_ server: OpenAITestServer) async throws -> [JSONValue] {
        try await server.requests().map { try $0.json() }
    }

    @Test("a rejected response_format is resent once without it, and that model is sent without it at once from then on", arguments: rejections)
    func fallsBack(_ rejection: Rejection) async throws {
        let server = try await Self.server(rejecting: rejection)
        let client = model(server)
        let answer = try await client.complete(Self.judgeRequest())
        #expect(answer.content == Self.verdict)
        var bodies = try await Self.bodies(server)
        #expect(bodies.count == 2)
        #expect(bodies.first?["response_format"]?["type"]?.stringValue == "json_schema")
        #expect(bodies.last?["response_format"] == nil)
        // The resend is the same request otherwise.
        if case .object(var first) = bodies[0], case .object(let second) = bodies[1] {
            first["response_format"] = nil
            #expect(first == second)
        } else {
            Issue.record("bodies are not objects")
        }

        #expect(try await client.complete(Self.judgeRequest()).content == Self.verdict)
        bodies = try await Self.bodies(server)
        #expect(bodies.count == 3, "the next request for the model goes without response_format at once")
        #expect(bodies.last?["response_format"] == nil)

        // Another model is asked with response_format until it refuses too.
        _ = try await client.complete(Self.judgeRequest(model: "gpt-4.1"))
        bodies = try await Self.bodies(server)
        #expect(bodies.count == 5)
        #expect(bodies[3]["model"]?.stringValue == "gpt-4.1" && bodies[3]["response_format"] != nil)
        #expect(bodies[4]["response_format"] == nil)
        await server.stop()
    }

    /// Failures that are not about `response_format`, or not a client error.
    static let otherFailures: [Rejection] = [
        Rejection(name: "a 400 about the image", message: "Invalid image URL.", param: "messages", code: "invalid_image_url"),
        Rejection(name: "a 400 about temperature", message: "Unsupported value: 'temperature'.", param: "temperature"),
        Rejection(
            name: "a 500 that mentions response_format", status: 500, message: "Error while handling response_format.",
            param: nil),
        Rejection(name: "a 429", status: 429, message: "Rate limit reached for json_schema requests.", param: nil),
    ]

    @Test("a failure about something else is not retried, and the next request still asks for response_format", arguments: otherFailures)
    func otherFailureNotRetried(_ rejection: Rejection) async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .error(status: rejection.status, message: rejection.message, code: rejection.code, param: rejection.param)
            ], then: { _ in .chatCompletion(content: Self.verdict) }).handler)
        let client = model(server)
        let failure = try await expectFailure(client, Self.judgeRequest())
        #expect(failure.status == rejection.status)
        #expect(try await Self.bodies(server).count == 1)
        _ = try await client.complete(Self.judgeRequest())
        let bodies = try await Self.bodies(server)
        #expect(bodies.count == 2)
        #expect(bodies.last?["response_format"] != nil)
        await server.stop()
    }

    @Test("a request without response_format is never resent, whatever the 400 says")
    func withoutResponseFormatNeverResent() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([], then: { _ in
                .error(status: 400, message: "'response_format' of type 'json_schema' is not supported.", param: "response_format")
            }).handler)
        let client = model(server)
        let failure = try await expectFailure(client, Self.judgeRequest(structured: false))
        #expect(failure.status == 400)
        let alt = try await expectFailure(client)
        #expect(alt.status == 400)
        let bodies = try await Self.bodies(server)
        #expect(bodies.count == 2, "one request each")
        #expect(bodies.allSatisfy { $0["response_format"] == nil })
        await server.stop()
    }

    @Test("a resend that fails too is the failure, after exactly two requests")
    func resendFailsToo() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([], then: { _ in
                .error(status: 400, message: "json_schema is not supported", param: nil)
            }).handler)
        let failure = try await expectFailure(model(server), Self.judgeRequest())
        #expect(failure.status == 400)
        #expect(try await Self.bodies(server).count == 2)
        await server.stop()
    }

    /// ``OpenAIVisionModel/rejectsResponseFormat(_:)`` on failures as parsed.
    static let classified: [(name: String, failure: ModelFailure, rejects: Bool)] = [
        ("400 param", ModelFailure(kind: .http, status: 400, message: "x", param: "response_format", retryable: false), true),
        ("400 nested param", ModelFailure(kind: .http, status: 400, message: "x", param: "response_format.type", retryable: false), true),
        ("422 message", ModelFailure(kind: .http, status: 422, message: "response_format: unknown", retryable: false), true),
        ("400 JSON_SCHEMA in capitals", ModelFailure(kind: .http, status: 400, message: "JSON_SCHEMA unsupported", retryable: false), true),
        ("400 other param", ModelFailure(kind: .http, status: 400, message: "Bad temperature.", param: "temperature", retryable: false), false),
        ("500 param", ModelFailure(kind: .http, status: 500, message: "x", param: "response_format", retryable: true), false),
        ("no status", ModelFailure(kind: .transport, message: "response_format", retryable: true), false),
    ]

    @Test("which failures are about response_format", arguments: classified)
    func classification(name: String, failure: ModelFailure, rejects: Bool) {
        #expect(OpenAIVisionModel.rejectsResponseFormat(failure) == rejects, "\(name)")
    }
}
