import Foundation
import Testing

@testable import AltBenchCore

@Suite("Mock model")
struct MockVisionModelTests {
    static let reference = "A tabby cat curled up asleep on a sunny windowsill, its tail over its nose."

    static func setup() -> (MockVisionModel, DatasetItem, DatasetItem) {
        let withReference = DatasetItem(
            id: "cat", image: .file(path: "cat.png", url: URL(fileURLWithPath: "/d/cat.png")),
            imageInfo: ImageInfo(format: .png, width: 1, height: 1, byteCount: 1, sha256: "c1"),
            references: [reference, "Second."])
        let bare = DatasetItem(
            id: "dog", image: .file(path: "photos/dog.jpg", url: URL(fileURLWithPath: "/d/photos/dog.jpg")),
            imageInfo: ImageInfo(format: .jpeg, width: 1, height: 1, byteCount: 1, sha256: "d1"))
        let dataset = Dataset(name: "d", path: "d", root: URL(fileURLWithPath: "/d"), items: [withReference, bare])
        return (MockVisionModel(dataset: dataset), withReference, bare)
    }

    static func request(_ item: DatasetItem, maxTokens: Int?) -> ModelRequest {
        ModelRequest(
            model: "gpt-4o-mini", prompt: "Describe.", image: .file(URL(fileURLWithPath: "/x"), .png),
            imageIdentity: item.imageIdentity!, maxTokens: maxTokens)
    }

    @Test func answersWithTheFirstReferenceWhenItFits() async throws {
        let (model, cat, _) = Self.setup()
        let answer = try await model.complete(Self.request(cat, maxTokens: 100))
        #expect(answer.content == Self.reference)
        #expect(answer.finishReason == "stop")
        #expect(answer.completionTokens == ApproximateTokenizer.count(Self.reference))
        #expect(model.endpoint == "mock")
    }

    @Test func cutsToRoughlyMaxTokensAndSaysLength() async throws {
        let (model, cat, _) = Self.setup()
        let answer = try await model.complete(Self.request(cat, maxTokens: 5))
        #expect(answer.finishReason == "length")
        #expect(answer.completionTokens == 5)
        #expect(answer.content == "A tabby cat curled up")
        #expect(Self.reference.hasPrefix(answer.content!))
    }

    @Test func namesTheFileWhenThereIsNoReference() async throws {
        let (model, _, dog) = Self.setup()
        let answer = try await model.complete(Self.request(dog, maxTokens: nil))
        #expect(answer.content?.contains("dog.jpg") == true)
        #expect(answer.finishReason == "stop")
    }

    @Test func isDeterministic() async throws {
        let (model, cat, _) = Self.setup()
        let one = try await model.complete(Self.request(cat, maxTokens: 7))
        let two = try await model.complete(Self.request(cat, maxTokens: 7))
        #expect(one == two)
    }

    @Test(arguments: [
        ("", 0), ("cat", 1), ("A cat.", 3), ("A cat, asleep.", 5), ("extraordinarily", 2),
    ])
    func tokenizerPiecesRebuildTheText(_ text: String, _ count: Int) {
        #expect(ApproximateTokenizer.pieces(text).joined() == text)
        #expect(ApproximateTokenizer.count(text) == count)
    }
}
