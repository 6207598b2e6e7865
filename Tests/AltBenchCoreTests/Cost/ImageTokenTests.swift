import Foundation
import Testing

@testable import AltBenchCore

/// The image-token counts of scripts/image_token_goldens.py (exact fractions in Python).
struct ImageTokenGoldens: Decodable {
    struct Row: Decodable, Sendable {
        var source: String
        var model: String
        var width: Int
        var height: Int
        var detail: String?
        var tokens: Int
    }

    var generator: String
    var rows: [Row]

    static let file = URL(fileURLWithPath: #filePath)
        .resolvingSymlinksInPath()
        .deletingLastPathComponent()  // Cost
        .deletingLastPathComponent()  // AltBenchCoreTests
        .appendingPathComponent("Fixtures/image-token-goldens.json")

    static func load() throws -> ImageTokenGoldens {
        try JSONDecoder().decode(ImageTokenGoldens.self, from: Data(contentsOf: file))
    }
}

@Suite("image tokens")
struct ImageTokenTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var model: String
        var width: Int
        var height: Int
        var detail: ImageDetail?
        var tokens: Int
        var testDescription: String { "\(model) \(width)×\(height) \(detail?.rawValue ?? "no detail") → \(tokens)" }

        init(_ model: String, _ width: Int, _ height: Int, _ detail: ImageDetail?, _ tokens: Int) {
            (self.model, self.width, self.height, self.detail, self.tokens) = (model, width, height, detail, tokens)
        }
    }

    /// Worked by hand from the published rules (each also a row of the Python goldens).
    static let worked: [Row] = [
        // The docs' examples.
        Row("gpt-4o", 1024, 1024, .high, 765),  // → 768×768, 2×2 tiles
        Row("gpt-4o", 1024, 1024, .low, 85),
        Row("gpt-4o", 512, 512, .high, 255),  // one tile
        Row("gpt-4o-mini", 1024, 1024, .high, 25_501),  // 2833 + 4 × 5667
        Row("gpt-4o", 4000, 3000, .high, 765),  // → 2048×1536 → 1024×768, 2×2 tiles
        Row("gpt-4.1-mini", 1024, 1024, .high, 1659),  // 32×32 patches × 1.62 = 1658.88
        Row("gpt-4.1-mini", 4000, 3000, .high, 2353),  // exactly 1408×1056: 44×33 = 1452 patches × 1.62
        // auto and no detail count as high; low is the base whatever the size.
        Row("gpt-4o", 1024, 1024, .auto, 765),
        Row("gpt-4o", 1024, 1024, nil, 765),
        Row("gpt-4o", 4000, 3000, .low, 85),
        Row("o1", 1024, 1024, .low, 75),
        Row("o3", 1024, 1024, .high, 675),  // 75 + 4 × 150
        Row("gpt-4o-mini", 1024, 1024, .low, 2833),
        Row("gpt-4.1", 2048, 2048, nil, 765),
        Row("chatgpt-4o-latest", 512, 513, .high, 425),  // 1×2 tiles
        // Small images are never enlarged.
        Row("gpt-4o", 1, 1, .high, 255),
        Row("o1", 1, 1, .high, 225),
        Row("gpt-4o-mini", 1, 1, .high, 8500),
        Row("gpt-4o", 513, 513, .high, 765),  // 2×2 tiles of 512
        Row("gpt-4o", 768, 768, .high, 765),  // shortest side exactly 768: unchanged, 2×2
        Row("gpt-4o", 769, 769, .high, 765),  // → 768×768
        Row("gpt-4o", 2048, 2048, .high, 765),  // → 768×768
        Row("gpt-4o", 2049, 1, .high, 765),  // → 2048×~1: 4×1 tiles
        Row("gpt-4o", 1, 10000, .high, 765),  // → ~0.2×2048: 1×4 tiles
        Row("gpt-4o", 10000, 1, .high, 765),
        Row("gpt-4o", 767, 4000, .high, 765),  // → ~393×2048: 1×4 tiles
        Row("gpt-4o", 512, 1024, .high, 425),  // 1×2 tiles, short side below 768
        Row("gpt-4o", 768, 2048, .high, 1445),  // the largest count: 2×4 tiles
        // Patch models: detail changes nothing.
        Row("gpt-4.1-mini", 1024, 1024, .low, 1659),
        Row("gpt-4.1-mini", 1024, 1024, .auto, 1659),
        Row("gpt-4.1-nano", 1024, 1024, .high, 2520),  // 1024 × 2.46 = 2519.04
        Row("o4-mini", 1024, 1024, .high, 1762),  // 1024 × 1.72 = 1761.28
        Row("gpt-4.1-nano", 4000, 3000, nil, 3572),  // 1452 × 2.46 = 3571.92
        Row("o4-mini", 4000, 3000, nil, 2498),  // 1452 × 1.72 = 2497.44
        Row("gpt-4.1-mini", 1, 1, nil, 2),  // one patch × 1.62, rounded up
        Row("gpt-4.1-mini", 1, 10000, nil, 508),  // 1×313 patches, under the cap
        Row("gpt-4.1-mini", 10000, 1, nil, 508),
        Row("gpt-4.1-mini", 513, 513, nil, 469),  // 17×17 = 289 patches
        Row("gpt-4.1-mini", 768, 768, nil, 934),  // 24×24 = 576
        Row("gpt-4.1-mini", 769, 769, nil, 1013),  // 25×25 = 625
        Row("gpt-4.1-mini", 2049, 1, nil, 106),  // 65×1 = 65
        // Over the cap: scaled down until a side is a whole number of patches.
        Row("gpt-4.1-mini", 2048, 2048, nil, 2465),  // 39×39 = 1521 patches
        Row("gpt-4.1-mini", 1249, 1249, nil, 2465),  // 40×40 = 1600 > 1536 → 39×39
        Row("gpt-4.1-mini", 767, 4000, nil, 2452),  // 17 × ⌈4000·17/767⌉ = 17 × 89 = 1513
        Row("gpt-4.1-mini", 100, 100_000, nil, 1620),  // 1 × 1000 patches
        Row("gpt-4.1-mini", 1536, 1024, nil, 2489),  // 48×32 = 1536 exactly: the cap, unscaled
    ]

    @Test(arguments: worked)
    func workedValues(_ row: Row) throws {
        let family = try #require(ImageTokenFamily.forModel(row.model))
        #expect(family.formula.tokens(width: row.width, height: row.height, detail: row.detail) == row.tokens)
    }

    /// Every row of the Python goldens: all families at the edge sizes and each detail,
    /// random sizes, and the sizes a float transcription of the patch rule gets wrong.
    @Test func matchesTheExactPythonGoldens() throws {
        let goldens = try ImageTokenGoldens.load()
        #expect(goldens.rows.count >= 300)
        #expect(goldens.rows.filter { $0.source == "float-boundary" }.count >= 100)
        #expect(goldens.rows.contains { $0.model == "gpt-4.1-mini" && $0.width == 4000 && $0.height == 3000 && $0.tokens == 2353 })
        var checked = 0
        for row in goldens.rows {
            let family = try #require(ImageTokenFamily.forModel(row.model), "\(row.model)")
            #expect(family.name == row.model)
            let detail = try row.detail.map { try #require(ImageDetail(rawValue: $0)) }
            let tokens = family.formula.tokens(width: row.width, height: row.height, detail: detail)
            #expect(tokens == row.tokens, "\(row.model) \(row.width)×\(row.height) \(row.detail ?? "nil") (\(row.source))")
            checked += 1
        }
        #expect(checked == goldens.rows.count)
    }

    /// Every family of the table is in the goldens, so none goes unchecked.
    @Test func goldensCoverEveryFamily() throws {
        let models = Set(try ImageTokenGoldens.load().rows.map(\.model))
        #expect(models == Set(ImageTokenFamily.known.map(\.name)))
    }

    /// The maximum is what a remote image of unknown size is counted at, so no size may
    /// cost more.
    @Test func maximumBoundsEveryGolden() throws {
        for row in try ImageTokenGoldens.load().rows {
            let formula = try #require(ImageTokenFamily.forModel(row.model)).formula
            let detail = row.detail.flatMap(ImageDetail.init(rawValue:))
            #expect(row.tokens <= formula.maximumTokens(detail: detail), "\(row.model) \(row.width)×\(row.height)")
        }
    }

    struct MaximumRow: Sendable, CustomTestStringConvertible {
        var model: String
        var detail: ImageDetail?
        var tokens: Int
        var testDescription: String { "\(model) \(detail?.rawValue ?? "no detail") → \(tokens)" }
    }

    static let maxima: [MaximumRow] = [
        MaximumRow(model: "gpt-4o", detail: .high, tokens: 1445),  // 85 + 8 × 170
        MaximumRow(model: "gpt-4o", detail: .auto, tokens: 1445),
        MaximumRow(model: "gpt-4o", detail: nil, tokens: 1445),
        MaximumRow(model: "gpt-4o", detail: .low, tokens: 85),
        MaximumRow(model: "gpt-4o-mini", detail: .high, tokens: 48_169),  // 2833 + 8 × 5667
        MaximumRow(model: "o1", detail: nil, tokens: 1275),  // 75 + 8 × 150
        MaximumRow(model: "o3", detail: .low, tokens: 75),
        MaximumRow(model: "gpt-4.1-mini", detail: .high, tokens: 2489),  // ⌈1536 × 1.62⌉
        MaximumRow(model: "gpt-4.1-mini", detail: .low, tokens: 2489),
        MaximumRow(model: "gpt-4.1-nano", detail: nil, tokens: 3779),  // ⌈1536 × 2.46⌉
        MaximumRow(model: "o4-mini", detail: nil, tokens: 2642),  // ⌈1536 × 1.72⌉
    ]

    @Test(arguments: maxima)
    func maximum(_ row: MaximumRow) throws {
        let formula = try #require(ImageTokenFamily.forModel(row.model)).formula
        #expect(formula.maximumTokens(detail: row.detail) == row.tokens)
    }

    /// The tile maximum is reached: an image 768 by 2048 or more in proportion.
    @Test func tileMaximumIsReached() throws {
        let formula = try #require(ImageTokenFamily.forModel("gpt-4o")).formula
        #expect(formula.tokens(width: 2048, height: 768, detail: .high) == formula.maximumTokens(detail: .high))
        #expect(formula.tokens(width: 3000, height: 8000, detail: nil) == formula.maximumTokens(detail: nil))
    }

    /// Sizes no image has (0, negative) count as one pixel; sizes beyond any header's
    /// range neither trap nor overflow.
    @Test func degenerateSizes() throws {
        for model in ["gpt-4o", "gpt-4.1-mini"] {
            let formula = try #require(ImageTokenFamily.forModel(model)).formula
            #expect(formula.tokens(width: 0, height: 0, detail: .high) == formula.tokens(width: 1, height: 1, detail: .high))
            #expect(formula.tokens(width: -5, height: 7, detail: nil) == formula.tokens(width: 1, height: 7, detail: nil))
            let huge = formula.tokens(width: Int.max, height: Int.max, detail: .high)
            #expect(huge == formula.tokens(width: Int(Int32.max), height: Int(Int32.max), detail: .high))
            #expect(huge <= formula.maximumTokens(detail: .high))
        }
    }

    /// The published patch rule scales an image thinner than 1:1536 to no whole patch at
    /// all; the count follows it (0) rather than inventing a floor.
    @Test func sliverBeyondThePatchRule() throws {
        let formula = try #require(ImageTokenFamily.forModel("gpt-4.1-mini")).formula
        #expect(formula.tokens(width: 1, height: 100_000, detail: nil) == 0)
        #expect(ImageTokenFormula.patchCount(width: 3, height: 50_000) == 0)
    }

    struct SquareRootRow: Sendable, CustomTestStringConvertible {
        var n: Int
        var root: Int
        var testDescription: String { "⌊√\(n)⌋ = \(root)" }
    }

    @Test(
        arguments: [
            SquareRootRow(n: 0, root: 0), SquareRootRow(n: 1, root: 1), SquareRootRow(n: 3, root: 1),
            SquareRootRow(n: 4, root: 2), SquareRootRow(n: 1535, root: 39), SquareRootRow(n: 1536, root: 39),
            SquareRootRow(n: 2047, root: 45), SquareRootRow(n: 2048, root: 45), SquareRootRow(n: 2116, root: 46),
            // Next to a large perfect square, where a double's root alone can be one off.
            SquareRootRow(n: 1_000_000_007 * 1_000_000_007 - 1, root: 1_000_000_006),
            SquareRootRow(n: 1_000_000_007 * 1_000_000_007, root: 1_000_000_007),
            SquareRootRow(n: 1536 * Int(Int32.max), root: 1_816_186),
        ])
    func integerSquareRoot(_ row: SquareRootRow) {
        #expect(ImageTokenFormula.integerSquareRoot(row.n) == row.root)
    }

    // MARK: - Families from model names

    struct NameRow: Sendable, CustomTestStringConvertible {
        var model: String
        var family: String?
        var testDescription: String { "\(model) → \(family ?? "none")" }
        init(_ model: String, _ family: String?) { (self.model, self.family) = (model, family) }
    }

    static let names: [NameRow] = [
        NameRow("gpt-4o", "gpt-4o"),
        NameRow("gpt-4o-2024-08-06", "gpt-4o"),
        NameRow("gpt-4o-mini", "gpt-4o-mini"),
        NameRow("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        NameRow("gpt-4.1", "gpt-4.1"),
        NameRow("gpt-4.1-2025-04-14", "gpt-4.1"),
        NameRow("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        NameRow("gpt-4.1-nano", "gpt-4.1-nano"),
        NameRow("gpt-4.5-preview", "gpt-4.5-preview"),
        NameRow("gpt-4.5-preview-2025-02-27", "gpt-4.5-preview"),
        NameRow("o1-pro", "o1-pro"),
        NameRow("o3-pro-2025-06-10", "o3-pro"),
        NameRow("gpt-4o-2024-08-06-extra", nil),
        NameRow("gpt-4o-realtime-preview", nil),
        NameRow("gpt-4o-audio-preview-2024-12-17", nil),
        NameRow("gpt-4-0613", nil),
        NameRow("chatgpt-4o-latest", "chatgpt-4o-latest"),
        NameRow("gpt-4-turbo-2024-04-09", "gpt-4-turbo"),
        NameRow("gpt-4-vision-preview", "gpt-4-vision-preview"),
        NameRow("o1", "o1"),
        NameRow("o1-2024-12-17", "o1"),
        NameRow("o3", "o3"),
        NameRow("o4-mini-2025-04-16", "o4-mini"),
        // Provider prefix and case.
        NameRow("openai/gpt-4o", "gpt-4o"),
        NameRow("azure/gpt-4o-mini", "gpt-4o-mini"),
        NameRow("openrouter/openai/gpt-4.1-mini", "gpt-4.1-mini"),
        NameRow("GPT-4o", "gpt-4o"),
        NameRow("OpenAI/O4-Mini", "o4-mini"),
        NameRow(" gpt-4o ", "gpt-4o"),
        // No formula: other vendors, gpt-5 (priced, but no published image formula here), and
        // names that only look alike.
        NameRow("gpt-5", nil),
        NameRow("gpt-5-mini", nil),
        NameRow("gpt-5-turbo", nil),
        NameRow("llava", nil),
        NameRow("llava:13b", nil),
        NameRow("claude-3-5-sonnet", nil),
        NameRow("gpt-4", nil),
        NameRow("gpt-4omni", nil),
        NameRow("gpt-4o1", nil),
        NameRow("gpt-4.1mini", nil),
        NameRow("gpt-4.10", nil),
        NameRow("o10", nil),
        NameRow("o4", nil),
        NameRow("my-gpt-4o", nil),
        NameRow("xo1", nil),
        NameRow("", nil),
        NameRow("openai/", nil),
    ]

    @Test(arguments: names)
    func familyOfModel(_ row: NameRow) {
        #expect(ImageTokenFamily.forModel(row.model)?.name == row.family)
    }

    /// The table lists longer names before the names they start with, as its doc says, and
    /// every name once.
    @Test func tableOrder() {
        let names = ImageTokenFamily.known.map(\.name)
        #expect(Set(names).count == names.count)
        for (index, name) in names.enumerated() {
            for later in names[(index + 1)...] {
                #expect(!later.hasPrefix(name + "-"), "\(later) should come before \(name)")
            }
        }
        #expect(ImageTokenFamily.fallback.name == "gpt-4o")
    }
}
