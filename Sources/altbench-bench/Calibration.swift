import AltBenchCore
import Foundation

/// `altbench-bench calibration`: whether `quality` separates a wrong description from a
/// correct one on the bundled sample under the built-in defaults (``QualityCalibration``).
/// Run from the package root, where `datasets/sample` is.
func calibrationFigures() throws -> QualityCalibration.Figures {
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let independent = try QualityCalibration.descriptions(
        from: root.appendingPathComponent("Tests/Corpus/sample-independent.jsonl"))
    return try QualityCalibration.measure(directory: root.appendingPathComponent("datasets/sample"), independent: independent)
}

/// Prints the calibration figures: each wrong sentence, the correct descriptions by length,
/// and the one-line verdict.
func calibrationReport() throws {
    let figures = try calibrationFigures()
    print("altbench-bench \(AltBenchVersion.current): quality calibration on datasets/sample, built-in defaults\n")
    print("The same wrong sentence for every image (\(figures.items) items), mean over the items:")
    for wrong in figures.wrong {
        print(
            String(
                format: "  quality %.3f  form %.3f  content %@  %@", wrong.quality, wrong.form,
                wrong.content.map { String(format: "%.3f", $0) } ?? "–", wrong.sentence))
    }
    print("\nEach reference scored against the item's other references (\(figures.pairs) pairs):")
    let names = ["full", "≤ 150 chars", "≤ 80 chars"]
    for (index, mean) in figures.correctByPosition.enumerated() {
        print(String(format: "  reference %d (%@): quality %.3f", index + 1, index < names.count ? names[index] : "", mean))
    }
    print(String(format: "  all: quality %.3f\n", figures.correct))
    if let independent = figures.independent {
        print(
            String(
                format: "Another author's correct description (Tests/Corpus/sample-independent.jsonl, %d items):\n  quality %.3f  content %.3f  (bound %.2f)\n",
                independent.count, independent.quality, independent.content, QualityCalibration.independentBound))
    }
    print(figures.line)
    try captionQualityReport()
}

/// τc against people's ratings of caption quality, for every benchmark file in
/// `Tests/Corpus/caption-quality` (and any given with `--caption-quality FILE`): `content`
/// beside CIDEr-D, BLEU-4 and ROUGE-L as altbench computes them and METEOR as pycocoevalcap
/// 1.2 computes it (read from the file's `-metrics.jsonl`). Target: `content` at least as high
/// as CIDEr-D and METEOR, and at most 5% of captions at exactly 1.0 unless equal to a reference.
func captionQualityReport() throws {
    let folder = URL(fileURLWithPath: "Tests/Corpus/caption-quality")
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".jsonl") && !$0.hasSuffix("-metrics.jsonl") }.sorted()
    for file in files {
        let url = folder.appendingPathComponent(file)
        let benchmark = try CaptionQualityBenchmark.load(from: url, displayPath: "Tests/Corpus/caption-quality/\(file)")
        let scores = benchmark.scores()
        let ratings = benchmark.captions.reduce(0) { $0 + $1.ratings.count }
        print("\nKendall τc against people's ratings: \(benchmark.displayPath), \(benchmark.captions.count) captions, \(ratings) ratings")
        var figures: [(String, Double?)] = []
        for id in [ScoreName.content, ScoreName.referenceMatch, ScoreName.ciderD, ScoreName.bleu4, ScoreName.rougeL] {
            figures.append((id, benchmark.tauC(scores.map { $0[id] ?? 0 })))
        }
        let metrics = url.deletingPathExtension().appendingPathExtension("jsonl").deletingLastPathComponent()
            .appendingPathComponent(file.replacingOccurrences(of: ".jsonl", with: "-metrics.jsonl"))
        figures.append(("meteor (pycocoevalcap)", benchmark.externalMetric("meteor", from: metrics).flatMap(benchmark.tauC)))
        figures.append(("ciderD (pycocoevalcap)", benchmark.externalMetric("ciderD", from: metrics).flatMap(benchmark.tauC)))
        for (name, tau) in figures {
            print("  " + name.padding(toLength: 24, withPad: " ", startingAt: 0) + (tau.map { String(format: "%.3f", $0) } ?? "–"))
        }
        let content = figures[0].1 ?? -1
        let rivals = figures.filter { $0.0.hasPrefix("ciderD") || $0.0.hasPrefix("meteor") }.compactMap(\.1)
        let atOne = zip(scores, benchmark.captions).filter { score, caption in
            score[ScoreName.content] == 1 && !caption.references.contains(caption.candidate)
        }.count
        let share = Double(atOne) / Double(max(benchmark.captions.count, 1))
        print(
            String(
                format: "  content at exactly 1.0: %.1f%% of captions (target ≤ 5%%); τc target (≥ CIDEr-D and METEOR): %@",
                100 * share, content >= (rivals.max() ?? 0) ? "met" : "MISSED"))
    }
}
