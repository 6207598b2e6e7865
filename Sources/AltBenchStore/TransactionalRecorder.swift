import GRDB

/// A sink that writes each result with `insert`: one result in a transaction of its own, or
/// many in one transaction, in order (a result sharing an earlier one's answer finds it).
/// `RunRecorder` (a run's trials) and `JudgeRecorder` (a judging pass's calls) are the two.
protocol TransactionalRecorder: Sendable {
    associatedtype Recorded: Sendable
    var writer: any DatabaseWriter { get }
    func insert(_ result: Recorded, db: Database) throws
}

extension TransactionalRecorder {
    func write(_ results: [Recorded]) async throws {
        guard !results.isEmpty else { return }
        try await writer.write { db in
            for result in results { try insert(result, db: db) }
        }
    }
}
