// `altbench-bench batch [--trials N]`: a run of N trials (default 100,000) through the Batch API
// of a loopback test server (`altbench-bench serve-batches`, a child process, so the figures
// are the client's), then the same plan in 4 shards, merged.
//
// Targets (issue: evaluate at scale): the client's peak RSS ≤ 300 MB; importing the output
// lines ≤ 30 s for 100,000 on one core (pin the benchmark with `taskset -c 0` to read it on
// one core); every input file within the provider's limits (50,000 lines, 200 MB, one model);
// the merged 4-shard run's results table equal to the unsharded run's.
import AltBenchApp
import AltBenchCore
import AltBenchStore
import AltBenchTesting
import ArgumentParser
import Foundation
import GRDB

/// A child `altbench-bench serve-batches`: the compatible test server with a simulated Batch
/// API, in a process of its own.
final class BatchServerProcess: @unchecked Sendable {
    static let mode = "serve-batches"
    let child: BenchChild
    let baseURL: String

    init() throws {
        child = try BenchChild(arguments: [Self.mode])
        let prefix = "batch server listening on "
        guard child.firstLine.hasPrefix(prefix) else {
            child.stop()
            throw ProxyProcessError(message: "the batch server child did not start (it printed '\(child.firstLine)')")
        }
        baseURL = String(child.firstLine.dropFirst(prefix.count))
    }

    func stop() { child.stop() }
}

/// The child's side: serves until it is terminated.
struct ServeBatches: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: BatchServerProcess.mode, shouldDisplay: false)

    func run() async throws {
        // Each batch completes at its third look, so the run's time is its own work.
        let server = try await OpenAITestServer.start(
            recordsBodies: false, handler: OpenAITestServer.compatible(), batches: BatchSimulator(BatchSimulatorOptions(pollsUntilComplete: 2)))
        FileHandle.standardOutput.write(Data("batch server listening on \(server.baseURL)\n".utf8))
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}

/// The plan: 200 images × 10 prompts × 5 limits × `repeats`, written as a workspace.
struct BatchWorkspace {
    let root: URL
    let limits = [20, 40, 60, 80, 100]
    let prompts = 10
    let images = 200
    var repeats: Int

