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
