import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

extension AltBench {
    struct Judge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask a vision model to judge a stored run's answers, without asking the model judged again.",
            discussion: """
                For each answer the judge sees the image the answer describes (the same bytes), the \
                post's text and language, and the answer, and grades accuracy, completeness and \
                concision from 1 to 5 by the rubric (the built-in one unless judge.rubric or --judge-rubric names a file; --show-rubric prints it), listing concrete errors. The \
                verdicts are stored as judge_accuracy, judge_completeness and judge_concision (0-1), \
                count in the answers' content and quality, and appear in the reports, which are \
                written again. The judge is set by judge: in altbench.yml and these flags; it is \
                reached like the run's model unless judge: says otherwise; an offline run is judged by \
                the mock judge. A verdict already stored for the same judge, rubric and answer is \
                reused without a request. With --batch the calls go through the provider's Batch API \
                (half the price, answers within 24 hours; see docs/batch.md): every file and batch id \
                is stored as it arrives, and judging again (or altbench run --resume RUN) imports \
                what the batches answered without sending anything twice. Exit status: 0 when the pass finished (verdicts that failed \
                or could not be read are counted, and their scores left missing), 1 for a bad setting \
                or a stop by a configuration error, 4 when --max-cost stopped it, 124 when --deadline (or deadline: in altbench.yml) passed, \
                130 after Ctrl-C (judge again to continue: what was judged is kept).
                """)

        @Argument(help: ArgumentHelp("Run id or unique prefix. Default: the latest run.", valueName: "run"))
        var run: String?

        @OptionGroup var judge: JudgeFlags

        @OptionGroup var batch: BatchFlags

        @Option(name: .long, help: ArgumentHelp("Configuration file.", valueName: "file"))
        var config: String?

        @Option(name: .long, help: ArgumentHelp("Results folder. Default: results.", valueName: "dir"))
        var results: String?

        @Option(name: .long, help: ArgumentHelp("openai, azure, proxy or mock. Default: judge.provider, else the run's.", valueName: "name"))
        var provider: String?

        @Option(name: .customLong("base-url"), help: ArgumentHelp("OpenAI-compatible API base for the judge.", valueName: "url"))
        var baseURL: String?

        @Option(name: .long, help: ArgumentHelp("Send the judge's requests through this signed proxy.", valueName: "url"))
        var proxy: String?

        @Option(name: .long, help: ArgumentHelp("Requests in flight at once. Default: 4.", valueName: "n"))
        var concurrency: Int?

        @Option(name: .long, help: ArgumentHelp("At most this many requests per minute.", valueName: "n"))
        var rpm: Double?

        @Option(name: .long, help: ArgumentHelp("At most this many (estimated) tokens per minute.", valueName: "n"))
        var tpm: Double?

        @Option(name: .customLong("max-retries"), help: ArgumentHelp("Retries per request after a retryable failure. Default: 4.", valueName: "n"))
        var maxRetries: Int?

        @Option(name: .customLong("max-cost"), help: ArgumentHelp("Stop before the judge's spending could pass this many USD.", valueName: "usd"))
        var maxCost: Double?

        @Option(
            name: .long,
            help: ArgumentHelp("Stop judging after this long (e.g. 90s, 30m, 2h); what was judged is kept.", valueName: "duration"))
        var deadline: String?

        @Flag(name: .customLong("no-cache"), help: "Ask the judge again even when the store has its verdict.")
        var noCache = false

        @Flag(
            name: .customLong("show-rubric"),
            help: "Print the built-in rubric and exit (e.g. > judges/mine.md, then set judge.rubric to it).")
        var showRubric = false

        func validate() throws {
            if let provider, Provider(rawValue: provider) == nil {
                throw ValidationError("--provider must be openai, azure, proxy or mock, not '\(provider)'.")
            }
            if let maxCost, !(maxCost > 0) { throw ValidationError("--max-cost must be a positive amount of USD.") }
            _ = try parsedDeadline()
        }

        func parsedDeadline() throws -> Duration? { try parseDeadline(deadline) }

        func run() async throws {
            if showRubric {
                FileHandle.standardOutput.write(Data(JudgeRubric.builtIn.text.utf8))
                return
            }
            var options = RunOptions()
            options.results = results
            options.provider = provider.flatMap(Provider.init(rawValue:))
            options.baseURL = baseURL
            options.proxy = proxy
            options.concurrency = concurrency
            options.requestsPerMinute = rpm
            options.tokensPerMinute = tpm
            options.maxRetries = maxRetries
            options.maxCost = maxCost
            options.deadline = try parsedDeadline()
            options.noCache = noCache
            batch.apply(to: &options)
            try await reportingFailures {
                try await SignalTrap.trapping { control, grace in
                    let code = try await JudgeCommand(
                        judge: judge.options(enabled: true), options: options, configPath: config, control: control,
                        gracePeriod: grace
                    ).run(id: self.run)
                    if code != 0 { throw ExitCode(code) }
                }
            }
        }
    }
}
