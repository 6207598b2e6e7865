import AltBenchCore
import Foundation
import GRDB

/// A store given to `altbench merge`: the results database of one `altbench run --shard K/N`.
package struct ShardStore: Sendable {
    package var url: URL
    /// How the user named it, for messages.
    package var display: String

    package init(url: URL, display: String) {
        self.url = url
        self.display = display
    }
}

/// What `altbench merge` did.
package struct MergeOutcome: Sendable, Equatable {
    /// The merged run: the same id every time the shards of one plan are merged.
    package var runID: String
    /// False when the run was already in the target (an earlier merge), and grew or stayed.
    package var created: Bool
    /// Each store's shard run, in the order given: (store, run id, shard).
    package var sources: [Source]
    /// Shards (1-based) of the plan no given store holds, so far.
    package var missingShards: [Int]
    package var shardCount: Int
    /// Trials copied now, and trials the target already held (an earlier merge, or a shard
    /// given twice) and kept.
    package var trialsAdded: Int
    package var trialsKept: Int
    /// Failed trials replaced by an answer from another store.
    package var trialsReplaced: Int
    /// Answers (rows of `response`) copied now; answers already in the target are shared.
    package var answersAdded: Int
    package var judgementsAdded: Int
    /// Trials of the merged run, and of the whole plan.
    package var trials: Int
    package var plannedTrials: Int
    /// finished, or stopped (shards missing, a shard unfinished, trials missing).
    package var status: String
    package var statusMessage: String?

    package struct Source: Sendable, Equatable {
        package var store: String
        package var runID: String
        package var shard: Int
    }
}

/// Why a merge was refused. Nothing was written.
package enum MergeError: UserFacingError, Sendable, Equatable {
    case missingStore(store: String)
    case noShardRun(store: String, newest: String?)
    case foreignPlan(store: String, run: String, reference: String, differences: [String])
    case targetIsSource(store: String)
    case noStores

    package var description: String {
        switch self {
        case .missingStore(let store):
            return "\(store): no such results database. Give the altbench.sqlite each shard job wrote (altbench run --shard K/N --results DIR writes DIR/altbench.sqlite)."
        case .noShardRun(let store, let newest):
            let newestText = newest.map { " (its newest run, \($0), asked the whole plan)" } ?? " (it holds no run)"
            return "\(store) holds no run made with --shard\(newestText). altbench merge joins the stores of altbench run --shard K/N; an unsharded run needs no merge."
        case .foreignPlan(let store, let run, let reference, let differences):
            let shown = differences.prefix(5).map { "  - \($0)" }.joined(separator: "\n")
            let more = differences.count > 5 ? "\n  - and \(differences.count - 5) more" : ""
            return "\(store) (run \(run)) is a shard of another plan than \(reference), so their answers cannot make one run:\n\(shown)\(more)\nMerge the shards of one plan: the same prompts, dataset, model and settings, split with the same N."
        case .targetIsSource(let store):
            return "\(store) is both a shard and the target: give another file to --into (the merged run goes there; the shards are only read)."
        case .noStores:
            return "no stores to merge: give the altbench.sqlite of each shard job."
        }
    }
}

extension ResultStore {
    /// Settings that change how a run is carried out but not what it asks or how it scores;
    /// shards may differ in them. Every other setting must be the same in each shard.
    static let operationalSettings: Set<String> = [
        "concurrency", "timeout", "max_retries", "cache", "rpm", "tpm", "deadline", "max_cost", "batch", "shard",
        "prices", "judge", "offline", "prompts", "dataset", "merged",
    ]

