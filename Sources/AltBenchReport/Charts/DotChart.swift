import Foundation
import Plot

extension SVGChart {
    /// One row per category (a variant), its value a dot on a shared axis and its 95%
    /// interval a whisker: the chart for one value per variant, such as quality at a run's
    /// only token limit, where a line chart would draw lines of one point.
    ///
    /// - The axis spans `range` exactly, with five ticks labelled by `format`; values outside
    ///   it are drawn at its edge. Each value is printed at the right end of its row.
    /// - Row `i` takes series `i`'s colour and marker (``ChartStyle``), as in the line charts.
    /// - A `point` is read for its `y` (the value) and its `low` and `high` (the interval,
    ///   when both are finite); its `x` is ignored. A row without a point, or with a
    ///   non-finite value, says "no data"; with no value at all the chart is a frame saying
    ///   "No data".
    /// - Names are never cut: a name wider than the label column (at most 40% of the width)
    ///   wraps onto more lines, and its row grows to hold them.
    ///
    /// `id` prefixes the chart's element ids; by default it is derived from the title and
    /// description.
    package static func dots(
        title: String, description: String, valueLabel: String, rows: [(name: String, point: Point?)],
        range: ClosedRange<Double>, format: (Double) -> String, width: Int = 640, id: String? = nil
    ) -> Node<HTML.BodyContext> {
        typealias M = SVGMarkup
        let ids = ChartIDs(kind: "dots", title: title, description: description, id: id)
        let width = Double(max(width, 240))
        let values = rows.map { row in row.point.flatMap { $0.y.isFinite ? $0 : nil } }
        guard values.contains(where: { $0 != nil }) else {
            return M.noData(kind: "dots", ids: ids, title: title, description: description, width: width, height: 120)
        }
        var (lower, upper) = (range.lowerBound, range.upperBound)
        if !lower.isFinite || !upper.isFinite { (lower, upper) = (0, 1) }
        if upper <= lower { upper = lower + 1 }

        let lineHeight = 15.0
        let names = rows.map { M.oneLine($0.name) }
        let labelColumn = min(width * 0.4, (names.map { M.estimatedWidth($0) }.max() ?? 0))
        let labels = names.map { M.wrapped($0, width: labelColumn) }
        let valueColumn = max(M.estimatedWidth("no data"), (values.compactMap { $0.map { M.estimatedWidth(format($0.y)) } }.max() ?? 0)) + 8
        let (left, right, top) = (labelColumn + 16, width - valueColumn - 8, 12.0)
        let heights = labels.map { max(28, Double($0.count) * lineHeight + 13) }
        let bottom = top + heights.reduce(0, +)
        let height = bottom + 48
        func px(_ value: Double) -> Double { left + (min(max(value, lower), upper) - lower) / (upper - lower) * (right - left) }

        var nodes: [SVGNode] = []
        let ticks = (0...4).map { lower + Double($0) * (upper - lower) / 4 }
        nodes.append(
            M.element(
                "g", [("class", "grid")],
                ticks.map { M.element("line", ChartAxes.line(px($0), top, px($0), bottom, colour: ChartStyle.gridColour)) }))

        var rowTop = top
        for index in rows.indices {
            let rowHeight = heights[index]
            let middle = rowTop + rowHeight / 2
            let name = names[index]
            var children: [SVGNode] = []
            if index % 2 == 1 { children.append(M.stripe(left: left, right: right, top: rowTop, height: rowHeight)) }
            let lines = labels[index]
            children.append(
                M.multiline(
                    lines, x: left - 8, y: middle + 4 - Double(lines.count - 1) * lineHeight / 2, lineHeight: lineHeight,
                    [("class", "row-label"), ("text-anchor", "end"), ("fill", ChartStyle.textColour)]))
            if let point = values[index] {
                var tip = "\(name): \(format(point.y))"
                if let low = point.low, let high = point.high, low.isFinite, high.isFinite {
                    let (from, to) = (min(low, high), max(low, high))
                    tip += " (95% interval \(format(from))–\(format(to)))"
                    children.append(
                        M.element(
                            "path",
                            [
                                ("class", "whisker"),
                                ("d", "M\(M.number(px(from))) \(M.number(middle - 5)) V\(M.number(middle + 5)) M\(M.number(px(from))) \(M.number(middle)) H\(M.number(px(to))) M\(M.number(px(to))) \(M.number(middle - 5)) V\(M.number(middle + 5))"),
                                ("fill", "none"), ("stroke", ChartStyle.colour(index)), ("stroke-width", "1.5"),
                            ]))
                }
                children.insert(M.tooltip(tip), at: 0)
                children.append(ChartStyle.marker(ChartStyle.shape(index), x: px(point.y), y: middle, r: 5, colour: ChartStyle.colour(index)))
                children.append(
                    M.label(format(point.y), x: right + 8, y: middle + 4, [("class", "value"), ("fill", ChartStyle.textColour)]))
            } else {
                children.insert(M.tooltip("\(name): no data"), at: 0)
                children.append(
                    M.label("no data", x: right + 8, y: middle + 4, [("class", "no-data"), ("font-style", "italic"), ("fill", ChartStyle.mutedColour)]))
            }
            nodes.append(M.element("g", [("class", "dot-row")], children))
            rowTop += rowHeight
        }

        nodes.append(ChartAxes.bottomAxis(ticks: ticks.map { (px($0), format($0)) }, y: bottom, x0: left, x1: right, title: valueLabel))
        return M.chart(kind: "dots", ids: ids, title: title, description: description, width: width, height: height, nodes)
    }
}
