import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension ScoreCommand.OutputFormat: ExpressibleByArgument {}

extension AltBench {
    struct Score: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Score alt texts from a JSONL or CSV file with altbench's scorers.",
            discussion: """
                Each line (JSONL) or row (CSV, with a header) needs an `id` and a `text`; optional \
                fields are references, finish_reason, context, expected_text, must_mention and \
                variant (a group name, to compare several sources in one file). With --dataset, \
                items supply what a line leaves out, by id. Budgets, quality weights and hard \
                fails come from altbench.yml.
                """)

        @Argument(help: ArgumentHelp("The answers: a .jsonl or .csv file.", valueName: "file"))
        var file: String

        @Option(name: .long, help: ArgumentHelp("A dataset folder whose items supply references, context, expected_text and must_mention by id.", valueName: "dir"))
        var dataset: String?

        @Option(name: .long, help: ArgumentHelp("md (the run's tables) or json.", valueName: "format"))
        var format: ScoreCommand.OutputFormat = .md

        @Option(name: .long, help: ArgumentHelp("Configuration file. Default: altbench.yml if present.", valueName: "file"))
        var config: String?

        func run() throws {
            do {
                try ScoreCommand(file: file, dataset: dataset, format: format, configPath: config).run()
            } catch let error as any UserFacingError {
                throw fail(error.description)
            }
        }
    }
}
