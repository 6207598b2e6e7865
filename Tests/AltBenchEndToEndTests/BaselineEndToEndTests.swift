import AltBenchTesting
import Foundation
import Testing

/// `altbench baseline save` as CI runs it: a finished run written to a reviewable file.
@Suite("altbench baseline save")
struct BaselineEndToEndTests {
    @Test func savesTheLatestRunToResultsBaselineJSONStably() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let run = try await AltbenchProcess.run(["run", "--max-tokens", "10,50"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")

        let saved = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("to results/baseline.json: 4 variant × max_tokens pairs, 4 items, mock"), "\(saved.stdout)")
        #expect(saved.stderr.contains("this baseline holds mock answers"))
        let text = try workspace.read("results/baseline.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(root["provider"] as? String == "mock")
        #expect(root["endpoint_host"] as? String == "mock")
        #expect(root["models"] as? [String] == ["gpt-4o-mini"])
        #expect((root["dataset"] as? [String: Any])?["items"] as? Int == 4)
        #expect(((root["dataset"] as? [String: Any])?["sha256"] as? String)?.count == 64)
        let rows = try #require(root["rows"] as? [[String: Any]])
        // The baseline variant (icecubes) comes first, then the others in file-name order.
        #expect(rows.map { "\($0["variant"] ?? "")@\($0["max_tokens"] ?? "")" } == [
            "icecubes@10", "icecubes@50", "icecubes-original@10", "icecubes-original@50",
        ])
        let first = try #require(rows.first)
        #expect(first["n"] as? Int == 4)
        let items = try #require(first["items"] as? [String: Any])
        #expect(Set(items.keys) == Set(Workspace.baseItems))
        let chelsea = try #require(items["chelsea"] as? [String: Any])
        // Ten tokens cut the mock's answer short: the item did not pass the truncation check,
        // and the row's truncated rate says the same from the other side.
        #expect(root["format"] as? Int == 2)
        #expect((chelsea["passed"] as? [String: Any])?["truncated"] as? Int == 0)
        #expect(chelsea["checks"] == nil, "format 1's name is gone")
        #expect(((first["metrics"] as? [String: Any])?["truncated"] as? Double ?? 0) > 0)
        #expect(chelsea["answer"] is String)

        // Saving the same run again, elsewhere, writes the same bytes.
        let again = try await AltbenchProcess.run(
            ["baseline", "save", "--output", "ci/baseline.json"], in: workspace.root)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try workspace.read("ci/baseline.json") == text)
    }

    @Test func refusesAnIncompleteRunAndAMissingStore() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let none = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(none.status != 0)
        #expect(none.stderr.contains("results/altbench.sqlite holds no runs yet"), "\(none.stderr)")

        // A 401 stops the run at its first answer, leaving the rest unasked.
        let server = try await OpenAITestServer.start { _ in
            .error(status: 401, message: "Incorrect API key provided.", type: "invalid_request_error")
        }
        let stopped = try await AltbenchProcess.run(["run", "--base-url", server.baseURL], in: workspace.root)
        await server.stop()
        #expect(stopped.status != 0)
        let refused = try await AltbenchProcess.run(["baseline", "save"], in: workspace.root)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("would be incomplete"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-incomplete"))
        #expect(!FileManager.default.fileExists(atPath: workspace.url("results/baseline.json").path))
        let forced = try await AltbenchProcess.run(["baseline", "save", "--allow-incomplete"], in: workspace.root)
        #expect(forced.status == 0, "\(forced.stderr)")
    }
}
