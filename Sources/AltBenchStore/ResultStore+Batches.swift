import AltBenchCore
import Foundation
import GRDB

/// What a run sends through the Batch API, as the store keeps it: each input file with its
/// requests, and each batch created from it. Every id the server returns is written the
/// moment it arrives, so a run killed at any point continues without uploading or creating
/// again what exists (``ResultStore/batchState(runID:purpose:)``).
package struct StoredBatchInput: Sendable, Hashable {
    package var purpose: String
    package var sequence: Int
    /// 0 for the run's first files; n for a file resubmitting the requests of generation
    /// n − 1 that expired.
    package var generation: Int
    package var model: String
    package var lines: Int
    package var bytes: Int
    package var uploadName: String
    package var fileID: String?
    package var customIDs: [String]
    /// The batches created from it, oldest first.
    package var jobs: [StoredBatchJob]

    package init(
        purpose: String, sequence: Int, generation: Int, model: String, lines: Int, bytes: Int, uploadName: String,
        fileID: String?, customIDs: [String], jobs: [StoredBatchJob]
    ) {
        self.purpose = purpose
        self.sequence = sequence
        self.generation = generation
        self.model = model
        self.lines = lines
        self.bytes = bytes
        self.uploadName = uploadName
        self.fileID = fileID
        self.customIDs = customIDs
        self.jobs = jobs
    }
}

/// One batch as last seen.
package struct StoredBatchJob: Sendable, Hashable {
    package var batchID: String
    package var sequence: Int
    package var status: String
    package var total: Int?
    package var completed: Int?
    package var failed: Int?
    package var outputFileID: String?
    package var errorFileID: String?
    package var createdAt: Date
    package var expiresAt: Date?
    package var checkedAt: Date?
    /// When its output and error files were read and every line recorded.
    package var importedAt: Date?
    /// Why it ended as it did, when that is not plain completion.
    package var message: String?

    package init(
        batchID: String, sequence: Int, status: String, total: Int? = nil, completed: Int? = nil, failed: Int? = nil,
        outputFileID: String? = nil, errorFileID: String? = nil, createdAt: Date, expiresAt: Date? = nil,
        checkedAt: Date? = nil, importedAt: Date? = nil, message: String? = nil
    ) {
        self.batchID = batchID
        self.sequence = sequence
        self.status = status
        self.total = total
        self.completed = completed
        self.failed = failed
        self.outputFileID = outputFileID
        self.errorFileID = errorFileID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.checkedAt = checkedAt
        self.importedAt = importedAt
        self.message = message
    }
}

