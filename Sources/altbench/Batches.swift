import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Batches: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List a run's Batch API batches, or cancel them.",
            discussion: """
                `altbench batches [RUN]` lists the batches a run sent with --batch (the newest such run \
                by default), as last seen: id, what they hold, state, request counts, created and \
                expiry times. `altbench run --resume RUN` looks again and imports what finished. \
                `altbench batches cancel RUN` cancels the run's batches still queued or running, \
                imports what they finished and writes the report; the rest stays unrecorded for a \
                later run. Exit status: 0, 1 when the database or the run is missing, 64 for a bad flag; \
                cancel exits as a run does.
                """,
            subcommands: [List.self, Cancel.self], defaultSubcommand: List.self)

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List a run's batches (the default).")

            @Argument(help: ArgumentHelp("The run (an id or a unique prefix). Default: the newest run with batches.", valueName: "run"))
            var run: String?

            @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
            var results: String = "results"

            func run() async throws {
                try await reportingFailures {
                    try await BatchesCommand(results: results).list(run: run)
                }
            }
        }

        struct Cancel: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Cancel a run's batches still queued or running and import what they finished.")

            @Argument(help: ArgumentHelp("The run (an id or a unique prefix).", valueName: "run"))
            var run: String

            @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
            var results: String = "results"

            @Option(name: .long, help: ArgumentHelp("Settings file. Default: ./altbench.yml when present.", valueName: "file"))
            var config: String?

            func run() async throws {
                var options = RunOptions()
                options.results = results
                options.batchCancel = true
                try await reportingFailures {
                    try await SignalTrap.trapping { control, grace in
                        let outcome = try await Evaluation(
                            options: options, configPath: config, resume: run, control: control, gracePeriod: grace
                        ).run()
                        if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
                    }
                }
            }
        }
    }
}
