import Foundation

/// How a model name as sent finds its entry in a table keyed by model names (image formulas,
/// prices).
///
/// Names are compared lowercased and without a provider prefix (`openai/gpt-4o`,
/// `azure/gpt-4o`: the part after the last `/`). A table name matches when it is the whole
/// name, or when the name is it followed by a snapshot suffix: `-YYYY-MM-DD`
/// (`gpt-4o-2024-08-06`), `-MMDD` (`gpt-4-0613`) or `-latest`. Any other suffix names a
/// different model with a different price (`o1-pro` is ten times `o1`, `gpt-4o-realtime-preview`
/// is not `gpt-4o`), so it matches nothing: the plan then says the model has no price rather
/// than invent one from its neighbour. An exact name beats a snapshot match, and nothing
/// matches inside a name (`gpt-4o` never claims `gpt-4omni`).
enum ModelNameMatch {
    /// `model` lowercased, trimmed and without its provider prefix.
    static func normalized(_ model: String) -> String {
        let lowered = model.trimmingCharacters(in: .whitespaces).lowercased()
        guard let slash = lowered.lastIndex(of: "/") else { return lowered }
        return String(lowered[lowered.index(after: slash)...])
    }

    /// The entry of `names` that `model` belongs to, as written in `names`; `nil` when none.
    ///
    /// An exact name beats any prefix; among prefixes the longest wins; two names that
    /// normalise alike (`GPT-4o`, `gpt-4o`) are settled by their order in `names`.
    static func best<Names: Sequence<String>>(for model: String, among names: Names) -> String? {
        let target = normalized(model)
        guard !target.isEmpty else { return nil }
        var best: (name: String, length: Int)?
        for name in names {
            let candidate = normalized(name)
            guard !candidate.isEmpty else { continue }
            let matches =
                target == candidate
                || (target.hasPrefix(candidate + "-") && isSnapshotSuffix(target.dropFirst(candidate.count + 1)))
            guard matches else { continue }
            // An exact match is longer than any proper prefix of the target, so the longest
            // match is the exact one when there is one.
            if candidate.count > (best?.length ?? 0) { best = (name, candidate.count) }
        }
        return best?.name
    }

    /// `2024-08-06`, `0613` or `latest`: what OpenAI appends to a model's name for a dated
    /// snapshot or its moving alias.
    static func isSnapshotSuffix(_ suffix: Substring) -> Bool {
        if suffix == "latest" { return true }
        let parts = suffix.split(separator: "-", omittingEmptySubsequences: false)
        let digits = { (part: Substring, count: Int) in part.count == count && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) }
        if parts.count == 1 { return digits(parts[0], 4) }
        return parts.count == 3 && digits(parts[0], 4) && digits(parts[1], 2) && digits(parts[2], 2)
    }
}
