import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

struct RetryAfterCase: Sendable, CustomTestStringConvertible {
    var name: String
    var headers: [String: String]
    var wait: Duration?
    var testDescription: String { name }

    init(_ name: String, _ headers: [String: String], _ wait: Duration?) {
        self.name = name
        self.headers = headers
        self.wait = wait
    }
}

/// A fixed "now" for HTTP dates: Wed, 21 Oct 2015 07:28:00 GMT.
let retryNow = Date(timeIntervalSince1970: 1_445_412_480)

let retryAfterCases: [RetryAfterCase] = [
    RetryAfterCase("retry-after-ms", ["retry-after-ms": "250"], .milliseconds(250)),
    RetryAfterCase("retry-after-ms fractional", ["retry-after-ms": "1.5"], .microseconds(1500)),
    RetryAfterCase("retry-after-ms before Retry-After", ["retry-after-ms": "10", "retry-after": "5"], .milliseconds(10)),
    RetryAfterCase("Retry-After seconds", ["retry-after": "3"], .seconds(3)),
    RetryAfterCase("Retry-After zero", ["retry-after": "0"], .zero),
    RetryAfterCase("Retry-After with spaces", ["retry-after": " 20 "], .seconds(20)),
    RetryAfterCase("Retry-After HTTP date", ["retry-after": "Wed, 21 Oct 2015 07:28:30 GMT"], .seconds(30)),
    RetryAfterCase("Retry-After HTTP date in the past", ["retry-after": "Wed, 21 Oct 2015 07:00:00 GMT"], .zero),
    RetryAfterCase("Retry-After before the resets", ["retry-after": "1", "x-ratelimit-reset-tokens": "6m0s"], .seconds(1)),
    RetryAfterCase("reset 120ms", ["x-ratelimit-reset-requests": "120ms"], .milliseconds(120)),
    RetryAfterCase("reset 1s", ["x-ratelimit-reset-requests": "1s"], .seconds(1)),
    RetryAfterCase("reset 6m0s", ["x-ratelimit-reset-tokens": "6m0s"], .seconds(360)),
    RetryAfterCase("reset 1h2m3.5s", ["x-ratelimit-reset-tokens": "1h2m3.5s"], .milliseconds(3_723_500)),
    RetryAfterCase(
        "the larger reset", ["x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"], .seconds(360)),
    RetryAfterCase(
        "the larger reset, other order", ["x-ratelimit-reset-requests": "6m0s", "x-ratelimit-reset-tokens": "120ms"],
        .seconds(360)),
    RetryAfterCase("no headers", [:], nil),
    RetryAfterCase("unrelated headers", ["x-ratelimit-remaining-requests": "0", "content-type": "text/html"], nil),
    // Garbage is ignored: the next header decides, else nothing.
    RetryAfterCase("garbage retry-after-ms falls through", ["retry-after-ms": "soon", "retry-after": "2"], .seconds(2)),
    RetryAfterCase("negative retry-after-ms", ["retry-after-ms": "-5"], nil),
    RetryAfterCase("retry-after-ms inf", ["retry-after-ms": "inf"], nil),
    RetryAfterCase("retry-after-ms nan", ["retry-after-ms": "nan"], nil),
    RetryAfterCase("retry-after-ms exponent", ["retry-after-ms": "1e400"], nil),
    RetryAfterCase("retry-after-ms hex", ["retry-after-ms": "0x10"], nil),
    RetryAfterCase("Retry-After negative", ["retry-after": "-1"], nil),
    RetryAfterCase("Retry-After garbage", ["retry-after": "tomorrow"], nil),
    RetryAfterCase("Retry-After empty", ["retry-after": ""], nil),
    RetryAfterCase("Retry-After garbage, reset used", ["retry-after": "later", "x-ratelimit-reset-requests": "1s"], .seconds(1)),
    RetryAfterCase("reset without unit", ["x-ratelimit-reset-requests": "12"], nil),
    RetryAfterCase("reset unknown unit", ["x-ratelimit-reset-requests": "3d"], nil),
    RetryAfterCase("reset empty", ["x-ratelimit-reset-requests": ""], nil),
    RetryAfterCase("reset two dots", ["x-ratelimit-reset-requests": "1.2.3s"], nil),
    RetryAfterCase("garbage reset, good reset", ["x-ratelimit-reset-requests": "x", "x-ratelimit-reset-tokens": "8ms"], .milliseconds(8)),
    // Huge values must not overflow a Duration; they are capped (and the retry policy then
    // refuses to wait that long).
    RetryAfterCase("huge seconds", ["retry-after": "99999999999999999999999999"], RetryAfter.maximum),
    RetryAfterCase("huge reset", ["x-ratelimit-reset-tokens": "99999999999999999999h"], RetryAfter.maximum),
]

@Suite("RetryAfter")
struct RetryAfterTests {
    @Test(arguments: retryAfterCases)
    func parses(_ expected: RetryAfterCase) {
        #expect(RetryAfter.parse(expected.headers, now: retryNow) == expected.wait)
    }

    @Test func resetsCanBeLeftOut() {
        let headers = ["x-ratelimit-reset-requests": "1s", "retry-after": "oops"]
        #expect(RetryAfter.parse(headers, includeRateLimitResets: false) == nil)
        #expect(RetryAfter.parse(["retry-after": "4"], includeRateLimitResets: false) == .seconds(4))
    }

    /// The headers api.openai.com returned with a 429 (fixture 08_429_headers.txt).
    @Test func openAIRateLimitHeaders() {
        var headers: [String: String] = [:]
        for line in OpenAIFixtures.text("08_429_headers").split(separator: "\n") where !line.hasPrefix("#") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        #expect(headers["x-ratelimit-reset-requests"] == "120ms")
        #expect(RetryAfter.parse(headers) == .milliseconds(120))
        let failure = ErrorBodyParser.failure(
            status: 429, headers: headers, body: OpenAIFixtures.body("08_429_rate_limit_request_too_large"),
            redactor: Redactor(secrets: []))
        #expect(failure.retryAfter == .milliseconds(120))
        #expect(!failure.retryable)
    }
}
