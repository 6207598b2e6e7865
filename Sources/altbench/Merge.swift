import AltBenchApp
import AltBenchCore
import AltBenchStore
import ArgumentParser
import Foundation

extension AltBench {
    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join the stores of altbench run --shard jobs into one run.",
            discussion: """
                Each job of a split run (altbench run --shard K/N --results DIR) writes its share \
                of the trials to DIR/altbench.sqlite. altbench merge reads those stores (files or \
                results folders) and writes one run with every trial, answer, score and judgement \
                into --into; report, baseline save, compare and check then read it as any run. A \
                store from another plan (prompts, dataset, model or settings differ, or another N) \
                is refused with what differs, and nothing is written. Merging the same stores again \
                changes nothing; merging a shard that arrives later completes the same run. \
                Exit status: 0 every shard is in, 3 merged but shards or trials are still missing, \
                1 a store is missing or from another plan, 64 for a bad flag.
                """)

        @Argument(help: ArgumentHelp("The shard stores: altbench.sqlite files or results folders.", valueName: "store"))
        var stores: [String]

        @Option(name: .long, help: ArgumentHelp("The database the merged run goes to (created when absent). Default: results/altbench.sqlite.", valueName: "file"))
        var into: String = "results/altbench.sqlite"

        func validate() throws {
            if stores.isEmpty { throw ValidationError("give the store of each shard job: altbench merge shard-1/altbench.sqlite shard-2/altbench.sqlite …") }
        }

        func run() async throws {
            try await reportingFailures {
                let (_, code) = try await MergeCommand().run(stores: stores, into: into)
                if code != 0 { throw ExitCode(code) }
            }
        }
    }
}
