import AltBenchCore
import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Chromium or chromedriver is not installed: the HTML tests cannot run on this machine.
struct BrowserUnavailable: Error, CustomStringConvertible {
    /// What is missing, e.g. "chromedriver (not on PATH)".
    var missing: [String]

    var description: String {
        "no headless browser for the HTML tests: missing \(missing.joined(separator: " and ")); "
            + "install them with `apt-get install chromium chromium-driver` (Debian), as .ci/run does"
    }
}

/// The browser or chromedriver failed or answered a command with an error.
struct BrowserError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A headless Chromium driven through chromedriver (W3C WebDriver over HTTP on 127.0.0.1), for
/// tests that open an HTML file and look at what a real browser makes of it.
///
/// Each `Browser` has its own chromedriver on a free loopback port, its own Chromium and its
/// own profile in a fresh temporary folder; `quit()` ends all three (and `withBrowser` always
/// calls it). One browser at a time runs in the test process (`BrowserGate`), so that HTML tests
/// do not starve the suite's timing-sensitive tests on a 2-core machine.
actor Browser {
    /// A console message or browser-side error (CSP violation, failed load, uncaught exception).
    struct ConsoleMessage: Sendable, Hashable, CustomStringConvertible {
        /// "error", "warning", "info" or "debug" (chromedriver's SEVERE, WARNING, INFO, DEBUG);
        /// `console.log` is "info".
        var level: String
        /// As chromedriver gives it: the page URL, line:column, then the text; a string logged
        /// by `console.error("x")` reads `file:///…/page.html 3:17 "x"`.
        var message: String
        /// "console-api" for `console.*`, "security" for CSP, "network", "javascript", …
        var source: String

        var description: String { "[\(level)/\(source)] \(message)" }
    }

    /// A request the page made: the document, images, styles, scripts, fonts, fetches, frames.
    struct PageRequest: Sendable, Hashable, CustomStringConvertible {
        /// The URL; a data: URL is cut to its first 80 characters and "…".
        var url: String
        /// DevTools' resource type: "Document", "Image", "Stylesheet", "Script", "Font",
        /// "Fetch", "XHR", "Media", "Other"…; "resource-timing" for a request only the Resource
        /// Timing API saw.
        var type: String
        /// Why the browser refused to send it: "csp", "mixed-content", "inspector"…; nil if sent.
        var blockedReason: String?
        /// The failure, e.g. "net::ERR_NAME_NOT_RESOLVED" or "net::ERR_BLOCKED_BY_CLIENT"; nil
        /// if it loaded (or has not finished).
        var errorText: String?

        /// file:, data:, blob: and about: URLs: nothing that leaves the machine.
        var isLocal: Bool {
            let scheme = url.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            return ["file", "data", "blob", "about"].contains(scheme)
        }

        var description: String {
            "\(type) \(url)" + (blockedReason.map { " (blocked: \($0))" } ?? errorText.map { " (\($0))" } ?? "")
        }
    }

    /// A `securitypolicyviolation` event: something the page's Content-Security-Policy blocked
    /// (or, for a report-only policy, would have).
    struct CSPViolation: Sendable, Hashable, CustomStringConvertible {
        /// The blocked URL, or "inline" / "eval" for inline code.
        var blockedURI: String
        /// The directive that blocked it, e.g. "img-src".
        var directive: String
        /// "enforce" or "report".
        var disposition: String

        var description: String { "\(directive) blocked \(blockedURI) (\(disposition))" }
    }

    // MARK: Starting

    /// How long the steps may take on a loaded 2-core machine before the harness gives up.
    static let driverStartTimeout: Duration = .seconds(60)
    static let sessionStartTimeout: Duration = .seconds(90)
    static let commandTimeout: Duration = .seconds(90)
    static let pageLoadTimeout: Duration = .seconds(60)
    static let elementTimeout: Duration = .seconds(10)

    static let windowWidth = 1280
    static let windowHeight = 900

    /// The temporary folder holding the profile and chromedriver's output.
    nonisolated let folder: URL
    /// Chromium's `--user-data-dir`: unique to this browser, so `pgrep -f` on it finds exactly
    /// this browser's processes.
    nonisolated let profileDirectory: URL
    /// How long `start()` took, chromedriver and session together (not counting a wait for
    /// another test's browser to quit).
    private(set) var startDuration: Duration = .zero

    private let chromium: String
    private let chromedriver: String
    private var driver: ChildProcess?
    private var baseURL = ""
    private var sessionID: String?
    private var holdsGate = false
    private var ended = false

    private static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    private init(chromium: String, chromedriver: String) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-browser-\(UUID().uuidString)")
        profileDirectory = folder.appendingPathComponent("profile")
        self.chromium = chromium
        self.chromedriver = chromedriver
    }

    /// Finds Chromium and chromedriver: `$CHROMIUM_BINARY` / `$CHROMEDRIVER` if set, else
    /// Debian's /usr/lib/chromium/chromium (the binary behind the /usr/bin/chromium launcher
    /// script) or `chromium` on PATH, and `chromedriver` on PATH.
    static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BrowserUnavailable) -> (chromium: String, chromedriver: String) {
        var missing: [String] = []
        let chromium: String?
        if let path = environment["CHROMIUM_BINARY"], !path.isEmpty {
            chromium = FileManager.default.isExecutableFile(atPath: path) ? path : nil
            if chromium == nil { missing.append("chromium (CHROMIUM_BINARY=\(path) is not executable)") }
        } else {
            chromium =
                ["/usr/lib/chromium/chromium"].first { FileManager.default.isExecutableFile(atPath: $0) }
                ?? ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap { onPath($0, environment: environment) }.first
            if chromium == nil { missing.append("chromium (neither /usr/lib/chromium/chromium nor chromium on PATH)") }
        }
        let driver: String?
        if let path = environment["CHROMEDRIVER"], !path.isEmpty {
            driver = FileManager.default.isExecutableFile(atPath: path) ? path : nil
            if driver == nil { missing.append("chromedriver (CHROMEDRIVER=\(path) is not executable)") }
        } else {
            driver = onPath("chromedriver", environment: environment)
            if driver == nil { missing.append("chromedriver (not on PATH; Debian's package is chromium-driver)") }
        }
        guard let chromium, let driver else { throw BrowserUnavailable(missing: missing) }
        return (chromium, driver)
    }

    private static func onPath(_ name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Starts chromedriver on a free loopback port and a headless Chromium session in a fresh
    /// profile, window 1280×900, with the browser log enabled. Throws `BrowserUnavailable`
    /// when Chromium or chromedriver is not installed, `BrowserError` when they fail to start.
    static func start(environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Browser {
        let (chromium, chromedriver) = try locate(environment: environment)
        let browser = Browser(chromium: chromium, chromedriver: chromedriver)
        do {
            try await browser.launch()
        } catch {
            await browser.quit()
            throw error
        }
        return browser
    }

    /// A started browser for a test; nil when Chromium is not installed and the test should be
    /// skipped. Under CI (`CI=true`) a missing browser is not a skip: it records an issue,
    /// which fails the test, and returns nil. Either way it prints a loud line.
    static func browserOrSkip(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Browser? {
        do {
            return try await start()
        } catch let error as BrowserUnavailable {
            let ci = ["true", "1", "yes"].contains((ProcessInfo.processInfo.environment["CI"] ?? "").lowercased())
            let banner = String(repeating: "!", count: 78)
            if ci {
                print("\(banner)\n!! BROWSER TEST FAILED under CI=true: \(error)\n\(banner)")
                Issue.record("headless browser required under CI: \(error)", sourceLocation: sourceLocation)
            } else {
                print("\(banner)\n!! BROWSER TEST SKIPPED (it passes without checking anything): \(error)\n\(banner)")
            }
            return nil
        }
    }

    /// Runs `body` with a started browser and always quits it, also when `body` throws; nil
    /// (without running `body`) when `browserOrSkip` skips.
    static func withBrowser<T: Sendable>(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: (Browser) async throws -> T
    ) async throws -> T? {
        guard let browser = try await browserOrSkip(sourceLocation: sourceLocation) else { return nil }
        do {
            let result = try await body(browser)
            await browser.quit()
            return result
        } catch {
            await browser.quit()
            throw error
        }
    }

    private func launch() async throws {
        try await BrowserGate.shared.acquire()
        holdsGate = true
        let clock = ContinuousClock()
        let began = clock.now
        try FileManager.default.createDirectory(at: profileDirectory, withIntermediateDirectories: true)
        let log = folder.appendingPathComponent("chromedriver.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)

        // chromedriver under a small shell watchdog; port 0: chromedriver picks a free port and
        // prints it, so no two tests race for one.
        var environment = ProcessInfo.processInfo.environment
        environment["ALTBENCH_BROWSER_PROFILE"] = profileDirectory.path
        let process = try ChildProcess(
            "/bin/sh",
            ["-c", Self.watchdog, "altbench-browser-watchdog", String(getpid()), chromedriver, "--port=0", "--allowed-ips=127.0.0.1"],
            environment: environment, directory: folder, stdout: log, stderr: log)
        driver = process

        let port = try await driverPort(log: log, process: process)
        baseURL = "http://127.0.0.1:\(port)"
        try await waitUntilReady()
        try await createSession()
        try await installPageHooks()
        try await sizeViewport()
        startDuration = clock.now - began
    }

    /// Becomes chromedriver (`exec "$@"`, so the process the harness started *is*
    /// chromedriver) after forking a watcher: should the test process (`$1`) die without
    /// `quit()` (a crash, a SIGKILL), the watcher kills chromedriver, then every process on the
    /// profile, named by `$ALTBENCH_BROWSER_PROFILE` (kept out of the command line, so `pgrep -f`
    /// does not find the watcher itself). It ends within a second of chromedriver ending.
    /// `kill -9` throughout, so nothing a process does with its signals keeps it alive.
    private static let watchdog = #"""
        parent=$1; shift
        driver=$$
        (
          alive() { [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; }
          while alive "$parent" && alive "$driver"; do sleep 1; done
          alive "$parent" || kill -9 "$driver" 2>/dev/null
          for pid in $(pgrep -f -- "$ALTBENCH_BROWSER_PROFILE"); do kill -9 "$pid" 2>/dev/null; done
        ) </dev/null >/dev/null 2>&1 &
        exec "$@"
        """#

    /// The port from chromedriver's "ChromeDriver was started successfully on port N." line.
    private func driverPort(log: URL, process: ChildProcess) async throws -> Int {
        let deadline = ContinuousClock.now + Self.driverStartTimeout
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "started successfully on port ") {
                let digits = text[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits), port > 0 { return port }
            }
            if let ended = process.ended {
                throw BrowserError("chromedriver (\(chromedriver)) exited at start (status \(ended.status)): \(tail(log))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BrowserError("chromedriver printed no port within \(Self.driverStartTimeout): \(tail(log))")
    }

    private func waitUntilReady() async throws {
        let deadline = ContinuousClock.now + Self.driverStartTimeout
        var last = ""
        while ContinuousClock.now < deadline {
            do {
                let status = try await send("GET", "/status", timeout: .seconds(10))
                if status["ready"]?.boolValue == true { return }
                last = status.canonicalText
            } catch {
                last = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BrowserError("chromedriver at \(baseURL) not ready within \(Self.driverStartTimeout): \(last)")
    }

    private func createSession() async throws {
        let args: [JSONValue] = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            .string("--user-data-dir=\(profileDirectory.path)"),
            .string("--window-size=\(Self.windowWidth),\(Self.windowHeight)"),
            "--force-device-scale-factor=1", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
        ]
        let capabilities: JSONValue = [
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "timeouts": [
                "pageLoad": .int(Int(Self.pageLoadTimeout.components.seconds) * 1000), "script": 30_000, "implicit": 0,
            ],
            "goog:loggingPrefs": ["browser": "ALL", "performance": "ALL"],
            "goog:chromeOptions": [
                "binary": .string(chromium), "args": .array(args),
                "perfLoggingPrefs": ["enableNetwork": true, "enablePage": false],
            ],
        ]
        let body: JSONValue = ["capabilities": ["alwaysMatch": capabilities]]
        let value: JSONValue
        do {
            value = try await send("POST", "/session", body, timeout: Self.sessionStartTimeout)
        } catch {
            throw BrowserError("could not start headless Chromium (\(chromium)): \(error); chromedriver: \(tail(folder.appendingPathComponent("chromedriver.log")))")
        }
        guard let id = value["sessionId"]?.stringValue else {
            throw BrowserError("chromedriver answered a new session without an id: \(value.canonicalText)")
        }
        sessionID = id
    }

    /// Before any script of every page: records `securitypolicyviolation` events in
    /// `window.__altbenchHarness.violations` (DevTools' addScriptToEvaluateOnNewDocument is
    /// not subject to the page's CSP) and lifts the Resource Timing buffer's 250-entry limit.
    private static let pageHook = """
        (() => {
          if (window.__altbenchHarness) return;
          const harness = { violations: [] };
          Object.defineProperty(window, '__altbenchHarness', { value: harness, enumerable: false });
          try { performance.setResourceTimingBufferSize(100000); } catch (e) {}
          document.addEventListener('securitypolicyviolation', (event) => {
            harness.violations.push({
              blockedURI: String(event.blockedURI || ''),
              directive: String(event.effectiveDirective || event.violatedDirective || ''),
              disposition: String(event.disposition || ''),
            });
          }, true);
        })();
        """

    private func installPageHooks() async throws {
        _ = try await command(
            "POST", "/goog/cdp/execute",
            ["cmd": "Page.addScriptToEvaluateOnNewDocument", "params": ["source": .string(Self.pageHook)]])
    }

    /// Headless Chromium's `--window-size` is the outer size; grows the window so that the
    /// viewport (and so a screenshot) is 1280×900.
    private func sizeViewport() async throws {
        let sizes = try await evaluate("return [window.outerWidth - window.innerWidth, window.outerHeight - window.innerHeight];")
        let extraWidth = max(0, sizes[0]?.intValue ?? 0)
        let extraHeight = max(0, sizes[1]?.intValue ?? 0)
        guard extraWidth > 0 || extraHeight > 0 else { return }
        _ = try await command(
            "POST", "/window/rect",
            ["width": .int(Self.windowWidth + extraWidth), "height": .int(Self.windowHeight + extraHeight)])
    }

    /// Lays the page out as on a screen `width` × `height` CSS pixels (DevTools' device
    /// metrics override, not a mobile emulation), as a phone held upright shows it.
    func emulateViewport(width: Int, height: Int) async throws {
        _ = try await command(
            "POST", "/goog/cdp/execute",
            [
                "cmd": "Emulation.setDeviceMetricsOverride",
                "params": ["width": .int(width), "height": .int(height), "deviceScaleFactor": .int(1), "mobile": .bool(false)],
            ])
    }

    // MARK: Pages

    /// Opens `url` (a file:// URL, usually) and waits until `document.readyState` is
    /// "complete": images, stylesheets and scripts have loaded or failed.
    func open(_ url: URL) async throws {
        try await readNetworkLog(discard: true)
        _ = try await command("POST", "/url", ["url": .string(url.absoluteString)])
        try await waitFor("document.readyState === 'complete'", timeout: Self.pageLoadTimeout, what: "\(url) to load")
    }

    /// Runs `script` in the page as the body of a function (W3C "execute script"): use
    /// `return` for a value; `arguments[0]`… are `arguments`. The value comes back as JSON
    /// (DOM elements as WebDriver element references); an exception thrown by the script is a
    /// `BrowserError` with its message.
    @discardableResult
    func evaluate(_ script: String, _ arguments: [JSONValue] = []) async throws -> JSONValue {
        try await command("POST", "/execute/sync", ["script": .string(script), "args": .array(arguments)])
    }

    /// Polls the JavaScript expression `condition` until it is truthy; a `BrowserError` after
    /// `timeout`. For pages that change after an event (a filter applied on input).
    func waitFor(_ condition: String, timeout: Duration = .seconds(10), what: String? = nil) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try await evaluate("return !!(\(condition));").boolValue == true { return }
            if ContinuousClock.now >= deadline {
                throw BrowserError("timed out after \(timeout) waiting for \(what ?? condition)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Console messages and browser-side errors logged since the previous call (chromedriver's
    /// browser log, which it empties on each read), oldest first.
    func consoleMessages() async throws -> [ConsoleMessage] {
        let value: JSONValue
        do {
            value = try await command("POST", "/se/log", ["type": "browser"])
        } catch let error as BrowserError where error.description.contains("unknown command") {
            value = try await command("POST", "/log", ["type": "browser"])
        }
        return (value.arrayValue ?? []).map { entry in
            let level: String
            switch entry["level"]?.stringValue ?? "" {
            case "SEVERE": level = "error"
            case "WARNING": level = "warning"
            case "INFO": level = "info"
            case "DEBUG", "FINE", "FINER", "FINEST": level = "debug"
            case let other: level = other.lowercased()
            }
            return ConsoleMessage(
                level: level, message: entry["message"]?.stringValue ?? "", source: entry["source"]?.stringValue ?? "")
        }
    }

    /// Every request of the page opened last, in the order the browser started them: the
    /// document first. From chromedriver's performance log (DevTools Network events), so
    /// file:, data: and blocked requests are all there; plus any URL that only the page's
    /// Resource Timing entries (`performance.getEntriesByType('resource')`) list.
    func requests() async throws -> [PageRequest] {
        try await readNetworkLog()
        var list = pageRequests
        var seen = Set(list.map(\.url))
        let timing = try await evaluate(
            "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).map((e) => e.name);")
        for url in (timing.arrayValue ?? []).compactMap(\.stringValue).map(Self.shortened) where !seen.contains(url) {
            seen.insert(url)
            list.append(PageRequest(url: url, type: "resource-timing"))
        }
        return list
    }

    /// The requests of `requests()` that are not file:, data:, blob: or about: URLs; with
    /// `excludingBlocked`, only those the browser did not refuse to send (a CSP block, say):
    /// what left the machine, or would have with a network.
    func externalRequests(excludingBlocked: Bool = false) async throws -> [PageRequest] {
        let external = try await requests().filter { !$0.isLocal }
        guard excludingBlocked else { return external }
        let blocked = Set(try await cspViolations().filter { $0.disposition == "enforce" }.map(\.blockedURI))
        return external.filter { $0.blockedReason == nil && !blocked.contains($0.url) }
    }

    /// Requests of the current page seen in the network log so far, and their index by id.
    private var pageRequests: [PageRequest] = []
    private var pageRequestIndex: [String: Int] = [:]

    /// Reads (and so empties) chromedriver's performance log, keeping the page's requests.
    private func readNetworkLog(discard: Bool = false) async throws {
        let value = try await command("POST", "/se/log", ["type": "performance"])
        if discard {
            pageRequests = []
            pageRequestIndex = [:]
            return
        }
        for entry in value.arrayValue ?? [] {
            guard let text = entry["message"]?.stringValue, let event = try? JSONValue.parse(Data(text.utf8))["message"],
                let params = event["params"], let id = params["requestId"]?.stringValue
            else { continue }
            switch event["method"]?.stringValue {
            case "Network.requestWillBeSent":
                guard let url = params["request"]?["url"]?.stringValue else { continue }
                let request = PageRequest(url: Self.shortened(url), type: params["type"]?.stringValue ?? "Other")
                if let index = pageRequestIndex[id], pageRequests[index].url != request.url {
                    // A redirect reuses the id: keep both hops.
                    pageRequests.append(request)
                } else if pageRequestIndex[id] == nil {
                    pageRequests.append(request)
                } else {
                    continue
                }
                pageRequestIndex[id] = pageRequests.count - 1
            case "Network.loadingFailed":
                guard let index = pageRequestIndex[id] else { continue }
                pageRequests[index].blockedReason = params["blockedReason"]?.stringValue
                let errorText = params["errorText"]?.stringValue ?? ""
                pageRequests[index].errorText = errorText.isEmpty ? nil : errorText
            default:
                continue
            }
        }
    }

    private static func shortened(_ url: String) -> String {
        url.hasPrefix("data:") && url.count > 80 ? String(url.prefix(80)) + "…" : url
    }

    /// What the current page's Content-Security-Policy blocked since the page opened.
    func cspViolations() async throws -> [CSPViolation] {
        let value = try await evaluate("return window.__altbenchHarness ? window.__altbenchHarness.violations : null;")
        guard let list = value.arrayValue else {
            throw BrowserError("the page has no violation hook (was it opened with open(_:)?)")
        }
        return list.map {
            CSPViolation(
                blockedURI: $0["blockedURI"]?.stringValue ?? "", directive: $0["directive"]?.stringValue ?? "",
                disposition: $0["disposition"]?.stringValue ?? "")
        }
    }

    /// Saves a PNG of the viewport (1280×900) to `file`.
    func screenshot(to file: URL) async throws {
        let value = try await command("GET", "/screenshot")
        guard let base64 = value.stringValue, let data = Data(base64Encoded: base64) else {
            throw BrowserError("the screenshot was not base64 data")
        }
        try data.write(to: file)
    }

    /// Clicks the first element matching the CSS `selector` as a user would (WebDriver
    /// "element click": scrolled into view, real mouse events); waits up to 10 s for it.
    func click(selector: String) async throws {
        let element = try await element(selector)
        _ = try await command("POST", "/element/\(element)/click", [:])
    }

    /// Types `text` into the first element matching `selector` as a user would (WebDriver
    /// "element send keys": focus, then key events, so `input` listeners run).
    func type(selector: String, text: String) async throws {
        let element = try await element(selector)
        _ = try await command("POST", "/element/\(element)/value", ["text": .string(text)])
    }

    /// Empties the input or textarea matching `selector` (WebDriver "element clear").
    func clear(selector: String) async throws {
        let element = try await element(selector)
        _ = try await command("POST", "/element/\(element)/clear", [:])
    }

    private func element(_ selector: String) async throws -> String {
        let deadline = ContinuousClock.now + Self.elementTimeout
        while true {
            do {
                let value = try await command("POST", "/element", ["using": "css selector", "value": .string(selector)])
                if let id = value[Self.elementKey]?.stringValue { return id }
                throw BrowserError("no element reference for \(selector): \(value.canonicalText)")
            } catch let error as BrowserError where error.description.contains("no such element") {
                if ContinuousClock.now >= deadline {
                    throw BrowserError("no element matches \(selector) after \(Self.elementTimeout)")
                }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    // MARK: Ending

    /// Ends the session, chromedriver and every process left on this browser's profile, then
    /// removes the temporary folder. Never throws; calling it twice is harmless.
    func quit() async {
        guard !ended else { return }
        ended = true
        if let sessionID {
            _ = try? await send("DELETE", "/session/\(sessionID)", timeout: .seconds(30))
            self.sessionID = nil
        }
        if let driver {
            // chromedriver's own /shutdown first, then SIGKILL. The process started is
            // chromedriver itself: the watchdog shell execs it.
            if driver.isRunning, !baseURL.isEmpty { _ = try? await send("GET", "/shutdown", timeout: .seconds(10)) }
            let deadline = ContinuousClock.now + .seconds(5)
            while driver.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            driver.send(SIGKILL)
            self.driver = nil
        }
        // Chromium survives its chromedriver's SIGTERM: end whatever still runs on the profile.
        var pids = Self.processes(using: profileDirectory.path)
        for pid in pids { kill(pid, SIGTERM) }
        let deadline = ContinuousClock.now + .seconds(5)
        while !pids.isEmpty && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            pids = Self.processes(using: profileDirectory.path)
        }
        for pid in pids { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
        if holdsGate {
            holdsGate = false
            await BrowserGate.shared.release()
        }
    }

    deinit {
        // A browser dropped without quit(): end its processes at least (no await here).
        guard !ended else { return }
        driver?.send(SIGKILL)
        for pid in Self.processes(using: profileDirectory.path) { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: folder)
        if holdsGate { Task { await BrowserGate.shared.release() } }
    }

    /// The bytes of a /proc file, read with plain read(2) until the end: /proc files report a
    /// size of 0 and can change while read.
    nonisolated static func readProcFile(_ path: String) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    /// Live processes whose command line contains `text` (from /proc; zombies have none).
    nonisolated static func processes(using text: String) -> [Int32] {
        let own = getpid()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return names.compactMap { name -> Int32? in
            guard let pid = Int32(name), pid != own,
                let data = readProcFile("/proc/\(name)/cmdline"), !data.isEmpty
            else { return nil }
            let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return line.contains(text) ? pid : nil
        }
    }

    // MARK: WebDriver over HTTP

    /// A command of the current session: `path` is relative to /session/{id}.
    private func command(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        guard let sessionID else { throw BrowserError("the browser has quit (or never started a session)") }
        return try await send(method, "/session/\(sessionID)\(path)", body, timeout: Self.commandTimeout)
    }

    /// Sends one WebDriver request and returns its `value`; an error answer becomes a
    /// `BrowserError` naming the command, the WebDriver error code and its message.
    private func send(_ method: String, _ path: String, _ body: JSONValue? = nil, timeout: Duration) async throws -> JSONValue {
        var request = HTTPClientRequest(url: baseURL + path)
        switch method {
        case "GET": request.method = .GET
        case "POST": request.method = .POST
        case "DELETE": request.method = .DELETE
        default: request.method = .RAW(value: method)
        }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
            request.body = .bytes(ByteBuffer(string: body.canonicalText))
        }
        let seconds = Int64(timeout.components.seconds)
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(seconds))
        } catch {
            throw BrowserError("\(method) \(path): no answer from chromedriver at \(baseURL): \(error)")
        }
        let buffer = try await response.body.collect(upTo: 256 * 1024 * 1024)
        let data = Data(buffer.readableBytesView)
        guard let json = try? JSONValue.parse(data) else {
            throw BrowserError("\(method) \(path): HTTP \(response.status.code), not JSON: \(String(decoding: data.prefix(500), as: UTF8.self))")
        }
        let value = json["value"] ?? .null
        if response.status.code >= 400 || value["error"]?.stringValue != nil {
            let code = value["error"]?.stringValue ?? "HTTP \(response.status.code)"
            let message = value["message"]?.stringValue ?? value.canonicalText
            throw BrowserError("\(method) \(path): \(code): \(message)")
        }
        return value
    }

    private func tail(_ file: URL) -> String {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? "(no output)" : String(trimmed.suffix(2000))
    }
}

/// At most `limit` browsers at once in the test process: each is a dozen processes, and a
/// 2-core machine running the whole suite in parallel has no room for more.
actor BrowserGate {
    static let limit = 1
    static let shared = BrowserGate()
    private var inUse = 0

    func acquire() async throws {
        let deadline = ContinuousClock.now + .seconds(600)
        while inUse >= Self.limit {
            if ContinuousClock.now >= deadline {
                throw BrowserError("\(Self.limit) browsers stayed open for 10 minutes; does a test forget quit()?")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        inUse += 1
    }

    func release() { inUse = max(0, inUse - 1) }
}

/// Every test that starts a browser, one at a time: headless Chromium is the heaviest thing
/// the suite runs, and two at once beside the rest of the suite starve its timing tests on a
/// 2-core machine.
@Suite(.serialized) enum BrowserSuites {}
