import Foundation

/// Dates written and read in a fixed format, the same on every machine: the POSIX locale and
/// UTC, whatever the user's settings. Run ids, report timestamps, HTTP dates and Azure's
/// batch times all go through here.
package enum DateText {
    /// `date` in `format` (a `DateFormatter` pattern) on the UTC clock.
    package static func utc(_ date: Date, _ format: String) -> String {
        formatter(format).string(from: date)
    }

    /// `text` read with `format` on the UTC clock; nil when it does not fit.
    package static func parseUTC(_ text: String, _ format: String) -> Date? {
        formatter(format).date(from: text)
    }

    /// `date` as an HTTP IMF-fixdate ("Wed, 21 Oct 2015 07:28:00 GMT", RFC 9110).
    package static func httpDate(_ date: Date) -> String {
        utc(date, "EEE, dd MMM yyyy HH:mm:ss 'GMT'")
    }

    /// An HTTP date ("Sun, 06 Nov 1994 08:49:37 GMT"); nil for anything else.
    package static func parseHTTPDate(_ text: String) -> Date? {
        parseUTC(text, "EEE, dd MMM yyyy HH:mm:ss zzz")
    }

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter
    }
}
