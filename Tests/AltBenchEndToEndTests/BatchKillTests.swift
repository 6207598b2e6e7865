import AltBenchTesting
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `altbench run --batch` as a child process, killed with SIGKILL at each stage of a batch run
/// (the test watches the simulated Batch API's events and kills the child the moment one
/// arrives), then continued with `altbench run --resume RUN`: no recorded file is uploaded
/// again, no existing batch is created again, every trial is stored once, and the answers are
/// an uninterrupted run's.
@Suite("run --batch killed with SIGKILL at every stage, then resumed", .serialized)
struct BatchKillTests {
    static let key = "sk-batch-kill"
    /// 2 prompts × 4 images at one token limit, four lines per input file: two files.
    static let planned = 8
    static let files = 2

    /// Where the child is killed: the first event of the kind.
    enum Stage: String, CaseIterable, Sendable, CustomStringConvertible {
        /// An upload's head has arrived and its body is still coming (a slow upload).
        case duringUpload
        /// The server has stored an upload and not yet answered: the file is on the server,
        /// its id not in the store, so the resumed run must find it by name and size.
        case uploadAccepted
        /// The server has created a batch and not yet answered: the resumed run must find it
        /// by its metadata.
        case batchCreated
        /// A batch is polled in progress.
        case polling
        /// An output file is being downloaded.
        case downloading

        var description: String { rawValue }

        func matches(_ event: BatchEvent) -> Bool {
            switch (self, event) {
            case (.duringUpload, .uploadStarted), (.uploadAccepted, .uploaded), (.batchCreated, .created),
                (.polling, .polled(_, "in_progress")), (.downloading, .downloaded):
                return true
            default:
                return false
            }
        }
    }

    /// Kills the child once, at the first event `stage` matches.
    final class Killer: @unchecked Sendable {
        let stage: Stage
        private let lock = NSLock()
        private var child: ChildProcess?
        private var due = false
        private var fired = false

        init(_ stage: Stage) { self.stage = stage }

        func attach(_ child: ChildProcess) {
            lock.withLock {
                self.child = child
                if due && !fired {
                    fired = true
                    child.send(SIGKILL)
                }
            }
        }

        /// Called by the simulator, before it answers the request the event belongs to.
        func handle(_ event: BatchEvent) {
            guard stage.matches(event) else { return }
            lock.withLock {
                guard !fired else { return }
                guard let child else {
                    due = true
                    return
                }
                fired = true
                child.send(SIGKILL)
            }
        }

        var hasFired: Bool { lock.withLock { fired } }
    }

    static func environment() -> [String: String] {
        AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": key])
    }

    static func arguments(_ server: OpenAITestServer) -> [String] {
        ["run", "--batch", "--base-url", server.baseURL, "--max-tokens", "30", "--batch-max-lines", "4", "--batch-poll", "0.05"]
    }

