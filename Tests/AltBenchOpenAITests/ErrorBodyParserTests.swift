import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

/// What an error answer must turn into.
struct ErrorCase: Sendable, CustomTestStringConvertible {
    var name: String
    var status: Int
    var body: Data
    var headers: [String: String] = [:]
    var code: String? = nil
    var type: String? = nil
    var param: String? = nil
    var retryable: Bool
    var stopsRun: Bool = false
    /// Texts the message must contain.
    var says: [String] = []
    /// Texts the message must not contain.
    var never: [String] = ["<", "sk-"]
    var testDescription: String { name }

    static func fixture(
        _ name: String, line: Int? = nil, status: Int, retryable: Bool, _ edit: (inout ErrorCase) -> Void = { _ in }
    ) -> ErrorCase {
        let body = line.map { OpenAIFixtures.lines(name)[$0] } ?? OpenAIFixtures.body(name)
        var error = ErrorCase(name: line.map { "\(name) line \($0 + 1)" } ?? name, status: status, body: body, retryable: retryable)
        edit(&error)
        return error
    }

    static func inline(
        _ name: String, status: Int, _ text: String, retryable: Bool, _ edit: (inout ErrorCase) -> Void = { _ in }
    ) -> ErrorCase {
        var error = ErrorCase(name: name, status: status, body: Data(text.utf8), retryable: retryable)
        edit(&error)
        return error
    }
}

let errorCases: [ErrorCase] = [
    .fixture("06_400_unsupported_parameter_max_tokens", status: 400, retryable: false) {
        $0.code = "unsupported_parameter"
        $0.type = "invalid_request_error"
        $0.param = "max_tokens"
        $0.says = ["HTTP 400", "'max_tokens' is not supported with this model", "(unsupported_parameter, param max_tokens)"]
    },
    .fixture("07_401_invalid_api_key", status: 401, retryable: false) {
        $0.code = "invalid_api_key"
        $0.type = "invalid_request_error"
        $0.stopsRun = true
        // OpenAI echoes the key half-masked ("sk-VKMIs***...wjh3"); even that must not be kept.
        $0.says = ["Incorrect API key provided: [redacted]", "check OPENAI_API_KEY"]
        $0.never = ["sk-", "VKMIs", "wjh3"]
    },
    .fixture("08_429_rate_limit_request_too_large", status: 429, retryable: false) {
        // "Request too large": the request can never fit the tokens-per-minute limit, and
        // the run's other requests are much the same, so the run stops.
        $0.stopsRun = true
        $0.code = "rate_limit_exceeded"
        $0.type = "tokens"
        $0.says = ["Request too large for gpt-4o", "Requested 31538"]
    },
    .fixture("09_429_insufficient_quota", status: 429, retryable: false) {
        $0.code = "insufficient_quota"
        $0.type = "insufficient_quota"
        $0.stopsRun = true
        $0.says = ["exceeded your current quota", "check billing"]
    },
    .fixture("10_500_server_error", status: 500, retryable: true) {
        $0.type = "server_error"
        $0.says = ["HTTP 500", "req_540c6eaab7f4556b2baa22bcba915d51"]
    },
    .fixture("11_400_temperature_unsupported_value", status: 400, retryable: false) {
        $0.code = "unsupported_value"
        $0.type = "invalid_request_error"
        $0.param = "temperature"
        $0.says = ["does not support 0.01 with this model"]
    },
    .fixture("12_400_image_download_errors", line: 0, status: 400, retryable: false) {
        $0.code = "invalid_image_url"
        $0.type = "invalid_request_error"
        $0.says = ["Timeout while downloading 20250503_162129.jpg."]
    },
    .fixture("12_400_image_download_errors", line: 1, status: 400, retryable: false) {
        $0.code = "invalid_image"
        $0.type = "invalid_request_error"
        $0.says = ["Image size exceeds the limit."]
    },
    .fixture("15_llamacpp_error", status: 401, retryable: false) {
        $0.code = "401"
        $0.type = "authentication_error"
        $0.stopsRun = true
        $0.says = ["Invalid API Key (401)", "check OPENAI_API_KEY"]
    },
    .fixture("16_lmstudio_error", status: 400, retryable: false) {
        $0.says = ["HTTP 400", "'url' field must be a base64 encoded image."]
    },
    .fixture("17_azure_content_filter_400", status: 400, retryable: false) {
        $0.code = "content_filter"
        $0.says = ["Azure OpenAI's content management policy"]
    },
    .inline(
        "HTML 502 from a proxy", status: 502,
        "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title><style>body{color:red}</style></head>\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body>\n</html>\n",
        retryable: true
    ) {
        $0.says = ["HTTP 502", "HTML page: 502 Bad Gateway"]
        $0.never = ["<", "color:red", "nginx"]
    },
    .inline(
        "HTML 503 without a title", status: 503,
        "<html><body><script>var x = 1;</script><h1>Service   Unavailable</h1>\n<p>Try later.</p></body></html>",
        retryable: true
    ) {
        $0.says = ["HTML page: Service Unavailable Try later."]
        $0.never = ["<", "var x"]
    },
    .inline("empty body", status: 504, "", retryable: true) {
        $0.says = ["HTTP 504", "(empty body)"]
    },
    .inline("plain text", status: 503, "upstream connect error or disconnect/reset before headers", retryable: true) {
        $0.says = ["upstream connect error"]
    },
    .inline(
        "llama.cpp loading the model", status: 503,
        #"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#, retryable: true
    ) {
        $0.code = "503"
        $0.type = "unavailable_error"
    },
    .inline(
        "vLLM top-level error object", status: 400,
        #"{"object":"error","message":"The model `llava` does not exist.","type":"NotFoundError","param":null,"code":404}"#,
        retryable: false
    ) {
        $0.code = "404"
        $0.type = "NotFoundError"
        $0.says = ["The model `llava` does not exist."]
    },
    .inline("FastAPI detail", status: 404, #"{"detail":"Not Found"}"#, retryable: false) {
        $0.stopsRun = true
        $0.says = ["Not Found", "check --base-url"]
    },
    .inline(
        "403 no access", status: 403,
        #"{"error":{"message":"Project `proj_x` does not have access to model `gpt-4o`","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
        retryable: false
    ) {
        $0.code = "model_not_found"
        $0.type = "invalid_request_error"
        $0.stopsRun = true
    },
    .inline(
        "429 rate limit", status: 429,
        #"{"error":{"message":"Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#,
        retryable: true
    ) {
        $0.code = "rate_limit_exceeded"
        $0.type = "requests"
    },
    .inline("408", status: 408, "", retryable: true),
    .inline("409", status: 409, "", retryable: true),
    .inline("422", status: 422, #"{"detail":[{"loc":["body","messages"],"msg":"field required"}]}"#, retryable: false) {
        $0.says = ["field required"]
    },
    .inline("x-should-retry false wins over 500", status: 500, "", retryable: false) {
        $0.headers = ["x-should-retry": "false"]
    },
    .inline("x-should-retry true wins over 400", status: 400, #"{"error":"busy"}"#, retryable: true) {
        $0.headers = ["x-should-retry": "true"]
    },
    .inline("a long traceback is cut", status: 500, #"{"error":{"message":"\#(String(repeating: "line\\n", count: 2000))"}}"#, retryable: true) {
        $0.never = ["\n"]
    },
]

