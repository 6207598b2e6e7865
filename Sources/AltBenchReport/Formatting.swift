import AltBenchCore
import Foundation

/// Number formats shared by the Markdown report and the terminal summary.
enum Format {
    static func percent(_ share: Double?) -> String {
        guard let share else { return "–" }
        return "\(Int((share * 100).rounded()))%"
    }

    static func decimal(_ value: Double?, digits: Int = 1) -> String {
        guard let value else { return "–" }
        return String(format: "%.\(digits)f", value)
    }

    static func whole(_ value: Double?) -> String {
        guard let value else { return "–" }
        return String(Int(value.rounded()))
    }

    static func latency(_ milliseconds: Double?) -> String {
        guard let milliseconds else { return "–" }
        if milliseconds < 1 { return "<1 ms" }
        if milliseconds < 10_000 { return "\(Int(milliseconds.rounded())) ms" }
        return String(format: "%.1f s", milliseconds / 1000)
    }

    static func tokens(_ limit: Int?) -> String {
        limit.map(String.init) ?? "none"
    }

    /// USD in the one money format (``CostSummary/usd(_:)``: "$0.0042", "$1.27",
    /// "$1,234.50"); "–" when unknown.
    static func usd(_ amount: Double?) -> String {
        amount.map(CostSummary.usd) ?? "–"
    }

    /// A cost range, "$0.0088–$0.0098", or one figure when both ends are the same.
    static func usdRange(low: Double, high: Double) -> String {
        let from = CostSummary.usd(low), to = CostSummary.usd(high)
        return from == to ? from : "\(from)–\(to)"
    }

    /// A token count with thousands separators ("25,890"); "–" when unknown.
    static func count(_ value: Int?) -> String {
        value.map(CostSummary.count) ?? "–"
    }

    /// Reported ÷ estimated tokens, "1.02×"; "–" when there is no estimate.
    static func ratio(_ value: Double?) -> String {
        value.map(CostSummary.ratio) ?? "–"
    }

    static func timestamp(_ date: Date) -> String {
        DateText.utc(date, "yyyy-MM-dd HH:mm:ss 'UTC'")
    }

    static func duration(from start: Date, to end: Date?) -> String {
        guard let end else { return "–" }
        let seconds = end.timeIntervalSince(start)
        return seconds < 60 ? String(format: "%.1f s", seconds) : String(format: "%d min %02d s", Int(seconds) / 60, Int(seconds) % 60)
    }

    /// A short label for a score id, as table headers and flag lists show it.
    static func label(_ id: String) -> String {
        switch id {
        case ScoreName.empty: "empty"
        case ScoreName.length: "chars"
        case ScoreName.brevity: "brevity"
        case ScoreName.overLimit: "over limit"
        case ScoreName.firstPerson: "first person"
        case ScoreName.perceptionMeta: "“I can see”"
        case ScoreName.redundantPrefix: "“image of”"
        case ScoreName.metaLabel: "“Alt text:”"
        case ScoreName.refusal: "refusal"
        case ScoreName.truncated: "truncated"
        case ScoreName.terminalPunctuation: "no final stop"
        case ScoreName.filename: "file name"
        case ScoreName.markdown: "markdown"
        case ScoreName.emoji: "emoji"
        case ScoreName.socialTokens: "#tags/@/URLs"
        case ScoreName.hedging: "hedging"
        case ScoreName.readability: "Flesch"
        case ScoreName.textRecall: "text recall"
        case ScoreName.keywordRecall: "keyword recall"
        case ScoreName.contextEcho: "echoes post"
        case ScoreName.bleu4: "BLEU-4"
        case ScoreName.rougeL: "ROUGE-L"
        case ScoreName.ciderD: "CIDEr-D"
        case ScoreName.referenceMatch: "reference match"
        case ScoreName.judgeAccuracy: "judge accuracy"
        case ScoreName.judgeCompleteness: "judge completeness"
        case ScoreName.judgeConcision: "judge concision"
        case ScoreName.form: "form"
        case ScoreName.content: "content"
        case ScoreName.quality: "quality"
        default: id
        }
    }

    /// The mark of a `quality` that is form alone: "†", with the number of such answers in a
    /// row after it ("0.50†2").
    static let formOnlyMark = "†"

    /// A row's mean quality, "0.50", marked "0.50†2" when 2 of its answers were scored on
    /// form alone, so it never reads as silently equal to the form.
    static func quality(_ row: SummaryRow) -> String {
        let value = decimal(row.meanQuality, digits: 2)
        return row.formOnly > 0 ? "\(value)\(formOnlyMark)\(row.formOnly)" : value
    }

    /// One answer's quality, "0.50", or "0.50†" when it is form alone.
    static func quality(_ scores: ScoreSet) -> String {
        let value = decimal(scores[ScoreName.quality]?.value, digits: 2)
        return QualityScorer.isFormOnly(scores) ? "\(value)\(formOnlyMark)" : value
    }

    /// The note under a table whose quality cells carry the form-only mark; `nil` when none
    /// does. `answers` names what the rows count ("answered trials", "answers").
    static func formOnlyNote(_ rows: [SummaryRow], answers: String = "answers") -> String? {
        let marked = rows.filter { $0.formOnly > 0 }
        guard !marked.isEmpty else { return nil }
        let total = marked.reduce(0) { $0 + $1.formOnly }
        return "\(formOnlyMark)n: form only — n of the row's \(answers) (\(total) in all) had no content part (no references, must_mention, expected_text or judge score), so their quality is their form alone."
    }

    /// A weight as written in `altbench.yml`: "2", "0.5".
    static func weight(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }

    /// The word for a check that flagged an answer: its ``label(_:)``, except `brevity`, whose
    /// flag reads "long". The per-image flags, the HTML gallery's check filter and the heat map
    /// of checks all name checks with it, so one outcome reads the same everywhere.
    static func flagWord(_ id: String) -> String {
        id == ScoreName.brevity ? "long" : label(id)
    }

    /// The checks that flagged an answer, hard fails first, then brevity and style: the
    /// per-image "flags" column.
    static func flags(_ scores: ScoreSet) -> [String] {
        flagOrder.compactMap { scores[$0]?.passed == false ? flagWord($0) : nil }
    }

    /// The order flags are listed in: hard fails first, then brevity and style.
    static let flagOrder = [
        ScoreName.empty, ScoreName.refusal, ScoreName.truncated, ScoreName.firstPerson, ScoreName.perceptionMeta,
        ScoreName.redundantPrefix, ScoreName.metaLabel, ScoreName.contextEcho, ScoreName.filename,
        ScoreName.markdown, ScoreName.overLimit, ScoreName.brevity, ScoreName.emoji, ScoreName.socialTokens,
        ScoreName.hedging, ScoreName.terminalPunctuation,
    ]
}
