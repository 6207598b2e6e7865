import AltBenchCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command's output goes: stdout for results, stderr for progress and remarks.
package struct Console: Sendable {
    package var out: @Sendable (String) -> Void
    package var err: @Sendable (String) -> Void
    /// Whether stderr is a terminal; progress lines are drawn only then.
    package var interactive: Bool

    package init(out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void, interactive: Bool) {
        self.out = out
        self.err = err
        self.interactive = interactive
    }

    /// The process's own stdout and stderr.
    package static var standard: Console {
        Console(
            out: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
            err: { text in FileHandle.standardError.write(Data(text.utf8)) },
            interactive: isatty(STDERR_FILENO) == 1)
    }
}

/// Draws one self-overwriting progress line on a terminal; silent otherwise.
final class ProgressLine: @unchecked Sendable {
    private let console: Console
    private let lock = NSLock()
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var drawn = false

    init(console: Console) { self.console = console }

    func update(_ progress: RunProgress) {
        guard console.interactive else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = ContinuousClock.now
        // Redraw at most 10 times a second, but always show the last trial.
        guard progress.done == progress.total || now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = now
        drawn = true
        let seconds = progress.elapsed.secondsValue
        console.err(
            "\r\u{1B}[K[\(progress.done)/\(progress.total)] \(progress.failed) errors, \(progress.cached) from cache, \(progress.retries) retries, \(String(format: "%.1f", seconds)) s")
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { console.err("\n") }
        drawn = false
    }
}
