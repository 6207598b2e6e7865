import AltBenchCore
import Foundation

/// `altbench-bench validity`: precision and recall of every detector on the development
/// corpus (`Tests/Corpus/detectors.jsonl`), overall and per language, with the corpus's
/// composition. Targets: precision ≥ 0.95 and recall ≥ 0.90 for every detector. Run from the
/// package root. `--misses` lists every text a detector got wrong; `--with-lang` passes each
/// text's language to the scorers (by default they get none, as most answers have none).
func validityReport(corpusPath: String, listMisses: Bool, withLanguage: Bool) throws -> Bool {
    let url = URL(fileURLWithPath: corpusPath)
    let corpus = try DetectorCorpus.load(from: url, displayPath: corpusPath)
    let validity = DetectorValidity.measure(corpus, withLanguage: withLanguage)
    let origins = corpus.originCounts
    let humans = corpus.entries.filter { $0.kind == "human" }.count
    print("altbench-bench \(AltBenchVersion.current): detector validity on \(corpusPath)\n")
    print(
        "corpus: \(corpus.entries.count) texts (\(corpus.entries.count - humans) by models, \(humans) by people) from \(origins.count) sources; "
            + String(
                format: "largest source %@ with %d (%.1f%%)", origins[0].origin, origins[0].count,
                100 * Double(origins[0].count) / Double(corpus.entries.count)))
    print("languages: " + corpus.languageCounts.map { "\($0.lang) \($0.count)" }.joined(separator: ", "))
    print("language passed to the scorers: \(withLanguage ? "yes (--with-lang)" : "no")\n")

    func cell(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "  – " }
    print("detector           positives  flagged  precision  recall  target (P ≥ 0.95, R ≥ 0.90)")
    var allMet = true
    for label in DetectorCorpus.labels {
        let counts = validity.overall[label] ?? DetectorValidity.Counts()
        let met = (counts.precision ?? 0) >= 0.95 && (counts.recall ?? 0) >= 0.90 && counts.positives >= 25
        allMet = allMet && met
        print(
            label.padding(toLength: 18, withPad: " ", startingAt: 0)
                + String(format: " %9d  %7d", counts.positives, counts.truePositives + counts.falsePositives)
                + "       \(cell(counts.precision))    \(cell(counts.recall))  "
                + (met ? "met" : counts.positives < 25 ? "MISSED (fewer than 25 positives)" : "MISSED"))
    }
    print("\nper language (precision/recall; – where the language has no flagged or no labelled text):")
    let languages = corpus.languageCounts.map(\.lang)
    print("detector          " + languages.map { $0.padding(toLength: 11, withPad: " ", startingAt: 0) }.joined())
    for label in DetectorCorpus.labels {
        var line = label.padding(toLength: 18, withPad: " ", startingAt: 0)
        for lang in languages {
            let counts = validity.byLanguage[lang]?[label] ?? DetectorValidity.Counts()
            let text = counts.positives == 0 && counts.falsePositives == 0
                ? "·" : "\(cell(counts.precision))/\(cell(counts.recall))"
            line += text.padding(toLength: 11, withPad: " ", startingAt: 0)
        }
        print(line)
    }
    if listMisses {
        print("\nmisses:")
        for miss in validity.misses.sorted(by: { ($0.label, $0.entry.line) < ($1.label, $1.entry.line) }) {
            let text = miss.entry.text.replacingOccurrences(of: "\n", with: "⏎")
            print(
                "  \(miss.label) \(miss.falsePositive ? "FP" : "FN") [\(miss.entry.id), \(miss.entry.lang)]"
                    + (miss.detail.map { " (\($0))" } ?? "") + ": " + String(text.prefix(220)))
        }
    }
    print("\nvalidity targets: \(allMet ? "met" : "MISSED") for every detector")
    return allMet
}
