import Foundation
import Plot
import Testing

@testable import AltBenchReport

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("SVG charts")
struct ChartTests {
    typealias Element = JUnitReportTests.Element
    typealias P = SVGChart.Point

    // MARK: - Fixtures

    static func percent(_ value: Double) -> String { "\(Int((value * 100).rounded()))%" }

    /// Quality by token limit for three prompts, with 95% intervals.
    static let quality: [SVGChart.Series] = [
        SVGChart.Series(
            name: "terse",
            points: [
                P(x: 30, y: 0.42, low: 0.31, high: 0.53), P(x: 50, y: 0.61, low: 0.5, high: 0.71),
                P(x: 80, y: 0.7, low: 0.6, high: 0.79), P(x: 150, y: 0.72, low: 0.62, high: 0.8),
            ]),
        SVGChart.Series(
            name: "detailed",
            points: [
                P(x: 30, y: 0.2, low: 0.12, high: 0.3), P(x: 50, y: 0.38, low: 0.27, high: 0.49),
                P(x: 80, y: 0.66, low: 0.55, high: 0.75), P(x: 150, y: 0.81, low: 0.72, high: 0.88),
            ]),
        SVGChart.Series(
            name: "baseline",
            points: [P(x: 30, y: 0.35), P(x: 50, y: 0.5), P(x: 80, y: 0.55), P(x: 150, y: 0.57)]),
    ]

    static func lines(_ series: [SVGChart.Series] = quality, title: String = "Quality by token limit", id: String? = nil) -> Node<HTML.BodyContext> {
        SVGChart.lines(
            title: title, description: "Mean quality of each prompt at each max_tokens, with 95% intervals.",
            xLabel: "max_tokens", yLabel: "quality", series: series, yRange: 0...1, yFormat: percent, id: id)
    }

    static let lengths: [(name: String, values: [Double])] = [
        ("terse", [88, 102, 95, 120, 131, 76, 99]),
        ("detailed", [180, 212, 143, 199, 260, 171]),
        ("baseline", [120, 118, 126, 150, 97]),
    ]

    static func strips(
        _ categories: [(name: String, values: [Double])] = lengths,
        reference: (value: Double, label: String)? = (125, "budget 125 chars")
    ) -> Node<HTML.BodyContext> {
        SVGChart.strips(
            title: "Answer lengths", description: "Characters per answer, by prompt; the dashed line is the brevity budget.",
            xLabel: "characters", categories: categories, reference: reference)
    }

    static let checkRows = ["terse @ 50", "terse @ 150", "detailed @ 150"]
    static let checkColumns = ["first person", "truncated", "refusal", "image of"]
    static let checkShares: [[Double?]] = [
        [0, 0.12, nil, 0.5],
        [0.04, 0, nil, 0.25],
        [0.9, 1, 0.02, 0.75],
    ]

    static func heatMap(rows: [String] = checkRows, columns: [String] = checkColumns, values: [[Double?]] = checkShares) -> Node<HTML.BodyContext> {
        SVGChart.heatMap(
            title: "Checks failed", description: "Share of answers failing each check, by prompt and token limit.",
            rows: rows, columns: columns, values: values)
    }

    /// Text no chart should let break out: markup, quotes, an entity-like run, a control
    /// character and a line break.
    static let hostile = "<script>alert(1)</script> \"><img src=x onerror=alert(2)> AT&T; &amp; 'q' \u{1}\nend"

    // MARK: - Helpers

    /// The chart as delivered (no indentation), parsed; any XML problem fails the test.
    static func parse(_ node: Node<HTML.BodyContext>, sourceLocation: SourceLocation = #_sourceLocation) -> (svg: String, root: Element) {
        let svg = node.render()
        let parsed = JUnitReportTests.parse(svg)
        #expect(parsed.problems.isEmpty, "not well-formed: \(parsed.problems)", sourceLocation: sourceLocation)
        return (svg, parsed.root ?? Element(name: "none", attributes: [:]))
    }

    // MARK: - Golden files

