// altbench-test-server: a local OpenAI-compatible vision endpoint for trying altbench's real
// HTTP path without an API key (docs/test-server.md; each flag in `--help`).
//
// Azure OpenAI's routes are served too: POST /openai/deployments/{deployment}/chat/completions
// (which needs ?api-version=V, else Azure's 404 "Resource not found") and
// /openai/v1/chat/completions, answering with apim-request-id and Azure's content-filter
// results. Besides chat completions it serves the Images API, POST /v1/images/generations
// (DALL·E and GPT image models), and the generated images' URLs, GET /generated/<sha256>.png.
//
// With --batches (or any --batch-* flag) every batch event is written to stderr as "batch: …"
// as it happens ("batch: upload started", "batch: created batch_000001", "batch: polled
// batch_000001: in_progress"), so a test can kill a client at a chosen point.
import AltBenchTesting
import ArgumentParser
import Dispatch
import Foundation

/// A transform for `@Option`: `parse`'s value, or an error saying what the flag takes.
func checked<T>(_ takes: String, _ parse: @escaping @Sendable (String) -> T?) -> @Sendable (String) throws -> T {
    { text in
        guard let value = parse(text) else { throw ValidationError("takes \(takes)") }
        return value
    }
}

func number(_ range: ClosedRange<Int>, _ takes: String) -> @Sendable (String) throws -> Int {
    checked(takes) { Int($0).flatMap { range.contains($0) ? $0 : nil } }
}

func nonEmpty(_ takes: String) -> @Sendable (String) throws -> String { checked(takes) { $0.isEmpty ? nil : $0 } }

/// A comma list of names, none blank.
func names(_ takes: String) -> @Sendable (String) throws -> [String] {
    checked(takes) { text in
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        return names.allSatisfy { !$0.isEmpty } ? names : nil
    }
}

