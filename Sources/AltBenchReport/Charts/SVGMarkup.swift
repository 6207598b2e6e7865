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
        let attributes = attributes.map { Attribute<HTML.BodyContext>(name: $0.0, value: JUnitReport.escape($0.1, attribute: true)) }
        if children.isEmpty {
            return .selfClosedElement(named: name, attributes: attributes)
        }
        return .element(named: name, nodes: attributes.map(\.node) + children)
    }

    /// Escaped character data.
    static func text(_ value: String) -> SVGNode {
        .raw(JUnitReport.escape(value, attribute: false))
    }

    /// `<title>` (a tooltip, and the accessible name of its parent) holding `value`.
    static func tooltip(_ value: String) -> SVGNode {
        element("title", [], [text(value)])
    }

    /// `<text>` holding `value` at (x, y), with any further attributes.
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

    /// A width estimate for `text` at `size`: SVG cannot measure text without a script, so
    /// this counts characters at 0.6 em each, a little wider than most sans-serif fonts.
    static func estimatedWidth(_ text: String, size: Double = fontSize) -> Double {
        Double(text.count) * size * 0.6
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
        let maxCharacters = max(1, Int(width / (size * 0.6)))
        guard line.count > maxCharacters else { return (line, false) }
        return (String(line.prefix(maxCharacters - 1)).trimmingCharacters(in: .whitespaces) + "…", true)
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
