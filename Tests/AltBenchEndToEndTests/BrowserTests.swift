import AltBenchCore
import Foundation
import Testing

/// The headless-browser harness on small pages written to a temporary folder: what the HTML
/// report's tests will rely on (scripts run, console and CSP are visible, local images load,
/// screenshots, user input, and no process left behind).
extension BrowserSuites {
@Suite("headless browser harness")
struct BrowserTests {
    /// A 1×1 PNG.
    static let tinyPNG = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    /// The policy the HTML report is meant to ship with: nothing from the network.
    static let offlinePolicy =
        "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"

    /// A temporary folder of HTML fixtures.
    struct Pages {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-html-\(UUID().uuidString)")

        init() throws {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        @discardableResult
        func write(_ name: String, _ html: String) throws -> URL {
            let url = root.appendingPathComponent(name)
            try html.write(to: url, atomically: true, encoding: .utf8)
            return url
        }

        func write(_ name: String, data: Data) throws {
            try data.write(to: root.appendingPathComponent(name))
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    static func page(head: String = "", body: String) -> String {
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>fixture</title>\(head)</head>\n<body>\(body)</body></html>\n"
    }

    @Test("a script's output is read back with evaluate; the viewport is 1280×900")
    func evaluateReadsScriptOutput() async throws {
        let pages = try Pages()
        defer { pages.remove() }
        let url = try pages.write(
            "script.html",
            Self.page(body: #"<p id="out">not yet</p><script>document.getElementById('out').textContent = 'written by ' + 'the script';</script>"#))
        try await Browser.withBrowser { browser in
            try await browser.open(url)
            #expect(try await browser.evaluate("return document.getElementById('out').textContent;") == "written by the script")
            #expect(try await browser.evaluate("return [1, 2.5, true, null, {a: 'b'}];") == [1, 2.5, true, .null, ["a": "b"]])
            #expect(try await browser.evaluate("return arguments[0] + arguments[1];", [40, 2]) == 42)
            #expect(try await browser.evaluate("return [window.innerWidth, window.innerHeight];") == [1280, 900])
            await #expect(throws: BrowserError.self) { try await browser.evaluate("throw new Error('broken fixture');") }
            do {
                try await browser.evaluate("throw new Error('broken fixture');")
            } catch {
                #expect("\(error)".contains("broken fixture"))
            }
        }
    }

    @Test("console.error and console.warn are read, each once")
    func consoleMessages() async throws {
        let pages = try Pages()
        defer { pages.remove() }
        let url = try pages.write(
            "console.html", Self.page(body: #"<script>console.error("x"); console.warn("careful"); console.log("fyi");</script>"#))
        try await Browser.withBrowser { browser in
            try await browser.open(url)
            let messages = try await browser.consoleMessages()
            #expect(messages.contains { $0.level == "error" && $0.source == "console-api" && $0.message.hasSuffix(#""x""#) }, "\(messages)")
            #expect(messages.contains { $0.level == "warning" && $0.message.hasSuffix(#""careful""#) }, "\(messages)")
            #expect(messages.contains { $0.level == "info" && $0.message.hasSuffix(#""fyi""#) }, "\(messages)")
            try await browser.evaluate("console.error('later');")
            let next = try await browser.consoleMessages()
            #expect(next.map(\.level) == ["error"], "only what was logged since the last call: \(next)")
            #expect(next.first?.message.contains("later") == true)
        }
    }

    @Test("a CSP-blocked remote image is not loaded, and the violation is reported")
    func contentSecurityPolicyBlocksRemoteImage() async throws {
        let pages = try Pages()
        defer { pages.remove() }
        try pages.write("local.png", data: Self.tinyPNG)
        let url = try pages.write(
            "csp.html",
            Self.page(
                head: #"<meta http-equiv="Content-Security-Policy" content="\#(Self.offlinePolicy)">"#,
                body: #"<img id="remote" src="https://example.invalid/x.png" alt="remote"><img id="local" src="local.png" alt="local">"#
            ))
        try await Browser.withBrowser { browser in
            try await browser.open(url)
            #expect(try await browser.evaluate("return document.getElementById('remote').naturalWidth;") == 0)
            #expect(
                try await browser.evaluate("return document.getElementById('local').naturalWidth;") == 1,
                "img-src 'self' admits a file:// page's own images")

            let violations = try await browser.cspViolations()
            #expect(
                violations.contains { $0.blockedURI == "https://example.invalid/x.png" && $0.directive == "img-src" && $0.disposition == "enforce" },
                "\(violations)")
            let console = try await browser.consoleMessages()
            #expect(
                console.contains { $0.source == "security" && $0.message.contains("https://example.invalid/x.png") && $0.message.contains("Content Security Policy") },
                "\(console)")

            // The blocked request is listed as such, and nothing external got past the policy.
            let external = try await browser.externalRequests()
            #expect(external.map(\.url) == ["https://example.invalid/x.png"], "\(external)")
            #expect(external.first?.blockedReason == "csp", "\(external)")
            #expect(try await browser.externalRequests(excludingBlocked: true).isEmpty)
        }
    }

    @Test("a local PNG loads (naturalWidth > 0) and every request stays on file://")
    func localImageLoads() async throws {
        let pages = try Pages()
        defer { pages.remove() }
        try FileManager.default.createDirectory(at: pages.root.appendingPathComponent("images"), withIntermediateDirectories: true)
        try pages.write("images/pixel.png", data: Self.tinyPNG)
        let url = try pages.write(
            "image.html",
            Self.page(body: #"<img id="pixel" src="images/pixel.png" alt="a pixel"><img id="inline" src="data:image/png;base64,\#(Self.tinyPNG.base64EncodedString())" alt="inline">"#))
        try await Browser.withBrowser { browser in
            try await browser.open(url)
            #expect(try await browser.evaluate("return document.getElementById('pixel').naturalWidth;").intValue ?? 0 > 0)
            #expect(try await browser.evaluate("return document.getElementById('inline').naturalWidth;").intValue ?? 0 > 0)
            let requests = try await browser.requests()
            #expect(requests.first?.type == "Document")
            #expect(requests.first?.url == url.absoluteString)
            #expect(requests.contains { $0.type == "Image" && $0.url.hasSuffix("/images/pixel.png") && $0.errorText == nil }, "\(requests)")
            #expect(requests.contains { $0.type == "Image" && $0.url.hasPrefix("data:image/png;base64,") }, "\(requests)")
            #expect(requests.allSatisfy { $0.isLocal }, "\(requests)")
            #expect(try await browser.externalRequests().isEmpty)
            #expect(try await browser.cspViolations().isEmpty)
            #expect(try await browser.consoleMessages().filter { $0.level == "error" }.isEmpty)
        }
    }

    @Test("a screenshot is a 1280×900 PNG")
    func screenshotIsPNG() async throws {
        let pages = try Pages()
        defer { pages.remove() }
        let url = try pages.write("shot.html", Self.page(body: #"<h1 style="color: #b00">altbench</h1>"#))
        try await Browser.withBrowser { browser in
            try await browser.open(url)
            let file = pages.root.appendingPathComponent("shot.png")
            try await browser.screenshot(to: file)
            let data = try Data(contentsOf: file)
            #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
            // IHDR: width and height, big-endian, at bytes 16..<24.
            let bytes = [UInt8](data.prefix(24))
            #expect(bytes.count == 24)
            if bytes.count == 24 {
                let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
                let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
                #expect(width == 1280)
                #expect(height == 900)
            }
        }
    }

    @Test("typing filters a list and clicking a button changes the page")
    func clickAndType() async throws {
        let pages = try Pages()
        defer { pages.remove() }
        let url = try pages.write(
            "filter.html",
            Self.page(
                body: """
                    <input id="filter" type="search" placeholder="filter">
                    <button id="toggle" type="button">Show details</button>
                    <p id="state">hidden</p>
                    <ul id="rows"><li>icecubes</li><li>icecubes-original</li><li>plain</li></ul>
                    <script>
                      const rows = [...document.querySelectorAll('#rows li')];
                      document.getElementById('filter').addEventListener('input', (event) => {
                        const needle = event.target.value.toLowerCase();
                        for (const row of rows) row.hidden = !row.textContent.includes(needle);
                      });
                      document.getElementById('toggle').addEventListener('click', () => {
                        document.getElementById('state').textContent = 'shown';
                      });
                    </script>
                    """))
        let visible = "return [...document.querySelectorAll('#rows li')].filter((li) => !li.hidden).map((li) => li.textContent);"
        try await Browser.withBrowser { browser in
            try await browser.open(url)
            #expect(try await browser.evaluate(visible) == ["icecubes", "icecubes-original", "plain"])
            try await browser.type(selector: "#filter", text: "icecubes")
            #expect(try await browser.evaluate(visible) == ["icecubes", "icecubes-original"])
            try await browser.type(selector: "#filter", text: "-orig")
            #expect(try await browser.evaluate(visible) == ["icecubes-original"])
            try await browser.clear(selector: "#filter")
            try await browser.type(selector: "#filter", text: "pl")
            #expect(try await browser.evaluate(visible) == ["plain"])

            try await browser.click(selector: "#toggle")
            try await browser.waitFor("document.getElementById('state').textContent === 'shown'")

            await #expect(throws: BrowserError.self) { try await browser.click(selector: "#no-such-button") }
        }
    }

    @Test("quit leaves no chromium or chromedriver process and removes the profile")
    func quitLeavesNothing() async throws {
        guard let browser = try await Browser.browserOrSkip() else { return }
        let profile = browser.profileDirectory.path
        let running = try await Self.pgrep(profile)
        print("browser session started in \(await browser.startDuration), \(running.count) processes on its profile")
        #expect(!running.isEmpty, "pgrep -f finds the browser's processes while it runs")
        let clock = ContinuousClock()
        let quitTime = await clock.measure { await browser.quit() }
        print("browser quit in \(quitTime)")
        #expect(try await Self.pgrep(profile).isEmpty, "no process left on \(profile)")
        #expect(!FileManager.default.fileExists(atPath: browser.folder.path))
        await browser.quit()
        await #expect(throws: BrowserError.self) { try await browser.evaluate("return 1;") }
    }

    /// Only a browser that is not installed skips a browser test: one that is installed and
    /// does not start is an error, so the test fails instead of passing without checking.
    @Test("an installed chromium that does not start is an error, never a skip")
    func installedButNotStarting() async throws {
        guard (try? Browser.locate()) != nil else { return }  // no chromedriver to start it with
        var environment = ProcessInfo.processInfo.environment
        environment["CHROMIUM_BINARY"] = "/bin/false"
        let error = await #expect(throws: BrowserError.self) { _ = try await Browser.start(environment: environment) }
        print("a chromium that does not start: \(error.map(String.init(describing:)) ?? "no error")")
    }

    @Test("a missing chromium or chromedriver names the packages to install")
    func unavailableMessage() throws {
        let environment = ["CHROMIUM_BINARY": "/nonexistent/chromium", "CHROMEDRIVER": "/nonexistent/chromedriver"]
        #expect(throws: BrowserUnavailable.self) { try Browser.locate(environment: environment) }
        do {
            _ = try Browser.locate(environment: environment)
        } catch {
            #expect(error.missing.count == 2)
            #expect(error.description.contains("apt-get install chromium chromium-driver"))
            #expect(error.description.contains("/nonexistent/chromedriver"))
        }
        let empty = ["PATH": "/nonexistent", "CHROMIUM_BINARY": "/nonexistent/chromium"]
        #expect(throws: BrowserUnavailable.self) { try Browser.locate(environment: empty) }
    }

    /// PIDs from `pgrep -f pattern`.
    static func pgrep(_ pattern: String) async throws -> [Int32] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-pgrep-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        _ = try await ChildProcess.run("/usr/bin/pgrep", ["-f", pattern], environment: ProcessInfo.processInfo.environment, stdout: output)
        let data = try Data(contentsOf: output)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
    }
}
}
