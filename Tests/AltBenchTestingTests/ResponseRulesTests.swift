import AltBenchCore
import AltBenchTesting
import AsyncHTTPClient
import Foundation
import Testing

/// Response scripts: the rules engine behind `altbench-test-server --script`, against a real
/// loopback server, and the errors a bad script gets before the server starts.
@Suite("Response rules")
struct ResponseRulesTests {
    static func rules(_ yaml: String, file: String = "script.yml") throws -> [ResponseRule] {
        try ResponseRules.parse(yaml, displayPath: file)
    }

    static func content(_ result: HTTPResult) throws -> String? {
        try result.json()["choices"]?[0]?["message"]?["content"]?.stringValue
    }

    // MARK: Answers

    @Test func theFirstMatchingRuleAnswersAndTheRestGetTheDefault() async throws {
        let script = try Self.rules(
            """
            rules:
              - name: cats speak in the first person
                match: {prompt: "cat"}
                respond: {answer: "I see {answer}"}
              - match: {prompt_regex: "^Describe .* dog"}
                respond: {answer: "A dog.", finish_reason: content_filter}
              - match: {prompt: "cat"}
                respond: {answer: "never: the first rule wins"}
            """)
        let rules = ResponseRules(script)
        let server = try await OpenAITestServer.start(handler: rules.handler)
        defer { Task { await server.stop() } }

        let cat = try await postCompletion(server, visionBody(prompt: "Describe this cat."))
        #expect(cat.status == 200)
        let plain = OpenAITestServer.compatibleContent(imageURL: pngDataURL, prompt: "You write alt text.\nDescribe this cat.")
        #expect(try Self.content(cat) == "I see \(plain)")
        #expect(cat.header("x-request-id") == "req_test_1")

        let dog = try await postCompletion(server, visionBody(prompt: "Describe the dog."))
        #expect(try Self.content(dog) == "A dog.")
        #expect(try dog.json()["choices"]?[0]?["finish_reason"]?.stringValue == "content_filter")

        // No rule: the server's usual answer, byte for byte what the strict handler sends.
        let bird = try await postCompletion(server, visionBody(prompt: "Describe the bird."))
        let usual = try await OpenAITestServer.start()
        defer { Task { await usual.stop() } }
        let expected = try await postCompletion(usual, visionBody(prompt: "Describe the bird."))
        #expect(bird.text.replacingOccurrences(of: "chatcmpl-test-3", with: "") == expected.text.replacingOccurrences(of: "chatcmpl-test-1", with: ""))
        #expect(await rules.appliedCounts == [1, 1, 0])
    }

    @Test func aScriptedAnswerIsStillCutToTheTokenLimit() async throws {
        let script = try Self.rules("rules:\n  - respond:\n      answer: one two three four five six\n")
        let server = try await OpenAITestServer.start(handler: ResponseRules(script).handler)
        defer { Task { await server.stop() } }
        let cut = try await postCompletion(server, visionBody { $0["max_tokens"] = 3 })
        #expect(try Self.content(cut) == "one two three")
        #expect(try cut.json()["choices"]?[0]?["finish_reason"]?.stringValue == "length")
    }

    @Test func imageModelAndRequestNumberSelectRules() async throws {
        let digest = Hashing.sha256Hex(try #require(Data(base64Encoded: pngBase64)))
        let script = try Self.rules(
            """
            {"rules": [
              {"match": {"requests": "1-2"}, "respond": {"answer": "early"}},
              {"match": {"image_sha256": "\(digest.prefix(12).uppercased())", "model": "gpt-4.1-mini"}, "respond": {"answer": "the png, on 4.1"}},
              {"match": {"image": "example.test/cat"}, "respond": {"answer": "a remote cat"}}
            ]}
            """, file: "script.json")
        let server = try await OpenAITestServer.start(handler: ResponseRules(script).handler)
        defer { Task { await server.stop() } }
        #expect(try Self.content(try await postCompletion(server, visionBody())) == "early")
        #expect(try Self.content(try await postCompletion(server, visionBody())) == "early")
        #expect(try Self.content(try await postCompletion(server, visionBody { $0["model"] = "gpt-4.1-mini" })) == "the png, on 4.1")
        #expect(try Self.content(try await postCompletion(server, visionBody())) != "the png, on 4.1", "another model")
        #expect(
            try Self.content(try await postCompletion(server, visionBody(imageURL: "https://example.test/cat.png"))) == "a remote cat")
    }

