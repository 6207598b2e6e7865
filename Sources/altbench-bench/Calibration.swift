import AltBenchCore
import Foundation

/// `altbench-bench calibration`: whether `quality` separates a wrong description from a
/// correct one on the bundled sample under the built-in defaults (``QualityCalibration``).
/// Run from the package root, where `datasets/sample` is.
func calibrationFigures() throws -> QualityCalibration.Figures {
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    return try QualityCalibration.measure(directory: root.appendingPathComponent("datasets/sample"))
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
    print(figures.line)
}
