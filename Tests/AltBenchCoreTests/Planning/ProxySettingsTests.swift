import Foundation
import Testing

@testable import AltBenchCore

/// How a run is pointed at a signed proxy: `--proxy URL` or `proxy:` in altbench.yml, the app
/// key from the environment, and the conflicts refused before anything is sent.
@Suite("proxy settings")
struct ProxySettingsTests {
    static let appKey = "app-key-SECRET-0001"

    static func resolve(_ options: RunOptions = RunOptions(), config: ConfigFile = ConfigFile(), env: [String: String] = [:])
        throws -> Experiment
    {
        try Experiment.resolve(options: options, config: config, environment: env)
    }

    static func options(proxy: String?, _ change: (inout RunOptions) -> Void = { _ in }) -> RunOptions {
        var options = RunOptions()
        options.proxy = proxy
        change(&options)
        return options
    }

    @Test("--proxy chooses the proxy provider, needs no OpenAI key, and sends to URL/v1/chat/completions")
    func flagChoosesProxy() throws {
        let experiment = try Self.resolve(
            Self.options(proxy: "http://127.0.0.1:8787/"), env: ["ALTBENCH_PROXY_APP_KEY": Self.appKey, "CI": "true"])
        #expect(experiment.provider == .proxy)
        #expect(experiment.providerReason == "--proxy is set")
        #expect(experiment.apiKey == nil)
        #expect(experiment.proxy?.appKey?.value == Self.appKey)
        #expect(experiment.chatCompletionsURL.absoluteString == "http://127.0.0.1:8787/v1/chat/completions")
        #expect(experiment.endpointIdentity == "http://127.0.0.1:8787/v1/chat/completions")
        let recorded = experiment.recordedSettings.canonicalText
        #expect(recorded.contains("\"proxy\":\"http://127.0.0.1:8787\""))
        #expect(!recorded.contains(Self.appKey))
        #expect(!String(describing: experiment).contains(Self.appKey))
    }

    @Test("a proxy under a path prefix keeps it in every route")
    func pathPrefix() throws {
        let experiment = try Self.resolve(
            Self.options(proxy: "https://team.example.com/ai"), env: ["ALTBENCH_PROXY_APP_KEY": Self.appKey])
        #expect(experiment.chatCompletionsURL.absoluteString == "https://team.example.com/ai/v1/chat/completions")
        #expect(experiment.proxy?.url(for: "/auth_token").absoluteString == "https://team.example.com/ai/auth_token")
    }

    @Test("the file's proxy: url, app_key_env, header names and token route")
    func fileSettings() throws {
        let config = try ConfigFile.parse(
            """
            proxy:
              url: https://proxy.example.com
              app_key_env: TEAM_APP_KEY
              auth_path: /session
              session_header: X-Team-Session
              timestamp_header: x-team-time
              signature_header: x-team-sig
            """, displayPath: "altbench.yml")
        let experiment = try Self.resolve(config: config, env: ["TEAM_APP_KEY": Self.appKey, "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"])
        #expect(experiment.provider == .proxy)
        #expect(experiment.providerReason == "proxy.url in altbench.yml is set")
        #expect(experiment.proxy?.appKeyVariable == "TEAM_APP_KEY")
        #expect(experiment.proxy?.protocolSettings.authPath == "/session")
        #expect(experiment.proxy?.protocolSettings.sessionHeader == "x-team-session")
        #expect(experiment.proxy?.protocolSettings.timestampHeader == "x-team-time")
        #expect(experiment.proxy?.protocolSettings.signatureHeader == "x-team-sig")
        #expect(experiment.chatCompletionsURL.absoluteString == "https://proxy.example.com/v1/chat/completions")
    }

    @Test("without the app key the run stops before sending, naming the variable")
    func missingAppKey() throws {
        #expect(throws: AltBenchError.missingProxyAppKey(variable: "ALTBENCH_PROXY_APP_KEY", proxy: "http://127.0.0.1:8787")) {
            try Self.resolve(Self.options(proxy: "http://127.0.0.1:8787"), env: ["OPENAI_API_KEY": "sk" + "-unused-000000"])
        }
        let message = AltBenchError.missingProxyAppKey(variable: "TEAM_APP_KEY", proxy: "http://p").description
        #expect(message.contains("TEAM_APP_KEY is not set"))
        #expect(message.contains("No OpenAI key is needed"))
        // --offline sends nothing, so it needs no app key.
        let offline = try Self.resolve(Self.options(proxy: "http://127.0.0.1:8787") { $0.offline = true })
        #expect(offline.provider == .proxy && offline.proxy?.appKey == nil)
        #expect(offline.endpointIdentity == "http://127.0.0.1:8787/v1/chat/completions")
    }

    @Test("--provider proxy without a URL, or --proxy with --base-url or another provider, is refused")
    func conflicts() throws {
        #expect(throws: AltBenchError.self) {
            try Self.resolve(Self.options(proxy: nil) { $0.provider = .proxy }, env: ["ALTBENCH_PROXY_APP_KEY": Self.appKey])
        }
        #expect(throws: AltBenchError.self) {
            try Self.resolve(
                Self.options(proxy: "http://127.0.0.1:8787") { $0.baseURL = "http://127.0.0.1:8080/v1" },
                env: ["ALTBENCH_PROXY_APP_KEY": Self.appKey])
        }
        #expect(throws: AltBenchError.self) {
            try Self.resolve(
                Self.options(proxy: "http://127.0.0.1:8787") { $0.provider = .mock }, env: ["ALTBENCH_PROXY_APP_KEY": Self.appKey])
        }
        // The flag outranks the file: --provider openai ignores the file's proxy.
        var config = ConfigFile()
        config.proxy = ProxyConfig()
        config.proxy?.url = "http://127.0.0.1:8787"
        let direct = try Self.resolve(
            Self.options(proxy: nil) { $0.provider = .openai; $0.baseURL = "http://127.0.0.1:8080/v1" }, config: config)
        #expect(direct.provider == .openai && direct.proxy == nil)
        #expect(direct.chatCompletionsURL.absoluteString == "http://127.0.0.1:8080/v1/chat/completions")
    }

    @Test(
        "proxy URLs that cannot work are refused with the fix",
        arguments: [
            ("http://127.0.0.1:8787/v1", "Give http://127.0.0.1:8787"),
            ("ftp://proxy", "not an http(s) URL"),
            ("https://user:pw@proxy.example.com", "user name or password"),
            ("https://proxy.example.com/?token=abc", "query or fragment"),
        ])
    func badURLs(_ url: String, _ expected: String) {
        do {
            _ = try Experiment.parseProxyURL(url, source: "--proxy")
            Issue.record("accepted \(url)")
        } catch {
            let text = String(describing: error)
            #expect(text.contains(expected), "\(text)")
            #expect(!text.contains("pw@") && !text.contains("token=abc"))
        }
    }

    @Test(
        "a bad proxy: section names the line and the fix",
        arguments: [
            ("proxy: https://p", 1, "must map settings"),
            ("proxy:\n  url: https://p\n  app_key: abc", 3, "Never put a key in this file"),
            ("proxy:\n  ulr: https://p", 2, "Did you mean `url`?"),
            ("proxy:\n  app_key_env: sk-abc-123", 2, "names an environment variable"),
            ("proxy:\n  session_header: x session", 2, "HTTP header name"),
            ("proxy:\n  auth_path: auth", 2, "starting with /"),
        ])
    func badFile(_ text: String, _ line: Int, _ expected: String) {
        expectConfigRefused(text, line: line, saying: expected, withoutEchoing: ["sk-abc-123"])
    }
}