    // MARK: Errors, headers, latency

    @Test func rateLimitTwiceThenAnswer() async throws {
        let script = try Self.rules(
            """
            rules:
              - match: {prompt: "cat"}
                times: 2
                respond:
                  status: 429
                  headers: {retry-after-ms: 250, x-ratelimit-remaining-requests: 0}
            """)
        let rules = ResponseRules(script)
        let server = try await OpenAITestServer.start(handler: rules.handler)
        defer { Task { await server.stop() } }
        for _ in 0..<2 {
            let limited = try await postCompletion(server, visionBody(prompt: "A cat?"))
            #expect(limited.status == 429)
            #expect(limited.header("retry-after-ms") == "250")
            #expect(limited.header("x-ratelimit-remaining-requests") == "0")
            #expect(limited.header("content-type") == "application/json")
            let error = try #require(try limited.json()["error"])
            #expect(error["code"]?.stringValue == "rate_limit_exceeded")
            #expect(error["type"]?.stringValue == "requests")
            #expect(error["message"]?.stringValue?.hasPrefix("Rate limit reached for gpt-4o-mini") == true)
        }
        let third = try await postCompletion(server, visionBody(prompt: "A cat?"))
        #expect(third.status == 200, "the rule is used up after `times`")
        #expect(await rules.appliedCounts == [2])
    }

