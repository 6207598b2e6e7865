import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

/// Hand-built runs for report tests. Scores are written out rather than computed by the
/// scorers, so a change to a scorer's rule does not change what these tests check.
enum ReportFixtures {
    static let project = "/home/ada/alt text/project"
    static let resultsDirectory = URL(fileURLWithPath: "\(project)/results")
    static let runsDirectory = URL(fileURLWithPath: "\(project)/results/runs")
    /// 2026-01-01 00:00:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    static func info(
        provider: Provider = .openai, status: String = "finished", statusMessage: String? = nil,
        finishedAfter seconds: TimeInterval? = 125
    ) -> RunResults.Info {
        RunResults.Info(
            id: "20260101-000000-abcd", startedAt: start, finishedAt: seconds.map { start.addingTimeInterval($0) },
            status: status, statusMessage: statusMessage, provider: provider,
            providerReason: provider == .mock ? "--provider mock" : "OPENAI_API_KEY is set",
            endpoint: "https://api.openai.com/v1/chat/completions", datasetPath: "datasets/sample",
            promptsPath: "prompts", settings: settings, version: "0.1.0")
    }

    /// The settings runs record: the brevity budget, and the list prices (USD per million
    /// tokens) of the fixtures' two models with a spending limit, as a run with `--max-cost 1`
    /// records them.
    static let settings: JSONValue = [
        "brevity_budget": 150, "max_cost": 1,
        "prices": [
            "gpt-4o": ["input": 2.5, "cached_input": 1.25, "output": 10],
            "gpt-4o-mini": ["input": 0.15, "cached_input": 0.075, "output": 0.6],
        ],
    ]

    /// USD for one request at list prices: what the runner records as a trial's cost.
    static func cost(_ model: String, prompt: Int, completion: Int) -> Double {
        let (input, output) = model == "gpt-4o-mini" ? (0.15, 0.6) : (2.5, 10.0)
        return (Double(prompt) * input + Double(completion) * output) / 1_000_000
    }

    static let short = PromptVariant(
        name: "short", file: "prompts/short.md", text: "Describe the image in one sentence.\nBe brief.",
        model: "gpt-4o-mini", maxTokens: [60, 120], detail: .low, temperature: 0.2, system: "You write alt text.",
        description: "Asking for one sentence keeps answers under the brevity budget.")
    static let plain = PromptVariant(name: "plain", file: "prompts/plain.md", text: "Write alt text for this image.")

    static let cat = RunResults.Item(
        id: "cat", image: "\(project)/datasets/sample/cat.png", isRemote: false, width: 640, height: 480,
        format: "png", references: ["A grey cat asleep on a windowsill."])
    static let beach = RunResults.Item(
        id: "beach", image: "\(project)/datasets/sample/beach day (1).jpg", isRemote: false, width: 1024,
        height: 768, format: "jpeg", references: ["Two children build a sandcastle.", "Kids at the beach."])
    static let remote = RunResults.Item(
        id: "remote", image: "https://files.example.test/media/a%20b.png?width=600&format=png", isRemote: true,
        references: [])
    static let broken = RunResults.Item(
        id: "broken", image: "\(project)/datasets/sample/broken.png", isRemote: false,
        problem: "broken.png is not an image (its first bytes match no image format): replace it with a PNG, JPEG, WEBP or GIF file.")

    /// The scores the summary and the flags column read, for an answer of `chars` characters;
    /// `match` adds a `reference_match`, so that `quality` has a content half (without it,
    /// quality is form only).
    static func scores(
        chars: Int, budget: Int = 150, empty: Bool = false, firstPerson: Bool = false, truncated: Bool = false,
        refusal: Bool = false, redundantPrefix: Bool = false, match: Double? = nil
    ) -> ScoreSet {
        var list = [
            Score.flag(ScoreName.empty, empty),
            Score(name: ScoreName.length, value: Double(chars)),
            Score(name: ScoreName.words, value: Double(chars / 5)),
            Score(name: ScoreName.brevity, value: chars <= budget ? 1 : 0.9, passed: chars <= budget),
            Score.flag(ScoreName.overLimit, false),
            Score.flag(ScoreName.firstPerson, firstPerson, detail: "I"),
            Score.flag(ScoreName.truncated, truncated, detail: "finish_reason length"),
            Score.flag(ScoreName.refusal, refusal, detail: "can't"),
            Score.flag(ScoreName.redundantPrefix, redundantPrefix, detail: "image of"),
        ]
        if let match { list.append(Score(name: ScoreName.referenceMatch, value: match, detail: "best: reference 1")) }
        let halves = QualityScorer.combine(list, settings: ScoringSettings(brevityBudget: budget))
        return ScoreSet(list + halves)
    }

    static func answered(
        _ variant: PromptVariant, _ maxTokens: Int?, _ item: RunResults.Item, _ content: String?,
        refusal: String? = nil, completionTokens: Int? = nil, latencyMs: Double = 800, cached: Bool = false,
        repeatIndex: Int = 0, scores: ScoreSet, usage: Usage? = nil
    ) -> RunResults.TrialRow {
        let model = variant.model ?? "gpt-4o"
        var row = RunResults.TrialRow(
            variant: variant.name, maxTokens: maxTokens, itemID: item.id, repeatIndex: repeatIndex,
            model: model,
            answer: ModelAnswer(
                content: content, refusal: refusal, finishReason: "stop", promptTokens: usage?.prompt,
                completionTokens: completionTokens, latencyMs: latencyMs),
            cached: cached, scores: scores)
        if let usage {
            row.estimatedInputTokens = usage.estimated
            row.estimatedImageTokens = usage.estimatedImage
            // What the runner records: 0 for an answer from the store, nothing without usage.
            if cached {
                row.costUSD = 0
            } else if let prompt = usage.prompt {
                row.costUSD = cost(model, prompt: prompt, completion: completionTokens ?? 0)
            }
        }
        return row
    }

    /// The prompt tokens a server reported (`nil`: none) and the plan's estimate for the request.
    struct Usage {
        var prompt: Int?
        var estimated: Int
        var estimatedImage: Int
    }

    /// gpt-4o-mini at `detail: low`: 2,833 image tokens whatever the size, 38 of text (the
    /// server counts 40).
    static let miniLow = Usage(prompt: 2_873, estimated: 2_871, estimatedImage: 2_833)

    static func failed(
        _ variant: PromptVariant, _ maxTokens: Int?, _ item: RunResults.Item, error: String?, repeatIndex: Int = 0,
        usage: Usage? = nil
    ) -> RunResults.TrialRow {
        var row = RunResults.TrialRow(
            variant: variant.name, maxTokens: maxTokens, itemID: item.id, repeatIndex: repeatIndex,
            model: item.problem == nil ? variant.model ?? "gpt-4o" : nil, answer: nil, error: error)
        row.estimatedInputTokens = usage?.estimated
        row.estimatedImageTokens = usage?.estimatedImage
        return row
    }

    static let longAnswer =
        "A wide sandy beach under a pale sky, where two children in striped swimsuits kneel beside a tall sandcastle with four towers, a moat, and a flag made from a twig and a leaf."

    /// A run with something of everything: a cached answer, a truncated one, Markdown and HTML
    /// in answers, a refusal, an empty answer, a failed request, a remote image and a bad one.
    ///
    /// Usage as a real run records it: the tokens the server reported, the plan's estimate and
    /// the cost at list prices. gpt-4o (`plain`, detail auto) counts 425 image tokens for the
    /// 640×480 cat and 765 for the 1024×768 beach; the remote image of unknown size is estimated
    /// at the most it can cost (1,105) and turns out small, so that pair's estimate misses. One
    /// answer reported no usage at all, as some proxies do.
    static func fullRun(info: RunResults.Info = info()) -> RunResults {
        let trials: [RunResults.TrialRow] = [
            answered(
                short, 60, cat, "I see a grey cat on a", completionTokens: 60, latencyMs: 15_000,
                scores: scores(chars: 21, firstPerson: true, truncated: true, match: 0.4), usage: miniLow),
            answered(
                short, 120, cat, "A grey cat asleep on a windowsill.", completionTokens: 11, latencyMs: 700,
                cached: true, scores: scores(chars: 34, match: 0.8), usage: miniLow),
            answered(
                plain, nil, cat, "Image of a cat | sleeping\r\nin the *sun* <b>bold</b> [link](http://x) `code`",
                completionTokens: 25, latencyMs: 1200, scores: scores(chars: 71, redundantPrefix: true, match: 0.5),
                usage: Usage(prompt: 441, estimated: 439, estimatedImage: 425)),
            failed(
                short, 60, beach, error: "HTTP 500: The server had an error while processing your request.",
                usage: miniLow),
            answered(
                short, 120, beach, nil, refusal: "I can't help with that.", completionTokens: 7, latencyMs: 400,
                scores: scores(chars: 0, empty: true, refusal: true, match: 0), usage: miniLow),
            answered(
                plain, nil, beach, "  \n", completionTokens: 1, latencyMs: 300, scores: scores(chars: 0, empty: true, match: 0),
                usage: Usage(prompt: 781, estimated: 781, estimatedImage: 765)),
            answered(
                short, 60, remote, "A chart of rising sales.", completionTokens: 8, latencyMs: 12_500,
                scores: scores(chars: 24), usage: miniLow),
            answered(
                short, 120, remote, "A bar chart of rising sales, 2019 to 2024.", latencyMs: 650, scores: scores(chars: 42),
                usage: Usage(prompt: nil, estimated: 2_871, estimatedImage: 2_833)),
            answered(
                plain, nil, remote, longAnswer, completionTokens: 40, latencyMs: 2000, scores: scores(chars: 171),
                usage: Usage(prompt: 441, estimated: 1_121, estimatedImage: 1_105)),
            failed(short, 60, broken, error: broken.problem),
            failed(short, 120, broken, error: broken.problem),
            failed(plain, nil, broken, error: broken.problem),
        ]
        return RunResults(
            info: info, variants: [short, plain], items: [cat, beach, remote, broken], trials: trials,
            plannedTrials: 12)
    }
}

