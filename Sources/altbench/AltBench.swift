import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

@main
struct AltBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "altbench",
        abstract: "Evaluate alt-text prompts against vision models.",
        discussion: """
            Runs every prompt in prompts/ at every token limit on every image of a dataset, scores \
            the answers with alt-text heuristics, and writes SQLite and Markdown to results/.
            Without OPENAI_API_KEY or a base URL, `altbench run` uses an offline mock model.
            Every command exits 64 on a command-line usage error (an unknown flag, a missing \
            argument, a value out of range or in conflict); see each command's help for the others.
            """,
        version: AltBenchVersion.description(commit: buildCommit),
        subcommands: [Init.self, Run.self, Judge.self, Plan.self, Report.self, Score.self, Baseline.self, Compare.self, Check.self, Datasets.self, Cache.self, Runs.self, Batches.self, Merge.self, Proxy.self])

    /// `altbench frobnicate`: the commands there are, and the nearest when it looks like a typo,
    /// rather than ArgumentParser's bare "Unexpected argument".
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let names = configuration.subcommands.map { $0._commandName }
        if let first = arguments.first, !first.hasPrefix("-"), first != "help", !names.contains(first) {
            var text = "error: altbench has no command '\(first)'."
            if let nearest = YAMLDiagnostics.closest(to: first, in: names) { text += " Did you mean '\(nearest)'?" }
            text += "\nIts commands: \(names.joined(separator: ", ")). See altbench --help.\n"
            FileHandle.standardError.write(Data(text.utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await main(nil)
    }
}

/// Prints a user-facing error without ArgumentParser's usage text and exits with `code`.
func fail(_ message: String, code: Int32 = 1) -> ExitCode {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    return ExitCode(code)
}

/// Runs a command's work; an error worded for the user (``UserFacingError``) becomes that
/// message on stderr and exit `code`. Every other error (an `ExitCode`, ArgumentParser's
/// own) passes on unchanged.
func reportingFailures<T>(code: Int32 = 1, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as any UserFacingError {
        throw fail(error.description, code: code)
    }
}

/// `--deadline`'s value (`run`, `judge`) as a duration; nil when the flag is absent.
func parseDeadline(_ text: String?) throws -> Duration? {
    guard let text else { return nil }
    guard let duration = DurationText.parse(text) else {
        throw ValidationError("--deadline takes a duration such as 90s, 30m or 2h, or a number of seconds (got '\(text)').")
    }
    return duration
}
