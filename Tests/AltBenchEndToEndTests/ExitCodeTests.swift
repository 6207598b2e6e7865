import AltBenchTesting
import Foundation
import Testing

/// The exit statuses the command reference documents, asserted on the built binary: 64 for
/// every command-line usage error (unknown flags, missing arguments, out-of-range or
/// conflicting values), 1 for bad files and a missing results database, and each command's
/// own statuses beside them.
@Suite("exit statuses")
struct ExitCodeTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        /// Text stderr must hold.
        var message: String
        var testDescription: String { "altbench \(arguments.joined(separator: " ")) → \(status)" }
    }

    static let usageErrors: [Case] = [
        Case(arguments: ["run", "--concurrency", "0"], status: 64, message: "--concurrency must be between 1 and 256 (got 0)"),
        Case(arguments: ["run", "--concurrency", "257"], status: 64, message: "--concurrency must be between 1 and 256"),
        Case(arguments: ["run", "--repeats", "0"], status: 64, message: "--repeats must be between 1 and 1000 (got 0)"),
        Case(arguments: ["run", "--max-retries=-1"], status: 64, message: "--max-retries must be between 0 and 20 (got -1)"),
        Case(arguments: ["run", "--retries", "21"], status: 64, message: "--max-retries must be between 0 and 20 (got 21)"),
        Case(arguments: ["run", "--timeout", "0"], status: 64, message: "--timeout takes a positive number of seconds"),
        Case(arguments: ["run", "--brevity-budget", "0"], status: 64, message: "--brevity-budget takes a positive number"),
        Case(arguments: ["run", "--max-tokens", "50,abc"], status: 64, message: "--max-tokens takes positive whole numbers"),
        Case(arguments: ["run", "--provider", "bedrock"], status: 64, message: "--provider must be openai, azure, proxy or mock"),
        Case(
            arguments: ["run", "--azure-endpoint", "https://r.openai.azure.com", "--base-url", "http://127.0.0.1:1/v1"], status: 64,
            message: "--azure-endpoint with --base-url: both say where requests go"),
        Case(arguments: ["run", "--azure-deployment", "a/b"], status: 64, message: "--azure-deployment: 'a/b' is not a deployment name"),
        Case(arguments: ["run", "--base-url", "localhost:8080"], status: 64, message: "is not an http(s) URL"),
        Case(arguments: ["run", "--model", " "], status: 64, message: "--model needs a model name"),
        Case(arguments: ["run", "--deadline", "soon"], status: 64, message: "--deadline takes a duration"),
        Case(arguments: ["run", "--rpm", "0"], status: 64, message: "--rpm takes a positive number per minute"),
        Case(arguments: ["run", "--max-cost", "-1"], status: 64, message: "--max-cost takes a positive number of US dollars"),
        Case(arguments: ["run", "--offline", "--no-cache"], status: 64, message: "--offline answers only from the store"),
        Case(arguments: ["run", "--concurency", "2"], status: 64, message: "Unknown option '--concurency'"),
        Case(arguments: ["frobnicate"], status: 64, message: "altbench has no command 'frobnicate'.\nIts commands: init, run, judge, plan"),
        Case(arguments: ["rnu", "--max-tokens", "5"], status: 64, message: "altbench has no command 'rnu'. Did you mean 'run'?"),
        Case(arguments: ["report", "--bogus"], status: 64, message: "Unknown option '--bogus'"),
        Case(arguments: ["score"], status: 64, message: "Missing expected argument '<file>'"),
        Case(arguments: ["score", "answers.jsonl", "--format", "xml"], status: 64, message: "--format"),
        Case(arguments: ["baseline", "save", "--bogus"], status: 64, message: "Unknown option '--bogus'"),
        Case(arguments: ["compare", "a"], status: 64, message: "Missing expected argument '<b>'"),
        Case(arguments: ["compare", "a", "b", "--format", "xml"], status: 64, message: "--format"),
        Case(arguments: ["check"], status: 64, message: "Missing expected argument '--baseline <file>'"),
        Case(arguments: ["check", "--baseline", "b.json", "--format", "xml"], status: 64, message: "--format"),
        Case(arguments: ["datasets", "validate", "--bogus"], status: 64, message: "Unknown option '--bogus'"),
        Case(arguments: ["cache", "prune"], status: 64, message: "Say what to prune"),
        Case(arguments: ["cache", "prune", "--older-than", "soon"], status: 64, message: "--older-than takes"),
        Case(arguments: ["cache", "prune", "--keep-runs=-1"], status: 64, message: "--keep-runs must be 0 or more"),
        Case(arguments: ["cache", "stats", "--format", "xml"], status: 64, message: "--format"),
        Case(arguments: ["runs", "--format", "xml"], status: 64, message: "--format"),
    ]

    /// Usage errors are refused before anything is read or written.
    @Test(arguments: usageErrors)
    func usageErrorsExit64(_ usage: Case) async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let output = try await AltbenchProcess.run(usage.arguments, in: workspace.root)
        #expect(output.status == usage.status, "\(output.stderr)")
        #expect(output.stderr.contains(usage.message), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.url("results").path), "nothing was written")
    }

    /// Bad files, missing folders and a missing database are exit 1 (check and compare: 2),
    /// with the message naming the file.
    @Test func badFilesExitOneAndNameTheFile() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        func expect(_ arguments: [String], _ status: Int32, _ message: String, sourceLocation: SourceLocation = #_sourceLocation)
            async throws
        {
            let output = try await AltbenchProcess.run(arguments, in: workspace.root)
            #expect(output.status == status, "\(arguments): \(output.stderr)", sourceLocation: sourceLocation)
            #expect(
                (output.stdout + output.stderr).contains(message), "\(arguments): \(output.stdout)\(output.stderr)",
                sourceLocation: sourceLocation)
        }
        // The same out-of-range value, from a file, is the file's error.
        try workspace.write("altbench.yml", "max_tokens: 50\nconcurrency: 0\n")
        try await expect(["run"], 1, "altbench.yml:2: `concurrency` must be between 1 and 256 (got 0).")
        try FileManager.default.removeItem(at: workspace.url("altbench.yml"))
        try await expect(["run", "--prompts", "nowhere"], 1, "The prompts folder 'nowhere' does not exist")
        try await expect(["run", "--dataset", "datasets/none"], 1, "The dataset 'datasets/none' does not exist")
        try await expect(["run", "--config", "missing.yml"], 1, "missing.yml: no such file")
        try await expect(["score", "missing.jsonl"], 1, "missing.jsonl")
        try await expect(["datasets", "validate", "datasets/none"], 1, "datasets/none")
        for command in [["report"], ["runs"], ["baseline", "save"], ["cache", "stats"]] {
            try await expect(command, 1, "results/altbench.sqlite")
        }
        try await expect(["compare", "a", "b"], 2, "results/altbench.sqlite holds no runs yet")
        try await expect(["check", "--baseline", "missing.json"], 2, "The baseline missing.json does not exist")

        // And the ones that succeed.
        for arguments in [["--help"], ["--version"], ["runs", "--help"], ["run", "--help"]] {
            let output = try await AltbenchProcess.run(arguments, in: workspace.root)
            #expect(output.status == 0, "\(arguments): \(output.stderr)")
        }
        let run = try await AltbenchProcess.run(["run", "--max-tokens", "50"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")
        try await expect(["runs", "--results", "results/"], 0, "MOCK")
    }

    /// A bad manifest stops the run at its first problem and names the command that lists
    /// them all, with the dataset's own path (quoted when the shell needs it).
    @Test func aBadDatasetStopsTheRunAndPointsAtDatasetsValidate() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let folder = "datasets/my photos"
        try FileManager.default.copyItem(at: workspace.url("datasets/sample"), to: workspace.url(folder))
        var manifest = try workspace.read("\(folder)/manifest.jsonl")
        let first = manifest.split(separator: "\n").count + 1
        manifest += "{\"id\": \"x\"}\n{\"id\": \"y\", \"image\": \"y.png\"\n"
        try workspace.write("\(folder)/manifest.jsonl", manifest)

        let run = try await AltbenchProcess.run(["run", "--dataset", folder], in: workspace.root)
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(folder)/manifest.jsonl:\(first):"), "\(run.stderr)")
        #expect(!run.stderr.contains("manifest.jsonl:\(first + 1):"), "the run stops at the first problem")
        #expect(
            run.stderr.contains("That is the dataset's first problem; `altbench datasets validate 'datasets/my photos'` lists them all."),
            "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: workspace.url("results/altbench.sqlite").path))

        // The command it names does list them all.
        let validate = try await AltbenchProcess.run(["datasets", "validate", folder], in: workspace.root)
        #expect(validate.status == 1)
        #expect(validate.stdout.contains("manifest.jsonl:\(first):"))
        #expect(validate.stdout.contains("manifest.jsonl:\(first + 1):"))

        // A plain path is printed as is.
        let plain = try await AltbenchProcess.run(["run", "--dataset", "datasets/my photos/"], in: workspace.root)
        #expect(plain.stderr.contains("`altbench datasets validate 'datasets/my photos'`"), "\(plain.stderr)")
        try FileManager.default.moveItem(at: workspace.url(folder), to: workspace.url("datasets/photos"))
        let unquoted = try await AltbenchProcess.run(["run", "--dataset", "datasets/photos"], in: workspace.root)
        #expect(unquoted.stderr.contains("`altbench datasets validate datasets/photos` lists them all."), "\(unquoted.stderr)")
    }
}