    /// Every trial's answer by its coordinates.
    static func answers(_ workspace: Workspace) throws -> [String: String] {
        try InterruptionTests.database(workspace).read { db in
            var answers: [String: String] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT v.name, i.item_key, t.max_tokens, t.repeat_index, r.content FROM trial t
                    JOIN variant v ON v.id = t.variant_id JOIN item i ON i.id = t.item_id
                    LEFT JOIN response r ON r.id = t.response_id
                    """)
            {
                let coordinates = "\(row["name"] as String) × \(row["item_key"] as String) @ \(row["max_tokens"] as Int?  ?? 0) #\(row["repeat_index"] as Int)"
                answers[coordinates] = row["content"] as String? ?? "(none)"
            }
            return answers
        }
    }

    /// The answers of the same run, not interrupted, against a server of its own.
    static func uninterruptedAnswers() async throws -> [String: String] {
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 3))
        let server = try await OpenAITestServer.start(batches: batches)
        let workspace = try Workspace()
        defer { workspace.remove() }
        let output = try await AltbenchProcess.run(Self.arguments(server), in: workspace.root, environment: Self.environment())
        await server.stop()
        #expect(output.status == 0, "\(output.stderr)")
        #expect(await batches.counts.uploads == files)
        return try answers(workspace)
    }

    @Test("kill -9, then run --resume: nothing uploaded or created twice, every trial stored once, the uninterrupted run's answers", arguments: Stage.allCases)
    func killAndResume(stage: Stage) async throws {
        let expected = try await Self.uninterruptedAnswers()
        #expect(expected.count == Self.planned)

        let killer = Killer(stage)
        // Only the first upload is slow: the resumed run's go at full speed.
        let batches = BatchSimulator(
            BatchSimulatorOptions(
                pollsUntilComplete: 3, uploadBytesPerSecond: stage == .duringUpload ? 16_384 : nil, slowUploads: 1,
                onEvent: { killer.handle($0) }))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let workspace = try Workspace()
        defer { workspace.remove() }

        let running = try RunningAltbench(Self.arguments(server), in: workspace.root, environment: Self.environment())
        killer.attach(running.process)
        let killed = try await running.wait()
        #expect(killer.hasFired, "the run ended before the \(stage) stage: \(killed.stderr)")
        #expect(running.termination == .signalled(SIGKILL), "\(killed.stderr)")

        let integrity = try await InterruptionTests.database(workspace).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
        let runID = try #require(try await InterruptionTests.database(workspace).read { try String.fetchOne($0, sql: "SELECT id FROM run") })
        let count = { (sql: String) in try InterruptionTests.count(workspace, sql) }
        let before = await batches.counts
        // What the kill left: the state each adopt path starts from.
        switch stage {
        case .duringUpload:
            #expect(before.uploadsStarted == 1 && before.uploads == 0)
            #expect(try count("SELECT count(*) FROM batch_input") >= 1, "a file is recorded before its upload")
            #expect(try count("SELECT count(*) FROM batch_input WHERE file_id IS NOT NULL") == 0)
        case .uploadAccepted:
            #expect(before.uploads == 1)
            #expect(try count("SELECT count(*) FROM batch_input WHERE file_id IS NOT NULL") == 0, "the upload's id never reached the store")
        case .batchCreated:
            #expect(before.creates == 1)
            #expect(try count("SELECT count(*) FROM batch_input WHERE file_id IS NOT NULL") == 1)
            #expect(try count("SELECT count(*) FROM batch_job") == 0, "the batch's id never reached the store")
        case .polling:
            #expect(try count("SELECT count(*) FROM batch_job") == Self.files)
            #expect(try count("SELECT count(*) FROM trial") == 0)
        case .downloading:
            #expect(before.downloads == 1)
            #expect(try count("SELECT count(*) FROM trial") == 0)
        }

        let resumed = try await AltbenchProcess.run(["run", "--resume", runID], in: workspace.root, environment: Self.environment())
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let after = await batches.counts
        #expect(try count("SELECT count(*) FROM batch_input") == Self.files)
        #expect(after.uploads == Self.files, "no recorded file is uploaded twice")
        #expect(after.creates == Self.files, "no batch is created twice")
        #expect(await batches.batchIDs().count == Self.files)
        #expect(try count("SELECT count(*) FROM batch_job") == Self.files)
        #expect(try count("SELECT count(*) FROM batch_job WHERE imported_at IS NULL") == 0)
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty, "nothing was sent live")

        #expect(try count("SELECT count(*) FROM trial") == Self.planned, "every trial stored exactly once")
        #expect(try count("SELECT count(DISTINCT variant_id || '/' || item_id || '/' || max_tokens || '/' || repeat_index) FROM trial") == Self.planned)
        #expect(try count("SELECT count(*) FROM trial WHERE status = 'answered' AND batch_id IS NOT NULL") == Self.planned)
        #expect(try count("SELECT count(*) FROM response") == Self.planned, "each answer stored once")
        #expect(try count("SELECT count(*) FROM run WHERE status = 'finished'") == 1)
        #expect(try Self.answers(workspace) == expected)
    }

    @Test("run --judge --batch killed once the server created a judge batch: run --resume finds it by its metadata and judges every answer once")
    func killAfterTheJudgesBatchWasCreated() async throws {
        let compatible = OpenAITestServer.compatible()
        let verdict = #"{"accuracy": 4, "completeness": 4, "concision": 5, "errors": []}"#
        let handler: OpenAITestServer.Handler = { request in
            guard (try? request.json())?["response_format"] != nil else { return await compatible(request) }
            return .chatCompletion(content: verdict, promptTokens: 900, completionTokens: 30)
        }
        let killer = Killer(.batchCreated)
        // The run's two batches come first; the judge's first is the third.
        let batches = BatchSimulator(
            BatchSimulatorOptions(
                pollsUntilComplete: 2,
                onEvent: { event in if case .created("batch_000003") = event { killer.handle(event) } }))
        let server = try await OpenAITestServer.start(handler: handler, batches: batches)
        defer { Task { await server.stop() } }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let running = try RunningAltbench(
            Self.arguments(server) + ["--judge", "--judge-model", "gpt-4o"], in: workspace.root, environment: Self.environment())
        killer.attach(running.process)
        let killed = try await running.wait()
        #expect(running.termination == .signalled(SIGKILL), "\(killed.stderr)")
        let count = { (sql: String) in try InterruptionTests.count(workspace, sql) }
        #expect(try count("SELECT count(*) FROM trial") == Self.planned)
        #expect(try count("SELECT count(*) FROM batch_input WHERE purpose = 'judge' AND file_id IS NOT NULL") == 1)
        #expect(try count("SELECT count(*) FROM batch_job WHERE purpose = 'judge'") == 0, "the judge batch's id never reached the store")
        let runID = try #require(try await InterruptionTests.database(workspace).read { try String.fetchOne($0, sql: "SELECT id FROM run") })

        let resumed = try await AltbenchProcess.run(["run", "--resume", runID], in: workspace.root, environment: Self.environment())
        #expect(resumed.status == 0, "\(resumed.stderr)")
        // Eight judge calls at four lines a file: two judge files, as for the run's trials.
        let counts = await batches.counts
        #expect(try count("SELECT count(*) FROM batch_input WHERE purpose = 'judge'") == 2)
        #expect(counts.uploads == 2 * Self.files, "\(resumed.stderr)")
        #expect(counts.creates == 2 * Self.files, "the judge's first batch is not created twice")
        #expect(try count("SELECT count(*) FROM batch_job WHERE purpose = 'judge' AND imported_at IS NOT NULL") == 2)
        #expect(try count("SELECT count(*) FROM batch_job WHERE batch_id = 'batch_000003'") == 1)
        #expect(try count("SELECT count(*) FROM judgement") == Self.planned, "every answer judged once")
        #expect(try count("SELECT count(*) FROM judgement WHERE status = 'judged' AND accuracy = 4") == Self.planned)
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty, "nothing was sent live")
    }
}
