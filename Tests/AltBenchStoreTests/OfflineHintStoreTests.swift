import AltBenchCore
import Foundation
import Testing

@testable import AltBenchStore

/// What `--offline` asks the store when a trial has no stored answer: the prompt an earlier
/// run asked under the same variant, and the proxy an endpoint was reached through.
@Suite("Offline hints from the store")
struct OfflineHintStoreTests {
    typealias F = StoreFixtures

    @Test func theNewestOtherRunWithAnswersGivesTheStoredPrompt() async throws {
        let store = try ResultStore()
        let older = try await store.beginRun(F.info(id: "run-a"), variants: [F.short], dataset: F.dataset([F.cat]), plannedTrials: 1)
        try await older.record(F.answered(F.trial(F.short, F.cat), F.answer("A cat.")))
        var edited = F.short
        edited.text = "Describe the image in two sentences."
        let newer = try await store.beginRun(
            F.info(id: "run-b", startedAt: F.start.addingTimeInterval(60)), variants: [edited], dataset: F.dataset([F.cat]),
            plannedTrials: 1)
        try await newer.record(F.failed(F.trial(edited, F.cat), message: "no stored answer", kind: .notStored, status: nil))

        let stored = try await store.storedPrompt(variant: "short", endpoint: F.endpoint, excludingRun: "run-b")
        #expect(stored == StoredPrompt(runID: "run-a", prompt: F.short.text, system: F.short.system))
        // A run without answers, another endpoint or another name gives nothing.
        #expect(try await store.storedPrompt(variant: "short", endpoint: F.endpoint, excludingRun: "run-a") == nil)
        #expect(try await store.storedPrompt(variant: "short", endpoint: "http://127.0.0.1:1/v1/chat/completions", excludingRun: "run-b") == nil)
        #expect(try await store.storedPrompt(variant: "plain", endpoint: F.endpoint, excludingRun: "run-b") == nil)
    }

    @Test func aProxyRunNamesItsProxyURL() async throws {
        let store = try ResultStore()
        let endpoint = "http://127.0.0.1:8787/v1/chat/completions"
        _ = try await store.beginRun(
            F.info(id: "run-p", provider: .proxy, endpoint: endpoint, settings: ["proxy": "http://127.0.0.1:8787"]),
            variants: [F.short], dataset: F.dataset([F.cat]), plannedTrials: 1)
        _ = try await store.beginRun(F.info(id: "run-o"), variants: [F.short], dataset: F.dataset([F.cat]), plannedTrials: 1)
        #expect(try await store.proxyURL(forEndpoint: endpoint) == "http://127.0.0.1:8787")
        #expect(try await store.proxyURL(forEndpoint: F.endpoint) == nil)
    }
}