/// The fixture files the error table reads.
let errorFixtureNames = errorCases.map { String($0.name.prefix { $0 != " " }) }

@Suite("ErrorBodyParser")
struct ErrorBodyParserTests {
    let redactor = Redactor(secrets: ["sk" + "-live-secret-value-1234"])

    @Test(arguments: errorCases)
    func classifies(_ expected: ErrorCase) {
        let failure = ErrorBodyParser.failure(
            status: expected.status, headers: expected.headers, body: expected.body, redactor: redactor)
        #expect(failure.kind == .http)
        #expect(failure.status == expected.status)
        #expect(failure.code == expected.code)
        #expect(failure.type == expected.type)
        #expect(failure.param == expected.param)
        #expect(failure.retryable == expected.retryable)
        #expect(failure.stopsRun == expected.stopsRun)
        for text in expected.says {
            #expect(failure.message.contains(text), "\(failure.message)")
        }
        for text in expected.never {
            #expect(!failure.message.contains(text), "\(failure.message)")
        }
        #expect(failure.message.count < 1200)
    }

    @Test func aProxyAllowlistRefusalNamesTheAllowlistNotTheKey() {
        let body = Data(#"{"error": {"message": "This proxy does not forward model gpt-4.1.", "type": "invalid_request_error", "code": "model_not_allowed"}}"#.utf8)
        let failure = ErrorBodyParser.failure(
            status: 403, headers: [:], body: body, redactor: redactor, url: "http://127.0.0.1:8080/v1/chat/completions")
        #expect(failure.stopsRun)
        #expect(failure.message.contains("--allow-model"), "\(failure.message)")
        #expect(!failure.message.contains("The key has no access"), "\(failure.message)")
    }

    @Test func messageNamesTheEndpointTheKeyVariableAndTheRequestID() {
        let failure = ErrorBodyParser.failure(
            status: 401, headers: ["x-request-id": "req_abc"], body: OpenAIFixtures.body("07_401_invalid_api_key"),
            redactor: redactor, url: "http://127.0.0.1:8080/v1/chat/completions", apiKeyVariable: "GROQ_API_KEY")
        #expect(failure.message.hasPrefix("HTTP 401 from http://127.0.0.1:8080/v1/chat/completions: "))
        #expect(failure.message.contains("check GROQ_API_KEY"))
        #expect(failure.requestID == "req_abc")
        let azure = ErrorBodyParser.failure(
            status: 500, headers: ["apim-request-id": "azure-1"], body: Data(), redactor: redactor)
        #expect(azure.requestID == "azure-1")
    }

    @Test func configuredSecretIsRedactedEvenWhenNotKeyShaped() {
        let redactor = Redactor(secrets: ["local-server-token-42"])
        let failure = ErrorBodyParser.failure(
            status: 401, headers: [:], body: Data(#"{"error":"bad token local-server-token-42"}"#.utf8), redactor: redactor)
        #expect(!failure.message.contains("local-server-token-42"))
        #expect(failure.message.contains(Redactor.placeholder))
    }

    @Test func retryAfterComesFromTheHeaders() {
        let limited = ErrorBodyParser.failure(
            status: 429, headers: ["retry-after-ms": "250", "x-ratelimit-reset-requests": "2s"], body: Data(),
            redactor: redactor)
        #expect(limited.retryAfter == .milliseconds(250))
        let reset = ErrorBodyParser.failure(
            status: 429, headers: ["x-ratelimit-reset-requests": "2s"], body: Data(), redactor: redactor)
        #expect(reset.retryAfter == .seconds(2))
        // OpenAI sends the reset headers with every answer; on a 500 they are not a wait.
        let serverError = ErrorBodyParser.failure(
            status: 500, headers: ["x-ratelimit-reset-requests": "2s"], body: Data(), redactor: redactor)
        #expect(serverError.retryAfter == nil)
        let unavailable = ErrorBodyParser.failure(
            status: 503, headers: ["retry-after": "3"], body: Data(), redactor: redactor)
        #expect(unavailable.retryAfter == .seconds(3))
    }
}
