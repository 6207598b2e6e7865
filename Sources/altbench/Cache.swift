import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Cache: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Inspect and prune the results database and its cache of answers.",
            discussion: """
                Every answer a model gives is kept in results/altbench.sqlite and reused by later runs \
                that ask the same question. `stats` shows what the database holds; `prune` deletes old \
                runs and the answers nothing uses any more.
                """,
            subcommands: [Stats.self, Prune.self])
    }
}

extension AltBench.Cache {
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the runs, trials and cached answers the results database holds.",
            discussion: """
                Prints the database's size on disk (with its write-ahead log), runs by status, trials, \
                cached answers, distinct cache keys, answers no trial uses, the oldest and newest \
                answer, and answers per endpoint and model. --format json prints the same figures as \
                one JSON object with sorted keys.
                """)

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json
        }

        @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
        var results: String = "results"

        @Option(name: .long, help: ArgumentHelp("text (for people) or json (for scripts).", valueName: "format"))
        var format: Format = .text

        func run() async throws {
            try await reportingFailures {
                try await CacheCommand(results: results).stats(format: format == .json ? .json : .text)
            }
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete old runs and cached answers no run uses, then compact the database.",
            discussion: """
                Give at least one of --older-than, --keep-runs and --unreferenced; together they add \
                up. A deleted run takes its variants, items, trials, scores and results/runs/<id>.md \
                with it (latest.md stays). An answer is deleted only when no remaining trial uses it, \
                so the runs that stay still render and still serve as a cache. A run marked running \
                that started in the last 24 hours is never deleted: it may be in progress. The \
                deletions are one transaction; VACUUM follows, so the file shrinks.
                """)

        @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
        var results: String = "results"

        @Option(
            name: .customLong("older-than"),
            help: ArgumentHelp(
                "Delete runs that started longer ago than AGE (90m, 12h, 30d, 2w), then unused answers from before then.",
                valueName: "age"))
        var olderThan: String?

        @Option(
            name: .customLong("keep-runs"),
            help: ArgumentHelp("Delete all but the newest N runs, then every unused answer.", valueName: "n"))
        var keepRuns: Int?

        @Flag(name: .long, help: "Delete the cached answers no trial uses.")
        var unreferenced = false

        @Flag(name: .customLong("dry-run"), help: "Print what would be deleted and change nothing.")
        var dryRun = false

        func validate() throws {
            if olderThan == nil && keepRuns == nil && !unreferenced {
                throw ValidationError(
                    "Say what to prune: --older-than AGE (e.g. 30d), --keep-runs N, or --unreferenced (any combination).")
            }
            if let keepRuns, keepRuns < 0 {
                throw ValidationError("--keep-runs must be 0 or more, not \(keepRuns).")
            }
            _ = try selection()
        }

        func selection() throws -> CacheCommand.Selection {
            var age: TimeInterval?
            if let olderThan {
                do {
                    age = try PruneAge.parse(olderThan)
                } catch let error as CacheCommandError {
                    throw ValidationError(error.description)
                }
            }
            return CacheCommand.Selection(olderThan: age, keepRuns: keepRuns, unreferenced: unreferenced)
        }

        func run() async throws {
            try await reportingFailures {
                try await CacheCommand(results: results).prune(try selection(), dryRun: dryRun)
            }
        }
    }
}
