import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a starting point for evaluating your own prompts: altbench.yml, prompts, a dataset.",
            discussion: """
                Writes into DIR (default: the current folder; created when missing) altbench.yml with \
                today's defaults, every key commented; prompts/icecubes.md (Ice Cubes' alt-text request, \
                the baseline) and prompts/one-sentence.md (one variant of it); results/.gitignore; and \
                either datasets/sample (--sample: the bundled 27 images with references, so that \
                `altbench run` works at once, offline with the mock until a key is set) or \
                datasets/README.md (how to make a dataset from your images). --ci adds \
                .github/workflows/altbench.yml, which installs altbench with its GitHub Action and checks \
                prompt changes against a baseline. It never overwrites: when any of these files exists, \
                it names them and writes nothing. Exit status: 0 written, 1 nothing written (a file \
                exists, the sample is not installed, a write failed), 64 a bad flag.
                """)

        @Argument(help: ArgumentHelp("The folder to write into. Default: the current folder.", valueName: "dir"))
        var directory: String = "."

        @Flag(name: .long, help: "Copy the bundled 27-image sample into datasets/sample.")
        var sample = false

        @Flag(name: .long, help: "Also write a GitHub Actions workflow (.github/workflows/altbench.yml).")
        var ci = false

        func run() throws {
            let command = InitCommand(
                directory: URL(fileURLWithPath: directory), displayPath: directory, sample: sample, ci: ci,
                executable: InstalledFiles.current.executable)
            let written: [String]
            do {
                written = try command.run()
            } catch let error as any UserFacingError {
                throw fail(error.description)
            }
            print(InitCommand.summary(written: written, directory: directory, sample: sample))
        }
    }
}
