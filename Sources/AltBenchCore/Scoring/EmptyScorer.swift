/// Flags an empty answer: null content or only whitespace (W3C: an informative image needs alt text).
///
/// An empty alt marks an image as decorative, so a screen reader would skip it. Invisible
/// format characters (zero-width space, zero-width joiner, byte-order mark) count as nothing
/// too: the app would post them, and a screen reader would read nothing. A refusal sent
/// through the `refusal` field with no content is empty as well as a refusal. Empty content
/// with finish_reason "length" (a reasoning model spent the budget before any visible word)
/// is empty, and says so; the truncation scorer flags it as cut off too.
public struct EmptyScorer: Scorer {
    public init() {}

    public func score(_ input: ScoringInput) -> [Score] {
        guard Self.isBlank(input.text) else {
            return [.flag(ScoreName.empty, false)]
        }
        if input.finishReason?.lowercased() == "length" {
            // A reasoning model can spend the whole budget before any visible word.
            return [.flag(ScoreName.empty, true, detail: "no visible text: the token limit ran out first")]
        }
        return [.flag(ScoreName.empty, true, detail: input.content == nil ? "no content" : "blank")]
    }

    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isWhitespace || scalar.properties.generalCategory == .format
        }
    }
}
