import AltBenchCore
import AltBenchStore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchApp

/// The judge through the Batch API (`run --judge --batch`, `altbench judge --batch`): the same
/// orchestration as a run's trials, the same verdicts as a live judge at the batch price, and
/// a pass stopped at any point continued without uploading or creating anything twice.
@Suite("judge --batch")
struct JudgeBatchTests {
    static let key = BatchRunTests.key
    static let verdict = JudgeVerdict(accuracy: 4, completeness: 3, concision: 5, errors: ["misses the colour"]).json

    /// Answers the run's requests as the compatible server does, and the judge's (those with
    /// `response_format`) with `verdict`; with `failFirstJudge`, the first judge request gets
    /// a 400 instead.
    static func handler(failFirstJudge: Bool = false) -> OpenAITestServer.Handler {
        let compatible = OpenAITestServer.compatible()
        let judged = Tally()
        return { request in
            guard (try? request.json())?["response_format"] != nil else { return await compatible(request) }
            if failFirstJudge, await judged.next() == 1 {
                return .error(status: 400, message: "Invalid image: the image could not be decoded.", code: "invalid_image")
            }
            return .chatCompletion(content: verdict, promptTokens: 900, completionTokens: 40, model: "gpt-4o-2024-08-06")
        }
    }

    /// The run's batch options with the judge on gpt-4o.
    static func options(_ server: OpenAITestServer, _ change: (inout RunOptions) -> Void = { _ in }) -> RunOptions {
        BatchRunTests.options(server) { options in
            options.judge = JudgeOptions(enabled: true, model: "gpt-4o")
            change(&options)
        }
    }

    /// `altbench judge` of the latest run with `server` as the judge, through batches unless
    /// `batch` is false.
    static func judge(
        _ root: URL, server: OpenAITestServer, batch: Bool = true, noCache: Bool = false, control: RunControl = RunControl(),
        capture: BatchCapture = BatchCapture(), change: (inout RunOptions) -> Void = { _ in }
    ) async throws -> Int32 {
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = server.baseURL
        options.maxRetries = 0
        options.noCache = noCache
        if batch {
            options.batch = true
            options.batchPoll = 0.02
        }
        change(&options)
        return try await JudgeCommand(
            judge: JudgeOptions(enabled: true, model: "gpt-4o"), options: options, environment: key, console: capture.console,
            workingDirectory: root, control: control, gracePeriod: .seconds(2)
        ).run(id: nil)
    }

    static func store(_ root: URL) throws -> ResultStore {
        try ResultStore(url: root.appendingPathComponent("results/altbench.sqlite"))
    }

    /// A mock run of the six trials: answers to judge, with no server involved.
    static func mockRun(_ root: URL) async throws -> String {
        var options = RunOptions()
        options.provider = .mock
        let outcome = try await Evaluation(options: options, environment: [:], console: BatchCapture().console, workingDirectory: root).run()
        #expect(outcome.exitCode == 0)
        return outcome.runID
    }