extension ResultStore {
    /// Records a completed input file and its requests, in one transaction, before it is uploaded.
    package func recordBatchInput(
        runID: String, purpose: String, file: BatchInputFile, generation: Int, at date: Date = Date()
    ) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO batch_input (run_id, purpose, sequence, generation, model, lines, bytes, upload_name,
                      written_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    runID, purpose, file.sequence, generation, file.model, file.customIDs.count, file.bytes,
                    file.url.lastPathComponent, date,
                ])
            let insert = try db.cachedStatement(
                sql: "INSERT INTO batch_request (run_id, purpose, sequence, custom_id) VALUES (?, ?, ?, ?)")
            for customID in file.customIDs {
                try insert.execute(arguments: [runID, purpose, file.sequence, customID])
            }
        }
    }

    /// The server's id for an uploaded input file, written as soon as the upload answers.
    package func recordBatchFileID(
        _ fileID: String, runID: String, purpose: String, sequence: Int, at date: Date = Date()
    ) async throws {
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE batch_input SET file_id = ?, uploaded_at = ? WHERE run_id = ? AND purpose = ? AND sequence = ?",
                arguments: [fileID, date, runID, purpose, sequence])
        }
    }

    /// A batch the server created from an input file, written as soon as the create answers.
    package func recordBatchJob(_ job: StoredBatchJob, runID: String, purpose: String) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO batch_job (batch_id, run_id, purpose, sequence, status, total, completed, failed,
                      output_file_id, error_file_id, created_at, expires_at, checked_at, message)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    job.batchID, runID, purpose, job.sequence, job.status, job.total, job.completed, job.failed,
                    job.outputFileID, job.errorFileID, job.createdAt, job.expiresAt, job.checkedAt, job.message,
                ])
        }
    }

    /// What the server said of a batch the last time it was asked.
    package func updateBatchJob(_ job: StoredBatchJob) async throws {
        try await writer.write { db in
            try db.execute(
                sql: """
                    UPDATE batch_job SET status = ?, total = ?, completed = ?, failed = ?, output_file_id = ?,
                      error_file_id = ?, expires_at = ?, checked_at = ?, message = ?
                    WHERE batch_id = ?
                    """,
                arguments: [
                    job.status, job.total, job.completed, job.failed, job.outputFileID, job.errorFileID,
                    job.expiresAt, job.checkedAt, job.message, job.batchID,
                ])
        }
    }

    /// Marks a batch's results recorded: a later `--resume` does not read them again.
    package func markBatchImported(_ batchID: String, at date: Date = Date()) async throws {
        try await writer.write { db in
            try db.execute(sql: "UPDATE batch_job SET imported_at = ? WHERE batch_id = ?", arguments: [date, batchID])
        }
    }

    /// Every input file of a run for `purpose` (`trials` or `judge`), in order, with its
    /// requests and batches.
    package func batchState(runID: String, purpose: String) async throws -> [StoredBatchInput] {
        try await writer.read { db in
            let jobs = Dictionary(
                grouping: try Row.fetchAll(
                    db, sql: "SELECT * FROM batch_job WHERE run_id = ? AND purpose = ? ORDER BY created_at, rowid",
                    arguments: [runID, purpose]
                ).map(Self.job(from:)), by: \.sequence)
            var requests: [Int: [String]] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT sequence, custom_id FROM batch_request WHERE run_id = ? AND purpose = ? ORDER BY rowid",
                arguments: [runID, purpose])
            while let row = try rows.next() { requests[row["sequence"], default: []].append(row["custom_id"]) }
            return try Row.fetchAll(
                db, sql: "SELECT * FROM batch_input WHERE run_id = ? AND purpose = ? ORDER BY sequence",
                arguments: [runID, purpose]
            ).map { row in
                let sequence: Int = row["sequence"]
                return StoredBatchInput(
                    purpose: purpose, sequence: sequence, generation: row["generation"], model: row["model"],
                    lines: row["lines"], bytes: row["bytes"], uploadName: row["upload_name"], fileID: row["file_id"],
                    customIDs: requests[sequence] ?? [], jobs: jobs[sequence] ?? [])
            }
        }
    }

    /// Every batch of a run (both purposes), oldest first, for `altbench batches`.
    package func batchJobs(runID: String) async throws -> [(purpose: String, job: StoredBatchJob)] {
        try await writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM batch_job WHERE run_id = ? ORDER BY created_at, rowid", arguments: [runID]
            ).map { (purpose: $0["purpose"], job: Self.job(from: $0)) }
        }
    }

    static func job(from row: Row) -> StoredBatchJob {
        StoredBatchJob(
            batchID: row["batch_id"], sequence: row["sequence"], status: row["status"], total: row["total"],
            completed: row["completed"], failed: row["failed"], outputFileID: row["output_file_id"],
            errorFileID: row["error_file_id"], createdAt: row["created_at"], expiresAt: row["expires_at"],
            checkedAt: row["checked_at"], importedAt: row["imported_at"], message: row["message"])
    }
}

extension ResultStore {
    /// The newest run that sent anything through the Batch API; `nil` when none did.
    package func latestRunWithBatches() async throws -> String? {
        try await writer.read { db in
            try String.fetchOne(
                db,
                sql: """
                    SELECT r.id FROM run r WHERE EXISTS (SELECT 1 FROM batch_input b WHERE b.run_id = r.id)
                    ORDER BY r.started_at DESC, r.rowid DESC LIMIT 1
                    """)
        }
    }
}
