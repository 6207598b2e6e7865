import AltBenchCore
import AltBenchProxy
import ArgumentParser
import Foundation

extension AltBench {
    struct Proxy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "proxy",
            abstract: "Run the reference signed proxy: the API key stays on this machine, clients sign requests.",
            discussion: """
                Clients get a short-lived session token from POST /auth_token (a request signed with the \
                team's app key), sign every request with it (HMAC-SHA256 over method, path and query, \
                timestamp and body hash), and the proxy checks the signature, the timestamp (within 300 s), \
                replays, rate and size, then forwards POST /v1/chat/completions to {upstream}/chat/completions \
                and POST /v1/images/generations to {upstream}/images/generations with the real key. POST \
                /dalle (ShipThatApp's image route, signed the same way) is forwarded to \
                {upstream}/images/generations and answered {"url": "..."}: the upstream's image URL, or, \
                when the upstream sends the image itself, a URL under GET /generated/ where the proxy \
                serves it without a signature for 60 minutes (--public-url starts those URLs when clients \
                reach the proxy through TLS). GET /healthz answers {"status":"ok"} without a signature. \
                Any other method or path spelling is refused (403).

                Under load from clients holding the app key: a request is charged to its session's rate \
                before its signature is remembered, and each session (and each address's token requests) \
                holds only its share of the replay memory (--replay-capacity); /auth_token bodies over 1 KiB \
                are refused before they are read; slow clients are cut off (--header-timeout, --body-timeout, \
                --idle-timeout) and connections capped (--max-client-connections); sessions are capped per \
                client address (--max-sessions-per-client), read from X-Forwarded-For only behind a reverse \
                proxy in a --trust-forwarded-for range. Only Content-Type, Accept and User-Agent are forwarded \
                upstream (--forward-header adds one): a client cannot pick the organisation or project the \
                key bills. Without --allow-model the proxy warns at start; --max-tokens-cap bounds what a chat \
                request may ask for.

                The keys come from the environment, never from flags (which other users can read in the \
                process list): the upstream API key from OPENAI_API_KEY and the app key from \
                ALTBENCH_PROXY_APP_KEY, or the variables --upstream-key-env and --app-key-env name. Clients \
                hold the app key; only the proxy holds the upstream key.

                Prints "altbench proxy listening on http://HOST:PORT" first, then one JSON line per request \
                on stderr (or --log FILE). The proxy speaks plain HTTP: anywhere but loopback, put it behind \
                TLS. SIGINT or SIGTERM stops it after the requests in flight. Exit status: 0 after a stop, 1 \
                when it cannot start (a key variable unset, the port taken, the log file unwritable), 64 for \
                a bad flag or flag value.
                """)

        @Option(name: .long, help: ArgumentHelp("Upstream API base, e.g. https://api.openai.com/v1.", valueName: "url"))
        var upstream: String

        @Option(name: .long, help: ArgumentHelp("Address to listen on.", valueName: "address"))
        var host = "127.0.0.1"

        @Option(name: .long, help: ArgumentHelp("Port to listen on; 0 picks a free one.", valueName: "n"))
        var port = 8787

        @Option(name: .customLong("token-ttl"), help: ArgumentHelp("How long a session token signs requests (e.g. 15m, 1h).", valueName: "duration"))
        var tokenTTL = "15m"

        @Option(name: .long, help: ArgumentHelp("Requests per minute per session (bursts of a tenth of it).", valueName: "n"))
        var rpm: Double = 600

        @Option(name: .customLong("auth-rpm"), help: ArgumentHelp("Token requests per minute per client address (bursts of 10).", valueName: "n"))
        var authRPM: Double = 30

        @Option(
            name: .customLong("allow-model"),
            help: ArgumentHelp("A model chat, images and /dalle requests may name; repeat for more. Default: any model.", valueName: "model"))
        var allowModel: [String] = []

        @Option(
            name: .customLong("max-tokens-cap"),
            help: ArgumentHelp(
                "Refuse (403) chat requests that may use more than N tokens (max_tokens or max_completion_tokens, times n) or that name no limit. Default: no cap.",
                valueName: "n"))
        var maxTokensCap: Int?

        @Option(
            name: .customLong("forward-header"),
            help: ArgumentHelp(
                "A client header to forward upstream besides Content-Type, Accept and User-Agent (e.g. OpenAI-Beta); repeat for more. Never a credential or signing header.",
                valueName: "name"))
        var forwardHeader: [String] = []

        @Option(name: .customLong("max-body"), help: ArgumentHelp("Largest request body: 32MB, 512KB or bytes.", valueName: "size"))
        var maxBody = "32MB"

        @Option(
            name: .customLong("max-connections"),
            help: ArgumentHelp("Connections to the upstream at most, so requests in flight at most.", valueName: "n"))
        var maxConnections = 256

        @Option(
            name: .customLong("max-client-connections"),
            help: ArgumentHelp("Client connections open at once at most; more wait in the listen backlog.", valueName: "n"))
        var maxClientConnections = 1024

        @Option(
            name: .customLong("header-timeout"),
            help: ArgumentHelp("Time a client has to send a request's head (from connecting, or its first byte after idling).", valueName: "duration"))
        var headerTimeout = "10s"

        @Option(
            name: .customLong("body-timeout"),
            help: ArgumentHelp("Time a client has to send a request's body, once the proxy reads it.", valueName: "duration"))
        var bodyTimeout = "60s"

        @Option(
            name: .customLong("idle-timeout"),
            help: ArgumentHelp("Time a keep-alive connection may sit idle between requests.", valueName: "duration"))
        var idleTimeout = "75s"

        @Option(
            name: .customLong("replay-capacity"),
            help: ArgumentHelp(
                "Signatures remembered at most (about 70 bytes each); one session holds at most what its rate allows in 600 s, and at most 1% of them.",
                valueName: "n"))
        var replayCapacity = 1_000_000

        @Option(
            name: .customLong("max-sessions-per-client"),
            help: ArgumentHelp("Live sessions one client address may hold.", valueName: "n"))
        var maxSessionsPerClient = 50

        @Option(
            name: .customLong("trust-forwarded-for"),
            help: ArgumentHelp(
                "A reverse proxy's address range (CIDR, e.g. 10.0.0.0/8 or 127.0.0.1): requests from it are charged to the client X-Forwarded-For names (the rightmost address outside the trusted ranges). Repeat for more. Default: X-Forwarded-For is ignored.",
                valueName: "cidr"))
        var trustForwardedFor: [String] = []

        @Option(
            name: .customLong("public-url"),
            help: ArgumentHelp(
                "The proxy's address as clients reach it (e.g. https://proxy.example.com), for the image URLs of /dalle answers. Default: http://HOST:PORT.",
                valueName: "url"))
        var publicURL: String?

        @Option(
            name: .customLong("generated-image-bytes"),
            help: ArgumentHelp("Most bytes of /dalle images kept to serve (oldest evicted): 256MB, 512KB or bytes.", valueName: "size"))
        var generatedImageBytes = "256MB"

        @Option(name: .long, help: ArgumentHelp("Append the request log to this file instead of stderr.", valueName: "file"))
        var log: String?

        @Option(name: .customLong("upstream-key-env"), help: ArgumentHelp("Variable holding the upstream API key.", valueName: "name"))
        var upstreamKeyEnv = "OPENAI_API_KEY"

        @Option(name: .customLong("app-key-env"), help: ArgumentHelp("Variable holding the app key clients sign token requests with.", valueName: "name"))
        var appKeyEnv = "ALTBENCH_PROXY_APP_KEY"

        func validate() throws {
            if let problem = ProxyConfiguration.upstreamProblem(try parsedUpstream()) {
                throw ValidationError("--upstream: \(problem)")
            }
            if host.trimmingCharacters(in: .whitespaces).isEmpty {
                throw ValidationError("--host needs an address, e.g. --host 127.0.0.1.")
            }
            if !(0...65535).contains(port) {
                throw ValidationError("--port must be between 0 and 65535 (got \(port)).")
            }
            _ = try parsedTokenTTL()
            for (name, value) in [("--rpm", rpm), ("--auth-rpm", authRPM)] where !(value > 0 && value.isFinite) {
                throw ValidationError("\(name) takes a positive number per minute (got \(value)).")
            }
            if !(1...10_000).contains(maxConnections) {
                throw ValidationError("--max-connections must be between 1 and 10000 (got \(maxConnections)).")
            }
            if allowModel.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                throw ValidationError("--allow-model needs a model name, e.g. --allow-model gpt-4o-mini.")
            }
            _ = try parsedMaxBody()
            if let maxTokensCap, maxTokensCap < 1 {
                throw ValidationError("--max-tokens-cap takes a whole number of tokens of at least 1 (got \(maxTokensCap)).")
            }
            let signing = Set(
                [SignedProxyProtocol.default.sessionHeader, SignedProxyProtocol.default.timestampHeader, SignedProxyProtocol.default.signatureHeader]
                    .map { $0.lowercased() })
            for name in forwardHeader {
                if let problem = ProxyConfiguration.forwardedHeaderProblem(name, signing: signing) {
                    throw ValidationError("--forward-header: \(problem)")
                }
            }
            for (name, value, range) in [
                ("--max-client-connections", maxClientConnections, 1...1_000_000), ("--replay-capacity", replayCapacity, 1...1_000_000_000),
                ("--max-sessions-per-client", maxSessionsPerClient, 1...1_000_000),
            ] where !range.contains(value) {
                throw ValidationError("\(name) must be between \(range.lowerBound) and \(range.upperBound) (got \(value)).")
            }
            _ = try parsedTimeouts()
            _ = try parsedTrustedRanges()
            _ = try parsedPublicURL()
            _ = try parsedGeneratedImageBytes()
            for (name, value) in [("--upstream-key-env", upstreamKeyEnv), ("--app-key-env", appKeyEnv)] where !Self.isVariableName(value) {
                throw ValidationError("\(name) takes an environment variable name such as OPENAI_API_KEY (got '\(value)').")
            }
            if upstreamKeyEnv == appKeyEnv {
                throw ValidationError("--upstream-key-env and --app-key-env must name two variables: the app key is given to clients, the upstream key never is.")
            }
        }

        func parsedUpstream() throws -> URL {
            guard let url = URL(string: upstream) else {
                throw ValidationError("--upstream takes a URL such as https://api.openai.com/v1 (got '\(upstream)').")
            }
            return url
        }

        /// Whole seconds, at least one.
        func parsedTokenTTL() throws -> Duration {
            guard let duration = DurationText.parse(tokenTTL), duration >= .seconds(1) else {
                throw ValidationError("--token-ttl takes a duration of at least 1 s, such as 15m or 1h (got '\(tokenTTL)').")
            }
            return .seconds(duration.components.seconds)
        }

        func parsedMaxBody() throws -> Int {
            guard let bytes = Self.byteCount(maxBody), bytes > 0 else {
                throw ValidationError("--max-body takes a size such as 32MB, 512KB or a number of bytes (got '\(maxBody)').")
            }
            return bytes
        }

        /// The header, body and idle timeouts, each at least a second.
        func parsedTimeouts() throws -> (header: Duration, body: Duration, idle: Duration) {
            func parse(_ text: String, _ flag: String) throws -> Duration {
                guard let duration = DurationText.parse(text), duration >= .seconds(1) else {
                    throw ValidationError("\(flag) takes a duration of at least 1 s, such as 10s or 2m (got '\(text)').")
                }
                return duration
            }
            return (
                try parse(headerTimeout, "--header-timeout"), try parse(bodyTimeout, "--body-timeout"),
                try parse(idleTimeout, "--idle-timeout")
            )
        }

        func parsedTrustedRanges() throws -> [IPRange] {
            try trustForwardedFor.map { text in
                guard let range = IPRange(text) else {
                    throw ValidationError(
                        "--trust-forwarded-for takes an address or a CIDR range, such as 10.0.0.0/8, 127.0.0.1 or fd00::/8 (got '\(text)').")
                }
                return range
            }
        }

        /// The `--public-url`, checked, or nil when not given.
        func parsedPublicURL() throws -> URL? {
            guard let publicURL else { return nil }
            guard let url = URL(string: publicURL) else {
                throw ValidationError("--public-url takes a URL such as https://proxy.example.com (got '\(publicURL)').")
            }
            if let problem = ProxyConfiguration.publicURLProblem(url) {
                throw ValidationError("--public-url: \(problem)")
            }
            return url
        }

        func parsedGeneratedImageBytes() throws -> Int {
            guard let bytes = Self.byteCount(generatedImageBytes), bytes > 0 else {
                throw ValidationError(
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

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let variables = [
                (upstreamKeyEnv, "the upstream API key", "--upstream-key-env"),
                (appKeyEnv, "the app key that clients sign token requests with", "--app-key-env"),
            ]
            let missing = variables.filter { environment[$0.0, default: ""].isEmpty }
            if !missing.isEmpty {
                throw fail(
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
                throw fail("cannot start the proxy on \(host):\(port): \(error)")
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
                throw fail("cannot open the log file \(path): \(String(cString: strerror(errno))).")
            }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            return { line in handle.write(Data((line + "\n").utf8)) }
        }
    }
}
