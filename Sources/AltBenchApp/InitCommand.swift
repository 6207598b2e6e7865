import AltBenchCore
import Foundation

/// `altbench init [DIR]`: writes a working starting point for evaluating one's own prompts —
/// `altbench.yml`, Ice Cubes' prompt and one variant, a dataset (the bundled sample with
/// `sample`, else a README on making one) and, with `ci`, a GitHub Actions workflow.
///
/// It never overwrites: every file it would write is checked first, and when any exists it
/// names them and writes nothing. Files are created exclusively (`O_EXCL`), and a write that
/// fails midway removes what this call created, so a folder is never left half-initialised.
package struct InitCommand: Sendable {
    /// One file `init` writes: its path relative to the target folder and its bytes' source.
    package struct Entry: Sendable, Hashable {
        package enum Source: Sendable, Hashable {
            case text(String)
            case copy(URL)
        }

        package var path: String
        package var source: Source
    }

    /// Why `init` stopped. Each message says what to do.
    package enum Failure: UserFacingError, Sendable, Hashable {
        /// Files that exist already; nothing was written.
        case wouldOverwrite(directory: String, paths: [String])
        /// The target is a file, not a folder.
        case notAFolder(path: String)
        /// `--sample` without the sample installed beside the executable.
        case sampleNotInstalled(looked: [String])
        /// A file could not be written; what this call wrote was removed again.
        case writeFailed(path: String, reason: String)

        package var description: String {
            switch self {
            case .wouldOverwrite(let directory, let paths):
                let shown = paths.count > 8 ? paths.prefix(8).joined(separator: ", ") + " and \(paths.count - 8) more" : paths.joined(separator: ", ")
                return "altbench init writes nothing, since \(directory) already has \(shown). Move \(paths.count == 1 ? "it" : "them") away, or run altbench init in another folder."
            case .notAFolder(let path):
                return "'\(path)' is a file, not a folder. Name a folder (new or existing) for altbench init to write into."
            case .sampleNotInstalled(let looked):
                return "the bundled sample is not installed beside this altbench (looked in \(looked.joined(separator: " and "))). Install altbench from its release archive, which carries it in share/altbench (see docs/install.md), or leave out --sample and make a dataset as datasets/README.md says."
            case .writeFailed(let path, let reason):
                return "cannot write \(path) (\(reason)); what altbench init had written is removed again. Check the folder's permissions and free space."
            }
        }
    }

    /// The folder to write into (created when missing).
    package var directory: URL
    /// How messages name the folder (the path as the user gave it).
    package var displayPath: String
    /// Copy the bundled 27-image sample into `datasets/sample`.
    package var sample: Bool
    /// Write `.github/workflows/altbench.yml`.
    package var ci: Bool
    /// The running executable, for finding what is installed beside it.
    package var executable: URL

    package init(directory: URL, displayPath: String, sample: Bool, ci: Bool, executable: URL) {
        self.directory = directory
        self.displayPath = displayPath
        self.sample = sample
        self.ci = ci
        self.executable = executable
    }

    /// The files `init` writes, in order.
    package func entries() throws -> [Entry] {
        var entries: [Entry] = [
            Entry(path: "altbench.yml", source: .text(StarterFiles.configuration)),
            Entry(path: "prompts/icecubes.md", source: .text(StarterFiles.icecubesPrompt)),
            Entry(path: "prompts/one-sentence.md", source: .text(StarterFiles.oneSentencePrompt)),
            Entry(path: "results/.gitignore", source: .text(StarterFiles.resultsGitignore)),
        ]
        if sample {
            let folder = try InstalledFiles(executable: executable).sampleDataset()
            for name in try Self.files(under: folder) {
                entries.append(Entry(path: "datasets/sample/\(name)", source: .copy(folder.appendingPathComponent(name))))
            }
        } else {
            entries.append(Entry(path: "datasets/README.md", source: .text(StarterFiles.datasetsReadme)))
        }
        if ci {
            entries.append(Entry(path: ".github/workflows/altbench.yml", source: .text(StarterFiles.workflow)))
        }
        return entries
    }

    /// Writes the starting point and returns the paths written, relative to `directory`.
    package func run() throws -> [String] {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw Failure.notAFolder(path: displayPath)
        }
        let entries = try entries()
        var taken = entries.map(\.path).filter { !$0.hasPrefix("datasets/sample/") }
            .filter { manager.fileExists(atPath: directory.appendingPathComponent($0).path) }
        // A sample folder that exists is the user's, whatever it holds: named once, as a folder.
        if sample, manager.fileExists(atPath: directory.appendingPathComponent("datasets/sample").path) {
            taken.append("datasets/sample/")
        }
        if !taken.isEmpty {
            throw Failure.wouldOverwrite(directory: displayPath, paths: taken)
        }

        var created: [URL] = []  // files and folders this call made, in order
        do {
            try makeFolder(directory, created: &created)
            for entry in entries {
                let url = directory.appendingPathComponent(entry.path)
                try makeFolder(url.deletingLastPathComponent(), created: &created)
                let data: Data
                switch entry.source {
                case .text(let text): data = Data(text.utf8)
                case .copy(let source): data = try Data(contentsOf: source)
                }
                do {
                    try data.write(to: url, options: .withoutOverwriting)
                } catch {
                    // Exists now although it did not a moment ago: someone else wrote it.
                    throw Failure.writeFailed(path: entry.path, reason: error.localizedDescription)
                }
                created.append(url)
            }
        } catch {
            for url in created.reversed() { try? manager.removeItem(at: url) }
            if let failure = error as? Failure { throw failure }
            throw Failure.writeFailed(path: displayPath, reason: error.localizedDescription)
        }
        return entries.map(\.path)
    }

    /// Creates `url` and the folders above it that are missing, recording each it made.
    private func makeFolder(_ url: URL, created: inout [URL]) throws {
        let manager = FileManager.default
        var missing: [URL] = []
        var cursor = url.standardizedFileURL
        while !manager.fileExists(atPath: cursor.path), cursor.path != "/" {
            missing.append(cursor)
            cursor = cursor.deletingLastPathComponent()
        }
        for folder in missing.reversed() {
            try manager.createDirectory(at: folder, withIntermediateDirectories: false)
            created.append(folder)
        }
    }

    /// The regular files under `folder`, as sorted relative paths, hidden files left out.
    static func files(under folder: URL) throws -> [String] {
        let manager = FileManager.default
        guard let enumerator = manager.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        let base = folder.resolvingSymlinksInPath().standardizedFileURL.path
        var names: [String] = []
        for case let url as URL in enumerator {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let path = url.resolvingSymlinksInPath().standardizedFileURL.path
            guard path.hasPrefix(base + "/") else { continue }
            names.append(String(path.dropFirst(base.count + 1)))
        }
        return names.sorted()
    }
}

