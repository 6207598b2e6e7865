import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Datasets: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Work with dataset folders.",
            subcommands: [Validate.self, Generate.self])
    }
}

extension AltBench.Datasets {
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a dataset folder and list every problem, not just the first.",
            discussion: """
                Checks each manifest.jsonl line (JSON, ids, fields and their types, references, lang \
                tags, unknown keys) and each image (readable, a format vision models accept, within the \
                size limit), or every image of a folder without a manifest. Prints one line per problem \
                as LOCATION: item 'ID': MESSAGE, warnings as LOCATION: warning: MESSAGE, then a summary. \
                Exit status: 0 when there are no problems, 1 when there are (or the folder is missing \
                or empty).
                """)

        @Argument(help: ArgumentHelp("Dataset folder (manifest.jsonl or images).", valueName: "dir"))
        var directory: String = "datasets/sample"

        @Flag(name: .long, help: "Count warnings (unused images, repeated or flagged references) as problems.")
        var strict = false

        func run() throws {
            let validation = DatasetValidator(strict: strict)
                .validate(directory: URL(fileURLWithPath: directory), displayPath: directory)
            FileHandle.standardOutput.write(Data(validation.report.utf8))
            if !validation.passed { throw ExitCode.failure }
        }
    }
}

extension AltBench.Datasets {
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a dataset's images from a YAML spec: the Images API, a signed proxy, or offline.",
            discussion: """
                Reads SPEC (model, size, quality and a list of items, each with an id, a prompt and the \
                manifest fields to copy), sends one image request per item and writes DIR/images/<id>.<ext> \
                and one DIR/manifest.jsonl line per image, marked "reviewed": false until a person has looked \
                at it (datasets validate warns about unreviewed images; --strict fails on them). dall-e-* \
                models get ShipThatApp's request shape, other models the GPT image shape. Where requests go is \
                chosen as for run: --proxy URL (or proxy: in altbench.yml) through a team's signed proxy, \
                OPENAI_API_KEY or --base-url directly, else the offline mock, which draws a placeholder PNG \
                per item and says so. Images are cached in the results store: the same spec again sends \
                nothing. Exit status: 0 every item generated, 3 some items failed (e.g. refused by a content \
                policy; the rest are written), 1 a bad spec or altbench.yml, or a stop (bad key, unknown or \
                removed model), 64 a bad flag.
                """)

        @Argument(help: ArgumentHelp("The spec: a YAML file of items to generate.", valueName: "spec"))
        var spec: String

        @Option(name: .long, help: ArgumentHelp("The dataset folder to write (images/ and manifest.jsonl).", valueName: "dir"))
        var out: String

        @Option(name: .long, help: ArgumentHelp("Image model for every item, over the spec's. Default: gpt-image-1.", valueName: "name"))
        var model: String?

        @Option(name: .long, help: ArgumentHelp("Image size for every item, over the spec's, e.g. 1024x1024.", valueName: "WxH"))
        var size: String?

        @Option(name: .long, help: ArgumentHelp("Image quality for every item, over the spec's (low, medium, high; DALL·E: standard, hd).", valueName: "q"))
        var quality: String?

        @Option(name: .long, help: ArgumentHelp("openai, proxy or mock. Default: proxy when a proxy URL is set, openai when a key or base URL is set, else mock.", valueName: "name"))
        var provider: String?

        @Option(name: .customLong("base-url"), help: ArgumentHelp("OpenAI-compatible API base, e.g. http://127.0.0.1:8080/v1.", valueName: "url"))
        var baseURL: String?

        @Option(name: .long, help: ArgumentHelp("A team's signed proxy (its base, no /v1); the app key comes from ALTBENCH_PROXY_APP_KEY.", valueName: "url"))
        var proxy: String?

        @Option(
            name: .customLong("proxy-route"),
            help: ArgumentHelp("images (the proxy's /v1/images/generations) or dalle (ShipThatApp's /dalle, answering {\"url\"}). Default: images.", valueName: "route"))
        var proxyRoute = "images"

        @Option(name: .long, help: ArgumentHelp("Results folder holding altbench.sqlite, where images are cached. Default: results.", valueName: "dir"))
        var results: String?

        @Option(name: .long, help: ArgumentHelp("Requests in flight at once. Default: 2.", valueName: "n"))
        var concurrency: Int?

        @Option(name: .long, help: ArgumentHelp("Seconds before a request is abandoned (and retried). Default: 300.", valueName: "seconds"))
        var timeout: Double?

        @Option(name: [.customLong("max-retries"), .customLong("retries")], help: ArgumentHelp("Retries of a 429, 5xx or timeout. Default: 4.", valueName: "n"))
        var maxRetries: Int?

        @Option(name: .long, help: ArgumentHelp("Configuration file.", valueName: "file"))
        var config: String?

        @Flag(name: .customLong("no-cache"), help: "Generate again even when the store has the images.")
        var noCache = false

        @Flag(name: .customLong("dry-run"), help: "Print the requests it would send; send and write nothing.")
        var dryRun = false

        func validate() throws {
            // Image generation through Azure OpenAI is not built.
            if let provider, Provider(rawValue: provider) == nil || provider == Provider.azure.rawValue {
                throw ValidationError("--provider must be openai, proxy or mock, not '\(provider)'.")
            }
            if !["images", "dalle"].contains(proxyRoute) {
                throw ValidationError("--proxy-route must be images or dalle, not '\(proxyRoute)'.")
            }
            if let concurrency, !(1...64).contains(concurrency) {
                throw ValidationError("--concurrency must be between 1 and 64 (got \(concurrency)).")
            }
            if let timeout, !Experiment.isValidTimeout(timeout) {
                throw ValidationError("--timeout takes a positive number of seconds, at most \(Int(Experiment.maxTimeout)) (got \(timeout)).")
            }
            if let maxRetries, !Experiment.retriesRange.contains(maxRetries) {
                throw ValidationError("--max-retries must be between 0 and 20 (got \(maxRetries)).")
            }
            for (name, value) in [("--model", model), ("--size", size), ("--quality", quality)] {
                if let value, value.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("\(name) needs a value.") }
            }
            do {
                if let baseURL { _ = try Experiment.parseBaseURL(baseURL, source: "--base-url") }
                if let proxy { _ = try Experiment.parseProxyURL(proxy, source: "--proxy") }
            } catch let error as AltBenchError {
                throw ValidationError(error.description)
            }
            if proxy != nil, baseURL != nil {
                throw ValidationError("--proxy and --base-url both say where requests go. Give one of them.")
            }
        }

        func run() async throws {
            var options = GenerateCommand.Options(spec: spec, out: out)
            options.model = model
            options.size = size
            options.quality = quality
            options.provider = provider.flatMap(Provider.init(rawValue:))
            options.baseURL = baseURL
            options.proxy = proxy
            options.proxyRoute = proxyRoute
            options.results = results
            options.noCache = noCache
            options.dryRun = dryRun
            options.concurrency = concurrency
            options.timeout = timeout
            options.maxRetries = maxRetries
            try await reportingFailures {
                let outcome = try await GenerateCommand(options: options, configPath: config).run()
                if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
            }
        }
    }
}
