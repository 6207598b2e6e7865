import AltBenchCore

/// The JSON `altbench score --format json` prints:
/// `{"items": [{"id", "variant", "line", "scores": {"<id>": {"value", "passed", "detail"}}}],
///   "corpus": {...}, "variants": [{"variant", ...}]}`.
///
/// `corpus` covers every answer in the file; `variants` has the same figures per group.
/// Figures: `n`, `quality` (mean), `hard_fails` (share), `bleu4`, `rougeL`, `ciderD` and
/// `references_scored` (answers whose item has references; the metrics are `null` when none
/// has), `means` of the graded scores and `checks`: the share each check flagged.
package enum ScoreJSON {
    /// One scored answer: where it came from, and its scores in scorer order.
    package struct Item: Sendable {
        package var id: String
        package var variant: String
        package var line: Int
        package var scores: [Score]

        package init(id: String, variant: String, line: Int, scores: [Score]) {
            self.id = id
            self.variant = variant
            self.line = line
            self.scores = scores
        }
    }

    package static func render(items: [Item], summary: RunSummary, overall: SummaryRow?) -> String {
        let itemValues: [JSONValue] = items.map { item in
            var scores: [String: JSONValue] = [:]
            for score in item.scores {
                scores[score.name] = .object([
                    "value": number(score.value),
                    "passed": score.passed.map(JSONValue.bool) ?? .null,
                    "detail": score.detail.map(JSONValue.string) ?? .null,
                ])
            }
            return .object([
                "id": .string(item.id), "variant": .string(item.variant), "line": .int(item.line),
                "scores": .object(scores),
            ])
        }
        var variants: [JSONValue] = []
        for row in summary.rows {
            var figures = self.figures(row)
            figures["variant"] = .string(row.variant)
            variants.append(.object(figures))
        }
        let root: JSONValue = .object([
            "items": .array(itemValues),
            "corpus": overall.map { .object(figures($0)) } ?? .null,
            "variants": .array(variants),
        ])
        return root.canonicalText + "\n"
    }

    static func figures(_ row: SummaryRow) -> [String: JSONValue] {
        [
            "n": .int(row.answered),
            "form": row.meanForm.map(number) ?? .null,
            "content": row.meanContent.map(number) ?? .null,
            "quality": row.meanQuality.map(number) ?? .null,
            "form_only": .int(row.formOnly),
            "hard_fails": row.hardFails.map(number) ?? .null,
            "bleu4": row.reference.map { number($0.bleu4) } ?? .null,
            "rougeL": row.reference.map { number($0.rougeL) } ?? .null,
            "ciderD": row.reference.map { number($0.ciderD) } ?? .null,
            "references_scored": .int(row.reference?.count ?? 0),
            "means": .object(row.means.mapValues(number)),
            "checks": .object(row.checkRates.mapValues(number)),
        ]
    }

    /// Whole numbers as integers (`"length": 42`), the rest as doubles.
    static func number(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) < 1e15 { return .int(Int(value)) }
        return .double(value)
    }
}