extension InitCommand {
    /// What `init` prints after writing: the files (the sample as one line) and what to run next.
    package static func summary(written: [String], directory: String, sample: Bool) -> String {
        let samples = written.filter { $0.hasPrefix("datasets/sample/") }
        var lines = written.filter { !$0.hasPrefix("datasets/sample/") }.map { "  \($0)" }
        if !samples.isEmpty {
            let images = samples.filter { !$0.hasSuffix(".jsonl") && !$0.hasSuffix(".md") }.count
            lines.insert("  datasets/sample/ (\(images) images, manifest.jsonl, README.md, SOURCES.md)", at: min(3, lines.count))
        }
        let into = directory == "." ? "" : " in \(directory)"
        var text = "altbench init wrote \(written.count) files\(into):\n" + lines.joined(separator: "\n") + "\n\nNext:\n"
        if directory != "." { text += "  cd \(directory)\n" }
        if sample {
            text += """
                  altbench run            # the prompts on the sample: offline with the mock model until OPENAI_API_KEY is set
                  altbench run --judge    # with the vision judge (the offline mock judge until a key is set)
                  altbench plan           # what a run against a model would send and cost
                """
        } else {
            text += """
                  make a dataset: datasets/README.md says how (altbench datasets validate DIR checks it)
                  altbench plan           # what a run would send and cost
                  altbench run            # offline with the mock model until OPENAI_API_KEY is set
                """
        }
        return text
    }
}