    @Test("run --judge --batch: the run's requests and the judge's go through batches of their own, at the batch price, and batches lists both")
    func runAndJudgeThroughBatches() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2, faults: BatchFaults(shuffledOutput: true)))
        let server = try await OpenAITestServer.start(handler: Self.handler(), batches: batches)
        defer { Task { await server.stop() } }

        let (outcome, capture) = try await BatchRunTests.run(root, Self.options(server))
        #expect(outcome.exitCode == 0, "\(capture.err)")
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty, "nothing was sent live")
        let counts = await batches.counts
        #expect(counts.uploads == 2)
        #expect(counts.creates == 2)
        #expect(capture.err.contains("through the Batch API"), "\(capture.err)")
        #expect(capture.err.contains("judge batches: 1 of 1 done"), "\(capture.err)")
        #expect(capture.err.contains("judge: 6 verdicts"), "\(capture.err)")

        let store = try Self.store(root)
        let judge = try await store.batchState(runID: outcome.runID, purpose: BatchPurpose.judge)
        #expect(judge.count == 1)
        #expect(judge.first?.uploadName == "altbench-\(outcome.runID)-judge-1.jsonl")
        #expect(judge.first?.jobs.count == 1 && judge.first?.jobs.first?.importedAt != nil)
        let results = try await store.loadRun(id: outcome.runID)
        #expect(results.trials.count == 6)
        for trial in results.trials {
            let row = try #require(trial.judgements.first)
            #expect(row.status == .judged && row.accuracy == 4 && !row.cached)
            #expect(trial.scores[ScoreName.judgeAccuracy]?.value == 0.75)
            #expect(trial.scores[ScoreName.judgeAccuracy]?.detail == "misses the colour")
        }
        let batchCosts = results.trials.map { $0.judgements.first?.costUSD }
        #expect(batchCosts.allSatisfy { ($0 ?? 0) > 0 })
        #expect(Set(batchCosts).count == 1)

        // `altbench batches` lists the judge's batch beside the run's, saying which is which.
        let listing = BatchCapture()
        let (_, count) = try await BatchesCommand(results: "results", console: listing.console, workingDirectory: root)
            .list(run: outcome.runID)
        #expect(count == 2)
        let rows = listing.out.split(separator: "\n").filter { $0.hasPrefix("batch_") }
        #expect(rows.count == 2)
        #expect(rows.contains { $0.contains(" trials ") } && rows.contains { $0.contains(" judge ") }, "\(listing.out)")

        // Half what gpt-4o's 900 prompt and 40 completion tokens cost live.
        let gpt4o = try #require(PriceTable.builtIn.price(forModel: "gpt-4o")?.price)
        let live = gpt4o.cost(TokenUsage(promptTokens: 900, completionTokens: 40))
        #expect(abs((batchCosts[0] ?? 0) - live / 2) < 1e-12)
        #expect(capture.err.contains("judge cost: \(CostSummary.usd(6 * live / 2))"), "\(capture.err)")
    }

    @Test("altbench judge --batch stopped while its batch runs continues with judge --batch, or plain judge, without uploading or creating again")
    func judgeStoppedAndContinued() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let runID = try await Self.mockRun(root)
        let control = RunControl()
        let batches = BatchRunTests.interrupting(control, polls: 4)
        let server = try await OpenAITestServer.start(handler: Self.handler(), batches: batches)
        defer { Task { await server.stop() } }
        let stopped = BatchCapture()
        #expect(try await Self.judge(root, server: server, control: control, capture: stopped) == 130)
        #expect(stopped.err.contains("(judge calls) keeps running at the provider"), "\(stopped.err)")
        #expect(stopped.err.contains("altbench judge \(runID) --batch"), "\(stopped.err)")
        #expect(try await Self.store(root).loadRun(id: runID).trials.allSatisfy { $0.judgements.isEmpty })

        // Without --batch: the judge batch not yet imported is imported, nothing is sent live.
        let again = BatchCapture()
        #expect(try await Self.judge(root, server: server, batch: false, capture: again) == 0, "\(again.err)")
        #expect(again.err.contains("judge batches not yet imported"), "\(again.err)")
        let counts = await batches.counts
        #expect(counts.uploads == 1)
        #expect(counts.creates == 1)
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty)
        let results = try await Self.store(root).loadRun(id: runID)
        #expect(results.trials.allSatisfy { $0.judgements.map(\.status) == [.judged] })

        // Judged already: a third pass sends nothing at all.
        #expect(try await Self.judge(root, server: server) == 0)
        #expect(await batches.counts.uploads == 1)
    }

    @Test("run --judge --batch stopped while the judge's batch runs: run --resume imports it and uploads nothing again")
    func runResumeContinuesTheJudge() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let control = RunControl()
        // The run's batch is batch_000001; the judge's is the second.
        let batches = BatchRunTests.interrupting(control, polls: 3, when: { id, _ in id == "batch_000002" })
        let server = try await OpenAITestServer.start(handler: Self.handler(), batches: batches)
        defer { Task { await server.stop() } }
        let (stopped, capture) = try await BatchRunTests.run(root, Self.options(server), control: control)
        #expect(stopped.exitCode == 130, "\(capture.err)")
        #expect(capture.err.contains("the judge stopped"), "\(capture.err)")
        #expect(stopped.results.trials.count == 6)
        #expect(stopped.results.trials.allSatisfy { $0.judgements.isEmpty })

        let (resumed, again) = try await BatchRunTests.run(root, RunOptions(), resume: stopped.runID)
        #expect(resumed.exitCode == 0, "\(again.err)")
        let results = try await Self.store(root).loadRun(id: stopped.runID)
        #expect(results.trials.allSatisfy { $0.judgements.map(\.status) == [.judged] })
        let counts = await batches.counts
        #expect(counts.uploads == 2, "one file for the trials, one for the judge, each uploaded once")
        #expect(counts.creates == 2)
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty)
    }

    @Test("run --resume of a run stopped before its judge began judges it, through batches as it was started")
    func runResumeStartsTheJudge() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let control = RunControl()
        let batches = BatchRunTests.interrupting(control, polls: 3, when: { id, _ in id == "batch_000001" })
        let server = try await OpenAITestServer.start(handler: Self.handler(), batches: batches)
        defer { Task { await server.stop() } }
        let (stopped, capture) = try await BatchRunTests.run(root, Self.options(server), control: control)
        #expect(stopped.exitCode == 130, "\(capture.err)")
        #expect(capture.err.contains("its answers were not judged"), "\(capture.err)")

        let (resumed, again) = try await BatchRunTests.run(root, RunOptions(), resume: stopped.runID)
        #expect(resumed.exitCode == 0, "\(again.err)")
        #expect(again.err.contains("with gpt-4o by built-in:alt-text"), "\(again.err)")
        let results = try await Self.store(root).loadRun(id: stopped.runID)
        #expect(results.trials.count == 6)
        #expect(results.trials.allSatisfy { $0.judgements.map(\.status) == [.judged] })
        #expect(await batches.counts.creates == 2)
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty)
    }

    @Test("a judge line answered with a 400 is a failed judge call with its reason; an expired one is sent again")
    func judgeLineOutcomes() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let runID = try await Self.mockRun(root)
        // The judge's custom ids name the server's URL: plan them for a port, then serve on it.
        let probe = try await OpenAITestServer.start()
        let port = probe.port
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = probe.baseURL
        await probe.stop()
        let settings = try JudgeSettings.resolve(
            judge: JudgeOptions(enabled: true, model: "gpt-4o"), runOptions: options, config: ConfigFile(), environment: Self.key)
        let results = try await Self.store(root).loadRun(id: runID)
        let plan = JudgePlan.make(
            results, settings: settings, rubric: .builtIn, endpoint: settings.client.chatCompletionsURL.absoluteString)
        // The mock gives both prompts the same answer: six calls, three questions.
        #expect(plan.calls.count == 6)
        #expect(Set(plan.calls.map(\.key)).count == 3)
        let expiring = plan.calls[2].key
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2, faults: BatchFaults(expiring: [expiring])))
        let server = try await OpenAITestServer.start(port: port, handler: Self.handler(failFirstJudge: true), batches: batches)
        defer { Task { await server.stop() } }

        let capture = BatchCapture()
        let code = try await Self.judge(root, server: server, capture: capture) { $0.batchRetries = 1 }
        #expect(code == Evaluation.partialFailureExitCode, "\(capture.err)")
        #expect(capture.err.contains("expired unanswered; sending it again in a new batch (1 of 1)"), "\(capture.err)")
        let counts = await batches.counts
        #expect(counts.uploads == 2)
        #expect(counts.creates == 2)
        let judged = try await Self.store(root).loadRun(id: runID)
        let rows = judged.trials.compactMap(\.judgements.first)
        #expect(rows.count == 6)
        let failed = rows.filter { $0.status == .failed }
        #expect(await batches.counts.linesRun == 2, "each question once; the expired one never runs")
        #expect(failed.count == 4, "\(rows.map { ($0.status, $0.error) })")
        #expect(failed.contains { $0.error?.contains("Invalid image: the image could not be decoded.") == true }, "\(failed)")
        #expect(failed.contains { $0.error?.contains("expired unanswered in 2 batches") == true }, "\(failed)")
        #expect(rows.filter { $0.status == .judged }.count == 2)
        #expect(capture.err.contains("4 failed"), "\(capture.err)")
    }

    @Test("the mock judge has no Batch API: --batch is refused before anything is sent")
    func mockJudgeRefusesBatch() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await Self.mockRun(root)
        // The judge of a mock run is the mock judge.
        var options = RunOptions()
        options.batch = true
        let refused = await #expect(throws: AltBenchError.self) {
            _ = try await JudgeCommand(
                judge: JudgeOptions(enabled: true), options: options, environment: [:], console: BatchCapture().console,
                workingDirectory: root
            ).run(id: nil)
        }
        #expect(refused?.description.contains("the offline mock judge") == true, "\(String(describing: refused))")

        // A run through batches whose judge: is the mock stops before the run starts.
        let server = try await OpenAITestServer.start(handler: Self.handler(), batches: BatchSimulator())
        defer { Task { await server.stop() } }
        try "judge:\n  provider: mock\n".write(to: root.appendingPathComponent("altbench.yml"), atomically: true, encoding: .utf8)
        let stopped = await #expect(throws: AltBenchError.self) {
            _ = try await BatchRunTests.run(root, Self.options(server))
        }
        #expect(stopped?.description.contains("mock judge") == true, "\(String(describing: stopped))")
        #expect(await server.requests().isEmpty)
    }

    @Test("altbench batches cancel RUN cancels the judge's batches too and imports what they finished")
    func cancelJudgeBatches() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let control = RunControl()
        let batches = BatchRunTests.interrupting(control, polls: 8, when: { id, status in id == "batch_000002" && status == "in_progress" })
        let server = try await OpenAITestServer.start(handler: Self.handler(), batches: batches)
        defer { Task { await server.stop() } }
        let (stopped, _) = try await BatchRunTests.run(
            root, BatchRunTests.options(server) { $0.judge = JudgeOptions(enabled: true, model: "gpt-4o") }, control: control)
        #expect(stopped.exitCode == 130)
        var cancel = RunOptions()
        cancel.batchCancel = true
        let (_, capture) = try await BatchRunTests.run(root, cancel, resume: stopped.runID)
        #expect(capture.err.contains("asked the server to cancel batch batch_000002"), "\(capture.err)")
        let counts = await batches.counts
        #expect(counts.cancels == 1)
        #expect(counts.creates == 2, "cancel creates nothing new")
        let jobs = try await Self.store(root).batchJobs(runID: stopped.runID)
        #expect(jobs.count == 2 && jobs.allSatisfy { $0.job.importedAt != nil }, "\(jobs)")
        #expect(jobs.first { $0.purpose == BatchPurpose.judge }?.job.status == "cancelled")
        let results = try await Self.store(root).loadRun(id: stopped.runID)
        let judged = results.trials.filter { !$0.judgements.isEmpty }
        #expect(judged.count < 6 && judged.allSatisfy { $0.judgements.first?.status == .judged })
    }

    @Test("plan --judge --batch prices the judge's calls at the batch price")
    func planPricesTheJudgeAtTheBatchPrice() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = "http://127.0.0.1:9/v1"
        options.maxTokens = [100]
        options.judge = JudgeOptions(enabled: true, model: "gpt-4o")
        let live = try #require(
            try await CostPlanning(options: options, environment: Self.key, console: BatchCapture().console, workingDirectory: root)
                .make().judge)
        options.batch = true
        let batched = try #require(
            try await CostPlanning(options: options, environment: Self.key, console: BatchCapture().console, workingDirectory: root)
                .make().judge)
        #expect(batched.calls == live.calls)
        let (liveHigh, batchHigh) = (try #require(live.costHigh), try #require(batched.costHigh))
        #expect(abs(batchHigh - liveHigh / 2) < 1e-12)
    }
}

private actor Tally {
    var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}