    /// Merges the shard runs of `stores` (each store's newest run made with `--shard`) into
    /// one run of this store: variants and items once, every trial with its answer, scores
    /// and judgements, answers shared by cache key. A store from another plan is refused,
    /// naming what differs, before anything is written. Merging the same stores again adds
    /// nothing; merging more shards of the plan later completes the same run.
    package func merge(_ stores: [ShardStore]) async throws -> MergeOutcome {
        guard !stores.isEmpty else { throw MergeError.noStores }
        let here = URL(fileURLWithPath: location).standardizedFileURL.resolvingSymlinksInPath().path
        var read: [(store: ShardStore, plan: ShardPlan)] = []
        for store in stores {
            guard FileManager.default.fileExists(atPath: store.url.path) else {
                throw MergeError.missingStore(store: store.display)
            }
            if store.url.standardizedFileURL.resolvingSymlinksInPath().path == here {
                throw MergeError.targetIsSource(store: store.display)
            }
            // Opening brings an older store's schema up to date, as every command does.
            let source = try ResultStore(url: store.url)
            read.append((store, try await source.newestShardPlan(display: store.display)))
        }
        let plans = read
        let reference = plans[0]
        for other in plans.dropFirst() {
            let differences = reference.plan.differences(from: other.plan)
            if !differences.isEmpty {
                throw MergeError.foreignPlan(
                    store: other.store.display, run: other.plan.runID,
                    reference: "\(reference.store.display) (run \(reference.plan.runID))", differences: differences)
            }
        }
        let fingerprint = reference.plan.fingerprint
        return try await writer.writeWithoutTransaction { db -> MergeOutcome in
            var outcome = MergeOutcome(
                runID: "", created: false,
                sources: plans.map { MergeOutcome.Source(store: $0.store.display, runID: $0.plan.runID, shard: $0.plan.shard.index) },
                missingShards: [], shardCount: reference.plan.shard.count, trialsAdded: 0, trialsKept: 0,
                trialsReplaced: 0, answersAdded: 0, judgementsAdded: 0, trials: 0,
                plannedTrials: reference.plan.plannedTotal, status: "stopped", statusMessage: nil)
            let existing = try String.fetchOne(
                db, sql: "SELECT id FROM run WHERE json_extract(settings, '$.merged.plan') = ? ORDER BY started_at LIMIT 1",
                arguments: [fingerprint])
            var copier = try MergeCopier(db: db)
            let runID = existing ?? Self.mergedRunID(plans.map(\.plan), fingerprint: fingerprint)
            outcome.runID = runID
            outcome.created = existing == nil
            // The earlier merge's shard runs, kept in the settings with the new ones.
            var shardRuns: [Int: Set<String>] = [:]
            if let existing {
                let text = try String.fetchOne(db, sql: "SELECT settings FROM run WHERE id = ?", arguments: [existing])
                let earlier = text.flatMap { try? JSONValue.parse(Data($0.utf8)) }?["merged"]?["runs"]?.arrayValue ?? []
                for entry in earlier {
                    if let shard = entry["shard"]?.intValue, let run = entry["run"]?.stringValue {
                        shardRuns[shard, default: []].insert(run)
                    }
                }
            }
            // One transaction per store (SQLite attaches a database only outside one): a merge
            // cut off keeps whole stores, and merging again completes it.
            for (index, source) in plans.enumerated() {
                try db.execute(sql: "ATTACH DATABASE ? AS shard", arguments: [source.store.url.path])
                do {
                    try db.inTransaction(.immediate) {
                        if index == 0 && existing == nil {
                            try copier.createRun(runID, from: source.plan, all: plans.map(\.plan), fingerprint: fingerprint)
                        }
                        try copier.copyTrials(of: source.plan.runID, into: runID, outcome: &outcome)
                        return .commit
                    }
                } catch {
                    try? db.execute(sql: "DETACH DATABASE shard")
                    throw error
                }
                try db.execute(sql: "DETACH DATABASE shard")
                shardRuns[source.plan.shard.index, default: []].insert(source.plan.runID)
            }
            try db.inTransaction(.immediate) {
                try copier.closeRun(runID, plans: plans.map(\.plan), shardRuns: shardRuns, outcome: &outcome)
                return .commit
            }
            return outcome
        }
    }

    /// The id of a merged run: the first shard's start time, and four hex digits of the plan,
    /// so that merging the same shards into any file gives the same id.
    static func mergedRunID(_ plans: [ShardPlan], fingerprint: String) -> String {
        let started = plans.map(\.startedAt).min() ?? Date()
        return "\(DateText.utc(started, "yyyyMMdd-HHmmss"))-\(fingerprint.prefix(4))"
    }

