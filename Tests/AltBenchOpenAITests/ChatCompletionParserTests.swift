import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

/// What a 2xx body must parse to.
struct AnswerCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: Data
    var content: String?
    var refusal: String? = nil
    var finishReason: String? = "stop"
    var model: String? = nil
    var id: String? = nil
    var fingerprint: String? = nil
    var promptTokens: Int? = nil
    var completionTokens: Int? = nil
    var totalTokens: Int? = nil
    var reasoningTokens: Int? = nil
    var testDescription: String { name }

    static func fixture(_ name: String, _ edit: (inout AnswerCase) -> Void) -> AnswerCase {
        var answer = AnswerCase(name: name, body: OpenAIFixtures.body(name), content: nil)
        edit(&answer)
        return answer
    }

    static func inline(_ name: String, _ json: String, _ edit: (inout AnswerCase) -> Void) -> AnswerCase {
        var answer = AnswerCase(name: name, body: Data(json.utf8), content: nil)
        edit(&answer)
        return answer
    }
}

/// The `response.body` of the batch output line: a chat completion wrapped in a batch record.
func batchOutputBody() throws -> Data {
    let line = try JSONValue.parse(OpenAIFixtures.lines("14_batch_output_line")[0])
    let body = try #require(line["response"]?["body"])
    return Data(body.canonicalText.utf8)
}

