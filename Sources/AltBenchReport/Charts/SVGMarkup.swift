import Foundation
import Plot

typealias SVGNode = Node<HTML.BodyContext>

/// The one way the charts write SVG: Plot nodes whose text and attribute values are escaped
/// here, with the report's XML rule (``JUnitReport/escape(_:attribute:)``).
///
/// Plot 0.14 escapes text only in part (it keeps anything that looks like an entity, so
/// `AT&T;` would reach the page as an undefined entity) and writes attribute values as they
/// are, quotes included. So no chart calls Plot's `.text` or `.attribute` directly: they call
/// ``element(_:_:_:)`` and ``text(_:)``, which escape `&`, `<`, `>`, both quotes, and replace
/// characters XML cannot carry.
enum SVGMarkup {
    /// `<name attributes…>children…</name>`, or `<name attributes…/>` without children.
    /// Attributes keep their order, so the output is byte-for-byte stable.
    static func element(_ name: String, _ attributes: [(String, String)] = [], _ children: [SVGNode] = []) -> SVGNode {
        let attributes = attributes.map { Attribute<HTML.BodyContext>(name: $0.0, value: SafeHTML.escapeAttribute($0.1)) }
        if children.isEmpty {
            return .selfClosedElement(named: name, attributes: attributes)
        }
        return .element(named: name, nodes: attributes.map(\.node) + children)
    }

    /// Escaped character data.
    static func text(_ value: String) -> SVGNode {
        .raw(SafeHTML.escapeText(value))
    }

    /// `<title>` (a tooltip, and the accessible name of its parent) holding `value`.
    static func tooltip(_ value: String) -> SVGNode {
        element("title", [], [text(value)])
    }

    /// `<text>` holding `value` at (x, y), with any further attributes.
    /// The shaded band behind every other row of a row chart (strips, dots).
    static func stripe(left: Double, right: Double, top: Double, height: Double) -> SVGNode {
        element(
            "rect",
            [
                ("x", number(left)), ("y", number(top)), ("width", number(right - left)),
                ("height", number(height)), ("fill", ChartStyle.stripeColour), ("fill-opacity", "0.7"),
            ])
    }

    static func label(_ value: String, x: Double, y: Double, _ attributes: [(String, String)] = []) -> SVGNode {
        element("text", [("x", number(x)), ("y", number(y))] + attributes, [text(value)])
    }

    // MARK: - Numbers

