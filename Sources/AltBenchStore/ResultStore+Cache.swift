import AltBenchCore
import Foundation
import GRDB

/// What the results database holds, for `altbench cache stats`.
///
/// Figures come from one read transaction, so they agree with each other even while a run
/// is writing.
package struct CacheStatistics: Sendable, Equatable {
    /// Runs by the status the `run` table allows.
    package struct RunCounts: Sendable, Equatable {
        package var running: Int
        package var finished: Int
        package var stopped: Int

        package var total: Int { running + finished + stopped }

        package init(running: Int = 0, finished: Int = 0, stopped: Int = 0) {
            self.running = running
            self.finished = finished
            self.stopped = stopped
        }
    }

    /// The cached answers of one model at one endpoint.
    package struct ModelAnswers: Sendable, Equatable {
        package var endpoint: String
        package var model: String
        package var answers: Int
        package var oldest: Date
        package var newest: Date

        package init(endpoint: String, model: String, answers: Int, oldest: Date, newest: Date) {
            self.endpoint = endpoint
            self.model = model
            self.answers = answers
            self.oldest = oldest
            self.newest = newest
        }
    }

    /// Bytes of the database file itself; 0 for an in-memory store.
    package var fileBytes: Int64
    /// Bytes of its write-ahead log (`altbench.sqlite-wal`), which holds recent writes until
    /// SQLite copies them into the main file; 0 when there is none.
    package var walBytes: Int64
    package var runs: RunCounts
    package var trials: Int
    /// Rows of `response`: every answer a model gave, found again by cache key.
    package var answers: Int
    /// Distinct cache keys among the answers (fewer than answers after `--no-cache` runs).
    package var cacheKeys: Int
    /// Answers no trial points to any more; `cache prune --unreferenced` deletes them.
    package var unreferencedAnswers: Int
    package var oldestAnswer: Date?
    package var newestAnswer: Date?
    /// Answers per (endpoint, model), sorted by endpoint then model.
    package var byModel: [ModelAnswers]

    /// What the database takes on disk: the main file plus its write-ahead log.
    package var totalBytes: Int64 { fileBytes + walBytes }

    package init(
        fileBytes: Int64 = 0, walBytes: Int64 = 0, runs: RunCounts = RunCounts(), trials: Int = 0, answers: Int = 0,
        cacheKeys: Int = 0, unreferencedAnswers: Int = 0, oldestAnswer: Date? = nil, newestAnswer: Date? = nil,
        byModel: [ModelAnswers] = []
    ) {
        self.fileBytes = fileBytes
        self.walBytes = walBytes
        self.runs = runs
        self.trials = trials
        self.answers = answers
        self.cacheKeys = cacheKeys
        self.unreferencedAnswers = unreferencedAnswers
        self.oldestAnswer = oldestAnswer
        self.newestAnswer = newestAnswer
        self.byModel = byModel
    }
}

/// Which runs and cached answers `ResultStore.prune` deletes.
///
/// The criteria add up: a run goes when any of them selects it. Runs still marked `running`
/// that started within `ResultStore.inProgressWindow` are never deleted, since a run may be
/// writing to them.
package struct PruneSelection: Sendable, Equatable {
    /// Deletes runs that started more than this many seconds before `now`, then the cached
    /// answers created before that moment that no remaining trial uses.
    package var olderThan: TimeInterval?
    /// Keeps the newest `keepRuns` finished runs with answers (by start time, then id), and
    /// deletes the other runs older than the oldest of them, then every answer no remaining
    /// trial uses. Runs that recorded no answer are deleted wherever they are, and count for
    /// nothing; so do scratch runs (finished, but with fewer than a tenth of the trials of
    /// the largest finished run), which are kept only when newer than the runs counted.
    package var keepRuns: Int?
    /// Deletes every cached answer no trial uses.
    package var unreferenced: Bool
    /// Runs never deleted, with the reason (the baseline's run).
    package var protected: [String: String]

    package init(
        olderThan: TimeInterval? = nil, keepRuns: Int? = nil, unreferenced: Bool = false, protected: [String: String] = [:]
    ) {
        self.olderThan = olderThan
        self.keepRuns = keepRuns
        self.unreferenced = unreferenced
        self.protected = protected
    }

    /// True when no criterion is given, so nothing would be deleted.
    package var isEmpty: Bool { olderThan == nil && keepRuns == nil && !unreferenced }
}

