// The reports benchmark of `altbench-bench reports`: a finished run's results, built in memory
// with scored answers of the kinds the sample dataset's references give, rendered as the
// Markdown report, the HTML report and the JSON summary, as `altbench run` and `altbench
// report` write them.
//
// - 2,000 trials (10 prompts × 200 images, one token limit): target ≤ 0.5 s for all three.
// - 100,000 trials (10 prompts × 2,500 images × 4 token limits): target ≤ 15 s and ≤ 500 MB
//   peak resident memory.
// `--trials N` renders one size alone (10 prompts × N/10 images, one limit; ×4 limits from
// 20,000 up).
import AltBenchCore
import AltBenchReport
import Foundation

/// A finished run of `variants` prompts × `images` images × `limits`, every answer scored.
func syntheticResults(variants: Int, images: Int, limits: [Int]) -> RunResults {
    var generator = SplitMix64(seed: 7)
    let subjects = ["a tabby cat", "a red bicycle", "two children", "a bar chart", "a street sign", "a bowl of soup", "a mountain lake", "a crowded train"]
    let places = ["on a windowsill", "against a brick wall", "in a park", "on a white background", "at dusk", "in the rain"]
    let items = (0..<images).map { index -> RunResults.Item in
        let subject = subjects[index % subjects.count]
        let place = places[(index / subjects.count) % places.count]
        return RunResults.Item(
            id: String(format: "img%05d", index), image: "images/\(index).png", isRemote: false, width: 800, height: 600,
            format: "png", references: ["\(subject.prefix(1).uppercased())\(subject.dropFirst()) \(place)."])
    }
    let names = (0..<variants).map { "v\($0)" }
    var trials: [RunResults.TrialRow] = []
    trials.reserveCapacity(variants * images * limits.count)
    let openers = ["", "I can see ", "The image shows ", "A photo of ", "This is "]
    for (variantIndex, variant) in names.enumerated() {
        for limit in limits {
            for item in items {
                let reference = item.references[0]
                let opener = openers[(variantIndex + Int(generator.next() % 3)) % openers.count]
                var text = opener.isEmpty ? reference : opener + reference.prefix(1).lowercased() + reference.dropFirst()
                if generator.next() % 4 == 0 { text += " Soft light falls from the left and the colours are muted." }
                let words = text.split(separator: " ")
                let cut = words.count > limit / 3
                if cut { text = words.prefix(max(3, limit / 3)).joined(separator: " ") }
                let answer = ModelAnswer(
                    content: text, finishReason: cut ? "length" : "stop", responseModel: "gpt-4o-mini",
                    promptTokens: 300, completionTokens: min(limit, words.count * 4 / 3), totalTokens: 300 + limit,
                    latencyMs: 800)
                let scores = ScoringSuite.evaluate(answer.scoringInput(ScoringSettings(), item: item.scoringItem))
                var row = RunResults.TrialRow(
                    variant: variant, maxTokens: limit, itemID: item.id, repeatIndex: 0, model: "gpt-4o-mini",
                    answer: answer, scores: ScoreSet(scores))
                row.costUSD = 0.0001
                trials.append(row)
            }
        }
    }
    let info = RunResults.Info(
        id: "bench-reports", startedAt: Date(timeIntervalSince1970: 1_790_000_000),
        finishedAt: Date(timeIntervalSince1970: 1_790_000_600), status: "finished", provider: .openai,
        providerReason: "bench", endpoint: "https://api.openai.com/v1", datasetPath: "datasets/bench", promptsPath: "prompts")
    return RunResults(
        info: info,
        variants: names.map { PromptVariant(name: $0, file: "\($0).md", text: "Describe the image for a screen-reader user (\($0)).") },
        items: items, trials: trials, plannedTrials: trials.count)
}

/// Times what `altbench run` does after its last trial: the summary and answer once, then the
/// Markdown and HTML reports, each rendered once and written to `runs/<id>` and `latest`
/// (``RunReportFiles``, as `run` writes them); and `report --format json`.
func renderReports(_ results: RunResults, folder: URL) -> (analysis: Double, markdown: Double, html: Double, json: Double) {
    let clock = ContinuousClock()
    var bytes = 0
    var analysis: ReportAnalysis!
    let analysed = clock.measure { analysis = ReportAnalysis(results) }
    try! FileManager.default.createDirectory(at: folder.appendingPathComponent("runs"), withIntermediateDirectories: true)
    let files = RunReportFiles(analysis: analysis, results: results, resultsDirectory: folder)
    func write(_ kind: RunReportFiles.Kind) {
        for file in files.render([kind], latest: true) {
            try! file.data.write(to: file.url, options: .atomic)
            bytes += file.data.count
        }
    }
    let markdown = clock.measure { write(.markdown) }
    let html = clock.measure { write(.html) }
    let json = clock.measure { bytes += ReportJSON.render(analysis, results: results).utf8.count }
    precondition(bytes > 0)
    return (secondsOf(analysed), secondsOf(markdown), secondsOf(html), secondsOf(json))
}

func reportBenchmarks(trials only: Int?) {
    print("altbench-bench \(AltBenchVersion.current): reports\n")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-reports-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    var sizes: [(images: Int, limits: [Int], target: Double)] = [(200, [100], 0.5), (2_500, [30, 50, 100, 300], 15)]
    if let only {
        let limits = only >= 20_000 ? [30, 50, 100, 300] : [100]
        sizes = [(max(1, only / 10 / limits.count), limits, only >= 20_000 ? 15 : 0.5)]
    }
    for size in sizes {
        let clock = ContinuousClock()
        var results: RunResults!
        let built = clock.measure { results = syntheticResults(variants: 10, images: size.images, limits: size.limits) }
        let held = residentMB()
        let (analysis, markdown, html, json) = renderReports(results, folder: folder)
        // As `run` writes them: the analysis once, then each report rendered once and written twice.
        let total = analysis + markdown + html
        print(
            String(
                format: "%7d trials (10 prompts × %d images × %d limits; built and scored in %.1f s): summary and answer "
                    + "%.2f s, Markdown %.2f s, HTML %.2f s (each written to runs/ and latest; JSON %.2f s); as `run` writes them %.2f s (target ≤ %.1f s: "
                    + "%@); %.0f MB resident with the results in memory, peak %.0f MB%@",
                results.trials.count, size.images, size.limits.count, secondsOf(built), analysis, markdown, html, json,
                total, size.target, total <= size.target ? "met" : "MISSED", held, peakResidentMB(),
                size.target > 1 ? String(format: " (target ≤ 500 MB: %@)", peakResidentMB() <= 500 ? "met" : "MISSED") : ""))
    }
}
