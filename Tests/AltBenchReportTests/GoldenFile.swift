import Foundation
import Testing

/// Golden files under `Tests/AltBenchReportTests/Golden/`: a rendering must match its file byte
/// for byte. `RECORD=1 swift test` rewrites them on purpose; a difference names the first line
/// that differs.
enum GoldenFile {
    static func expect(_ rendered: String, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
        if ProcessInfo.processInfo.environment["RECORD"] == "1" {
            try FileManager.default.createDirectory(at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(rendered.utf8).write(to: golden)
            Issue.record("Recorded \(golden.path). Review it, then run the tests again without RECORD=1.", sourceLocation: sourceLocation)
            return
        }
        guard let expected = FileManager.default.contents(atPath: golden.path) else {
            Issue.record("No golden file at \(golden.path). Run `RECORD=1 swift test` to record it.", sourceLocation: sourceLocation)
            return
        }
        guard Data(rendered.utf8) != expected else { return }
        let want = String(decoding: expected, as: UTF8.self).components(separatedBy: "\n")
        let got = rendered.components(separatedBy: "\n")
        let line = zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(want.count, got.count)
        Issue.record(
            """
            The rendering differs from \(golden.path) at line \(line + 1):
              golden:   \(line < want.count ? want[line] : "<end of file>")
              rendered: \(line < got.count ? got[line] : "<end of file>")
            If the change is intended, re-record with RECORD=1.
            """, sourceLocation: sourceLocation)
    }
}
