import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

/// The database is meant to be shared (attached to an issue, committed as a baseline), so no
/// API key may reach it, wherever a server or a user echoed it.
@Suite("No secrets in the store")
struct StoreSecretsTests {
    typealias F = StoreFixtures

    static let key = "sk" + "-test-SECRET-abcdef123456"
    /// A configured secret without the `sk-` shape (an Azure key, a proxy token): only the
    /// redactor's list can catch it.
    static let plainSecret = "AZURE0123456789abcdefSECRET"

    /// Every value of every column of every table, as text, labelled with where it came from.
    private static func dump(_ path: String) throws -> [(place: String, text: String)] {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in
            var out: [(String, String)] = []
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            for table in tables {
                for column in try db.columns(in: table).map(\.name) {
                    let values = try String?.fetchAll(
                        db, sql: "SELECT CAST(\(column.quotedDatabaseIdentifier) AS TEXT) FROM \(table.quotedDatabaseIdentifier)")
                    out += values.compactMap { $0 }.map { ("\(table).\(column)", $0) }
                }
            }
            return out
        }
    }

    @Test("a run whose answers, bodies, errors and settings echo the key stores no trace of it")
    func noSecretAnywhere() async throws {
        let folder = try TemporaryDirectory()
        let store = try ResultStore(url: folder.databaseURL)
        let redactor = Redactor(secrets: [Self.key, Self.plainSecret])
        let both = "\(Self.key) and \(Self.plainSecret)"
        let settings: JSONValue = ["api_key": .string(Self.key), "note": .string("token \(Self.plainSecret)"), "repeats": 1]
        let info = F.info(settings: settings)
        let recorder = try await store.beginRun(
            info, variants: [F.short, F.plain], dataset: F.dataset(), plannedTrials: 5, redactor: redactor)

        let answer = F.answer(
            "A cat. Debug: \(both)", refusal: "Refused because of \(both)",
            rawBody: #"{"choices":[{"message":{"content":"A cat. Debug: \#(both)"}}],"echo":"Bearer \#(Self.key)"}"#)
        var answered = F.answered(F.trial(F.short, F.cat), answer)
        answered.scores.append(Score(name: "custom", value: 1, passed: false, detail: "found \(both)"))
        try await recorder.record(answered)
        let key = try #require(answered.trial.key)
        let cachedAnswer = try #require(try await recorder.cachedAnswer(forKey: key))
        try await recorder.record(F.answered(F.trial(F.plain, F.cat, maxTokens: nil), cachedAnswer, cached: true))
        try await recorder.record(
            F.failed(
                F.trial(F.short, F.dog),
                message: "HTTP 401: Incorrect API key provided: \(Self.key). Also \(Self.plainSecret).", status: 401,
                code: "invalid_api_key"))
        try await recorder.record(F.badImage(F.trial(F.short, F.broken)))
        try await store.finishRun(
            id: info.id, status: "stopped", message: "HTTP 401: Incorrect API key provided: \(both)",
            redactor: redactor)

        let dump = try Self.dump(folder.databaseURL.path)
        // The dump must hold the run, or a broken dump would pass the check below.
        #expect(dump.contains { $0.place == "response.content" && $0.text.hasPrefix("A cat. Debug: ") })
        #expect(dump.contains { $0.place == "run.status_message" && $0.text.contains(Redactor.placeholder) })
        #expect(dump.contains { $0.place == "trial.error" && $0.text.contains(Redactor.placeholder) })
        #expect(dump.contains { $0.place == "score.detail" && $0.text.contains(Redactor.placeholder) })
        for secret in [Self.key, Self.plainSecret, "SECRET-abcdef"] {
            let leaks = dump.filter { $0.text.contains(secret) }.map(\.place)
            #expect(leaks.isEmpty, "\(secret) found in \(leaks)")
        }
    }

    @Test("finishRun removes key-shaped text from the stop reason even without a redactor")
    func finishRunRedactsKeyShapes() async throws {
        let store = try ResultStore()
        _ = try await store.beginRun(F.info(), variants: [], dataset: F.dataset([]), plannedTrials: 1)
        try await store.finishRun(
            id: "20260101-000000-abcd", status: "stopped", message: "Incorrect API key provided: \(Self.key).")
        let info = try await store.loadRun(id: "20260101-000000-abcd").info
        #expect(info.statusMessage == "Incorrect API key provided: \(Redactor.placeholder).")
    }

    @Test("an answer that merely contains a hyphenated word ending in \"sk\" is stored as given")
    func keyShapeNeedsAWordBoundary() async throws {
        let store = try ResultStore()
        let recorder = try await store.beginRun(F.info(), variants: [F.plain], dataset: F.dataset(), plannedTrials: 1)
        let text = "A person at a desk-mounted monitor."
        try await recorder.record(F.answered(F.trial(F.plain, F.cat, maxTokens: nil), F.answer(text)))
        let stored = try await store.loadRun(id: "20260101-000000-abcd").trials[0].answer?.content
        // Were "sk-mounted" taken for a key, the stored answer would no longer be the answer
        // its scores were computed on, and a cached replay would show the mangled text.
        #expect(stored == text)
    }
}
