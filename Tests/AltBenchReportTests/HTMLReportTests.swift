import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

/// The single-file HTML report: self-contained, every untrusted text inert, the answer first,
/// one card per image. The browser test (AltBenchEndToEndTests/HTMLReportBrowserTests) loads it
/// in headless Chromium.
@Suite("HTMLReport")
struct HTMLReportTests {
    static let hostile = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(2)>", "</style><script>alert(3)</script>",
        "javascript:alert(4)", "'onmouseover='alert(5)", "&lt;script&gt;alert(6)&lt;/script&gt;", "\u{202E}evil\u{202C}",
        "</textarea></title><svg onload=alert(7)>",
    ]

    /// A run whose every untrusted field (variant names and prompts, item ids, references,
    /// expected text, answers, errors) holds hostile text.
    static func hostileRun() -> RunResults {
        var variant = PromptVariant(
            name: "v<script>alert(0)</script>", file: "prompts/\"x\".md", text: hostile.joined(separator: "\n"),
            model: "gpt-4o-mini", maxTokens: [50], description: hostile[1])
        variant.description = hostile[2]
        let item = RunResults.Item(
            id: "item\"><img src=x onerror=alert(8)>", image: "\(ReportFixtures.project)/datasets/sample/javascript:alert(9).png",
            isRemote: false, width: 10, height: 10, format: "png", references: hostile, expectedText: hostile[0],
            mustMention: [hostile[1]])
        let trials = hostile.map { text in
            ReportFixtures.answered(variant, 50, item, text, scores: ReportFixtures.scores(chars: text.count, firstPerson: true))
        } + [ReportFixtures.failed(variant, 50, item, error: hostile[1])]
        return RunResults(
            info: ReportFixtures.info(), variants: [variant], items: [item], trials: trials, plannedTrials: trials.count)
    }

    @Test func hostileTextIsEscapedWhereverItGoes() {
        let html = HTMLReport(results: Self.hostileRun(), reportDirectory: ReportFixtures.runsDirectory).render()
        // Only the report's own script element, and no event handler attribute from the data.
        #expect(html.components(separatedBy: "<script").count == 2, "exactly one script element")
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<svg onload"))
        // Attribute values are quoted with every quote inside escaped: without them, no
        // attribute of any element is an event handler.
        let withoutValues = html.replacingOccurrences(of: #"="[^"]*""#, with: "=\"\"", options: .regularExpression)
        let handler = withoutValues.range(of: #"<[a-zA-Z][^<>]*\son[a-z]+="#, options: .regularExpression)
        #expect(handler == nil, "\(handler.map { String(withoutValues[$0]) } ?? "")")
        #expect(html.components(separatedBy: "</style>").count == 2, "exactly one style element closes")
        // Shown as text: entities for markup, the answer's own "&lt;" kept as written.
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&amp;lt;script&amp;gt;alert(6)"))
        // A file name that looks like a scheme stays a relative path.
        #expect(!html.contains("src=\"javascript:"))
        let source = html.firstMatch(of: /<img src="([^"]*)"/).map { String($0.output.1) }
        #expect(source == "../../datasets/sample/javascript%3Aalert(9).png", "\(source ?? "none")")
        // Attribute values keep their quotes.
        #expect(html.contains("data-variant=\"v&lt;script&gt;alert(0)&lt;/script&gt;\""))
        #expect(html.contains("id=\"item-item&quot;&gt;&lt;img src=x onerror=alert(8)&gt;\""))
    }

    @Test func theFileIsSelfContainedAndForbidsRemoteLoads() {
        let html = HTMLReport(results: ReportFixtures.fullRun(), reportDirectory: ReportFixtures.runsDirectory).render()
        #expect(html.contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &apos;none&apos;; img-src &apos;self&apos; file: data: https://files.example.test;"))
        // The only remote URL is the dataset's own remote image.
        let remote = html.matches(of: /(src|href)="(https?:[^"]*)"/).map { String($0.output.2) }
        #expect(remote == ["https://files.example.test/media/a%20b.png?width=600&amp;format=png"])
        #expect(!html.contains("<link"))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
    }

    @Test func theAnswerComesFirstAndEveryImageHasACard() throws {
        let html = HTMLReport(results: ReportFixtures.fullRun(), reportDirectory: ReportFixtures.runsDirectory).render()
        let answer = html.range(of: "<h2>The answer</h2>")
        let gallery = html.range(of: "<h2>Per image</h2>")
        #expect(answer != nil && gallery != nil)
        #expect((answer?.lowerBound ?? html.endIndex) < (gallery?.lowerBound ?? html.startIndex))
        #expect(html.components(separatedBy: "<article class=\"card\"").count == 5)
        // Twelve trials; the bad image's three identical errors share one row.
        #expect(html.components(separatedBy: "<tr class=\"answer").count == 11)
        #expect(html.contains("short (baseline)"))
        #expect(html.contains("Not sent: "))
        // Images are linked relative to the report, percent-encoded.
        let sources = html.matches(of: /<img src="([^"]*)"/).map { String($0.output.1) }
        #expect(sources.contains("../../datasets/sample/beach%20day%20(1).jpg"), "\(sources)")
    }

    @Test func aCardShowsWhatTheDatasetKnows() {
        var item = RunResults.Item(
            id: "sign", image: "\(ReportFixtures.project)/datasets/sample/sign.png", isRemote: false,
            references: ["A sign reading OPEN."], context: "We're open!", expectedText: "OPEN", mustMention: ["sign"])
        item.tags = ["sign", "text"]
        let run = RunResults(info: ReportFixtures.info(), variants: [ReportFixtures.plain], items: [item], trials: [], plannedTrials: 0)
        let html = HTMLReport(results: run, reportDirectory: ReportFixtures.runsDirectory).render()
        for shown in ["A sign reading OPEN.", "<strong>Expected text: </strong>OPEN", "<strong>Must mention: </strong>sign", "<strong>Post: </strong>We're open!", "sign · text"] {
            #expect(html.contains(shown), "\(shown)")
        }
    }

    @Test func mockRunsSayMock() {
        let html = HTMLReport(results: ReportFixtures.fullRun(info: ReportFixtures.info(provider: .mock)), reportDirectory: ReportFixtures.runsDirectory).render()
        #expect(html.contains("MOCK RESULTS"))
    }

    @Test func embeddedImagesAreDataURLs() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = PNGEncoder.indexed(width: 2, height: 1, palette: [(0, 0, 0)], indices: [0, 0])
        try png.write(to: folder.appendingPathComponent("x.png"))
        let item = RunResults.Item(id: "x", image: folder.appendingPathComponent("x.png").path, isRemote: false, references: ["A dot."])
        let run = RunResults(info: ReportFixtures.info(), variants: [ReportFixtures.plain], items: [item], trials: [], plannedTrials: 0)
        let html = HTMLReport(results: run, reportDirectory: folder, embedImages: true).render()
        #expect(html.contains("src=\"data:image/png;base64,\(png.base64EncodedString())\""))
        #expect(HTMLReport(results: run, reportDirectory: folder).render().contains("src=\"./x.png\""))
    }

    @Test("the full report matches the golden file byte for byte")
    func golden() throws {
        let rendered = HTMLReport(results: ReportFixtures.fullRun(), reportDirectory: ReportFixtures.runsDirectory).render()
        try GoldenFile.expect(rendered, matches: "report.html")
    }
    // MARK: At any size

    /// `count` images of a run of `variants`, each at `limits`, every answer `answer(variant, limit, image)`.
    static func run(
        variants: [PromptVariant], limits: [Int?], images: Int, answer: (String, Int?, Int) -> String = { _, _, _ in "A grey cat asleep." }
    ) -> RunResults {
        let items = (0..<images).map { index in
            RunResults.Item(
                id: "image\(index)", image: "\(ReportFixtures.project)/datasets/sample/\(index).png", isRemote: false,
                references: ["A grey cat asleep on a windowsill."])
        }
        let trials = items.enumerated().flatMap { index, item in
            variants.flatMap { variant in
                limits.map { limit in
                    let text = answer(variant.name, limit, index)
                    let chars = text.trimmingCharacters(in: .whitespacesAndNewlines).count
                    return ReportFixtures.answered(variant, limit, item, text, scores: ReportFixtures.scores(chars: chars, match: 0.5))
                }
            }
        }
        return RunResults(info: ReportFixtures.info(), variants: variants, items: items, trials: trials, plannedTrials: trials.count)
    }

    static func variant(_ name: String) -> PromptVariant {
        PromptVariant(name: name, file: "prompts/\(name).md", text: "Describe the image.")
    }

    /// The `<svg id=…>` element of a chart, as rendered in the report.
    static func chart(_ id: String, in html: String) -> String? {
        guard let start = html.range(of: "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"altbench-chart altbench-chart-"),
            let named = html.range(of: "aria-labelledby=\"\(id)-title", range: start.lowerBound..<html.endIndex)
        else { return nil }
        let open = html.range(of: "<svg ", options: .backwards, range: html.startIndex..<named.lowerBound)!
        let close = html.range(of: "</svg>", range: named.upperBound..<html.endIndex)!
        return String(html[open.lowerBound..<close.upperBound])
    }

    @Test func theHeatMapNamesChecksWithTheGallerysWords() throws {
        let html = HTMLReport(results: ReportFixtures.fullRun(), reportDirectory: ReportFixtures.runsDirectory).render()
        let heatMap = try #require(Self.chart("chart-checks", in: html))
        let columns = heatMap.matches(of: /<g class="column-label">(?:<title>[^<]*<\/title>)?<text[^>]*>([^<]*)<\/text>/).map { String($0.output.1) }
        let checks = ScoringSettings.checkIDs.filter { id in ["empty", "brevity", "over_limit", "first_person", "refusal", "truncated", "redundant_prefix"].contains(id) }
        #expect(columns == checks.map { SafeHTML.escapeText(Format.flagWord($0)) }, "\(columns)")
        #expect(columns.contains("first person") && columns.contains("long") && !columns.contains("first_person") && !columns.contains("brevity"))
        // Every flag the gallery shows is a column of the heat map, in the same words.
        let flags = Set(html.matches(of: /<span class="flag">([^<]*)<\/span>/).map { String($0.output.1) }).subtracting(["failed"])
        #expect(!flags.isEmpty && flags.isSubset(of: Set(columns)), "\(flags) not all in \(columns)")
        // The gallery's check filter offers the same words, matching on the check's id.
        #expect(html.contains("<option value=\"first_person\">first person</option>"))
        #expect(html.contains("<option value=\"brevity\">long</option>"))
    }

    @Test func identicalAnswersToAnImageShareOneRowListingTheirVariants() throws {
        let (terse, plain, wordy) = (Self.variant("terse"), Self.variant("plain"), Self.variant("wordy"))
        let run = Self.run(variants: [terse, plain, wordy], limits: [50, 100], images: 1) { variant, limit, _ in
            variant == "wordy" && limit == 100 ? "A grey cat asleep on a sunny windowsill." : (variant == "plain" ? "  A grey cat asleep.\n" : "A grey cat asleep.")
        }
        let html = HTMLReport(results: run, reportDirectory: ReportFixtures.runsDirectory).render()
        let rows = html.matches(of: /<tr class="answer[^"]*"[^>]*>(.*?)<\/tr>/).map { String($0.output.1) }
        #expect(rows.count == 2, "\(rows)")
        let members = rows.map { row in row.matches(of: /<li data-variant="[^"]*" data-limit="[^"]*">([^<]*)<\/li>/).map { String($0.output.1) } }
        #expect(members == [["terse @ 50", "terse @ 100", "plain @ 50", "plain @ 100", "wordy @ 50"], ["wordy @ 100"]])
        #expect(rows[0].contains("<td class=\"text\">A grey cat asleep.</td>"))
        // Repeats of the same answer fold too, and say which repeats they are.
        var repeated = Self.run(variants: [terse], limits: [50], images: 1)
        repeated.trials += (1...2).map { index in
            ReportFixtures.answered(terse, 50, repeated.items[0], "A grey cat asleep.", repeatIndex: index, scores: repeated.trials[0].scores)
        }
        let folded = HTMLReport(results: repeated, reportDirectory: ReportFixtures.runsDirectory).render()
        #expect(folded.contains(">terse @ 50 (repeats 1, 2, 3)</li>"), "\(folded)")
    }

    @Test func aRunWithOneTokenLimitDrawsDotsNotOnePointLines() throws {
        let run = Self.run(variants: [Self.variant("terse"), Self.variant("plain")], limits: [50], images: 3) { variant, _, index in
            variant == "terse" ? "A grey cat." : "A grey cat asleep on a windowsill, number \(index)."
        }
        let html = HTMLReport(results: run, reportDirectory: ReportFixtures.runsDirectory).render()
        let quality = try #require(Self.chart("chart-quality", in: html))
        let truncated = try #require(Self.chart("chart-truncated", in: html))
        for chart in [quality, truncated] {
            #expect(chart.contains("class=\"altbench-chart altbench-chart-dots\""))
            #expect(!chart.contains("series-line"))
            #expect(chart.components(separatedBy: "<g class=\"dot-row\">").count == 3)
        }
        #expect(html.contains("at max_tokens 50, the run&apos;s one token limit") || html.contains("at max_tokens 50, the run's one token limit"))
        // Two limits or more keep the lines.
        let two = HTMLReport(results: Self.run(variants: [Self.variant("terse")], limits: [50, 100], images: 2), reportDirectory: ReportFixtures.runsDirectory).render()
        #expect(Self.chart("chart-quality", in: two)?.contains("altbench-chart-lines") == true)
    }

    @Test func everyTableScrollsInsideItsOwnBox() {
        let html = HTMLReport(results: ReportFixtures.fullRun(), reportDirectory: ReportFixtures.runsDirectory).render()
        let tables = html.components(separatedBy: "<table").count - 1
        #expect(tables >= 6)
        #expect(html.matches(of: /<div class="table-scroll[^"]*"><table/).count == tables)
        #expect(HTMLReportAssets.css.contains(".table-scroll { overflow-x: auto;"))
    }

    @Test func aLargeRunsGalleryHoldsABoundedSelectionAndSaysSo() {
        // Every fifth image gets different answers from the two variants (they disagree).
        let count = HTMLReport.galleryLimit + 100
        let run = Self.run(variants: [Self.variant("terse"), Self.variant("plain")], limits: [50], images: count) { variant, _, index in
            index % 5 == 0 && variant == "plain" ? "I see a grey cat." : "A grey cat asleep."
        }
        var firstPerson = run
        for index in firstPerson.trials.indices where firstPerson.trials[index].answer?.content == "I see a grey cat." {
            firstPerson.trials[index].scores = ReportFixtures.scores(chars: 17, firstPerson: true, match: 0.5)
        }
        let html = HTMLReport(results: firstPerson, reportDirectory: ReportFixtures.runsDirectory).render()
        let cards = html.matches(of: /<article class="card" id="item-image(\d+)" data-disagree="(\d)"/).map { (Int($0.output.1)!, $0.output.2 == "1") }
        #expect(cards.count == HTMLReport.galleryLimit)
        // All 120 disagreeing images, then the first others, in dataset order.
        #expect(cards.filter(\.1).count == count / 5)
        #expect(cards.map(\.0) == cards.map(\.0).sorted())
        #expect(html.contains("This run has 600 images; to keep the page quick to open, the gallery holds 500 of them"))
        #expect(html.contains("Markdown report"))
        // Within the limit, every image has its card.
        #expect(HTMLReport.gallerySelection(disagree: [false, true, false], limit: 3) == [0, 1, 2])
        #expect(HTMLReport.gallerySelection(disagree: [false, true, false, true], limit: 2) == [1, 3])
        #expect(HTMLReport.gallerySelection(disagree: [false, true, false, false], limit: 2) == [0, 1])
    }

    @Test func escapingSkipsNothingItShouldEscape() {
        for value in Self.hostile + ["plain text", "AT&T", "tab\there", "line\nbreak", "\u{1}", "\u{FFFE}", "é", "", "'\""] {
            #expect(SafeHTML.escapeText(value) == JUnitReport.escape(value, attribute: false), "\(value)")
            #expect(SafeHTML.escapeAttribute(value) == JUnitReport.escape(value, attribute: true), "\(value)")
        }
    }

}
