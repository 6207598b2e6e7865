import AltBenchProxy
import AltBenchStore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchApp
@testable import AltBenchCore

/// Captures what a command prints.
private final class Capture: @unchecked Sendable {
    private let lock = NSLock()
    private var errText = ""

    var console: Console {
        Console(out: { _ in }, err: { text in self.lock.withLock { self.errText += text } }, interactive: false)
    }

    var err: String { lock.withLock { errText } }
}

/// `altbench run --judge` and `altbench judge`: the judge's calls through the runner, against
/// the mock judge and a loopback server scripted as a judge.
@Suite("judge: run --judge and altbench judge")
struct JudgeCommandTests {
    static let key = ["OPENAI_API_KEY": "sk" + "-test-judge-0123456789"]

    /// A working folder with one prompt, the first `items` items of the sample and the shipped
    /// rubric.
    static func workspace(items: Int = 3) throws -> URL {
        let repository = Repository.root
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-judge-\(UUID().uuidString)")
        let manager = FileManager.default
        let dataset = root.appendingPathComponent("datasets/sample")
        try manager.createDirectory(at: dataset, withIntermediateDirectories: true)
        try manager.createDirectory(at: root.appendingPathComponent("prompts"), withIntermediateDirectories: true)
        try manager.copyItem(
            at: repository.appendingPathComponent("prompts/icecubes.md"), to: root.appendingPathComponent("prompts/icecubes.md"))
        let sample = repository.appendingPathComponent("datasets/sample")
        let lines = try String(contentsOf: sample.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
            .split(separator: "\n").prefix(items)
        for line in lines {
            let image = try #require(try JSONValue.parse(Data(line.utf8))["image"]?.stringValue)
            try manager.copyItem(at: sample.appendingPathComponent(image), to: dataset.appendingPathComponent(image))
        }
        try (lines.joined(separator: "\n") + "\n").write(
            to: dataset.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)
        return root
    }

    /// A mock run of the workspace at one token limit; its id.
    static func mockRun(_ root: URL, judge: Bool = false) async throws -> Evaluation.Outcome {
        var options = RunOptions()
        options.provider = .mock
        options.maxTokens = [120]
        options.judge = JudgeOptions(enabled: judge)
        return try await Evaluation(options: options, environment: [:], console: Capture().console, workingDirectory: root).run()
    }

    static func store(_ root: URL) throws -> ResultStore {
        try ResultStore(url: root.appendingPathComponent("results/altbench.sqlite"))
    }

    /// Judges the latest run with `server` as an OpenAI-compatible judge serving `model`.
    static func judge(
        _ root: URL, server: OpenAITestServer, model: String = "gpt-4o", rubric: String? = nil, repeats: Int? = nil,
        console: Console = Capture().console, control: RunControl = RunControl(), maxRetries: Int = 0
    ) async throws -> Int32 {
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = server.baseURL
        options.maxRetries = maxRetries
        options.concurrency = 1
        return try await JudgeCommand(
            judge: JudgeOptions(enabled: true, model: model, rubric: rubric, repeats: repeats), options: options,
            environment: key, console: console, workingDirectory: root, control: control, gracePeriod: .seconds(2)
        ).run(id: nil)
    }

    /// A judge server answering every request with `content` (a chat completion).
    static func judgeServer(
        content: String?, refusal: String? = nil
    ) async throws -> OpenAITestServer {
        try await OpenAITestServer.start(
            handler: ResponseScript([], then: { _ in
                .chatCompletion(content: content, refusal: refusal, promptTokens: 900, completionTokens: 40, model: "gpt-4o-2024-08-06")
            }).handler)
    }

    @Test("run --judge offline: the mock judge scores every answer, and quality counts it")
    func mockRunWithJudge() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let capture = Capture()
        var options = RunOptions()
        options.provider = .mock
        options.maxTokens = [120]
        options.judge = JudgeOptions(enabled: true)
        let outcome = try await Evaluation(options: options, environment: [:], console: capture.console, workingDirectory: root).run()
        #expect(outcome.exitCode == 0)
        #expect(capture.err.contains("MOCK JUDGE"))
        #expect(capture.err.contains("judge: 3 verdicts"))
        let results = try await Self.store(root).loadRun(id: outcome.runID)
        #expect(results.trials.count == 3)
        for trial in results.trials {
            let accuracy = try #require(trial.scores[ScoreName.judgeAccuracy])
            #expect((0...1).contains(accuracy.value))
            #expect(trial.scores[ScoreName.judgeCompleteness] != nil)
            #expect(trial.scores[ScoreName.judgeConcision] != nil)
            #expect(trial.judgements.map(\.status) == [.judged])
            #expect(trial.judgements.first?.model == MockJudge.model)
            let form = try #require(trial.scores[ScoreName.form]).value
            let content = try #require(trial.scores[ScoreName.content]).value
            #expect(abs(try #require(trial.scores[ScoreName.quality]).value - form * content) < 1e-12)
        }
        #expect(results.info.settings["judge"]?["model"]?.stringValue == MockJudge.model)
    }

