import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

/// The most requests the server was handling at once.
private actor InFlightGauge {
    private var current = 0
    private(set) var highest = 0

    func enter() {
        current += 1
        highest = max(highest, current)
    }

    func leave() { current -= 1 }
}

@Suite("HTTP connection pool")
struct ConnectionPoolTests {
    /// AsyncHTTPClient opens at most 8 connections per host by default; a run at
    /// `--concurrency 16` must really have 16 requests at the server.
    @Test func theClientOpensAsManyConnectionsAsTheRunAllows() async throws {
        let gauge = InFlightGauge()
        let compatible = OpenAITestServer.compatible(apiKey: testKey)
        let server = try await OpenAITestServer.start { request in
            await gauge.enter()
            try? await Task.sleep(for: .milliseconds(300))
            await gauge.leave()
            return await compatible(request)
        }
        let client = OpenAIVisionModel.makeHTTPClient(maxConnections: 16)
        let model = OpenAIVisionModel(
            baseURL: URL(string: server.baseURL)!, apiKey: Secret(testKey), timeout: .seconds(20), httpClient: client)
        let sink = CollectingSink()
        let outcome = try await Runner(model: model, sink: sink, concurrency: 16).run(iceCubesTrials(33))
        try await client.shutdown()
        await server.stop()
        #expect(outcome.progress.done == 33)
        #expect(outcome.progress.failed == 0)
        #expect(await gauge.highest == 16)
    }
}
