import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension CostPlanning.Format: ExpressibleByArgument {}

extension AltBench {
    struct Plan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what a run would send and cost, without sending anything.",
            discussion: """
                Takes the same flags and altbench.yml as `altbench run` and prints, per (prompt, \
                max_tokens) and in total: trials, answers already in the store, requests to send, \
                estimated input tokens (image tokens by the model's published formula from each \
                image's size and detail; text tokens estimated), the output ceiling (max_tokens × \
                requests) and the cost as a range (answers empty, answers at the ceiling) from the \
                prices in altbench.yml over the built-in table. A model without a price gets tokens \
                and no cost. Exit status: 0, or 1 when `altbench run` would refuse to start \
                (--max-cost below the high estimate, or a model without a price under --max-cost) \
                or a file is bad, 64 for a bad flag.
                """)

        @OptionGroup var flags: RunFlags

        @Flag(name: .long, help: "Add what judging the answers (run --judge) would send and cost.")
        var judge = false

        @OptionGroup var judgeFlags: JudgeFlags

        @Option(name: .long, help: ArgumentHelp("text (a table) or json.", valueName: "format"))
        var format: CostPlanning.Format = .text

        func run() async throws {
            try await reportingFailures {
                do {
                    var options = try flags.options()
                    options.judge = judgeFlags.options(enabled: judge)
                    let status = try await CostPlanning(options: options, configPath: flags.config).run(format: format)
                    if status != 0 { throw ExitCode(status) }
                } catch let error as AltBenchError {
                    throw fail(Run.message(for: error))
                }
            }
        }
    }
}
