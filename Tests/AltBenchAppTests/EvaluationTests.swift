import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchApp
@testable import AltBenchCore

/// Captures what a command prints.
private final class Capture: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""

    func console(interactive: Bool) -> Console {
        Console(
            out: { text in self.lock.withLock { self.outText += text } },
            err: { text in self.lock.withLock { self.errText += text } },
            interactive: interactive)
    }

    var out: String { lock.withLock { outText } }
    var err: String { lock.withLock { errText } }
}

@Suite("Evaluation pipeline")
struct EvaluationTests {
    static var repository: URL { Repository.root }

    /// A working folder with the repository's prompts and sample dataset.
    static func workspace() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("datasets"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: repository.appendingPathComponent("prompts"), to: root.appendingPathComponent("prompts"))
        try FileManager.default.copyItem(
            at: repository.appendingPathComponent("datasets/sample"), to: root.appendingPathComponent("datasets/sample"))
        return root
    }

    @Test func drawsProgressOnATerminalOnly() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let terminal = Capture()
        let outcome = try await Evaluation(
            options: RunOptions(), environment: [:], console: terminal.console(interactive: true), workingDirectory: root
        ).run()
        #expect(outcome.exitCode == 0)
        let total = outcome.results.trials.count
        #expect(total > 0)
        #expect(terminal.err.contains("\r\u{1B}[K[\(total)/\(total)] 0 errors, 0 from cache"))
        #expect(terminal.err.contains("OFFLINE MOCK"))

        let pipe = Capture()
        let second = try await Evaluation(
            options: RunOptions(), environment: [:], console: pipe.console(interactive: false), workingDirectory: root
        ).run()
        #expect(second.exitCode == 0)
        #expect(!pipe.err.contains("\r"))
        #expect(!pipe.err.contains("[\(total)/\(total)]"))
        #expect(second.results.trials.allSatisfy { $0.cached })
    }

    @Test func configFileSetsDefaultsAndFlagsWin() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        try "max_tokens: [7]\nresults: out\n".write(to: root.appendingPathComponent("altbench.yml"), atomically: true, encoding: .utf8)
        let capture = Capture()
        let fromConfig = try await Evaluation(
            options: RunOptions(), environment: [:], console: capture.console(interactive: false), workingDirectory: root
        ).run()
        #expect(Set(fromConfig.results.trials.map(\.maxTokens)) == [7])
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/latest.md").path))

        var options = RunOptions()
        options.maxTokens = [9, 11]
        let fromFlags = try await Evaluation(
            options: options, environment: [:], console: capture.console(interactive: false), workingDirectory: root
        ).run()
        #expect(Set(fromFlags.results.trials.map(\.maxTokens)) == [9, 11])
    }

    @Test func aMissingConfigFileGivenByFlagIsAnError() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let evaluation = Evaluation(
            options: RunOptions(), configPath: "nope.yml", environment: [:],
            console: Capture().console(interactive: false), workingDirectory: root)
        await #expect(throws: AltBenchError.self) { try await evaluation.run() }
    }

    @Test func runIDsSortByTime() {
        let early = Evaluation.newRunID(date: Date(timeIntervalSince1970: 1_700_000_000))
        let late = Evaluation.newRunID(date: Date(timeIntervalSince1970: 1_700_000_001))
        #expect(early.hasPrefix("20231114-221320-"))
        #expect(early < late)
    }
}
