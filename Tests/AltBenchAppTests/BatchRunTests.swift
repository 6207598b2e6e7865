import AltBenchCore
import AltBenchOpenAI
import AltBenchStore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchApp

/// Captures what a command prints.
final class BatchCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var errText = ""
    private var outText = ""

    var console: Console {
        Console(
            out: { text in self.lock.withLock { self.outText += text } },
            err: { text in self.lock.withLock { self.errText += text } }, interactive: false)
    }

    var err: String { lock.withLock { errText } }
    var out: String { lock.withLock { outText } }
}

/// `altbench run --batch` against the loopback server's simulated Batch API: the same answers,
/// rows and cache as a live run, every outcome of a batch, and a run stopped midway continued
/// with `--resume` without uploading or creating anything twice.
@Suite("run --batch")
struct BatchRunTests {
    static let key = ["OPENAI_API_KEY": "sk-test-batch-1"]

    /// Two prompts and three images of the sample: six trials.
    /// A simulator that answers after `polls` looks and stops the run, as a SIGINT would, at
    /// the first look at a batch `when` accepts (by default, any).
    static func interrupting(
        _ control: RunControl, polls: Int,
        when matches: @escaping @Sendable (_ batchID: String, _ status: String) -> Bool = { _, _ in true }
    ) -> BatchSimulator {
        BatchSimulator(
            BatchSimulatorOptions(
                pollsUntilComplete: polls,
                onEvent: { event in
                    if case .polled(let id, let status) = event, matches(id, status) {
                        _ = control.stop(.interrupted(signal: "SIGINT"))
                    }
                }))
    }

