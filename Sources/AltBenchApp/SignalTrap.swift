import AltBenchCore
import Dispatch
import Foundation

/// Turns SIGINT (Ctrl-C) and SIGTERM into a graceful stop of a run: the first one stops new
/// requests and gives those in flight a few seconds; a second one cancels them at once.
/// Either way the partial report is written and marked incomplete.
package final class SignalTrap: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private let lock = NSLock()
    private var received = 0

    /// Installs the handlers for the lifetime of the trap (until `release`).
    package init(control: RunControl, console: Console, gracePeriod: Duration) {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let count = self.lock.withLock {
                    self.received += 1
                    return self.received
                }
                if count == 1 {
                    console.err(
                        "\naltbench: \(name): no new requests; waiting up to \(DurationText.format(gracePeriod)) for those in flight, then writing the report. \(name == "SIGINT" ? "Press Ctrl-C again" : "Send it again") to stop at once.\n")
                    control.stop(.interrupted(signal: name))
                } else {
                    control.abort(.interrupted(signal: name))
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Removes the handlers and restores the default actions.
    package func release() {
        for source in sources { source.cancel() }
        sources.removeAll()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

extension SignalTrap {
    /// How long a first SIGINT or SIGTERM lets the requests in flight finish.
    package static let gracePeriod = Duration.seconds(5)

    /// Runs `body` with SIGINT and SIGTERM trapped into a fresh `RunControl` (the grace period
    /// is the second argument), and the default actions back afterwards.
    package static func trapping<T>(_ body: (RunControl, Duration) async throws -> T) async rethrows -> T {
        let control = RunControl()
        let trap = SignalTrap(control: control, console: .standard, gracePeriod: gracePeriod)
        defer { trap.release() }
        return try await body(control, gracePeriod)
    }
}
