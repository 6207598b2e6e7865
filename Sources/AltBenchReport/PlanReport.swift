import AltBenchCore
import Foundation

/// `altbench plan`'s output: what a run would send and spend, as a terminal table or as JSON.
///
/// The figures come from ``CostPlan``; this only lays them out. Names from prompt files and
/// the configuration (variants, models) go through ``TerminalText`` in the text, so a hostile
/// name cannot move the cursor or fake a line.
package enum PlanReport {
    /// The plan as text for a terminal of 80–100 columns: `header` lines (what the run is),
    /// a table per (variant, max_tokens) pair with a total row, the Batch API line when the
    /// price table has a discount and the total is known, the assumptions, then `notes`.
    ///
    /// Column headers take two lines so the numbers, not the labels, set the widths; a model
    /// column appears only when the pairs name more than one model (the header names one).
    package static func text(_ plan: CostPlan, header: [String], notes: [String], judge: JudgeEstimate? = nil) -> String {
        var out = header.map(TerminalText.line)
        if !out.isEmpty { out.append("") }
        let showModel = Set(plan.pairs.map(\.model)).count > 1
        var columns: [Column] = [Column(["", "variant"], left: true), Column(["max", "tokens"])]
        if showModel { columns.append(Column(["", "model"], left: true)) }
        columns += [
            Column(["", "trials"]), Column(["", "cached"]), Column(["to", "send"]), Column(["input tokens", "(est.)"]),
            Column(["of which", "image"]), Column(["output", "ceiling"]), Column(["cost", "USD"]),
        ]
        var rows: [[String]] = plan.pairs.map { pair in
            var cells = [TerminalText.line(pair.variant), Format.tokens(pair.maxTokens)]
            if showModel { cells.append(TerminalText.line(pair.model)) }
            return cells + [
                Format.count(pair.trials), Format.count(pair.cached), Format.count(pair.toSend),
                Format.count(pair.inputTokens), Format.count(pair.imageTokens), Format.count(pair.outputTokensMax),
                cost(low: pair.costLow, high: pair.costHigh),
            ]
        }
        var total = ["total", ""]
        if showModel { total.append("") }
        total += [
            Format.count(plan.trials), Format.count(plan.cached), Format.count(plan.toSend),
            Format.count(plan.inputTokens), Format.count(plan.imageTokens), Format.count(plan.outputTokensMax),
            cost(low: plan.costLow, high: plan.costHigh),
        ]
        rows.append(total)
        let widths = columns.indices.map { index in
            max(columns[index].lines.map(\.count).max() ?? 0, rows.map { $0[index].count }.max() ?? 0)
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return columns[index].left ? cell + pad : pad + cell
            }
            return padded.joined(separator: "  ").replacingOccurrences(of: #"\s+$"#, with: "", options: .regularExpression)
        }
        out.append(line(columns.map { $0.lines[0] }))
        out.append(line(columns.map { $0.lines[1] }))
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        out.append(rule)
        out += rows.dropLast().map(line)
        out.append(rule)
        out.append(line(total))
        if let discount = plan.batchDiscount, discount > 0, discount < 1, let low = plan.costLow, let high = plan.costHigh {
            out.append("")
            out.append(
                "with the Batch API (−\(Int((discount * 100).rounded()))%): \(Format.usdRange(low: low * (1 - discount), high: high * (1 - discount)))")
        }
        if let judge {
            out.append("")
            out.append(TerminalText.line(judgeLine(judge)))
        }
        if !plan.assumptions.isEmpty {
            out.append("")
            out.append("Assumptions:")
            out += plan.assumptions.map { "  - " + TerminalText.line($0) }
        }
        if !notes.isEmpty {
            out.append("")
            out += notes.map(TerminalText.line)
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The plan as JSON, keys sorted, for tools:
    /// `{"trials", "cached", "to_send", "input_tokens", "image_tokens", "output_tokens_max",
    /// "cost_usd": {"low", "high"} or null, "pairs": [{"variant", "max_tokens", "model", …the
    /// same figures}], "items": [{"id", "model", "width", "height", "detail", "image_tokens"}],
    /// "assumptions", "unpriced_models", "batch_discount", "notes"}`. `null` marks what is
    /// unknown: a pair's cost without a price, an image's size, a missing max_tokens.
    package static func json(_ plan: CostPlan, notes: [String], judge: JudgeEstimate? = nil) -> String {
        func cost(low: Double?, high: Double?) -> JSONValue {
            guard let low, let high else { return .null }
            return .object(["low": .double(CostSummary.roundedUSD(low)), "high": .double(CostSummary.roundedUSD(high))])
        }
        func optional(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
        let pairs: [JSONValue] = plan.pairs.map { pair in
            .object([
                "variant": .string(pair.variant), "max_tokens": optional(pair.maxTokens), "model": .string(pair.model),
                "trials": .int(pair.trials), "cached": .int(pair.cached), "to_send": .int(pair.toSend),
                "input_tokens": .int(pair.inputTokens), "image_tokens": .int(pair.imageTokens),
                "output_tokens_max": .int(pair.outputTokensMax), "cost_usd": cost(low: pair.costLow, high: pair.costHigh),
            ])
        }
        let items: [JSONValue] = plan.items.map { item in
            .object([
                "id": .string(item.id), "model": .string(item.model), "width": optional(item.width),
                "height": optional(item.height), "detail": .string(item.detail), "image_tokens": .int(item.imageTokens),
            ])
        }
        let root: JSONValue = .object([
            "trials": .int(plan.trials), "cached": .int(plan.cached), "to_send": .int(plan.toSend),
            "input_tokens": .int(plan.inputTokens), "image_tokens": .int(plan.imageTokens),
            "output_tokens_max": .int(plan.outputTokensMax), "cost_usd": cost(low: plan.costLow, high: plan.costHigh),
            "pairs": .array(pairs), "items": .array(items),
            "assumptions": .array(plan.assumptions.map(JSONValue.string)),
            "unpriced_models": .array(plan.unpricedModels.map(JSONValue.string)),
            "batch_discount": plan.batchDiscount.map(JSONValue.double) ?? .null,
            "notes": .array(notes.map(JSONValue.string)),
            "judge": judge.map { judge in
                JSONValue.object([
                    "model": .string(judge.model), "calls": .int(judge.calls), "mock": .bool(judge.isMock),
                    "input_tokens": .object(["low": .int(judge.inputTokensLow), "high": .int(judge.inputTokensHigh)]),
                    "image_tokens": .int(judge.imageTokens), "output_tokens_max": .int(judge.outputTokensMax),
                    "cost_usd": cost(low: judge.costLow, high: judge.costHigh),
                ])
            } ?? .null,
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(root)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The judge's line below the table: its calls, tokens and cost.
    static func judgeLine(_ judge: JudgeEstimate) -> String {
        var text =
            "judge (--judge): \(Format.count(judge.calls)) call\(judge.calls == 1 ? "" : "s") to \(judge.model), input \(Format.count(judge.inputTokensLow))–\(Format.count(judge.inputTokensHigh)) tokens (est.; of which image \(Format.count(judge.imageTokens))), output ceiling \(Format.count(judge.outputTokensMax))"
        if judge.isMock {
            text += "; the mock judge bills nothing"
        } else if let low = judge.costLow, let high = judge.costHigh {
            text += "; \(Format.usdRange(low: low, high: high))"
        } else {
            text += "; no price for \(judge.model)"
        }
        return text
    }

    /// A column of the text table: its two header lines and its alignment.
    private struct Column {
        var lines: [String]
        var left = false
        init(_ lines: [String], left: Bool = false) {
            self.lines = lines
            self.left = left
        }
    }

    /// A pair's or the total's cost cell: the range, or "no price" when a model has none.
    private static func cost(low: Double?, high: Double?) -> String {
        guard let low, let high else { return "no price" }
        return Format.usdRange(low: low, high: high)
    }
}
