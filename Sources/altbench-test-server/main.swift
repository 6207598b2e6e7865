// altbench-test-server: a local OpenAI-compatible vision endpoint for trying altbench's real
// HTTP path without an API key.
//
//   swift run altbench-test-server [--port N] [--api-key KEY] [--latency-ms N]
//                                  [--requests-per-second R [--burst N] [--announce SHAPE]]
//                                  [--script FILE] [--removed-models M1,M2]
//                                  [--azure-api-key KEY] [--azure-deployments D1,D2] [--azure-api-versions V1,V2]
//
// Binds 127.0.0.1 only (port 0, the default, picks a free port), prints
// "listening on http://127.0.0.1:PORT/v1", and serves until SIGINT or SIGTERM.
//
// --latency-ms N delays every answer (429s included) by N milliseconds.
// --requests-per-second R puts OpenAI-style rate limiting in front of the handler: a bucket of
// --burst request tokens (default R rounded, at least 1) refilled at R per second; requests
// without a token get a 429 with retry-after-ms, retry-after and x-ratelimit-* headers.
// --announce SHAPE says what those headers describe (the bucket that answers 429 is always
// --burst at R per second):
//   bucket      that bucket (the default);
//   per-minute  a per-minute window of 60 × R refilled at R per second, overstating the burst
//               as proxies and Azure deployments do (retry-after-ms stays truthful);
//               --announce-per-minute is the same;
//   quantized   x-ratelimit-limit-requests 60 × R, but -remaining- and -reset-requests of the
//               bucket itself, as a quantized per-minute limit reports;
//   none        no x-ratelimit-* headers, and 429s with no retry-after.
// --script FILE answers by the first matching rule of a JSON or YAML script (see
// ResponseRules): chosen answers, finish reasons, error statuses, headers and latency per
// prompt, image, model or request number; other requests get the default answer. A bad
// script stops the server at startup with the file, line, rule and field.
// --removed-models M1,M2 treats those models as removed from the API (as OpenAI removed
// dall-e-2 and dall-e-3 on 2026-05-12): chat and image requests naming one get 404
// model_not_found, "The model `M1` has been deprecated, learn more here: …".
//
// Azure OpenAI's routes are served too: POST /openai/deployments/{deployment}/chat/completions
// (which needs ?api-version=V, else Azure's 404 "Resource not found") and
// /openai/v1/chat/completions, answering with apim-request-id and Azure's content-filter
// results. --azure-api-key KEY requires `api-key: KEY` there (else Azure's 401);
// --azure-deployments D1,D2 answers 404 DeploymentNotFound for any other deployment (on the v1
// route, the body's model); --azure-api-versions V1,V2 answers 404 for any other api-version.
//
// Besides chat completions it serves the Images API, POST /v1/images/generations (DALL·E and
// GPT image models), and the generated images' URLs, GET /generated/<sha256>.png.
//
// --batches serves a simulated Batch API too (BatchSimulator): /v1/files and /v1/batches, or
// with --batch-flavour azure Azure's /openai/v1/files and /openai/v1/batches. Each line of a
// batch is answered as the chat route would answer it (--script rules included). A batch
// moves on only when polled: --batch-polls N (default 3) polls until it is completed.
// --batch-fault FAULT (repeatable) scripts what goes wrong:
//   expire:ID1,ID2       those custom_ids expire; the batch ends expired
//   fail-all             every request fails; the batch ends completed with no output file
//   empty-error-file-id  a clean batch reports error_file_id ""
//   gone-after:N         after N polls the batch answers 404
//   token-limit[:N]      the first N (default 1) batches fail with token_limit_exceeded
//   shuffle              output and error files in a shuffled order
//   invalid:ID1,ID2      those custom_ids' lines fail validation; the batch ends failed
//   cancel[:N]           the first N (default 1) batches are cancelled at the provider
// --batch-upload-bytes-per-second N reads uploads slowly; --batch-max-lines N lowers the
// lines per file. Every batch event is written to stderr as "batch: …" as it happens
// ("batch: upload started", "batch: created batch_000001", "batch: polled batch_000001:
// in_progress"), so a test can kill a client at a chosen point.

import AltBenchTesting
import Dispatch
import Foundation

let usage =
    "usage: altbench-test-server [--port N] [--api-key KEY] [--latency-ms N] [--requests-per-second R [--burst N] [--announce bucket|per-minute|quantized|none]] [--script FILE] [--removed-models M1,M2] [--azure-api-key KEY] [--azure-deployments D1,D2] [--azure-api-versions V1,V2] [--batches [--batch-flavour openai|azure] [--batch-polls N] [--batch-fault FAULT]... [--batch-upload-bytes-per-second N] [--batch-max-lines N]]"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("altbench-test-server: \(message)\n\(usage)\n".utf8))
    exit(2)
}