    /// `Golden/charts/<name>`, the chart rendered with indentation so a diff is reviewable.
    /// `RECORD=1 swift test --filter ChartTests` rewrites them on purpose.
    private static func expectGolden(
        _ node: Node<HTML.BodyContext>, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try GoldenFile.expect(node.render(indentedBy: .spaces(2)) + "\n", matches: "charts/\(name)", sourceLocation: sourceLocation)
    }

    @Test("a line chart matches Golden/charts/lines.svg")
    func linesGolden() throws {
        try Self.expectGolden(Self.lines(), "lines.svg")
    }

    @Test("a strip chart matches Golden/charts/strips.svg")
    func stripsGolden() throws {
        try Self.expectGolden(Self.strips(), "strips.svg")
    }

    @Test("a heat map matches Golden/charts/heatmap.svg")
    func heatMapGolden() throws {
        try Self.expectGolden(Self.heatMap(), "heatmap.svg")
    }

    // MARK: - Every chart

    /// Plot's nodes are not `Sendable`, so the charts are made in the test.
    static func everyChart() -> [(String, Node<HTML.BodyContext>)] {
        [
            ("lines", lines()), ("strips", strips()), ("heatmap", heatMap()),
            ("lines, no data", lines([])), ("strips, no data", strips([])), ("heatmap, no data", heatMap(rows: [])),
        ]
    }

    @Test("every chart is a well-formed, labelled <svg> with its own title and description", arguments: 0..<6)
    func accessibleRoot(index: Int) {
        let (name, node) = Self.everyChart()[index]
        let (svg, root) = Self.parse(node)
        #expect(root.name == "svg", "\(name)")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["role"] == "img")
        #expect(root.attributes["viewBox"]?.hasPrefix("0 0 ") == true)
        #expect(root.children.first?.name == "title")
        #expect(root.children.dropFirst().first?.name == "desc")
        let labelledBy = root.attributes["aria-labelledby"]?.split(separator: " ").map(String.init) ?? []
        #expect(labelledBy == [root.children[0].attributes["id"], root.children[1].attributes["id"]].compactMap { $0 })
        #expect(labelledBy.count == 2)
        // No script, no image, no external reference of any kind.
        for forbidden in ["<script", "<image", "<img", "href", "@import", "<foreignObject", "<style"] {
            #expect(!svg.contains(forbidden), "\(name) contains \(forbidden)")
        }
    }

    @Test("ids differ between charts and are stable for the same chart")
    func ids() {
        let first = Self.parse(Self.lines()).root.attributes["aria-labelledby"]
        let again = Self.parse(Self.lines()).root.attributes["aria-labelledby"]
        let other = Self.parse(Self.lines(title: "Quality by token limit, gpt-4o")).root.attributes["aria-labelledby"]
        let strips = Self.parse(Self.strips()).root.attributes["aria-labelledby"]
        #expect(first == again)
        #expect(first != other)
        #expect(first != strips)
        #expect(Self.lines().render() == Self.lines().render())
        // A given id is used, made safe for an attribute and a CSS selector.
        let given = Self.parse(Self.lines(id: "fig 1\"><b>")).root
        #expect(given.attributes["aria-labelledby"] == "fig-1---b--title fig-1---b--desc")
        #expect(Self.parse(Self.lines(id: "9")).root.children[0].attributes["id"] == "c-9-title")
    }

    // MARK: - Lines

    @Test("a line chart has one line per series, a marker per point, a band per series with intervals, and a legend")
    func linesStructure() {
        let (_, root) = Self.parse(Self.lines())
        let series = root.all { $0.attributes["class"] == "series" }
        #expect(series.count == 3)
        for (group, expected) in zip(series, Self.quality) {
            #expect(group.children.first?.name == "title")
            #expect(group.children.first?.text == expected.name)
            #expect(group.all { $0.attributes["class"] == "series-line" }.count == 1)
            #expect(group.all { $0.attributes["class"] == "marker" }.count == expected.points.count)
        }
        #expect(root.all { $0.attributes["class"] == "band" }.count == 2)
        let legend = root.all { $0.attributes["class"] == "legend-entry" }
        #expect(legend.map { $0.all { $0.name == "text" }.first?.text } == ["terse", "detailed", "baseline"])
        // Each legend entry shows the line's dash and marker.
        #expect(legend.allSatisfy { $0.all { $0.attributes["class"] == "marker" }.count == 1 })
        // The marker's tooltip gives the value and the interval.
        let firstMarker = series[0].all { $0.attributes["class"] == "marker" }[0]
        #expect(firstMarker.children.first?.text == "terse, max_tokens 30: 42% (95% interval 31%–53%)")
    }