/// What `ResultStore.prune` deleted, or would delete on a dry run.
package struct PruneOutcome: Sendable, Equatable {
    /// Deleted runs, oldest first; their variants, items, trials and scores went with them.
    package var runIDs: [String]
    /// Runs the selection matched but that were kept because they may still be in progress.
    package var keptInProgress: [String]
    /// Runs kept with `--keep-runs`, newest first, each with why.
    package var kept: [KeptRun] = []

    package struct KeptRun: Sendable, Equatable {
        package var id: String
        package var reason: String
    }
    package var trials: Int
    package var answers: Int
    /// The `--older-than` cutoff, when one was given.
    package var cutoff: Date?
    /// Database plus write-ahead log, before and after (after the VACUUM that follows a real
    /// prune; equal on a dry run).
    package var bytesBefore: Int64
    package var bytesAfter: Int64
    package var dryRun: Bool

    package init(
        runIDs: [String] = [], keptInProgress: [String] = [], trials: Int = 0, answers: Int = 0, cutoff: Date? = nil,
        bytesBefore: Int64 = 0, bytesAfter: Int64 = 0, dryRun: Bool = false
    ) {
        self.runIDs = runIDs
        self.keptInProgress = keptInProgress
        self.trials = trials
        self.answers = answers
        self.cutoff = cutoff
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
        self.dryRun = dryRun
    }
}

extension ResultStore {
    /// How recently a run marked `running` must have started for pruning to leave it alone: a
    /// run that old may still be writing; an older one was most likely killed.
    package static let inProgressWindow: TimeInterval = 24 * 60 * 60

