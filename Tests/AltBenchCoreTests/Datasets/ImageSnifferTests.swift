import Foundation
import Testing

@testable import AltBenchCore

/// The fixture folder, found from this file's own location so the tests need no bundle resources.
///
/// Symlinks are resolved first: a package that links this folder in from
/// elsewhere compiles it under the link's path, and the fixtures live beside
/// the real folder, not the link.
private let fixturesFolder = URL(fileURLWithPath: #filePath)
    .resolvingSymlinksInPath()
    .deletingLastPathComponent()  // Datasets
    .deletingLastPathComponent()  // AltBenchCoreTests
    .appendingPathComponent("Fixtures/images", isDirectory: true)

/// The sample dataset shipped with altbench, in `datasets/sample` at the package root.
private let sampleFolder = fixturesFolder
    .deletingLastPathComponent()  // Fixtures
    .deletingLastPathComponent()  // AltBenchCoreTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // package root
    .appendingPathComponent("datasets/sample", isDirectory: true)

/// What the sniffer should make of one fixture file.
private struct Fixture: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable {
        case image(ImageFormat, width: Int, height: Int, animated: Bool = false)
        case unsupported(String)
        case notAnImage
    }

    var name: String
    var expected: Expected
    /// The shortest prefix that holds the whole header, for formats whose size sits at a fixed offset.
    var headerBytes: Int?

    var testDescription: String { name }

    /// The path used in errors, shaped like the dataset paths users will see.
    var datasetPath: String { "datasets/fixtures/\(name)" }

    func bytes() throws -> Data {
        try Data(contentsOf: fixturesFolder.appendingPathComponent(name))
    }

    var expectedOutcome: Result<ImageHeader, ImageProblem> {
        switch expected {
        case .image(let format, let width, let height, _):
            .success(ImageHeader(format: format, width: width, height: height))
        case .unsupported(let name):
            .failure(.unsupportedFormat(path: datasetPath, format: name))
        case .notAnImage:
            .failure(.notAnImage(path: datasetPath))
        }
    }
}

/// Every file make_fixtures.py writes, with sizes hard-coded rather than read from
/// the generator, so a change there that breaks the table shows up here.
private let fixtures: [Fixture] = [
    Fixture(name: "png.png", expected: .image(.png, width: 37, height: 21), headerBytes: 24),
    Fixture(name: "jpeg-baseline.jpg", expected: .image(.jpeg, width: 41, height: 23)),
    Fixture(name: "jpeg-progressive.jpg", expected: .image(.jpeg, width: 43, height: 19)),
    Fixture(name: "jpeg-exif.jpg", expected: .image(.jpeg, width: 29, height: 47)),
    Fixture(name: "webp-lossy.webp", expected: .image(.webp, width: 45, height: 27), headerBytes: 30),
    Fixture(name: "webp-lossless.webp", expected: .image(.webp, width: 31, height: 17), headerBytes: 25),
    Fixture(name: "webp-alpha.webp", expected: .image(.webp, width: 53, height: 33), headerBytes: 30),
    Fixture(name: "webp-animated.webp", expected: .image(.webp, width: 26, height: 14), headerBytes: 30),
    Fixture(name: "gif-static.gif", expected: .image(.gif, width: 35, height: 25), headerBytes: 10),
    Fixture(name: "gif-animated.gif", expected: .image(.gif, width: 39, height: 22, animated: true), headerBytes: 10),
    Fixture(name: "bmp.bmp", expected: .unsupported("BMP")),
    Fixture(name: "tiff.tiff", expected: .unsupported("TIFF")),
    Fixture(name: "ico.ico", expected: .unsupported("ICO")),
    Fixture(name: "avif.avif", expected: .unsupported("AVIF")),
    Fixture(name: "heic-brand.heic", expected: .unsupported("HEIC")),
    Fixture(name: "drawing.svg", expected: .unsupported("SVG")),
    Fixture(name: "document.pdf", expected: .notAnImage),
    Fixture(name: "fake.png", expected: .notAnImage),
    Fixture(name: "empty.png", expected: .notAnImage),
]

