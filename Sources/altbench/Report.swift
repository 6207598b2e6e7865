import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-render a stored run's reports (HTML and Markdown) and print its summary.",
            discussion: """
                Without --format, writes results/runs/<id>.html and .md (and latest.html, latest.md for \
                the newest run), as altbench run does. --format md or html writes only that one; --format \
                json prints the summary tables and the answer (best variant per token limit, differences \
                from the baseline, truncation) as JSON on stdout and writes nothing.
                """)

        @Argument(help: ArgumentHelp("Run id or unique prefix. Default: the latest run.", valueName: "run"))
        var run: String?

        @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
        var results: String = "results"

        @Option(name: .long, help: ArgumentHelp("md, html or json. Default: both reports.", valueName: "format"))
        var format: String?

        @Flag(name: .customLong("embed-images"), help: "Inline local images in the HTML report as data URLs (a file that travels alone, e.g. a CI artifact).")
        var embedImages = false

        func validate() throws {
            if let format, !["md", "html", "json"].contains(format) {
                throw ValidationError("--format must be md, html or json, not '\(format)'.")
            }
        }

        func run() async throws {
            try await reportingFailures {
                try await ReportCommand(results: results).run(
                    id: run, format: format.flatMap(ReportCommand.Format.init(rawValue:)) ?? .both, embedImages: embedImages)
            }
        }
    }
}
