import Foundation
import Plot

extension SVGChart {
    /// Lines over a few numeric x values, such as quality by token limit, one line per series.
    ///
    /// - The x axis is categorical: each distinct x value that has a point gets an equal slot,
    ///   in ascending order, labelled with the value. Token limits are few and uneven (30, 50,
    ///   80, 150); a linear axis would crowd the small ones together.
    /// - The y axis spans `yRange` exactly, with five ticks labelled by `yFormat`, so charts
    ///   of the same measure compare at a glance. Values outside it are drawn at its edge.
    /// - Series `i` has its own colour, marker shape and dash pattern (``ChartStyle``), named
    ///   in the legend beside the same marker and dash. The legend sits below the plot and
    ///   wraps onto more rows when there are many series; the SVG grows by those rows, so
    ///   `height` is the height of the plot and its axes.
    /// - A point's 95% interval (`low` and `high`, both finite) is a translucent band along
    ///   consecutive points that have one, or a short bar for a point alone.
    /// - A point whose x or y is NaN or infinite is skipped; a point given with a finite x but
    ///   no finite y breaks the line there, rather than joining its neighbours across it.
    /// - Each marker's tooltip gives the series, x and y (and the interval); each series'
    ///   group has the full name as its `<title>`.
    /// - With no point to draw, the chart is a frame saying "No data".
    ///
    /// `id` prefixes the chart's element ids; by default it is derived from the title and
    /// description.
    package static func lines(
        title: String, description: String, xLabel: String, yLabel: String, series: [Series],
        yRange: ClosedRange<Double>, yFormat: @escaping (Double) -> String, width: Int = 640, height: Int = 320,
        id: String? = nil
    ) -> Node<HTML.BodyContext> {
        typealias M = SVGMarkup
        let ids = ChartIDs(kind: "lines", title: title, description: description, id: id)
        let width = Double(max(width, 240))
        let height = Double(max(height, 160))

        // Points in x order; a finite x with a non-finite y stays in as a gap.
        let ordered = series.map { series in
            series.points.filter(\.x.isFinite).sorted { $0.x < $1.x }
        }
        let xs = Array(Set(ordered.flatMap { $0.filter(\.y.isFinite).map(\.x) })).sorted()
        guard !xs.isEmpty else {
            return M.noData(kind: "lines", ids: ids, title: title, description: description, width: width, height: height)
        }

        var (lower, upper) = (yRange.lowerBound, yRange.upperBound)
        if !lower.isFinite || !upper.isFinite { (lower, upper) = (0, 1) }
        if upper <= lower { upper = lower + 1 }

        let (left, right, top, bottom) = (60.0, width - 16, 12.0, height - 48)
        let slot = (right - left) / Double(xs.count)
        let slotIndex = Dictionary(uniqueKeysWithValues: xs.enumerated().map { ($0.element, $0.offset) })
        func px(_ x: Double) -> Double { left + (Double(slotIndex[x] ?? 0) + 0.5) * slot }
        func py(_ y: Double) -> Double {
            let clamped = min(max(y, lower), upper)
            return bottom - (clamped - lower) / (upper - lower) * (bottom - top)
        }
        func n(_ v: Double) -> String { M.number(v) }

        var nodes: [SVGNode] = []
        let yTicks = (0...4).map { k -> (y: Double, label: String) in
            let value = lower + Double(k) * (upper - lower) / 4
            return (py(value), yFormat(value))
        }
        nodes.append(ChartAxes.leftAxis(ticks: yTicks, x: left, y0: top, y1: bottom, gridTo: right, title: yLabel))

        // Bands first, under every line.
        var bands: [SVGNode] = []
        for (index, points) in ordered.enumerated() {
            var runs: [[(x: Double, low: Double, high: Double)]] = [[]]
            for point in points {
                if point.y.isFinite, let low = point.low, let high = point.high, low.isFinite, high.isFinite {
                    runs[runs.count - 1].append((px(point.x), py(min(low, high)), py(max(low, high))))
                } else if !runs[runs.count - 1].isEmpty {
                    runs.append([])
                }
            }
            let shapes = runs.filter { !$0.isEmpty }.map { run -> String in
                if run.count == 1 {
                    let p = run[0]
                    return "M\(n(p.x - 4)) \(n(p.high)) L\(n(p.x + 4)) \(n(p.high)) L\(n(p.x + 4)) \(n(p.low)) L\(n(p.x - 4)) \(n(p.low)) Z"
                }
                let upperEdge = run.map { "\(n($0.x)) \(n($0.high))" }
                let lowerEdge = run.reversed().map { "\(n($0.x)) \(n($0.low))" }
                return "M" + (upperEdge + lowerEdge).joined(separator: " L") + " Z"
            }
            if !shapes.isEmpty {
                bands.append(
                    M.element(
                        "path",
                        [("class", "band"), ("d", shapes.joined(separator: " ")), ("fill", ChartStyle.colour(index)), ("fill-opacity", "0.15")]))
            }
        }
        if !bands.isEmpty { nodes.append(M.element("g", [("class", "bands")], bands)) }

        for (index, points) in ordered.enumerated() where points.contains(where: \.y.isFinite) {
            let name = M.oneLine(series[index].name)
            var path = ""
            var drawing = false
            for point in points {
                guard point.y.isFinite else {
                    drawing = false
                    continue
                }
                path += (path.isEmpty ? "" : " ") + (drawing ? "L" : "M") + "\(n(px(point.x))) \(n(py(point.y)))"
                drawing = true
            }
            var children: [SVGNode] = [M.tooltip(name)]
            var lineAttributes: [(String, String)] = [
                ("class", "series-line"), ("d", path), ("fill", "none"), ("stroke", ChartStyle.colour(index)),
                ("stroke-width", "2"), ("stroke-linejoin", "round"),
            ]
            if !ChartStyle.dash(index).isEmpty { lineAttributes.append(("stroke-dasharray", ChartStyle.dash(index))) }
            children.append(M.element("path", lineAttributes))
            for point in points where point.y.isFinite {
                var tip = "\(name), \(M.oneLine(xLabel)) \(ChartAxes.categoryLabel(point.x)): \(yFormat(point.y))"
                if let low = point.low, let high = point.high, low.isFinite, high.isFinite {
                    tip += " (95% interval \(yFormat(min(low, high)))–\(yFormat(max(low, high))))"
                }
                children.append(
                    ChartStyle.marker(
                        ChartStyle.shape(index), x: px(point.x), y: py(point.y), colour: ChartStyle.colour(index), tooltip: tip))
            }
            nodes.append(M.element("g", [("class", "series")], children))
        }

        nodes.append(
            ChartAxes.bottomAxis(
                ticks: xs.map { (px($0), ChartAxes.categoryLabel($0)) }, y: bottom, x0: left, x1: right, title: xLabel))

        let entries = series.enumerated().map { index, series in
            ChartAxes.LegendEntry(
                name: series.name, note: ordered[index].contains(where: \.y.isFinite) ? nil : "no data",
                sample: { x, y in
                    var attributes = ChartAxes.line(x, y, x + 28, y, colour: ChartStyle.colour(index)) + [("stroke-width", "2")]
                    if !ChartStyle.dash(index).isEmpty { attributes.append(("stroke-dasharray", ChartStyle.dash(index))) }
                    return M.element(
                        "g", [],
                        [
                            M.element("line", attributes),
                            ChartStyle.marker(ChartStyle.shape(index), x: x + 14, y: y, colour: ChartStyle.colour(index)),
                        ])
                })
        }
        let legend = ChartAxes.legend(entries, x: left, y: height, width: right - left)
        nodes.append(legend.node)

        return M.chart(
            kind: "lines", ids: ids, title: title, description: description, width: width,
            height: height + legend.height + 8, nodes)
    }
}
