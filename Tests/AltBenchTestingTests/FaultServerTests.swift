import AltBenchCore
import AltBenchTesting
import AsyncHTTPClient
import Foundation
import Testing

/// Header fields every answer carries whatever the script says.
private let transportHeaders: Set<String> = ["content-type", "content-length", "date"]

/// The header fields of `result` other than `transportHeaders`, as "name: value", sorted.
private func scriptedHeaders(_ result: HTTPResult) -> [String] {
    result.headers
        .filter { !transportHeaders.contains($0.name.lowercased()) }
        .map { "\($0.name.lowercased()): \($0.value)" }
        .sorted()
}

struct RateLimitCase: Sendable, CustomTestStringConvertible {
    var name: String
    var response: ScriptedResponse
    var headers: [String]
    var type: String
    var message: String
    var testDescription: String { name }
}

private func rateLimitMessage(_ per: String, limit: Int, requested: Int, wait: String) -> String {
    "Rate limit reached for gpt-4o-mini in organization org-test on \(per): Limit \(limit), Used \(limit), "
        + "Requested \(requested). Please try again in \(wait). Visit https://platform.openai.com/account/rate-limits to learn more."
}

private let rpm = "requests per min (RPM)"

let rateLimitCases: [RateLimitCase] = [
    RateLimitCase(
        name: "retry-after-ms", response: .rateLimited(.retryAfterMilliseconds(1500)),
        headers: ["retry-after-ms: 1500"], type: "requests",
        message: rateLimitMessage(rpm, limit: 3, requested: 1, wait: "1.5s")),
    RateLimitCase(
        name: "retry-after seconds", response: .rateLimited(.retryAfterSeconds(2)),
        headers: ["retry-after: 2"], type: "requests",
        message: rateLimitMessage(rpm, limit: 3, requested: 1, wait: "2s")),
    RateLimitCase(
        name: "retry-after date", response: .rateLimited(.retryAfterDate(Date(timeIntervalSince1970: 1_445_412_480))),
        headers: ["retry-after: Wed, 21 Oct 2015 07:28:00 GMT"], type: "requests",
        message: rateLimitMessage(rpm, limit: 3, requested: 1, wait: "20s")),
    RateLimitCase(
        name: "x-ratelimit-reset on requests", response: .rateLimited(.rateLimitReset(requests: "6m0s", tokens: "120ms")),
        headers: [
            "x-ratelimit-limit-requests: 3", "x-ratelimit-limit-tokens: 30000",
            "x-ratelimit-remaining-requests: 0", "x-ratelimit-remaining-tokens: 29996",
            "x-ratelimit-reset-requests: 6m0s", "x-ratelimit-reset-tokens: 120ms",
        ],
        type: "requests", message: rateLimitMessage(rpm, limit: 3, requested: 1, wait: "6m0s")),
    RateLimitCase(
        name: "x-ratelimit-reset on tokens",
        response: .rateLimited(.rateLimitReset(requests: "120ms", tokens: "1.5s"), on: .tokens),
        headers: [
            "x-ratelimit-limit-requests: 500", "x-ratelimit-limit-tokens: 30000",
            "x-ratelimit-remaining-requests: 499", "x-ratelimit-remaining-tokens: 0",
            "x-ratelimit-reset-requests: 120ms", "x-ratelimit-reset-tokens: 1.5s",
        ],
        type: "tokens", message: rateLimitMessage("tokens per min (TPM)", limit: 30000, requested: 850, wait: "1.5s")),
    RateLimitCase(
        name: "no wait hint", response: .rateLimited(.none),
        headers: [], type: "requests",
        message: rateLimitMessage(rpm, limit: 3, requested: 1, wait: "20s")),
]

/// A completion request whose body differs by `tag`.
private func taggedBody(_ tag: String) -> JSONValue {
    visionBody(prompt: "Describe image \(tag).")
}

@Suite("Fault server")
struct FaultServerTests {
    // MARK: 429s

