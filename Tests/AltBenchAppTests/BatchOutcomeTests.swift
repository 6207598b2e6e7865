import AltBenchCore
import AltBenchOpenAI
import AltBenchStore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchApp

/// Ways a batch can end, as `altbench run --batch` records them: rows of docs/batch.md's
/// outcomes table beyond those ``BatchRunTests`` covers.
@Suite("run --batch: every outcome")
struct BatchOutcomeTests {
    static func store(_ root: URL) throws -> ResultStore {
        try ResultStore(url: root.appendingPathComponent("results/altbench.sqlite"))
    }

    /// A server on the port the keys were planned for, and the workspace's keys in plan order.
    static func serve(
        _ root: URL, handler: @escaping OpenAITestServer.Handler = OpenAITestServer.compatible(),
        options: ([String]) -> BatchSimulatorOptions
    ) async throws -> (OpenAITestServer, BatchSimulator, keys: [String]) {
        // The keys name the server's URL: plan them for a port, then serve on it.
        let probe = try await OpenAITestServer.start()
        let port = probe.port
        let keys = try BatchRunTests.keys(root, BatchRunTests.options(probe))
        await probe.stop()
        let batches = BatchSimulator(options(keys))
        return (try await OpenAITestServer.start(port: port, handler: handler, batches: batches), batches, keys)
    }

    @Test("a batch whose input fails validation fails each of its trials, naming the line and the problem; exit 3")
    func validationFailure() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let (server, batches, _) = try await Self.serve(root) { keys in
            BatchSimulatorOptions(pollsUntilComplete: 2, faults: BatchFaults(invalidLines: [keys[2]]))
        }
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await BatchRunTests.run(root, BatchRunTests.options(server))
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        #expect(outcome.results.trials.count == 6)
        let line = "line 3: invalid_request: Invalid 'body.messages': the request body is not a valid chat completion request."
        #expect(outcome.results.trials.allSatisfy { $0.failed && $0.error?.contains("batch batch_000001 failed: \(line)") == true })
        #expect(capture.err.contains("6 of 6 trials failed"), "\(capture.err)")
        #expect(capture.err.contains(line), "\(capture.err)")
        #expect(await batches.counts.linesRun == 0)
        let listing = BatchCapture()
        try await BatchesCommand(results: "results", console: listing.console, workingDirectory: root).list(run: outcome.runID)
        #expect(listing.out.contains("batch_000001: \(line)"), "\(listing.out)")
    }

    @Test("a batch that ends completed with no output file: every trial fails with the reason in the error file")
    func completedWithoutOutputFile() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let (server, _, _) = try await Self.serve(root) { _ in
            BatchSimulatorOptions(pollsUntilComplete: 1, faults: BatchFaults(failAllRequests: true))
        }
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await BatchRunTests.run(root, BatchRunTests.options(server))
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        let job = try #require(try await Self.store(root).batchJobs(runID: outcome.runID).first?.job)
        #expect(job.status == "completed" && job.outputFileID == nil && job.errorFileID != nil)
        #expect(
            outcome.results.trials.allSatisfy {
                $0.failed && $0.error?.contains("The server had an error while processing your request") == true
            }, "\(outcome.results.trials.map(\.error))")
    }

    @Test("a batch that answers 404 after some polls fails its trials, saying it is gone", arguments: [2])
    func goneAfterPolls(polls: Int) async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let (server, batches, _) = try await Self.serve(root) { _ in
            BatchSimulatorOptions(pollsUntilComplete: 5, faults: BatchFaults(goneAfterPolls: polls))
        }
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await BatchRunTests.run(root, BatchRunTests.options(server))
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        #expect(await batches.counts.polls == polls + 1)
        #expect(
            outcome.results.trials.allSatisfy {
                $0.failed && $0.error?.contains("the server no longer knows batch batch_000001 (404)") == true
            })
        let job = try #require(try await Self.store(root).batchJobs(runID: outcome.runID).first?.job)
        #expect(job.status == "failed" && job.importedAt != nil)
    }

    @Test("a batch cancelled at the provider: what it finished is recorded, the rest stays unrecorded and --resume sends it")
    func cancelledAtTheProvider() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let (server, batches, _) = try await Self.serve(root) { _ in
            BatchSimulatorOptions(pollsUntilComplete: 4, faults: BatchFaults(cancelledBatches: 1))
        }
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await BatchRunTests.run(root, BatchRunTests.options(server))
        #expect(outcome.exitCode == 0, "nothing failed: \(capture.err)")
        #expect(await batches.counts.cancels == 0, "altbench asked for no cancel")
        #expect(capture.err.contains("batch batch_000001 was cancelled at the provider"), "\(capture.err)")
        #expect(capture.err.contains("altbench run --resume \(outcome.runID)"), "\(capture.err)")
        let recorded = outcome.results.trials
        #expect(recorded.count == 3, "half the lines were answered at the first poll")
        #expect(recorded.allSatisfy { !$0.failed && $0.batchID == "batch_000001" })
        #expect(try await Self.store(root).loadRun(id: outcome.runID).info.status == "stopped")

        // The rest goes in a new batch, which the provider lets run.
        let (resumed, log) = try await BatchRunTests.run(root, RunOptions(), resume: outcome.runID)
        #expect(resumed.exitCode == 0, "\(log.err)")
        #expect(resumed.results.trials.count == 6)
        #expect(resumed.results.trials.allSatisfy { !$0.failed })
        #expect(await batches.counts.creates == 2)
        #expect(await batches.counts.uploads == 2)
        #expect(await batches.counts.linesRun == 6, "only what the cancelled batch left is asked again")
    }

    @Test("the enqueued token limit with nothing else of the run queued fails the trials, advising smaller files")
    func tokenLimitWithNothingElseQueued() async throws {
        let root = try BatchRunTests.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let (server, batches, _) = try await Self.serve(root) { _ in
            BatchSimulatorOptions(pollsUntilComplete: 2, faults: BatchFaults(tokenLimitBatches: 1))
        }
        defer { Task { await server.stop() } }
        let (outcome, capture) = try await BatchRunTests.run(root, BatchRunTests.options(server))
        #expect(outcome.exitCode == Evaluation.partialFailureExitCode, "\(capture.err)")
        #expect(await batches.counts.creates == 1, "not created again: nothing else of the run would free the queue")
        #expect(
            outcome.results.trials.allSatisfy {
                $0.failed && $0.error?.contains("Enqueued token limit reached") == true
                    && $0.error?.contains("lower --batch-max-lines") == true
            }, "\(outcome.results.trials.map(\.error))")
    }
}
