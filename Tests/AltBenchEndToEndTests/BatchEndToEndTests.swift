import AltBenchCore
import AltBenchTesting
import Foundation
import GRDB
import Testing

/// The built `altbench` through a Batch API: Azure's global batch served by the built
/// `altbench-test-server`, and a batch run's answers the same as a live run's and replayed by
/// `--offline`.
@Suite("run --batch end to end")
struct BatchEndToEndTests {
    static let key = "sk-batch-e2e"
    static let azureKey = "azure-batch-e2e-key"

    /// Every trial's answer in the store under `results`, by its coordinates, with whether it
    /// came from the store and its batch.
    static func answers(_ workspace: Workspace, results: String = "results") throws -> [String: (content: String, cached: Bool, batch: String?)] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: workspace.url("\(results)/altbench.sqlite").path, configuration: configuration)
        return try queue.read { db in
            var answers: [String: (content: String, cached: Bool, batch: String?)] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT v.name, i.item_key, t.max_tokens, t.repeat_index, t.cached, t.batch_id, r.content, t.run_id
                    FROM trial t JOIN variant v ON v.id = t.variant_id JOIN item i ON i.id = t.item_id
                    LEFT JOIN response r ON r.id = t.response_id
                    WHERE t.run_id = (SELECT id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1)
                    """)
            for row in rows {
                let coordinates = "\(row["name"] as String) × \(row["item_key"] as String) @ \(row["max_tokens"] as Int? ?? 0) #\(row["repeat_index"] as Int)"
                answers[coordinates] = (row["content"] as String? ?? "(none)", row["cached"] as Bool, row["batch_id"] as String?)
            }
            return answers
        }
    }

    @Test("Azure's global batch: a deployment named by --model, the api-key header, every answer through one batch, no key in what the run wrote")
    func azureGlobalBatch() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let server = try RunningAltbench.testServer(
            ["--port", "0", "--batch-flavour", "azure", "--batch-polls", "3", "--azure-api-key", Self.azureKey,
             "--azure-deployments", "alt-text-batch"], in: workspace.root)
        let baseURL = try #require(try await server.baseURL(), "the test server did not start")
        let endpoint = String(baseURL.dropLast("/v1".count))
        let environment = AltbenchProcess.cleanEnvironment(["AZURE_OPENAI_API_KEY": Self.azureKey])
        let flags = ["--provider", "azure", "--azure-endpoint", endpoint, "--model", "alt-text-batch", "--max-tokens", "30"]

        // A deployment URL has no batch API: refused, naming the fix.
        let refused = try await AltbenchProcess.run(
            ["run", "--batch", "--provider", "azure", "--azure-endpoint", endpoint, "--azure-deployment", "alt-text-batch"],
            in: workspace.root, environment: environment)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("Global-Batch deployment"), "\(refused.stderr)")

        let run = try await AltbenchProcess.run(
            ["run", "--batch", "--batch-poll", "0.05"] + flags, in: workspace.root, environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("batches: 1 of 1 done"), "\(run.stderr)")
        let answers = try Self.answers(workspace)
        #expect(answers.count == 8)
        #expect(answers.values.allSatisfy { $0.batch != nil && !$0.cached && $0.content.hasPrefix("A test description") })

        // Nothing went to the chat route live: the server counts eight batch lines, one upload, one batch.
        let served = try await server.stop()
        #expect(served.stderr.contains("batch: 1 uploads (1 started), 1 creates"), "\(served.stderr)")
        #expect(served.stderr.contains("8 lines run"), "\(served.stderr)")
        let text = try ProxyEndToEndTests.everything([run, served], workspace)
        #expect(!text.contains(Self.azureKey))
        let database = try Data(contentsOf: workspace.url("results/altbench.sqlite"))
        #expect(database.range(of: Data(Self.azureKey.utf8)) == nil, "the key is not in the store")

        // The server is gone: the same settings replay every answer from the store, with no key.
        let replay = try await AltbenchProcess.run(
            ["run", "--offline"] + flags, in: workspace.root, environment: AltbenchProcess.cleanEnvironment())
        #expect(replay.status == 0, "\(replay.stderr)")
        let replayed = try Self.answers(workspace)
        #expect(replayed.values.allSatisfy { $0.cached })
        #expect(replayed.mapValues(\.content) == answers.mapValues(\.content))
    }

    @Test("a batch run stores the answers a live run stores, and a later --offline run takes them from the store")
    func batchAnswersAreLiveAnswersAndReplayOffline() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let batches = BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2))
        let server = try await OpenAITestServer.start(batches: batches)
        defer { Task { await server.stop() } }
        let environment = AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": Self.key])
        let flags = ["--base-url", server.baseURL, "--max-tokens", "30"]

        let batch = try await AltbenchProcess.run(
            ["run", "--batch", "--batch-poll", "0.05"] + flags, in: workspace.root, environment: environment)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(await server.requests(path: "/v1/chat/completions").isEmpty)
        let live = try await AltbenchProcess.run(
            ["run", "--results", "live"] + flags, in: workspace.root, environment: environment)
        #expect(live.status == 0, "\(live.stderr)")
        #expect(await server.requests(path: "/v1/chat/completions").count == 8)

        let batchAnswers = try Self.answers(workspace)
        let liveAnswers = try Self.answers(workspace, results: "live")
        #expect(batchAnswers.count == 8)
        #expect(batchAnswers.values.allSatisfy { $0.batch != nil })
        #expect(liveAnswers.values.allSatisfy { $0.batch == nil && !$0.cached })
        #expect(batchAnswers.mapValues(\.content) == liveAnswers.mapValues(\.content))

        // No key, no batch: every answer from the store the batch run filled.
        let offline = try await AltbenchProcess.run(["run", "--offline"] + flags, in: workspace.root)
        #expect(offline.status == 0, "\(offline.stderr)")
        let replayed = try Self.answers(workspace)
        #expect(replayed.values.allSatisfy { $0.cached })
        #expect(replayed.mapValues(\.content) == batchAnswers.mapValues(\.content))
        #expect(await server.requests(path: "/v1/chat/completions").count == 8, "nothing sent")
        #expect(await batches.counts.uploads == 1)
    }
}
