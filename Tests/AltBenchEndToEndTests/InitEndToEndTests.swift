import AltBenchTesting
import Foundation
import Testing

/// A new user's first session with the release archive: altbench extracted into an empty
/// folder, `PATH` holding only its `bin/` and the system's, a second empty folder as the
/// project. Every command of the session works, and none opens a file of the checkout.
@Suite("altbench init end to end, from the release archive")
struct InitEndToEndTests {
    /// The system folders a user's `PATH` keeps beside altbench's `bin/`.
    static let systemPath = "/usr/local/bin:/usr/bin:/bin"

    /// An environment with no OpenAI settings, `PATH` = the archive's `bin/` and the system's,
    /// and `HOME` an empty folder.
    static func environment(bin: URL, home: URL) -> [String: String] {
        var environment = AltbenchProcess.cleanEnvironment()
        for name in ["ALTBENCH_PROXY_APP_KEY", "SWIFTPM_PACKAGE_ROOT"] { environment.removeValue(forKey: name) }
        environment["PATH"] = "\(bin.path):\(systemPath)"
        environment["HOME"] = home.path
        return environment
    }

    /// `strace`, when installed: it lets the test see every file a command opens.
    static var strace: String? {
        ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test("init --sample, run, run --judge, plan, baseline save, check, report, datasets validate, proxy --help: all from the archive, none reads the checkout")
    func firstSession() async throws {
        let installed = try await ReleaseArchive.extracted()
        let bin = installed.appendingPathComponent("bin")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-first-session-\(UUID().uuidString)")
        let project = scratch.appendingPathComponent("project")
        let home = scratch.appendingPathComponent("home")
        let traces = scratch.appendingPathComponent("traces")
        for folder in [project, home, traces] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(at: scratch) }
        let environment = Self.environment(bin: bin, home: home)
        let strace = Self.strace
        if strace == nil {
            let banner = "strace is not installed: the session runs, but which files it opens is not checked (apt-get install strace)"
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("\(banner); CI must check it") } else { print("*** \(banner) ***") }
        }

        /// Runs `altbench ARGS` from the project folder as the user would (found on PATH), under
        /// strace when there is one, and returns what it printed.
        func altbench(_ arguments: [String], step: Int) async throws -> AltbenchProcess.Output {
            let executable = bin.appendingPathComponent("altbench")
            guard let strace else {
                return try await AltbenchProcess.run(arguments, in: project, environment: environment, executable: executable)
            }
            let trace = traces.appendingPathComponent(String(format: "%02d.trace", step))
            return try await AltbenchProcess.run(
                ["-f", "-qq", "-e", "trace=%file", "-o", trace.path, executable.path] + arguments, in: project,
                environment: environment, executable: URL(fileURLWithPath: strace))
        }

        let session: [(arguments: [String], check: (AltbenchProcess.Output) -> Bool)] = [
            (["init", "--sample"], { $0.stdout.contains("altbench init wrote") && $0.stdout.contains("datasets/sample/ (27 images") }),
            (["run"], { $0.stderr.contains("OFFLINE MOCK") && $0.stdout.contains("icecubes") && $0.stdout.contains("one-sentence") }),
            (["run", "--judge"], { $0.stderr.contains("MOCK JUDGE") && $0.stderr.contains("by built-in:alt-text") }),
            (["plan"], { $0.stdout.contains("gpt-4o-mini") }),
            (["baseline", "save"], { $0.stdout.contains("results/baseline.json") }),
            (["check", "--baseline", "results/baseline.json"], { $0.stdout.contains("held") }),
            (["report", "--format", "html", "--embed-images"], { $0.stdout.contains("latest.html") || $0.stderr.contains("latest.html") }),
            (["datasets", "validate", "--strict", "datasets/sample"], { $0.stdout.contains("27 items, 0 problems") }),
            (["proxy", "--help"], { $0.stdout.contains("--upstream") }),
            (["judge", "--show-rubric"], { $0.stdout.hasPrefix("# Judging alt text") }),
            (["--version"], { $0.stdout.hasPrefix("0.") || $0.stdout.contains("commit") }),
        ]
        for (step, (arguments, check)) in session.enumerated() {
            let output = try await altbench(arguments, step: step)
            #expect(output.status == 0, "altbench \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)")
            #expect(check(output), "altbench \(arguments.joined(separator: " ")) printed something else:\n\(output.stdout)\n\(output.stderr)")
        }
        #expect(FileManager.default.fileExists(atPath: project.appendingPathComponent("results/latest.html").path))
        #expect(FileManager.default.fileExists(atPath: project.appendingPathComponent("results/baseline.json").path))
        // init copied the archive's sample, byte for byte.
        let shipped = installed.appendingPathComponent("share/altbench/datasets/sample/manifest.jsonl")
        #expect(try Data(contentsOf: project.appendingPathComponent("datasets/sample/manifest.jsonl")) == Data(contentsOf: shipped))

        // Running init again names what exists and writes nothing.
        let before = try FileManager.default.contentsOfDirectory(atPath: project.path).sorted()
        let again = try await altbench(["init", "--sample"], step: 99)
        #expect(again.status == 1)
        #expect(again.stderr.contains("altbench init writes nothing, since . already has altbench.yml"), "\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: project.path).sorted() == before)

        guard strace != nil else { return }
        let checkout = Repository.root.resolvingSymlinksInPath().path
        /// The traced calls of `trace` that name a path inside the checkout.
        func checkoutPaths(_ trace: URL) throws -> [Substring] {
            try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
                .filter { $0.contains("\"\(checkout)/") || $0.contains("\"\(checkout)\"") }
        }
        var opened = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: traces.path).sorted() {
            let trace = traces.appendingPathComponent(name)
            opened += try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").count
            let reads = try checkoutPaths(trace)
            #expect(reads.isEmpty, "\(name): the archive's altbench touched the checkout:\n\(reads.prefix(5).joined(separator: "\n"))")
        }
        #expect(opened > 100, "strace saw the commands open their files")
        // The check can fail: a command pointed at the checkout is caught.
        _ = try await altbench(["datasets", "validate", Repository.root.appendingPathComponent("datasets/sample").path], step: 98)
        #expect(try !checkoutPaths(traces.appendingPathComponent("98.trace")).isEmpty)
    }
}