let answerCases: [AnswerCase] = [
    .fixture("02_vision_success_response") {
        $0.content =
            "The image shows a wooden boardwalk path running through a lush green field or meadow. The sky is bright blue with some scattered clouds, giving the scene a serene and peaceful atmosphere. Trees and shrubs are visible in the background."
        $0.model = "gpt-5.4"
        $0.id = "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG"
        $0.promptTokens = 1117
        $0.completionTokens = 46
        $0.totalTokens = 1163
        $0.reasoningTokens = 0
    },
    .fixture("02b_plain_success_response_with_fingerprint") {
        $0.content =
            "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or app like the Weather Channel or a local news station."
        $0.model = "gpt-4o-2024-08-06"
        $0.id = "chatcmpl-ABfvaueLEMLNYbT8YzpJxsmiQ6HSY"
        $0.fingerprint = "fp_b40fb1c6fb"
        $0.promptTokens = 14
        $0.completionTokens = 37
        $0.totalTokens = 51
        $0.reasoningTokens = 0
    },
    .fixture("03_length_truncated_response") {
        $0.content = "{\""
        $0.finishReason = "length"
        $0.model = "gpt-4o-2024-08-06"
        $0.id = "chatcmpl-ABfvvX7eB1KsfeZj8VcF3z7G7SbaA"
        $0.fingerprint = "fp_7568d46099"
        $0.promptTokens = 79
        $0.completionTokens = 1
        $0.totalTokens = 80
        $0.reasoningTokens = 0
    },
    .fixture("04_refusal_response") {
        $0.content = nil
        $0.refusal = "I'm very sorry, but I can't assist with that."
        $0.model = "gpt-4o-2024-08-06"
        $0.id = "chatcmpl-ABfvwoKVWPQj2UPlAcAKM7s40GsRx"
        $0.fingerprint = "fp_5050236cbd"
        $0.promptTokens = 79
        $0.completionTokens = 12
        $0.totalTokens = 91
        $0.reasoningTokens = 0
    },
    .inline(
        "missing usage, logprobs, refusal and id",
        #"{"object":"chat.completion","model":"llava","choices":[{"index":0,"message":{"role":"assistant","content":"A cat on a sofa."},"finish_reason":"stop"}]}"#
    ) {
        $0.content = "A cat on a sofa."
        $0.model = "llava"
    },
    .inline(
        "unknown fields (vLLM, llama.cpp, Azure, OpenRouter)",
        #"""
        {"id":"gen-1","provider":"Fireworks","model":"qwen/qwen2.5-vl","object":"chat.completion","created":1,
         "prompt_filter_results":[{"prompt_index":0,"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}}}],
         "choices":[{"index":0,"logprobs":null,"finish_reason":"stop","native_finish_reason":"STOP","stop_reason":null,
           "message":{"role":"assistant","content":"A red bicycle.","reasoning":"The user wants...","reasoning_content":"Let me look.","tool_calls":[]},
           "content_filter_results":{}}],
         "usage":{"prompt_tokens":900,"completion_tokens":30,"total_tokens":930,"completion_tokens_details":{"reasoning_tokens":25},"cost":0.0001},
         "timings":{"prompt_n":900,"predicted_ms":123.4}}
        """#
    ) {
        $0.content = "A red bicycle."
        $0.model = "qwen/qwen2.5-vl"
        $0.id = "gen-1"
        $0.promptTokens = 900
        $0.completionTokens = 30
        $0.totalTokens = 930
        $0.reasoningTokens = 25
    },
    .inline(
        "only native_finish_reason",
        #"{"choices":[{"message":{"content":"A dog."},"native_finish_reason":"MAX_TOKENS"}]}"#
    ) {
        $0.content = "A dog."
        $0.finishReason = "MAX_TOKENS"
    },
    .inline(
        "content as an array of text parts",
        #"{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"A lighthouse "},{"type":"reasoning","text":"(hidden)"},{"type":"text","text":"at dusk."}]},"finish_reason":"stop"}]}"#
    ) {
        $0.content = "A lighthouse at dusk."
    },
    .inline(
        "Ollama (ids repeat across answers)",
        #"{"id":"chatcmpl-123","object":"chat.completion","created":1700000000,"model":"llava:7b","system_fingerprint":"fp_ollama","choices":[{"index":0,"message":{"role":"assistant","content":"A cup of coffee."},"finish_reason":"stop"}],"usage":{"prompt_tokens":600,"completion_tokens":6,"total_tokens":606}}"#
    ) {
        $0.content = "A cup of coffee."
        $0.model = "llava:7b"
        $0.id = "chatcmpl-123"
        $0.fingerprint = "fp_ollama"
        $0.promptTokens = 600
        $0.completionTokens = 6
        $0.totalTokens = 606
    },
    .inline(
        "reasoning model out of budget: 200, length, empty content",
        #"{"id":"chatcmpl-r","model":"o4-mini","choices":[{"index":0,"message":{"role":"assistant","content":"","refusal":null},"finish_reason":"length"}],"usage":{"prompt_tokens":700,"completion_tokens":50,"total_tokens":750,"completion_tokens_details":{"reasoning_tokens":50}}}"#
    ) {
        $0.content = ""
        $0.finishReason = "length"
        $0.model = "o4-mini"
        $0.id = "chatcmpl-r"
        $0.promptTokens = 700
        $0.completionTokens = 50
        $0.totalTokens = 750
        $0.reasoningTokens = 50
    },
]

/// 2xx bodies that are not chat completions.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var body: Data
    var testDescription: String { name }

    init(_ name: String, _ body: Data) {
        self.name = name
        self.body = body
    }

    init(_ name: String, _ text: String) {
        self.init(name, Data(text.utf8))
    }

    static func fixture(_ name: String) -> MalformedCase {
        MalformedCase(name, OpenAIFixtures.body(name))
    }
}

let malformedCases: [MalformedCase] = [
    // A request, a stream and batch records sent where a completion was expected.
    .fixture("01_vision_request"),
    .fixture("05_stream_length_with_usage"),
    .fixture("13_batch_input_line"),
    .fixture("14_batch_output_line"),
    MalformedCase("cut short", #"{"id": "chatcmpl-1", "choices": ["#),
    MalformedCase("empty body", ""),
    MalformedCase("HTML", "<html><head><title>Welcome to nginx!</title></head></html>"),
    MalformedCase("a JSON array", "[1, 2]"),
    MalformedCase("no choices", #"{"id":"chatcmpl-1","object":"chat.completion","model":"gpt-4o-mini"}"#),
    MalformedCase("empty choices", #"{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":1}}"#),
    MalformedCase("choices not an array", #"{"choices":{"message":{"content":"x"}}}"#),
    MalformedCase("null error is no error, still no choices", #"{"error":null}"#),
]

@Suite("ChatCompletionParser")
struct ChatCompletionParserTests {
    let redactor = Redactor(secrets: ["sk" + "-live-secret-value-1234"])

    @Test(arguments: answerCases)
    func parsesAnswer(_ expected: AnswerCase) throws {
        let answer = try ChatCompletionParser.answer(from: expected.body, requestID: "req_1", redactor: redactor)
        #expect(answer.content == expected.content)
        #expect(answer.refusal == expected.refusal)
        #expect(answer.finishReason == expected.finishReason)
        #expect(answer.responseModel == expected.model)
        #expect(answer.responseID == expected.id)
        #expect(answer.systemFingerprint == expected.fingerprint)
        #expect(answer.promptTokens == expected.promptTokens)
        #expect(answer.completionTokens == expected.completionTokens)
        #expect(answer.totalTokens == expected.totalTokens)
        #expect(answer.reasoningTokens == expected.reasoningTokens)
        #expect(answer.requestID == "req_1")
        #expect(answer.rawBody == String(decoding: expected.body, as: UTF8.self))
    }

    @Test func batchOutputLineWrapsAnOrdinaryCompletion() throws {
        let answer = try ChatCompletionParser.answer(from: try batchOutputBody(), requestID: nil, redactor: redactor)
        #expect(answer.content == "2 + 2 equals 4.")
        #expect(answer.responseID == "chatcmpl-9758Iw")
        #expect(answer.systemFingerprint == nil)
        #expect(answer.totalTokens == 39)
    }

    @Test func repeatedIDsAreTwoAnswers() throws {
        // Ollama draws ids from a small range; nothing may rely on them being unique.
        let body = Data(#"{"id":"chatcmpl-7","choices":[{"message":{"content":"A"},"finish_reason":"stop"}]}"#.utf8)
        let first = try ChatCompletionParser.answer(from: body, requestID: nil, redactor: redactor)
        let second = try ChatCompletionParser.answer(from: body, requestID: nil, redactor: redactor)
        #expect(first.responseID == "chatcmpl-7")
        #expect(first == second)
    }

    @Test(arguments: malformedCases)
    func rejectsWhatIsNotACompletion(_ malformed: MalformedCase) throws {
        let failure = try #require(throws: ModelFailure.self) {
            try ChatCompletionParser.answer(from: malformed.body, requestID: "req_9", redactor: redactor)
        }
        #expect(failure.kind == .malformed)
        #expect(failure.retryable)
        #expect(!failure.stopsRun)
        #expect(failure.requestID == "req_9")
        #expect(!failure.message.contains("<"), "\(failure.message)")
    }

    @Test func errorInA200IsAnHTTPFailure() throws {
        let body = OpenAIFixtures.body("10_500_server_error")
        let failure = try #require(throws: ModelFailure.self) {
            try ChatCompletionParser.answer(from: body, requestID: "req_2", redactor: redactor)
        }
        #expect(failure.kind == .http)
        #expect(failure.status == 200)
        #expect(failure.type == "server_error")
        #expect(failure.message.contains("The server had an error processing your request"))
        #expect(failure.requestID == "req_2")
        #expect(!failure.retryable)
    }

    @Test func errorInA200WithAnHTTPCodeIsJudgedByThatCode() throws {
        // llama.cpp-style integer codes: a 401 in a 200 still means the key is wrong.
        let unauthorized = try #require(throws: ModelFailure.self) {
            try ChatCompletionParser.answer(from: OpenAIFixtures.body("15_llamacpp_error"), requestID: nil, redactor: redactor)
        }
        #expect(unauthorized.stopsRun)
        let overloaded = try #require(throws: ModelFailure.self) {
            try ChatCompletionParser.answer(
                from: Data(#"{"error":{"code":502,"message":"Provider returned error"}}"#.utf8), requestID: nil,
                redactor: redactor, headers: ["x-should-retry": "true"])
        }
        #expect(overloaded.retryable)
        #expect(!overloaded.stopsRun)
    }

    @Test func rawBodyIsRedacted() throws {
        let body = Data(
            (#"{"choices":[{"message":{"content":"ok"}}],"echo":""# + "sk" + #"-live-secret-value-1234","other":""#
                + "sk" + #"-proj-abcdef123456"}"#).utf8)
        let answer = try ChatCompletionParser.answer(from: body, requestID: nil, redactor: redactor)
        let raw = try #require(answer.rawBody)
        #expect(!raw.contains("sk-"))
        #expect(raw.contains(Redactor.placeholder))
    }

    /// Every bundled fixture is exercised by one of the tables in this target.
    @Test func everyFixtureIsCovered() {
        let covered = Set(answerCases.map(\.name) + malformedCases.map(\.name) + errorFixtureNames + ["08_429_headers"])
        let files = OpenAIFixtures.names.filter { $0 != "SOURCES.md" }
        for file in files {
            let stem = String(file.prefix { $0 != "." })
            #expect(covered.contains(stem), "fixture \(file) has no test case")
        }
        #expect(files.count == 19)
    }
}
