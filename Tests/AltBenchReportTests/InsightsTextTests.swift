@testable import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

/// The opening answer never calls a variant best without a lead: not when its lead is 0.00 at
/// the precision shown, nor when its mean lies inside every other variant's interval.
@Suite("The answer: a best variant only with a lead")
struct InsightsTextTests {
    typealias F = ReportFixtures

    static let terse = PromptVariant(name: "terse", file: "prompts/terse.md", text: "Describe.", maxTokens: [50])
    static let wordy = PromptVariant(name: "wordy", file: "prompts/wordy.md", text: "Describe in detail.", maxTokens: [50])

    /// Items `0..<count`, each with a reference.
    static func items(_ count: Int) -> [RunResults.Item] {
        (0..<count).map { index in
            RunResults.Item(
                id: String(format: "item%02d", index), image: "\(F.project)/datasets/sample/\(index).png", isRemote: false,
                references: ["A picture."])
        }
    }

    /// A run of `terse` and `wordy` at max_tokens 50 whose answers' `reference_match` are
    /// `terse` and `wordy`, item by item.
    static func run(terse: [Double], wordy: [Double]) -> RunResults {
        let items = Self.items(terse.count)
        var trials: [RunResults.TrialRow] = []
        for (variant, matches) in [(Self.terse, terse), (Self.wordy, wordy)] {
            for (item, match) in zip(items, matches) {
                trials.append(F.answered(variant, 50, item, "A picture.", scores: F.scores(chars: 10, match: match)))
            }
        }
        return RunResults(info: F.info(), variants: [Self.terse, Self.wordy], items: items, trials: trials, plannedTrials: trials.count)
    }

    static func standing(_ variant: String, _ mean: Double, _ low: Double, _ high: Double) -> RunInsights.Standing {
        RunInsights.Standing(variant: variant, meanQuality: mean, low: low, high: high, images: 20)
    }

    @Test("ahead only with a lead above 0.00 and a mean outside some other variant's interval", arguments: [
        // A clear lead.
        (0.80, [(0.50, 0.40, 0.60)], true),
        // A lead of 0.004 shows as 0.00.
        (0.664, [(0.660, 0.20, 0.60)], false),
        // Both means show as 0.66.
        (0.6649, [(0.6551, 0.20, 0.60)], false),
        // Inside the runner-up's interval, the only other variant.
        (0.70, [(0.60, 0.50, 0.75)], false),
        // Inside the runner-up's interval, but outside the third's: ahead of that one.
        (0.70, [(0.60, 0.50, 0.75), (0.40, 0.30, 0.50)], true),
        // No other variant.
        (0.70, [], false),
    ] as [(Double, [(Double, Double, Double)], Bool)])
    func isAhead(top: Double, others: [(Double, Double, Double)], ahead: Bool) {
        let rivals = others.enumerated().map { Self.standing("v\($0.offset)", $0.element.0, $0.element.1, $0.element.2) }
        #expect(RunInsights.isAhead(Self.standing("top", top, top - 0.05, top + 0.05), others: rivals) == ahead)
    }

    @Test("identical answers: no variant is ahead, the line names both with their figures, and no ★")
    func identicalVariants() throws {
        let matches = (0..<12).map { Double($0 % 4) / 4 }
        let results = Self.run(terse: matches, wordy: matches)
        let insights = RunInsights(results)
        let best = try #require(insights.best.first)
        #expect(!best.ahead)
        let line = InsightsText.best(best)
        #expect(line.hasPrefix("No variant is ahead at max_tokens 50: terse "), "\(line)")
        #expect(line.contains(", wordy "))
        #expect(!line.contains("scores best"))
        #expect(line.contains("95% CI"))
        let matrix = InsightsText.matrix(insights, summary: RunSummary(results), variants: ["terse", "wordy"], limits: [50])
        #expect(!matrix.rows.flatMap { $0 }.contains { $0.contains("★") })
        let markdown = MarkdownReport(results: results, reportDirectory: F.runsDirectory).render()
        #expect(markdown.contains("- No variant is ahead at max\\_tokens 50: terse "), "\(markdown)")
        #expect(!markdown.contains("scores best"))
        let html = HTMLReport(results: results, reportDirectory: F.runsDirectory).render()
        #expect(html.contains("No variant is ahead at max_tokens 50: terse "))
        #expect(!html.contains("★</td>"), "no cell is marked best")
    }

    @Test("a real lead: the variant is called best and marked ★")
    func realLead() throws {
        let results = Self.run(terse: [Double](repeating: 0.9, count: 12), wordy: [Double](repeating: 0.2, count: 12))
        let insights = RunInsights(results)
        let best = try #require(insights.best.first)
        #expect(best.ahead)
        #expect(best.variant == "terse")
        #expect(InsightsText.best(best).hasPrefix("At max_tokens 50, terse scores best: quality 0.90"))
        let matrix = InsightsText.matrix(insights, summary: RunSummary(results), variants: ["terse", "wordy"], limits: [50])
        #expect(matrix.rows[0][1].hasSuffix("★"))
        #expect(!matrix.rows[1][1].contains("★"))
    }

    @Test("more than three variants level: the top three are named and the rest counted")
    func topFew() {
        let ranking = ["a", "b", "c", "d", "e"].map { Self.standing($0, 0.5, 0.3, 0.7) }
        var best = RunInsights.Best(
            maxTokens: nil, variant: "a", meanQuality: 0.5, low: 0.3, high: 0.7, images: 20, tiedWith: ["b", "c", "d", "e"])
        best.ranking = ranking
        best.ahead = false
        #expect(
            InsightsText.best(best)
                == "No variant is ahead at no token limit: a 0.50 (95% CI 0.30–0.70), b 0.50 (95% CI 0.30–0.70), c 0.50 (95% CI 0.30–0.70) and 2 more.")
    }
}
