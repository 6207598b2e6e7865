import Foundation
import Testing

/// The README is the front door and `docs/` the reference: every relative link must lead to a
/// file of the repository, since a user's clone has nothing beside it.
@Suite("documentation")
struct DocumentationTests {
    static let root = Workspace.repository.standardizedFileURL

    /// README.md, docs/*.md and every other Markdown file a user reads in the clone.
    static func markdownFiles() throws -> [URL] {
        var files = [root.appendingPathComponent("README.md")]
        for folder in ["docs", "examples", "results", "datasets"] {
            let url = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in walker where file.pathExtension == "md" { files.append(file) }
        }
        return files
    }

    /// The targets of inline links and images, `[text](target)`, outside code spans and blocks.
    static func links(in markdown: String) -> [String] {
        var targets: [String] = []
        var inFence = false
        for line in markdown.components(separatedBy: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence else { continue }
            // Drop code spans: a `[x](y)` inside backticks is text, not a link.
            let parts = line.components(separatedBy: "`")
            let prose = parts.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            var rest = Substring(prose)
            while let close = rest.range(of: "](") {
                let after = rest[close.upperBound...]
                guard let end = after.firstIndex(of: ")") else { break }
                targets.append(String(after[..<end]))
                rest = after[end...]
            }
        }
        return targets
    }

    @Test("every relative link in README.md and docs/ leads to a file inside the repository")
    func linksStayInside() throws {
        let files = try Self.markdownFiles()
        #expect(files.count > 8, "README.md and the docs/ pages are found")
        var checked = 0
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for target in Self.links(in: text) {
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:")
                    || target.hasPrefix("#")
                {
                    continue
                }
                let path = String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
                let resolved = file.deletingLastPathComponent().appendingPathComponent(path).standardizedFileURL
                let relative = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                #expect(
                    resolved.path.hasPrefix(Self.root.path + "/") || resolved.path == Self.root.path,
                    "\(relative) links outside the repository: \(target)")
                #expect(
                    FileManager.default.fileExists(atPath: resolved.path), "\(relative) links to a missing file: \(target)")
                checked += 1
            }
        }
        #expect(checked > 10)
    }

    @Test("the README is a front door: short, with the two commands and links to docs/")
    func readmeIsShort() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.utf8.count < 12 * 1024)
        #expect(readme.contains("swift run altbench run"))
        #expect(readme.contains("swift test"))
        #expect(readme.contains("altbench init --sample"), "the second way in: an installed altbench in one's own repository")
        #expect(!readme.contains("../shared"))
        for page in ["install", "commands", "file-formats", "scoring", "judge", "results", "reliability", "benchmarks", "architecture"] {
            #expect(readme.contains("(docs/\(page).md)"), "README links docs/\(page).md")
        }
    }

    @Test("the link reader finds links and skips code")
    func linkReader() {
        let markdown = """
            See [a](docs/a.md) and ![img](x.png#y), `[not](code.md)`.
            ```
            [not](fenced.md)
            ```
            """
        #expect(Self.links(in: markdown) == ["docs/a.md", "x.png#y"])
    }
}
