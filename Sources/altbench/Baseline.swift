import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Baseline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Save a run as the baseline that `altbench check` compares against.",
            subcommands: [Save.self])
    }
}

extension AltBench.Baseline {
    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a stored run's figures and per-item checks to a baseline file (default results/baseline.json).",
            discussion: """
                The file (format 2) holds, per variant and max_tokens, the trials answered and failed, \
                the summary figures (rates are shares of answered trials that failed a check) and, per \
                item, the share of its repeats that passed each hard check (items.ID.passed), plus the \
                provider, model, endpoint host, dataset hash and altbench version. Keys are sorted so \
                that it diffs well in review. `check` and `compare` read format 1 files too.
                """)

        @Argument(help: ArgumentHelp("Run id or unique prefix. Default: the latest run.", valueName: "run"))
        var run: String?

        @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
        var results: String = "results"

        @Option(name: .long, help: ArgumentHelp("Baseline file to write. Default: RESULTS/baseline.json.", valueName: "file"))
        var output: String?

        @Flag(name: .customLong("allow-incomplete"), help: "Save a run that stopped before finishing.")
        var allowIncomplete = false

        func run() async throws {
            try await reportingFailures {
                try await BaselineCommand(results: results).save(
                    runID: run, output: output, allowIncomplete: allowIncomplete)
            }
        }
    }
}
