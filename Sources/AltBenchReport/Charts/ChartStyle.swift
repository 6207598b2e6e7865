import Foundation

/// Colours, marker shapes and dash patterns shared by the charts.
///
/// Series are told apart three ways at once, so a chart reads in grey-scale and for
/// colour-blind readers: series `i` takes colour `i mod 7`, shape `i mod 8` and dash pattern
/// `i mod 5`. The cycles have different lengths, so the first 280 series all differ in at
/// least one of them, and any two of the first eight differ in shape.
enum ChartStyle {
    /// Okabe–Ito, in an order that puts strong contrasts first. Its yellow (#F0E442) is left
    /// out: on white it is too faint for thin lines.
    static let palette = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]

    /// `stroke-dasharray` values; "" is a solid line.
    static let dashes = ["", "6 3", "2 3", "9 3 2 3", "4 2 1 2 1 2"]

    static let textColour = "#1a1a1a"
    static let mutedColour = "#595959"
    static let axisColour = "#4d4d4d"
    static let gridColour = "#d9d9d9"
    static let stripeColour = "#f2f2f2"

    static func colour(_ index: Int) -> String { palette[index % palette.count] }
    static func dash(_ index: Int) -> String { dashes[index % dashes.count] }
    static func shape(_ index: Int) -> Shape { Shape.allCases[index % Shape.allCases.count] }

    // MARK: - Markers

    /// Marker shapes, in the order series take them.
    enum Shape: CaseIterable {
        case circle, square, triangle, diamond, cross, plus, triangleDown, star

        /// Outlines only (× and +) are drawn with a thicker stroke and no fill.
        var isStroked: Bool { self == .cross || self == .plus }
    }

    /// A marker centred at (x, y), `r` its rough radius, as one `<path class="marker">`;
    /// `tooltip` becomes its `<title>`. Filled shapes get a white edge so they stand out
    /// from lines and bands.
    static func marker(_ shape: Shape, x: Double, y: Double, r: Double = 4.5, colour: String, tooltip: String? = nil) -> SVGNode {
        let paint: [(String, String)] =
            shape.isStroked
            ? [("fill", "none"), ("stroke", colour), ("stroke-width", "2")]
            : [("fill", colour), ("stroke", "#ffffff"), ("stroke-width", "1")]
        return SVGMarkup.element(
            "path", [("class", "marker"), ("d", path(shape, x: x, y: y, r: r))] + paint,
            tooltip.map { [SVGMarkup.tooltip($0)] } ?? [])
    }

    /// Path data for `shape`, each sized to look about as heavy as the circle.
    static func path(_ shape: Shape, x: Double, y: Double, r: Double) -> String {
        func n(_ v: Double) -> String { SVGMarkup.number(v) }
        func polygon(_ points: [(Double, Double)]) -> String {
            "M" + points.map { "\(n(x + $0.0)) \(n(y + $0.1))" }.joined(separator: " L") + " Z"
        }
        switch shape {
        case .circle:
            return "M\(n(x - r)) \(n(y)) a\(n(r)) \(n(r)) 0 1 0 \(n(2 * r)) 0 a\(n(r)) \(n(r)) 0 1 0 \(n(-2 * r)) 0 Z"
        case .square:
            let s = r * 0.9
            return polygon([(-s, -s), (s, -s), (s, s), (-s, s)])
        case .triangle:
            return polygon([(0, -r * 1.2), (r * 1.1, r * 0.8), (-r * 1.1, r * 0.8)])
        case .triangleDown:
            return polygon([(0, r * 1.2), (r * 1.1, -r * 0.8), (-r * 1.1, -r * 0.8)])
        case .diamond:
            let s = r * 1.25
            return polygon([(0, -s), (s, 0), (0, s), (-s, 0)])
        case .cross:
            return "M\(n(x - r)) \(n(y - r)) L\(n(x + r)) \(n(y + r)) M\(n(x - r)) \(n(y + r)) L\(n(x + r)) \(n(y - r))"
        case .plus:
            let s = r * 1.2
            return "M\(n(x - s)) \(n(y)) L\(n(x + s)) \(n(y)) M\(n(x)) \(n(y - s)) L\(n(x)) \(n(y + s))"
        case .star:
            let points = (0..<10).map { i -> (Double, Double) in
                let radius = i % 2 == 0 ? r * 1.35 : r * 0.6
                let angle = Double(i) * .pi / 5 - .pi / 2
                return (radius * cos(angle), radius * sin(angle))
            }
            return polygon(points)
        }
    }

    // MARK: - The heat map's scale

    /// ColorBrewer's nine-step "Blues", light to dark: one hue whose lightness falls steadily,
    /// so a darker cell is a larger share in colour and in grey-scale.
    static let blues: [(Double, Double, Double)] = [
        (247, 251, 255), (222, 235, 247), (198, 219, 239), (158, 202, 225), (107, 174, 214),
        (66, 146, 198), (33, 113, 181), (8, 81, 156), (8, 48, 107),
    ]

    /// The colour of `share` (clamped to 0...1), interpolated linearly between the steps.
    static func sequential(_ share: Double) -> (red: Double, green: Double, blue: Double) {
        let t = min(max(share.isFinite ? share : 0, 0), 1) * Double(blues.count - 1)
        let i = min(Int(t), blues.count - 2)
        let f = t - Double(i)
        let (a, b) = (blues[i], blues[i + 1])
        return (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, a.2 + (b.2 - a.2) * f)
    }

    static func hex(_ colour: (red: Double, green: Double, blue: Double)) -> String {
        String(format: "#%02x%02x%02x", Int(colour.red.rounded()), Int(colour.green.rounded()), Int(colour.blue.rounded()))
    }

    /// Dark or light text for a cell of `background`, whichever contrasts more by WCAG's
    /// relative luminance.
    static func textColour(on background: (red: Double, green: Double, blue: Double)) -> String {
        func linear(_ channel: Double) -> Double {
            let c = channel / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let luminance = 0.2126 * linear(background.red) + 0.7152 * linear(background.green) + 0.0722 * linear(background.blue)
        let againstDark = (luminance + 0.05) / 0.05
        let againstLight = 1.05 / (luminance + 0.05)
        return againstDark >= againstLight ? "#000000" : "#ffffff"
    }
}
