import AltBenchCore
import AltBenchTesting
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `altbench run --batch` killed with SIGKILL at each stage of its work, by the simulated
/// Batch API itself at the moment the stage happens (so the kill lands where the test says,
/// not where a timer guesses), then continued with `altbench run --resume RUN`: no input file
/// is uploaded twice, no batch created twice, every trial is stored once, and the answers are
/// those of a live run of the same plan.
@Suite("Batch runs killed at each stage")
struct BatchKillTests {
    enum Stage: String, CaseIterable, Sendable {
        /// The first upload's head arrived: the client is sending its body.
        case duringUpload
        /// The server stored the first file; the client never saw its id.
        case afterUploadBeforeItsID
        /// The server created the first batch; the client never saw its id.
        case afterCreateBeforeItsID
        /// The client looked at a batch in progress.
        case whilePolling
        /// The server is sending the first output file.
        case duringDownload

        func matches(_ event: BatchEvent) -> Bool {
            switch (self, event) {
            case (.duringUpload, .uploadStarted), (.afterUploadBeforeItsID, .uploaded), (.afterCreateBeforeItsID, .created),
                (.duringDownload, .downloaded):
                return true
            case (.whilePolling, .polled(_, let status)):
                return status == "in_progress"
            default:
                return false
            }
        }
    }

    /// Kills the child at the first event of its stage.
    final class KillSwitch: @unchecked Sendable {
        private let lock = NSLock()
        private var child: ChildProcess?
        private var fired = false
        let stage: Stage

        init(stage: Stage) { self.stage = stage }

        func arm(_ child: ChildProcess) { lock.withLock { self.child = child } }
        func disarm() { lock.withLock { child = nil } }
        var didFire: Bool { lock.withLock { fired } }

        func handle(_ event: BatchEvent) {
            lock.withLock {
                guard !fired, let child, stage.matches(event) else { return }
                fired = true
                child.send(SIGKILL)
            }
        }
    }

    /// (variant, max_tokens, item, repeat) → answer text, of the newest run in `database`.
    static func answers(_ database: URL) async throws -> [String: String] {
        let queue = try DatabaseQueue(path: database.path)
        defer { try? queue.close() }
        return try await queue.read { db in
            let run = try String.fetchOne(db, sql: "SELECT id FROM run ORDER BY started_at DESC, id DESC LIMIT 1")
            var answers: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM trial_result WHERE run_id = ?", arguments: [run]) {
                let key = "\(row["variant"] as String)|\(row["max_tokens"] as Int? ?? 0)|\(row["item"] as String)|\(row["repeat_index"] as Int)"
                #expect(answers[key] == nil, "trial \(key) stored twice")
                answers[key] = (row["status"] as String) == "answered" ? (row["content"] as String?) ?? "" : "FAILED"
            }
            return answers
        }
    }

    /// Waits (up to 30 s) until the simulator has no upload in progress.
    static func waitForUploadsToSettle(_ simulator: BatchSimulator) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let counts = await simulator.counts
            if counts.uploadsSettled == counts.uploadsStarted { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("an upload is still in progress 30 s after the kill: \(await simulator.counts)")
    }

    @Test(arguments: Stage.allCases)
    func aRunKilledAtThisStageResumesWithoutSendingAnythingTwice(_ stage: Stage) async throws {
        let kill = KillSwitch(stage: stage)
        let simulator = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 3, onEvent: { kill.handle($0) }))
        let server = try await OpenAITestServer.start(batches: simulator)
        let workspace = try Workspace()
        defer { workspace.remove() }
        try workspace.write("altbench.yml", "base_url: \(server.baseURL)\nmax_tokens: [30, 50]\n")
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": "test-key"])
        // 16 trials in two input files of 8, so the kill lands with work before and after it.
        let flags = ["--batch", "--batch-max-lines", "8", "--batch-poll", "1"]

        let log = workspace.url("killed.log")
        let child = try ChildProcess(
            AltbenchProcess.executable.path, ["run"] + flags, environment: environment, directory: workspace.root,
            stdout: log, stderr: log)
        kill.arm(child)
        let ended = await child.wait()
        kill.disarm()
        let killedOutput = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(kill.didFire, "the stage never came: \(killedOutput)")
        #expect(ended == .signalled(SIGKILL), "\(ended): \(killedOutput)")

        let runID = try #require(
            killedOutput.split(separator: "\n").first { $0.hasPrefix("altbench: 16 trials") }?.split(separator: " ").last
                .map(String.init), "\(killedOutput)")
        // An upload cut off by the kill may still be stored, or refused, a moment later: resume
        // once the server is done with it, as a user resuming minutes later would.
        try await Self.waitForUploadsToSettle(simulator)
        let resumed = try await AltbenchProcess.run(
            ["run", "--resume", runID, "--batch-poll", "1"], in: workspace.root, environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")

        let counts = await simulator.counts
        #expect(counts.uploads == 2, "each of the two files uploaded once: \(counts)")
        #expect(counts.creates == 2, "each file's batch created once: \(counts)")
        let batched = try await Self.answers(workspace.url("results/altbench.sqlite"))
        #expect(batched.count == 16, "every trial stored, once")
        #expect(!batched.values.contains("FAILED"))

        // The same plan, live: the same answers.
        let live = try await AltbenchProcess.run(["run", "--results", "live"], in: workspace.root, environment: environment)
        #expect(live.status == 0, "\(live.stderr)")
        #expect(try await Self.answers(workspace.url("live/altbench.sqlite")) == batched)
        await server.stop()
    }
}