/// The sniffer's answer as a value, so tests can compare successes and failures alike.
private func sniffOutcome(_ bytes: Data, path: String) -> Result<ImageHeader, ImageProblem> {
    Result { () throws(ImageProblem) in try ImageSniffer.sniff(bytes, path: path) }
}

/// The same bytes as a slice that does not start at index 0, as `Data` read from a larger buffer may be.
private func offsetSlice(_ bytes: Data) -> Data {
    let padded = Data(repeating: 0xAB, count: 7) + bytes + Data(repeating: 0xCD, count: 5)
    return padded[7..<(7 + bytes.count)]
}

@Suite("ImageSniffer on encoded fixtures")
private struct ImageSnifferFixtureTests {
    @Test("fixture folder holds exactly the files in the table")
    func tableCoversFolder() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: fixturesFolder.path)
            .filter { $0 != "make_fixtures.py" && !$0.hasPrefix(".") }
        #expect(Set(names) == Set(fixtures.map(\.name)))
        #expect(names.count == fixtures.count)
    }

    @Test("format and size", arguments: fixtures)
    func sniffsFixture(_ fixture: Fixture) throws {
        let bytes = try fixture.bytes()
        #expect(sniffOutcome(bytes, path: fixture.datasetPath) == fixture.expectedOutcome)
        #expect(sniffOutcome(offsetSlice(bytes), path: fixture.datasetPath) == fixture.expectedOutcome)
    }

    @Test("animated GIF detection", arguments: fixtures)
    func animation(_ fixture: Fixture) throws {
        let bytes = try fixture.bytes()
        let animatedGIF = if case .image(.gif, _, _, let animated) = fixture.expected { animated } else { false }
        #expect(ImageSniffer.isAnimatedGIF(bytes) == animatedGIF)
        #expect(ImageSniffer.isAnimatedGIF(offsetSlice(bytes)) == animatedGIF)
    }

    /// Every cut of every file either gives the full file's answer or throws, and once the
    /// header is complete, longer cuts keep giving it: a download cut short must never trap
    /// or yield a wrong size.
    @Test("every truncated prefix succeeds or throws", arguments: fixtures)
    func truncatedPrefixes(_ fixture: Fixture) throws {
        let bytes = try fixture.bytes()
        let full = fixture.expectedOutcome
        var firstSuccess: Int?
        for length in 0...bytes.count {
            let prefix = offsetSlice(bytes.prefix(length))
            let outcome = sniffOutcome(prefix, path: fixture.datasetPath)
            _ = ImageSniffer.isAnimatedGIF(prefix)
            switch outcome {
            case .success:
                #expect(outcome == full, "prefix of \(length) bytes")
                if firstSuccess == nil { firstSuccess = length }
            case .failure(let problem):
                #expect(firstSuccess == nil, "prefix of \(length) bytes failed after a shorter one succeeded")
                switch (problem, full) {
                case (.corruptHeader, .success), (.notAnImage, _), (_, .failure):
                    break
                default:
                    Issue.record("prefix of \(length) bytes: unexpected \(problem)")
                }
            }
        }
        if case .success = full {
            let needed = try #require(firstSuccess)
            if let headerBytes = fixture.headerBytes {
                #expect(needed == headerBytes)
            }
        } else {
            #expect(firstSuccess == nil)
        }
    }

    @Test("a cut GIF is never called animated unless the full file is")
    func truncatedStaticGIF() throws {
        let bytes = try Fixture(name: "gif-static.gif", expected: .notAnImage).bytes()
        for length in 0...bytes.count {
            #expect(!ImageSniffer.isAnimatedGIF(bytes.prefix(length)))
        }
    }

    @Test("problem messages name the file", arguments: fixtures)
    func messagesNameTheFile(_ fixture: Fixture) throws {
        guard case .failure(let problem) = sniffOutcome(try fixture.bytes(), path: fixture.datasetPath) else { return }
        #expect(problem.message.hasPrefix(fixture.datasetPath + " "))
        #expect(problem.message.hasSuffix("."))
        #expect(problem.description == problem.message)
        #expect(problem.path == fixture.datasetPath)
    }
}

