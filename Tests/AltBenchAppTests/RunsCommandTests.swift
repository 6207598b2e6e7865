import AltBenchCore
import AltBenchReport
import Foundation
import Testing

@testable import AltBenchApp

/// `altbench runs` output: the table's columns and markings, the JSON's fields, and no
/// control character from a dataset path, model name or stop reason reaching the terminal.
@Suite("altbench runs output")
struct RunsCommandTests {
    /// 2026-01-01 00:00:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    static func listing(
        id: String = "20260101-000000-aaaa", status: String = "finished", message: String? = nil,
        provider: Provider = .openai, models: [String] = ["gpt-4o-mini"], dataset: String = "datasets/sample"
    ) -> RunsCommand.Listing {
        RunsCommand.Listing(
            id: id, startedAt: start, finishedAt: status == "running" ? nil : start.addingTimeInterval(90), status: status,
            statusMessage: message, provider: provider, endpoint: "http://127.0.0.1:8080/v1/chat/completions",
            models: models, dataset: dataset, prompts: "prompts", answered: 40, failed: 2, planned: 42,
            lastTrialAt: start.addingTimeInterval(89), version: "0.1.0")
    }

    @Test func theTableHasOneAlignedLinePerRunAndMarksTheMock() {
        let table = RunsCommand.table([
            Self.listing(id: "20260101-000200-cccc", status: "running", provider: .mock),
            Self.listing(id: "20260101-000100-bbbb", status: "stopped", message: "HTTP 401: Incorrect API key provided."),
            Self.listing(models: ["gpt-4.1-mini", "gpt-4o-mini"]),
        ])
        let lines = table.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("ID                    STARTED                  PROVIDER  MODEL"))
        #expect(lines[1].hasPrefix("20260101-000200-cccc  2026-01-01 00:00:00 UTC  MOCK      gpt-4o-mini"))
        #expect(lines[1].hasSuffix("      40       2       42  running"))
        #expect(lines[2].hasSuffix("stopped: HTTP 401: Incorrect API key provided."))
        #expect(lines[3].contains("gpt-4.1-mini, gpt-4o-mini"))
        #expect(lines[3].hasSuffix("finished"))
        #expect(lines.contains { $0.hasPrefix("MOCK: the offline mock model answered") })
        #expect(lines.contains { $0.hasPrefix("running: still in progress, or its process ended") })
        // The counts line up under their headers (right-aligned).
        let header = lines[0]
        let plannedEnd = header.distance(from: header.startIndex, to: header.range(of: "PLANNED")!.upperBound)
        let row = lines[1]
        let countEnd = row.distance(from: row.startIndex, to: row.range(of: " 42 ")!.upperBound) - 1
        #expect(plannedEnd == countEnd)
    }

    @Test func aLongOrMultiLineStopReasonStaysOnOneShortLine() {
        let reason = "first line\nsecond line " + String(repeating: "x", count: 200)
        let status = RunsCommand.status(Self.listing(status: "stopped", message: reason))
        #expect(!status.contains("\n"))
        #expect(status.hasPrefix("stopped: first line second line x"))
        #expect(status.count == "stopped: ".count + RunsCommand.reasonWidth)
        #expect(status.hasSuffix("…"))
    }

    @Test func controlCharactersAreShownAsEscapesNeverSent() {
        let evil = Self.listing(
            status: "stopped", message: "bad\u{1B}]0;owned\u{07}", models: ["gpt\u{1B}[2J\u{9B}31m"],
            dataset: "datasets/\u{1B}[31mred\u{202E}gpj.exe\ttab\\")
        let table = RunsCommand.table([evil])
        for scalar in table.unicodeScalars where scalar != "\n" {
            #expect(scalar.properties.generalCategory != .control, "U+\(String(scalar.value, radix: 16)) reached the terminal")
            #expect(!TerminalText.isReordering(scalar))
        }
        #expect(table.contains(#"datasets/\x1B[31mred\u{202E}gpj.exe tab\"#))
        #expect(table.contains(#"gpt\x1B[2J\x9B31m"#))
        #expect(table.contains(#"stopped: bad\x1B]0;owned\x07"#))
    }

    @Test func jsonHasEveryFieldAndEscapesWhatATerminalWouldActOn() throws {
        let text = try RunsCommand.json([
            Self.listing(status: "stopped", message: "quota", provider: .mock, models: ["m\u{9B}1"], dataset: "d\u{1B}\u{202E}")
        ])
        for scalar in text.unicodeScalars where scalar != "\n" {
            #expect(scalar.properties.generalCategory != .control)
            #expect(!TerminalText.isReordering(scalar))
        }
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let run = try #require(array.first)
        #expect(
            Set(run.keys) == [
                "id", "started_at", "finished_at", "last_trial_at", "status", "status_message", "provider", "mock",
                "endpoint", "models", "dataset", "prompts", "answered", "failed", "planned", "altbench_version",
            ])
        #expect(run["started_at"] as? String == "2026-01-01T00:00:00Z")
        #expect(run["finished_at"] as? String == "2026-01-01T00:01:30Z")
        #expect(run["status"] as? String == "stopped")
        #expect(run["status_message"] as? String == "quota")
        #expect(run["provider"] as? String == "mock")
        #expect(run["mock"] as? Bool == true)
        #expect(run["models"] as? [String] == ["m\u{9B}1"], "escaped in the text, the same string once parsed")
        #expect(run["dataset"] as? String == "d\u{1B}\u{202E}")
        #expect(run["answered"] as? Int == 40)
        #expect(run["failed"] as? Int == 2)
        #expect(run["planned"] as? Int == 42)
        let empty = try JSONSerialization.jsonObject(with: Data(try RunsCommand.json([]).utf8)) as? [Any]
        #expect(empty?.isEmpty == true)
    }

    @Test func aMissingResultsFolderIsTheSameErrorOtherCommandsGive() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-runs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let console = Console(out: { _ in }, err: { _ in }, interactive: false)
        await #expect(throws: AltBenchError.noRuns(database: "nowhere/altbench.sqlite")) {
            try await RunsCommand(results: "nowhere", console: console, workingDirectory: folder).run()
        }
        await #expect(throws: AltBenchError.noRuns(database: "nowhere/altbench.sqlite")) {
            try await ReportCommand(results: "nowhere", console: console, workingDirectory: folder).run(id: nil)
        }
    }
}
