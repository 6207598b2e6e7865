import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Datasets: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Work with dataset folders.",
            subcommands: [Validate.self])
    }
}

extension AltBench.Datasets {
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a dataset folder and list every problem, not just the first.",
            discussion: """
                Checks each manifest.jsonl line (JSON, ids, fields and their types, references, lang \
                tags, unknown keys) and each image (readable, a format vision models accept, within the \
                size limit), or every image of a folder without a manifest. Prints one line per problem \
                as LOCATION: item 'ID': MESSAGE, warnings as LOCATION: warning: MESSAGE, then a summary. \
                Exit status: 0 when there are no problems, 1 when there are (or the folder is missing \
                or empty).
                """)

        @Argument(help: ArgumentHelp("Dataset folder (manifest.jsonl or images).", valueName: "dir"))
        var directory: String = "datasets/sample"

        @Flag(name: .long, help: "Count warnings (unused images, repeated or flagged references) as problems.")
        var strict = false

        func run() throws {
            let validation = DatasetValidator(strict: strict)
                .validate(directory: URL(fileURLWithPath: directory), displayPath: directory)
            FileHandle.standardOutput.write(Data(validation.report.utf8))
            if !validation.passed { throw ExitCode.failure }
        }
    }
}
