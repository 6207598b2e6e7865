import Foundation
import Testing

@testable import AltBenchCore

/// `datasets/sample` is what every default run measures against, so what it promises is
/// tested: its coverage, the shape of each item, and references that pass altbench's own
/// scorers (a reference that reads as truncated or first person would reward bad answers).
@Suite("the sample dataset's contents")
struct SampleManifestTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Datasets
        .deletingLastPathComponent()  // AltBenchCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .appendingPathComponent("datasets/sample", isDirectory: true)

    /// The sample, loaded (images read and hashed) once for every test here.
    static let loaded = Result { try DatasetLoader().load(directory: folder, displayPath: "datasets/sample") }

    static func load() throws -> Dataset {
        try loaded.get()
    }

    /// The ids of the sample's items, read from the manifest, for parameterised tests.
    static let itemIDs: [String] = {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["id"] as? String
        }
    }()

    @Test("it loads with no notes and every image readable")
    func loads() throws {
        let dataset = try Self.load()
        #expect(dataset.notes.isEmpty, "\(dataset.notes)")
        #expect(dataset.items.map(\.id) == Self.itemIDs)
        for item in dataset.items {
            #expect(item.problem == nil, "\(item.id): \(String(describing: item.problem))")
            #expect(item.imageIdentity?.hasPrefix("sha256:") == true, "\(item.id)")
        }
    }

    @Test("`altbench datasets validate --strict` finds nothing to fix")
    func validatesStrictly() {
        let validation = DatasetValidator(strict: true).validate(directory: Self.folder, displayPath: "datasets/sample")
        #expect(validation.passed, "\(validation.report)")
        #expect(validation.problems.isEmpty && validation.warnings.isEmpty, "\(validation.report)")
        #expect(validation.itemCount == Self.itemIDs.count)
        #expect(validation.summary == "datasets/sample: \(Self.itemIDs.count) items, 0 problems, 0 warnings.")
    }

    @Test("it covers what people post: at least 24 images of every kind the issue lists")
    func coverage() throws {
        let dataset = try Self.load()
        #expect(dataset.items.count >= 24)
        let tags = Set(dataset.items.flatMap(\.tags))
        for tag in [
            "photo", "animal", "food", "landscape", "object", "street", "text", "sign", "poster", "meme", "chart",
            "screenshot", "code", "social", "diagram", "art", "abstract", "decorative",
        ] {
            #expect(tags.contains(tag), "no item is tagged \(tag)")
        }
        #expect(dataset.items.contains { $0.decorative })
        #expect(dataset.items.filter { $0.expectedText != nil }.count >= 6)
        let languages = Set(dataset.items.compactMap(\.lang))
        #expect(languages.isSuperset(of: ["en", "fr", "de", "es"]), "\(languages.sorted())")
        #expect(dataset.items.filter { $0.lang != "en" }.count >= 3)
    }

    @Test("each item has three references (fuller, ≤ 150, ≤ 80 characters), terms, tags, context and a language", arguments: itemIDs)
    func itemShape(id: String) throws {
        let item = try #require(try Self.load().items.first { $0.id == id })
        let lengths = item.references.map { $0.unicodeScalars.count }
        #expect(item.references.count >= 3, "\(id)")
        // Fullest first: the offline mock answers with the first reference, so the default
        // run shows what each token limit cuts off.
        if lengths.count >= 3 {
            #expect(lengths[0] > 150 && lengths[0] > lengths[1], "\(id): the first reference is the fuller one, not \(lengths[0]) characters")
            #expect(lengths[1] <= 150, "\(id): the second fits the brevity budget (≤ 150 characters), not \(lengths[1])")
            #expect(lengths[2] <= 80, "\(id): the third is the short one (≤ 80 characters), not \(lengths[2])")
        }
        #expect((2...4).contains(item.mustMention.count), "\(id): must_mention holds 2–4 terms")
        for term in item.mustMention {
            let mentioned = item.references.contains { $0.localizedCaseInsensitiveContains(term) }
            #expect(mentioned, "\(id): no reference mentions its own must_mention term '\(term)'")
        }
        #expect(!item.tags.isEmpty, "\(id)")
        #expect(item.context?.isEmpty == false, "\(id): every item has the post it belongs to")
        #expect(item.lang != nil, "\(id)")
        if let text = item.expectedText {
            #expect(item.tags.contains("text"), "\(id): an item with expected_text is tagged text")
            #expect(text == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(id)")
        }
    }

    @Test("no reference fails altbench's own checks", arguments: itemIDs)
    func referencesPassTheScorers(id: String) throws {
        let item = try #require(try Self.load().items.first { $0.id == id })
        let checks: Set<String> = [
            ScoreName.empty, ScoreName.firstPerson, ScoreName.truncated, ScoreName.refusal, ScoreName.redundantPrefix,
        ]
        for (index, reference) in item.references.enumerated() {
            for score in ScoringSuite.evaluate(ScoringInput(content: reference)) where checks.contains(score.name) {
                #expect(!score.isFlagged, "\(id) reference \(index + 1) is flagged \(score.name) (\(score.detail ?? "")): \(reference)")
            }
        }
    }

    @Test("the folder stays small: under 8 MB, no image over 1024 px on its long edge")
    func size() throws {
        let dataset = try Self.load()
        var total = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.folder.path) {
            let attributes = try FileManager.default.attributesOfItem(atPath: Self.folder.appendingPathComponent(name).path)
            total += (attributes[.size] as? NSNumber)?.intValue ?? 0
        }
        #expect(total < 8 * 1024 * 1024, "datasets/sample holds \(total) bytes")
        for item in dataset.items {
            let info = try #require(item.imageInfo, "\(item.id)")
            #expect(max(info.width, info.height) <= 1024, "\(item.id) is \(info.width) x \(info.height)")
        }
    }

    @Test("every image in the folder is in the manifest, and SOURCES.md names each one")
    func sources() throws {
        let dataset = try Self.load()
        let sources = try String(contentsOf: Self.folder.appendingPathComponent("SOURCES.md"), encoding: .utf8)
        let images = Set(
            try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
                .filter { !["manifest.jsonl", "SOURCES.md", "README.md"].contains($0) })
        var listed = Set<String>()
        for item in dataset.items {
            guard case .file(let path, _) = item.image else {
                Issue.record("\(item.id): the sample is local files only")
                continue
            }
            listed.insert(path)
            #expect(sources.contains("`\(path)`"), "SOURCES.md does not name \(path)")
        }
        #expect(images == listed, "not in the manifest: \(images.subtracting(listed).sorted())")
    }
}
