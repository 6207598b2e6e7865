import AltBenchCore
import AltBenchHTTP
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchOpenAI

/// The most requests the server was handling at once.
private actor InFlightGauge {
    private var current = 0
    private(set) var highest = 0
    private var entered = 0

    /// Counts a request in; true for the very first one.
    func enter() -> Bool {
        current += 1
        entered += 1
        highest = max(highest, current)
        return entered == 1
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
            let first = await gauge.enter()
            // Hold each answer until 16 requests have been in flight together (or 30 s have
            // passed), so that a machine slow to send them still shows the peak, and a client
            // that opens only 8 connections still shows 8. The runner sends its first request
            // alone, so that one is answered at once.
            let deadline = ContinuousClock.now + .seconds(30)
            while !first, await gauge.highest < 16, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            await gauge.leave()
            return await compatible(request)
        }
        let client = HTTPClients.make(maxConnections: 16)
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