    /// The newest run made with `--shard`, and what it planned.
    func newestShardPlan(display: String) async throws -> ShardPlan {
        try await writer.read { db in
            let runs = try Row.fetchAll(db, sql: "SELECT * FROM run ORDER BY started_at DESC, id DESC")
            guard let run = runs.first(where: { Self.shard(ofSettings: $0["settings"]) != nil }) else {
                throw MergeError.noShardRun(store: display, newest: runs.first?["id"])
            }
            return try ShardPlan(run: run, db: db)
        }
    }

    static func shard(ofSettings text: String?) -> (shard: Shard, plannedTotal: Int)? {
        guard let text, let settings = try? JSONValue.parse(Data(text.utf8)), let shard = settings["shard"],
            let index = shard["index"]?.intValue, let count = shard["count"]?.intValue,
            let value = try? Shard(index: index, count: count)
        else { return nil }
        return (value, shard["planned_total"]?.intValue ?? 0)
    }
}

/// What one shard run asked: enough to tell whether two shards belong to one plan.
struct ShardPlan: Sendable {
    var runID: String
    var shard: Shard
    var plannedTotal: Int
    var startedAt: Date
    var finishedAt: Date?
    var status: String
    var statusMessage: String?
    var stoppedBy: String?
    var settings: JSONValue
    var provider: String
    var endpoint: String
    var version: String
    /// Variant name → its identity (file hash, text, model, limits, detail, …), in order.
    var variants: [(name: String, identity: JSONValue)]
    /// Item key → its identity (image hash, references, context, …), in order.
    var items: [(key: String, identity: JSONValue)]

    static let variantColumns = ["file_sha256", "prompt", "model", "max_tokens", "detail", "temperature", "system"]
    static let itemColumns = [
        "image_sha256", "reference_texts", "context", "lang", "tags", "expected_text", "must_mention", "problem",
    ]

    init(run: Row, db: Database) throws {
        runID = run["id"]
        let text: String = run["settings"]
        guard let (shard, total) = ResultStore.shard(ofSettings: text) else {
            preconditionFailure("a shard plan of a run without shard settings")
        }
        self.shard = shard
        plannedTotal = total
        startedAt = run["started_at"]
        finishedAt = run["finished_at"]
        status = run["status"]
        statusMessage = run["status_message"]
        stoppedBy = run["stopped_by"]
        settings = (try? JSONValue.parse(Data(text.utf8))) ?? .object([:])
        provider = run["provider"]
        endpoint = run["endpoint"]
        version = run["altbench_version"]
        variants = try Row.fetchAll(db, sql: "SELECT * FROM variant WHERE run_id = ? ORDER BY position", arguments: [runID])
            .map { row in (row["name"], Self.identity(row, Self.variantColumns)) }
        items = try Row.fetchAll(db, sql: "SELECT * FROM item WHERE run_id = ? ORDER BY position", arguments: [runID])
            .map { row in
                // A remote image has no hash: its URL is its identity.
                var identity = Self.identity(row, Self.itemColumns)
                if case .object(var object) = identity, (row["image_sha256"] as String?) == nil {
                    object["image"] = .string(row["image"])
                    identity = .object(object)
                }
                return (row["item_key"], identity)
            }
    }

