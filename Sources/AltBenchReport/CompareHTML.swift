import AltBenchCore
import Foundation
import Plot

/// `altbench compare A B --format html`: the comparison as one self-contained HTML file —
/// what differs between the two sides, each (variant, max_tokens) pair's metrics before and
/// after with their tests (and, under the pair's name, whether its prompt or request settings
/// changed), and the images whose checks flipped with both answers.
package struct CompareHTML: Sendable {
    package var comparison: Comparison
    /// `altbench check`'s verdict, shown first when the page is a check's.
    package var headline: String?

    package init(comparison: Comparison, headline: String? = nil) {
        self.comparison = comparison
        self.headline = headline
    }

    package func render() -> String {
        let before = comparison.before
        let after = comparison.after
        let title = "altbench compare \(before.runID) → \(after.runID)"
        let metricNames = ["quality", "first_person", "truncated", "refusal"]
        let document = HTML(
            .head(
                .selfClosedElement(named: "meta", attributes: [Attribute<HTML.HeadContext>.attribute(named: "charset", value: "utf-8")]),
                .selfClosedElement(named: "meta", attributes: [
                    SafeHTML.attribute("http-equiv", "Content-Security-Policy"),
                    SafeHTML.attribute("content", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"),
                ]),
                .element(named: "title", nodes: [SafeHTML.text(title)] as [Node<HTML.HeadContext>]),
                .style(HTMLReportAssets.css)
            ),
            .body(
                .h1(SafeHTML.text(title)),
                .if(headline != nil, .p(SafeHTML.attribute("class", "banner"), .strong(SafeHTML.text(headline ?? "")))),
                .element(named: "dl", nodes: [
                    ("before", "\(before.runID) (\(before.provider), \(before.models.joined(separator: ", ")), \(before.endpointHost))"),
                    ("after", "\(after.runID) (\(after.provider), \(after.models.joined(separator: ", ")), \(after.endpointHost))"),
                ].flatMap { fact -> [Node<HTML.BodyContext>] in
                    [.element(named: "dt", nodes: [SafeHTML.text(fact.0)]), .element(named: "dd", nodes: [SafeHTML.text(fact.1)])]
                }),
                .if(!comparison.mismatches.isEmpty, .p(
                    SafeHTML.attribute("class", "banner incomplete"),
                    SafeHTML.text("The two sides differ: " + comparison.mismatches.map { "\($0.field) \($0.before) → \($0.after)" }.joined(separator: "; ") + "."))),
                .forEach(comparison.notes) { .p(SafeHTML.text($0)) },
                .h2("Pairs"),
                .p(SafeHTML.text("Each metric before → after; the test is paired over the images both sides answered (▲ better, ▼ worse when significant at \(comparison.alpha)).")),
                element("table", [
                    element("thead", [element("tr", (["pair", "answered / failed"] + metricNames).map { element("th", [SafeHTML.text($0)]) })]),
                    element("tbody", comparison.pairs.map { pair in
                        let counts = "\(pair.before.map { "\($0.answered) / \($0.errors)" } ?? "–") → \(pair.after.map { "\($0.answered) / \($0.errors)" } ?? "–")"
                        // What changed in the pair's request, after its name: text, never markup.
                        let change: [Node<HTML.BodyContext>] = pair.requestChange?.text.map {
                            [.br(), .span(SafeHTML.attribute("class", "problem request-change"), SafeHTML.text($0))]
                        } ?? []
                        return element("tr", [element("td", [SafeHTML.text(pair.label)] + change), element("td", [SafeHTML.text(counts)])]
                            + metricNames.map { name in
                                let mark = name == "quality" && CompareReport.isFormOnly(pair)
                                return element("td", [SafeHTML.text(pair.metric(name).map(Self.cell) ?? "–")] + (mark ? [
                                    SafeHTML.text(" "),
                                    .span(
                                        SafeHTML.attribute("class", "form-only"), SafeHTML.attribute("title", CompareReport.formOnlyNote),
                                        SafeHTML.text(Format.formOnlyMark)),
                                ] : []))
                            })
                    }),
                ]),
                .h2("Flipped checks"),
                .if(comparison.pairs.allSatisfy { $0.flips.isEmpty }, .p("No image changed between passing and failing a check.")),
                .forEach(comparison.pairs.filter { !$0.flips.isEmpty }) { pair in
                    element("section", [
                        .h3(SafeHTML.text(pair.label)),
                        element("table", [
                            element("thead", [element("tr", ["image", "check", "change", "before", "after"].map { element("th", [SafeHTML.text($0)]) })]),
                            element("tbody", pair.flips.map { flip in
                                element("tr", [
                                    element("td", [SafeHTML.text(flip.item)]), element("td", [SafeHTML.text(flip.check)]),
                                    element("td", [SafeHTML.text(flip.regressed ? "now fails" : "now passes")]),
                                    element("td", [SafeHTML.attribute("class", "text"), SafeHTML.text(flip.beforeAnswer ?? "–")]),
                                    element("td", [SafeHTML.attribute("class", "text"), SafeHTML.text(flip.afterAnswer ?? "–")]),
                                ])
                            }),
                        ]),
                    ])
                }
            )
        )
        return document.render() + "\n"
    }

    /// "0.71 → 0.64 ▼ (p = 0.012)"
    static func cell(_ metric: MetricDelta) -> String {
        let format = { (value: Double?) -> String in
            guard let value else { return "–" }
            return metric.kind == .rate ? Format.percent(value) : Format.decimal(value, digits: 2)
        }
        var text = "\(format(metric.before)) → \(format(metric.after))"
        if let test = metric.test {
            let arrow = test.significant ? (metric.direction == .better ? " ▲" : metric.direction == .worse ? " ▼" : "") : ""
            text += "\(arrow) (\(InsightsText.p(test.p)))"
        }
        return text
    }

    func element(_ name: String, _ nodes: [Node<HTML.BodyContext>]) -> Node<HTML.BodyContext> {
        .element(named: name, nodes: nodes)
    }
}