    static func workspace() throws -> URL {
        let repository = Repository.root
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-batch-\(UUID().uuidString)")
        let prompts = root.appendingPathComponent("prompts")
        let dataset = root.appendingPathComponent("datasets/sample")
        try FileManager.default.createDirectory(at: prompts, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dataset, withIntermediateDirectories: true)
        for name in ["icecubes.md", "icecubes-original.md"] {
            try FileManager.default.copyItem(
                at: repository.appendingPathComponent("prompts/\(name)"), to: prompts.appendingPathComponent(name))
        }
        let manifest = try String(contentsOf: repository.appendingPathComponent("datasets/sample/manifest.jsonl"), encoding: .utf8)
        let lines = manifest.split(separator: "\n").filter { $0.contains(".png\"") }.prefix(3)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let image = object["image"] as! String
            try FileManager.default.copyItem(
                at: repository.appendingPathComponent("datasets/sample/\(image)"), to: dataset.appendingPathComponent(image))
        }
        try (lines.joined(separator: "\n") + "\n").write(to: dataset.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)
        return root
    }

    static func options(_ server: OpenAITestServer, _ change: (inout RunOptions) -> Void = { _ in }) -> RunOptions {
        var options = RunOptions()
        options.provider = .openai
        options.baseURL = server.baseURL
        options.batch = true
        options.batchPoll = 0.02
        change(&options)
        return options
    }

    static func run(
        _ root: URL, _ options: RunOptions, resume: String? = nil, control: RunControl = RunControl()
    ) async throws -> (Evaluation.Outcome, BatchCapture) {
        let capture = BatchCapture()
        let outcome = try await Evaluation(
            options: options, environment: key, console: capture.console, workingDirectory: root, resume: resume,
            control: control
        ).run()
        return (outcome, capture)
    }

    /// The cache keys of the workspace's trials, as the run plans them.
    static func keys(_ root: URL, _ options: RunOptions) throws -> [String] {
        let experiment = try Experiment.resolve(options: options, config: ConfigFile(), environment: key)
        let prompts = try PromptLoader().load(directory: root.appendingPathComponent("prompts"), displayPath: "prompts")
        let dataset = try DatasetLoader().load(
            directory: root.appendingPathComponent("datasets/sample"), displayPath: "datasets/sample")
        return Planner(experiment: experiment, endpoint: experiment.chatCompletionsURL.absoluteString)
            .plan(variants: prompts, dataset: dataset).compactMap(\.key)
    }

    @Test func answersAreTheLiveAnswersAtTheBatchPriceAndReplayLive() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2, faults: BatchFaults(shuffledOutput: true)))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }

        let (outcome, capture) = try await Self.run(root, Self.options(server))
        #expect(outcome.exitCode == 0, "\(capture.err)")
        #expect(outcome.results.trials.count == 6)
        #expect(outcome.results.trials.allSatisfy { !$0.failed && $0.batchID != nil && !$0.cached })
        let counts = await batches.counts
        #expect(counts.uploads == 1)
        #expect(counts.creates == 1)
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty, "nothing was sent live")
        #expect(capture.err.contains("batches: 1 of 1 done"), "\(capture.err)")

        // Each line's body is byte for byte what a live run sends.
        let firstFile = try #require(await batches.fileIDs().first)
        let input = try #require(await batches.fileContent(id: firstFile))
        var batchBodies: [String: String] = [:]
        for line in input.split(separator: 0x0A) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let text = String(decoding: line, as: UTF8.self)
            let body = try #require(text.range(of: #","body":"#))
            batchBodies[object["custom_id"] as! String] = String(text[body.upperBound...].dropLast())
        }
        #expect(batchBodies.count == 6)
        let live = try await Self.run(root, Self.options(server) { $0.batch = false; $0.batchPoll = nil; $0.noCache = true; $0.results = "live" })
        #expect(live.0.exitCode == 0)
        let liveBodies = Set(await server.requests(path: "/v1/chat/completions").map(\.bodyText))
        #expect(liveBodies == Set(batchBodies.values))
        // The same scores as the live answers (the loopback server answers alike).
        let quality = { (results: RunResults) in results.trials.map { $0.scores["quality"]?.value } }
        #expect(quality(outcome.results) == quality(live.0.results))

        // The store answers a later run offline, with no key and nothing sent.
        var offline = Self.options(server) { $0.batch = false; $0.batchPoll = nil; $0.offline = true }
        offline.baseURL = server.baseURL
        let replay = try await Self.run(root, offline)
        #expect(replay.0.exitCode == 0, "\(replay.1.err)")
        #expect(replay.0.results.trials.allSatisfy { $0.cached })

        // The report says which trials went through the Batch API.
        let markdown = try String(contentsOf: root.appendingPathComponent("results/runs/\(outcome.runID).md"), encoding: .utf8)
        #expect(markdown.contains("went through the Batch API"), "\(markdown.prefix(2000))")
    }

    @Test func filesSplitByLinesAndExpiredRequestsGoAgainThenFail() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        // The keys name the server's URL: plan them for a port, then serve on it.
        let probe = try await OpenAITestServer.start()
        let port = probe.port
        let keys = try Self.keys(root, Self.options(probe))
        await probe.stop()
        #expect(keys.count == 6)
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2, faults: BatchFaults(expiring: [keys[0]])))
        let server = try await OpenAITestServer.start(port: port, batches: batches)
        defer { Task { await server.stop() } }

        let (outcome, capture) = try await Self.run(root, Self.options(server) { $0.batchMaxLines = 2; $0.batchRetries = 1 })
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        let counts = await batches.counts
        // Three files of two, then the expired request alone, once more.
        #expect(counts.uploads == 4)
        #expect(counts.creates == 4)
        let failed = outcome.results.trials.filter(\.failed)
        #expect(failed.count == 1)
        #expect(failed.first?.error?.contains("expired unanswered in 2 batches") == true, "\(failed)")
        #expect(outcome.results.trials.filter { !$0.failed }.count == 5)
        #expect(capture.err.contains("expired unanswered; sending it again"), "\(capture.err)")
    }

    @Test func aBatchWhoseRequestsAllFailRecordsEachReason() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 1, faults: BatchFaults(failAllRequests: true)))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await Self.run(root, Self.options(server))
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        #expect(outcome.results.trials.count == 6)
        #expect(outcome.results.trials.allSatisfy { $0.failed && $0.error?.isEmpty == false })
    }

    @Test func aBatchThatFailsValidationFailsItsTrialsNamingTheProblem() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        // The server takes 2 requests a file; altbench writes 6 into one (as a provider with a
        // lower limit than the documented one would refuse it).
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2, maxLines: 2))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await Self.run(root, Self.options(server))
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        #expect(outcome.results.trials.count == 6)
        for trial in outcome.results.trials {
            #expect(trial.failed)
            #expect(trial.error?.contains("failed") == true, "\(trial.error ?? "")")
            #expect(trial.error?.contains("too_many_requests: The input file has 6 lines") == true, "\(trial.error ?? "")")
        }
        #expect(capture.err.contains("too_many_requests"), "the reason is printed: \(capture.err)")
    }

    @Test func aRequestTheServerRefusesIsAFailedTrialWithItsReason() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        // The 30-token requests are refused (400, an OpenAI error body); the others answered.
        let compatible = OpenAITestServer.compatible()
        let handler: OpenAITestServer.Handler = { request in
            request.bodyText.contains(#""max_tokens":30"#)
                ? .error(status: 400, message: "max_tokens is too small for this model.", param: "max_tokens")
                : await compatible(request)
        }
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2))
        let server = try await OpenAITestServer.start(handler: handler, batches: batches)
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await Self.run(root, Self.options(server) { $0.maxTokens = [30, 60] })
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        let trials = outcome.results.trials
        #expect(trials.count == 12)
        #expect(trials.filter { $0.maxTokens == 30 }.allSatisfy {
            $0.failed && $0.error?.contains("max_tokens is too small for this model.") == true
        })
        #expect(trials.filter { $0.maxTokens == 60 }.allSatisfy { !$0.failed })
        // A failure is not an answer: a later run asks it again.
        let store = try ResultStore(url: root.appendingPathComponent("results/altbench.sqlite"))
        let stats = try await store.cacheStatistics()
        #expect(stats.answers == 6)
    }

    @Test func anEmptyErrorFileIDIsNoErrorFile() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2, faults: BatchFaults(emptyErrorFileID: true)))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await Self.run(root, Self.options(server))
        #expect(outcome.exitCode == 0, "\(capture.err)")
        #expect(outcome.results.trials.allSatisfy { !$0.failed })
        #expect(await batches.counts.downloads == 1, "the output file only")
    }

    @Test func azureGlobalBatchThroughTheV1API() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let azureKey = "azure-test-key"
        let batches = BatchSimulator(BatchSimulatorOptions(flavour: .azure, pollsUntilComplete: 2, azureAPIKey: azureKey))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        var options = RunOptions()
        options.provider = .azure
        options.azureEndpoint = "http://127.0.0.1:\(server.port)"
        options.model = "alt-text-batch"
        options.batch = true
        options.batchPoll = 0.02
        let capture = BatchCapture()
        let outcome = try await Evaluation(
            options: options, environment: ["AZURE_OPENAI_API_KEY": azureKey], console: capture.console,
            workingDirectory: root
        ).run()
        #expect(outcome.exitCode == 0, "\(capture.err)")
        #expect(outcome.results.trials.count == 6)
        #expect(outcome.results.trials.allSatisfy { !$0.failed && $0.batchID != nil })
        let counts = await batches.counts
        #expect(counts.uploads == 1 && counts.creates == 1)
        #expect(!capture.err.contains(azureKey))
    }

    @Test func aBatchThatIsGoneFailsItsTrialsSayingSo() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 5, faults: BatchFaults(goneAfterPolls: 1)))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await Self.run(root, Self.options(server))
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        #expect(outcome.results.trials.allSatisfy { $0.failed && $0.error?.contains("no longer knows batch") == true })
    }

    @Test func aBatchRefusedForTheQueueIsCreatedAgainOnceTheOthersFinish() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 3, faults: BatchFaults(tokenLimitBatches: 1)))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await Self.run(root, Self.options(server) { $0.batchMaxLines = 3 })
        #expect(outcome.exitCode == 0, "\(capture.err)")
        #expect(outcome.results.trials.allSatisfy { !$0.failed })
        let counts = await batches.counts
        #expect(counts.uploads == 2, "the refused file is not uploaded again")
        #expect(counts.creates == 3)
        #expect(capture.err.contains("enqueued token limit"), "\(capture.err)")
    }

    /// Stopped while its batch runs (as Ctrl-C does), the run continues with --resume: the
    /// batch is polled again, not uploaded or created again; `altbench batches` lists it.
    @Test func aStoppedRunContinuesWithoutSendingAnythingTwice() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let control = RunControl()
        let batches = BatchRunTests.interrupting(control, polls: 4)
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let (stopped, capture) = try await Self.run(root, Self.options(server), control: control)
        #expect(stopped.exitCode == 130, "\(capture.err)")
        #expect(stopped.results.trials.isEmpty)
        #expect(capture.err.contains("keeps running at the provider"), "\(capture.err)")
        #expect(capture.err.contains("altbench batches cancel \(stopped.runID)"))

        let listing = BatchCapture()
        let (listed, count) = try await BatchesCommand(results: "results", console: listing.console, workingDirectory: root).list(run: nil)
        #expect(listed == stopped.runID)
        #expect(count == 1)
        #expect(listing.out.contains("in_progress"), "\(listing.out)")

        let (resumed, again) = try await Self.run(root, RunOptions(), resume: stopped.runID)
        #expect(resumed.exitCode == 0, "\(again.err)")
        #expect(resumed.runID == stopped.runID)
        #expect(resumed.results.trials.count == 6)
        #expect(resumed.results.trials.allSatisfy { !$0.failed && $0.batchID != nil })
        let counts = await batches.counts
        #expect(counts.uploads == 1)
        #expect(counts.creates == 1)
    }
    /// `altbench batches cancel RUN`: the server cancels what runs, what finished is recorded,
    /// the rest stays unrecorded for a later run, and nothing new is sent.
    @Test func cancellingImportsWhatFinishedAndSendsNothingNew() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let control = RunControl()
        let batches = BatchRunTests.interrupting(control, polls: 8, when: { _, status in status == "in_progress" })
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let (stopped, _) = try await Self.run(root, Self.options(server) { $0.batchMaxLines = 3 }, control: control)
        #expect(stopped.exitCode == 130)
        var cancel = RunOptions()
        cancel.batchCancel = true
        let (cancelled, capture) = try await Self.run(root, cancel, resume: stopped.runID)
        let counts = await batches.counts
        #expect(counts.cancels >= 1, "\(capture.err)")
        #expect(counts.uploads <= 2)
        #expect(counts.creates <= 2, "cancel creates nothing new")
        #expect(capture.err.contains("asked the server to cancel batch"), "\(capture.err)")
        #expect(cancelled.results.trials.allSatisfy { !$0.failed })
        #expect(cancelled.results.trials.count < 6, "what the cancelled batches did not finish stays unrecorded")
        let jobs = try await ResultStore(url: root.appendingPathComponent("results/altbench.sqlite")).batchJobs(runID: stopped.runID)
        #expect(!jobs.isEmpty && jobs.allSatisfy { $0.job.importedAt != nil && ["cancelled", "completed"].contains($0.job.status) })
    }
}
