import Foundation

/// How a model family turns an image into prompt tokens (OpenAI's published rules).
public enum ImageTokenFormula: Sendable, Hashable {
    /// Tile models (gpt-4o, gpt-4.1, gpt-4o-mini, o1, o3): `detail: low` costs `base`; `high`
    /// and `auto` fit the image in 2048×2048, shrink it so the shortest side is at most 768,
    /// and add `perTile` per 512-pixel tile.
    case tiles(base: Int, perTile: Int)
    /// Patch models (gpt-4.1-mini, gpt-4.1-nano, o4-mini): 32-pixel patches, at most 1536,
    /// times a multiplier given in hundredths (162 for 1.62). `detail` does not change the count.
    case patches(multiplierPercent: Int)
}

/// A model family's image formula, found from a model name.
public struct ImageTokenFamily: Sendable, Hashable {
    /// The family's name as the table lists it (`gpt-4o`, `gpt-4.1-mini`, …).
    public var name: String
    public var formula: ImageTokenFormula

    public init(name: String, formula: ImageTokenFormula) {
        self.name = name
        self.formula = formula
    }
}

extension ImageTokenFamily {
    /// The families the formulas are known for, most specific name first where names share
    /// a prefix (gpt-4o-mini before gpt-4o).
    ///
    /// From OpenAI's published image-input rules. gpt-4.5 covers `gpt-4.5-preview`; the
    /// o-series names also catch their `-mini`, `-pro` and dated variants (`o3-mini` counts
    /// as o3), which is the nearest published rule for them.
    public static var known: [ImageTokenFamily] { table }

    private static let table: [ImageTokenFamily] = {
        let gpt4o = ImageTokenFormula.tiles(base: 85, perTile: 170)
        return [
            ImageTokenFamily(name: "gpt-4o-mini", formula: .tiles(base: 2833, perTile: 5667)),
            ImageTokenFamily(name: "gpt-4o", formula: gpt4o),
            ImageTokenFamily(name: "gpt-4.1-mini", formula: .patches(multiplierPercent: 162)),
            ImageTokenFamily(name: "gpt-4.1-nano", formula: .patches(multiplierPercent: 246)),
            ImageTokenFamily(name: "gpt-4.1", formula: gpt4o),
            ImageTokenFamily(name: "gpt-4.5", formula: gpt4o),
            ImageTokenFamily(name: "chatgpt-4o-latest", formula: gpt4o),
            ImageTokenFamily(name: "gpt-4-turbo", formula: gpt4o),
            ImageTokenFamily(name: "gpt-4-vision-preview", formula: gpt4o),
            ImageTokenFamily(name: "o1", formula: .tiles(base: 75, perTile: 150)),
            ImageTokenFamily(name: "o3", formula: .tiles(base: 75, perTile: 150)),
            ImageTokenFamily(name: "o4-mini", formula: .patches(multiplierPercent: 172)),
        ]
    }()

    private static let byName: [String: ImageTokenFamily] = Dictionary(
        uniqueKeysWithValues: table.map { ($0.name, $0) })

    /// The family the estimate falls back to for a model no formula is known for.
    public static var fallback: ImageTokenFamily { byName["gpt-4o"]! }

    /// The family of `model`: exact name, dated snapshot (`gpt-4o-2024-08-06`), or with a
    /// provider prefix (`openai/gpt-4o`); `nil` when none matches.
    ///
    /// Case does not matter, and a name matches only whole or followed by `-`
    /// (``ModelNameMatch``): `gpt-4omni` is not gpt-4o, and `gpt-5`, `llava` or `claude-…`
    /// have no formula here.
    public static func forModel(_ model: String) -> ImageTokenFamily? {
        ModelNameMatch.best(for: model, among: table.map(\.name)).flatMap { byName[$0] }
    }
}

extension ImageTokenFormula {
    /// The most a patch model counts for one image.
    static let patchCap = 1536

