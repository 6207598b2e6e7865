import AltBenchCore
import AltBenchReport
import Foundation

/// `altbench score FILE`: scores alt texts written elsewhere (people, another tool) with the
/// same scorers, settings and tables as a run, so they can be compared with model answers.
package struct ScoreCommand: Sendable {
    package enum OutputFormat: String, Sendable, CaseIterable {
        case md, json
    }

    package var file: String
    package var dataset: String?
    package var format: OutputFormat
    /// `altbench.yml` by default; budgets, weights and hard fails come from it.
    package var configPath: String?
    package var console: Console
    package var workingDirectory: URL

    package init(
        file: String, dataset: String? = nil, format: OutputFormat = .md, configPath: String? = nil,
        console: Console = .standard,
        workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) {
        self.file = file
        self.dataset = dataset
        self.format = format
        self.configPath = configPath
        self.console = console
        self.workingDirectory = workingDirectory
    }

    /// Scores the file and prints the report on stdout; returns what it printed.
    @discardableResult
    package func run() throws -> String {
        let settings = try ConfigFile.load(configPath: configPath, workingDirectory: workingDirectory).scoringSettings()
        let answers = try AnswerFile.load(from: resolve(file), displayPath: file)
        var datasetItems: [String: DatasetItem] = [:]
        var loaded: Dataset?
        if let dataset {
            let data = try DatasetLoader().load(directory: resolve(dataset), displayPath: dataset)
            for item in data.items where datasetItems[item.id] == nil { datasetItems[item.id] = item }
            loaded = data
            let unknown = answers.entries.filter { datasetItems[$0.id] == nil }
            if !unknown.isEmpty {
                let shown = unknown.prefix(5).map { "'\($0.id)' (line \($0.line))" }.joined(separator: ", ")
                console.err("note: \(unknown.count) answer\(unknown.count == 1 ? "" : "s") name\(unknown.count == 1 ? "s" : "") no item of \(dataset): \(shown)\(unknown.count > 5 ? ", ..." : ""); scored with what the file gives.\n")
            }
        }

        // One scoring item per id: the first answer's fields, then the dataset's.
        var itemOrder: [String] = []
        var scoringItems: [String: ScoringItem] = [:]
        for entry in answers.entries where scoringItems[entry.id] == nil {
            scoringItems[entry.id] = entry.scoringItem(dataset: datasetItems[entry.id])
            itemOrder.append(entry.id)
        }
        let corpus = ReferenceCorpus(items: itemOrder.compactMap { scoringItems[$0] })
        let inputs = answers.entries.map { entry in
            ScoringInput(
                content: entry.text, refusal: entry.refusal, finishReason: entry.finishReason, settings: settings,
                item: entry.scoringItem(dataset: datasetItems[entry.id]), corpus: corpus)
        }
        let scores = ScoringSuite.evaluateAll(inputs)

        let results = Self.results(
            answers: answers, scores: scores, items: itemOrder.compactMap { scoringItems[$0] },
            dataset: loaded, settings: settings)
        let output: String
        switch format {
        case .md:
            output = MarkdownReport(
                results: results, reportDirectory: workingDirectory,
                kind: .scoredFile(path: file, dataset: dataset)
            ).render()
        case .json:
            var everything = results
            for index in everything.trials.indices { everything.trials[index].variant = "all" }
            everything.variants = [PromptVariant(name: "all", file: file, text: "")]
            let items = zip(answers.entries, scores).map { entry, scores in
                ScoreJSON.Item(id: entry.id, variant: entry.variant, line: entry.line, scores: scores)
            }
            output = ScoreJSON.render(
                items: items, summary: RunSummary(results), overall: RunSummary(everything).rows.first)
        }
        console.out(output)
        return output
    }

    /// The scored file as a run's results, so the run's tables render it: one "variant" per
    /// group of the file, no token limit, every answer answered.
    static func results(
        answers: AnswerFile, scores: [[Score]], items: [ScoringItem], dataset: Dataset?, settings: ScoringSettings
    ) -> RunResults {
        var variantNames: [String] = []
        for entry in answers.entries where !variantNames.contains(entry.variant) { variantNames.append(entry.variant) }
        let images = Dictionary(
            (dataset?.items ?? []).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let resultItems = items.map { item -> RunResults.Item in
            var image = ""
            var isRemote = false
            switch images[item.id]?.image {
            case .file(_, let url)?: image = url.standardizedFileURL.path
            case .remote(let url)?:
                image = url.absoluteString
                isRemote = true
            case nil: break
            }
            return RunResults.Item(
                id: item.id, image: image, isRemote: isRemote, references: item.references, context: item.context,
                lang: item.lang, expectedText: item.expectedText, mustMention: item.mustMention)
        }
        let trials = zip(answers.entries, scores).map { entry, scores in
            RunResults.TrialRow(
                variant: entry.variant, maxTokens: nil, itemID: entry.id, repeatIndex: 0,
                answer: ModelAnswer(content: entry.text, refusal: entry.refusal, finishReason: entry.finishReason),
                scores: ScoreSet(scores))
        }
        var recorded = settings.recorded
        recorded["source"] = .string(answers.displayPath)
        let info = RunResults.Info(
            id: "score", startedAt: Date(), finishedAt: Date(), status: "finished", provider: .openai,
            providerReason: "scored from \(answers.displayPath)", endpoint: "", datasetPath: dataset?.path ?? "",
            promptsPath: "", settings: .object(recorded))
        return RunResults(
            info: info, variants: variantNames.map { PromptVariant(name: $0, file: answers.displayPath, text: "") },
            items: resultItems, trials: trials, plannedTrials: trials.count)
    }

    func resolve(_ path: String) -> URL {
        URL.resolving(path, against: workingDirectory)
    }
}