/// The bundled sample images: photos from camera pipelines, and PNG, JPEG, WEBP and GIF files
/// written by Pillow and matplotlib. Each must sniff as an accepted, still image small enough
/// to send, with the format and size Pillow reads from it (the table below).
@Suite("bundled sample dataset")
private struct SampleDatasetTests {
    static let expected: [String: ImageHeader] = [
        "chelsea.png": ImageHeader(format: .png, width: 451, height: 300),
        "coffee.png": ImageHeader(format: .png, width: 600, height: 400),
        "astronaut.png": ImageHeader(format: .png, width: 512, height: 512),
        "rocket.jpg": ImageHeader(format: .jpeg, width: 640, height: 427),
        "camera.png": ImageHeader(format: .png, width: 512, height: 512),
        "staircase.png": ImageHeader(format: .png, width: 512, height: 512),
        "raccoon.jpg": ImageHeader(format: .jpeg, width: 1024, height: 768),
        "flower.jpg": ImageHeader(format: .jpeg, width: 640, height: 427),
        "summer-palace.jpg": ImageHeader(format: .jpeg, width: 640, height: 427),
        "dune.webp": ImageHeader(format: .webp, width: 1024, height: 640),
        "coins.png": ImageHeader(format: .png, width: 384, height: 303),
        "hubble-deep-field.jpg": ImageHeader(format: .jpeg, width: 1000, height: 872),
        "grace-hopper.jpg": ImageHeader(format: .jpeg, width: 512, height: 600),
        "horse.png": ImageHeader(format: .png, width: 400, height: 328),
        "brick.png": ImageHeader(format: .png, width: 512, height: 512),
        "page.png": ImageHeader(format: .png, width: 384, height: 191),
        "sign-closed.png": ImageHeader(format: .png, width: 900, height: 700),
        "panneau-boulangerie.png": ImageHeader(format: .png, width: 800, height: 1000),
        "schild-enten.png": ImageHeader(format: .png, width: 1000, height: 750),
        "cartel-taller.png": ImageHeader(format: .png, width: 768, height: 1024),
        "meme-tests-pass.jpg": ImageHeader(format: .jpeg, width: 902, height: 600),
        "chart-alt-text.png": ImageHeader(format: .png, width: 880, height: 550),
        "code-swift.png": ImageHeader(format: .png, width: 1000, height: 300),
        "post-screenshot.png": ImageHeader(format: .png, width: 900, height: 520),
        "diagram-pipeline.gif": ImageHeader(format: .gif, width: 1000, height: 560),
        "artwork-grid.png": ImageHeader(format: .png, width: 800, height: 800),
        "banner-waves.png": ImageHeader(format: .png, width: 1024, height: 256),
    ]

    @Test("every manifest image sniffs as an accepted image of the known size")
    func sampleImages() throws {
        let manifest = try String(contentsOf: sampleFolder.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        let allowedKeys: Set<String> = [
            "id", "image", "references", "context", "lang", "expected_text", "must_mention", "tags", "decorative",
        ]
        var images: [String] = []
        for line in manifest.split(separator: "\n") where !line.isEmpty {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys).isSubset(of: allowedKeys), "\(object.keys.sorted())")
            images.append(try #require(object["image"] as? String))
        }
        #expect(Set(images) == Set(Self.expected.keys))
        for image in images {
            let bytes = try Data(contentsOf: sampleFolder.appendingPathComponent(image))
            #expect(bytes.count < 1_048_576, "\(image) should stay under 1 MB")
            #expect(sniffOutcome(bytes, path: image) == Self.expected[image].map { .success($0) })
            #expect(!ImageSniffer.isAnimatedGIF(bytes))
        }
    }
}

/// Hand-made byte strings for cases a well-behaved encoder never writes.
private struct Crafted: Sendable, CustomTestStringConvertible {
    var label: String
    var bytes: [UInt8]
    var expected: Result<ImageHeader, ImageProblem>

