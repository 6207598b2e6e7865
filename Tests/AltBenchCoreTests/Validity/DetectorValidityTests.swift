import Foundation
import Testing

@testable import AltBenchCore

@Suite struct DetectorCorpusTests {
    static let fixture = """
        {"id":"t-1","text":"I can see a dog on the beach.","lang":"en","kind":"model","author":"m","origin":"o1","source":"s","labels":["first_person","picture_talk"]}
        {"id":"t-2","text":"A dog on the beach.","lang":"en","kind":"human","author":"human","origin":"o2","source":"s","labels":[]}

        {"id":"t-3","text":"I'm sorry, but I can't help with that.","lang":"en","kind":"model","author":"m","origin":"o1","source":"s","labels":["first_person","refusal"]}
        {"id":"t-4","text":"Un chien sur la plage avec","lang":"fr","kind":"model","author":"m","origin":"o3","source":"s","labels":["truncated"],"finish_reason":"length"}
        {"id":"t-5","text":"A sign reads “Sorry, we're closed”.","lang":"en","kind":"human","author":"human","origin":"o2","source":"s","labels":["refusal"]}
        """

    @Test func readsEveryFieldAndSkipsBlankLines() throws {
        let corpus = try DetectorCorpus.parse(Self.fixture, displayPath: "fixture.jsonl")
        #expect(corpus.entries.map(\.id) == ["t-1", "t-2", "t-3", "t-4", "t-5"])
        #expect(corpus.entries[3].line == 5)
        #expect(corpus.entries[3].finishReason == "length")
        #expect(corpus.entries[0].labels == ["first_person", "picture_talk"])
        #expect(corpus.originCounts.first! == ("o1", 2) || corpus.originCounts.first! == ("o2", 2))
        #expect(corpus.languageCounts.map(\.lang) == ["en", "fr"])
    }

    @Test(arguments: [
        ("{\"id\":\"a\"}", "fixture.jsonl:1: has no \"text\""),
        ("not json", "fixture.jsonl:1: is not a JSON object"),
        (#"{"id":"a","text":"x","lang":"en","kind":"model","author":"m","origin":"o","source":"s","labels":["typo"]}"#,
         "unknown label \"typo\""),
        (#"{"id":"a","text":"x","lang":"en","kind":"bot","author":"m","origin":"o","source":"s","labels":[]}"#,
         "\"kind\" must be \"model\" or \"human\""),
        (#"{"id":"a","text":"x","lang":"en","kind":"model","author":"m","origin":"o","source":"s","labels":[]}"# + "\n"
            + #"{"id":"a","text":"y","lang":"en","kind":"model","author":"m","origin":"o","source":"s","labels":[]}"#,
         "fixture.jsonl:2: id \"a\" is already used on line 1"),
        ("\n\n", "holds no texts"),
    ])
    func namesTheLineAndTheFix(text: String, message: String) {
        #expect {
            try DetectorCorpus.parse(text, displayPath: "fixture.jsonl")
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func countsEveryOutcomeOfEveryLabel() throws {
        let corpus = try DetectorCorpus.parse(Self.fixture, displayPath: "fixture.jsonl")
        let validity = DetectorValidity.measure(corpus)
        // t-1 and t-3 speak in the first person; both are flagged.
        #expect(validity.overall["first_person"]!.truePositives == 2)
        #expect(validity.overall["first_person"]!.precision == 1)
        // t-5 is labelled a refusal on purpose: the sign is not, so the detector misses it.
        let refusal = validity.overall["refusal"]!
        #expect(refusal.truePositives == 1)
        #expect(refusal.falseNegatives == 1)
        #expect(refusal.recall == 0.5)
        #expect(validity.misses.contains { $0.label == "refusal" && $0.entry.id == "t-5" && !$0.falsePositive })
        // t-4's finish reason is not given to the scorer: the text rule alone finds the cut.
        #expect(validity.overall["truncated"]!.truePositives == 1)
        #expect(validity.byLanguage["fr"]!["truncated"]!.recall == 1)
        // Every text is counted once for every label.
        for label in DetectorCorpus.labels {
            let counts = validity.overall[label]!
            #expect(counts.truePositives + counts.falsePositives + counts.falseNegatives + counts.trueNegatives == 5)
        }
    }

    @Test func precisionAndRecallAreAbsentWithoutCases() {
        let counts = DetectorValidity.Counts()
        #expect(counts.precision == nil)
        #expect(counts.recall == nil)
    }

    /// The development corpus the validity benchmark reads parses, and keeps the composition
    /// its notes promise.
    @Test func theDevelopmentCorpusLoads() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Corpus/detectors.jsonl")
        let corpus = try DetectorCorpus.load(from: url, displayPath: "Tests/Corpus/detectors.jsonl")
        #expect(corpus.entries.count >= 400)
        #expect(corpus.originCounts.count >= 40)
        #expect(corpus.languageCounts.count >= 8)
        #expect(Double(corpus.originCounts[0].count) <= 0.10 * Double(corpus.entries.count))
        for label in DetectorCorpus.labels {
            #expect(corpus.entries.filter { $0.labels.contains(label) }.count >= 25, "\(label)")
        }
    }
}

