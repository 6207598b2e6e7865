import Foundation

/// How a model name as sent finds its entry in a table keyed by model names (image formulas,
/// prices).
///
/// Names are compared lowercased and without a provider prefix (`openai/gpt-4o`,
/// `azure/gpt-4o`: the part after the last `/`). A table name matches when it is the whole
/// name or the name starts with it followed by `-`, so that dated snapshots
/// (`gpt-4o-2024-08-06`) find their model; the longest such name wins (`gpt-4o-mini-…` is
/// gpt-4o-mini, not gpt-4o). Matching only at a `-` keeps `gpt-4o` from claiming
/// `gpt-4omni`, and nothing matches inside a name.
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
            let matches = target == candidate || target.hasPrefix(candidate + "-")
            guard matches else { continue }
            // An exact match is longer than any proper prefix of the target, so the longest
            // match is the exact one when there is one.
            if candidate.count > (best?.length ?? 0) { best = (name, candidate.count) }
        }
        return best?.name
    }
}
