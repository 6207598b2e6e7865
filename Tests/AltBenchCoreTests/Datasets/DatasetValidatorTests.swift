import Foundation
import Testing

@testable import AltBenchCore

extension DatasetLoaderTests.Folder {
    func validate(strict: Bool = false, limit: Int = DatasetLoader.defaultImageSizeLimit) -> DatasetValidation {
        DatasetValidator(imageSizeLimit: limit, strict: strict).validate(directory: url, displayPath: "datasets/ds")
    }
}

/// `altbench datasets validate`: every problem in a dataset, each with its line, item and fix;
/// warnings apart unless strict.
@Suite("dataset validation")
struct DatasetValidatorTests {
    typealias Folder = DatasetLoaderTests.Folder

    static let file = "datasets/ds/manifest.jsonl"

    /// A line with nothing wrong, to change one thing at a time.
    static func line(_ extra: String = "", id: String = "cat", image: String = "png.png") -> String {
        #"{"id": "\#(id)", "image": "\#(image)", "references": ["A tabby cat asleep on a red sofa."]\#(extra)}"#
    }

    // MARK: - One problem at a time

    struct ProblemCase: Sendable, CustomTestStringConvertible {
        var label: String
        var lines: [String]
        /// The manifest line the problem is on.
        var line: Int
        var id: String?
        var mentions: [String]
        var testDescription: String { label }
    }

