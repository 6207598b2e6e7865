import AltBenchCore
import Foundation
import GRDB

/// One row of `altbench runs`: what a run asked, of whom, and how far it got.
package struct RunListing: Sendable, Equatable {
    package var id: String
    package var startedAt: Date
    package var finishedAt: Date?
    /// running, finished or stopped, as the `run` table holds it. A run whose process died
    /// without closing it (kill -9, a crash, a lost machine) stays `running`.
    package var status: String
    /// Why a stopped run stopped.
    package var statusMessage: String?
    package var provider: Provider
    package var endpoint: String
    /// The models its trials asked, sorted; before any trial, the models its settings and
    /// prompts would ask (empty only for a run without prompts).
    package var models: [String]
    package var dataset: String
    package var prompts: String
    package var answered: Int
    package var failed: Int
    package var planned: Int
    /// When its last trial finished, nil before the first.
    package var lastTrialAt: Date?
    package var version: String

    package init(
        id: String, startedAt: Date, finishedAt: Date? = nil, status: String, statusMessage: String? = nil,
        provider: Provider, endpoint: String, models: [String], dataset: String, prompts: String, answered: Int,
        failed: Int, planned: Int, lastTrialAt: Date? = nil, version: String
    ) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.status = status
        self.statusMessage = statusMessage
        self.provider = provider
        self.endpoint = endpoint
        self.models = models
        self.dataset = dataset
        self.prompts = prompts
        self.answered = answered
        self.failed = failed
        self.planned = planned
        self.lastTrialAt = lastTrialAt
        self.version = version
    }
}

extension ResultStore {
    /// Every run, newest first (the order of `runIDs()`), with its trial counts. Reads only.
    package func runListings() async throws -> [RunListing] {
        try await writer.read { db in
            var trialModels: [String: Set<String>] = [:]
            let modelRows = try Row.fetchCursor(
                db, sql: "SELECT DISTINCT run_id, model FROM trial WHERE model IS NOT NULL AND model <> ''")
            while let row = try modelRows.next() {
                trialModels[row["run_id"], default: []].insert(row["model"])
            }
            var variantModels: [String: Set<String>] = [:]
            let variantRows = try Row.fetchCursor(db, sql: "SELECT DISTINCT run_id, model FROM variant")
            while let row = try variantRows.next() {
                let model: String? = row["model"]
                variantModels[row["run_id"], default: []].insert(model ?? Experiment.defaultModel)
            }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT r.id, r.started_at, r.finished_at, r.status, r.status_message, r.provider, r.endpoint,
                      r.dataset, r.prompts, r.settings, r.planned_trials, r.altbench_version,
                      COALESCE(t.answered, 0) AS answered, COALESCE(t.failed, 0) AS failed, t.last_trial_at
                    FROM run r
                    LEFT JOIN (
                      SELECT run_id, SUM(status = 'answered') AS answered, SUM(status = 'failed') AS failed,
                        MAX(finished_at) AS last_trial_at
                      FROM trial GROUP BY run_id
                    ) t ON t.run_id = r.id
                    ORDER BY r.started_at DESC, r.id DESC
                    """)
            return rows.map { row in
                let id: String = row["id"]
                var models = trialModels[id] ?? []
                if models.isEmpty {
                    // No trial yet: what the run was set to ask, as the planner picks it (the
                    // run's model, else each prompt's own, else the default).
                    let settingsText: String = row["settings"]
                    if let model = (try? JSONValue.parse(Data(settingsText.utf8)))?["model"]?.stringValue,
                        !model.isEmpty
                    {
                        models = [model]
                    } else {
                        models = variantModels[id] ?? []
                    }
                }
                let providerName: String = row["provider"]
                return RunListing(
                    id: id, startedAt: row["started_at"], finishedAt: row["finished_at"], status: row["status"],
                    statusMessage: row["status_message"], provider: Provider(rawValue: providerName) ?? .openai,
                    endpoint: row["endpoint"], models: models.sorted(), dataset: row["dataset"], prompts: row["prompts"],
                    answered: row["answered"], failed: row["failed"], planned: row["planned_trials"],
                    lastTrialAt: row["last_trial_at"], version: row["altbench_version"])
            }
        }
    }
}

extension ResultStore {
    /// Records in run `runID`'s settings who judges its answers (`settings.judge`: model,
    /// provider, endpoint, rubric; never a key), replacing an earlier judge.
    package func recordJudge(runID: String, judge: JSONValue) async throws {
        try await writer.write { db in
            guard let text = try String.fetchOne(db, sql: "SELECT settings FROM run WHERE id = ?", arguments: [runID]) else {
                throw AltBenchError.runNotFound(id: runID, database: self.location)
            }
            guard case .object(var settings) = (try? JSONValue.parse(Data(text.utf8))) ?? .object([:]) else { return }
            settings["judge"] = judge
            try db.execute(
                sql: "UPDATE run SET settings = ? WHERE id = ?", arguments: [JSONValue.object(settings).canonicalText, runID])
        }
    }
}
