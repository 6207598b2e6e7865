import Foundation
import Testing

@testable import AltBenchCore

/// `datasets/NAME/`: a manifest or a bare folder of images; manifest errors name the line,
/// image problems stay with their item.
@Suite("dataset loading")
struct DatasetLoaderTests {
    /// The real image files the loader is tested on, found from this file's own location.
    ///
    /// Symlinks are resolved first: a package that links the tests in from elsewhere compiles
    /// them under the link's path, while the fixtures sit beside the real folder.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Datasets
        .deletingLastPathComponent()  // AltBenchCoreTests
        .appendingPathComponent("Fixtures/images", isDirectory: true)

    static let repositoryRoot = fixtures
        .deletingLastPathComponent()  // Fixtures
        .deletingLastPathComponent()  // AltBenchCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root

    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(name))
    }

    /// A fresh dataset folder per test, named `ds` inside its own temporary parent.
    struct Folder {
        let parent: URL
        var url: URL { parent.appendingPathComponent("ds", isDirectory: true) }

        init() throws {
            parent = FileManager.default.temporaryDirectory
                .appendingPathComponent("altbench-dataset-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(
                at: parent.appendingPathComponent("ds"), withIntermediateDirectories: true)
        }

        /// Copies a fixture image in under `name` (default: its own name).
        func copy(_ fixture: String, as name: String? = nil) throws {
            try write(name ?? fixture, DatasetLoaderTests.fixture(fixture))
        }

        func write(_ name: String, _ data: Data) throws {
            let target = url.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: target)
        }

        func write(_ name: String, _ text: String) throws {
            try write(name, Data(text.utf8))
        }

        func manifest(_ lines: [String]) throws {
            try write("manifest.jsonl", lines.joined(separator: "\n") + "\n")
        }

        func load(limit: Int = DatasetLoader.defaultImageSizeLimit) throws -> Dataset {
            try DatasetLoader(imageSizeLimit: limit).load(directory: url, displayPath: "datasets/ds")
        }

        func remove() {
            try? FileManager.default.removeItem(at: parent)
        }
    }

    /// Makes a sparse file: a real image header followed by a hole up to `size` bytes.
    ///
    /// Holes take no disk space and cost nothing to make, so tests can use files of any size.
    static func writeSparse(_ url: URL, header: Data, size: UInt64) throws {
        try header.write(to: url)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: size)
    }

    // MARK: - Manifest

    @Test("every manifest field is read, and local images get their facts")
    func manifestFields() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png", as: "cat.png")
        try folder.copy("jpeg-baseline.jpg", as: "photos/dog.jpg")
        try folder.manifest([
            #"{"id": "cat", "image": "cat.png", "references": ["A cat.", "A tabby."], "context": "My cat!", "lang": "en", "expected_text": "MEOW", "must_mention": ["cat"], "tags": ["photo", "animal"], "decorative": false}"#,
            "",
            #"{"id": "dog", "image": "photos/dog.jpg", "references": "A dog.", "decorative": true}"#,
        ])
        let dataset = try folder.load()
        #expect(dataset.name == "ds")
        #expect(dataset.path == "datasets/ds")
        #expect(dataset.notes.isEmpty)
        try #require(dataset.items.count == 2)

        let cat = dataset.items[0]
        #expect(cat.id == "cat")
        #expect(cat.line == 1)
        #expect(cat.references == ["A cat.", "A tabby."])
        #expect(cat.context == "My cat!")
        #expect(cat.lang == "en")
        #expect(cat.expectedText == "MEOW")
        #expect(cat.mustMention == ["cat"])
        #expect(cat.tags == ["photo", "animal"])
        #expect(cat.decorative == false)
        #expect(cat.problem == nil)
        let catBytes = try Self.fixture("png.png")
        #expect(cat.image == .file(path: "cat.png", url: folder.url.appendingPathComponent("cat.png")))
        #expect(
            cat.imageInfo
                == ImageInfo(
                    format: .png, width: 37, height: 21, byteCount: catBytes.count,
                    sha256: Hashing.sha256Hex(catBytes)))
        #expect(cat.imageIdentity == "sha256:\(Hashing.sha256Hex(catBytes))")

        let dog = dataset.items[1]
        #expect(dog.id == "dog")
        #expect(dog.line == 3, "blank lines are skipped but still counted")
        #expect(dog.references == ["A dog."], "a single reference may be given as a string")
        #expect(dog.decorative)
        #expect(dog.context == nil)
        #expect(dog.lang == nil)
        #expect(dog.expectedText == nil)
        #expect(dog.mustMention.isEmpty)
        #expect(dog.tags.isEmpty)
        let dogBytes = try Self.fixture("jpeg-baseline.jpg")
        #expect(dog.imageInfo?.format == .jpeg)
        #expect(dog.imageInfo?.width == 41)
        #expect(dog.imageInfo?.height == 23)
        #expect(dog.imageInfo?.byteCount == dogBytes.count)
        #expect(dog.imageIdentity == "sha256:\(Hashing.sha256Hex(dogBytes))")
    }

    @Test("null optional fields count as absent")
    func nullFields() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.manifest([
            #"{"id": "a", "image": "png.png", "references": null, "context": null, "decorative": null, "tags": null}"#
        ])
        let item = try #require(try folder.load().items.first)
        #expect(item.references.isEmpty)
        #expect(item.context == nil)
        #expect(item.decorative == false)
        #expect(item.tags.isEmpty)
    }

    @Test("an absolute image path is used as is")
    func absoluteImagePath() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let outside = folder.parent.appendingPathComponent("outside.png")
        try Self.fixture("png.png").write(to: outside)
        try folder.manifest([#"{"id": "a", "image": "\#(outside.path)"}"#])
        let item = try #require(try folder.load().items.first)
        #expect(item.image == .file(path: outside.path, url: outside))
        #expect(item.imageInfo?.format == .png)
    }

    static let remoteImages = [
        "https://files.mastodon.social/media_attachments/files/1/original/cat.png",
        "http://127.0.0.1:8080/images/cat.jpg?size=large",
        "HTTPS://example.com/UPPER.PNG",
    ]

    @Test("http(s) images are remote, identified by their URL", arguments: remoteImages)
    func remoteImage(_ address: String) throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.manifest([#"{"id": "r", "image": "\#(address)", "references": ["A picture."]}"#])
        let item = try #require(try folder.load().items.first)
        #expect(item.image == .remote(try #require(URL(string: address))))
        #expect(item.imageIdentity == address)
        #expect(item.imageInfo == nil)
        #expect(item.problem == nil)
    }

    @Test("unknown keys are a note naming the line, not an error")
    func unknownKeys() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.manifest([
            #"{"id": "a", "image": "png.png"}"#,
            #"{"id": "b", "image": "png.png", "referances": ["typo"], "zzzzzzzzzz": 1}"#,
        ])
        let dataset = try folder.load()
        #expect(dataset.items.map(\.id) == ["a", "b"])
        #expect(dataset.items[1].references.isEmpty)
        #expect(dataset.notes.count == 2)
        let typo = try #require(dataset.notes.first { $0.contains("referances") })
        #expect(typo.hasPrefix("datasets/ds/manifest.jsonl:2: "))
        #expect(typo.contains("ignored"))
        #expect(typo.contains("did you mean `references`?"))
        let other = try #require(dataset.notes.first { $0.contains("zzzzzzzzzz") })
        #expect(!other.contains("did you mean"))
    }

    @Test("CRLF line endings in the manifest are fine, and lines count the same")
    func crlfManifest() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.write(
            "manifest.jsonl",
            #"{"id": "a", "image": "png.png"}"# + "\r\n\r\n" + #"{"id": "b", "image": "png.png", "context": "x"}"# + "\r\n")
        let dataset = try folder.load()
        #expect(dataset.items.map(\.id) == ["a", "b"])
        #expect(dataset.items.map(\.line) == [1, 3])
        #expect(dataset.items[1].context == "x")
    }

    @Test("a CRLF manifest reports a broken line by its own number")
    func crlfManifestErrorLine() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.write(
            "manifest.jsonl", #"{"id": "a", "image": "png.png"}"# + "\r\n" + #"{"id": "b""# + "\r\n")
        let error = #expect(throws: AltBenchError.self) { try folder.load() }
        #expect(String(describing: error!).hasPrefix("datasets/ds/manifest.jsonl:2: "))
    }

    @Test("a manifest saved with a byte order mark loads")
    func manifestWithBOM() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.write("manifest.jsonl", "\u{FEFF}" + #"{"id": "a", "image": "png.png"}"# + "\n")
        let dataset = try folder.load()
        #expect(dataset.items.map(\.id) == ["a"])
        #expect(dataset.items.map(\.line) == [1])
    }

    struct ManifestErrorCase: Sendable, CustomTestStringConvertible {
        var label: String
        var lines: [String]
        var line: Int
        var mentions: [String]
        var testDescription: String { label }
    }

    static let good = #"{"id": "ok", "image": "png.png"}"#

    static let manifestErrors: [ManifestErrorCase] = [
        ManifestErrorCase(
            label: "not JSON", lines: [good, #"{"id": "b", "image": "png.png""#], line: 2,
            mentions: ["not valid JSON", "missing quote, comma or brace"]),
        ManifestErrorCase(
            label: "not JSON after blank lines", lines: ["", good, "", "  ", "id: x"], line: 5,
            mentions: ["not valid JSON"]),
        ManifestErrorCase(
            label: "two objects on one line", lines: [good + " " + good], line: 1, mentions: ["not valid JSON"]),
        ManifestErrorCase(
            label: "an array, not an object", lines: [#"["a", "b"]"#], line: 1,
            mentions: ["one JSON object such as"]),
        ManifestErrorCase(
            label: "a bare string", lines: [good, #""cat.png""#], line: 2, mentions: ["one JSON object"]),
        ManifestErrorCase(
            label: "missing id", lines: [#"{"image": "png.png"}"#], line: 1, mentions: ["no `id`", "unique \"id\""]),
        ManifestErrorCase(
            label: "empty id", lines: [#"{"id": "", "image": "png.png"}"#], line: 1, mentions: ["no `id`"]),
        ManifestErrorCase(
            label: "id as a number", lines: [#"{"id": 7, "image": "png.png"}"#], line: 1,
            mentions: ["`id` must be a string"]),
        ManifestErrorCase(
            label: "missing image", lines: [good, #"{"id": "b"}"#], line: 2,
            mentions: ["item 'b' has no `image`", "relative to datasets/ds", "http(s) URL"]),
        ManifestErrorCase(
            label: "duplicate id names both lines", lines: [good, "", #"{"id": "ok", "image": "png.png"}"#], line: 3,
            mentions: ["'ok' is already used on line 1", "unique"]),
        ManifestErrorCase(
            label: "references as a number", lines: [#"{"id": "a", "image": "png.png", "references": 5}"#], line: 1,
            mentions: ["`references` must be a list of strings"]),
        ManifestErrorCase(
            label: "references with a number inside",
            lines: [#"{"id": "a", "image": "png.png", "references": ["ok", 5]}"#], line: 1,
            mentions: ["`references` must be a list of strings"]),
        ManifestErrorCase(
            label: "decorative as yes", lines: [#"{"id": "a", "image": "png.png", "decorative": "yes"}"#], line: 1,
            mentions: ["`decorative` must be true or false"]),
        ManifestErrorCase(
            label: "decorative as 1", lines: [#"{"id": "a", "image": "png.png", "decorative": 1}"#], line: 1,
            mentions: ["`decorative` must be true or false"]),
        ManifestErrorCase(
            label: "context as a list", lines: [#"{"id": "a", "image": "png.png", "context": ["x"]}"#], line: 1,
            mentions: ["`context` must be a string"]),
        ManifestErrorCase(
            label: "tags as an object", lines: [#"{"id": "a", "image": "png.png", "tags": {"a": 1}}"#], line: 1,
            mentions: ["`tags` must be a list of strings"]),
        ManifestErrorCase(
            label: "image as a number", lines: [#"{"id": "a", "image": 3}"#], line: 1,
            mentions: ["`image` must be a string"]),
        ManifestErrorCase(
            label: "a data URL", lines: [#"{"id": "a", "image": "data:image/png;base64,iVBORw0KGgo="}"#], line: 1,
            mentions: ["must be a file path or an http(s) URL"]),
        ManifestErrorCase(
            label: "an ftp URL", lines: [#"{"id": "a", "image": "ftp://example.com/a.png"}"#], line: 1,
            mentions: ["must be a file path or an http(s) URL"]),
        ManifestErrorCase(
            label: "an http URL with no host", lines: [#"{"id": "a", "image": "http://"}"#], line: 1,
            mentions: ["is not a valid URL"]),
    ]

    @Test("manifest errors name the file and line and say what to do", arguments: manifestErrors)
    func manifestError(_ row: ManifestErrorCase) throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.manifest(row.lines)
        let error = #expect(throws: AltBenchError.self) { try folder.load() }
        guard case .manifestLine(let file, let line, _) = error else {
            Issue.record("expected a manifest line error, got \(String(describing: error))")
            return
        }
        #expect(file == "datasets/ds/manifest.jsonl")
        #expect(line == row.line)
        let message = String(describing: error!)
        #expect(message.hasPrefix("datasets/ds/manifest.jsonl:\(row.line): "), "\(message)")
        for word in row.mentions {
            #expect(message.contains(word), "\(message)")
        }
    }

    @Test("a manifest that is not UTF-8 is an error naming it")
    func manifestNotUTF8() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("manifest.jsonl", Data([0x7B, 0x22, 0xE9, 0x22, 0x7D, 0x0A]))
        let error = #expect(throws: AltBenchError.self) { try folder.load() }
        #expect(String(describing: error!).hasPrefix("datasets/ds/manifest.jsonl:1: "))
        #expect(String(describing: error!).contains("UTF-8"))
    }

    // MARK: - Image problems stay with their item

    struct ImageProblemCase: Sendable, CustomTestStringConvertible {
        var fixture: String?
        var name: String
        var problem: ImageProblem
        var mentions: [String]
        var testDescription: String { name }
    }

    static let imageProblems: [ImageProblemCase] = [
        ImageProblemCase(
            fixture: nil, name: "missing.png", problem: .missing(path: "datasets/ds/missing.png"),
            mentions: ["does not exist"]),
        ImageProblemCase(
            fixture: "bmp.bmp", name: "bmp.bmp", problem: .unsupportedFormat(path: "datasets/ds/bmp.bmp", format: "BMP"),
            mentions: ["BMP", "convert it to PNG or JPEG"]),
        ImageProblemCase(
            fixture: "tiff.tiff", name: "tiff.tiff",
            problem: .unsupportedFormat(path: "datasets/ds/tiff.tiff", format: "TIFF"), mentions: ["TIFF"]),
        ImageProblemCase(
            fixture: "fake.png", name: "fake.png", problem: .notAnImage(path: "datasets/ds/fake.png"),
            mentions: ["is not an image"]),
        ImageProblemCase(
            fixture: "empty.png", name: "empty.png", problem: .notAnImage(path: "datasets/ds/empty.png"),
            mentions: ["is not an image"]),
        ImageProblemCase(
            fixture: "document.pdf", name: "document.pdf", problem: .notAnImage(path: "datasets/ds/document.pdf"),
            mentions: ["is not an image"]),
    ]

    @Test("a bad image sets the item's problem and the rest load", arguments: imageProblems)
    func imageProblem(_ row: ImageProblemCase) throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png", as: "good.png")
        if let fixture = row.fixture { try folder.copy(fixture, as: row.name) }
        try folder.manifest([
            #"{"id": "good1", "image": "good.png"}"#,
            #"{"id": "bad", "image": "\#(row.name)", "references": ["x"]}"#,
            #"{"id": "good2", "image": "good.png"}"#,
        ])
        let dataset = try folder.load()
        #expect(dataset.items.map(\.id) == ["good1", "bad", "good2"])
        let bad = dataset.items[1]
        #expect(bad.problem == row.problem)
        #expect(bad.imageInfo == nil)
        #expect(bad.imageIdentity == nil)
        #expect(bad.references == ["x"])
        let message = try #require(bad.problem?.message)
        #expect(message.contains("datasets/ds/\(row.name)"))
        for word in row.mentions {
            #expect(message.contains(word), "\(message)")
        }
        for good in [dataset.items[0], dataset.items[2]] {
            #expect(good.problem == nil)
            #expect(good.imageInfo?.format == .png)
            #expect(good.imageInfo?.width == 37)
        }
    }

    @Test("an image one byte over 20 MB is too large, and says so in MB")
    func imageTooLarge() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let limit = DatasetLoader.defaultImageSizeLimit
        #expect(limit == 20 * 1024 * 1024)
        try Self.writeSparse(
            folder.url.appendingPathComponent("huge.png"), header: Self.fixture("png.png"), size: UInt64(limit + 1))
        try folder.copy("png.png", as: "good.png")
        try folder.manifest([#"{"id": "huge", "image": "huge.png"}"#, #"{"id": "good", "image": "good.png"}"#])
        let dataset = try folder.load()
        #expect(dataset.items[0].problem == .tooLarge(path: "datasets/ds/huge.png", bytes: limit + 1, limit: limit))
        let message = try #require(dataset.items[0].problem?.message)
        #expect(message.contains("datasets/ds/huge.png"))
        #expect(message.contains("resize or recompress it"))
        #expect(dataset.items[1].problem == nil)
    }

    @Test("an image of exactly 20 MB is accepted")
    func imageAtTheLimit() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let limit = DatasetLoader.defaultImageSizeLimit
        try Self.writeSparse(
            folder.url.appendingPathComponent("big.png"), header: Self.fixture("png.png"), size: UInt64(limit))
        try folder.manifest([#"{"id": "big", "image": "big.png"}"#])
        let item = try #require(try folder.load().items.first)
        #expect(item.problem == nil)
        #expect(item.imageInfo?.format == .png)
        #expect(item.imageInfo?.byteCount == limit)
    }

    @Test("the size is checked before the file is read")
    func sizeCheckedBeforeReading() throws {
        let folder = try Folder()
        defer { folder.remove() }
        // 64 GiB, more than memory holds: a loader that read the file before checking its size
        // would report it unreadable (or never finish), not too large.
        let size: UInt64 = 64 << 30
        try Self.writeSparse(folder.url.appendingPathComponent("vast.png"), header: Self.fixture("png.png"), size: size)
        try folder.manifest([#"{"id": "vast", "image": "vast.png"}"#])
        let item = try #require(try folder.load().items.first)
        #expect(
            item.problem
                == .tooLarge(path: "datasets/ds/vast.png", bytes: Int(size), limit: DatasetLoader.defaultImageSizeLimit))
    }

    @Test("a smaller size limit can be set")
    func customLimit() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.manifest([Self.good])
        let bytes = try Self.fixture("png.png").count
        #expect(try folder.load(limit: bytes).items[0].problem == nil)
        #expect(
            try folder.load(limit: bytes - 1).items[0].problem
                == .tooLarge(path: "datasets/ds/png.png", bytes: bytes, limit: bytes - 1))
    }

    @Test("a folder named like an image is not an image")
    func directoryAsImage() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("folder.png"), withIntermediateDirectories: true)
        try folder.manifest([#"{"id": "a", "image": "folder.png"}"#])
        #expect(try folder.load().items[0].problem == .notAnImage(path: "datasets/ds/folder.png"))
    }

    // MARK: - Bare folders

    @Test("a bare folder: images sorted by name, ids are stems, other files noted, hidden ignored")
    func bareFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png", as: "b-cat.png")
        try folder.copy("jpeg-baseline.jpg", as: "a-dog.JPG")
        try folder.copy("webp-lossy.webp", as: "c-bird.webp")
        try folder.copy("png.png", as: ".hidden.png")
        try folder.write(".DS_Store", "x")
        try folder.write("notes.txt", "Some notes.\n")
        try folder.write("sub/inner.png", try Self.fixture("png.png"))
        let dataset = try folder.load()
        #expect(dataset.name == "ds")
        #expect(dataset.items.map(\.id) == ["a-dog", "b-cat", "c-bird"])
        #expect(dataset.items.map(\.line) == [nil, nil, nil])
        #expect(dataset.items.allSatisfy { $0.references.isEmpty && $0.problem == nil })
        #expect(dataset.items.map { $0.imageInfo?.format } == [.jpeg, .png, .webp])
        #expect(dataset.items[0].image == .file(path: "a-dog.JPG", url: folder.url.appendingPathComponent("a-dog.JPG")))
        #expect(dataset.notes == ["datasets/ds/notes.txt: not an image file name, skipped."])
    }

    @Test("two images sharing a stem keep their full names as ids")
    func sharedStems() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png", as: "cat.png")
        try folder.copy("jpeg-baseline.jpg", as: "cat.jpg")
        try folder.copy("png.png", as: "dog.png")
        let dataset = try folder.load()
        #expect(dataset.items.map(\.id) == ["cat.jpg", "cat.png", "dog"])
        #expect(Set(dataset.items.map(\.id)).count == dataset.items.count)
    }

    @Test("ids in a bare folder are unique even when a full name matches another stem")
    func stemMatchingAFullName() throws {
        let folder = try Folder()
        defer { folder.remove() }
        // "cat.png" and "cat.jpg" share the stem "cat" and fall back to full names, and the
        // stem of "cat.png.gif" is "cat.png".
        try folder.copy("png.png", as: "cat.png")
        try folder.copy("jpeg-baseline.jpg", as: "cat.jpg")
        try folder.copy("gif-static.gif", as: "cat.png.gif")
        let ids = try folder.load().items.map(\.id)
        #expect(ids.count == 3)
        #expect(Set(ids).count == 3, "ids: \(ids)")
    }

    @Test("bad images in a bare folder keep their problem")
    func bareFolderProblems() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("fake.png")
        try folder.copy("bmp.bmp")
        try folder.copy("png.png")
        let dataset = try folder.load()
        #expect(dataset.items.map(\.id) == ["bmp", "fake", "png"])
        #expect(dataset.items[0].problem == .unsupportedFormat(path: "datasets/ds/bmp.bmp", format: "BMP"))
        #expect(dataset.items[1].problem == .notAnImage(path: "datasets/ds/fake.png"))
        #expect(dataset.items[2].problem == nil)
    }

    // MARK: - Missing and empty datasets

    @Test("a missing dataset folder is an error naming it")
    func missingDataset() throws {
        let folder = try Folder()
        defer { folder.remove() }
        #expect(throws: AltBenchError.datasetMissing(path: "datasets/nope")) {
            try DatasetLoader().load(directory: folder.url.appendingPathComponent("nope"), displayPath: "datasets/nope/")
        }
        let message = String(describing: AltBenchError.datasetMissing(path: "datasets/nope"))
        #expect(message.contains("'datasets/nope' does not exist"))
        #expect(message.contains("--dataset DIR"))
    }

    @Test("a folder with no images is an empty dataset")
    func emptyFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("notes.txt", "nothing here")
        #expect(throws: AltBenchError.datasetEmpty(path: "datasets/ds")) { try folder.load() }
        let message = String(describing: AltBenchError.datasetEmpty(path: "datasets/ds"))
        #expect(message.contains("'datasets/ds' holds no items"))
        #expect(message.contains("manifest.jsonl"))
    }

    @Test("a manifest of blank lines is an empty dataset")
    func emptyManifest() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")  // images beside an empty manifest do not count
        try folder.write("manifest.jsonl", "\n  \n\n")
        #expect(throws: AltBenchError.datasetEmpty(path: "datasets/ds")) { try folder.load() }
    }

    @Test("the display path loses its trailing slash")
    func displayPathSlash() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        let dataset = try DatasetLoader().load(directory: folder.url, displayPath: "datasets/ds/")
        #expect(dataset.path == "datasets/ds")
    }
}
