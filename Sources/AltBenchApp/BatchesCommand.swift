import AltBenchCore
import AltBenchReport
import AltBenchStore
import Foundation

/// `altbench batches [RUN]`: the batches a run sent through the Batch API, as last seen (id,
/// what they hold, state, request counts, created, expires); `altbench batches cancel RUN`
/// cancels those still queued or running and imports what they finished.
package struct BatchesCommand: Sendable {
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

    /// Prints the run's batches (the newest run with batches when `run` is `nil`); returns
    /// the run's id and how many batches it has.
    @discardableResult
    package func list(run: String?) async throws -> (runID: String, batches: Int) {
        let store = try ResultStore.existing(results: results, workingDirectory: workingDirectory)
        let runID: String
        if let run {
            runID = try await store.resolveRunID(run)
        } else {
            guard let latest = try await store.latestRunWithBatches() else {
                console.err("No run in \(RunsCommand.databasePath(results)) went through the Batch API yet. Start one with `altbench run --batch`.\n")
                return ("", 0)
            }
            runID = latest
        }
        let inputs = try await store.batchState(runID: runID, purpose: "trials")
            + store.batchState(runID: runID, purpose: "judge")
        console.out(Self.table(runID: runID, inputs: inputs))
        return (runID, inputs.reduce(0) { $0 + $1.jobs.count })
    }

    static func table(runID: String, inputs: [StoredBatchInput]) -> String {
        var rows: [[String]] = [["BATCH", "FOR", "FILE", "STATE", "REQUESTS", "CREATED", "EXPIRES", "CHECKED"]]
        func date(_ date: Date?) -> String {
            guard let date else { return "-" }
            return ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: [.withFullDate, .withTime, .withColonSeparatorInTime, .withSpaceBetweenDateAndTime])
        }
        var notes: [String] = []
        for input in inputs {
            if input.jobs.isEmpty {
                rows.append([
                    "(none yet)", input.purpose, "\(input.sequence): \(input.lines) requests", input.fileID == nil ? "not uploaded" : "uploaded",
                    "-", "-", "-", "-",
                ])
            }
            for job in input.jobs {
                let counts = job.total.map { "\((job.completed ?? 0)) done, \((job.failed ?? 0)) failed of \($0)" } ?? "-"
                var state = job.status + (job.importedAt != nil ? ", imported" : "")
                if job.message?.hasPrefix(StoredBatchJob.waitingForQueue) == true { state += " (waiting for the queue)" }
                rows.append([
                    job.batchID, input.purpose, "\(input.sequence): \(input.lines) requests", state, counts,
                    date(job.createdAt), date(job.expiresAt), date(job.checkedAt),
                ])
                if let message = job.message { notes.append("\(job.batchID): \(message)") }
            }
        }
        let widths = rows[0].indices.map { column in rows.map { TerminalText.line($0[column]).count }.max() ?? 0 }
        var text = "Batches of run \(TerminalText.line(runID)) (as last seen; `altbench run --resume \(runID)` looks again and imports what finished):\n"
        for row in rows {
            text += row.indices.map { TerminalText.line(row[$0]).padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        for note in notes { text += TerminalText.line(note) + "\n" }
        return text
    }
}
