import Foundation
import Plot

/// Inline SVG charts for the single-file HTML report: no script, no image, no web font, and
/// no chart library.
///
/// Every chart is an `<svg>` element with `xmlns`, a `viewBox`, `role="img"` and
/// `aria-labelledby` naming its own `<title>` and `<desc>`. The ids come from ``ChartIDs``
/// (a stable hash of the chart's kind, title and description, or the `id` the caller gives),
/// so two charts on one page do not share ids and the same data gives the same bytes.
///
/// Text from runs and prompt files (series, variant and check names) is untrusted: every text
/// and attribute value goes through ``SVGMarkup``, which escapes it with the report's XML rule,
/// so a name such as `<script>` or `"><img onerror=…>` is shown, never run.
///
/// Nothing relies on colour alone: series differ by marker shape and dash pattern as well as
/// by colour (Okabe–Ito), and the heat map prints each share in its cell.
package enum SVGChart {
    /// One value at one x; `low` and `high`, when both are finite, are its 95% interval,
    /// drawn as a translucent band.
    package struct Point: Sendable, Hashable {
        package var x: Double
        package var y: Double
        package var low: Double?
        package var high: Double?

        package init(x: Double, y: Double, low: Double? = nil, high: Double? = nil) {
            self.x = x
            self.y = y
            self.low = low
            self.high = high
        }
    }

    /// A named line of points. The name comes from a prompt file: it is escaped, and shortened
    /// with an ellipsis in the legend, its full text kept in a tooltip.
    package struct Series: Sendable, Hashable {
        package var name: String
        package var points: [Point]

        package init(name: String, points: [Point]) {
            self.name = name
            self.points = points
        }
    }
}

/// The ids of one chart's elements: `<prefix>-title`, `<prefix>-desc` and the like.
struct ChartIDs {
    let prefix: String

    /// `id` when the caller gives one (anything but letters, digits, `-` and `_` becomes `-`),
    /// otherwise `altbench-<kind>-<hash>`, the hash a 32-bit FNV-1a of the kind, title and
    /// description: stable across runs and machines, unlike Swift's `hashValue`.
    init(kind: String, title: String, description: String, id: String?) {
        if let id, !id.isEmpty {
            let cleaned = String(String.UnicodeScalarView(id.unicodeScalars.map { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_") ? scalar : "-"
            }))
            // An id starts with a letter so it is also a valid CSS selector.
            prefix = cleaned.first!.isLetter ? cleaned : "c-" + cleaned
        } else {
            var hash: UInt32 = 2_166_136_261
            for byte in "\(kind)\u{0}\(title)\u{0}\(description)".utf8 {
                hash = (hash ^ UInt32(byte)) &* 16_777_619
            }
            prefix = "altbench-\(kind)-" + String(format: "%08x", hash)
        }
    }

    var title: String { prefix + "-title" }
    var desc: String { prefix + "-desc" }
    func id(_ suffix: String) -> String { prefix + "-" + suffix }
}
