import AltBenchCore
import Foundation

/// Renders a stored run as Markdown: a header, the comparison table, the variants, what
/// failed, and each image with every variant's answer next to the others.
package struct MarkdownReport: Sendable {
    package var results: RunResults
    package var summary: RunSummary
    /// The folder the report file will live in, so image links are relative to it.
    package var reportDirectory: URL
    /// Put before every link to a local image (``RunReportFiles`` renders one report for two
    /// folders that way).
    package var imageLinkPrefix = ""
    package var kind: Kind
    /// The truncated share `check:` allows (`max_truncation_rise`), for the opening answer.
    package var truncationLimit: Double = CheckThresholds().maxTruncationRise

    /// What the report is about.
    package enum Kind: Sendable, Hashable {
        /// A stored run of `altbench run`.
        case run
        /// Alt texts from a file, scored by `altbench score`: no requests, so no token
        /// limits, errors, tokens or latency; variants are the file's groups.
        case scoredFile(path: String, dataset: String?)
    }

    /// The answer, when already computed for these results (``ReportAnalysis``).
    var insights: RunInsights?

    package init(results: RunResults, reportDirectory: URL, kind: Kind = .run) {
        self.results = results
        self.summary = RunSummary(results)
        self.reportDirectory = reportDirectory
        self.kind = kind
    }

    /// The report of `analysis`'s run, reusing its summary and answer when its variant order
    /// is the run's own (else they are computed for this order).
    package init(analysis: ReportAnalysis, results: RunResults, reportDirectory: URL) {
        self.results = results
        let same = analysis.results.variants == results.variants
        summary = same ? analysis.summary : RunSummary(results)
        insights = same ? analysis.insights : nil
        truncationLimit = analysis.truncationLimit
        self.reportDirectory = reportDirectory
        kind = .run
    }

    package func render() -> String {
        var out: [String] = []
        if case .scoredFile(let path, let dataset) = kind {
            scoredFileHeader(&out, path: path, dataset: dataset)
        } else {
            header(&out)
            answerSection(&out, insights: insights ?? RunInsights(results, truncationLimit: truncationLimit))
        }
        summaryTable(&out)
        qualitySection(&out)
        checksSection(&out)
        instabilitySection(&out)
        referenceSection(&out)
        if kind == .run {
            judgeSection(&out)
            costSection(&out)
            variantsSection(&out)
            failuresSection(&out)
        }
        imagesSection(&out)
        // Each section closes with a blank line; the file ends with a single newline.
        while out.last == "" { out.removeLast() }
        return out.joined(separator: "\n") + "\n"
    }

    // MARK: - Sections

    private func header(_ out: inout [String]) {
        let info = results.info
        out.append("# altbench run \(info.id) (\(info.provider.rawValue))")
        out.append("")
        if info.isMock {
            out.append("> **Mock results, not a model.** These answers come from altbench's offline mock (each image's first reference text, cut to max_tokens). They test the pipeline and the scorers only. Set `OPENAI_API_KEY` or pass `--base-url URL` to evaluate a real vision model.")
            out.append("")
        }
        if info.status != "finished" {
            let reason = info.statusMessage.map { ": \(MarkdownText.inline($0))" } ?? ""
            // After a configuration error, resuming would send the same requests to the same place.
            let next =
                info.stoppedBy == "configuration"
                ? "fix the cause and start a new run (it reuses every stored answer); `--resume` would repeat the same requests."
                : "`altbench run --resume \(info.id)` asks the rest."
            out.append("> **Incomplete: this run did not finish** (\(info.status))\(reason). It holds \(results.trials.count) of \(results.plannedTrials) planned trials; \(next)")
            out.append("")
        }
        let answered = results.trials.filter { !$0.failed }
        let cached = answered.filter(\.cached).count
        let failed = results.trials.count - answered.count
        let models = Set(results.trials.compactMap(\.model)).sorted()
        out.append("| | |")
        out.append("|---|---|")
        out.append("| provider | \(info.provider.rawValue): \(MarkdownText.cell(info.providerReason)) |")
        if !info.isMock { out.append("| endpoint | \(MarkdownText.cell(info.endpoint)) |") }
        if !models.isEmpty { out.append("| model | \(MarkdownText.cell(models.joined(separator: ", "))) |") }
        out.append("| dataset | \(MarkdownText.cell(info.datasetPath)) (\(results.items.count) items) |")
        out.append("| prompts | \(MarkdownText.cell(info.promptsPath)) (\(results.variants.count) variants) |")
        out.append("| started | \(Format.timestamp(info.startedAt)) |")
        out.append("| duration | \(Format.duration(from: info.startedAt, to: info.finishedAt)) |")
        out.append("| trials | \(results.trials.count) of \(results.plannedTrials): \(answered.count) answered (\(cached) from cache), \(failed) failed |")
        out.append("| brevity budget | \(summary.budget) characters |")
        out.append("| altbench | \(MarkdownText.cell(info.version)) |")
        out.append("")
    }

    private func scoredFileHeader(_ out: inout [String], path: String, dataset: String?) {
        out.append("# altbench score \(MarkdownText.inline(path))")
        out.append("")
        out.append("| | |")
        out.append("|---|---|")
        out.append("| answers | \(results.trials.count) for \(results.items.count) items, in \(results.variants.count) group\(results.variants.count == 1 ? "" : "s") |")
        out.append("| dataset | \(dataset.map { MarkdownText.cell($0) } ?? "none: references and the rest come from the file") |")
        out.append("| brevity budget | \(summary.budget) characters |")
        out.append("| altbench | \(MarkdownText.cell(results.info.version)) |")
        out.append("")
    }

    /// Whether rows are (variant, max_tokens) pairs, as in a run, or variants alone.
    private var showsTokenLimits: Bool { kind == .run }

    /// The cells that name a row, and their header and alignment.
    private var keyHeader: String { showsTokenLimits ? "| variant | max_tokens |" : "| variant |" }
    private var keyRule: String { showsTokenLimits ? "|---|---:|" : "|---|" }
    private func keyCells(_ row: SummaryRow) -> [String] {
        showsTokenLimits ? [MarkdownText.cell(row.variant), Format.tokens(row.maxTokens)] : [MarkdownText.cell(row.variant)]
    }

    private func summaryTable(_ out: inout [String]) {
        out.append("## Summary")
        out.append("")
        out.append(kind == .run
            ? "Rates are shares of answered trials. Lengths count Unicode scalars, as Mastodon does."
            : "Rates are shares of the answers. Lengths count Unicode scalars, as Mastodon does.")
        out.append("")
        var header = keyHeader + " n |"
        var rule = keyRule + "---:|"
        if showsTokenLimits {
            header += " errors |"
            rule += "---:|"
        }
        header += " form | content | quality |"
        rule += "---:|---:|---:|"
        let judged = summary.rows.contains { $0.judged > 0 }
        if judged {
            header += " judge accuracy |"
            rule += "---:|"
        }
        header += " mean chars | p90 chars | ≤ \(summary.budget) chars | first person | truncated | refusals | empty |"
        rule += "---:|---:|---:|---:|---:|---:|---:|"
        if showsTokenLimits {
            header += " mean completion tokens | p50 latency |"
            rule += "---:|---:|"
        }
        out.append(header)
        out.append(rule)
        for row in summary.rows {
            var cells = keyCells(row) + [String(row.n)]
            if showsTokenLimits { cells.append(String(row.errors)) }
            cells += [Format.decimal(row.meanForm, digits: 2), Format.decimal(row.meanContent, digits: 2), Format.quality(row)]
            if judged { cells.append(Format.decimal(row.means[ScoreName.judgeAccuracy], digits: 2)) }
            cells += [
                Format.decimal(row.meanChars), Format.whole(row.p90Chars),
                Format.percent(row.withinBudget), Format.percent(row.firstPerson), Format.percent(row.truncated),
                Format.percent(row.refusals), Format.percent(row.empty),
            ]
            if showsTokenLimits {
                cells += [Format.decimal(row.meanCompletionTokens), Format.latency(row.p50LatencyMs)]
            }
            out.append("| " + cells.joined(separator: " | ") + " |")
        }
        out.append("")
        if let note = Format.formOnlyNote(summary.rows, answers: answersNoun) {
            out.append(note)
            out.append("")
        }
    }

    /// What the rows count, in the notes under the tables.
    private var answersNoun: String { kind == .run ? "answered trials" : "answers" }

    /// `quality` and the mean of each weighted part, so a change in the composite can be
    /// traced to the part that moved.
    private func qualitySection(_ out: inout [String]) {
        // Parts no answer has (no dataset text, no scorer for it in an older run) stay out.
        func parts(_ half: QualityScorer.Half) -> [(id: String, weight: Double)] {
            summary.weightedParts(half).filter { part in summary.rows.contains { $0.parts[part.id] != nil } }
        }
        let formParts = parts(.form), contentParts = parts(.content)
        out.append("## Quality")
        out.append("")
        let hard = summary.settings.hardFails.sorted().map { "`\($0)`" }.joined(separator: ", ")
        out.append("`quality` is `form` × `content`. `form` is the weighted mean of the form parts below (weight in brackets), and 0 for an answer with a hard fail (\(hard.isEmpty ? "none set" : hard)); `content` is the weighted mean of the content parts, over the \(answersNoun) that have one. An answer with no content part (no references, `must_mention`, `expected_text` or judge score) has no `content`, and its quality is its form alone (\(Format.formOnlyMark)). Parts are means over \(answersNoun); a part an item cannot have leaves that answer's mean. Weights and hard fails are set in `altbench.yml`.")
        out.append("")
        var header = keyHeader + " form | content | quality | hard fails |"
        var rule = keyRule + "---:|---:|---:|---:|"
        for part in formParts + contentParts {
            header += " \(Format.label(part.id)) (×\(Format.weight(part.weight))) |"
            rule += "---:|"
        }
        out.append(header)
        out.append(rule)
        for row in summary.rows {
            var cells = keyCells(row) + [
                Format.decimal(row.meanForm, digits: 2), Format.decimal(row.meanContent, digits: 2), Format.quality(row),
                Format.percent(row.hardFails),
            ]
            cells += (formParts + contentParts).map { Format.decimal(row.parts[$0.id], digits: 2) }
            out.append("| " + cells.joined(separator: " | ") + " |")
        }
        out.append("")
        if !formParts.isEmpty || !contentParts.isEmpty {
            func list(_ parts: [(id: String, weight: Double)]) -> String {
                parts.isEmpty ? "none present" : parts.map { Format.label($0.id) }.joined(separator: ", ")
            }
            out.append("Form parts: \(list(formParts)). Content parts: \(list(contentParts)).")
            out.append("")
        }
        if let note = Format.formOnlyNote(summary.rows, answers: answersNoun) {
            out.append(note)
            out.append("")
        }
    }

    /// The share of answers each check flagged.
    private func checksSection(_ out: inout [String]) {
        let checks = ScoringSettings.checkIDs.filter { $0 != ScoreName.brevity }
            .filter { id in summary.rows.contains { $0.checkRates[id] != nil } }
        guard !checks.isEmpty else { return }
        out.append("## Checks")
        out.append("")
        out.append("Share of answered trials each check flagged. Hard fails, which zero `quality`, are in bold.")
        out.append("")
        let headers = checks.map { id in
            summary.settings.hardFails.contains(id) ? "**\(Format.label(id))**" : Format.label(id)
        }
        out.append(keyHeader + " " + headers.joined(separator: " | ") + " |")
        out.append(keyRule + String(repeating: "---:|", count: checks.count))
        for row in summary.rows {
            let cells = keyCells(row) + checks.map { Format.percent(row.checkRates[$0]) }
            out.append("| " + cells.joined(separator: " | ") + " |")
        }
        out.append("")
    }

    /// With repeats, the items whose checks disagree across them, per pair.
    private func instabilitySection(_ out: inout [String]) {
        let instability = RepeatInstability(results, summary: summary)
        guard instability.repeats > 1 else { return }
        out.append("## Instability across repeats")
        out.append("")
        out.append("Each question was asked up to \(instability.repeats) times. Items whose answers passed a check on some repeats and failed it on others, with the share of repeats that passed:")
        out.append("")
        out.append(keyHeader + " unstable | items |")
        out.append(keyRule + "---:|---|")
        for row in instability.rows {
            guard let summaryRow = summary.rows.first(where: { $0.variant == row.variant && $0.maxTokens == row.maxTokens })
            else { continue }
            let items = row.unstable.map { item in
                MarkdownText.cell(item.id) + " (" + item.checks.map { "\(Format.label($0.id)) \(Format.percent($0.passed))" }
                    .joined(separator: ", ") + ")"
            }
            let cells = keyCells(summaryRow) + [
                "\(row.unstable.count) of \(row.repeatedItems)", items.isEmpty ? "–" : items.joined(separator: "; "),
            ]
            out.append("| " + cells.joined(separator: " | ") + " |")
        }
        out.append("")
    }

    /// Reference metrics against the dataset's human references, and readability.
    private func referenceSection(_ out: inout [String]) {
        guard summary.rows.contains(where: { $0.reference != nil || $0.means[ScoreName.readability] != nil }) else {
            return
        }
        out.append("## Reference metrics")
        out.append("")
        out.append("Against the dataset's human references, as pycocoevalcap 1.2 computes them: corpus BLEU-4, mean ROUGE-L (β = 1.2) and mean CIDEr-D (σ = 6, document frequencies over all the run's references), over the answers whose item has references. Flesch reading ease is textstat's formula (higher is easier; 60–70 is plain English).")
        out.append("")
        out.append(keyHeader + " BLEU-4 | ROUGE-L | CIDEr-D | scored | Flesch | hedging |")
        out.append(keyRule + "---:|---:|---:|---:|---:|---:|")
        for row in summary.rows {
            let cells = keyCells(row) + [
                Format.decimal(row.reference?.bleu4, digits: 3), Format.decimal(row.reference?.rougeL, digits: 3),
                Format.decimal(row.reference?.ciderD, digits: 3), row.reference.map { String($0.count) } ?? "–",
                Format.decimal(row.means[ScoreName.readability]), Format.decimal(row.means[ScoreName.hedging], digits: 2),
            ]
            out.append("| " + cells.joined(separator: " | ") + " |")
        }
        out.append("")
    }

    /// The judge: who judged, its mean scores per pair, what its calls gave, its tokens and
    /// cost, and how far it agrees with the references and with itself. Left out when no
    /// answer was judged.
    private func judgeSection(_ out: inout [String]) {
        guard let judge = JudgeSummary(results) else { return }
        out.append("## Judge")
        out.append("")
        out.append(MarkdownText.inline(JudgeReport.who(judge)))
        out.append("")
        out.append(keyHeader + " " + JudgeReport.headers.joined(separator: " | ") + " |")
        out.append(keyRule + "---:|---:|---:|---:|")
        for row in summary.rows {
            out.append("| " + (keyCells(row) + JudgeReport.cells(row)).joined(separator: " | ") + " |")
        }
        out.append("")
        out.append("- " + MarkdownText.inline(JudgeReport.calls(judge)))
        for problem in JudgeReport.problems(judge) { out.append("  - " + MarkdownText.inline(problem)) }
        out.append("- " + MarkdownText.inline(JudgeReport.cost(judge)))
        out.append("- " + MarkdownText.inline(JudgeReport.agreement(judge)))
        for example in JudgeReport.examples(judge) { out.append("  - " + MarkdownText.inline(example)) }
        if let stability = JudgeReport.stability(judge) { out.append("- " + MarkdownText.inline(stability)) }
        out.append("")
    }

    /// Tokens and cost per pair: what the server reported against altbench's estimate for the
    /// same requests, and what they cost. Left out when the run holds no usage at all.
    private func costSection(_ out: inout [String]) {
        guard let cost = CostSummary.make(results) else { return }
        out.append("## Cost")
        out.append("")
        out.append("Tokens are what the server reported for the requests sent; answers from the store sent no request and cost nothing. *Estimated* is altbench's estimate of the input tokens of the same requests, so reported/estimated near 1.00× means the estimate fits. Costs are in USD at the prices recorded with the run.")
        out.append("")
        out.append("| variant | max_tokens | model | sent | cached | prompt tokens | estimated | reported/estimated | completion tokens | cost USD |")
        out.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        func figures(_ figures: CostSummary.Figures) -> [String] {
            [
                Format.count(figures.sent), Format.count(figures.fromStore), Format.count(figures.promptTokens),
                Format.count(figures.estimatedInputTokens), Format.ratio(figures.ratio),
                Format.count(figures.completionTokens), Format.usd(figures.costUSD),
            ]
        }
        for pair in cost.pairs {
            let cells = [
                MarkdownText.cell(pair.variant), Format.tokens(pair.maxTokens), pair.model.map(MarkdownText.cell) ?? "–",
            ] + figures(pair.figures)
            out.append("| " + cells.joined(separator: " | ") + " |")
        }
        out.append("| " + (["**total**", "", ""] + figures(cost.total)).joined(separator: " | ") + " |")
        out.append("")
        for note in cost.notes {
            out.append("- " + MarkdownText.inline(note))
        }
        if !cost.notes.isEmpty { out.append("") }
    }

    private func variantsSection(_ out: inout [String]) {
        out.append("## Variants")
        out.append("")
        // The limits each variant was sent with: the run's `--max-tokens` or `max_tokens:` when
        // set, else the prompt's own; read from the trials so the section shows what was sent.
        var sentLimits: [String: [Int]] = [:]
        for (name, trials) in Dictionary(grouping: results.trials, by: \.variant) {
            let limits = Set(trials.compactMap(\.maxTokens)).sorted()
            if !limits.isEmpty { sentLimits[name] = limits }
        }
        let baseline = results.baselineVariant
        let runLimits = results.info.settings["max_tokens"]?.arrayValue?.compactMap(\.intValue)
        for variant in results.variants where sentLimits[variant.name] == nil {
            if let runLimits, !runLimits.isEmpty { sentLimits[variant.name] = runLimits.sorted() }
        }
        for variant in results.variants {
            // A code span cannot escape a backtick, so a path holding one is shown without it.
            var facts = variant.name == baseline ? ["baseline"] : []
            facts.append("`\(variant.file.replacingOccurrences(of: "`", with: "'").replacingOccurrences(of: "\n", with: " "))`")
            if let model = variant.model { facts.append("model \(MarkdownText.inline(model))") }
            if let limits = sentLimits[variant.name] ?? variant.maxTokens {
                var text = "max_tokens \(limits.map(String.init).joined(separator: ", "))"
                // The run's limits replaced the file's own: say so, so neither is mistaken for the other.
                if let own = variant.maxTokens, own != limits {
                    text += " (the prompt file says \(own.map(String.init).joined(separator: ", ")))"
                }
                facts.append(text)
            }
            if let detail = variant.detail { facts.append("detail \(detail.rawValue)") }
            if let temperature = variant.temperature { facts.append("temperature \(temperature)") }
            if variant.system != nil { facts.append("with a system message") }
            out.append("- **\(MarkdownText.inline(variant.name))** (\(facts.joined(separator: ", "))): “\(MarkdownText.inline(variant.text))”")
            // What the variant tests, under it, so the comparison table can be read against it.
            if let description = variant.description {
                out.append("  - \(MarkdownText.inline(description))")
            }
        }
        out.append("")
    }

    private func failuresSection(_ out: inout [String]) {
        let badItems = results.items.filter { $0.problem != nil }
        if !badItems.isEmpty {
            out.append("## Images that could not be sent")
            out.append("")
            out.append("Their trials failed without a request; the rest of the run went on.")
            out.append("")
            out.append("| item | reason |")
            out.append("|---|---|")
            for item in badItems {
                out.append("| \(MarkdownText.cell(item.id)) | \(MarkdownText.cell(item.problem ?? "")) |")
            }
            out.append("")
        }
        let badIDs = Set(badItems.map(\.id))
        let failed = results.trials.filter { $0.failed && !badIDs.contains($0.itemID) }
        if !failed.isEmpty {
            out.append("## Failed requests")
            out.append("")
            out.append("| variant | max_tokens | item | error |")
            out.append("|---|---:|---|---|")
            for trial in failed {
                out.append("| \(MarkdownText.cell(trial.variant)) | \(Format.tokens(trial.maxTokens)) | \(MarkdownText.cell(trial.itemID)) | \(MarkdownText.cell(trial.error ?? "unknown error")) |")
            }
            out.append("")
        }
    }

    private func imagesSection(_ out: inout [String]) {
        out.append(kind == .run ? "## Per image" : "## Per item")
        out.append("")
        if results.trials.contains(where: { QualityScorer.isFormOnly($0.scores) }) {
            out.append("\(Format.formOnlyMark) form only: the item has no references, must_mention or expected_text and the answer no judge score, so its quality is its form alone.")
            out.append("")
        }
        let byItem = Dictionary(grouping: results.trials, by: \.itemID)
        let showRepeat = results.trials.contains { $0.repeatIndex > 0 }
        let showJudge = results.trials.contains { $0.scores[ScoreName.judgeAccuracy] != nil }
        for item in results.items {
            out.append("### \(MarkdownText.inline(item.id))")
            out.append("")
            // A remote URL is linked as the URL it is; a file path is encoded as a path, so the
            // `?` of a query is kept in one and escaped in the other.
            let target = item.isRemote
                ? MarkdownText.linkTarget(url: item.image)
                : MarkdownText.linkTarget(imageLinkPrefix + MarkdownText.relativePath(to: item.image, from: reportDirectory.path))
            // An image that could not be sent is linked, not embedded: it may not render.
            if !item.image.isEmpty {
                out.append("\(item.problem == nil ? "!" : "")[\(MarkdownText.inline(item.id))](\(target))")
                out.append("")
            }
            var facts: [String] = []
            if let width = item.width, let height = item.height { facts.append("\(width)×\(height)") }
            if let format = item.format { facts.append(format.uppercased()) }
            if item.isRemote { facts.append("remote URL") }
            if !facts.isEmpty { out.append(facts.joined(separator: " · ")) ; out.append("") }
            if let problem = item.problem {
                out.append("**Not sent:** \(MarkdownText.inline(problem))")
                out.append("")
                continue
            }
            for (index, reference) in item.references.enumerated() {
                out.append("Reference\(item.references.count > 1 ? " \(index + 1)" : ""): \(MarkdownText.inline(reference))")
                out.append("")
            }
            out.append(keyHeader + (showRepeat ? " repeat |" : "") + " answer | chars | quality | flags |" + (showJudge ? " judge |" : ""))
            out.append(keyRule + (showRepeat ? "---:|" : "") + "---|---:|---:|---|" + (showJudge ? "---|" : ""))
            let order = Dictionary(results.variants.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            let trials = (byItem[item.id] ?? []).sorted {
                (order[$0.variant] ?? 0, $0.maxTokens ?? Int.max, $0.repeatIndex)
                    < (order[$1.variant] ?? 0, $1.maxTokens ?? Int.max, $1.repeatIndex)
            }
            for trial in trials {
                let answerCell: String
                let chars: String
                let quality: String
                let flags: String
                if let answer = trial.answer {
                    let text = (answer.content ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                    if text.isEmpty, let refusal = answer.refusal {
                        answerCell = "*refused:* " + MarkdownText.cell(refusal)
                    } else {
                        answerCell = text.isEmpty ? Self.emptyCell(answer) : MarkdownText.cell(text)
                    }
                    chars = trial.scores[ScoreName.length].map { String(Int($0.value)) } ?? "–"
                    quality = Format.quality(trial.scores)
                    flags = Format.flags(trial.scores).joined(separator: ", ")
                } else {
                    answerCell = "*error:* " + MarkdownText.cell(trial.error ?? "unknown")
                    chars = "–"
                    quality = "–"
                    flags = "failed"
                }
                var cells = [MarkdownText.cell(trial.variant)]
                if showsTokenLimits { cells.append(Format.tokens(trial.maxTokens)) }
                if showRepeat { cells.append(String(trial.repeatIndex)) }
                cells += [answerCell, chars, quality, flags]
                if showJudge { cells.append(JudgeReport.answer(trial.scores).map(MarkdownText.cell) ?? "–") }
                out.append("| " + cells.joined(separator: " | ") + " |")
            }
            out.append("")
        }
    }

    /// An answer with no visible text. With finish_reason "length" the token limit ran out
    /// first, which reasoning models do when their hidden reasoning spends the whole budget.
    static func emptyCell(_ answer: ModelAnswer) -> String {
        guard answer.finishReason?.lowercased() == "length" else { return "*(empty)*" }
        let reasoning = answer.reasoningTokens.map { ", \($0) of them on reasoning" } ?? ""
        let spent = answer.completionTokens.map { " (\($0) tokens spent\(reasoning))" } ?? ""
        return "*(empty: the token limit ran out before any visible text\(spent))*"
    }
}
