import AltBenchApp
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

        /// The command these flags describe.
        var command: ProxyCommand {
            var command = ProxyCommand(upstream: upstream)
            command.host = host
            command.port = port
            command.tokenTTL = tokenTTL
            command.rpm = rpm
            command.authRPM = authRPM
            command.allowModel = allowModel
            command.maxTokensCap = maxTokensCap
            command.forwardHeader = forwardHeader
            command.maxBody = maxBody
            command.maxConnections = maxConnections
            command.maxClientConnections = maxClientConnections
            command.headerTimeout = headerTimeout
            command.bodyTimeout = bodyTimeout
            command.idleTimeout = idleTimeout
            command.replayCapacity = replayCapacity
            command.maxSessionsPerClient = maxSessionsPerClient
            command.trustForwardedFor = trustForwardedFor
            command.publicURL = publicURL
            command.generatedImageBytes = generatedImageBytes
            command.log = log
            command.upstreamKeyEnv = upstreamKeyEnv
            command.appKeyEnv = appKeyEnv
            return command
        }

        func validate() throws {
            do {
                try command.validate()
            } catch let problem as ProxyCommand.FlagProblem {
                throw ValidationError(problem.description)
            }
        }

        func run() async throws {
            try await reportingFailures { try await command.run() }
        }
    }
}