    static func identity(_ row: Row, _ columns: [String]) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for column in columns {
            let value = row[column] as DatabaseValue
            switch value.storage {
            case .null: object[column] = .null
            case .int64(let number): object[column] = .int(Int(number))
            case .double(let number): object[column] = .double(number)
            case .string(let text): object[column] = .string(text)
            case .blob(let data): object[column] = .string(Hashing.sha256Hex(data))
            }
        }
        return .object(object)
    }

    /// The settings that define what the plan asks and how it scores.
    var planSettings: JSONValue {
        guard case .object(let object) = settings else { return settings }
        return .object(object.filter { !ResultStore.operationalSettings.contains($0.key) })
    }

    /// A digest of everything two shards of one plan share.
    var fingerprint: String {
        let plan: JSONValue = .object([
            "settings": planSettings, "provider": .string(provider), "endpoint": .string(endpoint),
            "version": .string(version), "shards": .int(shard.count), "planned": .int(plannedTotal),
            "variants": .array(variants.map { .array([.string($0.name), $0.identity]) }),
            "items": .array(items.map { .array([.string($0.key), $0.identity]) }),
        ])
        return Hashing.sha256Hex(plan.canonicalText)
    }

    /// What differs between this plan and `other`, in words; empty when they are one plan.
    func differences(from other: ShardPlan) -> [String] {
        var found: [String] = []
        if shard.count != other.shard.count {
            found.append("it was split into \(other.shard.count) shards, this one into \(shard.count)")
        }
        if endpoint != other.endpoint { found.append("endpoint: \(other.endpoint), here \(endpoint)") }
        if provider != other.provider { found.append("provider: \(other.provider), here \(provider)") }
        if version != other.version { found.append("altbench version: \(other.version), here \(version)") }
        let mine = planSettings.objectValue ?? [:]
        let theirs = other.planSettings.objectValue ?? [:]
        for key in Set(mine.keys).union(theirs.keys).sorted() where mine[key] != theirs[key] {
            found.append("setting \(key): \(theirs[key]?.canonicalText ?? "not set"), here \(mine[key]?.canonicalText ?? "not set")")
        }
        let myVariants = Dictionary(variants, uniquingKeysWith: { a, _ in a })
        let theirVariants = Dictionary(other.variants, uniquingKeysWith: { a, _ in a })
        for (name, identity) in other.variants {
            guard let mineIdentity = myVariants[name] else { found.append("the prompt '\(name)' is not in this plan"); continue }
            if mineIdentity != identity {
                let fields = Self.variantColumns.filter { mineIdentity[$0] != identity[$0] }
                found.append("the prompt '\(name)' differs (\(fields.joined(separator: ", ")))")
            }
        }
        for (name, _) in variants where theirVariants[name] == nil { found.append("the prompt '\(name)' is missing") }
        if found.isEmpty && variants.map(\.name) != other.variants.map(\.name) {
            found.append("the prompts are in another order")
        }
        let myItems = Dictionary(items, uniquingKeysWith: { a, _ in a })
        let theirItems = Dictionary(other.items, uniquingKeysWith: { a, _ in a })
        var itemDifferences: [String] = []
        for (key, identity) in other.items {
            guard let mineIdentity = myItems[key] else { itemDifferences.append("the dataset item '\(key)' is not in this plan"); continue }
            if mineIdentity != identity {
                let fields = (Self.itemColumns + ["image"]).filter { mineIdentity[$0] != identity[$0] }
                itemDifferences.append("the dataset item '\(key)' differs (\(fields.map { $0 == "image_sha256" ? "image" : $0 }.joined(separator: ", ")))")
            }
        }
        for (key, _) in items where theirItems[key] == nil { itemDifferences.append("the dataset item '\(key)' is missing") }
        if items.count != other.items.count {
            found.append("the dataset has \(other.items.count) items, here \(items.count)")
        }
        found.append(contentsOf: itemDifferences)
        if found.isEmpty && plannedTotal != other.plannedTotal {
            found.append("it planned \(other.plannedTotal) trials, this one \(plannedTotal)")
        }
        return found
    }
}

/// Copies rows from the attached database `shard` into the main one, in one transaction.
private struct MergeCopier {
    let db: Database
    /// Columns of each table in the main database, in order.
    var columns: [String: [String]] = [:]
    /// Source response id → target response id, per source (cleared at each ATTACH).
    var responseMap: [Int64: Int64] = [:]

    init(db: Database) throws {
        self.db = db
        for table in ["run", "variant", "item", "trial", "score", "response", "judgement"] {
            columns[table] = try Row.fetchAll(db, sql: "PRAGMA main.table_info(\(table))").map { $0["name"] }
        }
    }

    /// Inserts `row` into `main.table`, with `replacing` values over the row's own; `id` is
    /// left to SQLite unless `replacing` gives it. The new row's id.
    @discardableResult
    func insert(_ table: String, _ row: Row, replacing: [String: (any DatabaseValueConvertible)?]) throws -> Int64? {
        let names = (columns[table] ?? []).filter {
            replacing.keys.contains($0) || ($0 != "id" && row.hasColumn($0))
        }
        let values: [DatabaseValue] = names.map { name in
            if let replaced = replacing[name] { return replaced?.databaseValue ?? .null }
            return row[name] as DatabaseValue
        }
        let sql = "INSERT INTO main.\(table) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values))
        return db.changesCount > 0 ? db.lastInsertedRowID : nil
    }

