import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

/// The release archive of `scripts/release.sh`: its layout, its checksum, the version it
/// reports, and the shared libraries it needs (docs/install.md lists them).
@Suite("release archive")
struct ReleaseArchiveTests {
    /// What the release binaries may load on Linux: the C library's parts, the C++ runtime
    /// and compression the static Swift runtime calls, and the system's SQLite (GRDB).
    /// docs/install.md lists the same.
    static let linuxRuntime: Set<String> = [
        "linux-vdso.so.1", "linux-gate.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
        "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libutil.so.1",
        "libstdc++.so.6", "libgcc_s.so.1", "libz.so.1", "libsqlite3.so.0",
    ]

    /// What a debug package adds: the Swift runtime and Foundation, linked dynamically from the
    /// toolchain. Never allowed in a release archive.
    static func isSwiftRuntime(_ library: String) -> Bool {
        library.hasPrefix("libswift") || library.hasPrefix("libFoundation") || library.hasPrefix("lib_FoundationICU")
            || library == "libdispatch.so" || library == "libBlocksRuntime.so"
    }

    /// The libraries `ldd` lists for `binary`, by file name.
    static func sharedLibraries(_ binary: URL, in folder: URL) async throws -> [String] {
        let out = folder.appendingPathComponent("ldd-\(UUID().uuidString).txt")
        let status = try await ChildProcess.run("/usr/bin/ldd", [binary.path], environment: ProcessInfo.processInfo.environment, stdout: out, stderr: out).status
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(status == 0, "ldd \(binary.path): \(text)")
        #expect(!text.contains("not found"), "a library the binary needs is missing: \(text)")
        return text.split(separator: "\n").compactMap { line in
            line.split(whereSeparator: \.isWhitespace).first.map { String($0.split(separator: "/").last ?? $0) }
        }
    }

    @Test("the archive: one folder named for version, OS and architecture; bin, share and the docs in it; its checksum verifies")
    func layout() async throws {
        let archive = try await ReleaseArchive.archive()
        let top = try await ReleaseArchive.extracted()
        #expect(archive.lastPathComponent == "\(top.lastPathComponent).tar.gz")
        #expect(top.lastPathComponent.wholeMatch(of: /altbench-\d+\.\d+\.\d+-(linux|macos)-(x86_64|aarch64|universal)/) != nil)
        #expect(top.lastPathComponent.hasPrefix("altbench-\(AltBenchVersion.current)-"))
        for path in [
            "bin/altbench", "bin/altbench-test-server", "share/altbench/datasets/sample/manifest.jsonl",
            "share/altbench/datasets/sample/SOURCES.md", "README.md", "LICENSE", "docs/install.md",
        ] {
            #expect(FileManager.default.fileExists(atPath: top.appendingPathComponent(path).path), "the archive has no \(path)")
        }
        #expect(FileManager.default.isExecutableFile(atPath: top.appendingPathComponent("bin/altbench").path))
        // The whole sample: what init --sample copies is what the repository validates.
        let shipped = try FileManager.default.contentsOfDirectory(atPath: top.appendingPathComponent("share/altbench/datasets/sample").path).sorted()
        let repository = try FileManager.default.contentsOfDirectory(atPath: Repository.root.appendingPathComponent("datasets/sample").path).sorted()
        #expect(shipped == repository)

        // `sha256sum -c` in the archive's folder, as docs/install.md says.
        let checksum = archive.deletingLastPathComponent().appendingPathComponent(archive.lastPathComponent + ".sha256")
        let line = try String(contentsOf: checksum, encoding: .utf8)
        #expect(line.wholeMatch(of: /[0-9a-f]{64}  altbench-[^\s\/]+\.tar\.gz\n/) != nil, "sha256sum's format: \(line)")
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-sha256-check-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: out) }
        let status = try await ChildProcess.run(
            "/usr/bin/sha256sum", ["-c", checksum.lastPathComponent], environment: ProcessInfo.processInfo.environment,
            directory: archive.deletingLastPathComponent(), stdout: out, stderr: out
        ).status
        #expect(status == 0, "sha256sum -c: \((try? String(contentsOf: out, encoding: .utf8)) ?? "")")
    }

    @Test("altbench --version from the extracted archive names the version and the commit")
    func version() async throws {
        let top = try await ReleaseArchive.extracted()
        let output = try await AltbenchProcess.run(
            ["--version"], in: top, executable: top.appendingPathComponent("bin/altbench"))
        #expect(output.status == 0)
        let line = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        if ReleaseArchive.isRelease {
            #expect(
                line.wholeMatch(of: /\d+\.\d+\.\d+ \(commit [0-9a-f]{40}(-dirty)?\)/) != nil,
                "a release build records the commit it was built from: \(line)")
        } else {
            #expect(line == AltBenchVersion.description(commit: nil), "a build from source says it recorded no commit: \(line)")
        }
        #expect(line.hasPrefix(AltBenchVersion.current + " "))
    }

    @Test("the binaries need only the documented system libraries (ldd)")
    func runtimeNeeds() async throws {
        #if os(Linux)
            let top = try await ReleaseArchive.extracted()
            for name in ["altbench", "altbench-test-server"] {
                let libraries = try await Self.sharedLibraries(top.appendingPathComponent("bin/\(name)"), in: top.deletingLastPathComponent())
                #expect(libraries.contains("libc.so.6"))
                let unexpected = libraries.filter { !Self.linuxRuntime.contains($0) && (ReleaseArchive.isRelease || !Self.isSwiftRuntime($0)) }
                #expect(unexpected.isEmpty, "bin/\(name) needs libraries docs/install.md does not list: \(unexpected)")
                if ReleaseArchive.isRelease {
                    #expect(!libraries.contains(where: Self.isSwiftRuntime), "the release build links the Swift runtime statically")
                }
            }
        #endif
    }

    @Test("the policy catches a library it does not list")
    func policyCanFail() {
        #expect(!Self.linuxRuntime.contains("libcurl.so.4") && !Self.isSwiftRuntime("libcurl.so.4"))
        #expect(Self.isSwiftRuntime("libswiftCore.so") && Self.isSwiftRuntime("libFoundationEssentials.so"))
        #expect(Self.linuxRuntime.contains("libsqlite3.so.0"))
    }

    @Test("altbench-test-server runs from the extracted archive, its example bodies beside it")
    func testServer() async throws {
        let top = try await ReleaseArchive.extracted()
        let output = try await AltbenchProcess.run(
            ["--help"], in: top, executable: top.appendingPathComponent("bin/altbench-test-server"))
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("--port"))
        #expect(
            FileManager.default.fileExists(atPath: top.appendingPathComponent("bin/altbench_AltBenchTesting.resources/Fixtures/openai").path)
                || FileManager.default.fileExists(atPath: top.appendingPathComponent("bin/altbench_AltBenchTesting.bundle").path))
    }
}
