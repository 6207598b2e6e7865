import AltBenchCore
import Foundation
import GRDB

/// The SQLite store of runs, trials, answers and scores (`results/altbench.sqlite`).
///
/// Answers are found again by cache key, so a later run reuses them without a request. The
/// store never sees an API key; every text it writes passes a `Redactor` as a last guard.
package final class ResultStore: Sendable {
    let writer: any DatabaseWriter
    /// The file, or ":memory:".
    package let location: String

    /// Opens (creating if needed) the database at `url` and brings its schema up to date.
    package init(url: URL) throws {
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        do {
            writer = try DatabasePool(path: url.path, configuration: configuration)
            try Schema.migrator().migrate(writer)
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path: url.path, reason: error.message ?? error.description)
        }
        location = url.path
    }

    /// An in-memory store, for tests.
    package init() throws {
        writer = try DatabaseQueue()
        try Schema.migrator().migrate(writer)
        location = ":memory:"
    }

    /// Creates the run's rows (run, variants, items) and returns the sink its trials go to.
    package func beginRun(
        _ info: RunResults.Info, variants: [PromptVariant], dataset: Dataset, plannedTrials: Int,
        redactor: Redactor = Redactor(secrets: [])
    ) async throws -> RunRecorder {
        let (variantIDs, itemIDs) = try await writer.write { db -> ([String: Int64], [String: Int64]) in
            try db.execute(
                sql: """
                    INSERT INTO run (id, started_at, status, status_message, provider, provider_reason, endpoint,
                      dataset, prompts, settings, planned_trials, altbench_version)
                    VALUES (?, ?, 'running', NULL, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    info.id, info.startedAt, info.provider.rawValue, info.providerReason, info.endpoint,
                    info.datasetPath, info.promptsPath, redactor.redact(info.settings.canonicalText), plannedTrials,
                    info.version,
                ])
            var variantIDs: [String: Int64] = [:]
            for (position, variant) in variants.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO variant (run_id, position, name, file, file_sha256, prompt, model, max_tokens,
                          detail, temperature, system, description)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        info.id, position, variant.name, variant.file, variant.fileHash, variant.text, variant.model,
                        variant.maxTokens.map { JSONValue.array($0.map { .int($0) }).canonicalText },
                        variant.detail?.rawValue, variant.temperature, variant.system, variant.description,
                    ])
                variantIDs[variant.name] = db.lastInsertedRowID
            }
            var itemIDs: [String: Int64] = [:]
            for (position, item) in dataset.items.enumerated() {
                let imagePath: String?
                let image: String
                switch item.image {
                case .file(let path, let url):
                    image = path
                    imagePath = url.standardizedFileURL.path
                case .remote(let url):
                    image = url.absoluteString
                    imagePath = nil
                }
                try db.execute(
                    sql: """
                        INSERT INTO item (run_id, position, item_key, image, image_path, image_sha256, format, width,
                          height, bytes, problem, reference_texts, context, lang, tags, expected_text, must_mention)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        info.id, position, item.id, image, imagePath, item.imageInfo?.sha256,
                        item.imageInfo?.format.rawValue, item.imageInfo?.width, item.imageInfo?.height,
                        item.imageInfo?.byteCount, item.problem?.message,
                        JSONValue.array(item.references.map { .string($0) }).canonicalText, item.context, item.lang,
                        JSONValue.array(item.tags.map { .string($0) }).canonicalText, item.expectedText,
                        JSONValue.array(item.mustMention.map { .string($0) }).canonicalText,
                    ])
                itemIDs[item.id] = db.lastInsertedRowID
            }
            return (variantIDs, itemIDs)
        }
        return RunRecorder(
            writer: writer, runID: info.id, endpoint: info.endpoint, variantIDs: variantIDs, itemIDs: itemIDs,
            redactor: redactor)
    }

    /// Marks a run finished or stopped.
    ///
    /// The reason a run stopped is usually a server's error text, which can echo the API key
    /// (OpenAI's 401 does), so it passes a redactor as the recorder's trial errors do: pass the
    /// run's; even the default one removes `sk-...` shapes.
    package func finishRun(
        id: String, status: String, message: String?, stoppedBy: String? = nil, at date: Date = Date(),
        redactor: Redactor = Redactor(secrets: [])
    ) async throws {
        let message = redactor.redactIfPresent(message)
        try await writer.write { db in
            try db.execute(
                sql: "UPDATE run SET status = ?, status_message = ?, stopped_by = ?, finished_at = ? WHERE id = ?",
                arguments: [status, message, stoppedBy, date, id])
        }
    }

    /// Run ids, newest first.
    package func runIDs() async throws -> [String] {
        try await writer.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM run ORDER BY started_at DESC, id DESC")
        }
    }

    /// A run found by ``resolveRun(_:)``.
    package struct ResolvedRun: Sendable, Hashable {
        package var id: String
        /// Newer runs passed over because they recorded no answer (a wrong key, a closed
        /// port): only when no id was given.
        package var skipped: [String]

        /// What to tell the user about the choice, when runs were passed over.
        package var note: String? {
            guard !skipped.isEmpty else { return nil }
            let runs = skipped.count == 1 ? "the newer run \(skipped[0]) recorded" : "the \(skipped.count) newer runs (\(skipped.joined(separator: ", "))) recorded"
            return "using run \(id), the newest with answers: \(runs) no answer. Name a run to use another."
        }
    }

    /// Finds a run by id or unique id prefix; when `id` is nil, the newest run that recorded
    /// an answer (a run that failed every trial is not "the latest"), or the newest run when
    /// none did.
    package func resolveRun(_ id: String?) async throws -> ResolvedRun {
        if id != nil { return ResolvedRun(id: try await resolveRunID(id), skipped: []) }
        let ids = try await runIDs()
        guard let newest = ids.first else { throw AltBenchError.noRuns(database: location) }
        let answered = try await writer.read { db in
            try Set(String.fetchAll(db, sql: "SELECT DISTINCT run_id FROM trial WHERE status = 'answered'"))
        }
        guard let chosen = ids.firstIndex(where: answered.contains) else { return ResolvedRun(id: newest, skipped: []) }
        return ResolvedRun(id: ids[chosen], skipped: Array(ids[..<chosen]))
    }

    /// Finds a run by id or unique id prefix; when `id` is nil, the newest run with answers
    /// (``resolveRun(_:)``).
    package func resolveRunID(_ id: String?) async throws -> String {
        guard let id else { return try await resolveRun(nil).id }
        let ids = try await runIDs()
        guard ids.first != nil else { throw AltBenchError.noRuns(database: location) }
        if ids.contains(id) { return id }
        let matches = id.isEmpty ? [] : ids.filter { $0.hasPrefix(id) }
        guard matches.count < 2 else { throw AltBenchError.ambiguousRun(id: id, matches: matches) }
        guard matches.count == 1 else { throw AltBenchError.runNotFound(id: id, database: location) }
        return matches[0]
    }
}

/// Errors of the store itself.
package enum StoreError: UserFacingError, Sendable {
    case cannotOpen(path: String, reason: String)

    package var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "Cannot open the results database \(path): \(reason). Check that the folder is writable, or pass --results DIR."
        }
    }
}
