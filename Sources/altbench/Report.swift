import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Report: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Re-render a stored run's Markdown report and print its summary.")

        @Argument(help: ArgumentHelp("Run id or unique prefix. Default: the latest run.", valueName: "run"))
        var run: String?

        @Option(name: .long, help: ArgumentHelp("Results folder.", valueName: "dir"))
        var results: String = "results"

        func run() async throws {
            do {
                try await ReportCommand(results: results).run(id: run)
            } catch let error as AltBenchError {
                throw fail(error.description)
            } catch let error as StoreFailure {
                throw fail(String(describing: error))
            }
        }
    }
}
