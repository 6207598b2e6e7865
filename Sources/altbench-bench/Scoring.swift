// Scoring figures: per-answer scorers over realistic alt texts on one core and on all cores,
// and CIDEr-D over a large corpus.
import AltBenchCore
import Foundation

/// A small deterministic generator, so every run scores the same texts.
struct BenchRandom {
    var state: UInt64

    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(max(bound, 1)))
    }

    mutating func pick<T>(_ values: [T]) -> T { values[next(values.count)] }
}

/// `count` alt texts of the kinds a model writes, built from the sample dataset's references:
/// most as written, the rest with the faults the scorers look for (an "Image of" opening,
/// first person, a cut-off end, hashtags, emoji, a label, hedges, markdown, a file name).
func realisticAnswers(count: Int, items: [DatasetItem]) -> [(item: DatasetItem, text: String, finish: String)] {
    var random = BenchRandom(state: 0x5EED_CAFE_F00D_BEEF)
    let openers = ["This image shows ", "An image of ", "I can see ", "In this picture, we see ", "Alt text: ", "The photo depicts "]
    let endings = [" #photography #nature", " 🐱✨", " It appears to be probably a sunny day, maybe.", " I hope this helps!", " (IMG_2041.jpg)", " Let me know if you need more."]
    var answers: [(item: DatasetItem, text: String, finish: String)] = []
    answers.reserveCapacity(count)
    for _ in 0..<count {
        let item = random.pick(items)
        var text = item.references.isEmpty ? "A photo." : random.pick(item.references)
        var finish = "stop"
        switch random.next(10) {
        case 0:
            text = random.pick(openers) + text.prefix(1).lowercased() + text.dropFirst()
        case 1:
            text += random.pick(endings)
        case 2:
            // Cut at a word, as max_tokens does.
            let words = text.split(separator: " ")
            text = words.prefix(max(1, words.count / 2)).joined(separator: " ")
            finish = "length"
        case 3:
            text = "**Description:** " + text
        default:
            break
        }
        answers.append((item, text, finish))
    }
    return answers
}

func scoringBenchmarks(texts: Int, diagnose: Bool) async throws {
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    let dataset = try DatasetLoader().load(directory: root.appendingPathComponent("datasets/sample"), displayPath: "datasets/sample")
    let answers = realisticAnswers(count: texts, items: dataset.items)
    let meanChars = Double(answers.reduce(0) { $0 + $1.text.unicodeScalars.count }) / Double(max(texts, 1))
    print("altbench-bench \(AltBenchVersion.current): scoring \(texts) answers (mean \(Int(meanChars)) chars) from \(dataset.items.count) sample items\n")

    let settings = ScoringSettings()
    let scoringItems = Dictionary(uniqueKeysWithValues: dataset.items.map { ($0.id, ScoringItem($0)) })
    // Each answer's scoring item, looked up once: a run holds its items the same way.
    let answerItems = answers.map { scoringItems[$0.item.id]! }
    let answerTexts = answers.map(\.text)
    let answerFinishes = answers.map(\.finish)
    let corpus = ReferenceCorpus(items: dataset.items.map(ScoringItem.init))
    let referenceIDs: Set<String> = [ScoreName.bleu4, ScoreName.rougeL, ScoreName.ciderD]

    func input(_ index: Int) -> ScoringInput {
        ScoringInput(
            content: answerTexts[index], finishReason: answerFinishes[index], settings: settings,
            item: answerItems[index], corpus: corpus)
    }

    // One core, as a run scores: each answer's input is built and scored as it arrives. The
    // per-answer heuristics alone, then with the per-answer reference metrics too; a warm-up
    // pass first fills the per-item caches a run fills on its first answers.
    let heuristics = ScoringSuite.standard.filter { scorer in
        !scorer.score(ScoringInput(content: "A cat.", item: ScoringItem(id: "x", references: ["A cat."])))
            .contains { referenceIDs.contains($0.name) }
    }
    var flagged = 0
    for index in answers.indices.prefix(5_000) {
        flagged += ScoringSuite.evaluate(input(index)).count
    }
    await measure("score, heuristics, 1 core", count: texts, unit: "answer") {
        for index in answers.indices {
            flagged += ScoringSuite.evaluate(input(index), scorers: heuristics).filter(\.isFlagged).count
        }
    }
    await measure("score, all scorers, 1 core", count: texts, unit: "answer") {
        for index in answers.indices {
            flagged += ScoringSuite.evaluate(input(index)).filter(\.isFlagged).count
        }
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    await measure("score, all scorers, \(cores) cores", count: texts, unit: "answer") {
        // In batches, as a run's summary would score its stored answers.
        for batch in stride(from: 0, to: texts, by: 10_000) {
            let inputs = (batch..<min(texts, batch + 10_000)).map(input)
            flagged += ScoringSuite.evaluateAll(inputs).count
        }
    }
    precondition(flagged > 0)
    print("(target: ≥ 10,000 answers/s on one core for the whole per-answer set: a run receives about 50 answers/s, a Batch API file 50,000 at once)\n")

    if diagnose {
        // Where the time goes: building the inputs, then each scorer alone.
        let sample = (0..<min(texts, 20_000)).map(input)
        await measure("  ScoringInput.init", count: sample.count, unit: "answer") {
            var total = 0
            for index in sample.indices { total += input(index).words.count }
            precondition(total > 0)
        }
        for ascii in [true, false] {
            let texts = answers.prefix(sample.count).map(\.text).filter { $0.utf8.allSatisfy { $0 < 0x80 } == ascii }
            await measure(ascii ? "  ScoringInput.init, ASCII" : "  ScoringInput.init, non-ASCII", count: texts.count, unit: "answer") {
                var total = 0
                for text in texts { total += ScoringInput(content: text).words.count }
                precondition(total > 0)
            }
        }
        for scorer in ScoringSuite.standard {
            let name = "  " + String(describing: type(of: scorer))
            await measure(name, count: sample.count, unit: "answer") {
                var total = 0
                for input in sample { total += scorer.score(input).count }
                precondition(total >= 0)
            }
        }
        print("")
    }

    // CIDEr-D over a corpus of 5,000 items × 5 references, as a run's summary computes it.
    var random = BenchRandom(state: 0xC1DE_4D00)
    let vocabulary = Set(dataset.items.flatMap { $0.references.flatMap { $0.lowercased().split(separator: " ").map(String.init) } }).sorted()
    func caption() -> String {
        (0..<(8 + random.next(10))).map { _ in random.pick(vocabulary) }.joined(separator: " ")
    }
    let corpusItems = (0..<5000).map { index in
        ScoringItem(id: "item\(index)", references: (0..<5).map { _ in caption() })
    }
    let candidates = corpusItems.map { (itemID: $0.id, text: caption()) }
    let clock = ContinuousClock()
    var built: ReferenceCorpus?
    let build = clock.measure { built = ReferenceCorpus(items: corpusItems) }
    var figure = 0.0
    let score = clock.measure {
        figure = ReferenceMetrics.score(candidates, corpus: built!)?.ciderD ?? 0
    }
    print(String(
        format: "CIDEr-D, 5,000 items × 5 references: corpus built in %.3f s, scored in %.3f s, total %.3f s (target < 2 s); CIDEr-D %.4f",
        build.secondsValue, score.secondsValue, (build + score).secondsValue, figure))
}