    @Test("token limits sit on an equal-spaced axis labelled with their values; y ticks use yFormat")
    func linesAxes() throws {
        let (_, root) = Self.parse(Self.lines())
        let xAxis = try #require(root.all { $0.attributes["class"] == "x-axis" }.first)
        let labels = xAxis.children.filter { $0.name == "text" && $0.attributes["class"] == nil }
        #expect(labels.map(\.text) == ["30", "50", "80", "150"])
        let xs = labels.compactMap { $0.attributes["x"].flatMap(Double.init) }
        let gaps = zip(xs.dropFirst(), xs).map { $0 - $1 }
        #expect(gaps.count == 3 && gaps.allSatisfy { abs($0 - gaps[0]) < 0.2 })
        #expect(xAxis.all { $0.attributes["class"] == "axis-title" }.first?.text == "max_tokens")
        let yAxis = try #require(root.all { $0.attributes["class"] == "y-axis" }.first)
        #expect(yAxis.children.filter { $0.name == "text" && $0.attributes["class"] == nil }.map(\.text) == ["0%", "25%", "50%", "75%", "100%"])
        #expect(yAxis.all { $0.attributes["class"] == "axis-title" }.first?.text == "quality")
    }

    @Test("eight or more series differ in shape and dash; shapes cycle and the legend wraps")
    func manySeries() {
        let many = (0..<10).map { i in
            SVGChart.Series(name: "prompt \(i)", points: [P(x: 30, y: Double(i) / 10), P(x: 80, y: Double(i) / 12)])
        }
        let (_, root) = Self.parse(Self.lines(many))
        let series = root.all { $0.attributes["class"] == "series" }
        #expect(series.count == 10)
        let lines = series.compactMap { $0.all { $0.attributes["class"] == "series-line" }.first }
        let styles = lines.map { "\($0.attributes["stroke"] ?? "") \($0.attributes["stroke-dasharray"] ?? "solid")" }
        #expect(Set(styles).count == 10)
        #expect(Set(lines.prefix(5).map { $0.attributes["stroke-dasharray"] ?? "solid" }).count == 5)
        // The shape of a marker is its path centred on the origin: the first eight all differ,
        // the ninth is the first again.
        let shapes = (0..<10).map { ChartStyle.path(ChartStyle.shape($0), x: 0, y: 0, r: 4.5) }
        #expect(Set(shapes.prefix(8)).count == 8)
        #expect(shapes[8] == shapes[0])
        let entries = root.all { $0.attributes["class"] == "legend-entry" }
        #expect(entries.count == 10)
        let rows = Set(entries.compactMap { $0.all { $0.name == "text" }.first?.attributes["y"] })
        #expect(rows.count > 1)
        // The SVG grows by the legend's rows.
        #expect(root.attributes["height"].flatMap(Double.init).map { $0 > 320 + 20 } == true)
    }

    @Test("a long series name is cut with an ellipsis in the legend, its full name in a <title>")
    func longNames() throws {
        let long = "a very long prompt name that keeps going well past any legend column"
        let (_, root) = Self.parse(Self.lines([SVGChart.Series(name: long, points: [P(x: 50, y: 0.5)])]))
        let entry = try #require(root.all { $0.attributes["class"] == "legend-entry" }.first)
        let shown = try #require(entry.all { $0.name == "text" }.first?.text)
        #expect(shown.hasSuffix("…"))
        #expect(shown.count < long.count)
        #expect(entry.children.first?.name == "title")
        #expect(entry.children.first?.text == long)
    }

    @Test("no series, or series without points, give a chart that says No data")
    func linesNoData() {
        for series in [[], [SVGChart.Series(name: "empty", points: [])], [SVGChart.Series(name: "nan", points: [P(x: 50, y: .nan)])]] {
            let (_, root) = Self.parse(Self.lines(series))
            #expect(root.all { $0.attributes["class"] == "no-data" }.first?.text == "No data")
            #expect(root.all { $0.attributes["class"] == "series" }.isEmpty)
        }
    }