/// Reads GFM tables the way GitHub does: a row is one line, split on every `|` that no
/// backslash escapes, without the outer pipes.
enum GFMTable {
    static func cells(_ row: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var escaped = false
        var endsWithSeparator = false
        // Unicode scalars, as cmark-gfm reads bytes: a `|` with a combining mark after it
        // still ends a cell.
        for character in row.unicodeScalars {
            endsWithSeparator = false
            if escaped {
                current.unicodeScalars.append(character)
                escaped = false
            } else if character == "\\" {
                current.unicodeScalars.append(character)
                escaped = true
            } else if character == "|" {
                cells.append(current)
                current = ""
                endsWithSeparator = true
            } else {
                current.unicodeScalars.append(character)
            }
        }
        cells.append(current)
        if row.hasPrefix("|") { cells.removeFirst() }
        if endsWithSeparator { cells.removeLast() }
        return cells.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Every table in a Markdown document: runs of consecutive lines that start with `|`.
    static func tables(in markdown: String) -> [[String]] {
        var tables: [[String]] = []
        var current: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("|") {
                current.append(line)
            } else if !current.isEmpty {
                tables.append(current)
                current = []
            }
        }
        if !current.isEmpty { tables.append(current) }
        return tables
    }

    /// The table whose header row is `header`, as rows of cells (header and delimiter excluded).
    static func rows(in markdown: String, header: String) -> [[String]]? {
        tables(in: markdown).first { $0.first == header }.map { $0.dropFirst(2).map(cells) }
    }

    /// Checks that every row of every table has as many cells as its header and that the
    /// second line is a delimiter row.
    static func expectWellFormed(_ markdown: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!markdown.contains("\r"), "a carriage return ends a Markdown line", sourceLocation: sourceLocation)
        for table in tables(in: markdown) {
            let width = cells(table[0]).count
            #expect(table.count >= 2, "table without delimiter row: \(table[0])", sourceLocation: sourceLocation)
            if table.count >= 2 {
                let delimiter = cells(table[1])
                #expect(
                    delimiter.allSatisfy { $0.range(of: #"^:?-{3,}:?$"#, options: .regularExpression) != nil },
                    "not a delimiter row: \(table[1])", sourceLocation: sourceLocation)
            }
            for row in table {
                #expect(
                    cells(row).count == width, "\(cells(row).count) cells, header has \(width): \(row)",
                    sourceLocation: sourceLocation)
            }
        }
    }
}
