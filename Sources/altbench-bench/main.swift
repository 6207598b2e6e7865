// altbench-bench: throughput and memory figures for the hot paths, and load figures for the
// whole pipeline against the loopback test server. Run in release:
//
//     swift build -c release --product altbench-bench
//     swift run -c release --skip-build altbench-bench [--trials N]    everything: hot paths, then load
//     swift run -c release --skip-build altbench-bench hot [--trials N]   hot paths only
//     swift run -c release --skip-build altbench-bench load [--runs N] [--scenario S] [--diagnose]   load only
//     swift run -c release --skip-build altbench-bench reports [--trials N]   the reports of 2,000 and 100,000 trials
//     swift run -c release --skip-build altbench-bench scoring [--texts N]   scoring only
//     swift run -c release --skip-build altbench-bench calibration   quality on right and wrong answers
//     swift run -c release --skip-build altbench-bench batch [--trials N]   a run through the Batch API, then 4 shards merged
//     swift run -c release --skip-build altbench-bench proxy-abuse   the signed proxy under hostile load
//
// Hot paths: scoring, planning, a mock run into SQLite, loading and rendering the Markdown and
// HTML reports (target: the HTML report of 20,000 trials in under 2 s) (`--trials`,
// default 6000). Scoring (Scoring.swift): 100,000 realistic answers (`--texts`) built from the
// sample dataset's references, scored on one core and on all; target ≥ 10,000 answers/s on one
// core; and CIDEr-D over 5,000 items × 5 references, target < 2 s; then the quality
// calibration in one line. Calibration (Calibration.swift): a wrong sentence for every sample
// image against a correct description, under the built-in defaults (QualityCalibration).
// Load (Load.swift): 200 generated ~150 KB PNGs sent through Planner,
// OpenAIVisionModel, Runner and a SQLite store to the in-process test server:
//   - latency-bound: 2,000 trials at concurrency 50, 100 ms per answer; ideal 4.0 s, target
//     wall ÷ ideal ≤ 1.10. Run `--runs` times (default 3); each run is printed and the median
//     is the figure reported, with the best beside it.
//   - rate-limited: 400 trials at concurrency 50 against a 20 req/s (burst 20) token bucket;
//     ideal 20 s, targets time ÷ ideal ≤ 1.15 and 429s ≤ 5% of requests, every trial answered.
//   - overstated burst: the same, but the server's headers announce 1,200 requests a minute;
//     targets wall ÷ ideal ≤ 1.10, 429s ≤ 5% of requests, no failed trial.
//     Each run then sends the same load through the signed proxy (AltBenchProxy, in a child
//     process): target wall through the proxy ÷ wall direct ≤ 1.10; the proxy's own CPU time
//     per request is printed.
//   `--scenario latency|rate|overstated|quantized|silent` runs one alone; each runs `--runs` times.
//   `--diagnose` adds single-threaded per-request costs (base64, JSON body) and the pipeline's
//   throughput with no server latency, at concurrency 8 and 50.
//
// Proxy abuse (ProxyAbuse.swift): the signed proxy, in a child process, while one client floods
// 20,000 token requests and 5,000 replayed or unsigned requests and holds 500 slow connections;
// targets: an honest session at 10 requests/s ≥ 99% answered with p99 ≤ 2× its idle p99, the
// proxy's RSS ≤ 150 MB, ≤ 2 KiB read per unauthenticated request. About a minute and a half.
//
// It prints figures and judges nothing beyond saying whether a target was met: targets live
// here, not in timed unit tests, because shared machines are too noisy for a test to fail on
// a number.
import AltBenchCore
import AltBenchReport
import AltBenchStore
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

let arguments = CommandLine.arguments
// The signed proxy of the latency-bound load runs as a child process of this binary, so that
// its CPU time is its own (ProxyLoad.swift).
if (3...4).contains(arguments.count), arguments[1] == ProxyProcess.mode {
    try await serveProxy(upstream: arguments[2], abuse: arguments.dropFirst(3).contains(ProxyProcess.abuseFlag))
}
// The Batch API benchmark's server, likewise (BatchScale.swift).
if arguments.count == 2, arguments[1] == BatchServerProcess.mode {
    try await serveBatches()
}
func option(_ name: String) -> Int? {
    arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil }
}
let trialCount = option("--trials") ?? 6000
let mode = arguments.indices.dropFirst().first {
    !arguments[$0].hasPrefix("-") && Int(arguments[$0]) == nil && arguments[$0 - 1] != "--scenario"
        && arguments[$0 - 1] != "--corpus"
}.map { arguments[$0] }
let scenarioName = arguments.firstIndex(of: "--scenario").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : "" }
let scenario = scenarioName.map { LoadScenario(rawValue: $0) }
let usage = "usage: altbench-bench [hot|load|reports|scoring|calibration|validity|batch|proxy-abuse] [--trials N] [--runs N] [--scenario latency|rate|overstated|quantized|silent] [--texts N] [--diagnose] [--corpus FILE] [--misses] [--with-lang]"
let known: Set = ["--trials", "--runs", "--scenario", "--texts", "--diagnose", "--corpus", "--misses", "--with-lang"]
if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
    print(usage)
    exit(0)
}
if let unknown = arguments.dropFirst().first(where: { $0.hasPrefix("-") && !known.contains($0) && Int($0) == nil }) {
    FileHandle.standardError.write(Data("altbench-bench: unknown option '\(unknown)'\n\(usage)\n".utf8))
    exit(2)
}
guard mode == nil || ["hot", "load", "reports", "scoring", "calibration", "validity", "batch", "proxy-abuse"].contains(mode!), scenario != .some(nil) else {
    FileHandle.standardError.write(Data("\(usage)\n".utf8))
    exit(2)
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

if mode == nil || mode == "hot" {
    try await hotPaths(trialCount: trialCount)
    if mode == nil { print("") }
}
if mode == nil || mode == "scoring" {
    try await scoringBenchmarks(texts: option("--texts") ?? 100_000)
    print(try calibrationFigures().line)
    if mode == nil { print("") }
}
if mode == "batch" {
    try await batchScaleBenchmark(trials: option("--trials") ?? 100_000)
}
if mode == "proxy-abuse" {
    try await proxyAbuseBenchmark()
}
if mode == "calibration" {
    try calibrationReport()
}
if mode == "reports" {
    reportBenchmarks(trials: option("--trials"))
}
if mode == "validity" {
    let corpus = arguments.firstIndex(of: "--corpus").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    do {
        _ = try validityReport(
            corpusPath: corpus ?? "Tests/Corpus/detectors.jsonl", listMisses: arguments.contains("--misses"),
            withLanguage: arguments.contains("--with-lang"))
    } catch let error as DetectorCorpus.LoadError {
        FileHandle.standardError.write(Data("altbench-bench: \(error)\n".utf8))
        exit(2)
    }
}
if mode == "load" {
    print("altbench-bench \(AltBenchVersion.current): load\n")
}
if mode == nil || mode == "load" {
    try await loadBenchmarks(
        runs: max(1, option("--runs") ?? 3), diagnose: arguments.contains("--diagnose"),
        scenarios: scenario.flatMap { $0 }.map { [$0] } ?? Set(LoadScenario.allCases))
}
