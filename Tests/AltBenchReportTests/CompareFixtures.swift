import AltBenchCore
import Foundation

/// Two small snapshots for the compare and check renderers: a baseline and a run in which
/// `terse @ 50` got worse (first person crept in, quality fell) and `terse @ 100` stayed put.
enum CompareFixtures {
    static let items = ["cat", "coffee", "rocket", "sign", "chart", "meme"]

    static func outcome(
        firstPerson: Double = 1, truncated: Double = 1, quality: Double, answer: String, repeats: Int = 1
    ) -> RunSnapshot.ItemOutcome {
        RunSnapshot.ItemOutcome(
            passed: [ScoreName.firstPerson: firstPerson, ScoreName.truncated: truncated, ScoreName.refusal: 1],
            quality: quality, answered: repeats, repeats: repeats, answer: answer)
    }

    /// The prompt both sides ran `terse` with.
    static let prompt = "Describe the image in one short sentence."

    static func row(
        _ maxTokens: Int?, items: [String: RunSnapshot.ItemOutcome], quality: Double, firstPerson: Double,
        truncated: Double, length: Double, prompt: String = CompareFixtures.prompt
    ) -> RunSnapshot.Row {
        var row = RunSnapshot.Row(
            variant: "terse", maxTokens: maxTokens, n: items.count, answered: items.count, errors: 0,
            metrics: [
                "quality": quality, "hard_fails": max(firstPerson, truncated), "length_mean": length,
                "within_budget": 1, ScoreName.firstPerson: firstPerson, ScoreName.truncated: truncated,
                ScoreName.refusal: 0, ScoreName.bleu4: 0.21, ScoreName.rougeL: 0.45, ScoreName.ciderD: 0.6,
            ],
            items: items)
        let variant = PromptVariant(name: "terse", file: "prompts/terse.md", text: prompt, model: "gpt-4o-mini")
        row.recordRequest(RequestRule().templateRequest(variant: variant, maxTokens: maxTokens), prompt: prompt)
        return row
    }

    static func snapshot(
        runID: String, provider: String = "openai", rows: [RunSnapshot.Row], repeats: Int = 1
    ) -> RunSnapshot {
        RunSnapshot(
            altbenchVersion: "0.1.0", runID: runID, provider: provider, models: ["gpt-4o-mini"],
            endpointHost: provider == "mock" ? "mock" : "api.openai.com",
            dataset: RunSnapshot.DatasetIdentity(path: "datasets/sample", sha256: String(repeating: "ab", count: 32), items: 6),
            repeats: repeats, rows: rows)
    }

    /// Baseline: at 50 tokens the chart is cut off and the rest pass; at 100 all pass.
    static let baseline: RunSnapshot = {
        var at50: [String: RunSnapshot.ItemOutcome] = [:]
        var at100: [String: RunSnapshot.ItemOutcome] = [:]
        for id in items {
            at50[id] = outcome(truncated: id == "chart" ? 0 : 1, quality: id == "chart" ? 0 : 0.9, answer: "A \(id) on a table.")
            at100[id] = outcome(quality: 0.92, answer: "A \(id) on a wooden table.")
        }
        return snapshot(
            runID: "20261120-090000-base",
            rows: [
                row(50, items: at50, quality: 0.75, firstPerson: 0, truncated: 1.0 / 6.0, length: 18),
                row(100, items: at100, quality: 0.92, firstPerson: 0, truncated: 0, length: 26),
            ])
    }()

    /// The run: at 50 tokens four items now speak in the first person (one only in one of
    /// two repeats), the chart is fixed; at 100 tokens nothing changed. Answers with a `|`
    /// and a newline test the escaping. Both sides asked with the same prompt and settings.
    static let run: RunSnapshot = {
        var at50: [String: RunSnapshot.ItemOutcome] = [:]
        var at100: [String: RunSnapshot.ItemOutcome] = [:]
        for id in items {
            let speaks = ["cat", "coffee", "rocket"].contains(id)
            let firstPerson = speaks ? 0.0 : id == "sign" ? 0.5 : 1
            at50[id] = outcome(
                firstPerson: firstPerson, quality: speaks ? 0 : id == "sign" ? 0.45 : 0.9,
                answer: speaks ? "I see a \(id) | on a\ntable." : "A \(id) on a table.", repeats: 2)
            at100[id] = outcome(quality: 0.92, answer: "A \(id) on a wooden table.", repeats: 2)
        }
        return snapshot(
            runID: "20261121-100000-head",
            rows: [
                row(50, items: at50, quality: 0.375, firstPerson: 7.0 / 12.0, truncated: 0, length: 22),
                row(100, items: at100, quality: 0.92, firstPerson: 0, truncated: 0, length: 26),
            ],
            repeats: 2)
    }()

    static var comparison: Comparison { Comparison(before: baseline, after: run) }
    static var regression: CheckVerdict { CheckVerdict(comparison: comparison) }
    static var pass: CheckVerdict { CheckVerdict(comparison: Comparison(before: baseline, after: baseline)) }
    /// A mock run checked against a real baseline: an error, not a regression.
    static var mismatch: CheckVerdict {
        var mock = baseline
        mock.provider = "mock"
        mock.endpointHost = "mock"
        return CheckVerdict(comparison: Comparison(before: baseline, after: mock))
    }
}