var port = 0
var apiKey: String?
var latencyMilliseconds = 0
var requestsPerSecond: Double?
var burst: Int?
var scriptPath: String?
var announcement: TokenBucketServerLimiter.Announcement?
var announceFlag = "--announce"
var removedModels: Set<String> = []
var azureAPIKey: String?
var azureDeployments: Set<String>?
var azureAPIVersions: Set<String>?
var batchesEnabled = false
var batchOptions = BatchSimulatorOptions()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    var name = argument
    var inlineValue: String?
    if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
    }
    switch name {
    case "--port":
        guard let text = inlineValue ?? arguments.popFirst() else { fail("--port needs a value") }
        guard let value = Int(text), (0...65535).contains(value) else { fail("invalid port '\(text)'") }
        port = value
    case "--api-key":
        guard let value = inlineValue ?? arguments.popFirst(), !value.isEmpty else { fail("--api-key needs a value") }
        apiKey = value
    case "--latency-ms":
        guard let text = inlineValue ?? arguments.popFirst() else { fail("--latency-ms needs a value") }
        guard let value = Int(text), value >= 0 else { fail("invalid latency '\(text)'") }
        latencyMilliseconds = value
    case "--requests-per-second":
        guard let text = inlineValue ?? arguments.popFirst() else { fail("--requests-per-second needs a value") }
        guard let value = Double(text), value > 0, value.isFinite else { fail("invalid request rate '\(text)'") }
        requestsPerSecond = value
    case "--burst":
        guard let text = inlineValue ?? arguments.popFirst() else { fail("--burst needs a value") }
        guard let value = Int(text), value >= 1 else { fail("invalid burst '\(text)'") }
        burst = value
    case "--script":
        guard let value = inlineValue ?? arguments.popFirst(), !value.isEmpty else { fail("--script needs a file") }
        scriptPath = value
    case "--removed-models":
        guard let text = inlineValue ?? arguments.popFirst() else { fail("--removed-models needs a list of models") }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else {
            fail("--removed-models takes model names separated by commas, e.g. dall-e-2,dall-e-3, not '\(text)'")
        }
        removedModels.formUnion(names)
    case "--azure-api-key":
        guard let value = inlineValue ?? arguments.popFirst(), !value.isEmpty else { fail("--azure-api-key needs a value") }
        azureAPIKey = value
    case "--azure-deployments", "--azure-api-versions":
        guard let text = inlineValue ?? arguments.popFirst() else { fail("\(name) needs a list") }
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty }) else {
            fail("\(name) takes names separated by commas, e.g. \(name == "--azure-deployments" ? "gpt-4o-mini,alt-text" : "2024-10-21,2025-04-01-preview"), not '\(text)'")
        }
        if name == "--azure-deployments" {
            azureDeployments = (azureDeployments ?? []).union(names)
        } else {
            azureAPIVersions = (azureAPIVersions ?? []).union(names)
        }
    case "--announce-per-minute":
        if inlineValue != nil { fail("--announce-per-minute takes no value") }
        announcement = .perMinute
        announceFlag = name
    case "--announce":
        let shapes: [String: TokenBucketServerLimiter.Announcement] = [
            "bucket": .bucket, "per-minute": .perMinute, "quantized": .quantized, "none": .none,
        ]
        guard let value = inlineValue ?? arguments.popFirst(), let shape = shapes[value] else {
            fail("--announce takes bucket, per-minute, quantized or none")
        }
        announcement = shape
    case "--batches":
        if inlineValue != nil { fail("--batches takes no value") }
        batchesEnabled = true
    case "--batch-flavour", "--batch-flavor":
        guard let value = inlineValue ?? arguments.popFirst(), let flavour = BatchSimulatorOptions.Flavour(rawValue: value) else {
            fail("--batch-flavour takes openai or azure")
        }
        batchOptions.flavour = flavour
        batchesEnabled = true
    case "--batch-polls":
        guard let text = inlineValue ?? arguments.popFirst(), let value = Int(text), value >= 1 else {
            fail("--batch-polls takes a number of polls, at least 1")
        }
        batchOptions.pollsUntilComplete = value
        batchesEnabled = true
    case "--batch-max-lines":
        guard let text = inlineValue ?? arguments.popFirst(), let value = Int(text), value >= 1 else {
            fail("--batch-max-lines takes a number of lines, at least 1")
        }
        batchOptions.maxLines = value
        batchesEnabled = true
    case "--batch-upload-bytes-per-second":
        guard let text = inlineValue ?? arguments.popFirst(), let value = Int(text), value >= 1 else {
            fail("--batch-upload-bytes-per-second takes a number of bytes, at least 1")
        }
        batchOptions.uploadBytesPerSecond = value
        batchesEnabled = true
    case "--batch-fault":
        guard let text = inlineValue ?? arguments.popFirst() else { fail("--batch-fault needs a fault") }
        let (fault, argument) = text.firstIndex(of: ":").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) }
            ?? (text, nil)
        switch (fault, argument) {
        case ("expire", let ids?):
            let names = ids.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { fail("--batch-fault expire: takes custom_ids separated by commas") }
            batchOptions.faults.expiring.formUnion(names)
        case ("fail-all", nil):
            batchOptions.faults.failAllRequests = true
        case ("empty-error-file-id", nil):
            batchOptions.faults.emptyErrorFileID = true
        case ("gone-after", let count?):
            guard let value = Int(count), value >= 0 else { fail("--batch-fault gone-after: takes a number of polls") }
            batchOptions.faults.goneAfterPolls = value
        case ("token-limit", let count):
            guard let value = count.map({ Int($0) }) ?? 1, value >= 1 else {
                fail("--batch-fault token-limit takes a number of batches, e.g. token-limit:2")
            }
            batchOptions.faults.tokenLimitBatches = value
        case ("shuffle", nil):
            batchOptions.faults.shuffledOutput = true
        case ("invalid", let ids?):
            let names = ids.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { fail("--batch-fault invalid: takes custom_ids separated by commas") }
            batchOptions.faults.invalidLines.formUnion(names)
        case ("cancel", let count):
            guard let value = count.map({ Int($0) }) ?? 1, value >= 1 else {
                fail("--batch-fault cancel takes a number of batches, e.g. cancel:2")
            }
            batchOptions.faults.cancelledBatches = value
        default:
            fail("--batch-fault: unknown fault '\(text)'; use expire:ID1,ID2, fail-all, empty-error-file-id, gone-after:N, token-limit[:N], shuffle, invalid:ID1,ID2 or cancel[:N]")
        }
        batchesEnabled = true
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        fail("unknown argument '\(argument)'")
    }
}

