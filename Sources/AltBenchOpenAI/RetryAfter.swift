import AltBenchCore
import Foundation

/// How long a server asked the client to wait, from its headers.
///
/// Values that do not parse are ignored (the next header, or the runner's own backoff, then
/// decides), and every wait is capped at `maximum` so a hostile or broken header cannot
/// overflow a `Duration`; the retry policy still refuses waits longer than it accepts.
package enum RetryAfter {
    /// The longest wait ever reported.
    package static let maximum: Duration = .seconds(24 * 3600)

    /// `retry-after-ms`, then `Retry-After` (seconds or HTTP date), then the larger of the
    /// `x-ratelimit-reset-requests` / `-tokens` durations ("120ms", "1s", "6m0s").
    ///
    /// - Parameters:
    ///   - headers: response headers, names lowercased.
    ///   - includeRateLimitResets: whether the reset durations count as a request to wait.
    ///   - now: the time an HTTP date is measured from.
    package static func parse(
        _ headers: [String: String], includeRateLimitResets: Bool = true, now: Date = Date()
    ) -> Duration? {
        if let ms = headers["retry-after-ms"].flatMap(decimal) {
            return duration(milliseconds: ms)
        }
        if let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) {
            if let seconds = decimal(value) { return duration(milliseconds: seconds * 1000) }
            if let date = DateText.parseHTTPDate(value) { return duration(milliseconds: max(0, date.timeIntervalSince(now)) * 1000) }
        }
        guard includeRateLimitResets else { return nil }
        return ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
            .compactMap { headers[$0].flatMap(resetDuration) }
            .max()
    }

    /// Sums "(\d+(\.\d+)?)(ms|s|m|h)" parts: "6m0s" → 360 s, "120ms" → 0.12 s; nil for
    /// anything else.
    static func resetDuration(_ text: String) -> Duration? {
        DurationText.seconds(ofUnits: text).map { duration(milliseconds: $0 * 1000) }
    }

    /// A non-negative decimal such as "10" or "1.5". `Double(_:)` alone would also accept
    /// "inf", "nan", "1e400" and hex floats, none of which a server means as a wait.
    static func decimal(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            parts.count == 1 || !parts[1].isEmpty,
            let value = Double(trimmed), value.isFinite
        else { return nil }
        return value
    }

    /// Whole nanoseconds, so "120ms" is exactly 120 ms; capped at `maximum`.
    private static func duration(milliseconds: Double) -> Duration {
        guard milliseconds < maximum.milliseconds else { return maximum }
        return .nanoseconds(Int64((milliseconds * 1_000_000).rounded()))
    }
}

extension RateLimitStatus {
    /// The `x-ratelimit-limit-*`, `-remaining-*` and `-reset-*` headers (names lowercased);
    /// `nil` when there are none. Values that do not parse are left out.
    package static func parse(_ headers: [String: String]) -> RateLimitStatus? {
        func integer(_ name: String) -> Int? {
            headers[name].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? $0 : nil }
        }
        let status = RateLimitStatus(
            limitRequests: integer("x-ratelimit-limit-requests"),
            remainingRequests: integer("x-ratelimit-remaining-requests"),
            resetRequests: headers["x-ratelimit-reset-requests"].flatMap(RetryAfter.resetDuration),
            limitTokens: integer("x-ratelimit-limit-tokens"),
            remainingTokens: integer("x-ratelimit-remaining-tokens"),
            resetTokens: headers["x-ratelimit-reset-tokens"].flatMap(RetryAfter.resetDuration))
        return status.isEmpty ? nil : status
    }
}
