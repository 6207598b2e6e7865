import AltBenchCore
import Foundation

/// The comparison table as aligned plain text, for stdout.
package enum TerminalSummary {
    package static func render(_ results: RunResults, summary: RunSummary? = nil) -> String {
        let summary = summary ?? RunSummary(results)
        let judged = summary.rows.contains { $0.judged > 0 }
        let headers = ["variant", "max_tokens", "n", "errors", "form", "content", "quality"] + (judged ? ["judge"] : []) + [
            "mean chars", "p90 chars", "≤\(summary.budget)", "1st person", "truncated", "refusals", "empty", "compl. tokens",
            "p50 latency",
        ]
        let rows = summary.rows.map { row in
            [
                TerminalText.line(row.variant), Format.tokens(row.maxTokens), String(row.n), String(row.errors),
                Format.decimal(row.meanForm, digits: 2), Format.decimal(row.meanContent, digits: 2), Format.quality(row),
            ] + (judged ? [Format.decimal(row.means[ScoreName.judgeAccuracy], digits: 2)] : []) + [
                Format.decimal(row.meanChars), Format.whole(row.p90Chars), Format.percent(row.withinBudget),
                Format.percent(row.firstPerson), Format.percent(row.truncated), Format.percent(row.refusals),
                Format.percent(row.empty), Format.decimal(row.meanCompletionTokens), Format.latency(row.p50LatencyMs),
            ]
        }
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return index == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        var out = [line(headers), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        out += rows.map(line)
        if let note = Format.formOnlyNote(summary.rows, answers: "answered trials") { out += ["", note] }
        if let judge = JudgeSummary(results) { out += ["", TerminalText.line(JudgeReport.terminalLine(judge, rows: summary.rows))] }
        return out.joined(separator: "\n") + "\n"
    }
}
