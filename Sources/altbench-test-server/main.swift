// altbench-test-server: a local OpenAI-compatible vision endpoint for trying altbench's real
// HTTP path without an API key.
//
//   swift run altbench-test-server [--port N] [--api-key KEY]
//
// Binds 127.0.0.1 only (port 0, the default, picks a free port), prints
// "listening on http://127.0.0.1:PORT/v1", and serves until SIGINT or SIGTERM.

import AltBenchTesting
import Dispatch
import Foundation

let usage = "usage: altbench-test-server [--port N] [--api-key KEY]"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("altbench-test-server: \(message)\n\(usage)\n".utf8))
    exit(2)
}

var port = 0
var apiKey: String?
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
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        fail("unknown argument '\(argument)'")
    }
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

let server: OpenAITestServer
do {
    server = try await OpenAITestServer.start(port: port, handler: OpenAITestServer.compatible(apiKey: apiKey))
} catch {
    fail("cannot listen on 127.0.0.1:\(port): \(error)")
}
// Written unbuffered, so a parent process reading the pipe sees the line at once.
FileHandle.standardOutput.write(Data("listening on \(server.baseURL)\n".utf8))

for await _ in stopSignals { break }
await server.stop()
