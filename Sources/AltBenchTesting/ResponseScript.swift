/// Serves queued responses in order, one per request, then hands every later request to a
/// fallback handler (by default the strict compatible handler).
///
/// ```swift
/// let script = ResponseScript([
///     .error(status: 429, message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded",
///            headers: [("retry-after-ms", "10")]),
///     .html(status: 500),
/// ])
/// let server = try await OpenAITestServer.start(handler: script.handler)
/// ```
package actor ResponseScript {
    private var queue: [ScriptedResponse]
    private let fallback: @Sendable (RecordedRequest) async -> ScriptedResponse

    package init(
        _ responses: [ScriptedResponse] = [],
        then fallback: @escaping @Sendable (RecordedRequest) async -> ScriptedResponse = OpenAITestServer.compatible()
    ) {
        self.queue = responses
        self.fallback = fallback
    }

    /// Appends responses to the end of the queue.
    package func enqueue(_ responses: ScriptedResponse...) {
        queue += responses
    }

    /// Appends responses to the end of the queue.
    package func enqueue(contentsOf responses: [ScriptedResponse]) {
        queue += responses
    }

    /// Queued responses not served yet.
    package var remaining: Int { queue.count }

    /// The next queued response, or the fallback's answer once the queue is empty.
    package func respond(to request: RecordedRequest) async -> ScriptedResponse {
        if !queue.isEmpty {
            return queue.removeFirst()
        }
        return await fallback(request)
    }

    /// This script as a server handler.
    package nonisolated var handler: @Sendable (RecordedRequest) async -> ScriptedResponse {
        { request in await self.respond(to: request) }
    }
}