    var testDescription: String { label }

    init(_ label: String, _ bytes: [UInt8], _ expected: Result<ImageHeader, ImageProblem>) {
        self.label = label
        self.bytes = bytes
        self.expected = expected
    }
}

private let path = "datasets/x/file"

private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
private func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
private func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }
private func le16(_ value: Int) -> [UInt8] { be16(value).reversed() }
private func le32(_ value: Int) -> [UInt8] { be32(value).reversed() }

private let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
private func pngHeader(width: Int, height: Int) -> [UInt8] {
    pngSignature + be32(13) + ascii("IHDR") + be32(width) + be32(height) + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
}

/// A baseline frame header for a 3-component image.
private func sof(_ marker: UInt8 = 0xC0, width: Int, height: Int) -> [UInt8] {
    [0xFF, marker] + be16(17) + [8] + be16(height) + be16(width) + [3] + Array(repeating: 0x11, count: 9)
}
private let soi: [UInt8] = [0xFF, 0xD8]
private func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
    [0xFF, marker] + be16(payload.count + 2) + payload
}

private func riff(_ chunk: String, _ payload: [UInt8]) -> [UInt8] {
    ascii("RIFF") + le32(payload.count + 12) + ascii("WEBP") + ascii(chunk) + le32(payload.count) + payload
}

private func ftyp(_ brands: [String]) -> [UInt8] {
    let body = ascii(brands[0]) + be32(0) + brands.dropFirst().flatMap(ascii)
    return be32(body.count + 8) + ascii("ftyp") + body
}

private func header(_ format: ImageFormat, _ width: Int, _ height: Int) -> Result<ImageHeader, ImageProblem> {
    .success(ImageHeader(format: format, width: width, height: height))
}
private func corrupt(_ format: ImageFormat) -> Result<ImageHeader, ImageProblem> {
    .failure(.corruptHeader(path: path, format: format))
}
private func unsupported(_ name: String) -> Result<ImageHeader, ImageProblem> {
    .failure(.unsupportedFormat(path: path, format: name))
}
private let notAnImage = Result<ImageHeader, ImageProblem>.failure(.notAnImage(path: path))

