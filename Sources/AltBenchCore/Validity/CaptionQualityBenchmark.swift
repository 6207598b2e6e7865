import Foundation

/// Captions rated by people, read from JSON Lines (`Tests/Corpus/caption-quality/*.jsonl`,
/// built by `scripts/caption_quality_data.py`), and how well altbench's `content` ranks them
/// as the people did: Kendall τc between each score and the human ratings, beside the
/// classic reference metrics on the same captions and references.
///
/// Protocol (the one CLIPScore and PAC-S use on Flickr8k-Expert): one pair per human rating,
/// so a caption rated three times counts three times with the same score; τc as
/// ``KendallTau/tauC(_:_:)``. Each caption is scored as an answer to an item holding its
/// image's references; CIDEr-D's document frequencies are over every caption's references,
/// as pycocoevalcap computes them when handed the whole set.
package struct CaptionQualityBenchmark: Sendable {
    /// One rated caption.
    package struct Caption: Sendable, Hashable {
        package var id: String
        package var image: String
        package var system: String
        package var candidate: String
        package var references: [String]
        /// Every human rating of the caption, as published.
        package var ratings: [Double]
    }

    package var displayPath: String
    package var captions: [Caption]

    /// Reads a benchmark file; every line needs id, image, candidate, references and ratings.
    package static func load(from url: URL, displayPath: String) throws -> CaptionQualityBenchmark {
        guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8) else {
            throw DetectorCorpus.LoadError(file: displayPath, line: nil, message: "cannot be read as UTF-8 text. Check the path.")
        }
        var captions: [Caption] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
        where line.contains(where: { !$0.isWhitespace }) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = object["id"] as? String, let candidate = object["candidate"] as? String,
                let references = object["references"] as? [String], let ratings = object["ratings"] as? [Double],
                !ratings.isEmpty
            else {
                throw DetectorCorpus.LoadError(
                    file: displayPath, line: index + 1,
                    message: "needs a JSON object with id, candidate, references (strings) and ratings (numbers).")
            }
            captions.append(
                Caption(
                    id: id, image: object["image"] as? String ?? id, system: object["system"] as? String ?? "",
                    candidate: candidate, references: references, ratings: ratings))
        }
        return CaptionQualityBenchmark(displayPath: displayPath, captions: captions)
    }

    /// Each caption's scores under altbench's scorers: `content`, `reference_match`, CIDEr-D,
    /// BLEU-4 and ROUGE-L, by score id, in caption order.
    package func scores() -> [[String: Double]] {
        let items = captions.map { ScoringItem(id: $0.id, references: $0.references) }
        let corpus = ReferenceCorpus(items: items)
        let inputs = zip(captions, items).map { caption, item in
            ScoringInput(content: caption.candidate, finishReason: "stop", item: item, corpus: corpus)
        }
        let wanted: Set = [
            ScoreName.content, ScoreName.referenceMatch, ScoreName.ciderD, ScoreName.bleu4, ScoreName.rougeL,
        ]
        return ScoringSuite.evaluateAll(inputs).map { scores in
            Dictionary(
                scores.filter { wanted.contains($0.name) }.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// τc of one score per caption against the human ratings, one pair per rating.
    package func tauC(_ values: [Double]) -> Double? {
        var x: [Double] = []
        var y: [Double] = []
        for (value, caption) in zip(values, captions) {
            for rating in caption.ratings {
                x.append(value)
                y.append(rating)
            }
        }
        return KendallTau.tauC(x, y)
    }

    /// Values per caption id read from a metrics file (`*-metrics.jsonl`: one object per
    /// caption with its id and each metric's value), e.g. METEOR as pycocoevalcap computes it.
    package func externalMetric(_ name: String, from url: URL) -> [Double]? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let id = object["id"] as? String, let value = object[name] as? Double
            else { continue }
            values[id] = value
        }
        let ordered = captions.compactMap { values[$0.id] }
        return ordered.count == captions.count ? ordered : nil
    }
}
