import Foundation
import Testing

@testable import AltBenchCore

@Suite("judge cache key")
struct JudgeCacheKeyTests {
    struct Inputs: Sendable {
        var endpoint = "https://api.example.test/v1"
        var model = "gpt-4.1"
        var rubric = JudgeRubric(name: "alt-text.md", text: "Accuracy first.")
        var imageIdentity = "sha256:abc"
        var detail: ImageDetail? = .low
        var answer = "A tabby cat."
        var context: String? = "Chelsea."
        var lang: String? = "en"
        var maxTokens = 400
        var structuredOutput = true

        var key: String {
            JudgeCacheKey.make(
                endpoint: endpoint, model: model, rubric: rubric, imageIdentity: imageIdentity, detail: detail,
                answer: answer, context: context, lang: lang, maxTokens: maxTokens, structuredOutput: structuredOutput)
        }
    }

    @Test func shapeAndDeterminism() {
        let key = Inputs().key
        #expect(key.hasPrefix("judge-v1:"))
        #expect(key.count == "judge-v1:".count + 64)
        #expect(key.dropFirst(9).allSatisfy { "0123456789abcdef".contains($0) })
        #expect(key == Inputs().key)
    }

    struct Change: Sendable, CustomTestStringConvertible {
        var name: String
        var apply: @Sendable (inout Inputs) -> Void
        init(_ name: String, _ apply: @escaping @Sendable (inout Inputs) -> Void) {
            self.name = name
            self.apply = apply
        }
        var testDescription: String { name }
    }

    static let changes: [Change] = [
        Change("endpoint") { $0.endpoint = "http://127.0.0.1:8080/v1" },
        Change("model") { $0.model = "gpt-4.1-mini" },
        Change("rubric text") { $0.rubric = JudgeRubric(name: "alt-text.md", text: "Accuracy first!") },
        Change("image") { $0.imageIdentity = "sha256:abd" },
        Change("detail") { $0.detail = .high },
        Change("detail absent") { $0.detail = nil },
        Change("max_tokens") { $0.maxTokens = 300 },
        Change("answer") { $0.answer = "A tabby cat" },
        Change("context") { $0.context = "Chelsea!" },
        Change("context absent") { $0.context = nil },
        Change("context empty") { $0.context = "" },
        Change("lang") { $0.lang = "fr" },
        Change("lang absent") { $0.lang = nil },
        Change("structured output") { $0.structuredOutput = false },
    ]

    @Test(arguments: changes)
    func everyInputChangesTheKey(change: Change) {
        var changed = Inputs()
        change.apply(&changed)
        #expect(changed.key != Inputs().key, "changing the \(change.name) must change the key")
    }

    @Test func renamingTheRubricKeepsTheKey() {
        var renamed = Inputs()
        renamed.rubric = JudgeRubric(name: "mine.md", text: "Accuracy first.")
        #expect(renamed.key == Inputs().key)
    }

    @Test func partsCannotRunIntoEachOther() {
        var a = Inputs()
        a.answer = "ab"
        a.context = "c"
        var b = Inputs()
        b.answer = "a"
        b.context = "bc"
        #expect(a.key != b.key)
        var c = Inputs()
        c.context = nil
        c.lang = "en"
        var d = Inputs()
        d.context = "en"
        d.lang = nil
        #expect(c.key != d.key)
    }
}