    /// Tokens for an image of `width`×`height` pixels sent with `detail` (`nil` = auto).
    ///
    /// `auto` (and no detail) is counted as `high`: the server picks, and a plan should show
    /// the most it can pick. A patch model ignores `detail`.
    ///
    /// Everything is worked in integers, never floating point, because every step ends in a
    /// floor or a ceiling and the exact value often sits right on a whole number: a side
    /// scaled to exactly 33 patches comes out of floating point as 33.000000000000004 and
    /// rounds up to 34 (a 4000×3000 photo is 1452 patches, not 1485; in floats about one
    /// image in seven above the patch cap is miscounted, see scripts/image_token_goldens.py).
    ///
    /// - Tile models: the image's final scale is a fraction p/q: 2048/longest side when the
    ///   longest side is over 2048, and then, if the shortest side is still over 768, simply
    ///   768/shortest side of the original. Tiles per side = ⌈side·p / (q·512)⌉.
    /// - Patch models: the scale r = √(32·32·1536 / (w·h)) is irrational, but the rule only
    ///   needs ⌊w·r/32⌋ = ⌊√(1536·w/h)⌋, the largest k with k²·h ≤ 1536·w (an integer square
    ///   root), and likewise k_h for the height. The side with the smaller k/(side·r/32)
    ///   (compare k_w·h with k_h·w) limits: it becomes exactly k patches, and the other side
    ///   ⌈other·k / limiting side⌉ patches. Tokens = ⌈patches × percent / 100⌉.
    ///
    /// Sizes below 1 count as 1 (no image has fewer pixels) and sizes above 2³¹−1, more than
    /// any image header can state, as 2³¹−1, so that the arithmetic cannot overflow.
    public func tokens(width: Int, height: Int, detail: ImageDetail?) -> Int {
        let width = Self.clamped(width)
        let height = Self.clamped(height)
        switch self {
        case .tiles(let base, let perTile):
            if detail == .low { return base }
            return base + perTile * Self.tileCount(width: width, height: height)
        case .patches(let percent):
            return Self.ceilingDivision(Self.patchCount(width: width, height: height) * percent, 100)
        }
    }

    /// The most an image can cost at `detail` (a remote image of unknown size).
    ///
    /// A tile image ends at most 768 pixels on its short side and 2048 on its long side
    /// (768×2048 is 2×4 tiles), so `high` and `auto` charge at most base + 8 tiles; `low`
    /// charges the base. A patch model charges at most its cap of 1536 patches.
    public func maximumTokens(detail: ImageDetail?) -> Int {
        switch self {
        case .tiles(let base, let perTile):
            return detail == .low ? base : base + perTile * 8
        case .patches(let percent):
            return Self.ceilingDivision(Self.patchCap * percent, 100)
        }
    }

    /// 512-pixel tiles of an image fitted in 2048×2048 and shrunk to a shortest side of 768.
    static func tileCount(width: Int, height: Int) -> Int {
        let longest = max(width, height)
        let shortest = min(width, height)
        // The scale as p/q, never rounded.
        var (p, q) = (1, 1)
        if longest > 2048 { (p, q) = (2048, longest) }
        if shortest * p > 768 * q { (p, q) = (768, shortest) }
        return ceilingDivision(width * p, q * 512) * ceilingDivision(height * p, q * 512)
    }

    /// 32-pixel patches, scaled down to fit the cap of 1536 when there are more.
    static func patchCount(width: Int, height: Int) -> Int {
        let patches = ceilingDivision(width, 32) * ceilingDivision(height, 32)
        guard patches > patchCap else { return patches }
        // k² ≤ 1536·w/h ⟺ k² ≤ ⌊1536·w/h⌋ for a whole k.
        let kWidth = integerSquareRoot(patchCap * width / height)
        let kHeight = integerSquareRoot(patchCap * height / width)
        // kWidth / √(1536·w/h) against kHeight / √(1536·h/w): their ratio is kWidth·h / (kHeight·w).
        let scaled =
            kWidth * height <= kHeight * width
            ? kWidth * ceilingDivision(height * kWidth, width)
            : kHeight * ceilingDivision(width * kHeight, height)
        return min(patchCap, scaled)
    }

    /// ⌈a / b⌉ for a ≥ 0 and b > 0.
    static func ceilingDivision(_ a: Int, _ b: Int) -> Int {
        (a + b - 1) / b
    }

    /// The largest k with k·k ≤ n, for n ≥ 0.
    static func integerSquareRoot(_ n: Int) -> Int {
        // n stays far below 2⁵³ (sides are at most 2³¹−1), so the double's root is off by at
        // most one; the loops make it exact.
        var k = Int(Double(n).squareRoot())
        while k * k > n { k -= 1 }
        while (k + 1) * (k + 1) <= n { k += 1 }
        return k
    }

    private static func clamped(_ side: Int) -> Int {
        min(max(side, 1), Int(Int32.max))
    }
}