    /// The merged run's rows: the run (marked running until ``closeRun``), its variants and items.
    func createRun(_ runID: String, from plan: ShardPlan, all: [ShardPlan], fingerprint: String) throws {
        guard let run = try Row.fetchOne(db, sql: "SELECT * FROM shard.run WHERE id = ?", arguments: [plan.runID]) else { return }
        try insert(
            "run", run,
            replacing: [
                "id": runID, "started_at": all.map(\.startedAt).min(), "status": "running", "status_message": nil,
                "finished_at": nil, "stopped_by": nil, "planned_trials": plan.plannedTotal,
            ])
        for table in ["variant", "item"] {
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM shard.\(table) WHERE run_id = ? ORDER BY position", arguments: [plan.runID])
            for row in rows { try insert(table, row, replacing: ["run_id": runID]) }
        }
    }

    /// Copies the trials of shard run `source` into `runID` with their answers, scores and
    /// judgements. A trial the target holds already is kept, unless it failed there and
    /// has an answer here.
    mutating func copyTrials(of source: String, into runID: String, outcome: inout MergeOutcome) throws {
        responseMap = [:]
        let variants = try Dictionary(
            Row.fetchAll(db, sql: "SELECT id, name FROM main.variant WHERE run_id = ?", arguments: [runID])
                .map { ($0["name"] as String, $0["id"] as Int64) }, uniquingKeysWith: { a, _ in a })
        let items = try Dictionary(
            Row.fetchAll(db, sql: "SELECT id, item_key FROM main.item WHERE run_id = ?", arguments: [runID])
                .map { ($0["item_key"] as String, $0["id"] as Int64) }, uniquingKeysWith: { a, _ in a })
        let trials = try Row.fetchCursor(
            db,
            sql: """
                SELECT t.*, v.name AS merge_variant, i.item_key AS merge_item FROM shard.trial t
                JOIN shard.variant v ON v.id = t.variant_id JOIN shard.item i ON i.id = t.item_id
                WHERE t.run_id = ? ORDER BY t.id
                """, arguments: [source])
        while let trial = try trials.next() {
            let variantName: String = trial["merge_variant"]
            let itemKey: String = trial["merge_item"]
            guard let variantID = variants[variantName], let itemID = items[itemKey] else {
                // The plans were compared: every variant and item of a shard is in the run.
                preconditionFailure("a shard trial of a variant or item the merged run lacks")
            }
            let maxTokens: Int? = trial["max_tokens"]
            let repeatIndex: Int = trial["repeat_index"]
            let status: String = trial["status"]
            if let held = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT id, status FROM main.trial WHERE run_id = ? AND variant_id = ? AND item_id = ?
                          AND max_tokens IS ? AND repeat_index = ?
                        """),
                arguments: [runID, variantID, itemID, maxTokens, repeatIndex])
            {
                let heldID: Int64 = held["id"]
                if (held["status"] as String) == "failed" && status == "answered" {
                    try db.execute(sql: "DELETE FROM main.trial WHERE id = ?", arguments: [heldID])
                    outcome.trialsReplaced += 1
                } else {
                    // Judgements made later of a shard's trial still join the trial held.
                    try copyJudgements(of: trial["id"], to: heldID, outcome: &outcome)
                    outcome.trialsKept += 1
                    continue
                }
            } else {
                outcome.trialsAdded += 1
            }
            let responseID = try (trial["response_id"] as Int64?).map { try copyResponse($0, outcome: &outcome) }
            guard
                let newID = try insert(
                    "trial", trial,
                    replacing: ["run_id": runID, "variant_id": variantID, "item_id": itemID, "response_id": responseID])
            else { continue }
            let scores = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM shard.score WHERE trial_id = ?"), arguments: [trial["id"] as Int64])
            for score in scores { try insert("score", score, replacing: ["trial_id": newID]) }
            try copyJudgements(of: trial["id"], to: newID, outcome: &outcome)
        }
    }

    mutating func copyJudgements(of sourceTrial: Int64, to trialID: Int64, outcome: inout MergeOutcome) throws {
        let judgements = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM shard.judgement WHERE trial_id = ?"), arguments: [sourceTrial])
        for judgement in judgements {
            let held = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM main.judgement WHERE trial_id = ? AND repeat_index = ?"),
                arguments: [trialID, judgement["repeat_index"] as Int]) ?? false
            if held { continue }
            let responseID = try (judgement["response_id"] as Int64?).map { try copyResponse($0, outcome: &outcome) }
            try insert("judgement", judgement, replacing: ["trial_id": trialID, "response_id": responseID])
            outcome.judgementsAdded += 1
        }
    }

    /// The target's row for source answer `id`: the same answer already there (same cache
    /// key, text, body and time), else a copy.
    mutating func copyResponse(_ id: Int64, outcome: inout MergeOutcome) throws -> Int64? {
        if let mapped = responseMap[id] { return mapped }
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM shard.response WHERE id = ?"), arguments: [id])
        else { return nil }
        let same = try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT id FROM main.response WHERE cache_key = ? AND content IS ? AND refusal IS ? AND raw_body IS ?
                      AND created_at = ? ORDER BY id LIMIT 1
                    """),
            arguments: [row["cache_key"] as String, row["content"] as String?, row["refusal"] as String?,
                        row["raw_body"] as String?, row["created_at"] as DatabaseValue])
        let target: Int64
        if let same {
            target = same
        } else {
            target = try insert("response", row, replacing: [:]) ?? 0
            outcome.answersAdded += 1
        }
        responseMap[id] = target
        return target
    }

    /// Sets the merged run's status from its shards: finished when every shard is in, each
    /// finished, and every planned trial is there.
    func closeRun(_ runID: String, plans: [ShardPlan], shardRuns: [Int: Set<String>], outcome: inout MergeOutcome) throws {
        let count = plans[0].shard.count
        let present = Set(shardRuns.keys)
        let missing = (1...count).filter { !present.contains($0) }
        let trials = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM main.trial WHERE run_id = ?", arguments: [runID]) ?? 0
        outcome.trials = trials
        outcome.missingShards = missing
        let unfinished = plans.filter { $0.status != "finished" }.sorted { $0.shard.index < $1.shard.index }
        var status = "finished"
        var message: String?
        var stoppedBy: String?
        if !missing.isEmpty {
            status = "stopped"
            let names = missing.map { "\($0)/\(count)" }
            message = "merged \(present.count) of \(count) shards; shard\(names.count == 1 ? "" : "s") \(names.joined(separator: ", ")) missing: merge their stores into this one when they finish (altbench merge STORE --into this file)."
        } else if let first = unfinished.first {
            status = "stopped"
            stoppedBy = first.stoppedBy
            message = "shard \(first.shard) did not finish (\(first.status)\(first.statusMessage.map { ": \($0)" } ?? "")): continue it with altbench run --resume \(first.runID) in its job, then merge again."
        } else if trials < plans[0].plannedTotal {
            status = "stopped"
            message = "\(trials) of \(plans[0].plannedTotal) planned trials are in the merged shards."
        }
        outcome.status = status
        outcome.statusMessage = message
        let settingsText = try String.fetchOne(db, sql: "SELECT settings FROM main.run WHERE id = ?", arguments: [runID]) ?? "{}"
        var settings = (try? JSONValue.parse(Data(settingsText.utf8)))?.objectValue ?? [:]
        settings["shard"] = nil
        if settings["judge"] == nil, let judge = plans.lazy.compactMap({ $0.settings["judge"] }).first { settings["judge"] = judge }
        let runs = shardRuns.sorted { $0.key < $1.key }.flatMap { shard, ids in
            ids.sorted().map { JSONValue.object(["shard": .int(shard), "run": .string($0)]) }
        }
        settings["merged"] = .object([
            "plan": .string(plans[0].fingerprint), "shards": .int(count), "runs": .array(runs),
        ])
        let finished = plans.compactMap(\.finishedAt).max()
        let earlierFinish = try Date.fetchOne(db, sql: "SELECT finished_at FROM main.run WHERE id = ?", arguments: [runID])
        try db.execute(
            sql: "UPDATE main.run SET status = ?, status_message = ?, stopped_by = ?, finished_at = ?, settings = ? WHERE id = ?",
            arguments: [
                status, message, stoppedBy, [finished, earlierFinish].compactMap { $0 }.max(),
                JSONValue.object(settings).canonicalText, runID,
            ])
    }
}