    /// The figures of `altbench cache stats`.
    package func cacheStatistics() async throws -> CacheStatistics {
        let (fileBytes, walBytes) = diskUsage()
        return try await writer.read { db in
            var runs = CacheStatistics.RunCounts()
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM run GROUP BY status") {
                let count: Int = row["n"]
                switch row["status"] as String {
                case "running": runs.running = count
                case "finished": runs.finished = count
                case "stopped": runs.stopped = count
                default: break
                }
            }
            let trials = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM trial") ?? 0
            let totals = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*) AS answers, COUNT(DISTINCT cache_key) AS keys,
                      MIN(created_at) AS oldest, MAX(created_at) AS newest
                    FROM response
                    """)
            let unreferenced = try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM response WHERE \(Self.unreferencedAnswer)") ?? 0
            let byModel = try Row.fetchAll(
                db,
                sql: """
                    SELECT endpoint, model, COUNT(*) AS answers, MIN(created_at) AS oldest, MAX(created_at) AS newest
                    FROM response GROUP BY endpoint, model ORDER BY endpoint, model
                    """
            ).map { row in
                CacheStatistics.ModelAnswers(
                    endpoint: row["endpoint"], model: row["model"], answers: row["answers"], oldest: row["oldest"],
                    newest: row["newest"])
            }
            return CacheStatistics(
                fileBytes: fileBytes, walBytes: walBytes, runs: runs, trials: trials,
                answers: totals?["answers"] ?? 0, cacheKeys: totals?["keys"] ?? 0, unreferencedAnswers: unreferenced,
                oldestAnswer: totals?["oldest"], newestAnswer: totals?["newest"], byModel: byModel)
        }
    }

    /// Deletes the runs and cached answers `selection` picks, in one write transaction, then
    /// VACUUMs so the file shrinks. With `dryRun`, the same deletions run and are rolled back,
    /// so the outcome names exactly what a real prune would delete and nothing changes.
    ///
    /// Deleting a run deletes its variants, items, trials and scores (the schema cascades);
    /// an answer goes only when no remaining trial uses it. Markdown reports are files, not
    /// rows: removing `runs/<id>.md` is the caller's job.
    package func prune(_ selection: PruneSelection, now: Date = Date(), dryRun: Bool = false) async throws -> PruneOutcome {
        let bytesBefore = totalDiskUsage()
        let cutoff = selection.olderThan.map { now.addingTimeInterval(-$0) }
        let inProgressSince = now.addingTimeInterval(-Self.inProgressWindow)
        // Which answers go once the runs are gone: all unused ones, or with only
        // --older-than, the unused ones from before the cutoff.
        let answerCutoff: Date? = selection.keepRuns != nil || selection.unreferenced ? nil : cutoff

        var outcome = try await writer.writeWithoutTransaction { db -> PruneOutcome in
            var outcome = PruneOutcome(
                runIDs: [], keptInProgress: [], trials: 0, answers: 0, cutoff: cutoff, bytesBefore: bytesBefore,
                bytesAfter: bytesBefore, dryRun: dryRun)
            guard !selection.isEmpty else { return outcome }
            try db.inTransaction(.immediate) {
                // Newest first, the order --keep-runs counts in.
                let runs = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT r.id, r.started_at, r.status,
                          (SELECT COUNT(*) FROM trial t WHERE t.run_id = r.id) AS trials,
                          (SELECT COUNT(*) FROM trial t WHERE t.run_id = r.id AND t.status = 'answered') AS answered
                        FROM run r ORDER BY r.started_at DESC, r.id DESC
                        """)
                let largest = runs.filter { $0["status"] as String == "finished" }.map { $0["trials"] as Int }.max() ?? 0
                var counted = 0
                for run in runs {
                    let id: String = run["id"]
                    let startedAt: Date = run["started_at"]
                    let status: String = run["status"]
                    let answered: Int = run["answered"]
                    var selected = false
                    if let cutoff, startedAt < cutoff { selected = true }
                    if let reason = selection.protected[id] {
                        outcome.kept.append(.init(id: id, reason: reason))
                        continue
                    }
                    if let keep = selection.keepRuns {
                        let scratch = (run["trials"] as Int) * 10 < largest
                        if status == "running" && startedAt >= inProgressSince {
                            selected = true  // kept below, as in progress
                        } else if answered == 0 {
                            selected = true
                        } else if status == "finished" && !scratch && counted < keep {
                            counted += 1
                            outcome.kept.append(.init(id: id, reason: "finished run \(counted) of \(keep), \(answered) answers"))
                        } else if counted < keep {
                            // Newer than the runs counted: work to resume, or a scratch run.
                            outcome.kept.append(
                                .init(
                                    id: id,
                                    reason: status == "finished"
                                        ? "scratch run (\(run["trials"] as Int) trials), newer than the runs counted"
                                        : "\(status) with \(answered) answers, newer than the runs counted (it can be resumed)"))
                        } else {
                            selected = true
                        }
                    }
                    guard selected else { continue }
                    if status == "running" && startedAt >= inProgressSince {
                        outcome.keptInProgress.insert(run["id"], at: 0)
                    } else {
                        outcome.runIDs.insert(run["id"], at: 0)
                    }
                }
                for id in outcome.runIDs {
                    outcome.trials += try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM trial WHERE run_id = ?", arguments: [id]) ?? 0
                    try db.execute(sql: "DELETE FROM run WHERE id = ?", arguments: [id])
                }
                if let answerCutoff {
                    try db.execute(
                        sql: "DELETE FROM response WHERE created_at < ? AND \(Self.unreferencedAnswer)",
                        arguments: [answerCutoff])
                } else {
                    try db.execute(sql: "DELETE FROM response WHERE \(Self.unreferencedAnswer)")
                }
                outcome.answers = db.changesCount
                return dryRun ? .rollback : .commit
            }
            return outcome
        }
        guard !dryRun, !selection.isEmpty else { return outcome }
        try await writer.vacuum()
        if location != ":memory:" {
            // VACUUM leaves the new pages in the write-ahead log; copying them back and
            // truncating the log is what makes the files smaller. A reader in another process
            // can hold that off; SQLite then does it later, so it is no reason to fail.
            try? await writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
        outcome.bytesAfter = totalDiskUsage()
        return outcome
    }

    /// A `response` row no trial points to. `NOT IN` over a subquery is evaluated once.
    /// Deleting runs and answers relies on the v3 indexes of `trial`'s references: without
    /// them SQLite scans all of `trial` per variant, item and answer deleted (a minute on a
    /// store of a hundred runs).
    static let unreferencedAnswer = """
        id NOT IN (SELECT response_id FROM trial WHERE response_id IS NOT NULL) \
        AND id NOT IN (SELECT response_id FROM judgement WHERE response_id IS NOT NULL)
        """

    /// Bytes of the database file and of its write-ahead log; zeros in memory.
    func diskUsage() -> (file: Int64, wal: Int64) {
        guard location != ":memory:" else { return (0, 0) }
        func size(_ path: String) -> Int64 {
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
        return (size(location), size(location + "-wal"))
    }

    func totalDiskUsage() -> Int64 {
        let (file, wal) = diskUsage()
        return file + wal
    }
}

