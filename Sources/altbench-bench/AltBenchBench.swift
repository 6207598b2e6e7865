// altbench-bench: throughput and memory figures for the hot paths, and load figures for the
// whole pipeline against the loopback test server. Run in release; `--help` lists the
// subcommands and each one's flags, docs/benchmarks.md the figures and targets:
//
//     swift build -c release --product altbench-bench
//     swift run -c release --skip-build altbench-bench [SUBCOMMAND] [FLAGS]
//
// Hot paths (here): scoring, planning, a mock run into SQLite, loading and rendering the
// Markdown and HTML reports; target: the HTML report of 20,000 trials in under 2 s. Scoring
// (Scoring.swift): target ≥ 10,000 answers/s on one core, and CIDEr-D over 5,000 items × 5
// references in under 2 s. Load (Load.swift): each latency-bound run goes through the signed
// proxy too (ProxyLoad.swift), target wall through the proxy ÷ wall direct ≤ 1.10. Calibration,
// Validity, Reports, BatchScale and ProxyAbuse.swift state their own targets.
//
// It prints figures and judges nothing beyond saying whether a target was met: targets live
// here, not in timed unit tests, because shared machines are too noisy for a test to fail on
// a number.
import AltBenchCore
import AltBenchReport
import AltBenchStore
import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func peakResidentMB() -> Double {
    var usage = rusage()
    #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
    #else
        getrusage(RUSAGE_SELF, &usage)
        return Double(usage.ru_maxrss) / 1024 / 1024  // bytes on macOS
    #endif
}

/// The resident memory now, in MB (Linux: /proc/self/statm; elsewhere the peak).
func residentMB() -> Double {
    #if os(Linux)
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) })
        {
            return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
        }
    #endif
    return peakResidentMB()
}

/// Times `body` and prints the wall time per unit and the rate, and the process's CPU time per
/// unit and the rate it allows: on a machine shared with other work the wall figures stretch
/// while the CPU ones hold, so a single-threaded figure is read from the CPU column.
func measure(_ name: String, count: Int, unit: String = "op", _ body: () async throws -> Void) async rethrows {
    let clock = ContinuousClock()
    let cpuBefore = processCPUSeconds()
    let elapsed = try await clock.measure { try await body() }
    let cpu = processCPUSeconds() - cpuBefore
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let per = seconds / Double(max(count, 1)) * 1e6
    let label = name.padding(toLength: 30, withPad: " ", startingAt: 0)
    print(
        label
            + String(
                format: " %8d %@s in %7.3f s  %9.1f µs/%@  %9.0f %@s/s   cpu %7.1f µs/%@  %9.0f %@s/cpu-s", count, unit,
                seconds, per, unit, Double(count) / seconds, unit, cpu / Double(max(count, 1)) * 1e6, unit,
                Double(count) / max(cpu, 1e-9), unit))
}

@main
struct AltBenchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "altbench-bench",
        abstract: "Speed, memory and load figures for altbench; run it in release (docs/benchmarks.md).",
        subcommands: [
            AllBench.self, HotBench.self, LoadBench.self, ReportsBench.self, ScoringBench.self, CalibrationBench.self,
            ValidityBench.self, BatchBench.self, ProxyAbuseBench.self, ServeProxy.self, ServeBatches.self,
        ],
        defaultSubcommand: AllBench.self)
}

struct AllBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "all", abstract: "The hot paths, the scorers, then the load.")
    @Option(help: "Trials of the hot paths.") var trials = 6000
    @Option(help: "Answers the scorers score.") var texts = 100_000
    @OptionGroup var load: LoadOptions

    func run() async throws {
        try await hotPaths(trialCount: trials)
        print("")
        try await scoringBenchmarks(texts: texts, diagnose: load.diagnose)
        print(try calibrationFigures().line)
        print("")
        try await load.benchmark()
    }
}

struct HotBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hot", abstract: "Scoring, planning, a mock run into SQLite, loading and rendering the reports.")
    @Option(help: "Trials (the HTML report's target is for 20000).") var trials = 6000
    func run() async throws { try await hotPaths(trialCount: trials) }
}

struct LoadBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "load", abstract: "The whole pipeline against the loopback test server.")
    @OptionGroup var load: LoadOptions

    func run() async throws {
        print("altbench-bench \(AltBenchVersion.current): load\n")
        try await load.benchmark()
    }
}

struct ScoringBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "scoring", abstract: "The scorers on realistic answers, and CIDEr-D.")
    @Option(help: "Answers to score.") var texts = 100_000
    @Flag(help: "Time building the inputs and each scorer alone too.") var diagnose = false

    func run() async throws {
        try await scoringBenchmarks(texts: texts, diagnose: diagnose)
        print(try calibrationFigures().line)
    }
}

struct ReportsBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reports", abstract: "A run's reports at 2,000 and 100,000 trials.")
    @Option(help: "One size alone.") var trials: Int?
    func run() { reportBenchmarks(trials: trials) }
}

struct CalibrationBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibration", abstract: "Quality of a wrong sentence against a correct one on the bundled sample.")
    func run() throws { try calibrationReport() }
}

