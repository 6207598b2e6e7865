import Foundation
import Testing

@testable import AltBenchCore

@Suite("mock judge")
struct MockJudgeTests {
    static let sample = Result {
        try DatasetLoader().load(
            directory: judgePackageRoot.appendingPathComponent("datasets/sample", isDirectory: true),
            displayPath: "datasets/sample")
    }

    static let catOnSofa = "A cat sleeping on a sofa by the window."
    static let bicycle = "A red bicycle leaning against a brick wall in the rain."

    static let chelsea = ScoringItem(
        id: "chelsea",
        references: [
            "A brown striped tabby cat photographed up close, gazing to one side with large yellow-green eyes.",
            "Close-up of a tabby cat with wide green-gold eyes looking off to one side.",
        ],
        context: "Chelsea has opinions about the new sofa.", mustMention: ["cat", "tabby"], lang: "en")

    /// Each reference of each sample item, judged against the item's other references, gets a
    /// higher accuracy than a sentence about something else: on average, by a wide margin, and
    /// never a lower one. The mock cannot see, but it must rank a right answer above a wrong one.
    @Test func heldOutReferenceBeatsWrongSentence() throws {
        let dataset = try Self.sample.get()
        #expect(dataset.items.count >= 20)
        var reference: [Double] = []
        var wrong: [Double] = []
        for item in dataset.items {
            let full = ScoringItem(item)
            for held in full.references.indices {
                var others = full
                others.references.remove(at: held)
                let right = MockJudge.verdict(answer: full.references[held], item: others)
                // The wrong sentence is about something the item is not: a cat for most, a
                // bicycle for an item whose references speak of a cat.
                let aboutCats = full.references.contains {
                    $0.lowercased().split(whereSeparator: { !$0.isLetter }).contains("cat")
                }
                let other = MockJudge.verdict(answer: aboutCats ? Self.bicycle : Self.catOnSofa, item: others)
                #expect(right.accuracy >= other.accuracy, "\(item.id), reference \(held + 1)")
                reference.append(Double(right.accuracy))
                wrong.append(Double(other.accuracy))
                #expect(right.completeness > other.completeness, "\(item.id), reference \(held + 1)")
            }
        }
        let meanReference = reference.reduce(0, +) / Double(reference.count)
        let meanWrong = wrong.reduce(0, +) / Double(wrong.count)
        #expect(meanReference >= meanWrong + 2, "mean accuracy \(meanReference) for references, \(meanWrong) for the wrong sentence")
    }

    @Test func namesConcreteMisses() {
        let verdict = MockJudge.verdict(answer: Self.catOnSofa, item: Self.chelsea)
        #expect(
            verdict
                == JudgeVerdict(
                    accuracy: 2, completeness: 2, concision: 5,
                    errors: [
                        "words not in any reference: sleeping, sofa, window",
                        "does not mention: tabby",
                        "leaves out what the references say: close, tabby, wide, green, gold, eyes, looking, side",
                    ]))
    }

    @Test func referenceItselfIsPerfect() {
        let verdict = MockJudge.verdict(answer: Self.chelsea.references[1], item: Self.chelsea)
        #expect(verdict == JudgeVerdict(accuracy: 5, completeness: 5, concision: 5, errors: []))
    }

    @Test func noReferences() {
        let verdict = MockJudge.verdict(answer: "A tabby cat.", item: ScoringItem(id: "x", context: "A post."))
        #expect(verdict == JudgeVerdict(accuracy: 3, completeness: 3, concision: 5, errors: ["mock judge: no references to compare with"]))
    }

    @Test func emptyAnswer() {
        let verdict = MockJudge.verdict(answer: " \n", item: Self.chelsea)
        #expect(verdict == JudgeVerdict(accuracy: 1, completeness: 1, concision: 1, errors: ["mock judge: the answer is empty"]))
    }

    @Test(arguments: [(150, 5), (151, 4), (225, 4), (226, 3), (300, 3), (450, 2), (451, 1)])
    func concisionByLength(length: Int, grade: Int) {
        // Ends on a word, so trimming leaves the length as it is.
        let answer = String(repeating: "x", count: 1 + (length - 1) % 4) + String(repeating: " cat", count: (length - 1) / 4)
        #expect(answer.unicodeScalars.count == length)
        let verdict = MockJudge.verdict(answer: answer, item: Self.chelsea)
        #expect(verdict.concision == grade)
        #expect(verdict.errors.contains("longer than the brevity budget: \(length) of 150 characters") == (length > 150))
        let roomy = MockJudge.verdict(answer: answer, item: Self.chelsea, settings: ScoringSettings(brevityBudget: 500))
        #expect(roomy.concision == 5)
    }

    @Test func expectedTextCounts() {
        let sign = ScoringItem(
            id: "sign", references: ["A sign on a glass door reads \"Sorry, we're closed\"."],
            expectedText: "Sorry, we're closed", mustMention: ["closed"])
        let full = MockJudge.verdict(answer: "A sign on a door reads \"Sorry, we're closed\".", item: sign)
        let partial = MockJudge.verdict(answer: "A sign on a door says closed.", item: sign)
        #expect(full.completeness > partial.completeness)
        #expect(partial.errors.contains("leaves out visible text: sorry, we're"))
    }

    /// Same input, same verdict, errors in the answer's order: a fixed golden, so an order
    /// taken from a hashed set (which changes between processes) would fail here.
    @Test func deterministic() throws {
        let item = ScoringItem(try Self.sample.get().items.first { $0.id == "sign-closed" }!)
        let answer = "A red and white window sign on a sofa says OPEN, near a window and a cat."
        let first = MockJudge.verdict(answer: answer, item: item)
        #expect((0..<5).allSatisfy { _ in MockJudge.verdict(answer: answer, item: item) == first })
        #expect(first.errors.first == "words not in any reference: window, sofa, near, cat")
        #expect(try JudgeVerdict.parse(content: first.json, refusal: nil).get() == first)
    }
}
