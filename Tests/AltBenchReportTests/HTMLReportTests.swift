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
        #expect(html.components(separatedBy: "<tr class=\"answer").count == 13)
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
}
