// The latency-bound load sent through `altbench proxy`'s implementation (AltBenchProxy), run
// in a child process of its own so that its CPU time can be read apart from the client's and
// the server's: `altbench-bench serve-proxy UPSTREAM` is that child. The client, the proxy and
// the test server share the machine's cores, as they would on one CI runner.
import AltBenchCore
import AltBenchProxy
import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child `altbench-bench serve-proxy UPSTREAM`: a signed proxy in front of the loopback test
/// server, with keys of its own.
final class ProxyProcess: @unchecked Sendable {
    static let mode = "serve-proxy"
    static let appKey = "bench-app-key-0123456789abcdef"
    static let upstreamKey = "bench-upstream-key-0123456789"
    static let appKeyVariable = "ALTBENCH_BENCH_PROXY_APP_KEY"
    static let upstreamKeyVariable = "ALTBENCH_BENCH_UPSTREAM_KEY"
    /// Runs the child with the proxy's own limits (not the load benchmark's unlimited rate),
    /// trusting 127.0.0.1 as a reverse proxy (`proxy-abuse`).
    static let abuseFlag = "--abuse"

    let child: BenchChild
    var process: Process { child.process }
    /// "http://127.0.0.1:PORT"
    let url: URL

    init(upstream: String, extraArguments: [String] = []) throws {
        child = try BenchChild(
            arguments: [Self.mode, upstream] + extraArguments,
            environment: [Self.appKeyVariable: Self.appKey, Self.upstreamKeyVariable: Self.upstreamKey])
        let text = child.firstLine
        let prefix = "altbench proxy listening on "
        guard text.hasPrefix(prefix), let url = URL(string: String(text.dropFirst(prefix.count))) else {
            child.stop()
            throw ProxyProcessError(message: "the proxy child did not start (it printed '\(text)')")
        }
        self.url = url
    }

    /// User + system CPU seconds the child has used, from /proc (Linux); nil elsewhere.
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    func stop() { child.stop() }
}

/// This benchmark binary started again in a serving mode (`arguments[0]`), in a process of its
/// own; it is ready once it printed its first line on stdout.
final class BenchChild: @unchecked Sendable {
    let process = Process()
    let firstLine: String

    init(arguments: [String], environment extra: [String: String] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
        let output = Pipe()
        process.standardOutput = output
        // The child's log lines cost what they cost in production; nobody reads them here.
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        firstLine = String(decoding: line, as: UTF8.self)
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

struct ProxyProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// The child's side, `serve-proxy UPSTREAM [--abuse]`: serves until it is terminated. With
/// `--abuse`, the proxy's default limits, and 127.0.0.1 trusted as a reverse proxy so each
/// client names its address in X-Forwarded-For.
struct ServeProxy: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: ProxyProcess.mode, shouldDisplay: false)
    @Argument var upstream: String
    @Flag var abuse = false

    func run() async throws {
        guard let upstreamURL = URL(string: upstream) else { throw ProxyProcessError(message: "bad upstream \(upstream)") }
        let environment = ProcessInfo.processInfo.environment
        var configuration = ProxyConfiguration(
            upstream: upstreamURL, upstreamKey: Secret(environment[ProxyProcess.upstreamKeyVariable] ?? ""),
            appKey: Secret(environment[ProxyProcess.appKeyVariable] ?? ""))
        configuration.port = 0
        if abuse {
            configuration.trustedForwarders = [IPRange("127.0.0.1")!]
        } else {
            // The load benchmark measures the proxy's cost, not its rate limit.
            configuration.requestsPerMinute = 10_000_000
        }
        let proxy = try await SignedProxy.start(configuration)
        FileHandle.standardOutput.write(Data("altbench proxy listening on \(proxy.baseURL)\n".utf8))
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