    init(trials: Int) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-bench-batch-\(UUID().uuidString)")
        repeats = max(1, trials / (images * prompts * limits.count))
        let manager = FileManager.default
        try manager.createDirectory(at: root.appendingPathComponent("prompts"), withIntermediateDirectories: true)
        for index in 1...prompts {
            try "Describe this image for a screen reader in one sentence, variant \(index). Do not start with \"Image of\".\n"
                .write(to: root.appendingPathComponent(String(format: "prompts/p%02d.md", index)), atomically: true, encoding: .utf8)
        }
        // Small images (16 × 16): the lines stay near 1.5 KB, so 100,000 of them are a few
        // hundred MB of input, as a real run's would be with `detail: low` thumbnails.
        _ = try StoredPNG.dataset(count: images, side: 16, in: root.appendingPathComponent("images"))
    }

    var trials: Int { images * prompts * limits.count * repeats }

    func options(baseURL: String, results: String, shard: Shard? = nil) -> RunOptions {
        var options = RunOptions()
        options.prompts = "prompts"
        options.dataset = "images"
        options.results = results
        options.baseURL = baseURL
        options.maxTokens = limits
        options.repeats = repeats
        options.batch = true
        options.batchPoll = 0.5
        options.shard = shard
        return options
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

/// What the console of one run printed, kept for its import lines; and the most resident
/// memory seen (sampled every 20 ms) until every planned line was imported, so that the
/// batch's own peak is told apart from the reports written after it.
final class CapturedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    private var imported = 0
    private let expected: Int
    private(set) var batchPeakMB = 0.0

    init(expected: Int) { self.expected = expected }

    func append(_ more: String) {
        lock.withLock {
            text += more
            for line in more.split(separator: "\n") { imported += ImportLine(String(line))?.lines ?? 0 }
        }
    }

    var lines: [String] { lock.withLock { text.split(separator: "\n").map(String.init) } }

    /// Samples the resident memory until the batch is imported or `stop` is set.
    func sample(until stop: @escaping @Sendable () -> Bool) async {
        while !stop() {
            let now = residentMB()
            let done = lock.withLock { () -> Bool in
                if imported < expected { batchPeakMB = max(batchPeakMB, now) }
                return imported >= expected
            }
            if done { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

func batchScaleBenchmark(trials requested: Int) async throws {
    let workspace = try BatchWorkspace(trials: requested)
    defer { workspace.remove() }
    let server = try BatchServerProcess()
    defer { server.stop() }
    print("altbench-bench batch: \(workspace.trials) trials (\(workspace.images) images × \(workspace.prompts) prompts × \(workspace.limits.count) limits × \(workspace.repeats) repeats) through the Batch API of \(server.baseURL)\n")

    func run(_ options: RunOptions, expected: Int) async throws -> (outcome: Evaluation.Outcome, lines: [String], seconds: Double, cpu: Double, batchPeakMB: Double) {
        let captured = CapturedLines(expected: expected)
        let finished = SharedFlag()
        let sampler = Task { await captured.sample(until: { finished.isSet }) }
        let console = Console(out: { _ in }, err: { captured.append($0) }, interactive: false)
        let evaluation = Evaluation(
            options: options, environment: ["OPENAI_API_KEY": "bench-key"], console: console,
            workingDirectory: workspace.root)
        let cpuBefore = processCPUSeconds()
        let start = ContinuousClock.now
        let outcome = try await evaluation.run()
        let seconds = secondsOf(ContinuousClock.now - start)
        finished.set()
        await sampler.value
        return (outcome, captured.lines, seconds, processCPUSeconds() - cpuBefore, captured.batchPeakMB)
    }

    // 1. The whole plan in one run.
    let whole = try await run(workspace.options(baseURL: server.baseURL, results: "whole"), expected: workspace.trials)
    let imports = whole.lines.compactMap(ImportLine.init)
    let importedLines = imports.reduce(0) { $0 + $1.lines }
    let importSeconds = imports.reduce(0) { $0 + $1.seconds }
    let peak = peakResidentMB()
    print(String(format: "run:    %.1f s wall, %.1f s cpu; exit %d", whole.seconds, whole.cpu, whole.outcome.exitCode))
    print(String(format: "import: %d lines in %.1f s (%.0f lines/s); target ≤ 30 s for 100,000 on one core: %@",
                 importedLines, importSeconds, Double(importedLines) / max(importSeconds, 1e-9),
                 importSeconds * 100_000 / Double(max(importedLines, 1)) <= 30 ? "met" : "NOT met"))
    print(String(format: "memory: peak RSS %.0f MB until the last line was imported; target ≤ 300 MB: %@; %.0f MB with the reports written after it (docs/benchmarks.md: reports of 100,000 trials ≤ 500 MB)",
                 whole.batchPeakMB, whole.batchPeakMB <= 300 ? "met" : "NOT met", peak))

    let store = try ResultStore(url: workspace.root.appendingPathComponent("whole/altbench.sqlite"))
    let files = try await store.batchState(runID: whole.outcome.runID, purpose: "trials")
    let withinLimits = files.allSatisfy { $0.lines <= BatchLimits.openAI.maxLines && $0.bytes <= BatchLimits.openAI.maxBytes }
    print("files:  \(files.count) input files: \(files.map { "\($0.lines) lines, \(String(format: "%.0f", Double($0.bytes) / 1_048_576)) MB" }.joined(separator: "; ")); within 50,000 lines and 200 MB, one model each: \(withinLimits && Set(files.map(\.model)).count <= 1 ? "yes" : "NO")")
    let answered = try await store.loadRun(id: whole.outcome.runID).trials.filter { !$0.failed }.count
    print("trials: \(answered) of \(workspace.trials) answered\n")

    // 2. The same plan in 4 shards, each into its own store, then merged.
    var shardSeconds: [Double] = []
    var shardStores: [ShardStore] = []
    for index in 1...4 {
        let shard = try Shard(index: index, count: 4)
        let result = try await run(workspace.options(baseURL: server.baseURL, results: "shard-\(index)", shard: shard), expected: .max)
        shardSeconds.append(result.seconds)
        shardStores.append(ShardStore(url: workspace.root.appendingPathComponent("shard-\(index)/altbench.sqlite"), display: "shard-\(index)"))
    }
    let merged = try ResultStore(url: workspace.root.appendingPathComponent("merged/altbench.sqlite"))
    let mergeStart = ContinuousClock.now
    let outcome = try await merged.merge(shardStores)
    let mergeSeconds = secondsOf(ContinuousClock.now - mergeStart)
    let same = try resultsTable(workspace.root.appendingPathComponent("whole/altbench.sqlite"))
        == resultsTable(workspace.root.appendingPathComponent("merged/altbench.sqlite"))
    print(String(format: "shards: 4 runs of %@ s; merge of %d trials in %.1f s (%@)",
                 shardSeconds.map { String(format: "%.1f", $0) }.joined(separator: ", "), outcome.trials, mergeSeconds, outcome.status))
    print("merged: results table equal to the unsharded run's: \(same ? "yes" : "NO")")
}

/// "altbench: batch batch_000001: 50000 lines imported in 12.3 s"
struct ImportLine {
    var lines: Int
    var seconds: Double

    init?(_ line: String) {
        guard line.contains(" lines imported in "), let range = line.range(of: ": ", options: .backwards) else { return nil }
        let words = line[range.upperBound...].split(separator: " ")
        guard words.count >= 5, let lines = Int(words[0]), let seconds = Double(words[4]) else { return nil }
        self.lines = lines
        self.seconds = seconds
    }
}

/// A run's results table without what differs between two runs of the same answers.
func resultsTable(_ database: URL) throws -> [String] {
    let queue = try DatabaseQueue(path: database.path)
    defer { try? queue.close() }
    return try queue.read { db in
        let run = try String.fetchOne(db, sql: "SELECT id FROM run ORDER BY started_at DESC, id DESC LIMIT 1")
        return try Row.fetchAll(
            db, sql: "SELECT * FROM trial_result WHERE run_id = ? ORDER BY variant, max_tokens, item, repeat_index",
            arguments: [run]
        ).map { row in
            row.columnNames.filter { !["run_id", "trial_id", "latency_ms"].contains($0) }
                .map { "\(row[$0] as DatabaseValue)" }.joined(separator: "|")
        }
    }
}
