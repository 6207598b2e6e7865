import AltBenchCore
import ArgumentParser

/// The Batch API flags of `altbench run` (a run's requests and, with `--judge`, its judge's
/// calls) and `altbench judge` (the judge's calls).
struct BatchFlags: ParsableArguments {
    @Flag(
        name: .long,
        help: "Send the requests (with --judge, the judge's calls too) through the provider's Batch API: half the price, answers within 24 hours. Kill it at any point and continue with the same command (run: --resume RUN).")
    var batch = false

    @Option(name: .customLong("batch-max-lines"), help: ArgumentHelp("Requests per batch input file, at most. Default: the provider's (50,000; Azure 100,000).", valueName: "n"))
    var batchMaxLines: Int?

    @Option(name: .customLong("batch-max-bytes"), help: ArgumentHelp("Bytes per batch input file, at most. Default: the provider's (200 MB).", valueName: "n"))
    var batchMaxBytes: Int?

    @Option(name: .customLong("batch-retries"), help: ArgumentHelp("Times requests that expired unanswered go into a new batch. Default: 2.", valueName: "n"))
    var batchRetries: Int?

    @Option(name: .customLong("batch-poll"), help: ArgumentHelp("The longest wait between two looks at the batches. Default: 60.", valueName: "seconds"))
    var batchPoll: Double?

    /// Copies the flags into `options`, whose Batch API settings they are.
    func apply(to options: inout RunOptions) {
        options.batch = batch
        options.batchMaxLines = batchMaxLines
        options.batchMaxBytes = batchMaxBytes
        options.batchRetries = batchRetries
        options.batchPoll = batchPoll
    }
}
