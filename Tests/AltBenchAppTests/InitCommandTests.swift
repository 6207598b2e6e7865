import AltBenchApp
import AltBenchCore
import AltBenchTesting
import Foundation
import Testing

/// `altbench init`: what it writes, where it finds the sample, and that it never overwrites.
@Suite("altbench init")
struct InitCommandTests {
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-init-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// An installed layout (`bin/altbench`, `share/altbench/datasets/sample/`) outside any
    /// checkout, with a two-file sample whose text marks it as this install's.
    static func install() throws -> (root: URL, executable: URL) {
        let root = try temporaryFolder()
        let bin = root.appendingPathComponent("bin")
        let sample = root.appendingPathComponent("share/altbench/datasets/sample")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sample.appendingPathComponent("images"), withIntermediateDirectories: true)
        let executable = bin.appendingPathComponent("altbench")
        try Data("#!/bin/sh\n".utf8).write(to: executable)
        try Data("{\"id\": \"a\", \"image\": \"images/a.png\"}\n".utf8).write(to: sample.appendingPathComponent("manifest.jsonl"))
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: sample.appendingPathComponent("images/a.png"))
        try Data("hidden".utf8).write(to: sample.appendingPathComponent(".DS_Store"))
        return (root, executable)
    }

    /// Every file under `folder`, relative, sorted.
    static func listing(_ folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory)
            files.append(isDirectory.boolValue ? path + "/" : path)
        }
        return files.sorted()
    }

    @Test("without --sample: settings, two prompts, a dataset README and the results .gitignore, into a new folder")
    func startingPoint() throws {
        let (install, executable) = try Self.install()
        let parent = try Self.temporaryFolder()
        defer { for url in [install, parent] { try? FileManager.default.removeItem(at: url) } }
        let target = parent.appendingPathComponent("new/project")
        let written = try InitCommand(directory: target, displayPath: "new/project", sample: false, ci: false, executable: executable).run()
        #expect(written == ["altbench.yml", "prompts/icecubes.md", "prompts/one-sentence.md", "results/.gitignore", "datasets/README.md"])
        #expect(Self.listing(target) == [
            "altbench.yml", "datasets/", "datasets/README.md", "prompts/", "prompts/icecubes.md", "prompts/one-sentence.md",
            "results/", "results/.gitignore",
        ])
        #expect(try String(contentsOf: target.appendingPathComponent("altbench.yml"), encoding: .utf8) == StarterFiles.configuration)
        // What it wrote is what altbench reads: the settings load, the prompts parse.
        let config = try ConfigFile.load(from: target.appendingPathComponent("altbench.yml"), displayPath: "altbench.yml")
        #expect(config.dataset == "datasets/sample")
        let prompts = try PromptLoader().load(directory: target.appendingPathComponent("prompts"))
        #expect(prompts.map(\.name).sorted() == ["icecubes", "one-sentence"])
        let summary = InitCommand.summary(written: written, directory: "new/project", sample: false)
        #expect(summary.hasPrefix("altbench init wrote 5 files in new/project:\n"))
        #expect(summary.contains("cd new/project") && summary.contains("datasets/README.md says how"))
    }

    @Test("--sample copies the sample installed beside the executable, hidden files left out; --ci adds the workflow")
    func sampleFromTheInstall() throws {
        let (install, executable) = try Self.install()
        let target = try Self.temporaryFolder()
        defer { for url in [install, target] { try? FileManager.default.removeItem(at: url) } }
        let written = try InitCommand(directory: target, displayPath: ".", sample: true, ci: true, executable: executable).run()
        #expect(written.contains("datasets/sample/manifest.jsonl") && written.contains("datasets/sample/images/a.png"))
        #expect(!written.contains("datasets/README.md") && !written.contains { $0.contains(".DS_Store") })
        #expect(written.last == ".github/workflows/altbench.yml")
        #expect(
            try Data(contentsOf: target.appendingPathComponent("datasets/sample/images/a.png"))
                == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(
            try String(contentsOf: target.appendingPathComponent(".github/workflows/altbench.yml"), encoding: .utf8)
                == StarterFiles.workflow)
        let summary = InitCommand.summary(written: written, directory: ".", sample: true)
        #expect(summary.contains("datasets/sample/ (1 images, manifest.jsonl, README.md, SOURCES.md)"))
        #expect(!summary.contains("cd .") && summary.contains("altbench run --judge"))
    }

    @Test("where the sample is looked for: share/altbench beside bin/, and a package root only for a .build executable")
    func installedFiles() throws {
        let (install, executable) = try Self.install()
        defer { try? FileManager.default.removeItem(at: install) }
        let installed = InstalledFiles(executable: executable)
        #expect(installed.candidates.map(\.path) == [install.appendingPathComponent("share/altbench").resolvingSymlinksInPath().path])
        #expect(try installed.sampleDataset().path.hasSuffix("share/altbench/datasets/sample"))

        // A symlink to the executable (a Homebrew link in another bin/) finds the same install.
        let elsewhere = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let link = elsewhere.appendingPathComponent("altbench")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: executable)
        #expect(try InstalledFiles(executable: link).sampleDataset().path == installed.sampleDataset().path)

        // Built from source: the checkout holds the sample.
        let built = InstalledFiles(executable: Repository.root.appendingPathComponent(".build/debug/altbench"))
        #expect(built.candidates.last?.standardizedFileURL.path == Repository.root.standardizedFileURL.path)
        #expect(try built.sampleDataset().path.hasSuffix("datasets/sample"))

        // Neither: a clear error naming where it looked, nothing written.
        let bare = InstalledFiles(executable: elsewhere.appendingPathComponent("bin/altbench"))
        #expect(bare.candidates.count == 1)
        let target = elsewhere.appendingPathComponent("project")
        #expect {
            try InitCommand(directory: target, displayPath: "project", sample: true, ci: false, executable: bare.executable).run()
        } throws: { error in
            let text = "\(error)"
            return text.contains("the bundled sample is not installed beside this altbench")
                && text.contains(elsewhere.appendingPathComponent("share/altbench/datasets/sample").path)
                && text.contains("leave out --sample")
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test("an existing file is named and left alone, and nothing else is written")
    func neverOverwrites() throws {
        let (install, executable) = try Self.install()
        let target = try Self.temporaryFolder()
        defer { for url in [install, target] { try? FileManager.default.removeItem(at: url) } }
        try FileManager.default.createDirectory(at: target.appendingPathComponent("prompts"), withIntermediateDirectories: true)
        try "mine\n".write(to: target.appendingPathComponent("prompts/icecubes.md"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: target.appendingPathComponent("datasets/sample"), withIntermediateDirectories: true)
        let before = Self.listing(target)
        #expect(throws: InitCommand.Failure.wouldOverwrite(directory: "proj", paths: ["prompts/icecubes.md", "datasets/sample/"])) {
            try InitCommand(directory: target, displayPath: "proj", sample: true, ci: false, executable: executable).run()
        }
        #expect(Self.listing(target) == before)
        #expect(try String(contentsOf: target.appendingPathComponent("prompts/icecubes.md"), encoding: .utf8) == "mine\n")
        #expect(
            InitCommand.Failure.wouldOverwrite(directory: "proj", paths: ["altbench.yml"]).description
                == "altbench init writes nothing, since proj already has altbench.yml. Move it away, or run altbench init in another folder.")

        let file = target.appendingPathComponent("notes.txt")
        try "x".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: InitCommand.Failure.notAFolder(path: "notes.txt")) {
            try InitCommand(directory: file, displayPath: "notes.txt", sample: false, ci: false, executable: executable).run()
        }
    }

    @Test("a write that fails midway removes what was written, folders included")
    func rollsBack() throws {
        let (install, executable) = try Self.install()
        let target = try Self.temporaryFolder()
        defer { for url in [install, target] { try? FileManager.default.removeItem(at: url) } }
        // `datasets` is a file, so datasets/README.md cannot be written — after four files were.
        try "not a folder".write(to: target.appendingPathComponent("datasets"), atomically: true, encoding: .utf8)
        #expect {
            try InitCommand(directory: target, displayPath: "proj", sample: false, ci: false, executable: executable).run()
        } throws: { error in
            guard case .writeFailed(let path, _) = error as? InitCommand.Failure else { return false }
            return path == "datasets/README.md" && "\(error)".contains("what altbench init had written is removed again")
        }
        #expect(Self.listing(target) == ["datasets"])
    }

    @Test("the repository's own settings and prompts are the text init writes")
    func repositoryCopiesMatch() throws {
        let root = Repository.root
        #expect(try String(contentsOf: root.appendingPathComponent("altbench.yml"), encoding: .utf8) == StarterFiles.configuration)
        #expect(try String(contentsOf: root.appendingPathComponent("prompts/icecubes.md"), encoding: .utf8) == StarterFiles.icecubesPrompt)
        #expect(
            try String(contentsOf: root.appendingPathComponent("prompts/one-sentence.md"), encoding: .utf8) == StarterFiles.oneSentencePrompt)
        #expect(
            try String(contentsOf: root.appendingPathComponent("examples/ci/altbench.yml"), encoding: .utf8) == StarterFiles.workflow,
            "init --ci writes the example workflow")
    }
}
