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

    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }

    static func duration(from start: Date, to end: Date?) -> String {
        guard let end else { return "–" }
        let seconds = end.timeIntervalSince(start)
        return seconds < 60 ? String(format: "%.1f s", seconds) : String(format: "%d min %02d s", Int(seconds) / 60, Int(seconds) % 60)
    }

    /// Names of the pass/fail scores that flagged an answer, in a fixed order.
    static func flags(_ scores: [String: Score]) -> [String] {
        let order: [(String, String)] = [
            (ScoreName.empty, "empty"), (ScoreName.refusal, "refusal"), (ScoreName.truncated, "truncated"),
            (ScoreName.firstPerson, "first person"), (ScoreName.redundantPrefix, "“image of”"),
            (ScoreName.overLimit, "over limit"),
        ]
        var flags = order.compactMap { scores[$0.0]?.isFlagged == true ? $0.1 : nil }
        if let brevity = scores[ScoreName.brevity], brevity.passed == false { flags.append("long") }
        return flags
    }
}
