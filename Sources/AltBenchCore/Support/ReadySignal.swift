/// Delivers a server's bound port, or its startup failure, to whoever waits for it: the
/// loopback test server and the signed proxy both return from `start` once listening.
package actor ReadySignal {
    private var result: Result<Int, any Error>?
    private var waiters: [CheckedContinuation<Int, any Error>] = []

    package init() {}

    package func succeed(port: Int) { finish(.success(port)) }

    package func fail(_ error: any Error) { finish(.failure(error)) }

    /// The port, once the server listens; throws the failure if it could not.
    package func wait() async throws -> Int {
        if let result { return try result.get() }
        return try await withCheckedThrowingContinuation { waiters.append($0) }
    }

    private func finish(_ outcome: Result<Int, any Error>) {
        guard result == nil else { return }
        result = outcome
        for waiter in waiters { waiter.resume(with: outcome) }
        waiters.removeAll()
    }
}
