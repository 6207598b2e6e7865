import Foundation
import Testing

@testable import AltBenchCore

@Suite("JudgeSummary: the judge's calls, cost, agreement with the references and stability")
struct JudgeSummaryTests {
    static func row(
        _ repeatIndex: Int = 0, accuracy: Int?, completeness: Int? = 4, concision: Int? = 4,
        status: RunResults.JudgementRow.Status = .judged, cached: Bool = false, error: String? = nil,
        cost: Double? = 0.001
    ) -> RunResults.JudgementRow {
        RunResults.JudgementRow(
            repeatIndex: repeatIndex, model: "gpt-4o", endpoint: "http://127.0.0.1:1/v1/chat/completions",
            rubric: "judges/alt-text.md", rubricSHA256: "ab", cacheKey: "judge-v1:\(repeatIndex)", status: status,
            cached: cached, accuracy: status == .judged ? accuracy : nil, completeness: status == .judged ? completeness : nil,
            concision: status == .judged ? concision : nil, error: error, promptTokens: cached ? nil : 900,
            completionTokens: cached ? nil : 30, costUSD: cached ? 0 : cost)
    }

    static func trial(
        _ index: Int, reference: Double?, keywords: Double? = nil, judgements: [RunResults.JudgementRow]
    ) -> RunResults.TrialRow {
        var scores: ScoreSet = [:]
        if let reference { scores[ScoreName.referenceMatch] = Score(name: ScoreName.referenceMatch, value: reference) }
        if let keywords { scores[ScoreName.keywordRecall] = Score(name: ScoreName.keywordRecall, value: keywords) }
        var trial = RunResults.TrialRow(
            variant: "v", maxTokens: 50, itemID: "item-\(index)", repeatIndex: 0,
            answer: ModelAnswer(content: "A cat on a sofa."), scores: scores)
        trial.judgements = judgements
        return trial
    }

    static func results(_ trials: [RunResults.TrialRow]) -> RunResults {
        RunResults(
            info: RunResults.Info(
                id: "r", startedAt: Date(timeIntervalSince1970: 0), status: "finished", provider: .openai,
                providerReason: "test", endpoint: "e", datasetPath: "d", promptsPath: "p",
                settings: ["judge": ["model": "gpt-4o", "rubric": "judges/alt-text.md"]]),
            variants: [], items: [], trials: trials, plannedTrials: trials.count)
    }

    @Test("agreement and Cohen's kappa on a 2×2 split: 20 both accept, 15 both reject, 10 and 5 apart")
    func kappa() throws {
        var trials: [RunResults.TrialRow] = []
        func add(_ count: Int, accuracy: Int, reference: Double) {
            for _ in 0..<count { trials.append(Self.trial(trials.count, reference: reference, judgements: [Self.row(accuracy: accuracy)])) }
        }
        add(20, accuracy: 5, reference: 0.9)  // both accept
        add(15, accuracy: 1, reference: 0.1)  // both reject
        add(10, accuracy: 2, reference: 0.8)  // the judge rejects what the references accept
        add(5, accuracy: 4, reference: 0.2)  // the judge accepts what the references reject
        add(7, accuracy: 3, reference: 0.9)  // undecided: not counted
        let agreement = try #require(JudgeSummary(Self.results(trials))?.agreement)
        #expect(agreement.answers == 50)
        #expect((agreement.bothAccept, agreement.bothReject, agreement.judgeRejects, agreement.judgeAccepts) == (20, 15, 10, 5))
        #expect(abs(agreement.rate - 0.7) < 1e-12)
        // Chance: the judge accepts 25/50, the references 30/50: 0.5 × 0.6 + 0.5 × 0.4 = 0.5.
        #expect(abs(try #require(agreement.kappa) - 0.4) < 1e-12)
        #expect(agreement.examples.count == 5)
        #expect(agreement.examples.allSatisfy { ($0.accuracy >= 4) != ($0.reference >= 0.5) })
    }

    @Test("keyword_recall stands for the references when an item has none; neither leaves the answer out")
    func referenceFallback() throws {
        let trials = [
            Self.trial(0, reference: nil, keywords: 1, judgements: [Self.row(accuracy: 5)]),
            Self.trial(1, reference: nil, keywords: 0, judgements: [Self.row(accuracy: 5)]),
            Self.trial(2, reference: nil, judgements: [Self.row(accuracy: 1)]),
        ]
        let agreement = try #require(JudgeSummary(Self.results(trials))?.agreement)
        #expect(agreement.answers == 2)
        #expect(agreement.examples.map(\.referenceScore) == [ScoreName.keywordRecall])
    }

    @Test("calls, problems, tokens and cost: cached calls cost nothing, an unknown cost makes the total unknown")
    func callsAndCost() throws {
        let trials = [
            Self.trial(0, reference: 0.9, judgements: [Self.row(accuracy: 5, cost: 0.002)]),
            Self.trial(1, reference: 0.9, judgements: [Self.row(accuracy: 5, cached: true)]),
            Self.trial(2, reference: 0.9, judgements: [Self.row(accuracy: nil, status: .unreadable, error: "no JSON")]),
            Self.trial(3, reference: 0.9, judgements: [Self.row(accuracy: nil, status: .failed, error: "HTTP 500")]),
            Self.trial(4, reference: 0.9, judgements: [Self.row(accuracy: nil, status: .unreadable, error: "no JSON")]),
            Self.trial(5, reference: 0.9, judgements: []),
        ]
        let summary = try #require(JudgeSummary(Self.results(trials)))
        #expect((summary.judged, summary.unreadable, summary.failed, summary.cached) == (2, 2, 1, 1))
        #expect(summary.unjudgedAnswers == 1)
        #expect(summary.problems == [.init(reason: "no JSON", count: 2), .init(reason: "HTTP 500", count: 1)])
        #expect(summary.promptTokens == 4 * 900)
        #expect(summary.completionTokens == 4 * 30)
        #expect(abs(try #require(summary.costUSD) - (0.002 + 0.001 + 0.001)) < 1e-12)
        #expect(summary.model == "gpt-4o" && !summary.isMock)

        var unknown = trials
        unknown[0].judgements = [Self.row(accuracy: 5, cost: nil)]
        #expect(JudgeSummary(Self.results(unknown))?.costUSD == nil)
        #expect(JudgeSummary(Self.results([Self.trial(0, reference: 1, judgements: [])])) == nil)
    }

    @Test("stability over repeats: exact agreement per count and the accuracy spread")
    func stability() throws {
        let trials = [
            Self.trial(0, reference: 1, judgements: [Self.row(0, accuracy: 5), Self.row(1, accuracy: 5), Self.row(2, accuracy: 5)]),
            Self.trial(1, reference: 1, judgements: [Self.row(0, accuracy: 5), Self.row(1, accuracy: 3, concision: 2), Self.row(2, accuracy: 4)]),
            // One readable verdict: not counted.
            Self.trial(2, reference: 1, judgements: [Self.row(0, accuracy: 5), Self.row(1, accuracy: nil, status: .unreadable)]),
        ]
        let stability = try #require(JudgeSummary(Self.results(trials))?.stability)
        #expect(stability.answers == 2 && stability.repeats == 3)
        #expect(stability.sameAccuracy == 0.5 && stability.sameCompleteness == 1 && stability.sameConcision == 0.5)
        #expect(stability.meanAccuracySpread == 1)
        #expect(JudgeSummary(Self.results([Self.trial(0, reference: 1, judgements: [Self.row(accuracy: 5)])]))?.stability == nil)
    }
}
