import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `altbench proxy` as a user starts it: the listening line, /healthz, a signed request
/// forwarded, a graceful SIGTERM, and the refusals to start.
@Suite("altbench proxy")
struct ProxyCommandTests {
    static let upstreamKey = "sk" + "-proxycmd-UPSTREAM-0123456789abcdef"
    static let appKey = "proxycmd-app-key-0123456789"
    static let listening = "altbench proxy listening on "

    static func environment(_ keys: [String: String] = ["OPENAI_API_KEY": upstreamKey, "ALTBENCH_PROXY_APP_KEY": appKey]) -> [String: String] {
        var environment = AltbenchProcess.cleanEnvironment()
        environment.removeValue(forKey: "ALTBENCH_PROXY_APP_KEY")
        environment.merge(keys) { _, new in new }
        return environment
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-proxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The proxy's base URL from its first stdout line, once printed; nil if it ends first or
    /// prints nothing for a minute. Expects the listening line to be the very first line.
    static func baseURL(of running: RunningAltbench) async throws -> String? {
        for _ in 0..<600 {
            let text = (try? String(contentsOf: running.outURL, encoding: .utf8)) ?? ""
            if let newline = text.firstIndex(of: "\n") {
                let first = String(text[..<newline])
                #expect(first.hasPrefix(listening), "first line: \(first)")
                return first.hasPrefix(listening) ? String(first.dropFirst(listening.count)) : nil
            }
            if !running.process.isRunning { return nil }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    static func post(_ url: String, headers: [String: String], body: Data) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    @Test("--port 0 prints the listening line first, answers /healthz, forwards a signed request, and stops on SIGTERM after the request in flight")
    func servesAndStops() async throws {
        let upstream = try await OpenAITestServer.start { _ in
            ScriptedResponse.chatCompletion(content: "A heron on a post.").delayed(by: .milliseconds(1500))
        }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let running = try RunningAltbench(
            ["proxy", "--upstream", upstream.baseURL, "--port", "0", "--log", "requests.log"], in: folder,
            environment: Self.environment())
        let base = try #require(try await Self.baseURL(of: running), "the proxy did not start")
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let (_, health) = try await URLSession.shared.data(from: URL(string: base + "/healthz")!)
        #expect((health as? HTTPURLResponse)?.statusCode == 200)

        // A token, then a chat request that the upstream answers slowly.
        let clock = Int64(Date().timeIntervalSince1970)
        let nonceBody = Data("{\"nonce\":\"\(RequestSigning.nonce())\"}".utf8)
        let tokenSignature = RequestSigning.signature(
            key: Self.appKey, method: "POST", path: "/auth_token", timestamp: String(clock), body: nonceBody)
        let (tokenStatus, tokenData) = try await Self.post(
            base + "/auth_token", headers: ["x-timestamp": String(clock), "x-signature": tokenSignature, "content-type": "application/json"],
            body: nonceBody)
        #expect(tokenStatus == 200)
        let token = try #require(try JSONSerialization.jsonObject(with: tokenData) as? [String: Any])
        let sessionToken = try #require(token["token"] as? String)
        let sessionID = try #require(token["session_id"] as? String)

        let chat = Data(#"{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"max_tokens":50}"#.utf8)
        let signature = RequestSigning.signature(
            key: sessionToken, method: "POST", path: "/v1/chat/completions", timestamp: String(clock), body: chat)
        let inFlight = Task {
            try await Self.post(
                base + "/v1/chat/completions",
                headers: [
                    "x-session-id": sessionID, "x-timestamp": String(clock), "x-signature": signature, "content-type": "application/json",
                ], body: chat)
        }
        for _ in 0..<500 where await upstream.requests().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        running.send(SIGTERM)
        let (chatStatus, chatData) = try await inFlight.value
        #expect(chatStatus == 200, "\(String(decoding: chatData, as: UTF8.self))")
        let output = try await running.wait()
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.split(separator: "\n").first.map(String.init) == Self.listening + base)

        let forwarded = try #require(await upstream.requests().first)
        #expect(forwarded.header("authorization") == "Bearer \(Self.upstreamKey)")
        #expect(forwarded.body == chat)

        let log = try String(contentsOf: folder.appendingPathComponent("requests.log"), encoding: .utf8)
        let lines = log.split(separator: "\n")
        #expect(lines.count == 3, "\(log)")
        #expect(lines.first?.contains(#""path":"/healthz""#) == true)
        #expect(lines.last?.contains(#""status":200,"upstream_status":200"#) == true)
        for secret in [Self.upstreamKey, Self.appKey, sessionToken, signature, tokenSignature] {
            #expect(!log.contains(secret))
            #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret))
        }
        await upstream.stop()
    }

    @Test("log lines go to stderr without --log, and SIGINT stops it too")
    func logsToStderr() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let running = try RunningAltbench(
            ["proxy", "--upstream", "http://127.0.0.1:9/v1", "--port", "0"], in: folder, environment: Self.environment())
        let base = try #require(try await Self.baseURL(of: running), "the proxy did not start")
        let (_, refused) = try await URLSession.shared.data(from: URL(string: base + "/v1/models")!)
        #expect((refused as? HTTPURLResponse)?.statusCode == 403)
        running.send(SIGINT)
        let output = try await running.wait()
        #expect(output.status == 0)
        #expect(output.stderr.contains(#""method":"GET","path":"/v1/models","status":403"#), "\(output.stderr)")
    }

    @Test("without a key variable it refuses to start (exit 1), naming the variable")
    func missingKeys() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["proxy", "--upstream", "http://127.0.0.1:9/v1", "--port", "0"]

        let noneSet = try await AltbenchProcess.run(arguments, in: folder, environment: Self.environment([:]))
        #expect(noneSet.status == 1)
        #expect(noneSet.stderr.contains("OPENAI_API_KEY is not set"))
        #expect(noneSet.stderr.contains("ALTBENCH_PROXY_APP_KEY is not set"))
        #expect(noneSet.stdout.isEmpty)

        let emptyApp = try await AltbenchProcess.run(
            arguments, in: folder, environment: Self.environment(["OPENAI_API_KEY": Self.upstreamKey, "ALTBENCH_PROXY_APP_KEY": ""]))
        #expect(emptyApp.status == 1)
        #expect(emptyApp.stderr.contains("ALTBENCH_PROXY_APP_KEY is not set"))
        #expect(!emptyApp.stderr.contains("OPENAI_API_KEY is not set"))

        let renamed = try await AltbenchProcess.run(
            arguments + ["--upstream-key-env", "TEAM_OPENAI_KEY"], in: folder, environment: Self.environment())
        #expect(renamed.status == 1)
        #expect(renamed.stderr.contains("TEAM_OPENAI_KEY is not set"))
        #expect(renamed.stderr.contains("--upstream-key-env"))
    }

    @Test(
        "a bad flag value is a usage error (exit 64) naming the flag",
        arguments: [
            (["--upstream", "ftp://example.com/v1"], "--upstream"), (["--upstream", "http://user:pw@example.com/v1"], "--upstream"),
            (["--upstream", "https://api.example.com/v1?key=1"], "--upstream"), (["--port", "70000"], "--port"),
            (["--token-ttl", "soon"], "--token-ttl"), (["--rpm", "0"], "--rpm"), (["--auth-rpm", "-1"], "--auth-rpm"),
            (["--max-body", "12XB"], "--max-body"), (["--max-body", "0"], "--max-body"), (["--allow-model", " "], "--allow-model"),
            (["--upstream-key-env", "NOT-A-NAME"], "--upstream-key-env"), (["--unknown-flag"], "--unknown-flag"),
        ])
    func badFlags(extra: [String], flag: String) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var arguments = ["proxy", "--port", "0"] + extra
        if !extra.contains("--upstream") { arguments += ["--upstream", "http://127.0.0.1:9/v1"] }
        let output = try await AltbenchProcess.run(arguments, in: folder, environment: Self.environment())
        #expect(output.status == 64, "\(output.stderr)")
        #expect(output.stderr.contains(flag), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test("a port already taken is exit 1 with the address")
    func portTaken() async throws {
        let occupant = try await OpenAITestServer.start()
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = try await AltbenchProcess.run(
            ["proxy", "--upstream", "http://127.0.0.1:9/v1", "--port", String(occupant.port)], in: folder,
            environment: Self.environment())
        #expect(output.status == 1)
        #expect(output.stderr.contains("cannot start the proxy on 127.0.0.1:\(occupant.port)"), "\(output.stderr)")
        await occupant.stop()
    }
}

extension ProxyCommandTests {
    /// Without `--allow-model` any client holding the app key may ask for any model at its
    /// price: the proxy says so on stderr when it starts, and not when a model is named.
    @Test("a proxy started without --allow-model warns on stderr; with it, it does not")
    func warnsWithoutAnAllowedModel() async throws {
        let upstream = try await OpenAITestServer.start()
        defer { Task { await upstream.stop() } }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (extra, warns) in [([String](), true), (["--allow-model", "gpt-4o-mini"], false)] {
            let running = try RunningAltbench(
                ["proxy", "--upstream", upstream.baseURL, "--port", "0"] + extra, in: folder, environment: Self.environment())
            _ = try #require(try await Self.baseURL(of: running), "the proxy did not start")
            running.process.send(SIGTERM)
            _ = await running.process.wait()
            let stderr = (try? String(contentsOf: running.errURL, encoding: .utf8)) ?? ""
            #expect(stderr.contains("warning: no --allow-model: clients may ask for any model") == warns, "\(extra): \(stderr)")
        }
    }
}