    /// A coordinate: rounded to a tenth, without a trailing ".0" and never "-0"; always a
    /// dot as decimal separator, whatever the locale.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format: "%.1f", rounded)
    }

    // MARK: - Text that must fit

    /// The font size every chart uses, in pixels.
    static let fontSize = 12.0

    /// A width estimate for `text` at `size`. SVG cannot measure text without a script, so
    /// this adds up a width per character, each on the generous side of DejaVu Sans (the wide
    /// sans-serif Linux browsers fall back to; Segoe UI and San Francisco are narrower):
    /// narrow letters and punctuation 0.4 em, lower case and digits 0.66, other ASCII 0.7 (0.85
    /// for `# & + = < > ~ ^`), capitals 0.8, `m`, `w`, `M`, `W`, `@`, `%` and dashes 1.0, other
    /// letters and symbols 0.9, and CJK, emoji and other wide scripts 1.1. Layouts that must not clip a label size it with this.
    static func estimatedWidth(_ text: String, size: Double = fontSize) -> Double {
        var ems = 0.0
        for scalar in text.unicodeScalars {
            ems += characterWidth(scalar)
        }
        return ems * size
    }

    /// One character's width in em, as ``estimatedWidth(_:size:)`` counts it.
    static func characterWidth(_ scalar: Unicode.Scalar) -> Double {
        switch scalar {
        case " ", "i", "j", "l", "I", "!", "'", "|", ".", ",", ":", ";", "(", ")", "[", "]", "f", "t", "r", "`":
            return 0.4
        case "m", "w", "M", "W", "@", "%", "\u{2013}", "\u{2014}", "\u{2026}":
            return 1.0
        case "#", "&", "+", "=", "<", ">", "~", "^":
            return 0.85
        case "A"..."Z":
            return 0.8
        case "a"..."z", "0"..."9":
            return 0.66
        default:
            if scalar.value < 0x80 { return 0.7 }
            if scalar.properties.generalCategory == .nonspacingMark || scalar.properties.generalCategory == .enclosingMark {
                return 0
            }
            return scalar.value >= 0x1100 && !(0x2000...0x2BFF).contains(scalar.value) ? 1.1 : 0.9
        }
    }

    /// Runs of whitespace and line breaks folded into single spaces: names from files are
    /// shown on one line.
    static func oneLine(_ text: String) -> String {
        JUnitReport.oneLine(text)
    }

    /// `text` on one line, cut with "…" to fit `width`; `cut` tells whether it was, so the
    /// caller can keep the full text in a tooltip.
    static func fitted(_ text: String, width: Double, size: Double = fontSize) -> (text: String, cut: Bool) {
        let line = oneLine(text)
        guard estimatedWidth(line, size: size) > width else { return (line, false) }
        let room = width - estimatedWidth("…", size: size)
        var kept = ""
        var used = 0.0
        for character in line {
            let extra = estimatedWidth(String(character), size: size)
            if used + extra > room { break }
            kept.append(character)
            used += extra
        }
        return (kept.trimmingCharacters(in: .whitespaces) + "…", true)
    }

    /// `text` on one line per entry, each at most `width` wide by ``estimatedWidth(_:size:)``:
    /// broken after a space, `-`, `_`, `/` or `.` where one falls in the line, else at the last
    /// character that fits. Nothing is cut: the lines together hold the whole text (its runs
    /// of whitespace folded, as ``oneLine(_:)`` does).
    static func wrapped(_ text: String, width: Double, size: Double = fontSize) -> [String] {
        let line = oneLine(text)
        guard estimatedWidth(line, size: size) > width else { return [line] }
        var lines: [String] = []
        var current: [Character] = []
        var used = 0.0
        for character in line {
            let extra = estimatedWidth(String(character), size: size)
            if used + extra > width, !current.isEmpty {
                // Break after the last break opportunity in the line, if there is one.
                if let index = current.lastIndex(where: { " -_/.".contains($0) }), index < current.count - 1 {
                    lines.append(String(current[...index]))
                    current = Array(current[(index + 1)...])
                } else {
                    lines.append(String(current))
                    current = []
                }
                used = estimatedWidth(String(current), size: size)
            }
            current.append(character)
            used += extra
        }
        if !current.isEmpty { lines.append(String(current)) }
        return lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `<text>` of `lines`, one `<tspan>` per line `lineHeight` apart, the first baseline at
    /// (x, y).
    static func multiline(_ lines: [String], x: Double, y: Double, lineHeight: Double, _ attributes: [(String, String)] = []) -> SVGNode {
        if lines.count == 1 { return label(lines[0], x: x, y: y, attributes) }
        return element(
            "text", [("x", number(x)), ("y", number(y))] + attributes,
            lines.enumerated().map { index, line in
                element("tspan", [("x", number(x)), ("dy", index == 0 ? "0" : number(lineHeight))], [text(line)])
            })
    }

    // MARK: - The chart element

    /// The root `<svg>`: namespace, size, `viewBox`, `role="img"`, and `aria-labelledby`
    /// naming its `<title>` and `<desc>`, which come first. It scales down to narrow pages
    /// (`max-width: 100%`) and keeps its aspect ratio.
    static func chart(
        kind: String, ids: ChartIDs, title: String, description: String, width: Double, height: Double,
        _ children: [SVGNode]
    ) -> SVGNode {
        element(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"),
                ("class", "altbench-chart altbench-chart-\(kind)"),
                ("viewBox", "0 0 \(number(width)) \(number(height))"),
                ("width", number(width)),
                ("height", number(height)),
                ("role", "img"),
                ("aria-labelledby", "\(ids.title) \(ids.desc)"),
                ("font-family", "system-ui, sans-serif"),
                ("font-size", number(fontSize)),
                ("style", "max-width: 100%; height: auto"),
            ],
            [
                element("title", [("id", ids.title)], [text(title)]),
                element("desc", [("id", ids.desc)], [text(description)]),
            ] + children)
    }

    /// A chart with nothing to draw: a frame saying "No data", with the same title and
    /// description, so the report's layout and accessible names do not change.
    static func noData(kind: String, ids: ChartIDs, title: String, description: String, width: Double, height: Double) -> SVGNode {
        chart(
            kind: kind, ids: ids, title: title, description: description, width: width, height: height,
            [
                element(
                    "rect",
                    [
                        ("x", "0.5"), ("y", "0.5"), ("width", number(width - 1)), ("height", number(height - 1)),
                        ("fill", "none"), ("stroke", ChartStyle.gridColour),
                    ]),
                label(
                    "No data", x: width / 2, y: height / 2 + 4,
                    [("class", "no-data"), ("text-anchor", "middle"), ("fill", ChartStyle.mutedColour)]),
            ])
    }
}
