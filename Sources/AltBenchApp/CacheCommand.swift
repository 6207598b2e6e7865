import AltBenchCore
import AltBenchStore
import Foundation

/// `altbench cache stats` and `altbench cache prune`: what the results database holds, and
/// deleting old runs and the cached answers nothing uses any more.
///
/// Neither command creates a database: both need one an `altbench run` wrote.
package struct CacheCommand: Sendable {
    /// The store's types under names the command line can use without importing the store.
    package typealias Statistics = CacheStatistics
    package typealias Selection = PruneSelection
    package typealias Outcome = PruneOutcome

    /// How `stats` prints its figures.
    package enum Format: String, Sendable, CaseIterable {
        /// Aligned lines and a table, for people.
        case text
        /// One JSON object with sorted keys, for scripts.
        case json
    }

    /// What `prune` deleted (or would delete, on a dry run), with the report files.
    package struct PruneResult: Sendable, Equatable {
        package var outcome: PruneOutcome
        /// The deleted runs' reports, as `DIR/runs/<id>.md` and `.html`, that were (or would be) removed.
        package var reports: [String]
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

    /// Prints the store's figures on stdout in `format` and returns them.
    @discardableResult
    package func stats(format: Format = .text) async throws -> Statistics {
        let stats = try await openStore().cacheStatistics()
        switch format {
        case .text: console.out(Self.text(stats, database: databaseDisplayPath))
        case .json: console.out(try Self.json(stats, database: databaseDisplayPath))
        }
        return stats
    }

    /// Deletes what `selection` picks (see `ResultStore.prune`) and each deleted run's
    /// `runs/<id>.md` and `.html`, then prints what went and the size before and after.
    /// `latest.md` and `latest.html` stay: they are the last reports written, whichever run
    /// they show.
    @discardableResult
    package func prune(_ selection: Selection, dryRun: Bool = false, now: Date = Date()) async throws -> PruneResult {
        let store = try openStore()
        var selection = selection
        // The baseline's run stays: `check` compares against it, and a report links to it.
        let baseline = resultsDirectory.appendingPathComponent("baseline.json")
        if let snapshot = try? RunSnapshot.load(from: baseline, displayPath: "\(displayResults)/baseline.json") {
            selection.protected[snapshot.runID] = "the baseline's run (\(displayResults)/baseline.json)"
        }
        let outcome = try await store.prune(selection, now: now, dryRun: dryRun)
        let runs = resultsDirectory.appendingPathComponent("runs")
        var reports: [String] = []
        // Ids come from the database; one that could name a file outside runs/ is left alone.
        for id in outcome.runIDs where !id.contains("/") && !id.hasPrefix(".") {
            for ext in ["md", "html"] {
                let file = runs.appendingPathComponent("\(id).\(ext)")
                guard FileManager.default.fileExists(atPath: file.path) else { continue }
                if !dryRun { try FileManager.default.removeItem(at: file) }
                reports.append("\(displayResults)/runs/\(id).\(ext)")
            }
        }
        let result = PruneResult(outcome: outcome, reports: reports)
        console.out(Self.text(result, database: databaseDisplayPath))
        return result
    }

    var resultsDirectory: URL { URL.resolving(results, against: workingDirectory) }

    /// The results folder as the user gave it, without a trailing slash.
    var displayResults: String {
        var path = results
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    var databaseDisplayPath: String { "\(displayResults)/altbench.sqlite" }

    func openStore() throws -> ResultStore {
        let database = resultsDirectory.appendingPathComponent("altbench.sqlite")
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw CacheCommandError.noDatabase(path: databaseDisplayPath)
        }
        return try ResultStore(url: database)
    }

    // MARK: - Output

    static func text(_ stats: CacheStatistics, database: String) -> String {
        var size = bytes(stats.totalBytes)
        if stats.walBytes > 0 {
            size += " (\(bytes(stats.fileBytes)) + \(bytes(stats.walBytes)) write-ahead log)"
        }
        let statuses = [("finished", stats.runs.finished), ("stopped", stats.runs.stopped), ("running", stats.runs.running)]
            .filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }
        var unused = "\(stats.unreferencedAnswers)"
        if stats.unreferencedAnswers > 0 { unused += " (`altbench cache prune --unreferenced` deletes them)" }
        let lines: [(String, String)] = [
            ("Database", database),
            ("Size on disk", size),
            ("Runs", "\(stats.runs.total)" + (statuses.isEmpty ? "" : " (\(statuses.joined(separator: ", ")))")),
            ("Trials", "\(stats.trials)"),
            ("Cached answers", "\(stats.answers)"),
            ("Cache keys", "\(stats.cacheKeys)"),
            ("Unused answers", unused),
            ("Oldest answer", stats.oldestAnswer.map(timestamp) ?? "–"),
            ("Newest answer", stats.newestAnswer.map(timestamp) ?? "–"),
        ]
        let width = lines.map(\.0.count).max()! + 3
        var out = lines.map { label, value in (label + ":").padding(toLength: width, withPad: " ", startingAt: 0) + value }
            .joined(separator: "\n") + "\n"
        guard !stats.byModel.isEmpty else { return out }
        out += "\nAnswers by endpoint and model:\n"
        out += table(
            header: ["endpoint", "model", "answers", "oldest", "newest"],
            rows: stats.byModel.map { [$0.endpoint, $0.model, "\($0.answers)", timestamp($0.oldest), timestamp($0.newest)] },
            rightAligned: [2])
        return out
    }

    static func json(_ stats: CacheStatistics, database: String) throws -> String {
        func date(_ date: Date?) -> JSONValue { date.map { .string(isoTimestamp($0)) } ?? .null }
        let value: JSONValue = .object([
            "database": .string(database),
            "database_bytes": .int(Int(stats.totalBytes)),
            "file_bytes": .int(Int(stats.fileBytes)),
            "wal_bytes": .int(Int(stats.walBytes)),
            "runs": .int(stats.runs.total),
            "runs_by_status": .object([
                "running": .int(stats.runs.running), "finished": .int(stats.runs.finished),
                "stopped": .int(stats.runs.stopped),
            ]),
            "trials": .int(stats.trials),
            "answers": .int(stats.answers),
            "cache_keys": .int(stats.cacheKeys),
            "unreferenced_answers": .int(stats.unreferencedAnswers),
            "oldest_answer": date(stats.oldestAnswer),
            "newest_answer": date(stats.newestAnswer),
            "answers_by_model": .array(
                stats.byModel.map { group in
                    .object([
                        "endpoint": .string(group.endpoint), "model": .string(group.model), "answers": .int(group.answers),
                        "oldest": date(group.oldest), "newest": date(group.newest),
                    ])
                }),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    static func text(_ result: PruneResult, database: String) -> String {
        let outcome = result.outcome
        let verb = outcome.dryRun ? "Would delete" : "Deleted"
        var out = outcome.dryRun ? "Dry run: nothing is deleted.\n" : ""
        if let cutoff = outcome.cutoff { out += "Cutoff: \(timestamp(cutoff))\n" }
        if outcome.runIDs.isEmpty {
            out += "\(verb) no runs.\n"
        } else {
            out += "\(verb) \(count(outcome.runIDs.count, "run")):\n"
            out += outcome.runIDs.map { "  \($0)\n" }.joined()
        }
        out += "\(verb) \(count(outcome.trials, "trial")) and \(count(outcome.answers, "cached answer")).\n"
        if !result.reports.isEmpty {
            out += "\(outcome.dryRun ? "Would remove" : "Removed") \(count(result.reports.count, "report")):\n"
            out += result.reports.map { "  \($0)\n" }.joined()
        }
        if !outcome.kept.isEmpty {
            out += "Kept \(count(outcome.kept.count, "run")):\n"
            out += outcome.kept.map { "  \($0.id): \($0.reason)\n" }.joined()
        }
        if !outcome.keptInProgress.isEmpty {
            out += "Kept \(count(outcome.keptInProgress.count, "run")) marked running that started in the last 24 hours, "
                + "as it may be in progress: \(outcome.keptInProgress.joined(separator: ", "))\n"
        }
        if outcome.dryRun {
            out += "\(database): \(bytes(outcome.bytesBefore))\n"
        } else {
            out += "\(database): \(bytes(outcome.bytesBefore)) → \(bytes(outcome.bytesAfter))\n"
        }
        return out
    }

    static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }

    /// Decimal units, as file managers show sizes.
    static func bytes(_ count: Int64) -> String {
        if count < 1000 { return "\(count) bytes" }
        let units = ["kB", "MB", "GB", "TB"]
        var value = Double(count) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return String(format: "%.1f", value) + " " + units[unit]
    }

    static func timestamp(_ date: Date) -> String {
        formatted(date, "yyyy-MM-dd HH:mm:ss 'UTC'")
    }

    static func isoTimestamp(_ date: Date) -> String {
        formatted(date, "yyyy-MM-dd'T'HH:mm:ss'Z'")
    }

    private static func formatted(_ date: Date, _ format: String) -> String {
        DateText.utc(date, format)
    }

    /// Space-aligned columns under a header, two spaces apart.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int>) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                let cell = row[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return rightAligned.contains(column) ? pad + cell : (column == row.count - 1 ? cell : cell + pad)
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

/// `--older-than` values: a whole number and a unit, `90m`, `12h`, `30d` or `2w`.
package enum PruneAge {
    /// The age in seconds; throws `CacheCommandError.badAge` for anything else.
    package static func parse(_ text: String) throws -> TimeInterval {
        let units: [Character: TimeInterval] = ["m": 60, "h": 3600, "d": 86400, "w": 604_800]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.dropLast()
        guard let unit = trimmed.last, let seconds = units[unit], digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let number = Int(digits), number > 0
        else { throw CacheCommandError.badAge(text) }
        return TimeInterval(number) * seconds
    }
}

/// Problems `altbench cache` reports before touching anything.
package enum CacheCommandError: UserFacingError, Equatable, Sendable {
    case noDatabase(path: String)
    case badAge(String)

    package var description: String {
        switch self {
        case .noDatabase(let path):
            return "No results database at \(path). Run `altbench run` first, or pass --results DIR for the folder that holds altbench.sqlite."
        case .badAge(let text):
            return "--older-than takes a whole number and a unit: 90m (minutes), 12h (hours), 30d (days) or 2w (weeks), not '\(text)'."
        }
    }
}
