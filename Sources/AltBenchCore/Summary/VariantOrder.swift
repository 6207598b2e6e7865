import Foundation

/// The order in which a run's variants are listed: the baseline variant first, the others by
/// name (so `icecubes` comes before `icecubes-original`, which file names would reverse).
///
/// Tables are read against the baseline, so it goes on top. The baseline is the variant named
/// by `baseline:` in `altbench.yml` when the run recorded one, else `icecubes` (the request
/// altbench reproduces) when the run has it, else the first variant.
package enum VariantOrder {
    /// The variant `icecubes`: Ice Cubes' own prompt, the default baseline.
    package static let defaultBaseline = "icecubes"

    /// The baseline among `names`: `configured` when it is one of them, else `icecubes`,
    /// else the first name; `nil` for no names.
    package static func baseline(among names: [String], configured: String? = nil) -> String? {
        if let configured, names.contains(configured) { return configured }
        if names.contains(defaultBaseline) { return defaultBaseline }
        return names.first
    }

    /// Refuses a `baseline:` that names no loaded prompt, naming the prompts there are.
    package static func check(configured: String?, among names: [String], configFile: String, promptsPath: String) throws {
        guard let configured, !names.contains(configured) else { return }
        let hint = YAMLDiagnostics.closest(to: configured, in: names).map { " Did you mean `\($0)`?" } ?? ""
        throw AltBenchError.configFile(
            file: configFile, line: nil,
            message: "`baseline` names '\(configured)', which is not a prompt in \(promptsPath)/.\(hint) Prompts: \(names.joined(separator: ", ")).")
    }

    /// `items` with the baseline's first, the rest by name (a stable sort: equal names keep
    /// their given order).
    package static func ordered<T>(_ items: [T], name: (T) -> String, configured: String? = nil) -> [T] {
        guard let first = baseline(among: items.map(name), configured: configured) else { return items }
        let rest = items.enumerated().filter { name($0.element) != first }
            .sorted { (name($0.element), $0.offset) < (name($1.element), $1.offset) }.map(\.element)
        return items.filter { name($0) == first } + rest
    }
}

extension RunResults {
    /// The run's baseline variant (``VariantOrder``), from its recorded `baseline` setting.
    package var baselineVariant: String? {
        VariantOrder.baseline(among: variants.map(\.name), configured: info.settings["baseline"]?.stringValue)
    }

    /// The results with ``variants`` in ``VariantOrder``: every table built from them lists the
    /// baseline first.
    package func orderingVariants() -> RunResults {
        var copy = self
        copy.variants = VariantOrder.ordered(variants, name: \.name, configured: info.settings["baseline"]?.stringValue)
        return copy
    }
}
