import Foundation
import Testing

@testable import AltBenchCore

/// The spec of `altbench datasets generate`, the request shapes it sends, the mock's images
/// and the manifest it writes.
@Suite("dataset generation")
struct GenerationTests {
    static let spec = """
        model: gpt-image-1
        size: 1024x1024
        quality: medium
        items:
          - id: bakery-sign
            prompt: A hand-painted shop sign reading "FRESH BREAD DAILY" above a bakery window
            expected_text: FRESH BREAD DAILY
            must_mention: [sign, bakery]
            references: ["A hand-painted sign reading FRESH BREAD DAILY above a bakery window."]
            context: Our new sign is up!
            lang: en
            tags: [sign]
          - id: bike
            prompt: A red bicycle leaning on a blue wall
            model: dall-e-3
          - id: trio
            prompt: Three yellow ducks
            n: 3
            quality: low
        """

    // MARK: Request shapes

    @Test func shipThatAppsDALLERequestFieldForField() throws {
        // The seed's DALLERequest with its defaults, as the signed-proxy reference's vector 3 signs it.
        let request = ImageGenerationRequest(prompt: "A red bicycle leaning on a blue wall", model: "dall-e-3")
        #expect(
            String(decoding: request.body, as: UTF8.self)
                == #"{"prompt":"A red bicycle leaning on a blue wall","model":"dall-e-3","n":1,"quality":"hd","response_format":"url","size":"1024x1024","style":"natural"}"#)
        #expect(RequestSigning.bodyHash(request.body) == "ffd6ae9a3403dafe01c638be8a8fb6db2485022b0193dd620fefb56dddceed78")
    }

    @Test func gptImageModelsGetTheirShapeWithoutResponseFormatOrStyle() throws {
        let request = ImageGenerationRequest(prompt: "Ein Schild „Apotheke“ \\ \"quoted\"", model: "gpt-image-1-mini", n: 2, quality: "high", size: "1536x1024")
        let body = try JSONValue.parse(request.body)
        #expect(Set(body.objectValue!.keys) == ["prompt", "model", "n", "quality", "size", "output_format"])
        #expect(body["prompt"]?.stringValue == "Ein Schild „Apotheke“ \\ \"quoted\"")
        #expect(body["output_format"]?.stringValue == "png")
        #expect(body["n"]?.intValue == 2)
        #expect(String(decoding: request.body, as: UTF8.self).hasPrefix(#"{"prompt":"#))
        #expect(request.dimensions == (1536, 1024))
    }

