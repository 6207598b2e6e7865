import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

/// `runs/<id>.*` and `latest.*` come from one render each: the copies must be what a render
/// for each folder gives, with image links that reach the images from where each file lies.
@Suite("RunReportFiles")
struct RunReportFilesTests {
    typealias F = ReportFixtures

    static func files(latest: Bool, embed: Bool = false) -> [RunReportFiles.File] {
        let results = F.fullRun()
        var files = RunReportFiles(analysis: ReportAnalysis(results), results: results, resultsDirectory: F.resultsDirectory)
        files.embedImages = embed
        return files.render(latest: latest)
    }

    static func text(_ file: RunReportFiles.File) -> String { String(decoding: file.data, as: UTF8.self) }

    @Test func writesEachReportForRunsAndForLatest() {
        let paths = Self.files(latest: true).map(\.url.path)
        #expect(
            paths == [
                F.runsDirectory.appendingPathComponent("20260101-000000-abcd.md").path,
                F.resultsDirectory.appendingPathComponent("latest.md").path,
                F.runsDirectory.appendingPathComponent("20260101-000000-abcd.html").path,
                F.resultsDirectory.appendingPathComponent("latest.html").path,
            ])
        #expect(Self.files(latest: false).map(\.url.lastPathComponent) == ["20260101-000000-abcd.md", "20260101-000000-abcd.html"])
    }

    @Test func theRunsCopyIsTheReportRenderedForRuns() {
        let results = F.fullRun()
        let analysis = ReportAnalysis(results)
        let markdown = MarkdownReport(analysis: analysis, results: results, reportDirectory: F.runsDirectory).render()
        var html = HTMLReport(results: results, reportDirectory: F.runsDirectory)
        html.analysis = analysis
        for latest in [true, false] {
            let files = Self.files(latest: latest).filter { $0.url.deletingLastPathComponent().lastPathComponent == "runs" }
            #expect(Self.text(files[0]) == markdown)
            #expect(Self.text(files[1]) == html.render())
        }
    }

    /// Every local image link of each copy, resolved against the folder the copy lies in,
    /// names the dataset's file; no placeholder is left.
    @Test func imageLinksReachTheImagesFromBothFolders() throws {
        let files = Self.files(latest: true)
        let images = F.fullRun().items.filter { !$0.isRemote }.map(\.image)
        for file in files {
            let text = Self.text(file)
            #expect(!text.contains("altbenchlink"), "\(file.url.lastPathComponent)")
            let folder = file.url.deletingLastPathComponent()
            let pattern = file.url.pathExtension == "md" ? #/\]\(((?:\.\.?/)[^)]*)\)/# : #/src="((?:\.\.?/)[^"]*)"/#
            let links = text.matches(of: pattern).map { String($0.output.1) }
            let resolved = Set(links.map { folder.appendingPathComponent($0.removingPercentEncoding!).standardizedFileURL.path })
            #expect(resolved == Set(images), "\(file.url.lastPathComponent): \(links)")
        }
    }

    @Test func embeddedAndRemoteImagesAreTheSameInBothCopies() {
        let files = Self.files(latest: true, embed: true)
        let html = files.filter { $0.url.pathExtension == "html" }.map(Self.text)
        #expect(html.count == 2)
        #expect(html[0].contains("https://files.example.test/media/a%20b.png?width=600&amp;format=png"))
        // The fixture's images are not on disk, so they are linked; the remote one is the same in both.
        #expect(!html[0].contains("altbenchlink") && !html[1].contains("altbenchlink"))
    }

    @Test(arguments: [("a/x/b/x", "x", "y", "a/y/b/y"), ("xx", "x", "", ""), ("no match", "x!", "y", "no match"), ("", "x", "y", "")])
    func replacesEveryOccurrence(_ text: String, _ placeholder: String, _ replacement: String, _ expected: String) {
        #expect(String(decoding: RunReportFiles.replacing(placeholder, with: replacement, in: text), as: UTF8.self) == expected)
    }
}
