import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn(3), for the end-to-end tests.
///
/// Not Foundation's `Process`: on Linux, `Process.run()` lists /proc/self/fd to learn which
/// descriptors to close, and with more than about 1,350 of them open it writes past the end of
/// that listing's buffer, which corrupts the heap or crashes the test process (SIGSEGV in memcpy
/// under `findMaximumOpenFromProcSelfFD`). A parallel `swift test` holds up to 1,900 at once,
/// mostly loopback sockets of the tests' servers. posix_spawn lists nothing: glibc's
/// `posix_spawn_file_actions_addclosefrom_np` closes every descriptor above stderr in the child.
///
/// The child starts with no signal blocked and every signal at its default, as from a shell,
/// so SIGINT and SIGTERM reach it as they would reach a user's altbench.
final class ChildProcess: @unchecked Sendable {
    /// How a child ended.
    enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status; for a signal, 128 + its number, as a shell reports it.
        var status: Int32 {
            switch self {
            case .exited(let status): status
            case .signalled(let signal): 128 + signal
            }
        }
    }

    let pid: pid_t
    // `termination` and `waiters` change under `lock` only.
    private let lock = NSLock()
    private var termination: Termination?
    private var waiters: [CheckedContinuation<Termination, Never>] = []

    /// Starts `executable` with `arguments` in `directory`. Standard input is /dev/null; standard
    /// output and error go to the files given (created or truncated), or to /dev/null. One file
    /// for both gets both, in order.
    init(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: URL? = nil,
        stdout: URL? = nil, stderr: URL? = nil
    ) throws {
        guard let addCloseFrom = Spawn.addCloseFrom, let addChdir = Spawn.addChdir else {
            throw ChildProcessError("posix_spawn needs glibc 2.34 or later (posix_spawn_file_actions_addclosefrom_np)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let write = O_WRONLY | O_CREAT | O_TRUNC
        var failed = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if failed == 0 { failed = posix_spawn_file_actions_addopen(&actions, 1, stdout?.path ?? "/dev/null", write, 0o644) }
        if failed == 0 {
            failed =
                stderr != nil && stderr == stdout
                ? posix_spawn_file_actions_adddup2(&actions, 1, 2)
                : posix_spawn_file_actions_addopen(&actions, 2, stderr?.path ?? "/dev/null", write, 0o644)
        }
        if failed == 0, let directory { failed = addChdir(&actions, directory.path) }
        if failed == 0 { failed = addCloseFrom(&actions, 3) }
        guard failed == 0 else { throw ChildProcessError("could not prepare \(executable): \(String(cString: strerror(failed)))") }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var child: pid_t = 0
        let started = posix_spawn(&child, executable, &actions, &attributes, argv + [nil], envp + [nil])
        guard started == 0 else { throw ChildProcessError("could not start \(executable): \(String(cString: strerror(started)))") }
        pid = child
        // One thread per child waits for it to end, so an await needs no polling.
        Thread.detachNewThread { [self] in reap() }
    }

    /// Runs `executable` to its end and returns how it ended.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], directory: URL? = nil,
        stdout: URL? = nil, stderr: URL? = nil
    ) async throws -> Termination {
        try await ChildProcess(executable, arguments, environment: environment, directory: directory, stdout: stdout, stderr: stderr)
            .wait()
    }

    /// Whether the child has not yet ended.
    var isRunning: Bool { lock.withLock { termination == nil } }

    /// How the child ended; nil while it runs.
    var ended: Termination? { lock.withLock { termination } }

    /// Sends `signal` to the child unless it has ended (its PID may then be another's).
    func send(_ signal: Int32) {
        lock.withLock {
            if termination == nil { kill(pid, signal) }
        }
    }

    /// Waits for the child to end.
    func wait() async -> Termination {
        await withCheckedContinuation { continuation in
            let ended: Termination? = lock.withLock {
                if let termination { return termination }
                waiters.append(continuation)
                return nil
            }
            if let ended { continuation.resume(returning: ended) }
        }
    }

    private func reap() {
        // Wait without reaping, so the PID stays this child's (a zombie) until `termination` is
        // set under the lock: `send` never signals a PID the system has handed to another.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        let waiting: [CheckedContinuation<Termination, Never>]
        let ended: Termination
        lock.lock()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // The wait(2) status: the low 7 bits are the signal that ended the child, or 0 for an
        // exit, whose status is the next byte.
        let signal = status & 0x7f
        ended = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        termination = ended
        waiting = waiters
        waiters = []
        lock.unlock()
        for waiter in waiting { waiter.resume(returning: ended) }
    }
}

struct ChildProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// glibc's spawn file actions for a working folder and for closing inherited descriptors: in
/// glibc since 2.29 and 2.34, but not in Swift's Glibc module, so looked up by name.
private enum Spawn {
    typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    // RTLD_DEFAULT is the null handle on glibc.
    static let addCloseFrom = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: AddCloseFrom.self) }
    static let addChdir = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: AddChdir.self) }
}
