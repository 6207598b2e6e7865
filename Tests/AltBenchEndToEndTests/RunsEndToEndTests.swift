import AltBenchTesting
import Foundation
import GRDB
import Testing

/// `altbench runs` as a user types it: the runs a results folder holds, newest first, with
/// what each asked and how it ended, as a table or JSON.
@Suite("altbench runs")
struct RunsEndToEndTests {
    @Test func listsFinishedStoppedAndRunningRunsNewestFirst() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }

        // Before any run: the error every reading command gives.
        let none = try await AltbenchProcess.run(["runs"], in: workspace.root)
        #expect(none.status == 1)
        #expect(none.stderr.contains("results/altbench.sqlite holds no runs yet. Run `altbench run` first."))

        // A finished mock run, whose dataset folder name carries an escape sequence.
        let evil = "datasets/red\u{1B}[31mtext"
        try FileManager.default.copyItem(at: workspace.url("datasets/sample"), to: workspace.url(evil))
        let mock = try await AltbenchProcess.run(["run", "--dataset", evil, "--max-tokens", "50"], in: workspace.root)
        #expect(mock.status == 0, "\(mock.stderr)")

        // A run the server stops: a wrong key.
        let server = try await OpenAITestServer.start(handler: OpenAITestServer.compatible(apiKey: "right-key"))
        let stopped = try await AltbenchProcess.run(
            ["run", "--base-url", server.baseURL, "--max-tokens", "50", "--concurrency", "1"], in: workspace.root,
            environment: AltbenchProcess.cleanEnvironment(["OPENAI_API_KEY": "wrong-key"]))
        await server.stop()
        #expect(stopped.status == 1, "\(stopped.stderr)")

        // A finished run against a model, then marked running as a killed process leaves it.
        let good = try await OpenAITestServer.start()
        let finished = try await AltbenchProcess.run(
            ["run", "--base-url", good.baseURL, "--max-tokens", "50", "--model", "gpt-4.1-mini"], in: workspace.root)
        await good.stop()
        #expect(finished.status == 0, "\(finished.stderr)")
        let database = try DatabaseQueue(path: workspace.url("results/altbench.sqlite").path)
        let ids = try await database.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM run ORDER BY started_at DESC, id DESC")
        }
        try #require(ids.count == 3)
        try await database.write { db in
            try db.execute(sql: "UPDATE run SET status = 'running', finished_at = NULL WHERE id = ?", arguments: [ids[0]])
        }
        try database.close()

        let table = try await AltbenchProcess.run(["runs"], in: workspace.root)
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("ID "))
        #expect(lines[0].contains("STARTED") && lines[0].contains("ANSWERED") && lines[0].hasSuffix("STATUS"))
        try #require(lines.count >= 4, "\(table.stdout)")
        #expect(lines[1].hasPrefix(ids[0]))
        #expect(lines[1].contains(" UTC  "), "the start time says its zone")
        #expect(lines[1].contains("openai") && lines[1].contains("gpt-4.1-mini"))
        #expect(lines[1].hasSuffix("8       0        8  running"), "\(lines[1])")
        #expect(lines[2].hasPrefix(ids[1]))
        #expect(lines[2].contains("stopped: "), "\(lines[2])")
        #expect(lines[3].hasPrefix(ids[2]))
        #expect(lines[3].contains("MOCK"))
        #expect(lines[3].contains(#"datasets/red\x1B[31mtext"#), "shown escaped")
        #expect(lines[3].hasSuffix("finished"))
        #expect(!table.stdout.contains("\u{1B}"), "no escape sequence reaches the terminal")
        #expect(table.stdout.contains("MOCK: the offline mock model answered"))
        #expect(table.stdout.contains("`altbench run --resume ID` continues it"))

        let json = try await AltbenchProcess.run(["runs", "--format", "json"], in: workspace.root)
        #expect(json.status == 0, "\(json.stderr)")
        #expect(!json.stdout.contains("\u{1B}"))
        let runs = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(runs.map { $0["id"] as? String } == ids)
        #expect(runs[0]["status"] as? String == "running")
        #expect(runs[0]["models"] as? [String] == ["gpt-4.1-mini"])
        #expect(runs[0]["answered"] as? Int == 8)
        #expect(runs[0]["finished_at"] is NSNull)
        #expect((runs[0]["started_at"] as? String)?.hasSuffix("Z") == true)
        #expect(runs[1]["status"] as? String == "stopped")
        #expect((runs[1]["status_message"] as? String)?.contains("401") == true, "\(runs[1])")
        #expect(runs[1]["planned"] as? Int == 8)
        #expect((runs[1]["failed"] as? Int ?? 0) + (runs[1]["answered"] as? Int ?? 0) < 8, "stopped before the end")
        #expect(runs[2]["provider"] as? String == "mock")
        #expect(runs[2]["mock"] as? Bool == true)
        #expect(runs[2]["dataset"] as? String == evil, "JSON keeps the text, escaped the JSON way")

        // Another results folder, as --results names it.
        try FileManager.default.moveItem(at: workspace.url("results"), to: workspace.url("elsewhere"))
        let moved = try await AltbenchProcess.run(["runs", "--results", "elsewhere"], in: workspace.root)
        #expect(moved.status == 0)
        #expect(moved.stdout.contains(ids[2]))
        let bad = try await AltbenchProcess.run(["runs", "--format", "yaml"], in: workspace.root)
        #expect(bad.status == 64, "a usage error")
    }
}