    @Test(arguments: rateLimitCases)
    func rateLimitHeaderStyle(_ testCase: RateLimitCase) async throws {
        let server = try await OpenAITestServer.start(handler: ResponseScript([testCase.response]).handler)
        let result = try await postCompletion(server, visionBody())
        await server.stop()

        #expect(result.status == 429)
        #expect(result.header("content-type") == "application/json")
        #expect(scriptedHeaders(result) == testCase.headers.sorted())
        let error = try result.json()["error"]
        #expect(error?["code"]?.stringValue == "rate_limit_exceeded")
        #expect(error?["type"]?.stringValue == testCase.type)
        #expect(error?["param"]?.isNull == true)
        #expect(error?["message"]?.stringValue == testCase.message)
    }

    @Test func httpDateIsIMFFixdate() {
        #expect(DateText.httpDate(Date(timeIntervalSince1970: 1_445_412_480)) == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(DateText.httpDate(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func quotaAndRequestTooLargeComeFromFixtures() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([.insufficientQuota(), .requestTooLarge()]).handler)
        let quota = try await postCompletion(server, visionBody())
        let tooLarge = try await postCompletion(server, visionBody())
        await server.stop()

        #expect(quota.status == 429)
        #expect(quota.body == OpenAIFixtures.body("09_429_insufficient_quota"))
        #expect(try quota.json()["error"]?["code"]?.stringValue == "insufficient_quota")
        #expect(tooLarge.status == 429)
        #expect(tooLarge.body == OpenAIFixtures.body("08_429_rate_limit_request_too_large"))
        #expect(try tooLarge.json()["error"]?["type"]?.stringValue == "tokens")
        #expect(scriptedHeaders(quota).isEmpty)
        #expect(scriptedHeaders(tooLarge).isEmpty)
    }

    // MARK: 5xx and per-request sequences