    @Test("judging again asks nothing, and a new rubric asks again while the old one's verdicts stay cached")
    func judgeAgainUsesTheStore() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await Self.mockRun(root)
        let verdict = JudgeVerdict(accuracy: 4, completeness: 3, concision: 5, errors: ["misses the colour"]).json
        let server = try await Self.judgeServer(content: verdict)
        #expect(try await Self.judge(root, server: server) == 0)
        #expect(await server.requests().count == 3)
        #expect(try await Self.judge(root, server: server) == 0)
        #expect(await server.requests().count == 3, "an answer judged by the same judge is not asked about again")

        let other = root.appendingPathComponent("judges/strict.md")
        try FileManager.default.createDirectory(at: other.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "Be strict about colours.\n".write(to: other, atomically: true, encoding: .utf8)
        #expect(try await Self.judge(root, server: server, rubric: "judges/strict.md") == 0)
        #expect(await server.requests().count == 6)
        let strict = try await Self.store(root).loadRun(id: try await Self.store(root).resolveRunID(nil))
        #expect(strict.trials.allSatisfy { $0.judgements.map(\.rubric) == ["judges/strict.md"] })

        // Back to the first rubric: its verdicts come from the store, at no cost.
        #expect(try await Self.judge(root, server: server) == 0)
        #expect(await server.requests().count == 6)
        let back = try await Self.store(root).loadRun(id: strict.info.id)
        for trial in back.trials {
            let row = try #require(trial.judgements.first)
            #expect(row.cached && row.status == .judged && row.accuracy == 4 && row.costUSD == 0)
            #expect(trial.scores[ScoreName.judgeAccuracy]?.value == 0.75)
            #expect(trial.scores[ScoreName.judgeAccuracy]?.detail == "misses the colour")
        }
        await server.stop()
    }

    /// What a judge may answer, and what altbench makes of it.
    struct Reply: Sendable, CustomStringConvertible {
        var description: String
        var content: String?
        var refusal: String? = nil
        /// The accuracy read, or `nil` when no verdict can be read.
        var accuracy: Int?
    }