extension ResultStore {
    /// Which of `keys` the store holds an answer for: the trials a run would answer from the
    /// store rather than send (`altbench plan`, `--max-cost`).
    package func storedKeys(among keys: [String]) async throws -> Set<String> {
        let unique = Array(Set(keys))
        return try await writer.read { db in
            var found = Set<String>()
            // Chunks keep each statement well under SQLite's limit on bound parameters.
            for start in stride(from: 0, to: unique.count, by: 500) {
                let chunk = Array(unique[start..<min(start + 500, unique.count)])
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                let rows = try String.fetchAll(
                    db, sql: "SELECT DISTINCT cache_key FROM response WHERE cache_key IN (\(marks))",
                    arguments: StatementArguments(chunk))
                found.formUnion(rows)
            }
            return found
        }
    }
}

/// What an earlier run asked with a variant: the texts that make its requests' cache keys.
package struct StoredPrompt: Sendable, Equatable {
    package var runID: String
    package var prompt: String
    package var system: String?
}

extension ResultStore {
    /// The prompt the newest other run with answers from `endpoint` asked under the variant
    /// `name`, for `--offline` to say when the prompt text changed since.
    package func storedPrompt(variant name: String, endpoint: String, excludingRun runID: String) async throws -> StoredPrompt? {
        try await writer.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT v.run_id, v.prompt, v.system FROM variant v JOIN run ON run.id = v.run_id
                    WHERE v.name = ? AND v.run_id != ? AND run.endpoint = ?
                      AND EXISTS (SELECT 1 FROM trial t WHERE t.variant_id = v.id AND t.status = 'answered')
                    ORDER BY run.started_at DESC, run.id DESC LIMIT 1
                    """, arguments: [name, runID, endpoint]
            ).map { StoredPrompt(runID: $0["run_id"], prompt: $0["prompt"], system: $0["system"]) }
        }
    }

    /// The `--proxy` URL of the newest run that reached `endpoint` through a signed proxy;
    /// `nil` when no such run is stored.
    package func proxyURL(forEndpoint endpoint: String) async throws -> String? {
        let settings = try await writer.read { db in
            try String.fetchOne(
                db, sql: "SELECT settings FROM run WHERE endpoint = ? AND provider = 'proxy' ORDER BY started_at DESC LIMIT 1",
                arguments: [endpoint])
        }
        guard let settings, let json = try? JSONValue.parse(Data(settings.utf8)) else { return nil }
        return json["proxy"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
    }
}