    @Test("a series without points stays in the legend, marked no data")
    func emptySeriesInLegend() {
        let series = [Self.quality[0], SVGChart.Series(name: "never answered", points: [])]
        let (_, root) = Self.parse(Self.lines(series))
        #expect(root.all { $0.attributes["class"] == "series" }.count == 1)
        let texts = root.all { $0.attributes["class"] == "legend-entry" }.compactMap { $0.all { $0.name == "text" }.first?.text }
        #expect(texts == ["terse", "never answered (no data)"])
    }

    @Test("one x value sits in the middle of the plot")
    func oneX() throws {
        let (_, root) = Self.parse(Self.lines([SVGChart.Series(name: "terse", points: [P(x: 50, y: 0.5, low: 0.4, high: 0.6)])]))
        let xAxis = try #require(root.all { $0.attributes["class"] == "x-axis" }.first)
        let tick = try #require(xAxis.children.first { $0.name == "text" && $0.attributes["class"] == nil })
        #expect(tick.text == "50")
        // The plot runs from 60 to 640 - 16.
        #expect(tick.attributes["x"] == "342")
        #expect(root.all { $0.attributes["class"] == "marker" }.count == 2)  // the point and its legend sample
        // A lone interval is a short bar, not an invisible band.
        #expect(root.all { $0.attributes["class"] == "band" }.first?.attributes["d"]?.hasPrefix("M338 ") == true)
    }

    @Test("NaN and infinite values are skipped; a missing y breaks the line; values beyond yRange stay on the plot")
    func nonFinite() throws {
        let series = SVGChart.Series(
            name: "gappy",
            points: [
                P(x: 30, y: 0.4), P(x: 50, y: .nan), P(x: 80, y: 0.6, low: -.infinity, high: 0.7), P(x: 150, y: 1.7),
                P(x: .infinity, y: 0.5), P(x: .nan, y: 0.5),
            ])
        let (svg, root) = Self.parse(Self.lines([series]))
        #expect(!svg.contains("nan") && !svg.contains("inf"))
        let group = try #require(root.all { $0.attributes["class"] == "series" }.first)
        #expect(group.all { $0.attributes["class"] == "marker" }.count == 3)
        let d = try #require(group.all { $0.attributes["class"] == "series-line" }.first?.attributes["d"])
        #expect(d.filter { $0 == "M" }.count == 2)
        #expect(root.all { $0.attributes["class"] == "band" }.isEmpty)
        let xAxis = try #require(root.all { $0.attributes["class"] == "x-axis" }.first)
        #expect(xAxis.children.filter { $0.name == "text" && $0.attributes["class"] == nil }.map(\.text) == ["30", "80", "150"])
        // 1.7 is drawn at the top of a 0...1 axis (y = 12), not above the chart.
        #expect(d.hasSuffix(" 12"))
    }

    // MARK: - Strips

    @Test("a strip chart has a row per category, a dot per value, a median per row and the labelled reference line")
    func stripsStructure() throws {
        let (_, root) = Self.parse(Self.strips())
        let strips = root.all { $0.attributes["class"] == "strip" }
        #expect(strips.count == 3)
        for (strip, category) in zip(strips, Self.lengths) {
            #expect(strip.all { $0.attributes["class"] == "dot" }.count == category.values.count)
            #expect(strip.all { $0.attributes["class"] == "median" }.count == 1)
            #expect(strip.children.first?.name == "title")
            #expect(strip.all { $0.name == "text" }.first?.text == category.name)
        }
        #expect(strips[0].children.first?.text == "terse: 7 values, median 99")
        #expect(strips[2].children.first?.text == "baseline: 5 values, median 120")
        let reference = try #require(root.all { $0.attributes["class"] == "reference" }.first)
        #expect(reference.all { $0.attributes["class"] == "reference-label" }.first?.text == "budget 125 chars")
        // The reference line and terse's median sit where the axis puts 125 and 99.
        let line = try #require(reference.all { $0.name == "line" }.first)
        let xAxis = try #require(root.all { $0.attributes["class"] == "x-axis" }.first)
        let ticks = xAxis.children.filter { $0.name == "text" && $0.attributes["class"] == nil }
        #expect(ticks.first?.text == "0")
        let zero = try #require(ticks.first?.attributes["x"].flatMap(Double.init))
        let hundred = try #require(ticks.first { $0.text == "100" }?.attributes["x"].flatMap(Double.init))
        let x = try #require(line.attributes["x1"].flatMap(Double.init))
        #expect(abs(x - (zero + 1.25 * (hundred - zero))) < 0.2)
        let median = try #require(strips[0].all { $0.attributes["class"] == "median" }.first?.attributes["x1"].flatMap(Double.init))
        #expect(abs(median - (zero + 0.99 * (hundred - zero))) < 0.2)
    }