/// One `--batch-fault`: what it changes in the simulator's faults.
func parseBatchFault(_ text: String) throws -> @Sendable (inout BatchFaults) -> Void {
    let (fault, argument) = text.firstIndex(of: ":").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) } ?? (text, nil)
    let ids = Set((argument ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    let count = argument.map { Int($0) } ?? 1
    switch fault {
    case "expire", "invalid":
        guard !ids.isEmpty else { throw ValidationError("\(fault): takes custom_ids separated by commas") }
        if fault == "expire" { return { $0.expiring.formUnion(ids) } }
        return { $0.invalidLines.formUnion(ids) }
    case "fail-all" where argument == nil: return { $0.failAllRequests = true }
    case "empty-error-file-id" where argument == nil: return { $0.emptyErrorFileID = true }
    case "shuffle" where argument == nil: return { $0.shuffledOutput = true }
    case "gone-after" where argument != nil:
        guard let count, count >= 0 else { throw ValidationError("gone-after: takes a number of polls") }
        return { $0.goneAfterPolls = count }
    case "token-limit", "cancel":
        guard let count, count >= 1 else { throw ValidationError("\(fault) takes a number of batches, e.g. \(fault):2") }
        if fault == "cancel" { return { $0.cancelledBatches = count } }
        return { $0.tokenLimitBatches = count }
    default:
        throw ValidationError(
            "unknown fault; use expire:ID1,ID2, fail-all, empty-error-file-id, gone-after:N, token-limit[:N], shuffle, invalid:ID1,ID2 or cancel[:N]")
    }
}

@main
struct TestServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "altbench-test-server",
        abstract: "A local OpenAI-compatible vision endpoint for trying altbench's real HTTP path without an API key.",
        discussion: """
            Binds 127.0.0.1 only, prints "listening on http://127.0.0.1:PORT/v1", and serves until SIGINT or SIGTERM. \
            It exits 2 when it cannot listen or its --script is unusable (the file, line, rule and field named).
            """)

    @Option(help: "The port on 127.0.0.1; 0 picks a free one.", transform: number(0...65535, "a port, 0 to 65535"))
    var port = 0
    @Option(help: "Answer 401 unless `Authorization: Bearer <api-key>` is sent.", transform: nonEmpty("a key"))
    var apiKey: String?
    @Option(help: "Delay every answer (429s included) by this many milliseconds.", transform: number(0...Int.max, "milliseconds, 0 or more"))
    var latencyMs = 0
    @Option(
        help: """
            OpenAI-style rate limiting: a bucket of --burst request tokens refilled at this rate per second; a request without a \
            token gets a 429 with retry-after-ms, retry-after and x-ratelimit-* headers.
            """,
        transform: checked("a request rate above 0") { Double($0).flatMap { $0 > 0 && $0.isFinite ? $0 : nil } })
    var requestsPerSecond: Double?
    @Option(help: "The bucket's size (default the rate rounded, at least 1); needs --requests-per-second.", transform: number(1...Int.max, "a burst, at least 1"))
    var burst: Int?
    @Option(
        help: """
            What the rate limiter's headers say: bucket (the enforced bucket, the default), per-minute (a per-minute \
            window of 60 × the rate that overstates the burst, as proxies and Azure deployments do), quantized (60 × the rate beside \
            the bucket's own remaining and reset) or none (no x-ratelimit-* headers, 429s with no retry-after).
            """,
        transform: checked("bucket, per-minute, quantized or none") { shape -> TokenBucketServerLimiter.Announcement? in
            switch shape {
            case "bucket": .bucket
            case "per-minute": .perMinute
            case "quantized": .quantized
            case "none": TokenBucketServerLimiter.Announcement.none
            default: nil
            }
        })
    var announce: TokenBucketServerLimiter.Announcement?
    @Flag(help: "The same as --announce per-minute.")
    var announcePerMinute = false
    @Option(
        help: """
            Answer by the first matching rule of a JSON or YAML script (ResponseRules): chosen answers, finish reasons, \
            error statuses, headers and latency per prompt, image, model or request number.
            """,
        transform: nonEmpty("a file"))
    var script: String?
    @Option(
        help: "Treat these models as removed from the API: chat and image requests naming one get 404 model_not_found.",
        transform: names("model names separated by commas, e.g. dall-e-2,dall-e-3"))
    var removedModels: [[String]] = []
    @Option(help: "Require `api-key: <azure-api-key>` on Azure's routes (else Azure's 401).", transform: nonEmpty("a key"))
    var azureAPIKey: String?
    @Option(
        help: "Answer 404 DeploymentNotFound for any other deployment (on the v1 route, the body's model).",
        transform: names("names separated by commas, e.g. gpt-4o-mini,alt-text"))
    var azureDeployments: [[String]] = []
    @Option(help: "Answer 404 for any other api-version.", transform: names("names separated by commas, e.g. 2024-10-21,2025-04-01-preview"))
    var azureAPIVersions: [[String]] = []
    @Flag(help: "Serve a simulated Batch API too (/v1/files and /v1/batches); the --batch-* options imply it.")
    var batches = false
    @Option(
        name: [.customLong("batch-flavour"), .customLong("batch-flavor")],
        help: "Whose Batch API: openai (the default) or azure (/openai/v1/files and /openai/v1/batches).",
        transform: checked("openai or azure") { BatchSimulatorOptions.Flavour(rawValue: $0) })
    var batchFlavour: BatchSimulatorOptions.Flavour?
    @Option(help: "Polls until a batch is completed (default 3).", transform: number(1...Int.max, "a number of polls, at least 1"))
    var batchPolls: Int?
    @Option(
        help: """
            What goes wrong, repeatable: expire:ID1,ID2 (those custom_ids expire), fail-all (every request fails), \
            empty-error-file-id, gone-after:N (404 after N polls), token-limit[:N] (the first N batches fail with \
            token_limit_exceeded), shuffle (output and error files shuffled), invalid:ID1,ID2 (those lines fail \
            validation), cancel[:N] (the first N batches are cancelled at the provider).
            """,
        transform: parseBatchFault)
    var batchFault: [@Sendable (inout BatchFaults) -> Void] = []
    @Option(help: "Read uploads at this many bytes per second.", transform: number(1...Int.max, "a number of bytes, at least 1"))
    var batchUploadBytesPerSecond: Int?
    @Option(help: "The most lines an input file may have.", transform: number(1...Int.max, "a number of lines, at least 1"))
    var batchMaxLines: Int?

    func validate() throws {
        if burst != nil && requestsPerSecond == nil { throw ValidationError("--burst needs --requests-per-second") }
        if announce != nil && requestsPerSecond == nil { throw ValidationError("--announce needs --requests-per-second") }
        if announcePerMinute && requestsPerSecond == nil { throw ValidationError("--announce-per-minute needs --requests-per-second") }
    }

    func run() async throws {
        let options = CompatibleServerOptions(
            apiKey: apiKey, removedModels: Set(removedModels.joined()), azureAPIKey: azureAPIKey,
            azureDeployments: azureDeployments.isEmpty ? nil : Set(azureDeployments.joined()),
            azureAPIVersions: azureAPIVersions.isEmpty ? nil : Set(azureAPIVersions.joined()))
        var handler = OpenAITestServer.compatible(options: options)
        var script: ResponseRules?
        if let scriptPath = self.script {
            do {
                let rules = try ResponseRules.load(contentsOf: URL(fileURLWithPath: scriptPath), displayPath: scriptPath)
                let loaded = ResponseRules(rules, options: options)
                script = loaded
                handler = loaded.handler
                FileHandle.standardError.write(Data("script: \(rules.count) rule\(rules.count == 1 ? "" : "s") from \(scriptPath)\n".utf8))
            } catch {
                // The message names the file, line, rule and field; the usage line would only bury it.
                FileHandle.standardError.write(Data("altbench-test-server: \(error)\n".utf8))
                throw ExitCode(2)
            }
        }
        if let requestsPerSecond {
            handler = TokenBucketServerLimiter(
                requestsPerSecond: requestsPerSecond, burst: burst ?? max(1, Int(requestsPerSecond.rounded())),
                announcing: announcePerMinute ? .perMinute : announce ?? .bucket, wrapping: handler
            ).handler
        }
        if latencyMs > 0 {
            handler = OpenAITestServer.withLatency(.milliseconds(latencyMs), handler)
        }

        // Signals are delivered through dispatch sources so the server can close cleanly.
        let (stopSignals, stopContinuation) = AsyncStream<Int32>.makeStream()
        let signalSources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { @Sendable in stopContinuation.yield(signalNumber) }
            source.resume()
            return source
        }

        var batches: BatchSimulator?
        if self.batches || batchFlavour != nil || batchPolls != nil || !batchFault.isEmpty || batchUploadBytesPerSecond != nil
            || batchMaxLines != nil
        {
            var faults = BatchFaults()
            batchFault.forEach { $0(&faults) }
            batches = BatchSimulator(
                BatchSimulatorOptions(
                    flavour: batchFlavour ?? .openAI, pollsUntilComplete: batchPolls ?? 3, maxLines: batchMaxLines, apiKey: apiKey,
                    azureAPIKey: azureAPIKey, faults: faults, uploadBytesPerSecond: batchUploadBytesPerSecond,
                    onEvent: { event in
                        // Unbuffered, so a test watching the file sees each event as it happens.
                        FileHandle.standardError.write(Data("batch: \(event)\n".utf8))
                    }))
        }

        let server: OpenAITestServer
        do {
            server = try await OpenAITestServer.start(port: port, handler: handler, batches: batches)
        } catch {
            FileHandle.standardError.write(Data("altbench-test-server: cannot listen on 127.0.0.1:\(port): \(error)\n".utf8))
            throw ExitCode(2)
        }
        // Written unbuffered, so a parent process reading the pipe sees the line at once.
        FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))

        for await _ in stopSignals { break }
        withExtendedLifetime(signalSources) {}
        await server.stop()
        if let batches {
            let counts = await batches.counts
            FileHandle.standardError.write(
                Data(
                    "batch: \(counts.uploads) uploads (\(counts.uploadsStarted) started), \(counts.creates) creates, \(counts.polls) polls, \(counts.cancels) cancels, \(counts.downloads) downloads, \(counts.linesRun) lines run\n"
                        .utf8))
        }
        if let script {
            // How often each rule answered: a rule that never matched is the usual surprise.
            let counts = await script.appliedCounts
            for (index, rule) in script.rules.enumerated() {
                let name = rule.name.map { " (\($0))" } ?? ""
                FileHandle.standardError.write(
                    Data("script: rule \(index + 1)\(name) answered \(counts[index]) request\(counts[index] == 1 ? "" : "s")\n".utf8))
            }
        }
    }
}
