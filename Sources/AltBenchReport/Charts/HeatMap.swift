import Foundation
import Plot

extension SVGChart {
    /// A grid of shares: one row per `rows` entry (e.g. "icecubes @ 50"), one column per
    /// `columns` entry (check ids), `values[row][column]` a share in 0...1.
    ///
    /// - Each cell is filled from one hue, light for 0 and dark for 1 (``ChartStyle/sequential(_:)``),
    ///   and prints its percentage, in black or white, whichever contrasts more with the fill:
    ///   the numbers carry the reading, the colour only the overview, so it reads in
    ///   grey-scale and for colour-blind readers.
    /// - `nil`, NaN and infinite values are "not applicable": a hatched cell showing "–". A
    ///   missing row or column in `values` counts as `nil`, extra ones are ignored. Shares
    ///   outside 0...1 print as they are and are coloured as the nearest end.
    /// - Column names are written across when all fit a cell, otherwise at 45°. Row names
    ///   wider than 260 pixels wrap onto more lines (broken at spaces and punctuation where
    ///   they can be) and their rows grow to hold them. No label is cut or clipped: the chart is
    ///   as wide and tall as its labels need, by ``SVGMarkup/estimatedWidth(_:size:)``. Every
    ///   cell's `<title>` names its row, column and value.
    /// - A key below the grid shows the scale at 0, 25, 50, 75 and 100% and the hatching.
    /// - The chart is as wide and tall as its cells need; with no row or no column it is a
    ///   frame saying "No data".
    ///
    /// `id` prefixes the chart's element ids; by default it is derived from the title and
    /// description.
    package static func heatMap(
        title: String, description: String, rows: [String], columns: [String], values: [[Double?]], id: String? = nil
    ) -> Node<HTML.BodyContext> {
        typealias M = SVGMarkup
        let ids = ChartIDs(kind: "heatmap", title: title, description: description, id: id)
        guard !rows.isEmpty, !columns.isEmpty else {
            return M.noData(kind: "heatmap", ids: ids, title: title, description: description, width: 320, height: 120)
        }
        func value(_ row: Int, _ column: Int) -> Double? {
            guard row < values.count, column < values[row].count, let value = values[row][column], value.isFinite else { return nil }
            return value
        }

        let (cellWidth, lineHeight) = (64.0, 15.0)
        let rowNames = rows.map(M.oneLine)
        let columnNames = columns.map(M.oneLine)
        // Row names wrap within a label column of at most 260 pixels, their rows growing to
        // hold the lines; column names are written across, or at 45° when one does not fit
        // a cell. Nothing is cut: the chart grows until every label is inside it.
        let labelColumn = min(260, rowNames.map { M.estimatedWidth($0) }.max() ?? 0)
        let rowLines = rowNames.map { M.wrapped($0, width: labelColumn) }
        let rowHeights = rowLines.map { max(28, Double($0.count) * lineHeight + 13) }
        let columnWidths = columnNames.map { M.estimatedWidth($0) }
        let across = columnWidths.allSatisfy { $0 <= cellWidth - 6 }
        // A label turned by 45° from (x, y) reaches (x + w·0.71, y − w·0.71), plus its height.
        let turned = 0.71
        let headerHeight = across ? 24 : (columnWidths.max() ?? 0) * turned + M.fontSize + 10
        let (left, top) = (labelColumn + 20, headerHeight)
        let gridRight = left + Double(columns.count) * cellWidth
        var labelsRight = 0.0
        for (column, labelWidth) in columnWidths.enumerated() {
            let centre: Double = left + (Double(column) + 0.5) * cellWidth
            let reach: Double = across ? labelWidth / 2 : labelWidth * turned + M.fontSize * turned - 4
            labelsRight = max(labelsRight, centre + reach)
        }
        let gridBottom = top + rowHeights.reduce(0, +)
        let keyTop = gridBottom + 16
        let keyRight = left + 5 * 40 + 16 + 30 + M.estimatedWidth("not applicable")
        let width = max(gridRight, keyRight, labelsRight) + 16
        let height = keyTop + 40
        let hatch = ids.id("hatch")

        var nodes: [SVGNode] = [
            M.element(
                "defs", [],
                [
                    M.element(
                        "pattern",
                        [
                            ("id", hatch), ("width", "6"), ("height", "6"), ("patternUnits", "userSpaceOnUse"),
                            ("patternTransform", "rotate(45)"),
                        ],
                        [
                            M.element("rect", [("width", "6"), ("height", "6"), ("fill", "#ffffff")]),
                            M.element("line", [("x1", "0"), ("y1", "0"), ("x2", "0"), ("y2", "6"), ("stroke", "#bdbdbd"), ("stroke-width", "2")]),
                        ])
                ])
        ]

        var headers: [SVGNode] = []
        for (column, name) in columnNames.enumerated() {
            let centre = left + (Double(column) + 0.5) * cellWidth
            let label: SVGNode =
                across
                ? M.label(name, x: centre, y: top - 8, [("text-anchor", "middle"), ("fill", ChartStyle.textColour)])
                : M.element(
                    "text",
                    [("transform", "translate(\(M.number(centre - 4)) \(M.number(top - 6))) rotate(-45)"), ("fill", ChartStyle.textColour)],
                    [M.text(name)])
            headers.append(M.element("g", [("class", "column-label")], [label]))
        }
        nodes.append(M.element("g", [("class", "column-labels")], headers))

        var rowTop = top
        for (row, name) in rowNames.enumerated() {
            let cellHeight = rowHeights[row]
            let lines = rowLines[row]
            nodes.append(
                M.element(
                    "g", [("class", "row-label")],
                    [
                        M.multiline(
                            lines, x: left - 8, y: rowTop + cellHeight / 2 + 4 - Double(lines.count - 1) * lineHeight / 2,
                            lineHeight: lineHeight, [("text-anchor", "end"), ("fill", ChartStyle.textColour)])
                    ]))

            for (column, columnName) in columnNames.enumerated() {
                let x = left + Double(column) * cellWidth
                let share = value(row, column)
                let fill = share.map { ChartStyle.sequential($0) }
                let text = share.map { Format.percent($0) } ?? "–"
                let rect: [(String, String)] = [
                    ("x", M.number(x)), ("y", M.number(rowTop)), ("width", M.number(cellWidth)), ("height", M.number(cellHeight)),
                    ("fill", fill.map(ChartStyle.hex) ?? "url(#\(hatch))"), ("stroke", "#ffffff"),
                ]
                nodes.append(
                    M.element(
                        "g", [("class", share == nil ? "cell not-applicable" : "cell")],
                        [
                            M.tooltip("\(name), \(columnName): \(share == nil ? "not applicable" : text)"),
                            M.element("rect", rect),
                            M.label(
                                text, x: x + cellWidth / 2, y: rowTop + cellHeight / 2 + 4,
                                [("text-anchor", "middle"), ("fill", fill.map(ChartStyle.textColour(on:)) ?? ChartStyle.mutedColour)]),
                        ]))
            }
            rowTop += cellHeight
        }

        // The key: the scale at five shares, then the hatching.
        var key: [SVGNode] = []
        for (index, share) in [0, 0.25, 0.5, 0.75, 1].enumerated() {
            let x = left + Double(index) * 40
            key.append(
                M.element(
                    "rect",
                    [
                        ("x", M.number(x)), ("y", M.number(keyTop)), ("width", "40"), ("height", "12"),
                        ("fill", ChartStyle.hex(ChartStyle.sequential(share))),
                    ]))
            key.append(M.label(Format.percent(share), x: x + 20, y: keyTop + 26, [("text-anchor", "middle"), ("fill", ChartStyle.textColour)]))
        }
        let hatchX = left + 5 * 40 + 16
        key.append(
            M.element(
                "rect",
                [
                    ("x", M.number(hatchX)), ("y", M.number(keyTop)), ("width", "24"), ("height", "12"), ("fill", "url(#\(hatch))"),
                    ("stroke", ChartStyle.gridColour),
                ]))
        key.append(M.label("not applicable", x: hatchX + 30, y: keyTop + 10, [("fill", ChartStyle.textColour)]))
        nodes.append(M.element("g", [("class", "key")], key))

        return M.chart(kind: "heatmap", ids: ids, title: title, description: description, width: width, height: height, nodes)
    }
}
