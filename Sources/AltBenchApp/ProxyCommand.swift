import AltBenchCore
import AltBenchProxy
import Foundation

/// `altbench proxy`: the reference signed proxy started from the command line's flags. Checks
/// every flag (``validate()``), reads the two keys from the environment, never from flags, and
/// serves until SIGINT or SIGTERM (``run(environment:)``).
package struct ProxyCommand: Sendable {
    /// A flag value the proxy cannot use; the command line shows it as a usage error (exit 64).
    package struct FlagProblem: Error, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    /// Why the proxy did not start: a key variable unset, the port taken, the log unwritable.
    package struct StartFailure: UserFacingError {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    package var upstream: String
    package var host = "127.0.0.1"
    package var port = 8787
    package var tokenTTL = "15m"
    package var rpm: Double = 600
    package var authRPM: Double = 30
    package var allowModel: [String] = []
    package var maxTokensCap: Int?
    package var forwardHeader: [String] = []
    package var maxBody = "32MB"
    package var maxConnections = 256
    package var maxClientConnections = 1024
    package var headerTimeout = "10s"
    package var bodyTimeout = "60s"
    package var idleTimeout = "75s"
    package var replayCapacity = 1_000_000
    package var maxSessionsPerClient = 50
    package var trustForwardedFor: [String] = []
    package var publicURL: String?
    package var generatedImageBytes = "256MB"
    package var log: String?
    package var upstreamKeyEnv = "OPENAI_API_KEY"
    package var appKeyEnv = "ALTBENCH_PROXY_APP_KEY"

    package init(upstream: String) {
        self.upstream = upstream
    }

    /// Checks every flag's value; a `FlagProblem` names the flag and what it takes.
    package func validate() throws {
        if let problem = ProxyConfiguration.upstreamProblem(try parsedUpstream()) {
            throw FlagProblem("--upstream: \(problem)")
        }
        if host.trimmingCharacters(in: .whitespaces).isEmpty {
            throw FlagProblem("--host needs an address, e.g. --host 127.0.0.1.")
        }
        if !(0...65535).contains(port) {
            throw FlagProblem("--port must be between 0 and 65535 (got \(port)).")
        }
        _ = try parsedTokenTTL()
        for (name, value) in [("--rpm", rpm), ("--auth-rpm", authRPM)] where !(value > 0 && value.isFinite) {
            throw FlagProblem("\(name) takes a positive number per minute (got \(value)).")
        }
        if !(1...10_000).contains(maxConnections) {
            throw FlagProblem("--max-connections must be between 1 and 10000 (got \(maxConnections)).")
        }
        if allowModel.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw FlagProblem("--allow-model needs a model name, e.g. --allow-model gpt-4o-mini.")
        }
        _ = try parsedMaxBody()
        if let maxTokensCap, maxTokensCap < 1 {
            throw FlagProblem("--max-tokens-cap takes a whole number of tokens of at least 1 (got \(maxTokensCap)).")
        }
        let signing = Set(
            [SignedProxyConventions.default.sessionHeader, SignedProxyConventions.default.timestampHeader, SignedProxyConventions.default.signatureHeader]
                .map { $0.lowercased() })
        for name in forwardHeader {
            if let problem = ProxyConfiguration.forwardedHeaderProblem(name, signing: signing) {
                throw FlagProblem("--forward-header: \(problem)")
            }
        }
        for (name, value, range) in [
            ("--max-client-connections", maxClientConnections, 1...1_000_000), ("--replay-capacity", replayCapacity, 1...1_000_000_000),
            ("--max-sessions-per-client", maxSessionsPerClient, 1...1_000_000),
        ] where !range.contains(value) {
            throw FlagProblem("\(name) must be between \(range.lowerBound) and \(range.upperBound) (got \(value)).")
        }
        _ = try parsedTimeouts()
        _ = try parsedTrustedRanges()
        _ = try parsedPublicURL()
        _ = try parsedGeneratedImageBytes()
        for (name, value) in [("--upstream-key-env", upstreamKeyEnv), ("--app-key-env", appKeyEnv)] where !Self.isVariableName(value) {
            throw FlagProblem("\(name) takes an environment variable name such as OPENAI_API_KEY (got '\(value)').")
        }
        if upstreamKeyEnv == appKeyEnv {
            throw FlagProblem("--upstream-key-env and --app-key-env must name two variables: the app key is given to clients, the upstream key never is.")
        }
    }

    package func parsedUpstream() throws -> URL {
        guard let url = URL(string: upstream) else {
            throw FlagProblem("--upstream takes a URL such as https://api.openai.com/v1 (got '\(upstream)').")
        }
        return url
    }

    /// Whole seconds, at least one.
    package func parsedTokenTTL() throws -> Duration {
        guard let duration = DurationText.parse(tokenTTL), duration >= .seconds(1) else {
            throw FlagProblem("--token-ttl takes a duration of at least 1 s, such as 15m or 1h (got '\(tokenTTL)').")
        }
        return .seconds(duration.components.seconds)
    }

    package func parsedMaxBody() throws -> Int {
        guard let bytes = Self.byteCount(maxBody), bytes > 0 else {
            throw FlagProblem("--max-body takes a size such as 32MB, 512KB or a number of bytes (got '\(maxBody)').")
        }
        return bytes
    }

    /// The header, body and idle timeouts, each at least a second.
    package func parsedTimeouts() throws -> (header: Duration, body: Duration, idle: Duration) {
        func parse(_ text: String, _ flag: String) throws -> Duration {
            guard let duration = DurationText.parse(text), duration >= .seconds(1) else {
                throw FlagProblem("\(flag) takes a duration of at least 1 s, such as 10s or 2m (got '\(text)').")
            }
            return duration
        }
        return (
            try parse(headerTimeout, "--header-timeout"), try parse(bodyTimeout, "--body-timeout"),
            try parse(idleTimeout, "--idle-timeout")
        )
    }

    package func parsedTrustedRanges() throws -> [IPRange] {
        try trustForwardedFor.map { text in
            guard let range = IPRange(text) else {
                throw FlagProblem(
                    "--trust-forwarded-for takes an address or a CIDR range, such as 10.0.0.0/8, 127.0.0.1 or fd00::/8 (got '\(text)').")
            }
            return range
        }
    }

    /// The `--public-url`, checked, or nil when not given.
    package func parsedPublicURL() throws -> URL? {
        guard let publicURL else { return nil }
        guard let url = URL(string: publicURL) else {
            throw FlagProblem("--public-url takes a URL such as https://proxy.example.com (got '\(publicURL)').")
        }
        if let problem = ProxyConfiguration.publicURLProblem(url) {
            throw FlagProblem("--public-url: \(problem)")
        }
        return url
    }

    package func parsedGeneratedImageBytes() throws -> Int {
        guard let bytes = Self.byteCount(generatedImageBytes), bytes > 0 else {
            throw FlagProblem(
                "--generated-image-bytes takes a size such as 256MB, 512KB or a number of bytes (got '\(generatedImageBytes)').")
        }
        return bytes
    }

    /// "32MB", "512KB", "1GB" (binary units, any case) or a number of bytes; nil otherwise.
    static func byteCount(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).uppercased()
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let value = Int(digits) else { return nil }
        let multiplier: Int
        switch trimmed.dropFirst(digits.count) {
        case "", "B": multiplier = 1
        case "KB", "K": multiplier = 1024
        case "MB", "M": multiplier = 1024 * 1024
        case "GB", "G": multiplier = 1024 * 1024 * 1024
        default: return nil
        }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : bytes
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !CharacterSet.decimalDigits.contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// Starts the proxy with the keys from `environment` and serves until SIGINT or SIGTERM.
    package func run(environment: [String: String] = ProcessInfo.processInfo.environment) async throws {
        let variables = [
            (upstreamKeyEnv, "the upstream API key", "--upstream-key-env"),
            (appKeyEnv, "the app key that clients sign token requests with", "--app-key-env"),
        ]
        let missing = variables.filter { environment[$0.0, default: ""].isEmpty }
        if !missing.isEmpty {
            throw StartFailure(
                missing.map { variable, what, flag in
                    "\(variable) is not set; the proxy reads \(what) from it. Set it (export \(variable)=...) or name another variable with \(flag)."
                }.joined(separator: "\nerror: "))
        }
        let upstreamKey = Secret(environment[upstreamKeyEnv, default: ""])
        let appKey = Secret(environment[appKeyEnv, default: ""])

        var configuration = ProxyConfiguration(upstream: try parsedUpstream(), upstreamKey: upstreamKey, appKey: appKey)
        configuration.host = host
        configuration.port = port
        configuration.tokenTTL = try parsedTokenTTL()
        configuration.requestsPerMinute = rpm
        configuration.authRequestsPerMinute = authRPM
        configuration.allowedModels = allowModel
        configuration.maxTokensCap = maxTokensCap
        configuration.forwardedHeaders = forwardHeader
        configuration.maxBodyBytes = try parsedMaxBody()
        let timeouts = try parsedTimeouts()
        configuration.headerTimeout = timeouts.header
        configuration.bodyTimeout = timeouts.body
        configuration.idleTimeout = timeouts.idle
        configuration.maxClientConnections = maxClientConnections
        configuration.replayCapacity = replayCapacity
        configuration.maxSessionsPerClient = maxSessionsPerClient
        configuration.trustedForwarders = try parsedTrustedRanges()
        configuration.maxUpstreamConnections = maxConnections
        configuration.publicURL = try parsedPublicURL()
        configuration.generatedImageBytes = try parsedGeneratedImageBytes()
        if let log {
            configuration.log = try Self.appendingLog(path: log)
        }

        let proxy: SignedProxy
        do {
            proxy = try await SignedProxy.start(configuration, stopsOnSignals: true)
        } catch {
            throw StartFailure("cannot start the proxy on \(host):\(port): \(error)")
        }
        FileHandle.standardOutput.write(Data("altbench proxy listening on \(proxy.baseURL)\n".utf8))
        if allowModel.isEmpty {
            FileHandle.standardError.write(
                Data(
                    "warning: no --allow-model: clients may ask for any model, at its price; name the models your app uses, e.g. --allow-model gpt-4o-mini.\n"
                        .utf8))
        }
        if !Self.isLoopback(host) {
            FileHandle.standardError.write(
                Data("note: the proxy speaks plain HTTP; on \(host) put it behind TLS (a reverse proxy) before clients use it.\n".utf8))
        }
        await proxy.waitUntilStopped()
    }

    /// A log that appends each line to `path` (created if missing) in one write; opened in
    /// append mode, so lines from another writer of the file are not overwritten.
    static func appendingLog(path: String) throws -> @Sendable (String) -> Void {
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StartFailure("cannot open the log file \(path): \(String(cString: strerror(errno))).")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        return { line in handle.write(Data((line + "\n").utf8)) }
    }
}
