import AltBenchTesting
import Foundation

/// The release archive the end-to-end tests install: the one at `$ALTBENCH_ARCHIVE` when set
/// (`.ci/run` builds the real, statically linked archive with `scripts/release.sh` and sets
/// it), otherwise one that `scripts/release.sh --package-only` makes of the debug build the
/// tests run from: the same layout and script, with the Swift runtime linked dynamically.
enum ReleaseArchive {
    /// Whether the archive is the real release build (`$ALTBENCH_ARCHIVE`), not the debug package.
    static var isRelease: Bool { ProcessInfo.processInfo.environment["ALTBENCH_ARCHIVE"].map { !$0.isEmpty } ?? false }

    /// The archive file (`altbench-<version>-<os>-<arch>.tar.gz`), its `.sha256` beside it.
    static func archive() async throws -> URL { try await shared.value.archive }

    /// The archive extracted into a temporary folder of its own: its top-level folder, holding
    /// `bin/`, `share/altbench/`, README.md and LICENSE.
    static func extracted() async throws -> URL { try await shared.value.extracted }

    private struct Installed: Sendable {
        var archive: URL
        var extracted: URL
    }

    /// Made once per test process: packaging the debug build takes a few seconds.
    private static let shared = Task<Installed, any Error> {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let archive: URL
        if let path = ProcessInfo.processInfo.environment["ALTBENCH_ARCHIVE"], !path.isEmpty {
            archive = URL(fileURLWithPath: path)
        } else {
            let products = AltbenchProcess.executable.deletingLastPathComponent()
            let log = scratch.appendingPathComponent("release.log")
            let status = try await ChildProcess.run(
                "/bin/bash", [Repository.root.appendingPathComponent("scripts/release.sh").path, "--package-only", products.path, "--output", scratch.path],
                environment: ProcessInfo.processInfo.environment, directory: Repository.root, stdout: log, stderr: log
            ).status
            let printed = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            guard status == 0, let last = printed.split(separator: "\n").last else {
                throw ArchiveError("scripts/release.sh --package-only exited \(status):\n\(printed)")
            }
            archive = URL(fileURLWithPath: String(last))
        }
        guard FileManager.default.fileExists(atPath: archive.path) else { throw ArchiveError("no archive at \(archive.path)") }
        let into = scratch.appendingPathComponent("extracted")
        try FileManager.default.createDirectory(at: into, withIntermediateDirectories: true)
        let status = try await ChildProcess.run(
            "/bin/tar", ["-xzf", archive.path, "-C", into.path], environment: ProcessInfo.processInfo.environment
        ).status
        guard status == 0 else { throw ArchiveError("tar -xzf \(archive.path) exited \(status)") }
        let top = try FileManager.default.contentsOfDirectory(atPath: into.path)
        guard top.count == 1 else { throw ArchiveError("the archive holds \(top) at its top, not one folder") }
        return Installed(archive: archive, extracted: into.appendingPathComponent(top[0]))
    }

    struct ArchiveError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
