import Foundation

/// The scorers altbench runs on every answer, and the way to run them.
public enum ScoringSuite {
    /// Every per-answer scorer, in the order their scores are reported. The composite
    /// `form`, `content` and `quality` are computed from their scores by
    /// ``evaluate(_:scorers:)``.
    public static let standard: [any Scorer] = [
        EmptyScorer(),
        LengthScorer(),
        BrevityScorer(),
        OverLimitScorer(),
        FirstPersonScorer(),
        PerceptionMetaScorer(),
        RedundantPrefixScorer(),
        MetaLabelScorer(),
        RefusalScorer(),
        TruncationScorer(),
        TerminalPunctuationScorer(),
        FilenameScorer(),
        MarkdownScorer(),
        EmojiScorer(),
        SocialTokensScorer(),
        HedgingScorer(),
        ReadabilityScorer(),
        TextRecallScorer(),
        KeywordRecallScorer(),
        ContextEchoScorer(),
        Bleu4Scorer(),
        RougeLScorer(),
        CiderDScorer(),
        ReferenceMatchScorer(),
    ]

    /// Every score of `scorers` on `input`, in scorer order, then `form`, `content` and
    /// `quality` over them (``QualityScorer/combine(_:settings:)``).
    ///
    /// Names are unique in the result, because the store keeps one value per name: should two
    /// scorers write the same name, the first one's score is kept. A scorer that writes one of
    /// the halves or `quality` itself keeps it, and the composite is not computed.
    public static func evaluate(_ input: ScoringInput, scorers: [any Scorer] = standard) -> [Score] {
        var seen: Set<String> = []
        var scores: [Score] = []
        scores.reserveCapacity(scorers.count + 4)
        for scorer in scorers {
            for score in scorer.score(input) where seen.insert(score.name).inserted {
                scores.append(score)
            }
        }
        if !seen.contains(ScoreName.quality) {
            for score in QualityScorer.combine(scores, settings: input.settings) where !seen.contains(score.name) {
                scores.append(score)
            }
        }
        return scores
    }

    /// Every input's scores, in input order, scored in parallel: the scorers are pure, so
    /// chunks of inputs go to all cores (`threads` caps them; 1 scores on the calling thread).
    public static func evaluateAll(
        _ inputs: [ScoringInput], scorers: [any Scorer] = standard, threads: Int? = nil
    ) -> [[Score]] {
        let workers = max(1, min(threads ?? ProcessInfoCores.active, inputs.count))
        guard workers > 1 else { return inputs.map { evaluate($0, scorers: scorers) } }
        let chunk = (inputs.count + workers - 1) / workers
        return [[Score]](unsafeUninitializedCapacity: inputs.count) { buffer, initialized in
            // Each worker initializes its own range of slots; none is read before all are done.
            let slots = Slots(base: buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                for index in (worker * chunk)..<min(inputs.count, (worker + 1) * chunk) {
                    (slots.base + index).initialize(to: evaluate(inputs[index], scorers: scorers))
                }
            }
            initialized = inputs.count
        }
    }
}

/// The number of cores the scorers may use.
enum ProcessInfoCores {
    static var active: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}

/// The result buffer parallel workers fill at distinct indices.
private struct Slots: @unchecked Sendable {
    let base: UnsafeMutablePointer<[Score]>
}
