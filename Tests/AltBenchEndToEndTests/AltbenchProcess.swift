import AltBenchTesting
import Foundation

/// Runs the built `altbench` binary in a folder of its own and captures what it prints.
struct AltbenchProcess {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The `altbench` executable built next to the test bundle.
    static var executable: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for directory in candidates {
            let url = directory.appendingPathComponent("altbench")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return candidates[0].appendingPathComponent("altbench")
    }

    /// The environment a user without any OpenAI settings has (and not in CI).
    static func cleanEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in [
            "OPENAI_API_KEY", "OPENAI_BASE_URL", "CI", "GITHUB_STEP_SUMMARY", "AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY",
            "OPENAI_API_VERSION",
        ] { environment.removeValue(forKey: name) }
        environment.merge(extra) { _, new in new }
        return environment
    }

    /// Runs `executable` (altbench by default) to its end and returns what it printed.
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = cleanEnvironment(),
        executable: URL = executable
    ) async throws -> Output {
        let outURL = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        let errURL = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        // Files rather than pipes: a full pipe cannot block the child.
        let status = try await ChildProcess.run(
            executable.path, arguments, environment: environment, directory: directory, stdout: outURL, stderr: errURL
        ).status
        return Output(
            status: status, stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8))
    }
}

/// A temporary working folder holding copies of the repository's prompts and sample dataset.
struct Workspace {
    let root: URL

    static var repository: URL { Repository.root }

    /// The slice of the bundled sample most tests run on: the two Ice Cubes prompts and four
    /// photos, so that their counts stay fixed as the sample and the prompt library grow.
    static let basePrompts = ["icecubes.md", "icecubes-original.md"]
    static let baseItems = ["chelsea", "coffee", "astronaut", "rocket"]

    /// A fresh folder holding the two Ice Cubes prompts and a four-photo slice of
    /// `datasets/sample`; with `everything`, the repository's whole prompt library, sample
    /// and `altbench.yml`, as a fresh clone has them.
    init(everything: Bool = false) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-e2e-\(UUID().uuidString)")
        let manager = FileManager.default
        let sample = Self.repository.appendingPathComponent("datasets/sample")
        try manager.createDirectory(at: root.appendingPathComponent("datasets"), withIntermediateDirectories: true)
        if everything {
            try manager.copyItem(at: Self.repository.appendingPathComponent("prompts"), to: root.appendingPathComponent("prompts"))
            try manager.copyItem(at: sample, to: root.appendingPathComponent("datasets/sample"))
            try manager.copyItem(at: Self.repository.appendingPathComponent("altbench.yml"), to: root.appendingPathComponent("altbench.yml"))
            return
        }
        try manager.createDirectory(at: root.appendingPathComponent("prompts"), withIntermediateDirectories: true)
        for name in Self.basePrompts {
            try manager.copyItem(
                at: Self.repository.appendingPathComponent("prompts/\(name)"), to: root.appendingPathComponent("prompts/\(name)"))
        }
        let target = root.appendingPathComponent("datasets/sample")
        try manager.createDirectory(at: target, withIntermediateDirectories: true)
        let manifest = try String(contentsOf: sample.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        var lines: [String] = []
        for line in manifest.split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = object["id"] as? String, Self.baseItems.contains(id), let image = object["image"] as? String
            else { continue }
            try manager.copyItem(at: sample.appendingPathComponent(image), to: target.appendingPathComponent(image))
            lines.append(String(line))
        }
        precondition(lines.count == Self.baseItems.count, "datasets/sample lost one of \(Self.baseItems)")
        try (lines.joined(separator: "\n") + "\n").write(
            to: target.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)
    }

    func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    func write(_ path: String, _ text: String) throws {
        try FileManager.default.createDirectory(at: url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url(path), atomically: true, encoding: .utf8)
    }

    func read(_ path: String) throws -> String {
        try String(contentsOf: url(path), encoding: .utf8)
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// A running `altbench` (or `altbench-test-server`) process, for tests that signal or kill it
/// midway or keep it serving while they work; its output goes to files in `directory`.
final class RunningAltbench: @unchecked Sendable {
    let process: ChildProcess
    let outURL: URL
    let errURL: URL

    /// `altbench-test-server`, built next to `altbench`.
    static var testServerExecutable: URL {
        AltbenchProcess.executable.deletingLastPathComponent().appendingPathComponent("altbench-test-server")
    }

    init(
        _ arguments: [String], in directory: URL, environment: [String: String] = AltbenchProcess.cleanEnvironment(),
        executable: URL = AltbenchProcess.executable
    ) throws {
        outURL = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        errURL = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process = try ChildProcess(
            executable.path, arguments, environment: environment, directory: directory, stdout: outURL, stderr: errURL)
    }

    /// Starts `altbench-test-server` with `arguments`.
    static func testServer(_ arguments: [String], in directory: URL) throws -> RunningAltbench {
        try RunningAltbench(arguments, in: directory, executable: testServerExecutable)
    }

    /// A server's base URL from its "listening on URL" line, once printed; nil if the process
    /// ends first or prints nothing for a minute (a starved machine is slow, not that slow).
    func baseURL() async throws -> String? {
        for _ in 0..<600 {
            let text = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                return String(line.dropFirst("listening on ".count))
            }
            if !process.isRunning { return nil }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// Stops the process with SIGTERM (as a user's Ctrl-C would stop a server) unless it has
    /// ended already, and returns what it printed.
    func stop() async throws -> AltbenchProcess.Output {
        process.send(SIGTERM)
        return try await wait()
    }

    /// Sends `signal` (SIGINT, SIGTERM, SIGKILL) to the process.
    func send(_ signal: Int32) {
        process.send(signal)
    }

    /// Waits for the process to end and returns what it printed.
    func wait() async throws -> AltbenchProcess.Output {
        let status = await process.wait().status
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        return AltbenchProcess.Output(
            status: status, stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// How the process ended: exit status, or the signal that killed it; nil while it runs.
    var termination: ChildProcess.Termination? { process.ended }
}
