import Foundation

/// Whether `quality` separates a wrong description from a right one on a dataset, with given
/// settings: the check behind the default weights, run by a unit test and by
/// `altbench-bench calibration` on the bundled sample.
///
/// Two figures:
/// - **wrong**: the same fluent, well-formed sentence given for every image ("A cat sits on
///   a sofa by the window."), scored against each item as it is; its mean `quality` over the
///   items, per sentence. A style-only composite gives such an answer about 0.67.
/// - **correct**: a correct short description, namely each of an item's references in
///   turn, scored with the item's other references as its references (`must_mention` and
///   `expected_text` kept); the mean `quality` over every (item, reference) pair. Items with
///   fewer than two references are left out, as their one reference has nothing to be
///   scored against.
///
/// The bounds the defaults are held to: every wrong sentence ≤ ``wrongBound`` on average,
/// correct ≥ ``correctBound``.
public enum QualityCalibration {
    /// Wrong answers a fake or broken model gives for every image.
    public static let wrongSentences = [
        "A cat sits on a sofa by the window.",
        "A test description of the image.",
        "A person smiling at the camera in a park.",
    ]

    /// The highest mean `quality` a wrong sentence may have.
    public static let wrongBound = 0.35
    /// The lowest mean `quality` the references, scored against one another, may have.
    public static let correctBound = 0.75
    /// The lowest mean `quality` a correct description by another author than the references'
    /// (`Tests/Corpus/sample-independent.jsonl`, written from the images) may have.
    public static let independentBound = 0.6

    /// The independent descriptions' figures: another author's correct alt text per item.
    public struct Independent: Sendable, Hashable {
        public var quality: Double
        public var content: Double
        public var count: Int
    }

    /// One wrong sentence's figures.
    public struct Wrong: Sendable, Hashable {
        public var sentence: String
        /// Mean `quality` over the items.
        public var quality: Double
        public var form: Double
        /// Mean `content` over the items that have a content score.
        public var content: Double?
    }

    /// The figures of one dataset under one set of settings.
    public struct Figures: Sendable, Hashable {
        public var wrong: [Wrong]
        /// Mean `quality` of the references scored against one another.
        public var correct: Double
        /// The same, by the reference's position in the items' `references` (1 first), for
        /// the sample: the full description, the one of at most 150 characters, the one of
        /// at most 80.
        public var correctByPosition: [Double]
        /// Items scored with a wrong sentence, and (item, reference) pairs scored as correct.
        public var items: Int
        public var pairs: Int
        /// Mean `quality` and `content` of the independent descriptions, scored against all
        /// of each item's references; `nil` when none was given.
        public var independent: Independent? = nil

        /// The highest mean of the wrong sentences.
        public var worstWrong: Double { wrong.map(\.quality).max() ?? 0 }

        /// Whether both bounds hold.
        public var holds: Bool {
            worstWrong <= wrongBound && correct >= correctBound && (independent?.quality ?? 1) >= independentBound
        }

        /// "wrong ≤ 0.08 (bound 0.35), correct 0.81 (bound 0.75)": both figures on one line.
        public var line: String {
            String(
                format: "quality calibration on %d items: wrong sentence ≤ %.3f (bound %.2f), correct description %.3f (bound %.2f)%@: %@",
                items, worstWrong, wrongBound, correct, correctBound,
                independent.map { String(format: ", another author's %.3f (bound %.2f)", $0.quality, independentBound) } ?? "",
                holds ? "holds" : "FAILS")
        }
    }

    /// The figures of `items` under `settings`.
    public static func measure(
        _ items: [DatasetItem], settings: ScoringSettings = ScoringSettings(), wrongSentences: [String] = wrongSentences,
        independent: [String: String] = [:]
    ) -> Figures {
        let scoringItems = items.map(ScoringItem.init)
        func scores(_ text: String, _ item: ScoringItem) -> ScoreSet {
            let input = ScoringInput(content: text, finishReason: "stop", settings: settings, item: item)
            return ScoreSet(ScoringSuite.evaluate(input))
        }
        let wrong = wrongSentences.map { sentence in
            let all = scoringItems.map { scores(sentence, $0) }
            return Wrong(
                sentence: sentence, quality: Stats.mean(all.compactMap { $0[ScoreName.quality]?.value }) ?? 0,
                form: Stats.mean(all.compactMap { $0[ScoreName.form]?.value }) ?? 0,
                content: Stats.mean(all.compactMap { $0[ScoreName.content]?.value }))
        }
        var byPosition: [[Double]] = []
        for item in scoringItems where item.references.count > 1 {
            for (index, reference) in item.references.enumerated() {
                var others = item
                others.references.remove(at: index)
                let quality = scores(reference, others)[ScoreName.quality]?.value ?? 0
                while byPosition.count <= index { byPosition.append([]) }
                byPosition[index].append(quality)
            }
        }
        let all = byPosition.flatMap { $0 }
        let others = scoringItems.compactMap { item in independent[item.id].map { scores($0, item) } }
        return Figures(
            wrong: wrong, correct: Stats.mean(all) ?? 0, correctByPosition: byPosition.map { Stats.mean($0) ?? 0 },
            items: scoringItems.count, pairs: all.count,
            independent: others.isEmpty
                ? nil
                : Independent(
                    quality: Stats.mean(others.compactMap { $0[ScoreName.quality]?.value }) ?? 0,
                    content: Stats.mean(others.compactMap { $0[ScoreName.content]?.value }) ?? 0, count: others.count
                ))
    }

    /// Descriptions by id from a JSON Lines file of `{"id": …, "text": …}` objects.
    public static func descriptions(from url: URL) throws -> [String: String] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = object["id"] as? String, let description = object["text"] as? String
            else { continue }
            result[id] = description
        }
        return result
    }

    /// The figures of the dataset in `directory` (the bundled sample:
    /// `datasets/sample`), loaded by ``DatasetLoader``, under built-in defaults.
    public static func measure(
        directory: URL, displayPath: String = "datasets/sample", independent: [String: String] = [:]
    ) throws -> Figures {
        let dataset = try DatasetLoader().load(directory: directory, displayPath: displayPath)
        return measure(dataset.items, independent: independent)
    }
}
