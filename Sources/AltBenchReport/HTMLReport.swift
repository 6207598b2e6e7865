import AltBenchCore
import Foundation
import Plot

/// A stored run as one self-contained HTML file that opens from disk: the answer first (which
/// variant wins at which token limit, each against the baseline, where truncation stops), the
/// charts (inline SVG), the sortable summary table, then a gallery with each image beside every
/// answer, filterable by variant, limit and check, with a text search.
///
/// Inline CSS and JavaScript only, and a Content-Security-Policy that forbids every remote load
/// (images excepted when the dataset's own images are remote URLs). Without JavaScript the page
/// is complete: scripts only sort, filter and page. Every text from a model, a dataset or a
/// prompt file goes through ``SafeHTML``, which escapes it for where it goes.
package struct HTMLReport: Sendable {
    package var results: RunResults {
        didSet { showsJudge = Self.judged(results) }
    }
    /// Whether any answer has judge scores (a column of its own); worked out once, not per row.
    package private(set) var showsJudge: Bool
    /// The folder the file will live in: local images are linked relative to it.
    package var reportDirectory: URL
    /// Inline local images as data URLs (for CI artifacts) instead of linking them.
    package var embedImages: Bool
    /// Put before every link to a local image (``RunReportFiles`` renders one report for two
    /// folders that way).
    package var imageLinkPrefix = ""
    /// The truncated share `check:` allows, for the answer.
    package var truncationLimit: Double
    /// The summary and answer, when already computed for this run (``ReportAnalysis``).
    package var analysis: ReportAnalysis?
    /// Cards shown before "Show more" (JavaScript only; without it every card shows).
    package static let pageSize = 40

    package init(
        results: RunResults, reportDirectory: URL, embedImages: Bool = false,
        truncationLimit: Double = CheckThresholds().maxTruncationRise
    ) {
        self.results = results.orderingVariants()
        showsJudge = Self.judged(results)
        self.reportDirectory = reportDirectory
        self.embedImages = embedImages
        self.truncationLimit = truncationLimit
    }

    package func render() -> String {
        let analysis = self.analysis ?? ReportAnalysis(results, truncationLimit: truncationLimit)
        let (summary, insights) = (analysis.summary, analysis.insights)
        let title = "altbench run \(results.info.id)"
        let document = HTML(
            .head(
                .selfClosedElement(named: "meta", attributes: [Attribute<HTML.HeadContext>.attribute(named: "charset", value: "utf-8")]),
                .selfClosedElement(named: "meta", attributes: [
                        SafeHTML.attribute("http-equiv", "Content-Security-Policy"),
                        SafeHTML.attribute("content", contentSecurityPolicy),
                    ]),
                .selfClosedElement(named: "meta", attributes: [SafeHTML.attribute("name", "viewport"), SafeHTML.attribute("content", "width=device-width, initial-scale=1")]),
                .element(named: "title", nodes: [SafeHTML.text(title)] as [Node<HTML.HeadContext>]),
                .style(HTMLReportAssets.css)
            ),
            .body(
                .group(
                    header(summary: summary),
                    answer(insights, summary: summary),
                    charts(summary: summary, insights: insights),
                    summaryTable(summary),
                    judgeSection(summary: summary),
                    costSection(),
                    gallery(),
                    failures(),
                    variants()
                ),
                .element(named: "script", nodes: [Node<HTML.BodyContext>.raw(HTMLReportAssets.script)])
            )
        )
        return document.render() + "\n"
    }

    /// No remote loads: only this file's own inline styles and scripts, and images from the
    /// disk, data URLs, or the hosts of the dataset's remote images.
    var contentSecurityPolicy: String {
        let remoteHosts = Set(results.items.filter(\.isRemote).compactMap { item -> String? in
            guard let url = URL(string: item.image), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                let host = url.host
            else { return nil }
            return "\(scheme)://\(host)\(url.port.map { ":\($0)" } ?? "")"
        }).sorted()
        let images = (["'self'", "file:", "data:"] + remoteHosts).joined(separator: " ")
        return "default-src 'none'; img-src \(images); style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
    }

    // MARK: Header

    func header(summary: RunSummary) -> Node<HTML.BodyContext> {
        let info = results.info
        let answered = results.trials.filter { !$0.failed }
        let models = Set(results.trials.compactMap(\.model)).sorted()
        var facts: [(String, String)] = [
            ("provider", "\(info.provider.rawValue) (\(info.providerReason))"),
            ("model", models.isEmpty ? "–" : models.joined(separator: ", ")),
        ]
        if !info.isMock { facts.append(("endpoint", RunSnapshot.host(of: info.endpoint, provider: info.provider))) }
        facts += [
            ("dataset", "\(info.datasetPath) (\(results.items.count) images)"),
            ("trials", "\(answered.count) answered, \(results.trials.count - answered.count) failed, \(results.plannedTrials) planned"),
            ("cache hits", "\(answered.filter(\.cached).count)"),
            ("started", Format.timestamp(info.startedAt)),
            ("duration", Format.duration(from: info.startedAt, to: info.finishedAt)),
        ]
        return .header(
            .h1(SafeHTML.text("altbench run \(info.id)")),
            .if(info.isMock, .p(
                SafeHTML.attribute("class", "banner mock"), .strong("MOCK RESULTS"),
                SafeHTML.text(" — these answers come from altbench's offline mock (each image's first reference cut to max_tokens), not a vision model. They test the pipeline and the scorers only."))),
            .if(info.status != "finished", .p(
                SafeHTML.attribute("class", "banner incomplete"), .strong("Incomplete"),
                SafeHTML.text(" — the run \(info.status)\(info.statusMessage.map { ": \($0)" } ?? "") (\(results.trials.count) of \(results.plannedTrials) trials)."))),
            .element(
                named: "dl",
                nodes: facts.flatMap { fact -> [Node<HTML.BodyContext>] in
                    [.element(named: "dt", nodes: [SafeHTML.text(fact.0)]), .element(named: "dd", nodes: [SafeHTML.text(fact.1)])]
                })
        )
    }

    // MARK: The answer

    func answer(_ insights: RunInsights, summary: RunSummary) -> Node<HTML.BodyContext> {
        guard !insights.best.isEmpty else {
            return .section(SafeHTML.attribute("id", "answer"), .h2("The answer"), .p(SafeHTML.text("No answered trials: nothing to compare.")))
        }
        let matrix = InsightsText.matrix(insights, summary: summary, variants: results.variants.map(\.name), limits: RunInsights.limits(in: results))
        var rows: [Node<HTML.BodyContext>] = [
            .p(SafeHTML.text(
                insights.baseline.map { "Quality of \($0) and each variant's difference from it over the same images (paired bootstrap: better or worse when the 95% interval excludes 0, else ≈); ★ the best at that limit." }
                    ?? "Mean quality per variant; ★ the best at that limit.")),
            table(headers: matrix.header, rows: matrix.rows.map { $0.map { Cell($0) } }, className: "matrix"),
        ]
        if summary.rows.contains(where: { $0.formOnly > 0 }) { rows.append(formOnlyLegend) }
        if let baseline = insights.baseline, !insights.differences.isEmpty {
            rows.append(.element(named: "details", nodes: [
                .element(named: "summary", nodes: [SafeHTML.text("Intervals and p-values against \(baseline)")] as [Node<HTML.BodyContext>]),
                table(
                    headers: ["variant", "max_tokens", "quality vs \(baseline)", "p", "images", "verdict"],
                    rows: insights.differences.map { difference in
                        [
                            Cell(difference.variant), Cell(Format.tokens(difference.maxTokens), sort: Double(difference.maxTokens ?? Int.max)),
                            Cell(InsightsText.delta(difference), sort: difference.meanDifference), Cell(InsightsText.p(difference.p), sort: difference.p),
                            Cell(String(difference.images), sort: Double(difference.images)),
                            Cell(InsightsText.verdict(difference), className: "verdict-\(InsightsText.verdict(difference).replacingOccurrences(of: " ", with: "-"))"),
                        ]
                    }),
            ] as [Node<HTML.BodyContext>]))
        }
        return .section(
            SafeHTML.attribute("id", "answer"),
            .h2("The answer"),
            .ul(SafeHTML.attribute("class", "best"), .forEach(insights.best) { .li(SafeHTML.text(InsightsText.best($0))) }),
            .group(rows)
        )
    }

    // MARK: Charts

    func charts(summary: RunSummary, insights: RunInsights) -> Node<HTML.BodyContext> {
        .section(
            SafeHTML.attribute("id", "charts"), .h2("Charts"),
            .div(SafeHTML.attribute("class", "charts"), .group(ReportCharts(results: results, summary: summary, insights: insights).all())))
    }

    // MARK: Summary table

    func summaryTable(_ summary: RunSummary) -> Node<HTML.BodyContext> {
        let judged = summary.rows.contains { $0.judged > 0 }
        return .section(
            SafeHTML.attribute("id", "summary"),
            .h2("Summary"),
            .p(SafeHTML.text("Rates are shares of answered trials; click a column to sort.")),
            table(
                headers: ["variant", "max_tokens", "n", "errors", "form", "content", "quality"] + (judged ? ["judge accuracy"] : [])
                    + ["mean chars", "≤\(summary.budget)", "1st person", "truncated", "refusals", "empty"],
                rows: summary.rows.map { row in
                    [
                        Cell(row.variant), Cell(Format.tokens(row.maxTokens), sort: Double(row.maxTokens ?? Int.max)),
                        Cell(String(row.n), sort: Double(row.n)), Cell(String(row.errors), sort: Double(row.errors)),
                        Cell(Format.decimal(row.meanForm, digits: 2), sort: row.meanForm),
                        Cell(Format.decimal(row.meanContent, digits: 2), sort: row.meanContent),
                        Cell(
                            Format.decimal(row.meanQuality, digits: 2), sort: row.meanQuality,
                            mark: row.formOnly > 0 ? Self.formOnlyMark(row.formOnly, of: row.scoredQuality) : nil),
                    ] + (judged
                        ? [Cell(Format.decimal(row.means[ScoreName.judgeAccuracy], digits: 2), sort: row.means[ScoreName.judgeAccuracy])]
                        : []) + [
                        Cell(Format.decimal(row.meanChars), sort: row.meanChars),
                        Cell(Format.percent(row.withinBudget), sort: row.withinBudget),
                        Cell(Format.percent(row.firstPerson), sort: row.firstPerson), Cell(Format.percent(row.truncated), sort: row.truncated),
                        Cell(Format.percent(row.refusals), sort: row.refusals), Cell(Format.percent(row.empty), sort: row.empty),
                    ]
                }),
            .if(summary.rows.contains { $0.formOnly > 0 }, formOnlyLegend)
        )
    }

    /// What the form-only mark means, under a table that shows it.
    var formOnlyLegend: Node<HTML.BodyContext> {
        .p(
            SafeHTML.attribute("class", "legend"),
            .span(SafeHTML.attribute("class", "form-only"), SafeHTML.text(Format.formOnlyMark)),
            SafeHTML.text(
                " form only: quality is form × content; an answer with no content part (no references, must_mention, expected_text or judge score) is scored on form alone. †n counts such answers in the row."))
    }

    // MARK: Cost

    /// The Markdown report's cost section: tokens reported against the estimate for the same
    /// requests, and cost, per pair with a total row that sorting leaves at the bottom.
    func costSection() -> Node<HTML.BodyContext> {
        guard let cost = CostSummary.make(results) else { return .empty }
        func figures(_ figures: CostSummary.Figures) -> [Cell] {
            func count(_ value: Int?) -> Cell { Cell(Format.count(value), sort: value.map(Double.init)) }
            return [
                count(figures.sent), count(figures.fromStore), count(figures.promptTokens),
                count(figures.estimatedInputTokens), Cell(Format.ratio(figures.ratio), sort: figures.ratio),
                count(figures.completionTokens), Cell(Format.usd(figures.costUSD), sort: figures.costUSD),
            ]
        }
        return .section(
            SafeHTML.attribute("id", "cost"),
            .h2("Cost"),
            .p(SafeHTML.text(
                "Tokens are what the server reported for the requests sent; answers from the store sent no request and cost nothing. Estimated is altbench's estimate of the input tokens of the same requests, so reported/estimated near 1.00× means the estimate fits. Costs are in USD at the prices recorded with the run.")),
            table(
                headers: [
                    "variant", "max_tokens", "model", "sent", "cached", "prompt tokens", "estimated", "reported/estimated",
                    "completion tokens", "cost USD",
                ],
                rows: cost.pairs.map { pair in
                    [
                        Cell(pair.variant), Cell(Format.tokens(pair.maxTokens), sort: Double(pair.maxTokens ?? Int.max)),
                        Cell(pair.model ?? "–"),
                    ] + figures(pair.figures)
                },
                footer: [Cell("total", className: "total"), Cell(""), Cell("")] + figures(cost.total),
                className: "sortable cost"),
            .if(!cost.notes.isEmpty, .ul(SafeHTML.attribute("class", "notes"), .forEach(cost.notes) { .li(SafeHTML.text($0)) }))
        )
    }

    // MARK: Judge

    /// Whether any answer has the judge's scores (the gallery then has a judge column).
    static func judged(_ results: RunResults) -> Bool { results.trials.contains { $0.scores[ScoreName.judgeAccuracy] != nil } }

    /// The Markdown report's judge section: who judged, its means per pair, its calls, cost,
    /// agreement with the references and stability.
    func judgeSection(summary: RunSummary) -> Node<HTML.BodyContext> {
        guard let judge = JudgeSummary(results) else { return .empty }
        func mean(_ row: SummaryRow, _ id: String) -> Cell {
            Cell(Format.decimal(row.means[id], digits: 2), sort: row.means[id])
        }
        var notes = [JudgeReport.calls(judge)] + JudgeReport.problems(judge).map { "  " + $0 }
        notes += [JudgeReport.cost(judge), JudgeReport.agreement(judge)] + JudgeReport.examples(judge).map { "  " + $0 }
        if let stability = JudgeReport.stability(judge) { notes.append(stability) }
        return .section(
            SafeHTML.attribute("id", "judge"),
            .h2("Judge"),
            .p(SafeHTML.attribute("class", judge.isMock ? "mock-judge" : "judge-who"), SafeHTML.text(JudgeReport.who(judge))),
            table(
                headers: ["variant", "max_tokens"] + JudgeReport.headers,
                rows: summary.rows.map { row in
                    [
                        Cell(row.variant), Cell(Format.tokens(row.maxTokens), sort: Double(row.maxTokens ?? Int.max)),
                        mean(row, ScoreName.judgeAccuracy), mean(row, ScoreName.judgeCompleteness),
                        mean(row, ScoreName.judgeConcision), Cell(Format.count(row.judged), sort: Double(row.judged)),
                    ]
                }, className: "sortable judge"),
            .ul(SafeHTML.attribute("class", "notes"), .forEach(notes) { .li(SafeHTML.text($0)) })
        )
    }

    // MARK: Gallery

    /// The most images the gallery holds. A larger run's gallery holds this many, chosen by
    /// ``gallerySelection(disagree:limit:)``, and says so; every answer stays in the Markdown
    /// report and in the results store.
    package static let galleryLimit = 500

    /// One image's answers as the gallery shows them, and whether its variants disagree.
    struct GalleryCard {
        var item: RunResults.Item
        var rows: [AnswerRow]
        var disagree: Bool
    }

    /// Which of the images (by index, in dataset order) the gallery holds: all of them up to
    /// `limit`; beyond, the images where the variants disagree first, then the others, each in
    /// dataset order, up to `limit` in all.
    static func gallerySelection(disagree: [Bool], limit: Int) -> [Int] {
        guard disagree.count > limit else { return Array(disagree.indices) }
        let disagreeing = disagree.indices.filter { disagree[$0] }
        let others = disagree.indices.filter { !disagree[$0] }
        return (disagreeing.prefix(limit) + others.prefix(max(0, limit - disagreeing.count))).sorted()
    }

    func gallery() -> Node<HTML.BodyContext> {
        let byItem = Dictionary(grouping: results.trials, by: \.itemID)
        let order = Dictionary(results.variants.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let limits = RunInsights.limits(in: results)
        let disagree = results.items.map { Self.disagree(byItem[$0.id] ?? []) }
        let selected = Self.gallerySelection(disagree: disagree, limit: Self.galleryLimit)
        // Rows only for the images shown.
        let cards = selected.map { index -> GalleryCard in
            let item = results.items[index]
            let trials = (byItem[item.id] ?? []).sorted {
                (order[$0.variant] ?? 0, $0.maxTokens ?? Int.max, $0.repeatIndex) < (order[$1.variant] ?? 0, $1.maxTokens ?? Int.max, $1.repeatIndex)
            }
            return GalleryCard(item: item, rows: Self.answerRows(trials, judged: showsJudge), disagree: disagree[index])
        }
        var notes = [
            "Identical answers to an image (the same text, checks and scores) share one row, which lists every variant and token limit that gave them."
        ]
        if selected.count < results.items.count {
            let disagreeing = disagree.filter { $0 }.count
            notes.insert(
                "This run has \(Format.count(results.items.count)) images; to keep the page quick to open, the gallery holds \(Format.count(selected.count)) of them: "
                    + (disagreeing >= selected.count
                        ? "the first \(Format.count(selected.count)) in dataset order of the \(Format.count(disagreeing)) where the variants disagree (on a check, or on answering at all)."
                        : "the \(Format.count(disagreeing)) where the variants disagree (on a check, or on answering at all) and the first \(Format.count(selected.count - disagreeing)) others, in dataset order.")
                    + " The filters and the search work within them. Every answer to every image is in the Markdown report and in the results store (altbench.sqlite).",
                at: 0)
        }
        let controls: Node<HTML.BodyContext> = .div(
            SafeHTML.attribute("class", "filters"), SafeHTML.attribute("hidden", "hidden"), SafeHTML.attribute("id", "filters"),
            select("variant", label: "Variant", options: results.variants.map { ($0.name, $0.name) }),
            select("limit", label: "max_tokens", options: limits.map { (Format.tokens($0), Format.tokens($0)) }),
            select("check", label: "Failed check", options: ScoringSettings.checkIDs.map { ($0, Format.flagWord($0)) }),
            .element(named: "label", nodes: [
                .selfClosedElement(named: "input", attributes: [SafeHTML.attribute("type", "checkbox"), SafeHTML.attribute("id", "filter-disagree")]),
                SafeHTML.text(" only images where variants disagree"),
            ] as [Node<HTML.BodyContext>]),
            .element(named: "label", nodes: [
                SafeHTML.text("Search "),
                .selfClosedElement(named: "input", attributes: [SafeHTML.attribute("type", "search"), SafeHTML.attribute("id", "filter-text"), SafeHTML.attribute("placeholder", "words in answers or references")]),
            ] as [Node<HTML.BodyContext>]),
            .span(SafeHTML.attribute("id", "filter-count"))
        )
        return .section(
            SafeHTML.attribute("id", "gallery"),
            .h2("Per image"),
            .forEach(notes) { .p(SafeHTML.attribute("class", "gallery-note"), SafeHTML.text($0)) },
            controls,
            .div(SafeHTML.attribute("class", "cards"), .forEach(cards) { card($0) }),
            .element(named: "button", nodes: [SafeHTML.attribute("id", "more"), SafeHTML.attribute("type", "button"), SafeHTML.attribute("hidden", "hidden"), SafeHTML.text("Show more")] as [Node<HTML.BodyContext>])
        )
    }

    /// The checks (ids, in ``ScoringSettings/checkIDs`` order) an answer failed.
    static func failedChecks(_ trial: RunResults.TrialRow) -> [String] {
        ScoringSettings.checkIDs.filter { trial.scores[$0]?.passed == false }
    }

    /// Whether the variants disagree on an image: on a check, or on answering at all.
    static func disagree(_ trials: [RunResults.TrialRow]) -> Bool {
        Set(trials.map(failedChecks)).count > 1 || Set(trials.map(\.failed)).count > 1
    }

    /// One row of an image's answers: an answer (or an error) and every variant, token limit
    /// and repeat that gave it.
    struct AnswerRow: Equatable {
        struct Member: Equatable {
            var variant: String
            var maxTokens: Int?
            var repeats: [Int]

            /// "terse @ 50", "terse @ 50 (repeat 2)", "terse @ 50 (repeats 1, 2, 3)";
            /// without a token limit, the variant alone.
            var text: String {
                let limit = maxTokens.map { " @ \($0)" } ?? ""
                let repeatText: String
                switch repeats {
                case [0]: repeatText = ""
                case _ where repeats.count == 1: repeatText = " (repeat \(repeats[0] + 1))"
                default: repeatText = " (repeats \(repeats.map { String($0 + 1) }.joined(separator: ", ")))"
                }
                return variant + limit + repeatText
            }
        }

        var members: [Member]
        var text: String
        var chars: String
        var quality: String
        var formOnly: Bool
        var flags: [String]
        var checks: String
        var judge: String?
        var className: String
    }

    /// An image's answers, identical ones folded: answers with the same text (after trimming),
    /// the same checks and the same figures share a row, listing every variant and limit that
    /// gave them, in the order the trials come (variant, limit, repeat).
    static func answerRows(_ trials: [RunResults.TrialRow], judged: Bool) -> [AnswerRow] {
        var rows: [AnswerRow] = []
        var index: [String: Int] = [:]
        for trial in trials {
            let row = Self.row(for: trial, judged: judged)
            let key = [row.text, row.chars, row.quality, row.formOnly ? "1" : "0", row.flags.joined(separator: ","), row.checks, row.judge ?? "", row.className]
                .joined(separator: "\u{1}")
            guard let at = index[key] else {
                index[key] = rows.count
                rows.append(row)
                continue
            }
            if let member = rows[at].members.lastIndex(where: { $0.variant == trial.variant && $0.maxTokens == trial.maxTokens }) {
                rows[at].members[member].repeats.append(trial.repeatIndex)
            } else {
                rows[at].members.append(row.members[0])
            }
        }
        return rows
    }

    /// One trial as a row of its own.
    static func row(for trial: RunResults.TrialRow, judged: Bool) -> AnswerRow {
        var row = AnswerRow(
            members: [AnswerRow.Member(variant: trial.variant, maxTokens: trial.maxTokens, repeats: [trial.repeatIndex])],
            text: "", chars: "–", quality: "–", formOnly: false, flags: [], checks: "", judge: nil, className: "answer")
        if let answer = trial.answer {
            let content = (answer.content ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            row.text = content.isEmpty ? (answer.refusal.map { "refused: \($0)" } ?? "(empty)") : content
            row.chars = trial.scores[ScoreName.length].map { String(Int($0.value)) } ?? "–"
            row.quality = Format.decimal(trial.scores[ScoreName.quality]?.value, digits: 2)
            row.formOnly = QualityScorer.isFormOnly(trial.scores)
            row.flags = Format.flags(trial.scores)
            let failed = failedChecks(trial)
            row.checks = failed.joined(separator: " ")
            if !failed.isEmpty { row.className += " flagged" }
        } else {
            row.text = "error: \(trial.error ?? "unknown")"
            row.flags = ["failed"]
            row.checks = "failed"
            row.className += " failed"
        }
        if judged { row.judge = JudgeReport.answer(trial.scores) ?? "–" }
        return row
    }

    func card(_ card: GalleryCard) -> Node<HTML.BodyContext> {
        let item = card.item
        var facts: [String] = []
        if let width = item.width, let height = item.height { facts.append("\(width)×\(height)") }
        if let format = item.format { facts.append(format.uppercased()) }
        if item.isRemote { facts.append("remote URL") }
        return .element(named: "article", nodes: [
            SafeHTML.attribute("class", "card"), SafeHTML.attribute("id", "item-\(item.id)"),
            SafeHTML.attribute("data-disagree", card.disagree ? "1" : "0"),
            .div(SafeHTML.attribute("class", "image"), image(item)),
            .div(
                SafeHTML.attribute("class", "about"),
                .h3(SafeHTML.text(item.id)),
                .if(!facts.isEmpty, .p(SafeHTML.attribute("class", "facts"), SafeHTML.text(facts.joined(separator: " · ")))),
                .if(item.problem != nil, .p(SafeHTML.attribute("class", "problem"), .strong("Not sent: "), SafeHTML.text(item.problem ?? ""))),
                .if(!item.references.isEmpty, .ol(SafeHTML.attribute("class", "references"), .forEach(item.references) { .li(SafeHTML.text($0)) })),
                .if(item.expectedText != nil, .p(.strong("Expected text: "), SafeHTML.text(item.expectedText ?? ""))),
                .if(!item.mustMention.isEmpty, .p(.strong("Must mention: "), SafeHTML.text(item.mustMention.joined(separator: ", ")))),
                .if(!(item.context ?? "").isEmpty, .p(.strong("Post: "), SafeHTML.text(item.context ?? ""))),
                .if(!item.tags.isEmpty, .p(SafeHTML.attribute("class", "tags"), SafeHTML.text(item.tags.joined(separator: " · "))))
            ),
            .if(!card.rows.isEmpty, scrolling(el("table",
                SafeHTML.attribute("class", "answers"),
                el("thead", el("tr", el("th", "variant @ max_tokens"), el("th", "answer"), el("th", "chars"), el("th", "quality"), el("th", "flags"),
                    .if(showsJudge, el("th", "judge")))),
                el("tbody", .forEach(card.rows) { answerRow($0) })
            ), className: "answers-scroll")),
        ])
    }

    func answerRow(_ row: AnswerRow) -> Node<HTML.BodyContext> {
        el("tr",
            SafeHTML.attribute("class", row.className), SafeHTML.attribute("data-checks", row.checks),
            el("td", SafeHTML.attribute("class", "members"), el("ul", .forEach(row.members) { member in
                el("li",
                    SafeHTML.attribute("data-variant", member.variant), SafeHTML.attribute("data-limit", Format.tokens(member.maxTokens)),
                    SafeHTML.text(member.text))
            })),
            el("td", SafeHTML.attribute("class", "text"), SafeHTML.text(row.text)),
            el("td", SafeHTML.text(row.chars)),
            el("td", SafeHTML.text(row.quality), .if(row.formOnly, .group([
                SafeHTML.text(" "),
                .span(
                    SafeHTML.attribute("class", "form-only"), SafeHTML.attribute("title", Self.formOnlyMark(nil).title),
                    SafeHTML.text(Format.formOnlyMark)),
            ]))),
            el("td", .forEach(row.flags) { .span(SafeHTML.attribute("class", "flag"), SafeHTML.text($0)) }),
            .if(row.judge != nil, el("td", SafeHTML.attribute("class", "judge"), SafeHTML.text(row.judge ?? "–"))))
    }

    /// The image as the report shows it: a path relative to the report, a data URL (with
    /// `embedImages`), or the dataset's own http(s) URL; never any other scheme.
    func image(_ item: RunResults.Item) -> Node<HTML.BodyContext> {
        guard let source = Self.imageSource(item, reportDirectory: reportDirectory, embed: embedImages, prefix: imageLinkPrefix) else {
            return .p(SafeHTML.attribute("class", "noimage"), SafeHTML.text("(no image)"))
        }
        return .selfClosedElement(named: "img", attributes: [
            SafeHTML.attribute("src", source), SafeHTML.attribute("alt", item.references.first ?? item.id),
            SafeHTML.attribute("loading", "lazy"), SafeHTML.attribute("class", "thumb"),
        ])
    }

    static func imageSource(_ item: RunResults.Item, reportDirectory: URL, embed: Bool, prefix: String = "") -> String? {
        guard !item.image.isEmpty else { return nil }
        if item.isRemote {
            guard let url = URL(string: item.image), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
            return url.absoluteString
        }
        if embed, item.problem == nil, let data = FileManager.default.contents(atPath: item.image),
            let header = try? ImageSniffer.sniff(data, path: item.image)
        {
            return "data:\(header.format.mimeType);base64,\(data.base64EncodedString())"
        }
        // Each path segment percent-encoded, so a file name cannot turn into a scheme or a query.
        let relative = MarkdownText.relativePath(to: item.image, from: reportDirectory.path)
        let encoded = relative.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#:;"))) ?? ""
        }.joined(separator: "/")
        guard prefix.isEmpty else { return prefix + encoded }
        return encoded.hasPrefix("/") || encoded.hasPrefix(".") ? encoded : "./" + encoded
    }

    // MARK: Failures and variants

    func failures() -> Node<HTML.BodyContext> {
        let failed = results.trials.filter(\.failed)
        let bad = results.items.filter { $0.problem != nil }
        guard !failed.isEmpty || !bad.isEmpty else { return .empty }
        return .section(
            SafeHTML.attribute("id", "failures"),
            .h2("What failed"),
            .if(!bad.isEmpty, .ul(.forEach(bad) { .li(.strong(SafeHTML.text($0.id)), SafeHTML.text(": \($0.problem ?? "")")) })),
            .if(!failed.isEmpty, table(
                headers: ["variant", "max_tokens", "image", "reason"],
                rows: failed.map { [Cell($0.variant), Cell(Format.tokens($0.maxTokens)), Cell($0.itemID), Cell($0.error ?? "unknown")] }))
        )
    }

    func variants() -> Node<HTML.BodyContext> {
        .section(
            SafeHTML.attribute("id", "variants"),
            .h2("Variants"),
            .forEach(results.variants) { variant in
                .element(named: "details", nodes: [
                    .element(named: "summary", nodes: [
                        .strong(SafeHTML.text(variant.name)),
                        SafeHTML.text(" — \(variant.file)\(variant.description.map { ": \($0)" } ?? "")"),
                    ] as [Node<HTML.BodyContext>]),
                    .pre(SafeHTML.text(variant.text)),
                ] as [Node<HTML.BodyContext>])
            }
        )
    }

    // MARK: Pieces

    /// An element with children, in the body context (Plot's typed table contexts do not mix
    /// with generated rows).
    func el(_ name: String, _ nodes: Node<HTML.BodyContext>...) -> Node<HTML.BodyContext> {
        .element(named: name, nodes: nodes)
    }

    func el(_ name: String, _ nodes: [Node<HTML.BodyContext>]) -> Node<HTML.BodyContext> {
        .element(named: name, nodes: nodes)
    }

    struct Cell {
        var text: String
        var sort: Double?
        var className: String?
        /// A marker shown after the text, with a title that explains it (the form-only "†2").
        var mark: (text: String, title: String)?
        init(_ text: String, sort: Double? = nil, className: String? = nil, mark: (text: String, title: String)? = nil) {
            self.text = text
            self.sort = sort
            self.className = className
            self.mark = mark
        }
    }

    /// The marker of a quality that is form alone, for `count` of `of` answers (`nil`: one
    /// answer), titled with what it means.
    static func formOnlyMark(_ count: Int?, of total: Int? = nil) -> (text: String, title: String) {
        let what = "no references, must_mention, expected_text or judge score, so quality is form alone"
        guard let count else { return (Format.formOnlyMark, "Form only: \(what).") }
        return ("\(Format.formOnlyMark)\(count)", "Form only for \(count) of \(total ?? count) answers: \(what).")
    }

    /// A table whose columns sort on click (numbers by their value); a `footer` row (a total)
    /// goes in `tfoot`, which sorting leaves where it is.
    func table(headers: [String], rows: [[Cell]], footer: [Cell]? = nil, className: String = "sortable") -> Node<HTML.BodyContext> {
        func row(_ cells: [Cell]) -> Node<HTML.BodyContext> {
            el("tr", .forEach(cells) { cell in
                el("td",
                    .if(cell.sort != nil && cell.sort!.isFinite, SafeHTML.attribute("data-sort", String(cell.sort ?? 0))),
                    .if(cell.className != nil, SafeHTML.attribute("class", cell.className ?? "")),
                    SafeHTML.text(cell.text),
                    .if(cell.mark != nil, .group([
                        SafeHTML.text(" "),
                        .span(
                            SafeHTML.attribute("class", "form-only"), SafeHTML.attribute("title", cell.mark?.title ?? ""),
                            SafeHTML.text(cell.mark?.text ?? "")),
                    ])))
            })
        }
        return scrolling(el("table",
            SafeHTML.attribute("class", className),
            el("thead", el("tr", .forEach(headers) { el("th", SafeHTML.text($0)) })),
            el("tbody", .forEach(rows, row)),
            .if(footer != nil, el("tfoot", row(footer ?? [])))
        ))
    }

    /// A filter: "all" first, then each option's `text`, its `value` what the script matches.
    func select(_ name: String, label: String, options: [(value: String, text: String)]) -> Node<HTML.BodyContext> {
        .element(named: "label", nodes: [
            SafeHTML.text("\(label) "),
            .element(named: "select", nodes: [
                SafeHTML.attribute("id", "filter-\(name)"),
                .element(named: "option", nodes: [SafeHTML.text("all")] as [Node<HTML.BodyContext>]),
            ] + options.map { option in
                .element(named: "option", nodes: [SafeHTML.attribute("value", option.value), SafeHTML.text(option.text)] as [Node<HTML.BodyContext>])
            } as [Node<HTML.BodyContext>]),
        ] as [Node<HTML.BodyContext>])
    }

    /// `table` in a box that scrolls sideways when the table is wider than the page, so a
    /// narrow screen scrolls the table, never the page.
    func scrolling(_ table: Node<HTML.BodyContext>, className: String = "table-scroll") -> Node<HTML.BodyContext> {
        el("div", SafeHTML.attribute("class", className == "table-scroll" ? className : "table-scroll \(className)"), table)
    }
}

/// Escaping for HTML built with Plot. Plot escapes `<` and `>` in text but leaves `&`-entities
/// as written and attribute values untouched, so every untrusted text goes through here, with
/// the report's one XML rule (``JUnitReport/escape(_:attribute:)``, which the SVG charts use
/// too): `&`, `<`, `>` always, both quotes in attribute values, and characters XML cannot carry
/// replaced. Text is then handed to Plot as already escaped.
package enum SafeHTML {
    package static func text<Context>(_ value: String) -> Node<Context> {
        .raw(escapeText(value))
    }

    package static func attribute<Context>(_ name: String, _ value: String) -> Node<Context> {
        .attribute(named: name, value: escapeAttribute(value))
    }

    package static func attribute<Context>(_ name: String, _ value: String) -> Attribute<Context> {
        .attribute(named: name, value: escapeAttribute(value))
    }

    package static func escapeText(_ value: String) -> String {
        changedByEscaping(value, attribute: false) ? JUnitReport.escape(value, attribute: false) : value
    }

    package static func escapeAttribute(_ value: String) -> String {
        changedByEscaping(value, attribute: true) ? JUnitReport.escape(value, attribute: true) : value
    }

    /// Whether the rule could change `value`. Printable ASCII other than `&`, `<`, `>` (and in
    /// attribute values both quotes) is kept as it is, so such text, most of a report, is
    /// passed on without being copied; anything else goes through the rule.
    static func changedByEscaping(_ value: String, attribute: Bool) -> Bool {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"): return true
            case UInt8(ascii: "\""), UInt8(ascii: "'"): if attribute { return true }
            case 0x20..<0x7F: continue
            default: return true
            }
        }
        return false
    }
}
