import AltBenchTesting
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `altbench run --judge --batch` killed with SIGKILL the moment the server created the
/// judge's first batch (its id never reaches the store), then continued with `altbench run
/// --resume RUN`: the judge's batch is found by its metadata, not created again, and every
/// answer is judged once.
@Suite("run --judge --batch killed after a judge batch was created")
struct JudgeBatchKillTests {
    static let key = "sk-judge-kill"
    /// 2 prompts × 4 images at one token limit, four lines per input file: two files for the
    /// run's trials and two for its judge's calls.
    static let planned = 8

    static func count(_ workspace: Workspace, _ sql: String) throws -> Int {
        try InterruptionTests.count(workspace, sql)
    }

    @Test func theJudgesBatchIsAdoptedNotCreatedAgain() async throws {
        let compatible = OpenAITestServer.compatible()
        let verdict = #"{"accuracy": 4, "completeness": 4, "concision": 5, "errors": []}"#
        // The run's requests answered as the compatible server does; the judge's, with a verdict.
        let handler: OpenAITestServer.Handler = { request in
            guard (try? request.json())?["response_format"] != nil else { return await compatible(request) }
            return .chatCompletion(content: verdict, promptTokens: 900, completionTokens: 30)
        }
        // The run's two batches come first; the judge's first is the third.
        let kill = BatchKillTests.KillSwitch(stage: .afterCreateBeforeItsID)
        let batches = BatchSimulator(
            BatchSimulatorOptions(
                pollsUntilComplete: 2,
                onEvent: { event in if case .created("batch_000003") = event { kill.handle(event) } }))
        let server = try await OpenAITestServer.start(handler: handler, batches: batches)
        defer { Task { await server.stop() } }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.key])
        let running = try RunningAltbench(
            ["run", "--batch", "--base-url", server.baseURL, "--max-tokens", "30", "--batch-max-lines", "4", "--batch-poll",
             "0.05", "--judge", "--judge-model", "gpt-4o"], in: workspace.root, environment: environment)
        kill.arm(running.process)
        let killed = try await running.wait()
        kill.disarm()
        #expect(kill.didFire, "the judge's batch was never created: \(killed.stderr)")
        #expect(running.termination == .signalled(SIGKILL), "\(killed.stderr)")
        #expect(try Self.count(workspace, "SELECT count(*) FROM trial") == Self.planned)
        #expect(try Self.count(workspace, "SELECT count(*) FROM batch_input WHERE purpose = 'judge' AND sequence = 1 AND file_id IS NOT NULL") == 1)
        #expect(try Self.count(workspace, "SELECT count(*) FROM batch_job WHERE purpose = 'judge'") == 0, "the batch's id never reached the store")
        let runID = try #require(try await InterruptionTests.database(workspace).read { try String.fetchOne($0, sql: "SELECT id FROM run") })

        let resumed = try await AltbenchProcess.run(["run", "--resume", runID], in: workspace.root, environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let counts = await batches.counts
        #expect(try Self.count(workspace, "SELECT count(*) FROM batch_input WHERE purpose = 'judge'") == 2)
        #expect(counts.uploads == 4, "two files for the trials, two for the judge, each uploaded once: \(resumed.stderr)")
        #expect(counts.creates == 4, "the judge's first batch is not created twice")
        #expect(try Self.count(workspace, "SELECT count(*) FROM batch_job WHERE batch_id = 'batch_000003' AND purpose = 'judge'") == 1)
        #expect(try Self.count(workspace, "SELECT count(*) FROM batch_job WHERE purpose = 'judge' AND imported_at IS NOT NULL") == 2)
        #expect(try Self.count(workspace, "SELECT count(*) FROM judgement") == Self.planned, "every answer judged once")
        #expect(try Self.count(workspace, "SELECT count(*) FROM judgement WHERE status = 'judged' AND accuracy = 4") == Self.planned)
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty, "nothing was sent live")
    }
}
