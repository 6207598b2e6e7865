import Foundation
import Testing

/// `altbench-bench` runs for minutes, so asking it for help must not start it.
@Suite("altbench-bench arguments")
struct BenchArgumentsTests {
    static let bench = AltbenchProcess.executable.deletingLastPathComponent().appendingPathComponent("altbench-bench")

    @Test(arguments: [(["--help"], "proxy-abuse"), (["-h"], "calibration"), (["load", "--help"], "--scenario"), (["scoring", "-h"], "--texts")])
    func helpPrintsTheUsageAndRunsNothing(_ arguments: [String], names: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try await AltbenchProcess.run(arguments, in: folder, executable: Self.bench)
        #expect(output.status == 0)
        #expect(output.stdout.hasPrefix("OVERVIEW: "), "only the help: \(output.stdout)")
        #expect(output.stdout.contains("USAGE: altbench-bench"))
        #expect(output.stdout.contains(names))
    }

    @Test(arguments: [["load", "--bogus"], ["fast"], ["load", "--scenario", "slow"]])
    func aBadArgumentIsRefusedBeforeAnythingRuns(_ arguments: [String]) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try await AltbenchProcess.run(arguments, in: folder, executable: Self.bench)
        #expect(output.status == 64)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("'\(arguments.last!)'"), "the error names the argument: \(output.stderr)")
        #expect(output.stderr.contains("Usage: altbench-bench"))
    }
}
