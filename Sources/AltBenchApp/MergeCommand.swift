import AltBenchCore
import AltBenchStore
import Foundation

/// `altbench merge STORE… --into FILE`: joins the stores of `altbench run --shard K/N` jobs
/// into one run, which `report`, `baseline save`, `compare` and `check` then read as they
/// read an unsharded run.
package struct MergeCommand: Sendable {
    package var console: Console
    package var workingDirectory: URL

    package init(
        console: Console = .standard, workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.console = console
        self.workingDirectory = workingDirectory
    }

    /// Merges `stores` (paths as given) into the database at `into` (created when absent).
    /// Returns the outcome; the exit status is 0 when the merged run is complete and 3 when
    /// shards or trials are still missing.
    package func run(stores: [String], into: String) async throws -> (outcome: MergeOutcome, exitCode: Int32) {
        let sources = stores.map { ShardStore(url: Self.database(at: $0, in: workingDirectory), display: $0) }
        let target = Self.database(at: into, in: workingDirectory)
        // The target is created only once the shards have been read: a refused merge leaves
        // no empty database behind.
        for source in sources where !FileManager.default.fileExists(atPath: source.url.path) {
            throw MergeError.missingStore(store: source.display)
        }
        let store = try ResultStore(url: target)
        let outcome: MergeOutcome
        do {
            outcome = try await store.merge(sources)
        } catch {
            if try await store.runIDs().isEmpty { try? Self.remove(target) }
            throw error
        }
        console.out(Self.summary(outcome, into: into))
        return (outcome, outcome.status == "finished" ? 0 : 3)
    }

    /// A store given as a results folder means the `altbench.sqlite` inside it.
    static func database(at path: String, in directory: URL) -> URL {
        let url = URL.resolving(path, against: directory)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return url.appendingPathComponent("altbench.sqlite")
        }
        return url
    }

    static func remove(_ database: URL) throws {
        for suffix in ["", "-wal", "-shm"] {
            let file = URL(fileURLWithPath: database.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
    }

    static func summary(_ outcome: MergeOutcome, into: String) -> String {
        let count = { (n: Int, one: String, many: String) in "\(n) \(n == 1 ? one : many)" }
        var lines: [String] = []
        let verb = outcome.created ? "merged into the new run" : "merged into run"
        lines.append(
            "altbench merge: \(count(outcome.sources.count, "store", "stores")) \(verb) \(outcome.runID) in \(into): \(count(outcome.trials, "trial", "trials")) of \(outcome.plannedTrials) planned.")
        for source in outcome.sources.sorted(by: { $0.shard < $1.shard }) {
            lines.append("  shard \(source.shard)/\(outcome.shardCount): run \(source.runID) from \(source.store)")
        }
        var moved = ["\(count(outcome.trialsAdded, "trial", "trials")) added", "\(outcome.answersAdded) answers copied"]
        if outcome.trialsKept > 0 { moved.append("\(outcome.trialsKept) already there and kept") }
        if outcome.trialsReplaced > 0 { moved.append("\(outcome.trialsReplaced) failed ones replaced by answers") }
        if outcome.judgementsAdded > 0 { moved.append("\(count(outcome.judgementsAdded, "judgement", "judgements")) added") }
        lines.append(moved.joined(separator: ", ") + ".")
        if outcome.status == "finished" {
            lines.append("Every shard is in: the run is complete. Next: altbench report \(outcome.runID), altbench check.")
        } else {
            lines.append("The run is incomplete: \(outcome.statusMessage ?? "trials are missing.")")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
