import Foundation
import Testing
import Yams

/// The GitHub Actions example must stay runnable: valid YAML, and every altbench command in
/// it a command and flags the binary accepts.
@Suite("examples/ci")
struct CIExampleTests {
    @Test func theWorkflowIsValidAndUsesOnlyRealCommandsAndFlags() async throws {
        let file = Workspace.repository.appendingPathComponent("examples/ci/altbench.yml")
        let text = try String(contentsOf: file, encoding: .utf8)
        let workflow = try #require(try Yams.load(yaml: text) as? [String: Any])
        let jobs = try #require(workflow["jobs"] as? [String: Any])
        let job = try #require(jobs["alt-text"] as? [String: Any])
        let steps = try #require(job["steps"] as? [[String: Any]])
        let commands = steps.compactMap { $0["run"] as? String }
            .map { $0.replacingOccurrences(of: "\\\n", with: " ") }
            .filter { $0.contains(".build/release/altbench ") }
        #expect(commands.count == 3)
        #expect(commands.contains { $0.contains("run --offline") }, "forks replay stored answers")
        #expect(commands.contains { $0.contains("check --baseline results/baseline.json") })
        #expect(text.contains("secrets.OPENAI_API_KEY"))
        #expect(!text.contains("sk-"), "no key-shaped literal")

        for command in commands {
            let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
            let index = try #require(words.firstIndex(of: ".build/release/altbench"))
            let subcommand = words[index + 1]
            let help = try await AltbenchProcess.run([subcommand, "--help"], in: Workspace.repository)
            #expect(help.status == 0, "altbench \(subcommand) --help failed: \(help.stderr)")
            for flag in words[(index + 2)...] where flag.hasPrefix("--") {
                #expect(help.stdout.contains(flag), "altbench \(subcommand) has no \(flag)")
            }
        }
    }
}