extension DetectorCorpusTests {
    /// The hold-out shares no source with the development corpus: it measures other material.
    @Test func theHoldOutComesFromOtherSources() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Corpus")
        let development = try DetectorCorpus.load(
            from: folder.appendingPathComponent("detectors.jsonl"), displayPath: "detectors.jsonl")
        let holdout = try DetectorCorpus.load(from: folder.appendingPathComponent("holdout.jsonl"), displayPath: "holdout.jsonl")
        #expect(holdout.entries.count >= 100)
        #expect(Set(holdout.entries.map(\.origin)).isDisjoint(with: development.entries.map(\.origin)))
        #expect(Set(holdout.entries.map(\.text)).isDisjoint(with: development.entries.map(\.text)))
    }
}

@Suite struct KendallTauTests {
    /// Values from `scipy.stats.kendalltau(x, y, variant="c")`, scipy 1.17.
    @Test(arguments: [
        ([1.0, 2, 3, 4, 5, 6, 7, 8], [2.0, 1, 4, 3, 6, 5, 8, 7], 0.7142857142857143),
        ([0.1, 0.4, 0.4, 0.9, 0.2, 0.7], [1.0, 2, 2, 4, 3, 3], 0.6666666666666666),
        ([0.3, 0.1, 0.5, 0.5, 0.2, 0.9, 0.8], [3.0, 1, 2, 4, 1, 4, 2], 0.5986394557823129),
    ])
    func matchesScipy(x: [Double], y: [Double], expected: Double) throws {
        let tau = try #require(KendallTau.tauC(x, y))
        #expect(abs(tau - expected) < 1e-12)
    }

    @Test func reversedOrderIsNegativeAndConstantIsUndefined() {
        #expect(KendallTau.tauC([1, 2, 3, 4], [4, 3, 2, 1]) == -1)
        #expect(KendallTau.tauC([1, 1, 1], [1, 2, 3]) == nil)
    }
}

@Suite struct CaptionQualityBenchmarkTests {
    static func write(_ text: String, name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-cq-\(UUID().uuidString)-\(name)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static let fixture = """
        {"id":"a-good","image":"a","system":"s1","candidate":"A brown dog runs on the green grass.","references":["A brown dog running across green grass.","A dog runs on grass."],"ratings":[4,4,3]}
        {"id":"a-mid","image":"a","system":"s2","candidate":"A dog outside.","references":["A brown dog running across green grass.","A dog runs on grass."],"ratings":[2,3,2]}
        {"id":"a-bad","image":"a","system":"s3","candidate":"A plate of pasta on a table.","references":["A brown dog running across green grass.","A dog runs on grass."],"ratings":[1,1,1]}
        {"id":"b-good","image":"b","system":"s1","candidate":"Two children build a sandcastle on the beach.","references":["Two kids building a sand castle at the beach.","Children make a sandcastle by the sea."],"ratings":[4,3,4]}
        {"id":"b-bad","image":"b","system":"s2","candidate":"A red car parked on a street.","references":["Two kids building a sand castle at the beach.","Children make a sandcastle by the sea."],"ratings":[1,2,1]}
        """

    @Test func ranksCaptionsAsTheRatingsDoAndReadsExternalMetrics() throws {
        let url = try Self.write(Self.fixture, name: "cq.jsonl")
        let benchmark = try CaptionQualityBenchmark.load(from: url, displayPath: "cq.jsonl")
        #expect(benchmark.captions.count == 5)
        #expect(benchmark.captions[0].ratings == [4, 4, 3])
        let scores = benchmark.scores()
        let content = scores.map { $0[ScoreName.content] ?? 0 }
        #expect(content[0] > content[1] && content[1] > content[2])
        #expect(content[3] > content[4])
        #expect(!content.contains(1))
        // One pair per rating: 15 pairs; content orders the captions as the people did.
        let tau = try #require(benchmark.tauC(content))
        #expect(tau > 0.6)
        // A metric that ranks them backwards correlates negatively.
        #expect(try #require(benchmark.tauC(content.map { -$0 })) < -0.6)
        let metrics = try Self.write(
            (0..<5).map { #"{"id":"\#(benchmark.captions[$0].id)","meteor":\#(Double($0) / 10)}"# }.joined(separator: "\n"),
            name: "cq-metrics.jsonl")
        #expect(benchmark.externalMetric("meteor", from: metrics) == [0, 0.1, 0.2, 0.3, 0.4])
        #expect(benchmark.externalMetric("cider", from: metrics) == nil)
    }

    @Test func aBadLineIsNamed() throws {
        let url = try Self.write("{\"id\":\"x\"}\n", name: "bad.jsonl")
        #expect {
            try CaptionQualityBenchmark.load(from: url, displayPath: "bad.jsonl")
        } throws: { error in
            "\(error)".contains("bad.jsonl:1")
        }
    }
}
