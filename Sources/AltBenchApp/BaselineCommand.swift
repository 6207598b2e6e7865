import AltBenchCore
import AltBenchStore
import Foundation

/// `altbench baseline save`: writes a stored run's ``RunSnapshot`` as a baseline file for
/// `altbench check` and `altbench compare`.
package struct BaselineCommand: Sendable {
    package var results: String
    package var console: Console
    package var workingDirectory: URL

    package init(
        results: String, console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.results = results
        self.console = console
        self.workingDirectory = workingDirectory
    }

    /// The default file: `baseline.json` in the results folder.
    package var defaultOutput: String { (results as NSString).appendingPathComponent("baseline.json") }

    /// Saves run `id` (default: the latest) to `output` (default: ``defaultOutput``) and
    /// returns the snapshot written.
    ///
    /// A run that stopped before finishing is refused unless `allowIncomplete`: its missing
    /// trials would read as a different plan in every later check.
    @discardableResult
    package func save(runID id: String?, output: String?, allowIncomplete: Bool = false) async throws -> RunSnapshot {
        let store = try ResultStore.existing(results: results, workingDirectory: workingDirectory)
        let resolved = try await store.resolveRun(id)
        if let note = resolved.note { console.err("altbench: \(note)\n") }
        let runID = resolved.id
        let loaded = try await store.loadRun(id: runID)
        if !allowIncomplete, loaded.info.status != "finished" || loaded.trials.count < loaded.plannedTrials {
            throw AltBenchError.badBaseline(
                file: "of run \(runID)",
                reason: "would be incomplete: the run is \(loaded.info.status) with \(loaded.trials.count) of "
                    + "\(loaded.plannedTrials) trials. \(loaded.info.finishAdvice), or pass --allow-incomplete.")
        }
        let snapshot = RunSnapshot(loaded)
        let path = output ?? defaultOutput
        let url = URL.resolving(path, against: workingDirectory)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try snapshot.encodedJSON().write(to: url, options: .atomic)
        let items = Set(snapshot.rows.flatMap(\.items.keys)).count
        console.out(
            "Saved the baseline of run \(runID) to \(path): \(snapshot.rows.count) variant × max_tokens pairs, "
                + "\(items) items, \(snapshot.provider) \(snapshot.models.joined(separator: ", ")) at \(snapshot.endpointHost).\n")
        if loaded.info.isMock {
            console.err(
                "note: this baseline holds mock answers; a check against it needs a mock run too.\n")
        }
        return snapshot
    }
}
