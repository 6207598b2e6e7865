import AltBenchCore
import Foundation

/// The report files of one run as `altbench run` and `altbench report` write them:
/// `runs/<id>.md` and `runs/<id>.html` under the results folder, and `latest.md` and
/// `latest.html` beside `runs/` when the run is the newest with answers.
///
/// The copies for `runs/` and for `latest` differ only in their links to local images, since
/// `runs/` lies one folder deeper. Each report is therefore rendered once, with image links
/// relative to the results folder behind a placeholder that no text can hold (random for each
/// render, letters and digits only, so no escaping changes it), and each copy is that text
/// with the placeholder replaced by its own start: `../` for `runs/`, nothing for `latest`
/// (a path segment cannot turn into a URL scheme: both reports percent-encode `:` in it).
package struct RunReportFiles: Sendable {
    /// One file to write.
    package struct File: Sendable {
        package var url: URL
        package var data: Data
    }

    /// Which reports to write.
    package enum Kind: Sendable, Hashable, CaseIterable {
        case markdown, html
        var fileExtension: String { self == .markdown ? "md" : "html" }
    }

    package var analysis: ReportAnalysis
    package var results: RunResults
    package var resultsDirectory: URL
    package var embedImages = false

    package init(analysis: ReportAnalysis, results: RunResults, resultsDirectory: URL) {
        self.analysis = analysis
        self.results = results
        self.resultsDirectory = resultsDirectory
    }

    /// The files of `kinds`, each report for `runs/` first, then its `latest` copy when
    /// `latest` is set.
    package func render(_ kinds: [Kind] = Kind.allCases, latest: Bool) -> [File] {
        let runs = resultsDirectory.appendingPathComponent("runs")
        let placeholder = latest ? "altbenchlink\(UUID().uuidString.filter(\.isHexDigit).lowercased())/" : "../"
        var files: [File] = []
        for kind in kinds {
            let text: String
            switch kind {
            case .markdown:
                var report = MarkdownReport(analysis: analysis, results: results, reportDirectory: resultsDirectory)
                report.imageLinkPrefix = placeholder
                text = report.render()
            case .html:
                var report = HTMLReport(
                    results: results, reportDirectory: resultsDirectory, embedImages: embedImages,
                    truncationLimit: analysis.truncationLimit)
                report.analysis = analysis
                report.imageLinkPrefix = placeholder
                text = report.render()
            }
            let name = "\(results.info.id).\(kind.fileExtension)"
            guard latest else {
                files.append(File(url: runs.appendingPathComponent(name), data: Data(text.utf8)))
                continue
            }
            files.append(File(url: runs.appendingPathComponent(name), data: Self.replacing(placeholder, with: "../", in: text)))
            files.append(
                File(
                    url: resultsDirectory.appendingPathComponent("latest.\(kind.fileExtension)"),
                    data: Self.replacing(placeholder, with: "", in: text)))
        }
        return files
    }

    /// `text` as UTF-8 with every `placeholder` (ASCII) replaced by `replacement`.
    static func replacing(_ placeholder: String, with replacement: String, in text: String) -> Data {
        let needle = Array(placeholder.utf8)
        let insert = Array(replacement.utf8)
        var text = text
        text.makeContiguousUTF8()
        return text.utf8.withContiguousStorageIfAvailable { bytes in
            var out = Data(capacity: bytes.count)
            var start = 0
            var index = 0
            while index + needle.count <= bytes.count {
                if bytes[index] == needle[0], bytes[index..<index + needle.count].elementsEqual(needle) {
                    out.append(contentsOf: bytes[start..<index])
                    out.append(contentsOf: insert)
                    index += needle.count
                    start = index
                } else {
                    index += 1
                }
            }
            out.append(contentsOf: bytes[start...])
            return out
        }!
    }
}
