import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension CompareFormat: ExpressibleByArgument {}

extension AltBench {
    struct Compare: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compare two runs, or a baseline file and a run: deltas, significance, flips, instability.",
            discussion: """
                A and B are each a run id (or unique prefix) in RESULTS/altbench.sqlite, or a baseline \
                file written by `altbench baseline save`. Output: text for the terminal (default), md for \
                Markdown files (escaped for GitHub), json for tools. Exit status 0, 2 when a side cannot \
                be read, 64 for a bad flag or flag value.
                """)

        @Argument(help: ArgumentHelp("The earlier side: a run id, or a baseline file.", valueName: "a"))
        var a: String

        @Argument(help: ArgumentHelp("The later side: a run id, or a baseline file.", valueName: "b"))
        var b: String

        @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
        var results: String = "results"

        @Option(name: .long, help: ArgumentHelp("text (terminal), md (Markdown), json (for tools) or html (one page; redirect it to a file).", valueName: "format"))
        var format: CompareFormat = .text

        func run() async throws {
            try await reportingFailures(code: 2) {
                try await CompareCommand(results: results).run(a, b, format: format)
            }
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check the latest run (or RUN) against a baseline; exit 1 on a regression.",
            discussion: """
                Limits come from `check:` in altbench.yml (defaults: the share of failed trials may not \
                rise, quality may fall at most 0.02, first-person and refusal rates may not rise, \
                truncation may rise at most 2 points, any statistically significant regression fails). \
                A check the baseline measured and the run could not (a pair that got no answers) fails. \
                The verdict is the first line printed, then one line per pair; --verbose prints the \
                whole comparison. With $GITHUB_STEP_SUMMARY set, the whole comparison is appended to it \
                as Markdown.
                Exit status: 0 pass, 1 regression, 2 error or misconfiguration (a baseline of another \
                provider, model or dataset, a mock run against a real baseline, an unfinished run, an \
                unreadable file), 64 for a bad flag or flag value.
                """)

        @Argument(help: ArgumentHelp("Run id or unique prefix. Default: the latest run.", valueName: "run"))
        var run: String?

        @Option(name: .long, help: ArgumentHelp("Baseline file from `altbench baseline save`.", valueName: "file"))
        var baseline: String

        @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
        var results: String = "results"

        @Option(
            name: .long,
            help: ArgumentHelp(
                "text (terminal: the verdict and one line per pair), md (the whole comparison as Markdown), json (for tools) or html (one page).",
                valueName: "format"))
        var format: CompareFormat = .text

        @Flag(name: .long, help: "With --format text, print the whole comparison: every check, significance, flips, instability.")
        var verbose = false

        @Option(name: .long, help: ArgumentHelp("Also write JUnit XML here, one testcase per variant, max_tokens and check.", valueName: "file"))
        var junit: String?

        @Option(name: .long, help: ArgumentHelp("Configuration file. Default: altbench.yml if present.", valueName: "file"))
        var config: String?

        func run() async throws {
            let verdict: CheckVerdict
            do {
                verdict = try await CheckCommand(results: results, configPath: config).run(
                    baseline: baseline, runID: run, format: format, verbose: verbose, junit: junit)
            } catch let error as any UserFacingError {
                throw fail(error.description, code: 2)
            } catch {
                throw fail("\(error.localizedDescription)", code: 2)
            }
            if verdict.exitCode != 0 { throw ExitCode(verdict.exitCode) }
        }
    }
}