    @Test("dots are jittered deterministically within their row")
    func jitter() throws {
        let first = Self.strips().render()
        #expect(first == Self.strips().render())
        let (_, root) = Self.parse(Self.strips())
        let dots = root.all { $0.attributes["class"] == "dot" }.prefix(7).compactMap { $0.attributes["cy"].flatMap(Double.init) }
        #expect(Set(dots).count > 3)
        // The first row spans 28 to 56.
        #expect(dots.allSatisfy { $0 > 28 && $0 < 56 })
    }

    @Test("a category without values says no data; no values at all give a No data chart; no reference, no line")
    func stripsEdges() {
        let (_, root) = Self.parse(Self.strips([("terse", [80, .nan, 90]), ("silent", [.infinity])], reference: nil))
        let strips = root.all { $0.attributes["class"] == "strip" }
        #expect(strips[0].all { $0.attributes["class"] == "dot" }.count == 2)
        #expect(strips[1].all { $0.attributes["class"] == "no-data" }.first?.text == "no data")
        #expect(strips[1].all { $0.attributes["class"] == "median" }.isEmpty)
        #expect(root.all { $0.attributes["class"] == "reference" }.isEmpty)
        for categories in [[], [("silent", [Double]())]] as [[(name: String, values: [Double])]] {
            let (_, empty) = Self.parse(Self.strips(categories))
            #expect(empty.all { $0.attributes["class"] == "no-data" }.first?.text == "No data")
        }
    }

    @Test("the axis covers a reference beyond every value, and its label stays on the chart")
    func referenceBeyondValues() throws {
        let (_, root) = Self.parse(Self.strips([("terse", [10, 20, 30])], reference: (500, "budget 500")))
        let label = try #require(root.all { $0.attributes["class"] == "reference-label" }.first)
        #expect(label.attributes["text-anchor"] == "end")
        let ticks = root.all { $0.attributes["class"] == "x-axis" }.first?.children.filter { $0.name == "text" && $0.attributes["class"] == nil }
        #expect(ticks?.last?.text == "500")
    }

    // MARK: - Heat map

    @Test("a heat map has a cell per row and column, each printing its percentage in a contrasting colour")
    func heatMapStructure() throws {
        let (_, root) = Self.parse(Self.heatMap())
        let cells = root.all { $0.attributes["class"]?.hasPrefix("cell") == true }
        #expect(cells.count == 12)
        let texts = cells.compactMap { $0.all { $0.name == "text" }.first?.text }
        #expect(texts == ["0%", "12%", "–", "50%", "4%", "0%", "–", "25%", "90%", "100%", "2%", "75%"])
        #expect(cells[0].children.first?.text == "terse @ 50, first person: 0%")
        #expect(cells[2].children.first?.text == "terse @ 50, refusal: not applicable")
        // Light cells carry black text, dark cells white.
        #expect(cells[0].all { $0.name == "text" }.first?.attributes["fill"] == "#000000")
        #expect(cells[9].all { $0.name == "text" }.first?.attributes["fill"] == "#ffffff")
        // Not applicable is hatched with the chart's own pattern.
        let hatch = try #require(root.all { $0.name == "pattern" }.first?.attributes["id"])
        #expect(cells[2].attributes["class"] == "cell not-applicable")
        #expect(cells[2].all { $0.name == "rect" }.first?.attributes["fill"] == "url(#\(hatch))")
        #expect(hatch.hasPrefix("altbench-heatmap-"))
        let columns = root.all { $0.attributes["class"] == "column-label" }.compactMap { $0.all { $0.name == "text" }.first?.text }
        #expect(columns == Self.checkColumns)
        let rows = root.all { $0.attributes["class"] == "row-label" }.compactMap { $0.all { $0.name == "text" }.first?.text }
        #expect(rows == Self.checkRows)
    }