private let craftedCases: [Crafted] = [
    // PNG
    Crafted("png wide", pngHeader(width: 70_000, height: 3), header(.png, 70_000, 3)),
    Crafted("png zero width", pngHeader(width: 0, height: 5), corrupt(.png)),
    Crafted("png over 2^31", pngHeader(width: 0x8000_0000, height: 5), corrupt(.png)),
    Crafted("png line endings rewritten", [0x89, 0x50, 0x4E, 0x47, 0x0A, 0x1A, 0x0A] + Array(pngHeader(width: 4, height: 4).dropFirst(8)), corrupt(.png)),
    Crafted("png first chunk not IHDR", pngSignature + be32(13) + ascii("IDAT") + be32(4) + be32(4) + [8, 2, 0, 0, 0], corrupt(.png)),
    // JPEG
    Crafted("jpeg minimal", soi + sof(width: 640, height: 480), header(.jpeg, 640, 480)),
    Crafted("jpeg SOF2", soi + sof(0xC2, width: 3, height: 1000), header(.jpeg, 3, 1000)),
    Crafted("jpeg arithmetic SOF9", soi + sof(0xC9, width: 7, height: 9), header(.jpeg, 7, 9)),
    Crafted("jpeg DHT and JPG and DAC are not frames",
            soi + segment(0xC4, [0, 1]) + segment(0xC8, [0]) + segment(0xCC, [0, 0]) + sof(width: 5, height: 6),
            header(.jpeg, 5, 6)),
    Crafted("jpeg fill bytes and standalone markers",
            soi + [0xFF, 0xFF, 0xFF, 0x01, 0xFF, 0xD0] + segment(0xE0, ascii("JFIF\0")) + [0xFF, 0xFF] + sof(width: 11, height: 12),
            header(.jpeg, 11, 12)),
    Crafted("jpeg doubled start of image", soi + soi + sof(width: 9, height: 10), header(.jpeg, 9, 10)),
    Crafted("jpeg stray bytes between segments",
            soi + segment(0xE0, [1, 2]) + [0x00, 0x12, 0x34] + sof(width: 13, height: 14), header(.jpeg, 13, 14)),
    Crafted("jpeg big APP1 first", soi + segment(0xE1, Array(repeating: 0xC0, count: 60_000)) + sof(width: 8, height: 2), header(.jpeg, 8, 2)),
    Crafted("jpeg segment length 0", soi + [0xFF, 0xE0, 0x00, 0x00] + sof(width: 5, height: 5), corrupt(.jpeg)),
    Crafted("jpeg segment length 1", soi + [0xFF, 0xE0, 0x00, 0x01] + sof(width: 5, height: 5), corrupt(.jpeg)),
    Crafted("jpeg segment past the end", soi + [0xFF, 0xE1, 0xFF, 0xFF, 1, 2, 3], corrupt(.jpeg)),
    Crafted("jpeg end before frame", soi + [0xFF, 0xD9] + sof(width: 5, height: 5), corrupt(.jpeg)),
    Crafted("jpeg scan before frame", soi + segment(0xDA, [1, 2, 3]) + sof(width: 5, height: 5), corrupt(.jpeg)),
    Crafted("jpeg zero height", soi + sof(width: 5, height: 0), corrupt(.jpeg)),
    Crafted("jpeg frame header too short", soi + [0xFF, 0xC0, 0x00, 0x07, 8, 0, 5, 0, 5], corrupt(.jpeg)),
    Crafted("jpeg all fill bytes", soi + Array(repeating: 0xFF, count: 500), corrupt(.jpeg)),
    Crafted("jpeg only SOI", [0xFF, 0xD8, 0xFF], corrupt(.jpeg)),
    // GIF
    Crafted("gif87a", ascii("GIF87a") + le16(300) + le16(2) + [0, 0, 0], header(.gif, 300, 2)),
    Crafted("gif zero height", ascii("GIF89a") + le16(3) + le16(0) + [0, 0, 0], corrupt(.gif)),
    Crafted("gif unknown version", ascii("GIF88a") + le16(3) + le16(3) + [0, 0, 0], corrupt(.gif)),
    // WEBP
    Crafted("webp lossy 14-bit sizes ignore scale bits", riff("VP8 ", [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + le16(0xC000 | 16383) + le16(0x4000 | 2)),
            header(.webp, 16383, 2)),
    Crafted("webp lossy no start code", riff("VP8 ", [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2B] + le16(5) + le16(5)), corrupt(.webp)),
    Crafted("webp lossy zero width", riff("VP8 ", [0x10, 0x02, 0x00, 0x9D, 0x01, 0x2A] + le16(0) + le16(5)), corrupt(.webp)),
    Crafted("webp lossless max", riff("VP8L", [0x2F, 0xFF, 0xFF, 0xFF, 0x0F]), header(.webp, 16384, 16384)),
    Crafted("webp lossless bad signature", riff("VP8L", [0x2E, 0, 0, 0, 0]), corrupt(.webp)),
    Crafted("webp extended 24-bit canvas", riff("VP8X", [0x10, 0, 0, 0, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]), header(.webp, 65536, 65537)),
    Crafted("webp unknown first chunk", riff("ALPH", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), corrupt(.webp)),
    Crafted("riff audio", ascii("RIFF") + le32(100) + ascii("WAVEfmt ") + le32(16), notAnImage),
    // Formats the APIs refuse
    Crafted("tiff big endian", ascii("MM") + [0, 42] + be32(8), unsupported("TIFF")),
    Crafted("bigtiff", ascii("II") + [43, 0, 8, 0, 0, 0], unsupported("TIFF")),
    Crafted("avif brand listed after mif1", ftyp(["mif1", "mif1", "miaf", "avif"]), unsupported("AVIF")),
    Crafted("heif generic", ftyp(["mif1", "mif1"]), unsupported("HEIF")),
    Crafted("heic sequence", ftyp(["hevc", "msf1", "hevc"]), unsupported("HEIC")),
    Crafted("mp4 video", ftyp(["isom", "isom", "mp41"]), notAnImage),
    Crafted("jpeg xl codestream", [0xFF, 0x0A, 0xFA, 0x7F], unsupported("JPEG XL")),
    Crafted("jpeg xl container", [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], unsupported("JPEG XL")),
    Crafted("jpeg 2000", [0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A], unsupported("JPEG 2000")),
    Crafted("photoshop", ascii("8BPS") + [0, 1], unsupported("Photoshop (PSD)")),
    Crafted("ico with no images", [0, 0, 1, 0, 0, 0], notAnImage),
    Crafted("svg with BOM and whitespace", [0xEF, 0xBB, 0xBF] + ascii("\n  <svg width=\"1\"/>"), unsupported("SVG")),
    Crafted("svg with doctype subset",
            ascii("<?xml version=\"1.0\"?>\r\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" [ <!ENTITY a \"<b>\"> ]>\n<svg>"),
            unsupported("SVG")),
    Crafted("svg bare", ascii("<svg>"), unsupported("SVG")),
    Crafted("svg-like element name", ascii("<svgx>"), notAnImage),
    Crafted("svg unterminated comment", ascii("<!-- <svg>"), notAnImage),
    Crafted("html with inline svg", ascii("<!DOCTYPE html><html><body><svg></svg></body></html>"), notAnImage),
    Crafted("text starting BM", ascii("BMW service notes: oil, brakes, tyres."), notAnImage),
    Crafted("pdf", ascii("%PDF-1.4\n"), notAnImage),
    Crafted("one byte", [0x89], notAnImage),
]

@Suite("ImageSniffer on crafted bytes")
private struct ImageSnifferCraftedTests {
    @Test("crafted headers", arguments: craftedCases)
    func crafted(_ crafted: Crafted) {
        let bytes = Data(crafted.bytes)
        #expect(sniffOutcome(bytes, path: path) == crafted.expected)
        #expect(sniffOutcome(offsetSlice(bytes), path: path) == crafted.expected)
        for length in 0..<bytes.count {
            _ = sniffOutcome(bytes.prefix(length), path: path)
            _ = ImageSniffer.isAnimatedGIF(bytes.prefix(length))
        }
    }

    /// One image, with 0x2C (',') in the palette and in a comment, where a byte search would count frames.
    @Test("commas outside image descriptors are not frames")
    func commasAreNotFrames() {
        let palette: [UInt8] = [0x2C, 0x2C, 0x2C, 0, 0, 0]
        let comment: [UInt8] = [0x21, 0xFE, 5] + ascii("a,b,c") + [0]
        let control: [UInt8] = [0x21, 0xF9, 4, 0, 0, 0, 0, 0]
        let image: [UInt8] = [0x2C] + le16(0) + le16(0) + le16(1) + le16(1) + [0] + [2, 2, 0x4C, 0x01, 0]
        let single = ascii("GIF89a") + le16(1) + le16(1) + [0x80, 0, 0] + palette + comment + control + image + [0x3B]
        #expect(!ImageSniffer.isAnimatedGIF(Data(single)))
        let double = Array(single.dropLast()) + control + image + [0x3B]
        #expect(ImageSniffer.isAnimatedGIF(Data(double)))
        #expect(!ImageSniffer.isAnimatedGIF(Data(ascii("GIF89a"))))
        #expect(!ImageSniffer.isAnimatedGIF(Data()))
    }

    /// Random bytes behind each magic number, and fixtures with random bytes overwritten:
    /// none may trap. The generator is seeded so a failure can be replayed.
    @Test("random and damaged input never traps")
    func fuzz() throws {
        var random = SplitMix64(seed: 0xA17_BE4C)
        let magics: [[UInt8]] = [
            [], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF], ascii("GIF89a"),
            ascii("RIFF") + [0, 0, 0, 0] + ascii("WEBPVP8 "), ascii("RIFF") + [0, 0, 0, 0] + ascii("WEBPVP8L"),
            ascii("RIFF") + [0, 0, 0, 0] + ascii("WEBPVP8X"), ascii("BM"), [0, 0, 0, 24] + ascii("ftyp"),
            ascii("<?xml"), ascii("<!DOCTYPE"), [0, 0, 1, 0],
        ]
        for magic in magics {
            for _ in 0..<400 {
                let tail = (0..<Int(random.next() % 80)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                let bytes = Data(magic + tail)
                _ = sniffOutcome(bytes, path: path)
                _ = ImageSniffer.isAnimatedGIF(bytes)
            }
        }
        for fixture in fixtures {
            let original = try fixture.bytes()
            guard !original.isEmpty else { continue }
            for _ in 0..<200 {
                var bytes = original
                for _ in 0..<1 + Int(random.next() % 4) {
                    let index = Int(random.next() % UInt64(bytes.count))
                    bytes[index] = UInt8(truncatingIfNeeded: random.next())
                }
                _ = sniffOutcome(bytes, path: fixture.datasetPath)
                _ = ImageSniffer.isAnimatedGIF(bytes)
            }
        }
    }
}


@Suite("ImageProblem messages")
private struct ImageProblemMessageTests {
    static let cases: [(ImageProblem, String)] = [
        (.unsupportedFormat(path: "datasets/sample/photo.bmp", format: "BMP"),
         "datasets/sample/photo.bmp is a BMP image, which vision APIs do not accept: convert it to PNG or JPEG."),
        (.unsupportedFormat(path: "a/b.svg", format: "SVG"),
         "a/b.svg is an SVG image, which vision APIs do not accept: convert it to PNG or JPEG."),
        (.unsupportedFormat(path: "a/b.avif", format: "AVIF"),
         "a/b.avif is an AVIF image, which vision APIs do not accept: convert it to PNG or JPEG."),
        (.tooLarge(path: "datasets/x/a.png", bytes: 24_536_678, limit: 20 * 1_048_576),
         "datasets/x/a.png is 23.4 MB, over the 20 MB limit for one image: resize or recompress it."),
        (.tooLarge(path: "datasets/x/a.png", bytes: 20 * 1_048_576 + 1, limit: 20 * 1_048_576),
         "datasets/x/a.png is 20971521 bytes, over the 20971520-byte limit for one image: resize or recompress it."),
        (.tooLarge(path: "x.jpg", bytes: 6_000_000, limit: 5_000_000),
         "x.jpg is 5.7 MB, over the 4.8 MB limit for one image: resize or recompress it."),
        (.missing(path: "datasets/x/missing.jpg"),
         "datasets/x/missing.jpg does not exist: fix the path in manifest.jsonl or add the file."),
        (.notAnImage(path: "datasets/x/notes.png"),
         "datasets/x/notes.png is not an image (its first bytes match no image format): replace it with a PNG, JPEG, WEBP or GIF file."),
        (.animatedGIF(path: "datasets/x/wave.gif"),
         "datasets/x/wave.gif is an animated GIF, which vision APIs do not accept: export one frame as PNG or a still GIF."),
        (.corruptHeader(path: "datasets/x/cut.webp", format: .webp),
         "datasets/x/cut.webp starts like a WEBP file but its header is cut short or damaged: export it again from the original."),
        (.unreadable(path: "datasets/x/locked.png", reason: "permission denied"),
         "datasets/x/locked.png could not be read (permission denied): check that the file is readable."),
        (.unreadable(path: "a.png", reason: "The file couldn’t be opened."),
         "a.png could not be read (The file couldn’t be opened): check that the file is readable."),
    ]

    @Test("exact wording", arguments: cases)
    func wording(_ problem: ImageProblem, _ expected: String) {
        #expect(problem.message == expected)
        #expect("\(problem)" == expected)
    }
}
