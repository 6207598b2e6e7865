/// Precision and recall of altbench's detectors on a labelled corpus (``DetectorCorpus``).
///
/// Every text is scored as `altbench score` would score an answer with no finish reason: the
/// truncation figure is the text rule's alone, never `finish_reason` "length". The language
/// is passed to the scorers only when `withLanguage` is set, so the default figures are for
/// text whose language nobody declared, as most answers are.
package struct DetectorValidity: Sendable {
    /// Counts for one label over a set of texts.
    package struct Counts: Sendable, Hashable {
        package var truePositives = 0
        package var falsePositives = 0
        package var falseNegatives = 0
        package var trueNegatives = 0

        package init() {}

        /// Texts labelled positive.
        package var positives: Int { truePositives + falseNegatives }
        /// Flagged ÷ flagged correctly; `nil` when nothing was flagged.
        package var precision: Double? {
            truePositives + falsePositives == 0 ? nil : Double(truePositives) / Double(truePositives + falsePositives)
        }
        /// Found ÷ labelled; `nil` when nothing is labelled.
        package var recall: Double? { positives == 0 ? nil : Double(truePositives) / Double(positives) }

        mutating func add(labelled: Bool, flagged: Bool) {
            switch (labelled, flagged) {
            case (true, true): truePositives += 1
            case (false, true): falsePositives += 1
            case (true, false): falseNegatives += 1
            case (false, false): trueNegatives += 1
            }
        }
    }

    /// A text a detector got wrong, for reading the rules' gaps.
    package struct Miss: Sendable, Hashable {
        package var label: String
        /// `true` when the text was flagged without the label, `false` when the label was missed.
        package var falsePositive: Bool
        package var entry: DetectorCorpus.Entry
        /// The detectors' evidence, when they flagged.
        package var detail: String?
    }

    /// Counts per label over the whole corpus.
    package var overall: [String: Counts]
    /// Counts per language, then per label.
    package var byLanguage: [String: [String: Counts]]
    package var misses: [Miss]

    /// Scores every text of `corpus` with the detectors it labels for.
    package static func measure(_ corpus: DetectorCorpus, withLanguage: Bool = false) -> DetectorValidity {
        var overall: [String: Counts] = [:]
        var byLanguage: [String: [String: Counts]] = [:]
        var misses: [Miss] = []
        let scorers: [any Scorer] = [
            FirstPersonScorer(), PerceptionMetaScorer(), RedundantPrefixScorer(), MetaLabelScorer(), RefusalScorer(),
            TruncationScorer(), MarkdownScorer(),
        ]
        for entry in corpus.entries {
            let input = ScoringInput(
                content: entry.text, item: ScoringItem(id: entry.id, lang: withLanguage ? entry.lang : nil))
            var flags: ScoreSet = [:]
            for scorer in scorers {
                for score in scorer.score(input) { flags[score.name] = score }
            }
            for label in DetectorCorpus.labels {
                let detectors = DetectorCorpus.detectors[label] ?? []
                let flagging = detectors.compactMap { flags[$0] }.first(where: \.isFlagged)
                let labelled = entry.labels.contains(label)
                overall[label, default: Counts()].add(labelled: labelled, flagged: flagging != nil)
                byLanguage[entry.lang, default: [:]][label, default: Counts()]
                    .add(labelled: labelled, flagged: flagging != nil)
                if labelled != (flagging != nil) {
                    misses.append(Miss(label: label, falsePositive: !labelled, entry: entry, detail: flagging?.detail))
                }
            }
        }
        return DetectorValidity(overall: overall, byLanguage: byLanguage, misses: misses)
    }
}
