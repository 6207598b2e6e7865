import AltBenchTesting
import Foundation
import Testing

/// `altbench datasets validate` run as a user runs it: every problem on stdout, then a summary,
/// and the exit status says whether there were any.
@Suite("altbench datasets validate")
struct DatasetsValidateTests {
    static let image = Repository.root.appendingPathComponent("Tests/AltBenchCoreTests/Fixtures/images/png.png")

    /// Writes a dataset folder under the workspace holding `images` (copies of a real PNG) and `manifest`.
    static func dataset(_ workspace: Workspace, _ name: String, images: [String], manifest: [String]) throws {
        try workspace.write("datasets/\(name)/manifest.jsonl", manifest.joined(separator: "\n") + "\n")
        for image in images {
            try FileManager.default.copyItem(at: Self.image, to: workspace.url("datasets/\(name)/\(image)"))
        }
    }

    @Test func aBrokenDatasetListsEveryProblemAndExitsOne() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try Self.dataset(
            workspace, "broken", images: ["cat.png", "spare.png"],
            manifest: [
                #"{"id": "cat", "image": "cat.png", "references": ["A tabby cat asleep on a red sofa."]}"#,
                #"{"id": "cat", "image": "cat.png", "references": ["A cat."], "lang": "english"}"#,
                #"{"id": "dog", "image": "dog.png", "refrences": ["A dog."]}"#,
                #"{"id": "bird""#,
            ])
        let output = try await AltbenchProcess.run(["datasets", "validate", "datasets/broken"], in: workspace.root)
        #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        let file = "datasets/broken/manifest.jsonl"
        #expect(
            lines == [
                "\(file):2: item 'cat': the id 'cat' is already used on line 1. Ids must be unique.",
                "\(file):2: item 'cat': `lang` 'english' is not a BCP 47 language tag: use a tag such as en, fr or pt-BR.",
                "\(file):3: item 'dog': unknown key `refrences` is ignored (did you mean `references`?): rename or remove it.",
                "\(file):3: item 'dog': datasets/broken/dog.png does not exist: fix the path in manifest.jsonl or add the file.",
                "\(file):3: item 'dog': there are no references: add \"references\": [\"...\"] with at least one human-written alt text, since answers are judged against them.",
                "\(file):4: this line is not valid JSON. Each line must be one complete JSON object, e.g. {\"id\": \"cat\", \"image\": \"cat.png\"}; check for a missing quote, comma or brace.",
                "datasets/broken/spare.png: warning: no line of manifest.jsonl uses this image: add a line for it, or delete the file.",
                "datasets/broken: 4 items, 6 problems, 1 warning.",
            ], "\(output.stdout)")
        #expect(output.stderr.isEmpty, "\(output.stderr)")
    }

    @Test func aGoodDatasetExitsZeroAndStrictTurnsWarningsIntoProblems() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try Self.dataset(
            workspace, "good", images: ["cat.png"],
            manifest: [
                #"{"id": "cat", "image": "cat.png", "references": ["A tabby cat asleep on a red sofa.", "Image of a cat."], "lang": "en"}"#
            ])
        let warning = "datasets/good/manifest.jsonl:1: warning: item 'cat': reference 2 opens with a redundant prefix, flagged `redundant_prefix` (Image of): start with the subject, since screen readers already announce an image."

        let lenient = try await AltbenchProcess.run(["datasets", "validate", "datasets/good/"], in: workspace.root)
        #expect(lenient.status == 0, "\(lenient.stdout)\(lenient.stderr)")
        #expect(lenient.stdout == "\(warning)\ndatasets/good: 1 item, 0 problems, 1 warning.\n")

        let strict = try await AltbenchProcess.run(["datasets", "validate", "datasets/good", "--strict"], in: workspace.root)
        #expect(strict.status == 1, "\(strict.stdout)\(strict.stderr)")
        #expect(
            strict.stdout
                == "\(warning.replacingOccurrences(of: " warning:", with: ""))\ndatasets/good: 1 item, 1 problem, 0 warnings.\n")
    }

    @Test func aMockPlaceholderIsNeverEvaluationDataEvenReviewed() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        try Self.dataset(
            workspace, "drafts", images: ["cat.png"],
            manifest: [
                #"{"id": "cat", "image": "cat.png", "references": ["A tabby cat asleep on a red sofa."], "generated": {"model": "dall-e-3", "endpoint": "mock", "mock": true}, "reviewed": true}"#
            ])
        let strict = try await AltbenchProcess.run(["datasets", "validate", "datasets/drafts", "--strict"], in: workspace.root)
        #expect(strict.status == 1, "\(strict.stdout)\(strict.stderr)")
        #expect(strict.stdout.contains("item 'cat': the image is a mock placeholder (generated.mock: true)"), "\(strict.stdout)")
        let run = try await AltbenchProcess.run(["run", "--dataset", "datasets/drafts"], in: workspace.root)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: 1 item is a mock placeholder (generated.mock: true; 'cat')"), "\(run.stderr)")
    }

    /// The bundled sample, as a fresh clone has it, passes even the strict check.
    @Test func withoutAFolderItChecksTheSample() async throws {
        let workspace = try Workspace(everything: true)
        defer { workspace.remove() }
        let items = try workspace.read("datasets/sample/manifest.jsonl").split(separator: "\n").count
        let output = try await AltbenchProcess.run(["datasets", "validate", "--strict"], in: workspace.root)
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout == "datasets/sample: \(items) items, 0 problems, 0 warnings.\n")
    }

    @Test func aMissingFolderIsNamedAndExitsOne() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let output = try await AltbenchProcess.run(["datasets", "validate", "datasets/nope"], in: workspace.root)
        #expect(output.status == 1)
        #expect(
            output.stdout == """
                datasets/nope: the folder does not exist: pass a dataset folder holding manifest.jsonl or images.
                datasets/nope: 0 items, 1 problem, 0 warnings.

                """)
    }
}