if burst != nil && requestsPerSecond == nil { fail("--burst needs --requests-per-second") }
if announcement != nil && requestsPerSecond == nil { fail("\(announceFlag) needs --requests-per-second") }

let options = CompatibleServerOptions(
    apiKey: apiKey, removedModels: removedModels, azureAPIKey: azureAPIKey, azureDeployments: azureDeployments,
    azureAPIVersions: azureAPIVersions)
var handler = OpenAITestServer.compatible(options: options)
var script: ResponseRules?
if let scriptPath {
    do {
        let rules = try ResponseRules.load(contentsOf: URL(fileURLWithPath: scriptPath), displayPath: scriptPath)
        let loaded = ResponseRules(rules, options: options)
        script = loaded
        handler = loaded.handler
        FileHandle.standardError.write(Data("script: \(rules.count) rule\(rules.count == 1 ? "" : "s") from \(scriptPath)\n".utf8))
    } catch {
        // The message names the file, line, rule and field; the usage line would only bury it.
        FileHandle.standardError.write(Data("altbench-test-server: \(error)\n".utf8))
        exit(2)
    }
}
if let requestsPerSecond {
    let size = burst ?? max(1, Int(requestsPerSecond.rounded()))
    handler = TokenBucketServerLimiter(
        requestsPerSecond: requestsPerSecond, burst: size, announcing: announcement ?? .bucket,
        wrapping: handler
    ).handler
}
if latencyMilliseconds > 0 {
    handler = OpenAITestServer.withLatency(.milliseconds(latencyMilliseconds), handler)
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
if batchesEnabled {
    batchOptions.apiKey = apiKey
    batchOptions.azureAPIKey = azureAPIKey
    batchOptions.onEvent = { event in
        // Unbuffered, so a test watching the file sees each event as it happens.
        FileHandle.standardError.write(Data("batch: \(event)\n".utf8))
    }
    batches = BatchSimulator(batchOptions)
}

let server: OpenAITestServer
do {
    server = try await OpenAITestServer.start(port: port, handler: handler, batches: batches)
} catch {
    fail("cannot listen on 127.0.0.1:\(port): \(error)")
}
// Written unbuffered, so a parent process reading the pipe sees the line at once.
FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))

for await _ in stopSignals { break }
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
