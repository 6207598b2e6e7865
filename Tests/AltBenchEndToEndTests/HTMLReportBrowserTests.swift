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
                try await browser.evaluate("return Array.from(document.querySelectorAll('tr[data-variant]')).filter(r => !r.hidden && !r.closest('article').hidden).length;").intValue ?? -1
            }
            #expect(try await visibleCards() == 5)
            let allRows = try await visibleRows()
            _ = try await browser.evaluate(
                "const s = document.getElementById('filter-variant'); s.value = 'icecubes'; s.dispatchEvent(new Event('change', {bubbles: true})); return true;")
            #expect(try await visibleRows() == allRows / 2)
            try await browser.type(selector: "#filter-text", text: "pwned")
            #expect(try await visibleCards() == 1)
            try await browser.clear(selector: "#filter-text")
            _ = try await browser.evaluate(
                "const s = document.getElementById('filter-check'); s.value = 'truncated'; s.dispatchEvent(new Event('change', {bubbles: true})); return true;")
            let truncatedRows = try await visibleRows()
            #expect(truncatedRows > 0 && truncatedRows < allRows / 2)
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
