import Foundation
import Testing

/// `altbench-bench` runs for minutes, so asking it for help must not start it.
@Suite("altbench-bench arguments")
struct BenchArgumentsTests {
    static let bench = AltbenchProcess.executable.deletingLastPathComponent().appendingPathComponent("altbench-bench")

    @Test(arguments: [["--help"], ["-h"], ["load", "--help"], ["scoring", "-h"]])
    func helpPrintsTheUsageAndRunsNothing(_ arguments: [String]) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try await AltbenchProcess.run(arguments, in: folder, executable: Self.bench)
        #expect(output.status == 0)
        #expect(output.stdout == "usage: altbench-bench [hot|load|reports|scoring|calibration|validity|batch|proxy-abuse] [--trials N] [--runs N] [--scenario latency|rate|overstated|quantized|silent] [--texts N] [--diagnose] [--corpus FILE] [--misses] [--with-lang]\n")
    }

    @Test(arguments: [["load", "--bogus"], ["fast"], ["load", "--scenario", "slow"]])
    func aBadArgumentIsRefusedBeforeAnythingRuns(_ arguments: [String]) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try await AltbenchProcess.run(arguments, in: folder, executable: Self.bench)
        #expect(output.status == 2)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("usage: altbench-bench"))
    }
}
