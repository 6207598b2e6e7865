import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("ChildProcess, the tests' posix_spawn")
struct ChildProcessTests {
    static let environment = ["PATH": "/usr/bin:/bin", "ALTBENCH_CHILD_TEST": "from the parent"]

    /// Runs a shell script and returns how it ended and what it printed (stdout and stderr).
    static func shell(_ script: String, directory: URL? = nil) async throws -> (ChildProcess.Termination, String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let ended = try await ChildProcess.run(
            "/bin/sh", ["-c", script], environment: environment, directory: directory, stdout: output, stderr: output)
        return (ended, try String(contentsOf: output, encoding: .utf8))
    }

    @Test("exit status, output, environment and working folder reach the child and come back")
    func statusOutputEnvironmentAndFolder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-child-dir-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (ended, text) = try await Self.shell(#"echo "$ALTBENCH_CHILD_TEST"; pwd; echo to-stderr >&2; read line; echo "read:$line"; exit 7"#, directory: folder)
        #expect(ended == .exited(7))
        #expect(ended.status == 7)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines == ["from the parent", folder.resolvingSymlinksInPath().path, "to-stderr", "read:"], "\(text)")
    }

    @Test("a signal that ends the child is reported as the signal, 128 + n as a status")
    func signalled() async throws {
        let child = try ChildProcess("/bin/sleep", ["30"], environment: Self.environment)
        #expect(child.isRunning)
        child.send(SIGTERM)
        let ended = await child.wait()
        #expect(ended == .signalled(SIGTERM))
        #expect(ended.status == 128 + SIGTERM)
        #expect(!child.isRunning && child.ended == ended)
        child.send(SIGKILL)  // ended: sends nothing, to a PID that may be another's now
        #expect(await child.wait() == ended)
    }

    @Test("the child starts with no signal blocked and none of the standard ones ignored, as from a shell")
    func signalsAsFromAShell() async throws {
        // grep itself reads its status: a shell would reset its own mask first.
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-child-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let ended = try await ChildProcess.run(
            "/bin/grep", ["-E", "^Sig(Blk|Ign):", "/proc/self/status"], environment: Self.environment, stdout: output)
        let text = try String(contentsOf: output, encoding: .utf8)
        #expect(ended == .exited(0))
        func mask(_ name: String) -> UInt64? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { UInt64($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) }
        }
        // Signals 1 to 31 are bits 0 to 30; glibc keeps 32 and 33 for itself.
        let standard: UInt64 = (1 << 31) - 1
        #expect(mask("SigBlk") == 0, "\(text)")
        #expect(mask("SigIgn").map { $0 & standard } == 0, "\(text)")
    }

    @Test("descriptors the test process holds, inheritable or not, do not reach the child, however many")
    func inheritedDescriptorsAreClosed() async throws {
        // More descriptors than Foundation's Process can list without writing past its buffer,
        // and one without close-on-exec, which posix_spawn alone would hand to the child.
        let held = (0..<2_000).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        let inheritable = open("/dev/null", O_RDONLY)
        defer { (held + [inheritable]).forEach { close($0) } }
        #expect(!held.contains(-1) && inheritable >= 0)
        let (ended, text) = try await Self.shell("ls /proc/$$/fd")
        #expect(ended == .exited(0))
        #expect(Set(text.split(separator: "\n")) == ["0", "1", "2"], "\(text)")
    }

    @Test("a program that does not exist is an error naming it")
    func missingProgram() async throws {
        #expect {
            _ = try ChildProcess("/nonexistent/altbench", [], environment: Self.environment)
        } throws: { error in
            "\(error)".contains("could not start /nonexistent/altbench")
        }
    }
}
