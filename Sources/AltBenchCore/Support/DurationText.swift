import Foundation

/// Durations as people write them on a command line or in `altbench.yml`: a number of
/// seconds ("90", "2.5"), or numbers with units ("500ms", "90s", "30m", "2h", "1h30m").
package enum DurationText {
    /// The duration, or `nil` when the text is not one (or is zero or negative).
    package static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty else { return nil }
        if let seconds = Double(trimmed), seconds.isFinite, seconds > 0, trimmed.allSatisfy({ $0.isNumber || $0 == "." }) {
            return .seconds(clamping: seconds)
        }
        guard let total = seconds(ofUnits: trimmed), total > 0 else { return nil }
        return .seconds(clamping: total)
    }

    /// The seconds in a sum of `(\d+(\.\d+)?)(ms|s|m|h)` parts ("6m0s" → 360, "120ms" →
    /// 0.12, "0s" → 0), as OpenAI's `x-ratelimit-reset-*` headers and people write them;
    /// `nil` for anything else.
    package static func seconds(ofUnits text: String) -> Double? {
        var total = 0.0
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            // Digits, optionally a point and more digits: not "1.", ".5" or "1.2.3".
            let pieces = number.split(separator: ".", omittingEmptySubsequences: false)
            guard pieces.count <= 2, pieces.allSatisfy({ !$0.isEmpty }), let value = Double(number), value.isFinite
            else { return nil }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isASCII && $0.isLetter }
            rest = rest.dropFirst(unit.count)
            switch unit {
            case "ms": total += value / 1000
            case "s": total += value
            case "m": total += value * 60
            case "h": total += value * 3600
            default: return nil
            }
        }
        return total
    }

    /// "2h 5m 3s", "90s", "1.5s", "250ms": short and exact enough for messages.
    package static func format(_ duration: Duration) -> String {
        let seconds = duration.secondsValue
        if seconds < 1 { return "\(Int((seconds * 1000).rounded()))ms" }
        if seconds < 60 {
            let rounded = (seconds * 10).rounded() / 10
            return rounded == rounded.rounded() ? "\(Int(rounded))s" : String(format: "%.1fs", rounded)
        }
        let whole = Int(seconds.rounded())
        let (hours, minutes, rest) = (whole / 3600, whole % 3600 / 60, whole % 60)
        return [hours > 0 ? "\(hours)h" : nil, minutes > 0 ? "\(minutes)m" : nil, rest > 0 ? "\(rest)s" : nil]
            .compactMap { $0 }.joined(separator: " ")
    }
}
