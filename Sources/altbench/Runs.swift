import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension RunsCommand.Format: ExpressibleByArgument {}

extension AltBench {
    struct Runs: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the runs in the results database, newest first.",
            discussion: """
                One line per run: its id, when it started (UTC), the provider (MOCK for the offline \
                mock), the model(s), the dataset, its trials answered, failed and planned, and its \
                status: finished, stopped (with the reason), or running (in progress, or ended \
                without closing: continue it with `altbench run --resume ID`). --format json prints \
                the same as a JSON array with full timestamps and reasons. Exit status: 0 (also for \
                a database without runs), 1 when the results database is missing or cannot be read, \
                64 for a bad flag.
                """)

        @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
        var results: String = "results"

        @Option(name: .long, help: ArgumentHelp("text (for people) or json (for scripts).", valueName: "format"))
        var format: RunsCommand.Format = .text

        func run() async throws {
            try await reportingFailures {
                try await RunsCommand(results: results).run(format: format)
            }
        }
    }
}
