import Foundation

/// What altbench ships beside its executable: `share/altbench/` next to `bin/` (the release
/// archive, a Homebrew prefix), or, for a build from source, the checkout the build folder is in.
package struct InstalledFiles: Sendable {
    /// The running executable, symlinks resolved (a Homebrew link points into its prefix).
    package var executable: URL

    package init(executable: URL) {
        self.executable = executable.resolvingSymlinksInPath()
    }

    /// The running process's executable.
    package static var current: InstalledFiles {
        InstalledFiles(executable: Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0]))
    }

    /// The folders `share/altbench` may be, in the order they are tried: beside `bin/`, then —
    /// only for an executable inside a package's `.build/` folder — that package's root, whose
    /// layout (`datasets/sample`) is the same.
    package var candidates: [URL] {
        var folders = [executable.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/altbench")]
        let path = executable.path
        if let range = path.range(of: "/.build/") {
            let root = URL(fileURLWithPath: String(path[..<range.lowerBound]))
            if FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
                folders.append(root)
            }
        }
        return folders
    }

    /// The bundled sample dataset's folder.
    package func sampleDataset() throws -> URL {
        let looked = candidates.map { $0.appendingPathComponent("datasets/sample") }
        for folder in looked where FileManager.default.fileExists(atPath: folder.appendingPathComponent("manifest.jsonl").path) {
            return folder
        }
        throw InitCommand.Failure.sampleNotInstalled(looked: looked.map(\.path))
    }
}