    @Test func htmlServerErrorThenSuccess() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.sequencePerRequest([.html()]))
        let first = try await postCompletion(server, visionBody())
        let second = try await postCompletion(server, visionBody())
        await server.stop()

        #expect(first.status == 500)
        #expect(first.header("content-type") == "text/html; charset=utf-8")
        #expect(first.text.contains("<h1>Internal Server Error</h1>"))
        #expect(throws: (any Error).self) { try first.json() }
        #expect(second.status == 200)
        #expect(try second.json()["object"]?.stringValue == "chat.completion")
    }

    @Test func unavailableThenSuccessForEachDistinctBody() async throws {
        let sequences = RequestSequences([.html(status: 503, body: "<html><body>Service Unavailable</body></html>")])
        let server = try await OpenAITestServer.start(handler: sequences.handler)
        let a = taggedBody("A")
        let b = taggedBody("B")
        // Concurrent first attempts: each body gets its own 503 whatever the arrival order.
        async let firstA = postCompletion(server, a)
        async let firstB = postCompletion(server, b)
        let firsts = try await [firstA, firstB]
        async let secondB = postCompletion(server, b)
        async let secondA = postCompletion(server, a)
        let seconds = try await [secondA, secondB]
        let counts = await sequences.counts
        let countA = await sequences.count(for: Data(a.canonicalText.utf8))
        let countB = await sequences.count(for: Data(b.canonicalText.utf8))
        await server.stop()

        #expect(firsts.map(\.status) == [503, 503])
        #expect(firsts.allSatisfy { $0.text.contains("Service Unavailable") })
        #expect(seconds.map(\.status) == [200, 200])
        #expect(countA == 2)
        #expect(countB == 2)
        #expect(counts.count == 2)
        #expect(counts[RequestSequences.key(for: Data(a.canonicalText.utf8))] == 2)
        #expect(await sequences.count(for: Data("never sent".utf8)) == 0)
    }

    // MARK: Latency

    @Test func latencyLongerThanTheClientTimeoutTimesItOut() async throws {
        let server = try await OpenAITestServer.start(
            handler: OpenAITestServer.withLatency(.milliseconds(1500), OpenAITestServer.fixedCompletion()))
        await #expect(throws: (any Error).self) {
            _ = try await postCompletion(server, visionBody(), timeout: .milliseconds(200))
        }
        await server.stop()
    }

    @Test func latencyAddsToTheAnswersOwnDelay() async {
        let inner: OpenAITestServer.Handler = { _ in ScriptedResponse.json("{}").delayed(by: .milliseconds(50)) }
        let request = RecordedRequest(method: "POST", path: "/v1/chat/completions")
        let delayed = await OpenAITestServer.withLatency(.milliseconds(100), inner)(request)
        let plain = await OpenAITestServer.withLatency(.milliseconds(100), OpenAITestServer.fixedCompletion())(request)
        #expect(delayed.delay == .milliseconds(150))
        #expect(plain.delay == .milliseconds(100))
    }

    @Test func fixedCompletionAnswersAnyBody() async throws {
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.fixedCompletion(content: "Fixed."))
        let url = "\(server.baseURL)/chat/completions"
        let valid = try await postCompletion(server, visionBody())
        let notJSON = try await send(url, body: Data("not json".utf8))
        await server.stop()
        for result in [valid, notJSON] {
            #expect(result.status == 200)
            let json = try result.json()
            #expect(json["choices"]?[0]?["message"]?["content"]?.stringValue == "Fixed.")
            #expect(json["choices"]?[0]?["finish_reason"]?.stringValue == "stop")
        }
        #expect(notJSON.header("x-request-id") == "req_test_2")
    }

    // MARK: Broken bodies

    @Test func connectionClosedMidBodyFailsTheBodyRead() async throws {
        let full = ScriptedResponse.chatCompletion(content: "This answer never arrives whole.")
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([full.closingConnectionMidBody(), .chatCompletion(content: "whole")]).handler)
        var request = HTTPClientRequest(url: "\(server.baseURL)/chat/completions")
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(Array(visionBody().canonicalText.utf8))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        var received = 0
        var failure: (any Error)?
        do {
            for try await chunk in response.body { received += chunk.readableBytes }
        } catch {
            failure = error
        }
        // The server keeps serving on new connections.
        let next = try await postCompletion(server, visionBody())
        await server.stop()

        #expect(response.status.code == 200)
        #expect(response.headers["content-length"].first == String(full.body.count))
        #expect(failure != nil)
        #expect(received < full.body.count)
        #expect(next.status == 200)
        #expect(try next.json()["choices"]?[0]?["message"]?["content"]?.stringValue == "whole")
    }

    @Test func truncatedAndMalformedJSONArriveWhole() async throws {
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([.truncatedJSON(), .malformedJSON()]).handler)
        let truncated = try await postCompletion(server, visionBody())
        let malformed = try await postCompletion(server, visionBody())
        await server.stop()

        let complete = ScriptedResponse.chatCompletion(content: "A short test description.").body
        #expect(truncated.status == 200)
        #expect(truncated.header("content-length") == String(truncated.body.count))
        #expect(!truncated.body.isEmpty && truncated.body.count < complete.count)
        #expect(complete.starts(with: truncated.body))
        #expect(throws: (any Error).self) { try truncated.json() }
        #expect(malformed.status == 200)
        #expect(malformed.header("content-type") == "application/json")
        #expect(malformed.text == "{\"id\": chatcmpl-1,,}")
        #expect(throws: (any Error).self) { try malformed.json() }
    }

    // MARK: Token bucket

    @Test func tokenBucketAdmitsTheBurstThenRateLimits() async throws {
        // The clock stands still, so nothing refills between requests however slow the machine.
        let frozen = ContinuousClock.now
        let limiter = TokenBucketServerLimiter(
            requestsPerSecond: 0.5, burst: 5, wrapping: OpenAITestServer.fixedCompletion(), clock: { frozen })
        let server = try await OpenAITestServer.start(handler: limiter.handler)
        var results: [HTTPResult] = []
        for _ in 0..<8 { results.append(try await postCompletion(server, visionBody())) }
        let stats = await limiter.stats
        await server.stop()

        let successes = results.filter { $0.status == 200 }
        let limited = results.filter { $0.status == 429 }
        #expect(successes.count == 5)
        #expect(successes.count + limited.count == 8)
        #expect(results.prefix(5).allSatisfy { $0.status == 200 })
        #expect(stats == RateLimitStats(requests: 8, rateLimited: limited.count, admitted: successes.count, succeeded: successes.count))

        let remaining = successes.compactMap { $0.header("x-ratelimit-remaining-requests").flatMap(Int.init) }
        #expect(remaining.count == successes.count)
        #expect(remaining.first == 4)
        #expect(zip(remaining, remaining.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(remaining.prefix(5).last.map { $0 <= 1 } == true)
        for success in successes {
            #expect(success.header("x-ratelimit-limit-requests") == "5")
            #expect(success.header("x-ratelimit-reset-requests")?.hasSuffix("s") == true)
            #expect(success.header("retry-after") == nil)
            #expect(success.header("x-ratelimit-limit-tokens") == nil)
        }
        for rejection in limited {
            let milliseconds = try #require(rejection.header("retry-after-ms").flatMap(Int.init))
            #expect(milliseconds > 0 && milliseconds <= 2000)
            #expect(rejection.header("retry-after") == String(max(1, (milliseconds + 999) / 1000)))
            #expect(rejection.header("x-ratelimit-limit-requests") == "5")
            #expect(rejection.header("x-ratelimit-remaining-requests") == "0")
            #expect(rejection.header("x-ratelimit-reset-requests")?.hasSuffix("s") == true)
            let error = try rejection.json()["error"]
            #expect(error?["code"]?.stringValue == "rate_limit_exceeded")
            #expect(error?["type"]?.stringValue == "requests")
            #expect(error?["message"]?.stringValue?.hasPrefix(
                "Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 5") == true)
        }
    }

    @Test func perMinuteHeadersOverstateTheBurst() async throws {
        // Enforced: 5 at 0.5/s. Announced: a per-minute window of 30, refilled at 0.5/s.
        let frozen = ContinuousClock.now
        let limiter = TokenBucketServerLimiter(
            requestsPerSecond: 0.5, burst: 5, announcing: .perMinute, wrapping: OpenAITestServer.fixedCompletion(),
            clock: { frozen })
        #expect(limiter.announcement == .perMinute)
        let server = try await OpenAITestServer.start(handler: limiter.handler)
        var results: [HTTPResult] = []
        for _ in 0..<8 { results.append(try await postCompletion(server, visionBody())) }
        let stats = await limiter.stats
        await server.stop()

        // The burst of 5 is enforced whatever the headers say.
        #expect(results.prefix(5).allSatisfy { $0.status == 200 })
        let successes = results.filter { $0.status == 200 }
        let limited = results.filter { $0.status == 429 }
        #expect(successes.count == 5)
        #expect(stats == RateLimitStats(requests: 8, rateLimited: limited.count, admitted: successes.count, succeeded: successes.count))

        // Every answer, 429s included, announces the per-minute window with room left in it.
        for result in results {
            #expect(result.header("x-ratelimit-limit-requests") == "30")
            let left = try #require(result.header("x-ratelimit-remaining-requests").flatMap(Int.init))
            #expect(left >= 30 - successes.count && left < 30)
            #expect(result.header("x-ratelimit-reset-requests")?.hasSuffix("s") == true)
        }
        #expect(successes.first?.header("x-ratelimit-remaining-requests") == "29")
        // Its reset is the announced window's: 29 left of 30 at 0.5/s is full in 2 s.
        #expect(successes.first?.header("x-ratelimit-reset-requests") == "2s")
        for rejection in limited {
            // The wait is the enforced bucket's, truthful.
            let milliseconds = try #require(rejection.header("retry-after-ms").flatMap(Int.init))
            #expect(milliseconds > 0 && milliseconds <= 2000)
            let error = try rejection.json()["error"]
            #expect(error?["type"]?.stringValue == "requests")
            #expect(error?["message"]?.stringValue?.contains("on requests per min (RPM): Limit 30, Used") == true)
        }
        #expect(TokenBucketServerLimiter.announcedLimit(requestsPerSecond: 20) == 1200)
        #expect(TokenBucketServerLimiter.announcedLimit(requestsPerSecond: 0.001) == 1)
    }

    @Test func tokenBucketLimitsTokensPerMinute() async throws {
        // Costs come from a test header; 600 tokens per minute refill 10 per second.
        let limiter = TokenBucketServerLimiter(
            requestsPerSecond: 100, burst: 100, tokensPerMinute: 600,
            tokenCost: { Int($0.header("x-test-cost") ?? "") ?? 1 },
            wrapping: OpenAITestServer.fixedCompletion())
        let server = try await OpenAITestServer.start(handler: limiter.handler)
        func post(cost: Int) async throws -> HTTPResult {
            try await postCompletion(
                server, visionBody(), headers: [("content-type", "application/json"), ("x-test-cost", String(cost))])
        }
        let first = try await post(cost: 250)
        let second = try await post(cost: 250)
        let third = try await post(cost: 250)
        let tooLarge = try await post(cost: 1000)
        let stats = await limiter.stats
        await server.stop()

        #expect([first, second, third, tooLarge].map(\.status) == [200, 200, 429, 429])
        #expect(first.header("x-ratelimit-limit-tokens") == "600")
        let left = [first, second].compactMap { $0.header("x-ratelimit-remaining-tokens").flatMap(Int.init) }
        #expect(left.count == 2)
        #expect(left.first.map { (350..<600).contains($0) } == true)
        #expect(left.last.map { (100..<350).contains($0) } == true)
        #expect(first.header("x-ratelimit-reset-tokens")?.hasSuffix("s") == true)
        #expect(first.header("x-ratelimit-remaining-requests") == "99")

        // 150 tokens missing at 10 per second: about 15 s, less whatever refilled meanwhile.
        let wait = try #require(third.header("retry-after-ms").flatMap(Int.init))
        #expect(wait > 5000 && wait <= 15000)
        #expect(third.header("retry-after") == String((wait + 999) / 1000))
        let error = try third.json()["error"]
        #expect(error?["type"]?.stringValue == "tokens")
        #expect(error?["code"]?.stringValue == "rate_limit_exceeded")
        #expect(error?["message"]?.stringValue?.contains("on tokens per min (TPM): Limit 600") == true)
        #expect(error?["message"]?.stringValue?.contains("Requested 250") == true)

        let large = try tooLarge.json()["error"]
        #expect(large?["message"]?.stringValue?.hasPrefix("Request too large for gpt-4o-mini") == true)
        #expect(large?["type"]?.stringValue == "tokens")
        #expect(tooLarge.header("retry-after") == nil)
        #expect(stats == RateLimitStats(requests: 4, rateLimited: 2, admitted: 2, succeeded: 2))
    }

    @Test func defaultTokenEstimateIsBodyBytesOverFour() {
        #expect(TokenBucketServerLimiter.estimatedTokens(RecordedRequest(method: "POST", path: "/")) == 1)
        #expect(TokenBucketServerLimiter.estimatedTokens(RecordedRequest(method: "POST", path: "/", body: Data(count: 400))) == 100)
        #expect(TokenBucketServerLimiter.estimatedTokens(RecordedRequest(method: "POST", path: "/", body: Data(count: 401))) == 101)
    }

    @Test func rateLimitDurationsAreWrittenLikeOpenAI() {
        let table: [(Duration, String)] = [
            (.zero, "0s"),
            (.milliseconds(-5), "0s"),
            (.microseconds(1), "1ms"),
            (.milliseconds(8), "8ms"),
            (.milliseconds(120), "120ms"),
            (.microseconds(120_001), "121ms"),
            (.milliseconds(999), "999ms"),
            (.microseconds(999_500), "1s"),
            (.seconds(1), "1s"),
            (.milliseconds(1001), "1.001s"),
            (.milliseconds(1250), "1.25s"),
            (.milliseconds(1500), "1.5s"),
            (.seconds(20), "20s"),
            (.milliseconds(59_999), "59.999s"),
            (.seconds(60), "1m0s"),
            (.milliseconds(90_500), "1m30.5s"),
            (.seconds(360), "6m0s"),
            (.seconds(3600), "1h0m0s"),
            (.seconds(3723), "1h2m3s"),
        ]
        for (duration, text) in table {
            #expect(OpenAITestServer.rateLimitDurationText(duration) == text, "\(duration)")
        }
    }
}