    @Test func commandLineOverridesTheSpecAndItemsOverrideBoth() throws {
        let spec = try GenerationSpec.parse(Self.spec, displayPath: "signs.yml")
        var overrides = GenerationSpec.Settings()
        overrides.size = "1536x1024"
        overrides.model = "gpt-image-1-mini"
        let plan = try spec.plan(overrides: overrides)
        let requests = plan.requests
        #expect(requests.map(\.item.id) == ["bakery-sign", "bike", "trio"])
        #expect(requests[0].request.model == "gpt-image-1-mini" && requests[0].request.size == "1536x1024" && requests[0].request.quality == "medium")
        // The item's own model wins; inherited values it cannot take (GPT-image's medium and
        // 1536x1024) give way to DALL·E's defaults, with a note each.
        #expect(requests[1].request.model == "dall-e-3" && requests[1].request.size == "1024x1024" && requests[1].request.quality == "hd")
        #expect(plan.notes == [
            "item 'bike' (dall-e-3): quality medium is not one dall-e-3 takes; using its default.",
            "item 'bike' (dall-e-3): size 1536x1024 is not one dall-e-3 takes; using its default.",
        ])
        let plain = try spec.plan().requests
        #expect(plain[1].request.family == .dalle && plain[1].request.quality == "hd" && plain[1].request.style == "natural")
        #expect(plain[2].request.n == 3 && plain[2].request.quality == "low")
        #expect(plain[0].item.fields["expected_text"] == .string("FRESH BREAD DAILY"))
        #expect(plain[0].item.fields["must_mention"] == .array([.string("sign"), .string("bakery")]))
        #expect(plain[0].item.fields["context"] == .string("Our new sign is up!"))
    }

    @Test(
        "spec errors stop before any request, naming the line",
        arguments: [
            ("items:\n  - id: a\n    prompt: x\n    colour: red\n", 4, "unknown key `colour`"),
            ("itmes: []\n", 1, "Did you mean `items`?"),
            ("items:\n  - id: a\n    prompt: [broken\n", 3, "not valid YAML"),
            ("items:\n  - id: a\n    prompt: one\n  - id: a\n    prompt: two\n", 4, "named twice (first on line 2)"),
            ("items:\n  - id: a\n    prompt: \"  \"\n", 2, "empty prompt"),
            ("items:\n  - prompt: x\n", 2, "has no `id`"),
            ("items:\n  - id: ../etc\n    prompt: x\n", 2, "names the image file"),
            ("items:\n  - id: a\n    prompt: x\n    n: 11\n", 4, "from 1 to 10"),
            ("items:\n  - id: a\n    prompt: x\n    api_key: sk-123\n", 4, "Never put a key in a spec"),
            ("items:\n  - id: a\n    prompt: x\n    n: 2\n  - id: a-2\n    prompt: y\n", 5, "also the name of image 2 of 'a'"),
            ("items:\n  - id: a\n    prompt: x\n    model: dall-e-3\n    quality: medium\n", 2, "`quality` medium is not one dall-e-3 takes"),
            ("items:\n  - id: a\n    prompt: x\n    style: vivid\n", 2, "`style` is a DALL·E setting"),
            ("items: []\n", 1, "`items` must be a list"),
        ])
    func specErrors(_ text: String, _ line: Int, _ expected: String) {
        do {
            _ = try GenerationSpec.parse(text, displayPath: "spec.yml").plan()
            Issue.record("accepted: \(text)")
        } catch {
            let message = String(describing: error)
            #expect(message.hasPrefix("spec.yml:\(line): "), "\(message)")
            #expect(message.contains(expected), "\(message)")
            #expect(!message.contains("sk-123"))
        }
    }

    // MARK: The mock

    @Test func theMockDrawsTheSameRealPNGForTheSamePrompt() throws {
        let request = ImageGenerationRequest(prompt: "A red bicycle", size: "1536x1024")
        let first = MockImageGenerator.image(for: request, index: 0)
        #expect(first == MockImageGenerator.image(for: request, index: 0))
        #expect(first != MockImageGenerator.image(for: request, index: 1))
        #expect(first != MockImageGenerator.image(for: ImageGenerationRequest(prompt: "A blue bicycle", size: "1536x1024"), index: 0))
        let header = try ImageSniffer.sniff(first, path: "mock.png")
        #expect(header.format == .png && header.width == 256 && header.height == 171)
    }

    @Test func pngEncoderWritesWhatAReaderAccepts() throws {
        let rgb = PNGEncoder.rgb(width: 3, height: 2, pixels: [UInt8](repeating: 200, count: 18))
        #expect(try ImageSniffer.sniff(rgb, path: "a.png").width == 3)
        // CRC-32 and Adler-32 of known inputs.
        #expect(PNGEncoder.crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
    }

    // MARK: The manifest

    static func entry(_ id: String, reference: String) -> GeneratedManifest.Entry {
        GeneratedManifest.Entry(
            id: id, image: "images/\(id).png", fields: ["references": .array([.string(reference)])],
            generated: ["model": .string("gpt-image-1"), "endpoint": .string("mock")])
    }

    @Test func mergingKeepsOtherLinesAndWhatAReviewerCorrected() throws {
        let existing = """
            {"id":"hand-made","image":"cat.png","references":["A cat."]}
            {"id":"sign","image":"images/sign.png","references":["Corrected by a person."],"expected_text":"OPEN","generated":{"model":"old"},"reviewed":true}
            {"id":"draft","image":"images/draft.png","references":["Old draft."],"generated":{"model":"old"},"reviewed":false}

            """
        let merged = GeneratedManifest.merge(
            [Self.entry("sign", reference: "Spec text."), Self.entry("draft", reference: "New draft."), Self.entry("new", reference: "Brand new.")],
            into: existing)
        let lines = merged.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0] == #"{"id":"hand-made","image":"cat.png","references":["A cat."]}"#)
        let sign = try JSONValue.parse(Data(lines[1].utf8))
        #expect(sign["reviewed"] == .bool(true))
        #expect(sign["references"] == .array([.string("Corrected by a person.")]))
        #expect(sign["expected_text"] == .string("OPEN"))
        #expect(sign["generated"]?["model"] == .string("gpt-image-1"))
        let draft = try JSONValue.parse(Data(lines[2].utf8))
        #expect(draft["references"] == .array([.string("New draft.")]) && draft["reviewed"] == .bool(false))
        #expect(lines[3].hasPrefix(#"{"id":"new","image":"images/new.png","references":["Brand new."],"generated":"#))
        // The same entries again change nothing.
        #expect(GeneratedManifest.merge([Self.entry("new", reference: "Brand new.")], into: merged) == merged)
    }

    // MARK: Review before trust

    @Test func validateWarnsAboutUnreviewedGeneratedImagesAndStrictFails() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-gen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("images"), withIntermediateDirectories: true)
        let request = ImageGenerationRequest(prompt: "A sign")
        try MockImageGenerator.image(for: request, index: 0).write(to: folder.appendingPathComponent("images/sign.png"))
        var manifest = GeneratedManifest.merge([Self.entry("sign", reference: "A sign reading OPEN.")], into: "")
        try manifest.write(to: folder.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)

        let lenient = DatasetValidator().validate(directory: folder, displayPath: "signs")
        #expect(lenient.passed)
        #expect(lenient.report.contains("warning: item 'sign': the image is a mock placeholder (generated.mock: true), not evaluation data"), "\(lenient.report)")
        #expect(!DatasetValidator(strict: true).validate(directory: folder, displayPath: "signs").passed)
        let loaded = try DatasetLoader().load(directory: folder, displayPath: "signs")
        #expect(loaded.notes.contains { $0.hasPrefix("1 of 1 items were generated and not reviewed yet") })

        manifest = manifest.replacingOccurrences(of: #""reviewed":false"#, with: #""reviewed":true"#)
        try manifest.write(to: folder.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)
        // Reviewed, a mock placeholder is still not evaluation data: --strict keeps failing.
        let reviewed = DatasetValidator(strict: true).validate(directory: folder, displayPath: "signs")
        #expect(!reviewed.passed, "\(reviewed.report)")
        #expect(reviewed.report.contains("mock placeholder"), "\(reviewed.report)")
        #expect(try DatasetLoader().load(directory: folder, displayPath: "signs").notes.isEmpty)
        // A real generator's image, reviewed, passes.
        manifest = manifest.replacingOccurrences(of: #""mock":true"#, with: #""mock":false"#)
            .replacingOccurrences(of: #""endpoint":"mock""#, with: #""endpoint":"https://api.openai.com/v1""#)
        try manifest.write(to: folder.appendingPathComponent("manifest.jsonl"), atomically: true, encoding: .utf8)
        let real = DatasetValidator(strict: true).validate(directory: folder, displayPath: "signs")
        #expect(real.passed, "\(real.report)")
    }
}
