import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

/// The HTML report of a real run, opened from disk in headless Chromium: nothing logged as an
/// error, nothing requested from the network, the charts and a card per image there, every
/// image loaded, hostile answers inert, the filters working.
extension BrowserSuites {
@Suite("HTML report in a browser")
struct HTMLReportBrowserTests {
    /// Answers a dataset can smuggle in (the mock answers with an item's first reference).
    static let hostile = [
        "<script>window.__pwned = 1</script> A sign.",
        "\"><img src=x onerror=\"window.__pwned = 2\"> A sign.",
        "</style><script>window.__pwned = 3</script>",
    ]

    @Test func theReportOfARunOpensFromDiskAndWorks() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        // A fifth item whose references (and so the mock's answers) are hostile.
        try FileManager.default.copyItem(
            at: workspace.url("datasets/sample/chelsea.png"), to: workspace.url("datasets/sample/hostile <b>.png"))
        let manifest = try workspace.read("datasets/sample/manifest.jsonl")
        let line = try String(
            decoding: JSONSerialization.data(withJSONObject: [
                "id": "hostile\"><img src=x onerror=\"window.__pwned = 4\">", "image": "hostile <b>.png", "references": Self.hostile,
            ]), as: UTF8.self)
        try workspace.write("datasets/sample/manifest.jsonl", manifest + line + "\n")
        let run = try await AltbenchProcess.run(["run", "--provider", "mock", "--max-tokens", "20,150"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("report: results/latest.html"))

        guard let browser = try await Browser.browserOrSkip() else { return }
        do {
            try await browser.open(workspace.url("results/latest.html"))
            let errors = try await browser.consoleMessages().filter { $0.level == "error" }
            #expect(errors.isEmpty, "console errors: \(errors)")
            let external = try await browser.externalRequests()
            #expect(external.isEmpty, "requests outside file: and data: \(external)")
            let violations = try await browser.cspViolations()
            #expect(violations.isEmpty, "CSP violations: \(violations)")

            #expect(try await browser.evaluate("return document.querySelectorAll('svg.altbench-chart').length;") == .int(4))
            #expect(try await browser.evaluate("return document.querySelectorAll('article.card').length;") == .int(5))
            // Thumbnails load lazily: ask for them all, then wait until each has loaded or failed.
            _ = try await browser.evaluate("document.querySelectorAll('img.thumb').forEach(i => { i.loading = 'eager'; }); return true;")
            try await browser.waitFor("Array.from(document.querySelectorAll('img.thumb')).every(i => i.complete)")
            let images = try await browser.evaluate(
                "return Array.from(document.querySelectorAll('img.thumb')).map(i => i.naturalWidth > 0);")
            #expect(images.arrayValue?.count == 5 && images.arrayValue?.allSatisfy { $0 == .bool(true) } == true, "\(images)")
            // Hostile text is text: no script of it ran, no element of it exists.
            #expect(try await browser.evaluate("return window.__pwned === undefined;") == .bool(true))
            #expect(try await browser.evaluate("return document.scripts.length;") == .int(1))
            #expect(try await browser.evaluate("return document.querySelectorAll('img[onerror], img[src=\"x\"]').length;") == .int(0))
            let shown = try await browser.evaluate("return document.body.innerText.includes('<script>window.__pwned = 1</script>');")
            #expect(shown == .bool(true), "the hostile answer is shown as text")

            // The answer's table is at the top; sorting works.
            #expect(try await browser.evaluate("return document.querySelector('#answer table.matrix tbody tr td').textContent;") == .string("icecubes (baseline)"))
            // The cost table sorts its pairs by a column's value; the total stays below them.
            #expect(try await browser.evaluate("return document.querySelectorAll('#cost tbody tr').length;") == .int(4))
            try await browser.click(selector: "#cost th:nth-child(6)")
            try await browser.click(selector: "#cost th:nth-child(6)")
            let promptTokens = try await browser.evaluate(
                "return Array.from(document.querySelectorAll('#cost tbody tr td:nth-child(6)')).map(td => parseFloat(td.dataset.sort));")
            let sorted = promptTokens.arrayValue?.compactMap(\.doubleValue) ?? []
            #expect(sorted.count == 4 && sorted == sorted.sorted(by: >), "descending by prompt tokens: \(promptTokens)")
            #expect(try await browser.evaluate("const rows = document.querySelectorAll('#cost table tr'); return rows[rows.length - 1].cells[0].textContent;") == .string("total"))
            // Filters: a variant, a search, a failed check, disagreements.
            func visibleCards() async throws -> Int {
                try await browser.evaluate("return Array.from(document.querySelectorAll('article.card')).filter(c => !c.hidden).length;").intValue ?? -1
            }
            func visibleRows() async throws -> Int {
                try await browser.evaluate("return Array.from(document.querySelectorAll('tr.answer')).filter(r => !r.hidden && !r.closest('article').hidden).length;").intValue ?? -1
            }
            #expect(try await visibleCards() == 5)
            let allRows = try await visibleRows()
            func choose(_ filter: String, _ value: String) async throws {
                _ = try await browser.evaluate(
                    "const s = document.getElementById(arguments[0]); s.value = arguments[1]; s.dispatchEvent(new Event('change', {bubbles: true})); return true;",
                    [.string(filter), .string(value)])
            }
            // The mock answers both variants alike, so each row is one answer listing both.
            #expect(try await browser.evaluate("return document.querySelectorAll('tr.answer li[data-variant]').length;") == .int(2 * allRows))
            try await choose("filter-variant", "icecubes")
            #expect(try await visibleRows() == allRows)
            try await choose("filter-limit", "20")
            #expect(try await visibleRows() == allRows / 2)
            try await choose("filter-limit", "")
            try await browser.type(selector: "#filter-text", text: "pwned")
            #expect(try await visibleCards() == 1)
            try await browser.clear(selector: "#filter-text")
            try await choose("filter-check", "truncated")
            let truncatedRows = try await visibleRows()
            #expect(truncatedRows > 0 && truncatedRows < allRows)
            let count = try await browser.evaluate("return document.getElementById('filter-count').textContent;")
            #expect(count.stringValue?.hasSuffix("of 5 images") == true, "\(count)")

            let shot = workspace.url("report.png")
            try await browser.screenshot(to: shot)
            #expect((try Data(contentsOf: shot)).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// Twelve variants with 40-character names at one token limit, so the heat map's labels
    /// are long and the quality chart has one point per variant.
    static func longNames() -> [String] {
        (1...12).map { index in
            let name = "Wide Variant \(String(format: "%02d", index)) — MMWW with a long title"
            precondition(name.count == 40, "\(name) has \(name.count) characters")
            return name
        }
    }

    @Test func longNamesAndANarrowScreenKeepEverythingReadable() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        for name in Workspace.basePrompts {
            try FileManager.default.removeItem(at: workspace.url("prompts/\(name)"))
        }
        for (index, name) in Self.longNames().enumerated() {
            // Each its own text, so that no two share a stored response.
            try workspace.write("prompts/v\(index).md", "---\nname: \(name)\n---\nDescribe the image for alt text (\(index)).\n")
        }
        let run = try await AltbenchProcess.run(["run", "--provider", "mock", "--max-tokens", "12"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")

        guard let browser = try await Browser.browserOrSkip() else { return }
        do {
            try await browser.open(workspace.url("results/latest.html"))
            // One token limit: dots, not lines of one point.
            #expect(try await browser.evaluate("return document.querySelectorAll('svg.altbench-chart-dots').length;") == .int(2))
            #expect(try await browser.evaluate("return document.querySelectorAll('svg .series-line').length;") == .int(0))
            // No chart label runs outside its chart, as the browser lays the text out.
            let outside = try await browser.evaluate(
                """
                const out = [];
                document.querySelectorAll('svg.altbench-chart').forEach(svg => {
                  const box = svg.getBoundingClientRect();
                  svg.querySelectorAll('text').forEach(text => {
                    const r = text.getBoundingClientRect();
                    if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
                      out.push(svg.id + ' ' + text.textContent);
                    }
                  });
                });
                return out;
                """)
            #expect(outside.arrayValue?.isEmpty == true, "labels outside their chart: \(outside)")
            let heatMap = try await browser.evaluate(
                "return Array.from(document.querySelectorAll('svg.altbench-chart-heatmap text')).map(t => t.textContent);")
            let heatMapTexts = heatMap.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(!heatMapTexts.isEmpty && !heatMapTexts.contains { $0.contains("…") }, "\(heatMapTexts)")
            for name in Self.longNames() {
                #expect(heatMapTexts.joined(separator: " ").contains(name.prefix(20)), "\(name)")
            }
            // The heat map names the checks as the gallery's flags do.
            let columns = try await browser.evaluate(
                "return Array.from(document.querySelectorAll('svg.altbench-chart-heatmap .column-label text')).map(t => t.textContent);")
            let flags = try await browser.evaluate(
                "return Array.from(new Set(Array.from(document.querySelectorAll('#gallery .flag')).map(f => f.textContent)));")
            let columnWords = Set(columns.arrayValue?.compactMap(\.stringValue) ?? [])
            let flagWords = Set(flags.arrayValue?.compactMap(\.stringValue) ?? []).subtracting(["failed"])
            #expect(!flagWords.isEmpty && flagWords.isSubset(of: columnWords), "gallery flags \(flagWords), heat map columns \(columnWords)")
            // The mock answers every variant alike: one row per image, listing all twelve.
            let rows = try await browser.evaluate(
                "return Array.from(document.querySelectorAll('article.card')).map(c => Array.from(c.querySelectorAll('tr.answer')).map(r => r.querySelectorAll('li[data-variant]').length));")
            #expect(rows == .array(Array(repeating: .array([.int(12)]), count: 4)), "\(rows)")
            // Filtering by one variant keeps the shared row.
            _ = try await browser.evaluate(
                "const s = document.getElementById('filter-variant'); s.selectedIndex = 3; s.dispatchEvent(new Event('change', {bubbles: true})); return true;")
            #expect(try await browser.evaluate("return Array.from(document.querySelectorAll('tr.answer')).filter(r => !r.hidden).length;") == .int(4))

            // A 360-pixel screen: the page never scrolls sideways; a wide table scrolls in its box.
            try await browser.emulateViewport(width: 360, height: 740)
            #expect(try await browser.evaluate("return window.innerWidth;") == .int(360))
            let widths = try await browser.evaluate("return [document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth];")
            let page = widths.arrayValue?.compactMap(\.intValue) ?? []
            #expect(page.count == 3 && page[0] <= page[2] && page[1] <= page[2], "page wider than the screen: \(widths)")
            let box = try await browser.evaluate(
                """
                const box = document.querySelector('#summary .table-scroll');
                const wider = box.scrollWidth > box.clientWidth;
                box.scrollLeft = 60;
                return [wider, box.scrollLeft > 0, getComputedStyle(box).overflowX, box.getBoundingClientRect().right <= window.innerWidth];
                """)
            #expect(box == .array([.bool(true), .bool(true), .string("auto"), .bool(true)]), "\(box)")
            let overflowing = try await browser.evaluate(
                """
                return Array.from(document.querySelectorAll('body *')).filter(e => {
                  const r = e.getBoundingClientRect();
                  return r.width > 0 && r.right > window.innerWidth + 0.5 && !e.closest('.table-scroll');
                }).map(e => e.tagName + '.' + e.className).slice(0, 10);
                """)
            #expect(overflowing.arrayValue?.isEmpty == true, "elements past the right edge: \(overflowing)")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    @Test func withoutJavaScriptEveryCardShows() async throws {
        // The filters and paging are the script's; the HTML itself hides nothing.
        let workspace = try Workspace()
        defer { workspace.remove() }
        let run = try await AltbenchProcess.run(["run", "--provider", "mock"], in: workspace.root)
        #expect(run.status == 0)
        let html = try workspace.read("results/latest.html")
        #expect(html.components(separatedBy: "<article class=\"card\"").count == 5)
        #expect(!html.contains("<article class=\"card\" hidden"))
        #expect(html.contains("<div class=\"filters\" hidden=\"hidden\""), "the filter controls appear only with the script")
    }
}
}