    @Test func timesHoldsUnderConcurrentRequests() async throws {
        let script = try Self.rules("rules:\n  - times: 3\n    respond: {status: 500}\n")
        let rules = ResponseRules(script)
        let server = try await OpenAITestServer.start(handler: rules.handler)
        defer { Task { await server.stop() } }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<12 {
                // A generous timeout: twelve at once on a loaded machine may take a while, and the
                // test is about how many the rule answered, not how fast.
                group.addTask {
                    try await postCompletion(server, visionBody(prompt: "Request \(index)."), timeout: .seconds(120)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 500 }.count == 3)
        #expect(statuses.filter { $0 == 200 }.count == 9)
        #expect(await rules.appliedCounts == [3])
    }

    @Test func statusRulesSendOpenAIStyleErrorBodies() async throws {
        let script = try Self.rules(
            """
            rules:
              - match: {prompt: "overloaded"}
                respond: {status: 503}
              - match: {prompt: "custom"}
                respond:
                  status: 400
                  error: {message: "Your prompt was flagged.", type: invalid_request_error, code: content_policy_violation, param: messages}
              - match: {prompt: "gone"}
                respond: {status: 404}
            """)
        let server = try await OpenAITestServer.start(handler: ResponseRules(script).handler)
        defer { Task { await server.stop() } }
        let overloaded = try await postCompletion(server, visionBody(prompt: "overloaded"))
        #expect(overloaded.status == 503)
        #expect(try overloaded.json()["error"]?["type"]?.stringValue == "server_error")
        let custom = try await postCompletion(server, visionBody(prompt: "custom"))
        #expect(custom.status == 400)
        let error = try #require(try custom.json()["error"])
        #expect(error["message"]?.stringValue == "Your prompt was flagged.")
        #expect(error["code"]?.stringValue == "content_policy_violation")
        #expect(error["param"]?.stringValue == "messages")
        let gone = try await postCompletion(server, visionBody(prompt: "gone"))
        #expect(gone.status == 404)
        #expect(try gone.json()["error"]?["code"]?.stringValue == "model_not_found")
    }

    @Test func latencyDelaysTheAnswer() async throws {
        let script = try Self.rules("rules:\n  - match: {prompt: slow}\n    respond: {latency_ms: 400}\n")
        let rules = ResponseRules(script)
        // The delay is the response's own, served by the server's responder.
        let request = RecordedRequest(
            method: "POST", path: "/v1/chat/completions", headers: [("content-type", "application/json")],
            body: Data(visionBody(prompt: "slow").canonicalText.utf8))
        #expect(await rules.respond(to: request).delay == .milliseconds(400))
        #expect(await rules.respond(to: request).status == 200)

        // Against the real server: never sooner (a lower bound holds on any machine).
        let server = try await OpenAITestServer.start(handler: rules.handler)
        defer { Task { await server.stop() } }
        let clock = ContinuousClock()
        let started = clock.now
        let slow = try await postCompletion(server, visionBody(prompt: "slow"))
        #expect(clock.now - started >= .milliseconds(400))
        #expect(slow.status == 200)
        let fast = RecordedRequest(
            method: "POST", path: "/v1/chat/completions", headers: [("content-type", "application/json")],
            body: Data(visionBody(prompt: "fast").canonicalText.utf8))
        #expect(await rules.respond(to: fast).delay == nil)
    }

    @Test func anInvalidRequestGetsTheStrictErrorWhateverTheRules() async throws {
        let script = try Self.rules("rules:\n  - respond: {answer: anything}\n")
        let server = try await OpenAITestServer.start(
            handler: ResponseRules(script, options: CompatibleServerOptions(apiKey: "right")).handler)
        defer { Task { await server.stop() } }
        let unauthorized = try await postCompletion(server, visionBody())
        #expect(unauthorized.status == 401)
        let invalid = try await postCompletion(
            server, visionBody { $0["max_tokens"] = 0 },
            headers: [("content-type", "application/json"), ("authorization", "Bearer right")])
        #expect(invalid.status == 400)
        let fine = try await postCompletion(
            server, visionBody(), headers: [("content-type", "application/json"), ("authorization", "Bearer right")])
        #expect(try Self.content(fine) == "anything")
    }

    // MARK: Bad scripts

    struct BadScript: Sendable, CustomTestStringConvertible {
        var name: String
        var file: String
        var text: String
        var error: String
        var testDescription: String { name }
    }

    static let badScripts: [BadScript] = [
        BadScript(
            name: "not YAML", file: "s.yml", text: "rules:\n  - match: {prompt: [\n", error: "s.yml:3: not valid YAML"),
        BadScript(
            name: "not JSON", file: "s.json", text: "{rules: [\n  {\"respond\": {\"answer\": \"x\"}}\n]}\n",
            error: "s.json: not valid JSON"),
        BadScript(
            name: "no rules", file: "s.yml", text: "rule:\n  - respond: {answer: x}\n",
            error: "s.yml:1: `rule`: is not a known key here. Known keys: `rules`."),
        BadScript(
            name: "a list at the top", file: "s.yml", text: "- respond: {answer: x}\n",
            error: "s.yml:1: the script must be a mapping with a `rules` list."),
        BadScript(
            name: "unknown match key", file: "s.yml",
            text: "rules:\n  - respond: {answer: x}\n  - match:\n      promt: cat\n    respond: {answer: y}\n",
            error: "s.yml:4: rule 2, `match.promt`: is not a known key here. Known keys: `prompt`, `prompt_regex`"),
        BadScript(
            name: "bad status", file: "s.yml", text: "rules:\n  - respond:\n      status: teapot\n",
            error: "s.yml:3: rule 1, `respond.status`: must be a whole number, e.g. 429."),
        BadScript(
            name: "3xx status", file: "s.yml", text: "rules:\n  - respond: {status: 302}\n",
            error: "rule 1, `respond.status`: must be 2xx (an answer) or 4xx/5xx (an error), not 302."),
        BadScript(
            name: "answer with an error status", file: "s.json",
            text: "{\"rules\": [\n {\"respond\": {\"status\": 500,\n  \"answer\": \"x\"}}]}",
            error: "s.json:3: rule 1, `respond.answer`: cannot go with status 500"),
        BadScript(
            name: "bad regex", file: "s.yml", text: "rules:\n  - match: {prompt_regex: \"(cat\"}\n    respond: {answer: x}\n",
            error: "s.yml:2: rule 1, `match.prompt_regex`: '(cat' is not a valid regular expression"),
        BadScript(
            name: "bad digest", file: "s.yml", text: "rules:\n  - match: {image_sha256: abc}\n    respond: {answer: x}\n",
            error: "rule 1, `match.image_sha256`: must be 8 to 64 hex digits"),
        BadScript(
            name: "bad finish reason", file: "s.yml", text: "rules:\n  - respond: {finish_reason: done}\n",
            error: "rule 1, `respond.finish_reason`: must be one of stop, length, content_filter"),
        BadScript(
            name: "prompt tokens not a number", file: "s.yml", text: "rules:\n  - respond: {prompt_tokens: many}\n",
            error: "rule 1, `respond.prompt_tokens`:"),
        BadScript(
            name: "prompt tokens on an error", file: "s.yml",
            text: "rules:\n  - respond: {status: 500, prompt_tokens: 10}\n",
            error: "rule 1, `respond.prompt_tokens`: cannot go with status 500"),
        BadScript(
            name: "negative latency", file: "s.yml", text: "rules:\n  - respond: {latency_ms: -5}\n",
            error: "s.yml:2: rule 1, `respond.latency_ms`: takes milliseconds"),
        BadScript(
            name: "header with a line break", file: "s.yml", text: "rules:\n  - respond:\n      headers: {x-a: \"1\\r\\nx-b: 2\"}\n",
            error: "rule 1, `respond.headers.x-a`: must be one line"),
        BadScript(
            name: "error without status", file: "s.yml", text: "rules:\n  - respond:\n      error: {message: nope}\n",
            error: "s.yml:3: rule 1, `respond.error`: needs a `status` of 400 or more"),
        BadScript(
            name: "no respond", file: "s.yml", text: "rules:\n  - match: {prompt: cat}\n",
            error: "s.yml:2: rule 1: has no `respond:`"),
        BadScript(
            name: "zero times", file: "s.yml", text: "rules:\n  - times: 0\n    respond: {status: 429}\n",
            error: "s.yml:2: rule 1, `times`: must be at least 1 (got 0)."),
        BadScript(
            name: "empty rules", file: "s.yml", text: "rules: []\n", error: "s.yml:1: `rules`: is empty"),
    ]

    @Test(arguments: badScripts)
    func badScriptsNameTheFileLineRuleAndField(_ bad: BadScript) {
        do {
            _ = try ResponseRules.parse(bad.text, displayPath: bad.file)
            Issue.record("accepted")
        } catch let error as ResponseRulesError {
            #expect(error.description.contains(bad.error), "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func theFormatComesFromTheExtensionElseTheContent() throws {
        let json = #"{"rules": [{"respond": {"answer": "x"}}]}"#
        #expect(try ResponseRules.parse(json, displayPath: "script").count == 1)
        #expect(try ResponseRules.parse("rules:\n  - respond: {answer: x}\n", displayPath: "script").count == 1)
        // A .json file is held to JSON, even where YAML would take it.
        #expect(throws: ResponseRulesError.self) {
            try ResponseRules.parse("rules:\n  - respond: {answer: x}\n", displayPath: "script.json")
        }
    }

    @Test func theExampleScriptLoads() throws {
        let rules = try ResponseRules.load(
            contentsOf: Repository.root.appendingPathComponent("examples/test-server/first-person.yml"))
        #expect(rules.count == 1)
        #expect(rules[0].match.prompt == "in one complete sentence")
        #expect(rules[0].reply.answer == "I see an image here. {answer}")
    }
}