    @Test("darker means more, in grey-scale too: the scale's luminance falls from 0 to 1")
    func sequentialScale() {
        func luminance(_ share: Double) -> Double {
            let c = ChartStyle.sequential(share)
            return 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue
        }
        let steps = stride(from: 0.0, through: 1, by: 0.05).map(luminance)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 > $1 })
        #expect(ChartStyle.hex(ChartStyle.sequential(-3)) == ChartStyle.hex(ChartStyle.sequential(0)))
        #expect(ChartStyle.hex(ChartStyle.sequential(.nan)) == "#f7fbff")
    }

    @Test("missing and non-finite values are not applicable; long column names turn and are shown whole")
    func heatMapEdges() throws {
        let columns = ["first person", "a check with a really quite remarkably long name that goes on"]
        let (_, root) = Self.parse(Self.heatMap(rows: ["terse", "detailed"], columns: columns, values: [[.nan]]))
        let cells = root.all { $0.attributes["class"]?.hasPrefix("cell") == true }
        #expect(cells.count == 4)
        #expect(cells.allSatisfy { $0.attributes["class"] == "cell not-applicable" })
        let labels = root.all { $0.attributes["class"] == "column-label" }
        #expect(labels[0].all { $0.name == "text" }.first?.attributes["transform"]?.contains("rotate(-45)") == true)
        #expect(labels[1].all { $0.name == "text" }.first?.text == columns[1])
        let width = try #require(Double(root.attributes["width"] ?? ""))
        #expect(width >= 64 * 2 + SVGMarkup.estimatedWidth(columns[1]) * 0.71)
        for (rows, columns) in [([], ["a"]), (["a"], [])] as [([String], [String])] {
            let (_, empty) = Self.parse(Self.heatMap(rows: rows, columns: columns, values: []))
            #expect(empty.all { $0.attributes["class"] == "no-data" }.first?.text == "No data")
        }
    }

    @Test("a strip of many values draws a bounded number of quantiles and says so; the median is of every value")
    func manyValues() throws {
        let values = (0..<10_000).map { Double(($0 * 7_919) % 10_000) / 10 }
        let (_, root) = Self.parse(Self.strips([("terse", values)], reference: nil))
        let strip = try #require(root.all { $0.attributes["class"] == "strip" }.first)
        #expect(strip.all { $0.attributes["class"] == "dot" }.count == SVGChart.maxDots)
        #expect(strip.children.first?.text.hasPrefix("terse: 10000 values (\(SVGChart.maxDots) quantiles drawn), median ") == true)
        let drawn = SVGChart.drawn(values)
        #expect(drawn.first == 0 && drawn.last == 999.9 && drawn == drawn.sorted())
        #expect(SVGChart.drawn([3, 1, 2]) == [3, 1, 2])
    }

    // MARK: - Labels at any length

    /// Twelve variants with 40-character names, each at four token limits.
    static let longRows: [String] = (1...12).flatMap { index in
        [30, 50, 100, 300].map { "\(String(format: "%02d", index))-a-variant-named-at-length-forty-chars @ \($0)" }
    }

    /// The extent a `<text>` takes by the charts' own width estimate: its lines, anchored as
    /// they are, turned by its rotation when it has one.
    static func extent(_ text: Element) -> (minX: Double, maxX: Double, minY: Double, maxY: Double) {
        let lines = text.children.filter { $0.name == "tspan" }.map(\.text)
        let widths = (lines.isEmpty ? [text.text] : lines).map { SVGMarkup.estimatedWidth($0) }
        let width = widths.max() ?? 0
        let height = Double(max(lines.count, 1)) * 15
        if let transform = text.attributes["transform"] {
            let numbers = transform.matches(of: /-?[0-9.]+/).compactMap { Double($0.output) }
            let (x, y) = (numbers[0], numbers[1])
            return (x, x + width * 0.71 + 9, y - width * 0.71 - 9, y + 4)
        }
        let x = Double(text.attributes["x"] ?? "0") ?? 0
        let y = Double(text.attributes["y"] ?? "0") ?? 0
        switch text.attributes["text-anchor"] {
        case "end": return (x - width, x, y - 10, y - 10 + height)
        case "middle": return (x - width / 2, x + width / 2, y - 10, y - 10 + height)
        default: return (x, x + width, y - 10, y - 10 + height)
        }
    }

    @Test("a heat map with long row and column names cuts none and keeps every label inside the chart")
    func heatMapLongLabels() throws {
        let columns = ["empty", "long", "over limit", "first person", "“I can see”", "“image of”", "“Alt text:”", "refusal", "truncated",
            "no final stop", "file name", "markdown", "emoji", "#tags/@/URLs", "hedging", "echoes post"]
        let values = Self.longRows.map { _ in columns.map { _ in Double?(0.5) } }
        let (_, root) = Self.parse(Self.heatMap(rows: Self.longRows, columns: columns, values: values))
        let viewBox = try #require(root.attributes["viewBox"]).split(separator: " ").compactMap { Double($0) }
        let texts = root.all { $0.name == "text" }
        #expect(!texts.contains { $0.text.contains("…") || $0.children.contains { $0.text.contains("…") } })
        for text in texts {
            let box = Self.extent(text)
            #expect(box.minX >= 0 && box.maxX <= viewBox[2] && box.minY >= 0 && box.maxY <= viewBox[3], "\(text.text) at \(box) outside \(viewBox)")
        }
        // Each row's label holds the whole name, on one or more lines.
        let rowLabels = root.all { $0.attributes["class"] == "row-label" }.compactMap { $0.children.first { $0.name == "text" } }
        let names = rowLabels.map { label in
            let lines = label.children.filter { $0.name == "tspan" }.map(\.text)
            return lines.isEmpty ? label.text : lines.joined(separator: " ").replacingOccurrences(of: "- ", with: "-")
        }
        #expect(names == Self.longRows)
        #expect(rowLabels.contains { $0.children.count > 1 }, "a 46-character name wraps")
        let columnLabels = root.all { $0.attributes["class"] == "column-label" }.compactMap { $0.all { $0.name == "text" }.first?.text }
        #expect(columnLabels == columns)
    }

    @Test("wrapping breaks at spaces and punctuation, never loses a character, and fits the width")
    func wrapping() {
        let name = "03-a-variant-named-at-length-forty-chars @ 300"
        let lines = SVGMarkup.wrapped(name, width: 150)
        #expect(lines.count > 1)
        #expect(lines.allSatisfy { SVGMarkup.estimatedWidth($0) <= 150 })
        #expect(lines.joined(separator: " ").replacingOccurrences(of: "- ", with: "-") == name)
        let unbroken = String(repeating: "W", count: 60)
        #expect(SVGMarkup.wrapped(unbroken, width: 100).joined() == unbroken)
        #expect(SVGMarkup.wrapped("short", width: 100) == ["short"])
        // Capitals and wide letters count wider than narrow ones.
        #expect(SVGMarkup.estimatedWidth("WWWW") > SVGMarkup.estimatedWidth("iiii") * 2)
    }

    static func dots(_ rows: [(name: String, point: P?)]) -> Node<HTML.BodyContext> {
        SVGChart.dots(
            title: "Quality at max_tokens 50", description: "Mean quality per prompt.", valueLabel: "mean quality", rows: rows,
            range: 0...1, format: { String(format: "%.2f", $0) })
    }

    @Test("a dot chart has a row per category, a marker and a printed value per value, whiskers for intervals, and no line")
    func dotChart() throws {
        let (svg, root) = Self.parse(
            Self.dots([
                ("terse", P(x: 50, y: 0.62, low: 0.55, high: 0.69)), ("plain", P(x: 50, y: 0.4)), ("never answered", nil),
                (Self.longRows[0], P(x: 50, y: 1.4, low: 0.9, high: 1.5)),
            ]))
        #expect(svg.contains("class=\"altbench-chart altbench-chart-dots\""))
        let rows = root.all { $0.attributes["class"] == "dot-row" }
        #expect(rows.count == 4)
        #expect(root.all { $0.attributes["class"] == "marker" }.count == 3)
        #expect(root.all { $0.attributes["class"] == "whisker" }.count == 2)
        #expect(root.all { $0.attributes["class"] == "value" }.map(\.text) == ["0.62", "0.40", "1.40"])
        #expect(rows[2].all { $0.attributes["class"] == "no-data" }.first?.text == "no data")
        #expect(rows[0].children.first?.text == "terse: 0.62 (95% interval 0.55–0.69)")
        #expect(root.all { $0.attributes["class"] == "series-line" }.isEmpty)
        // A value beyond the range sits at its edge, inside the plot.
        let markers = root.all { $0.attributes["class"] == "marker" }
        #expect(markers.allSatisfy { ($0.attributes["d"] ?? "").hasPrefix("M") })
        let viewBox = try #require(root.attributes["viewBox"]).split(separator: " ").compactMap { Double($0) }
        for text in root.all({ $0.name == "text" }) {
            let box = Self.extent(text)
            #expect(box.minX >= 0 && box.maxX <= viewBox[2], "\(text.text) at \(box) outside \(viewBox)")
        }
        let (_, empty) = Self.parse(Self.dots([("terse", nil)]))
        #expect(empty.all { $0.attributes["class"] == "no-data" }.first?.text == "No data")
    }

    // MARK: - Hostile text

    @Test("hostile names, labels and titles are shown as text, never as markup", arguments: 0..<3)
    func hostileText(index: Int) {
        let h = Self.hostile
        let chart: Node<HTML.BodyContext> =
            switch index {
            case 0:
                SVGChart.lines(
                    title: h, description: h, xLabel: h, yLabel: h,
                    series: [SVGChart.Series(name: h, points: [P(x: 50, y: 0.5)]), SVGChart.Series(name: "x" + h, points: [])],
                    yRange: 0...1, yFormat: { _ in h })
            case 1:
                SVGChart.strips(title: h, description: h, xLabel: h, categories: [(h, [1, 2])], reference: (1.5, h))
            default:
                SVGChart.heatMap(title: h, description: h, rows: [h], columns: [h], values: [[0.5]])
            }
        let (svg, root) = Self.parse(chart)
        #expect(svg.contains("&lt;script&gt;"))
        #expect(!svg.contains("<script"))
        #expect(!svg.contains("<img"))
        #expect(svg.contains("AT&amp;T;"))
        #expect(!svg.contains("\u{1}"))
        // Exactly one root with the chart's own children: nothing escaped into new elements.
        let names = Set(root.all { _ in true }.map(\.name))
        #expect(names.isSubset(of: ["svg", "title", "desc", "g", "path", "line", "text", "tspan", "rect", "circle", "defs", "pattern"]))
        // The title and description read back as given (the control character replaced).
        let expected = h.replacingOccurrences(of: "\u{1}", with: "\u{FFFD}")
        #expect(root.children[0].text == expected)
        #expect(root.children[1].text == expected)
    }

    @Test("attribute values are quoted and escaped")
    func attributes() {
        let node = SVGMarkup.element("g", [("data-name", Self.hostile)], [SVGMarkup.text(Self.hostile)])
        let svg = node.render()
        #expect(svg.hasPrefix("<g data-name=\"&lt;script&gt;alert(1)&lt;/script&gt; &quot;&gt;&lt;img src=x onerror=alert(2)&gt; AT&amp;T; &amp;amp; &apos;q&apos; \u{FFFD}&#10;end\">"))
        let parsed = JUnitReportTests.parse(svg)
        #expect(parsed.problems.isEmpty)
        #expect(parsed.root?.attributes["data-name"] == Self.hostile.replacingOccurrences(of: "\u{1}", with: "\u{FFFD}"))
        #expect(parsed.root?.text == Self.hostile.replacingOccurrences(of: "\u{1}", with: "\u{FFFD}"))
    }
}

extension JUnitReportTests.Element {
    /// This element and every element below it, in document order, that match.
    func all(_ matching: (JUnitReportTests.Element) -> Bool) -> [JUnitReportTests.Element] {
        (matching(self) ? [self] : []) + children.flatMap { $0.all(matching) }
    }
}
