import Foundation

/// Axes, ticks and the legend, shared by the charts.
enum ChartAxes {
    typealias M = SVGMarkup

    // MARK: - Ticks

    /// Round tick values covering `low...high`: about `count` steps of 1, 2 or 5 times a power
    /// of ten, the range widened to whole steps. An empty range is widened to one unit.
    static func niceTicks(low: Double, high: Double, count: Int = 5) -> (values: [Double], step: Double) {
        var (low, high) = (low, high)
        if !(high > low) { high = low + 1 }
        let raw = (high - low) / Double(max(count, 1))
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let residual = raw / magnitude
        let step = (residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10) * magnitude
        let first = (low / step).rounded(.down)
        let last = (high / step).rounded(.up)
        let values = stride(from: first, through: last, by: 1).map { $0 * step }
        return (values, step)
    }

    /// A tick value with as many decimals as `step` needs ("150", "0.5", "0.25").
    static func tickLabel(_ value: Double, step: Double) -> String {
        let decimals = step >= 1 ? 0 : Int((-log10(step)).rounded(.up))
        let text = String(format: "%.\(decimals)f", value)
        return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
    }

    /// An x value as a category label: whole numbers without decimals (token limits),
    /// others as `%g`.
    static func categoryLabel(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%g", value)
    }

    // MARK: - Axes

    /// The horizontal axis along `y` from `x0` to `x1`: a line, a tick and a label per tick,
    /// and the axis title centred below them.
    static func bottomAxis(ticks: [(x: Double, label: String)], y: Double, x0: Double, x1: Double, title: String) -> SVGNode {
        var nodes = [M.element("line", line(x0, y, x1, y, colour: ChartStyle.axisColour))]
        for tick in ticks {
            nodes.append(M.element("line", line(tick.x, y, tick.x, y + 5, colour: ChartStyle.axisColour)))
            nodes.append(M.label(tick.label, x: tick.x, y: y + 18, [("text-anchor", "middle"), ("fill", ChartStyle.textColour)]))
        }
        nodes.append(M.label(M.oneLine(title), x: (x0 + x1) / 2, y: y + 38, [("class", "axis-title"), ("text-anchor", "middle"), ("fill", ChartStyle.textColour)]))
        return M.element("g", [("class", "x-axis")], nodes)
    }

    /// The vertical axis along `x` from `y0` (top) to `y1`: tick labels right-aligned left of
    /// it, a light grid line across the plot (`x` to `gridTo`) per tick, and the title
    /// rotated along the left edge.
    static func leftAxis(ticks: [(y: Double, label: String)], x: Double, y0: Double, y1: Double, gridTo: Double, title: String) -> SVGNode {
        var nodes: [SVGNode] = []
        for tick in ticks {
            nodes.append(M.element("line", line(x, tick.y, gridTo, tick.y, colour: ChartStyle.gridColour)))
            nodes.append(M.label(tick.label, x: x - 6, y: tick.y + 4, [("text-anchor", "end"), ("fill", ChartStyle.textColour)]))
        }
        nodes.append(M.element("line", line(x, y0, x, y1, colour: ChartStyle.axisColour)))
        let middle = (y0 + y1) / 2
        nodes.append(
            M.element(
                "text",
                [
                    ("class", "axis-title"), ("transform", "translate(14 \(M.number(middle))) rotate(-90)"),
                    ("text-anchor", "middle"), ("fill", ChartStyle.textColour),
                ], [M.text(M.oneLine(title))]))
        return M.element("g", [("class", "y-axis")], nodes)
    }

    /// Attributes of a one-pixel line.
    static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour: String) -> [(String, String)] {
        [("x1", M.number(x1)), ("y1", M.number(y1)), ("x2", M.number(x2)), ("y2", M.number(y2)), ("stroke", colour)]
    }

    // MARK: - Legend

    /// One legend entry: its name, a note after it, and how to draw its sample at a point
    /// (the sample's left edge and vertical centre, 28 pixels wide).
    struct LegendEntry {
        var name: String
        var note: String?
        var sample: (_ x: Double, _ y: Double) -> SVGNode
    }

    static let legendRowHeight = 20.0
    /// The most a name takes in the legend, about 30 characters.
    static let legendNameWidth = 220.0

    /// Entries flowing left to right, each as wide as its sample and name, wrapping onto as
    /// many rows as they need within `width`. A name longer than 220 pixels (or the whole
    /// width) is cut with "…" and the whole name kept in the entry's `<title>`; `note` (e.g.
    /// "no data") follows the name uncut.
    static func legend(_ entries: [LegendEntry], x: Double, y: Double, width: Double) -> (node: SVGNode, height: Double) {
        var nodes: [SVGNode] = []
        var (left, row) = (x, 0)
        for entry in entries {
            let note = entry.note.map { " (\($0))" } ?? ""
            let name = M.fitted(entry.name, width: min(legendNameWidth, width - 34) - M.estimatedWidth(note))
            let entryWidth = 34 + M.estimatedWidth(name.text + note) + 18
            if left > x, left + entryWidth > x + width {
                (left, row) = (x, row + 1)
            }
            let middle = y + Double(row) * legendRowHeight + legendRowHeight / 2
            var children: [SVGNode] = name.cut ? [M.tooltip(M.oneLine(entry.name))] : []
            children.append(entry.sample(left, middle))
            children.append(M.label(name.text + note, x: left + 34, y: middle + 4, [("fill", ChartStyle.textColour)]))
            nodes.append(M.element("g", [("class", "legend-entry")], children))
            left += entryWidth
        }
        let rows = entries.isEmpty ? 0 : row + 1
        return (M.element("g", [("class", "legend")], nodes), Double(rows) * legendRowHeight)
    }
}
