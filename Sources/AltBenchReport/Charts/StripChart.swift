import Foundation
import Plot

extension SVGChart {
    /// One row per category (a variant), each of its values a dot along a shared x axis, such
    /// as answer lengths against the brevity budget.
    ///
    /// - The axis has round ticks (1, 2 or 5 times a power of ten) and covers every value and
    ///   the reference; it starts at 0 when no value is negative, since lengths and counts
    ///   are read from zero.
    /// - Dots are translucent, so overlapping ones show as darker, and spread vertically
    ///   within their row by a fixed sequence (the fractional parts of i × 0.618…, i the
    ///   value's index): the same values give the same picture every time.
    /// - The median of a row is a dark vertical bar across it; the row's tooltip gives the
    ///   count and the median.
    /// - `reference`, when given, is a dashed vertical line across all rows, its label above
    ///   the plot.
    /// - A row of more than ``maxDots`` values draws that many of its quantiles instead, and
    ///   its tooltip says so; the median is of every value.
    /// - NaN and infinite values are skipped; a row with no value says "no data". With no
    ///   value at all the chart is a frame saying "No data".
    /// - Category names are cut with "…" to fit the label column (at most 30% of the width),
    ///   the full name kept in the row's `<title>`.
    ///
    /// `id` prefixes the chart's element ids; by default it is derived from the title and
    /// description.
    package static func strips(
        title: String, description: String, xLabel: String, categories: [(name: String, values: [Double])],
        reference: (value: Double, label: String)?, width: Int = 640, id: String? = nil
    ) -> Node<HTML.BodyContext> {
        typealias M = SVGMarkup
        let ids = ChartIDs(kind: "strips", title: title, description: description, id: id)
        let width = Double(max(width, 240))
        let rows = categories.map { (name: $0.name, values: $0.values.filter(\.isFinite)) }
        let reference = reference.flatMap { $0.value.isFinite ? $0 : nil }
        let all = rows.flatMap(\.values)
        guard !all.isEmpty else {
            return M.noData(kind: "strips", ids: ids, title: title, description: description, width: width, height: 120)
        }

        let rowHeight = 28.0
        let labelWidth = min(width * 0.3, (rows.map { M.estimatedWidth(M.oneLine($0.name)) }.max() ?? 0) + 12)
        let (left, right, top) = (labelWidth + 8, width - 24, 28.0)
        let bottom = top + Double(rows.count) * rowHeight
        let height = bottom + 48

        let extent = all + (reference.map { [$0.value] } ?? [])
        let low = all.allSatisfy { $0 >= 0 } && (reference?.value ?? 0) >= 0 ? 0 : extent.min()!
        let ticks = ChartAxes.niceTicks(low: low, high: extent.max()!)
        let (domainLow, domainHigh) = (ticks.values.first!, ticks.values.last!)
        func px(_ value: Double) -> Double { left + (value - domainLow) / (domainHigh - domainLow) * (right - left) }
        // A median: whole numbers as such, others with a decimal more than the ticks need.
        func format(_ value: Double) -> String {
            ChartAxes.tickLabel(value, step: value == value.rounded() ? 1 : min(ticks.step / 10, 0.1))
        }

        var nodes: [SVGNode] = []
        var grid: [SVGNode] = []
        for value in ticks.values {
            grid.append(M.element("line", ChartAxes.line(px(value), top, px(value), bottom, colour: ChartStyle.gridColour)))
        }
        nodes.append(M.element("g", [("class", "grid")], grid))

        for (index, row) in rows.enumerated() {
            let rowTop = top + Double(index) * rowHeight
            let middle = rowTop + rowHeight / 2
            let name = M.fitted(row.name, width: labelWidth - 4)
            var children: [SVGNode] = []
            if index % 2 == 1 { children.append(M.stripe(left: left, right: right, top: rowTop, height: rowHeight)) }
            children.append(M.label(name.text, x: labelWidth, y: middle + 4, [("text-anchor", "end"), ("fill", ChartStyle.textColour)]))
            if row.values.isEmpty {
                children.insert(M.tooltip("\(M.oneLine(row.name)): no data"), at: 0)
                children.append(
                    M.label("no data", x: left + 6, y: middle + 4, [("class", "no-data"), ("font-style", "italic"), ("fill", ChartStyle.mutedColour)]))
            } else {
                let median = Self.median(row.values)
                let count = row.values.count
                let shown = count > maxDots ? " (\(maxDots) quantiles drawn)" : ""
                children.insert(M.tooltip("\(M.oneLine(row.name)): \(count) value\(count == 1 ? "" : "s")\(shown), median \(format(median))"), at: 0)
                for (i, value) in Self.drawn(row.values).enumerated() {
                    let jitter = (Double(i) * 0.618_033_988_75).truncatingRemainder(dividingBy: 1) - 0.5
                    children.append(
                        M.element(
                            "circle",
                            [
                                ("class", "dot"), ("cx", M.number(px(value))), ("cy", M.number(middle + jitter * rowHeight * 0.6)),
                                ("r", "3.5"), ("fill", ChartStyle.colour(0)), ("fill-opacity", "0.5"),
                            ]))
                }
                children.append(
                    M.element(
                        "line",
                        ChartAxes.line(px(median), rowTop + 3, px(median), rowTop + rowHeight - 3, colour: ChartStyle.textColour)
                            + [("class", "median"), ("stroke-width", "3")]))
            }
            nodes.append(M.element("g", [("class", "strip")], children))
        }

        if let reference {
            let x = px(reference.value)
            let label = M.oneLine(reference.label)
            // The label sits right of the line, or left of it when it would run off the chart.
            let fitsRight = x + 4 + M.estimatedWidth(label) <= width
            nodes.append(
                M.element(
                    "g", [("class", "reference")],
                    [
                        M.element(
                            "line",
                            ChartAxes.line(x, top - 10, x, bottom, colour: ChartStyle.colour(1))
                                + [("stroke-width", "1.5"), ("stroke-dasharray", "5 3")]),
                        M.label(
                            label, x: fitsRight ? x + 4 : x - 4, y: top - 12,
                            [("class", "reference-label"), ("text-anchor", fitsRight ? "start" : "end"), ("fill", ChartStyle.textColour)]),
                    ]))
        }

        nodes.append(
            ChartAxes.bottomAxis(
                ticks: ticks.values.map { (px($0), ChartAxes.tickLabel($0, step: ticks.step)) }, y: bottom, x0: left, x1: right,
                title: xLabel))

        return M.chart(kind: "strips", ids: ids, title: title, description: description, width: width, height: height, nodes)
    }

    /// The most dots a row draws. Beyond it a row draws its values at `maxDots` evenly spaced
    /// quantiles (the smallest and the largest among them), which keep the spread's shape, and
    /// the chart stays the same size whatever the number of answers.
    static let maxDots = 300

    /// The values a row draws: all of them, or `maxDots` quantiles of many.
    static func drawn(_ values: [Double]) -> [Double] {
        guard values.count > maxDots else { return values }
        let sorted = values.sorted()
        return (0..<maxDots).map { sorted[Int((Double($0) / Double(maxDots - 1) * Double(sorted.count - 1)).rounded())] }
    }

    /// The middle value, or the mean of the two middle values; `values` is not empty.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