struct ValidityBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validity", abstract: "Precision and recall of every detector on the development corpus.")
    @Option(help: "The corpus.") var corpus = "Tests/Corpus/detectors.jsonl"
    @Flag(help: "List every text a detector got wrong.") var misses = false
    @Flag(help: "Pass each text's language to the scorers.") var withLang = false

    func run() throws {
        do {
            _ = try validityReport(corpusPath: corpus, listMisses: misses, withLanguage: withLang)
        } catch let error as DetectorCorpus.LoadError {
            FileHandle.standardError.write(Data("altbench-bench: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

struct BatchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch", abstract: "A run through the Batch API of a loopback server, then 4 shards merged.")
    @Option(help: "Trials.") var trials = 100_000
    func run() async throws { try await batchScaleBenchmark(trials: trials) }
}

struct ProxyAbuseBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy-abuse", abstract: "The signed proxy under hostile load (127.0.0.1 only, about a minute and a half).")
    func run() async throws { try await proxyAbuseBenchmark() }
}

// Answers of the kinds the scorers meet: short, long, first person, cut off, refusals.
let samples = [
    "A tabby cat asleep on a sunny windowsill.",
    "I can see a dog running on the beach with my family in the background, and we are",
    "I'm sorry, but I can't help with identifying people in images.",
    "A street sign reads “We are open” next to a café with red awnings and bicycles parked outside, while people walk past under a grey sky.",
    String(repeating: "A long description of a detailed chart with many labelled axes and numbers. ", count: 20),
]

/// Scoring, planning, a mock run into SQLite, loading and rendering.
func hotPaths(trialCount: Int) async throws {
    print("altbench-bench \(AltBenchVersion.current): \(trialCount) trials\n")

    // 1. Scoring.
    let scoringRounds = trialCount * 5
    await measure("score answers (v1 suite)", count: scoringRounds, unit: "answer") {
        var flagged = 0
        for index in 0..<scoringRounds {
            let input = ScoringInput(content: samples[index % samples.count], finishReason: index % 3 == 0 ? "length" : "stop")
            flagged += ScoringSuite.evaluate(input).filter(\.isFlagged).count
        }
        precondition(flagged > 0)
    }

    // 2. Planning and cache keys.
    let variants = (0..<4).map { PromptVariant(name: "v\($0)", file: "v\($0).md", text: "Describe image \($0) briefly.") }
    let items = (0..<(trialCount / 12)).map { index in
        DatasetItem(
            id: "item\(index)", image: .remote(URL(string: "https://media.example/\(index).png")!),
            references: ["A reference description of picture number \(index), with a cat and a tree."])
    }
    let dataset = Dataset(name: "bench", path: "bench", root: URL(fileURLWithPath: "/tmp"), items: items)
    var options = RunOptions()
    options.provider = .mock
    options.maxTokens = [30, 50, 100]
    let experiment = try Experiment.resolve(options: options, config: ConfigFile(), environment: [:])
    var trials: [Trial] = []
    await measure("plan trials with cache keys", count: items.count * 12, unit: "trial") {
        trials = Planner(experiment: experiment, endpoint: "mock").plan(variants: variants, dataset: dataset)
    }

    // 3. A whole mock run into a SQLite file, then reading it back and rendering.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = try ResultStore(url: folder.appendingPathComponent("altbench.sqlite"))
    for (label, runID) in [("mock run, new answers", "bench-1"), ("mock run, all from cache", "bench-2")] {
        let info = RunResults.Info(
            id: runID, startedAt: Date(), status: "running", provider: .mock, providerReason: "bench",
            endpoint: "mock", datasetPath: "bench", promptsPath: "bench")
        let recorder = try await store.beginRun(info, variants: variants, dataset: dataset, plannedTrials: trials.count)
        let runner = Runner(model: MockVisionModel(dataset: dataset), sink: recorder, concurrency: 4)
        try await measure(label, count: trials.count, unit: "trial") {
            let tally = try await runner.run(trials)
            precondition(tally.progress.done == trials.count)
        }
        try await store.finishRun(id: runID, status: "finished", message: nil)
    }
    var loaded: RunResults?
    try await measure("load a run from SQLite", count: trials.count, unit: "trial") {
        loaded = try await store.loadRun(id: "bench-2")
    }
    await measure("render Markdown report", count: trials.count, unit: "trial") {
        let text = MarkdownReport(results: loaded!, reportDirectory: folder).render()
        precondition(text.count > 0)
    }
    // The HTML report: target under 2 s for 20,000 trials (`--trials 20000`).
    var htmlBytes = 0
    let clock = ContinuousClock()
    let htmlTime = clock.measure {
        htmlBytes = HTMLReport(results: loaded!, reportDirectory: folder).render().utf8.count
    }
    await measure("render HTML report", count: trials.count, unit: "trial") {
        let text = HTMLReport(results: loaded!, reportDirectory: folder).render()
        precondition(!text.isEmpty)
    }
    let htmlSeconds = Double(htmlTime.components.seconds) + Double(htmlTime.components.attoseconds) / 1e18
    print(
        String(
            format: "HTML report: %.2f s for %d trials (target < 2 s at 20,000: %@), %.1f MB", htmlSeconds, trials.count,
            trials.count < 19_000 ? "run with --trials 20000" : (htmlSeconds < 2 ? "met" : "MISSED"), Double(htmlBytes) / 1e6))
    let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("altbench.sqlite").path)[.size] as? Int) ?? 0
    print(String(format: "\ndatabase: %.1f MB for %d trials; peak resident memory: %.0f MB", Double(size) / 1e6, trials.count * 2, peakResidentMB()))
}