    static let replies: [Reply] = [
        Reply(description: "valid JSON", content: #"{"accuracy": 5, "completeness": 4, "concision": 4, "errors": []}"#, accuracy: 5),
        Reply(
            description: "JSON in a code fence",
            content: "```json\n{\"accuracy\": 2, \"completeness\": 3, \"concision\": 4, \"errors\": [\"says two dogs; there is one\"]}\n```",
            accuracy: 2),
        Reply(
            description: "prose around the JSON",
            content: "Here is my verdict: {\"accuracy\": \"3\", \"completeness\": 3, \"concision\": 2, \"errors\": \"misreads the sign\"} Hope it helps.",
            accuracy: 3),
        Reply(description: "numbers out of range", content: #"{"accuracy": 7, "completeness": 0, "concision": 4, "errors": []}"#, accuracy: nil),
        Reply(description: "prose without a verdict", content: "The alt text looks fine to me.", accuracy: nil),
        Reply(description: "a refusal", content: nil, refusal: "I can't help with evaluating this image.", accuracy: nil),
        Reply(description: "an empty answer", content: "", accuracy: nil),
    ]

    @Test("a judge's answer becomes scores or leaves them missing, never 0, and never a crash", arguments: replies)
    func repliesBecomeScoresOrNone(reply: Reply) async throws {
        let root = try Self.workspace(items: 2)
        defer { try? FileManager.default.removeItem(at: root) }
        let before = try await Self.mockRun(root).results
        let server = try await Self.judgeServer(content: reply.content, refusal: reply.refusal)
        let capture = Capture()
        // No readable verdict is a missing score, as a failed trial is: exit 3.
        #expect(try await Self.judge(root, server: server, console: capture.console) == (reply.accuracy == nil ? 3 : 0))
        await server.stop()
        let after = try await Self.store(root).loadRun(id: before.info.id)
        for (old, new) in zip(before.trials, after.trials) {
            let row = try #require(new.judgements.first)
            if let accuracy = reply.accuracy {
                #expect(row.status == .judged && row.accuracy == accuracy)
                #expect(new.scores[ScoreName.judgeAccuracy]?.value == Double(accuracy - 1) / 4)
            } else {
                #expect(row.status == .unreadable)
                #expect(row.error?.isEmpty == false)
                #expect(new.scores[ScoreName.judgeAccuracy] == nil)
                #expect(new.scores[ScoreName.judgeCompleteness] == nil)
                // Without a verdict the answer's quality is what it was.
                #expect(new.scores[ScoreName.quality] == old.scores[ScoreName.quality])
            }
        }
        if reply.accuracy == nil {
            #expect(capture.err.contains("2 unreadable ("), "\(capture.err)")
            #expect(capture.err.contains("docs/judge.md"), "\(capture.err)")
            #expect(capture.err.contains("missing, not 0"))
            // The judge's cost line, not the run's again.
            #expect(!capture.err.contains("\ncost: "), "\(capture.err)")
        }
    }

    @Test("a judge that fails leaves the scores missing and counts the failures")
    func failingJudge() async throws {
        let root = try Self.workspace(items: 2)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.mockRun(root)
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([], then: { _ in .error(status: 500, message: "The server had an error.", type: "server_error") }).handler)
        let capture = Capture()
        #expect(try await Self.judge(root, server: server, console: capture.console) == 3)
        await server.stop()
        let after = try await Self.store(root).loadRun(id: run.runID)
        #expect(after.trials.allSatisfy { $0.judgements.map(\.status) == [.failed] && $0.scores[ScoreName.judgeAccuracy] == nil })
        #expect(capture.err.contains("2 failed"))
    }

    @Test("a server that rejects response_format is asked again without it, once per model")
    func structuredOutputFallback() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await Self.mockRun(root)
        let verdict = JudgeVerdict(accuracy: 4, completeness: 4, concision: 4).json
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([], then: { request in
                if (try? request.json())?["response_format"] != nil {
                    return .error(
                        status: 400, message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
                        code: nil, param: "response_format")
                }
                return .chatCompletion(content: verdict)
            }).handler)
        #expect(try await Self.judge(root, server: server) == 0)
        let bodies = try await server.requests().map { try $0.json() }
        await server.stop()
        #expect(bodies.count == 4, "one rejected request, then three without response_format")
        #expect(bodies.filter { $0["response_format"] != nil }.count == 1)
        let results = try await Self.store(root).loadRun(id: try await Self.store(root).resolveRunID(nil))
        #expect(results.trials.allSatisfy { $0.judgements.first?.accuracy == 4 })
    }

    @Test("the judge sees the answer's image, the post and the answer, at temperature 0, and its tokens are priced")
    func whatTheJudgeSees() async throws {
        let root = try Self.workspace(items: 1)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.mockRun(root)
        let server = try await Self.judgeServer(content: JudgeVerdict(accuracy: 5, completeness: 5, concision: 5).json)
        #expect(try await Self.judge(root, server: server) == 0)
        let body = try #require(try await server.requests().first?.json())
        await server.stop()
        #expect(body["model"]?.stringValue == "gpt-4o")
        #expect(body["temperature"]?.doubleValue == 0)
        #expect(body["response_format"]?["type"]?.stringValue == "json_schema")
        let messages = try #require(body["messages"]?.arrayValue)
        #expect(messages.first?["content"]?.stringValue?.contains("## How to answer") == true)
        let parts = try #require(messages.last?["content"]?.arrayValue)
        let text = try #require(parts.first?["text"]?.stringValue)
        let trial = try #require(run.results.trials.first)
        let item = try #require(run.results.items.first)
        #expect(text.contains(JudgeRequest.subjectJSON(
            JudgeSubject(itemID: item.id, answer: TextAnalysis.trimmed(trial.answer?.content ?? ""), context: item.context, lang: item.lang))))
        let image = try #require(parts.last?["image_url"]?["url"]?.stringValue)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: item.image))
        #expect(image == "data:image/png;base64," + bytes.base64EncodedString() || image.hasSuffix(bytes.base64EncodedString()))
        let judged = try await Self.store(root).loadRun(id: run.runID)
        let row = try #require(judged.trials.first?.judgements.first)
        #expect(row.promptTokens == 900 && row.completionTokens == 40)
        // gpt-4o at $2.50 / $10 per million tokens.
        #expect(abs((row.costUSD ?? 0) - (900 * 2.5 + 40 * 10) / 1_000_000) < 1e-12)
    }

    @Test("a stopped judging pass keeps what it judged, and the next one judges only the rest")
    func stopAndContinue() async throws {
        let root = try Self.workspace(items: 4)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.mockRun(root)
        let control = RunControl()
        let verdict = JudgeVerdict(accuracy: 4, completeness: 4, concision: 4).json
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([], then: { request in
                // The second request stops the pass, as Ctrl-C would; it is still answered.
                if request.number == 2 { control.stop(.interrupted(signal: "SIGINT")) }
                return .chatCompletion(content: verdict)
            }).handler)
        let code = try await Self.judge(root, server: server, control: control)
        #expect(code == 130)
        let partial = try await Self.store(root).loadRun(id: run.runID)
        let judged = partial.trials.filter { !$0.judgements.isEmpty }.count
        #expect((1...2).contains(judged))
        let sent = await server.requests().count
        #expect(try await Self.judge(root, server: server) == 0)
        await server.stop()
        #expect(await server.requests().count == sent + (4 - judged))
        let whole = try await Self.store(root).loadRun(id: run.runID)
        #expect(whole.trials.allSatisfy { $0.judgements.first?.status == .judged })
    }

    @Test("--deadline stops a judging pass like Ctrl-C: exit 124, what was judged kept, the rest judged next time")
    func deadlineStopsThePass() async throws {
        let root = try Self.workspace(items: 4)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.mockRun(root)
        let verdict = JudgeVerdict(accuracy: 4, completeness: 4, concision: 4).json
        // The first verdict comes at once, every later one after 300 s: the deadline falls
        // between them, however slow the machine.
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([.chatCompletion(content: verdict)], then: { _ in
                .chatCompletion(content: verdict).delayed(by: .seconds(300))
            }).handler)
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = server.baseURL
        options.maxRetries = 0
        options.concurrency = 1
        options.deadline = .seconds(3)
        let capture = Capture()
        let started = ContinuousClock.now
        let code = try await JudgeCommand(
            judge: JudgeOptions(enabled: true, model: "gpt-4o"), options: options, environment: Self.key,
            console: capture.console, workingDirectory: root, gracePeriod: .seconds(1)
        ).run(id: nil)
        let elapsed = ContinuousClock.now - started
        await server.stop()
        #expect(code == 124, "\(capture.err)")
        #expect(elapsed < .seconds(150), "the deadline ended the pass, not the slow answers")
        let judged = try await Self.store(root).loadRun(id: run.runID).trials.filter { $0.judgements.first?.status == .judged }
        #expect(judged.count == 1)
    }

    @Test("a judge that cannot be set up stops run --judge before anything is asked")
    func badJudgeStopsBeforeTheRun() async throws {
        let root = try Self.workspace(items: 1)
        defer { try? FileManager.default.removeItem(at: root) }
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = "http://127.0.0.1:9/v1"
        options.judge = JudgeOptions(enabled: true)
        let evaluation = Evaluation(options: options, environment: Self.key, console: Capture().console, workingDirectory: root)
        await #expect {
            try await evaluation.run()
        } throws: { error in
            "\(error)".contains("--judge-model")
        }
        options.judge = JudgeOptions(enabled: true, model: "gpt-4o", rubric: "judges/missing.md")
        let missingRubric = Evaluation(options: options, environment: Self.key, console: Capture().console, workingDirectory: root)
        await #expect {
            try await missingRubric.run()
        } throws: { error in
            "\(error)".contains("judges/missing.md")
        }
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("results/altbench.sqlite").path))
    }

    @Test("--judge-repeats asks each answer several times and scores the mean")
    func repeats() async throws {
        let root = try Self.workspace(items: 1)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.mockRun(root)
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([
                .chatCompletion(content: JudgeVerdict(accuracy: 5, completeness: 4, concision: 3).json),
                .chatCompletion(content: JudgeVerdict(accuracy: 3, completeness: 4, concision: 3).json),
                .chatCompletion(content: "no verdict here"),
            ]).handler)
        #expect(try await Self.judge(root, server: server, repeats: 3) == 3, "one repeat unreadable: a missing score, exit 3")
        await server.stop()
        let trial = try #require(try await Self.store(root).loadRun(id: run.runID).trials.first)
        #expect(trial.judgements.map(\.repeatIndex) == [0, 1, 2])
        #expect(trial.judgements.map(\.status) == [.judged, .judged, .unreadable])
        #expect(trial.scores[ScoreName.judgeAccuracy]?.value == 0.75)
        #expect(trial.scores[ScoreName.judgeAccuracy]?.detail?.hasPrefix("2 of 3 judgements read") == true)
    }

    @Test("plan --judge adds the judge's calls and cost, and a limit that covers the run but not its judge refuses")
    func planWithJudge() async throws {
        let root = try Self.workspace(items: 2)
        defer { try? FileManager.default.removeItem(at: root) }
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = "http://127.0.0.1:9/v1"
        options.maxTokens = [100]
        options.judge = JudgeOptions(enabled: true, model: "gpt-4o", repeats: 2)
        let planning = CostPlanning(options: options, environment: Self.key, console: Capture().console, workingDirectory: root)
        let outcome = try await planning.make()
        let judge = try #require(outcome.judge)
        #expect(judge.calls == 2 * 2)
        #expect(judge.outputTokensMax == 4 * JudgeSettings.defaultMaxTokens)
        #expect(judge.inputTokensHigh == judge.inputTokensLow + 4 * 100)
        let low = try #require(judge.costLow)
        let high = try #require(judge.costHigh)
        #expect(0 < low && low < high)
        let runHigh = try #require(outcome.plan.costHigh)
        // Enough for the answers alone, not with the judge.
        options.maxCost = runHigh + high / 2
        let refused = try await CostPlanning(options: options, environment: Self.key, console: Capture().console, workingDirectory: root).make()
        #expect(refused.refusal?.contains("with the judge") == true)
        options.maxCost = runHigh + high * 1.01
        let fits = try await CostPlanning(options: options, environment: Self.key, console: Capture().console, workingDirectory: root).make()
        #expect(fits.refusal == nil)
    }

    @Test("altbench judge --max-cost below the judge's high estimate sends nothing")
    func judgeOverBudget() async throws {
        let root = try Self.workspace(items: 2)
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await Self.mockRun(root)
        let server = try await Self.judgeServer(content: JudgeVerdict(accuracy: 5, completeness: 5, concision: 5).json)
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = server.baseURL
        options.maxCost = 0.000_1
        let command = JudgeCommand(
            judge: JudgeOptions(enabled: true, model: "gpt-4o"), options: options, environment: Self.key,
            console: Capture().console, workingDirectory: root)
        await #expect {
            _ = try await command.run(id: nil)
        } throws: { error in
            guard case AltBenchError.judgeOverBudget(let message) = error else { return false }
            return message.contains("nothing was sent")
        }
        options.maxCost = 100
        let unpriced = JudgeCommand(
            judge: JudgeOptions(enabled: true, model: "judge-x"), options: options, environment: Self.key,
            console: Capture().console, workingDirectory: root)
        await #expect {
            _ = try await unpriced.run(id: nil)
        } throws: { error in
            "\(error)".contains("judge-x has none")
        }
        #expect(await server.requests().isEmpty)
        await server.stop()
    }

    @Test("a judge behind the team's signed proxy: signed calls, no OpenAI key on this machine, the upstream key added by the proxy")
    func judgeThroughTheSignedProxy() async throws {
        let root = try Self.workspace(items: 2)
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.mockRun(root)
        let upstreamKey = "sk" + "-upstream-judge-0123456789abcdef"
        let appKey = "altbench-app-key-judge-test-0001"
        let verdict = JudgeVerdict(accuracy: 4, completeness: 4, concision: 5).json
        let upstream = try await OpenAITestServer.start(
            handler: ResponseScript([], then: { request in
                guard request.header("authorization") == "Bearer \(upstreamKey)" else {
                    return .error(status: 401, message: "Incorrect API key provided.", code: "invalid_api_key")
                }
                return .chatCompletion(content: verdict)
            }).handler)
        var configuration = ProxyConfiguration(
            upstream: URL(string: upstream.baseURL)!, upstreamKey: Secret(upstreamKey), appKey: Secret(appKey))
        configuration.port = 0
        let proxy = try await SignedProxy.start(configuration)
        let config = "judge:\n  model: gpt-4o\n  proxy:\n    url: http://127.0.0.1:\(proxy.port)\n"
        try config.write(to: root.appendingPathComponent("altbench.yml"), atomically: true, encoding: .utf8)
        let code = try await JudgeCommand(
            judge: JudgeOptions(enabled: true), options: RunOptions(),
            environment: ["ALTBENCH_PROXY_APP_KEY": appKey], console: Capture().console, workingDirectory: root
        ).run(id: nil)
        let bodies = try await upstream.requests().filter { $0.path.hasSuffix("/chat/completions") }.map { try $0.json() }
        await proxy.stop()
        await upstream.stop()
        #expect(code == 0)
        #expect(bodies.count == 2)
        #expect(bodies.allSatisfy { $0["response_format"] != nil && $0["temperature"]?.doubleValue == 0 })
        let judged = try await Self.store(root).loadRun(id: run.runID)
        #expect(judged.trials.allSatisfy { $0.judgements.first?.status == .judged && $0.judgements.first?.accuracy == 4 })
        #expect(judged.trials.allSatisfy { $0.judgements.first?.endpoint.hasPrefix("http://127.0.0.1:\(proxy.port)") == true })
        #expect(judged.info.settings["judge"]?["provider"]?.stringValue == "proxy")
        // No key or token is stored.
        let database = try Data(contentsOf: root.appendingPathComponent("results/altbench.sqlite"))
        #expect(database.range(of: Data(appKey.utf8)) == nil)
        #expect(database.range(of: Data(upstreamKey.utf8)) == nil)
    }
}