    static let problems: [ProblemCase] = [
        ProblemCase(
            label: "not JSON", lines: [line(), #"{"id": "b", "image": "png.png""#], line: 2, id: nil,
            mentions: ["not valid JSON", "missing quote, comma or brace"]),
        ProblemCase(
            label: "an array, not an object", lines: [#"["a"]"#], line: 1, id: nil, mentions: ["one JSON object such as"]),
        ProblemCase(
            label: "missing id", lines: [#"{"image": "png.png", "references": ["A cat."]}"#], line: 1, id: nil,
            mentions: ["no `id`", "unique \"id\""]),
        ProblemCase(
            label: "empty id", lines: [line(id: "")], line: 1, id: nil, mentions: ["no `id`"]),
        ProblemCase(
            label: "id as a number", lines: [#"{"id": 7, "image": "png.png", "references": ["A cat."]}"#], line: 1,
            id: nil, mentions: ["`id` must be a string"]),
        ProblemCase(
            label: "duplicate id names the earlier line", lines: [line(), "", line()], line: 3, id: "cat",
            mentions: ["'cat' is already used on line 1", "unique"]),
        ProblemCase(
            label: "missing image", lines: [#"{"id": "cat", "references": ["A cat."]}"#], line: 1, id: "cat",
            mentions: ["`image` is missing", "relative to datasets/ds", "http(s) URL"]),
        ProblemCase(
            label: "image as a number", lines: [#"{"id": "cat", "image": 3, "references": ["A cat."]}"#], line: 1,
            id: "cat", mentions: ["`image` must be a string"]),
        ProblemCase(
            label: "references as a number", lines: [#"{"id": "cat", "image": "png.png", "references": 5}"#], line: 1,
            id: "cat", mentions: ["`references` must be a list of strings"]),
        ProblemCase(
            label: "must_mention with a number inside", lines: [line(#", "must_mention": ["cat", 2]"#)], line: 1,
            id: "cat", mentions: ["`must_mention` must be a list of strings"]),
        ProblemCase(
            label: "tags as an object", lines: [line(#", "tags": {"a": 1}"#)], line: 1, id: "cat",
            mentions: ["`tags` must be a list of strings"]),
        ProblemCase(
            label: "context as a list", lines: [line(#", "context": ["x"]"#)], line: 1, id: "cat",
            mentions: ["`context` must be a string"]),
        ProblemCase(
            label: "lang as a number", lines: [line(#", "lang": 1"#)], line: 1, id: "cat",
            mentions: ["`lang` must be a string"]),
        ProblemCase(
            label: "expected_text as a list", lines: [line(#", "expected_text": ["MEOW"]"#)], line: 1, id: "cat",
            mentions: ["`expected_text` must be a string"]),
        ProblemCase(
            label: "decorative as yes", lines: [line(#", "decorative": "yes""#)], line: 1, id: "cat",
            mentions: ["`decorative` must be true or false"]),
        ProblemCase(
            label: "a data URL", lines: [line(image: "data:image/png;base64,iVBORw0KGgo=")], line: 1, id: "cat",
            mentions: ["must be a file path or an http(s) URL"]),
        ProblemCase(
            label: "an http URL with no host", lines: [line(image: "http://")], line: 1, id: "cat",
            mentions: ["is not a valid URL"]),
        ProblemCase(
            label: "a missing image file", lines: [line(image: "missing.png")], line: 1, id: "cat",
            mentions: ["datasets/ds/missing.png does not exist", "add the file"]),
        ProblemCase(
            label: "a BMP image", lines: [line(image: "bmp.bmp")], line: 1, id: "cat",
            mentions: ["datasets/ds/bmp.bmp", "BMP", "convert it to PNG or JPEG"]),
        ProblemCase(
            label: "an animated GIF", lines: [line(image: "gif-animated.gif")], line: 1, id: "cat",
            mentions: ["datasets/ds/gif-animated.gif is an animated GIF", "export one frame as PNG or a still GIF"]),
        ProblemCase(
            label: "a text file named .png", lines: [line(image: "fake.png")], line: 1, id: "cat",
            mentions: ["datasets/ds/fake.png is not an image"]),
        ProblemCase(
            label: "no references", lines: [#"{"id": "cat", "image": "png.png"}"#], line: 1, id: "cat",
            mentions: ["no references", "\"references\": [\"...\"]"]),
        ProblemCase(
            label: "an empty list of references", lines: [#"{"id": "cat", "image": "png.png", "references": []}"#],
            line: 1, id: "cat", mentions: ["no references"]),
        ProblemCase(
            label: "null references", lines: [#"{"id": "cat", "image": "png.png", "references": null}"#], line: 1,
            id: "cat", mentions: ["no references"]),
        ProblemCase(
            label: "a blank reference", lines: [#"{"id": "cat", "image": "png.png", "references": ["A cat.", "  "]}"#],
            line: 1, id: "cat", mentions: ["reference 2 is blank", "remove the entry"]),
        ProblemCase(
            label: "an invisible reference",
            lines: [#"{"id": "cat", "image": "png.png", "references": ["A cat.", "\u200B\u2060"]}"#], line: 1, id: "cat",
            mentions: ["reference 2 is blank"]),
        ProblemCase(
            label: "a blank single reference", lines: [#"{"id": "cat", "image": "png.png", "references": ""}"#],
            line: 1, id: "cat", mentions: ["reference 1 is blank"]),
        ProblemCase(
            label: "blank expected_text", lines: [line(#", "expected_text": " ""#)], line: 1, id: "cat",
            mentions: ["`expected_text` is blank", "text visible in the image"]),
        ProblemCase(
            label: "a blank must_mention term", lines: [line(#", "must_mention": ["cat", ""]"#)], line: 1, id: "cat",
            mentions: ["`must_mention` term 2 is blank"]),
        ProblemCase(
            label: "lang as a word", lines: [line(#", "lang": "english""#)], line: 1, id: "cat",
            mentions: ["'english' is not a BCP 47 language tag", "such as en, fr or pt-BR"]),
        ProblemCase(
            label: "lang with an underscore", lines: [line(#", "lang": "pt_BR""#)], line: 1, id: "cat",
            mentions: ["'pt_BR' is not a BCP 47 language tag", "with a hyphen, 'pt-BR'"]),
        ProblemCase(
            label: "blank lang", lines: [line(#", "lang": """#)], line: 1, id: "cat", mentions: ["`lang` is blank"]),
        ProblemCase(
            label: "a misspelt key", lines: [line(#", "refrences": ["typo"]"#)], line: 1, id: "cat",
            mentions: ["unknown key `refrences`", "did you mean `references`?"]),
        ProblemCase(
            label: "a key like no other", lines: [line(#", "zzzzzzzzzz": 1"#)], line: 1, id: "cat",
            mentions: ["unknown key `zzzzzzzzzz`", "use one of id, image, references"]),
    ]

    @Test("each check reports one problem naming the line, the item and the fix", arguments: problems)
    func oneProblem(_ row: ProblemCase) throws {
        let folder = try Folder()
        defer { folder.remove() }
        for fixture in ["png.png", "bmp.bmp", "fake.png", "gif-animated.gif"] { try folder.copy(fixture) }
        try folder.manifest(row.lines)
        let validation = folder.validate()
        #expect(!validation.passed)
        try #require(validation.problems.count == 1, "\(validation.report)")
        let problem = validation.problems[0]
        #expect(problem.location == "\(Self.file):\(row.line)")
        #expect(problem.itemID == row.id)
        for word in row.mentions {
            #expect(problem.message.contains(word), "\(problem.message)")
        }
        let prefix = row.id.map { "\(Self.file):\(row.line): item '\($0)': " } ?? "\(Self.file):\(row.line): "
        #expect(problem.description == prefix + problem.message)
    }

    @Test("every line that stops a run is a problem on the same line", arguments: DatasetLoaderTests.manifestErrors)
    func agreesWithTheLoader(_ row: DatasetLoaderTests.ManifestErrorCase) throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.manifest(row.lines)
        let error = #expect(throws: AltBenchError.self) { try folder.load() }
        guard case .manifestLine(_, _, let runMessage) = error else {
            Issue.record("expected a manifest line error, got \(String(describing: error))")
            return
        }
        let onLine = folder.validate().problems.filter { $0.location == "\(Self.file):\(row.line)" }
        // The same words, except that `run` names the item inside its sentence.
        #expect(
            onLine.contains { runMessage == $0.message || runMessage == "item '\($0.itemID ?? "")': \($0.message)" }
                || (runMessage.contains("has no `image`") && onLine.contains { $0.message.hasPrefix("`image` is missing") }),
            "\(runMessage) vs \(onLine.map(\.message))")
    }

    @Test("a good manifest passes with no diagnostics")
    func goodManifest() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.copy("jpeg-baseline.jpg", as: "photos/dog.jpg")
        try folder.manifest([
            #"{"id": "cat", "image": "png.png", "references": ["A tabby cat asleep on a red sofa.", "A sleeping cat."], "context": "My cat!", "lang": "en", "expected_text": "MEOW", "must_mention": ["cat"], "tags": ["photo"], "decorative": false}"#,
            "",
            #"{"id": "dog", "image": "photos/dog.jpg", "references": "A brown dog on a beach.", "lang": "pt-BR"}"#,
        ])
        let validation = folder.validate(strict: true)
        #expect(validation.diagnostics.isEmpty, "\(validation.report)")
        #expect(validation.passed)
        #expect(validation.itemCount == 2)
        #expect(validation.report == "datasets/ds: 2 items, 0 problems, 0 warnings.\n")
    }

    // MARK: - Many problems at once

    @Test("every problem in the manifest is reported, in file order, with its line")
    func manyProblems() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.copy("bmp.bmp")
        try folder.copy("gif-static.gif", as: "unused.gif")
        try folder.manifest([
            Self.line(),
            "",
            #"{"id": "cat", "image": "bmp.bmp", "refrences": ["A cat."]}"#,
            "not json",
            #"{"id": "dog", "image": "missing.png", "references": ["A dog", "I think this is my dog."], "lang": "en_GB", "tags": "x", "decorative": 1}"#,
            "  ",
            #"{"image": "png.png", "references": ["Image of a bird.", "image of a bird."]}"#,
        ])
        let validation = folder.validate()
        #expect(validation.itemCount == 5)
        #expect(
            validation.diagnostics.map(\.description) == [
                "\(Self.file):3: item 'cat': the id 'cat' is already used on line 1. Ids must be unique.",
                "\(Self.file):3: item 'cat': unknown key `refrences` is ignored (did you mean `references`?): rename or remove it.",
                "\(Self.file):3: item 'cat': datasets/ds/bmp.bmp is a BMP image, which vision APIs do not accept: convert it to PNG or JPEG.",
                "\(Self.file):3: item 'cat': there are no references: add \"references\": [\"...\"] with at least one human-written alt text, since answers are judged against them.",
                "\(Self.file):4: this line is not valid JSON. Each line must be one complete JSON object, e.g. {\"id\": \"cat\", \"image\": \"cat.png\"}; check for a missing quote, comma or brace.",
                "\(Self.file):5: item 'dog': `decorative` must be true or false.",
                "\(Self.file):5: item 'dog': datasets/ds/missing.png does not exist: fix the path in manifest.jsonl or add the file.",
                "\(Self.file):5: warning: item 'dog': reference 2 is written in the first person, flagged `first_person` (I, my): describe the image without speaking as the writer.",
                "\(Self.file):5: item 'dog': `lang` 'en_GB' is not a BCP 47 language tag: separate its parts with a hyphen, 'en-GB'.",
                "\(Self.file):7: the item has no `id`. Give every line a unique \"id\".",
                "\(Self.file):7: warning: reference 1 opens with a redundant prefix, flagged `redundant_prefix` (Image of): start with the subject, since screen readers already announce an image.",
                "\(Self.file):7: warning: reference 2 repeats reference 1: remove the copy.",
                "datasets/ds/unused.gif: warning: no line of manifest.jsonl uses this image: add a line for it, or delete the file.",
            ], "\(validation.report)")
        // "tags": "x" is a list of one, as the loader reads it: not a problem.
        #expect(validation.summary == "datasets/ds: 5 items, 9 problems, 4 warnings.")
        #expect(validation.report.hasSuffix("\ndatasets/ds: 5 items, 9 problems, 4 warnings.\n"))
    }

    // MARK: - Warnings

    struct WarningCase: Sendable, CustomTestStringConvertible {
        var label: String
        var references: [String]
        /// The scorer that flags the reference, or nil for a repeat.
        var check: String?
        var mentions: [String]
        var testDescription: String { label }
    }

    static let warnings: [WarningCase] = [
        WarningCase(
            label: "a repeated reference", references: ["A cat on a sofa.", "a cat  on a sofa."], check: nil,
            mentions: ["reference 2 repeats reference 1"]),
        WarningCase(
            label: "a first-person reference", references: ["We adopted this cat last week."], check: ScoreName.firstPerson,
            mentions: ["first person", "`first_person`", "(we)"]),
        WarningCase(
            label: "a cut-off reference", references: ["A grey cat sleeping on a sofa with"], check: ScoreName.truncated,
            mentions: ["looks cut off", "`truncated`", "(ends on with)", "finish the sentence"]),
        WarningCase(
            label: "a refusal as a reference", references: ["I'm sorry, I can't describe this image."],
            check: ScoreName.refusal,
            mentions: ["reads like a refusal", "`refusal`"]),
        WarningCase(
            label: "a redundant prefix", references: ["A picture of a cat on a sofa."], check: ScoreName.redundantPrefix,
            mentions: ["redundant prefix", "`redundant_prefix`", "(A picture of)"]),
    ]

    @Test("flawed references are warnings, and problems when strict", arguments: warnings)
    func referenceWarning(_ row: WarningCase) throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        let references = String(data: try JSONEncoder().encode(row.references), encoding: .utf8)!
        try folder.manifest([#"{"id": "cat", "image": "png.png", "references": \#(references)}"#])

        let lenient = folder.validate()
        #expect(lenient.passed)
        // A refusal is in the first person too: each scorer that flags a reference is its own warning.
        let matching = lenient.warnings.filter { warning in
            row.check.map { warning.message.contains("`\($0)`") } ?? true
        }
        try #require(matching.count == 1, "\(lenient.report)")
        let warning = matching[0]
        #expect(warning.location == "\(Self.file):1")
        #expect(warning.itemID == "cat")
        #expect(warning.description == "\(Self.file):1: warning: item 'cat': \(warning.message)")
        for word in row.mentions {
            #expect(warning.message.contains(word), "\(warning.message)")
        }
        let count = lenient.warnings.count
        #expect(lenient.summary == "datasets/ds: 1 item, 0 problems, \(count) warning\(count == 1 ? "" : "s").")

        let strict = folder.validate(strict: true)
        #expect(!strict.passed)
        #expect(strict.warnings.isEmpty)
        #expect(strict.problems.map(\.message) == lenient.warnings.map(\.message))
        #expect(strict.problems.contains { $0.description == "\(Self.file):1: item 'cat': \(warning.message)" })
        #expect(strict.summary == "datasets/ds: 1 item, \(count) problem\(count == 1 ? "" : "s"), 0 warnings.")
    }

    @Test("images no line mentions are warnings; sub-folders count, hidden files do not")
    func unmentionedImages() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png", as: "photos/cat.png")
        try folder.copy("png.png", as: "photos/spare.png")
        try folder.copy("jpeg-baseline.jpg", as: "z.JPG")
        try folder.copy("png.png", as: ".hidden.png")
        try folder.copy("png.png", as: ".cache/thumb.png")
        try folder.write("notes.txt", "not an image")
        try folder.manifest([Self.line(image: "photos/../photos/cat.png")])
        let validation = folder.validate()
        #expect(validation.passed)
        #expect(validation.warnings.map(\.location) == ["datasets/ds/photos/spare.png", "datasets/ds/z.JPG"])
        #expect(validation.warnings.allSatisfy { $0.itemID == nil && $0.message.contains("no line of manifest.jsonl uses this image") })
        #expect(!folder.validate(strict: true).passed)
    }

    @Test("remote images are noted once, not fetched")
    func remoteImages() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.manifest([
            Self.line(id: "a", image: "https://example.com/a.png"), Self.line(id: "b", image: "https://example.com/b.png"),
        ])
        let validation = folder.validate(strict: true)
        #expect(validation.passed)
        #expect(validation.notes.map(\.description) == [
            "\(Self.file): note: 2 items use remote images, checked as URLs only: altbench does not download them before a run."
        ])
    }

    // MARK: - Bare folders

    @Test("a bare folder: image problems at the image's path, and one note that there are no references")
    func bareFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png", as: "cat.png")
        try folder.copy("bmp.bmp", as: "scan.bmp")
        try folder.copy("fake.png", as: "fake.png")
        try folder.write("notes.txt", "Some notes.\n")
        let validation = folder.validate()
        #expect(validation.itemCount == 3)
        #expect(!validation.passed)
        #expect(
            validation.diagnostics.map(\.description) == [
                "datasets/ds: note: a bare folder of images has no references, so answers cannot be compared with human alt text: add a manifest.jsonl to give each image its references.",
                "datasets/ds/fake.png: item 'fake': the file is not an image (its first bytes match no image format): replace it with a PNG, JPEG, WEBP or GIF file.",
                "datasets/ds/scan.bmp: item 'scan': the file is a BMP image, which vision APIs do not accept: convert it to PNG or JPEG.",
                "datasets/ds/notes.txt: note: not an image file name, skipped.",
            ], "\(validation.report)")
        #expect(validation.summary == "datasets/ds: 3 items, 2 problems, 0 warnings.")
    }

    @Test("a bare folder of good images passes, strict or not")
    func goodBareFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.copy("webp-lossy.webp")
        let validation = folder.validate(strict: true)
        #expect(validation.passed)
        #expect(validation.notes.count == 1)
        #expect(validation.summary == "datasets/ds: 2 items, 0 problems, 0 warnings.")
    }

    @Test("an image over the size limit is a problem")
    func imageTooLarge() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.copy("png.png")
        try folder.manifest([Self.line()])
        let bytes = try DatasetLoaderTests.fixture("png.png").count
        #expect(folder.validate(limit: bytes).passed)
        let problems = folder.validate(limit: bytes - 1).problems
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("resize or recompress it") == true)
    }

    // MARK: - Folders that are not datasets

    @Test("a missing folder is one problem naming it")
    func missingFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        let validation = DatasetValidator().validate(
            directory: folder.url.appendingPathComponent("nope"), displayPath: "datasets/nope/")
        #expect(!validation.passed)
        #expect(validation.report == """
            datasets/nope: the folder does not exist: pass a dataset folder holding manifest.jsonl or images.
            datasets/nope: 0 items, 1 problem, 0 warnings.

            """)
    }

    @Test("a file is not a dataset folder")
    func fileInsteadOfFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("manifest.jsonl", Self.line() + "\n")
        let validation = DatasetValidator().validate(
            directory: folder.url.appendingPathComponent("manifest.jsonl"), displayPath: "datasets/ds/manifest.jsonl")
        #expect(validation.problems.map(\.message) == [
            "this is a file, not a folder: pass the dataset folder holding manifest.jsonl or images."
        ])
    }

    @Test("a folder with no images and no manifest is a problem")
    func emptyFolder() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("notes.txt", "nothing here")
        let validation = folder.validate()
        #expect(!validation.passed)
        #expect(validation.problems.map(\.location) == ["datasets/ds"])
        #expect(validation.problems[0].message.contains("holds no images and no manifest.jsonl"))
    }

    @Test("a manifest of blank lines is a problem")
    func emptyManifest() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("manifest.jsonl", "\n  \n\n")
        let validation = folder.validate()
        #expect(validation.problems.map(\.location) == [Self.file])
        #expect(validation.problems[0].message.contains("the manifest holds no items"))
        #expect(validation.summary == "datasets/ds: 0 items, 1 problem, 0 warnings.")
    }

    @Test("a manifest that is not UTF-8 is a problem on line 1")
    func manifestNotUTF8() throws {
        let folder = try Folder()
        defer { folder.remove() }
        try folder.write("manifest.jsonl", Data([0x7B, 0x22, 0xE9, 0x22, 0x7D, 0x0A]))
        let validation = folder.validate()
        #expect(validation.problems.map(\.location) == ["\(Self.file):1"])
        #expect(validation.problems[0].message.contains("UTF-8"))
    }

    // MARK: - Output

    @Test("a newline in an id cannot split a diagnostic over two lines")
    func controlCharactersEscaped() {
        let diagnostic = DatasetDiagnostic(severity: .warning, location: "x:1", itemID: "a\nb", message: "m")
        #expect(diagnostic.description == #"x:1: warning: item 'a\nb': m"#)
    }

    // MARK: - Language tags

    static let goodTags = ["en", "fr", "pt-BR", "zh-Hant-TW", "es-419", "sr-Latn-RS", "de-CH-1996", "en-US-x-twain", "x-klingon", "EN-gb", "gsw", "zh-yue-HK", "en-a-bbb-x-a"]
    static let badTags = ["english", "en_US", "e", "en-", "-en", "en--US", "en-US-US", "12", "en-a", "x", "en US", "fr-FR.", "français"]

    @Test("BCP 47 shapes are accepted", arguments: goodTags)
    func goodLanguageTag(_ tag: String) {
        #expect(LanguageTag.isWellFormed(tag))
    }

    @Test("other lang values are refused", arguments: badTags)
    func badLanguageTag(_ tag: String) {
        #expect(!LanguageTag.isWellFormed(tag))
    }

    // MARK: - The shipped sample

    @Test("datasets/sample has no problems")
    func sampleDataset() {
        let validation = DatasetValidator().validate(
            directory: DatasetLoaderTests.repositoryRoot.appendingPathComponent("datasets/sample"),
            displayPath: "datasets/sample")
        #expect(validation.passed, "\(validation.report)")
        #expect(validation.itemCount > 0)
    }
}
