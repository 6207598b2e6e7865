import AltBenchCore
import AltBenchReport
import AltBenchStore
import Foundation

/// `altbench runs`: every run in the results database, newest first, as a table or JSON.
///
/// Dataset paths, model names and stop reasons come from files and servers, so the table
/// shows their control characters as escapes rather than sending them to the terminal.
package struct RunsCommand: Sendable {
    /// The store's row under a name the command line can use without importing the store.
    package typealias Listing = RunListing

    /// How the runs are printed.
    package enum Format: String, Sendable, CaseIterable {
        /// Aligned columns, for people.
        case text
        /// A JSON array, one object per run, keys sorted, for scripts.
        case json
    }

    package var results: String
    package var console: Console
    package var workingDirectory: URL

    package init(
        results: String = "results", console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.results = results
        self.console = console
        self.workingDirectory = workingDirectory
    }

    /// Prints the runs on stdout in `format` and returns them. An empty database prints an
    /// empty table (or `[]`) and a remark on stderr; a missing one is `AltBenchError.noRuns`.
    @discardableResult
    package func run(format: Format = .text) async throws -> [Listing] {
        let store = try ResultStore.existing(results: results, workingDirectory: workingDirectory)
        let runs = try await store.runListings()
        switch format {
        case .text:
            if runs.isEmpty {
                console.err("\(Self.databasePath(results)) holds no runs yet. Run `altbench run` first.\n")
            } else {
                console.out(Self.table(runs))
            }
        case .json:
            console.out(try Self.json(runs))
        }
        return runs
    }

    static func databasePath(_ results: String) -> String {
        var path = results
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return "\(path)/altbench.sqlite"
    }

    // MARK: - Text

    /// The longest stop reason shown in the table; JSON carries it whole.
    static let reasonWidth = 60

    /// One line per run under a header (`CacheCommand`'s table: two spaces apart, counts
    /// right-aligned), then a footnote for each marking used.
    static func table(_ runs: [Listing]) -> String {
        let header = ["ID", "STARTED", "PROVIDER", "MODEL", "DATASET", "ANSWERED", "FAILED", "PLANNED", "STATUS"]
        let rows = runs.map { run in
            [
                TerminalText.line(run.id), CacheCommand.timestamp(run.startedAt),
                run.provider == .mock ? "MOCK" : run.provider.rawValue,
                run.models.isEmpty ? "–" : TerminalText.line(run.models.joined(separator: ", ")), TerminalText.line(run.dataset),
                "\(run.answered)", "\(run.failed)", "\(run.planned)", status(run),
            ]
        }
        var out = CacheCommand.table(header: header, rows: rows, rightAligned: [5, 6, 7])
        if runs.contains(where: { $0.provider == .mock }) {
            out += "MOCK: the offline mock model answered (the dataset's reference texts), not a vision model.\n"
        }
        if runs.contains(where: { $0.status == "running" }) {
            out += "running: still in progress, or its process ended without closing it (killed or crashed); "
                + "`altbench run --resume ID` continues it.\n"
        }
        return out
    }

    /// `finished`, `running`, or `stopped: REASON` (the reason on one line, cut to `reasonWidth`).
    static func status(_ run: Listing) -> String {
        guard run.status == "stopped" else { return TerminalText.line(run.status) }
        guard let message = run.statusMessage, !message.isEmpty else { return "stopped" }
        var reason = TerminalText.line(message.split(whereSeparator: \.isNewline).joined(separator: " "))
        if reason.count > reasonWidth { reason = String(reason.prefix(reasonWidth - 1)) + "…" }
        return "stopped: \(reason)"
    }

    // MARK: - JSON

    /// A JSON array, newest run first. Strings are JSON-escaped, and the control and
    /// reordering characters JSON allows raw are written as `\u` escapes too, so printing
    /// the JSON to a terminal is as safe as printing the table.
    static func json(_ runs: [Listing]) throws -> String {
        func date(_ date: Date?) -> JSONValue { date.map { .string(CacheCommand.isoTimestamp($0)) } ?? .null }
        let value: JSONValue = .array(
            runs.map { run in
                .object([
                    "id": .string(run.id),
                    "started_at": date(run.startedAt),
                    "finished_at": date(run.finishedAt),
                    "last_trial_at": date(run.lastTrialAt),
                    "status": .string(run.status),
                    "status_message": run.statusMessage.map(JSONValue.string) ?? .null,
                    "provider": .string(run.provider.rawValue),
                    "mock": .bool(run.provider == .mock),
                    "endpoint": .string(run.endpoint),
                    "models": .array(run.models.map(JSONValue.string)),
                    "dataset": .string(run.dataset),
                    "prompts": .string(run.prompts),
                    "answered": .int(run.answered),
                    "failed": .int(run.failed),
                    "planned": .int(run.planned),
                    "altbench_version": .string(run.version),
                ])
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        var out = ""
        for scalar in text.unicodeScalars {
            // Outside strings JSON has only ASCII punctuation, spaces and line breaks, so any
            // such character here is inside a string, where `\uHHHH` means the same.
            if (0x7F...0x9F).contains(scalar.value) || TerminalText.isReordering(scalar) || scalar.value == 0x2028
                || scalar.value == 0x2029
            {
                out += "\\u" + TerminalText.hex(scalar.value, digits: 4)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\n"
    }
}
