import Foundation
import Yams

/// A dataset to generate (`altbench datasets generate SPEC`): top-level defaults and one
/// entry per image, each with the prompt sent and the manifest fields it will carry.
///
/// ```yaml
/// model: gpt-image-1
/// size: 1024x1024
/// quality: medium
/// items:
///   - id: bakery-sign
///     prompt: A hand-painted shop sign reading "FRESH BREAD DAILY" above a bakery window
///     expected_text: FRESH BREAD DAILY
///     references: ["A hand-painted sign reading FRESH BREAD DAILY above a bakery window."]
/// ```
///
/// Unknown keys, broken YAML, duplicate ids, empty prompts and values the model family does
/// not accept stop before any request, naming the file and line.
package struct GenerationSpec: Sendable, Hashable {
    /// The request settings an item may set, and the spec's top level as defaults.
    package struct Settings: Sendable, Hashable {
        package var model: String?
        package var size: String?
        package var quality: String?
        package var style: String?
        package var n: Int?
        package var outputFormat: String?
        package var responseFormat: String?

        package init() {}

        /// `self` with `other`'s values where `other` has one.
        func overridden(by other: Settings) -> Settings {
            var merged = self
            merged.model = other.model ?? model
            merged.size = other.size ?? size
            merged.quality = other.quality ?? quality
            merged.style = other.style ?? style
            merged.n = other.n ?? n
            merged.outputFormat = other.outputFormat ?? outputFormat
            merged.responseFormat = other.responseFormat ?? responseFormat
            return merged
        }
    }

    package struct Item: Sendable, Hashable {
        package var id: String
        package var prompt: String
        package var settings: Settings
        /// The manifest fields to copy (references, context, lang, expected_text,
        /// must_mention, tags, decorative), as JSON.
        package var fields: [String: JSONValue]
        package var line: Int
    }

    package var settings: Settings
    package var items: [Item]
    package var file: String

    /// The keys of an item that are manifest fields, copied to `manifest.jsonl`.
    package static let manifestFields = ["references", "context", "lang", "expected_text", "must_mention", "tags", "decorative"]
    static let settingKeys = ["model", "size", "quality", "style", "n", "output_format", "response_format"]
    static let topKeys = settingKeys + ["items"]
    static let itemKeys = ["id", "prompt"] + settingKeys + manifestFields

    /// The requests to send, and notes about inherited values an item's model cannot take.
    package struct Plan: Sendable {
        package var requests: [(item: Item, request: ImageGenerationRequest)]
        package var notes: [String]
    }

    /// The request each item sends, with command-line overrides (`--model`, `--size`,
    /// `--quality`) over the spec's top level, and each item's own values over both.
    ///
    /// A value the item sets itself must fit its model family (else an error naming the
    /// line); an inherited one that does not fit (the spec's GPT-image `quality: medium` for
    /// an item asking `dall-e-3`) gives way to the family's default, with a note.
    package func plan(overrides: Settings = Settings()) throws -> Plan {
        let top = settings.overridden(by: overrides)
        var notes: [String] = []
        let requests = try items.map { item in
            let model = item.settings.model ?? top.model ?? ImageGenerationRequest.defaultModel
            let family = ImageGenerationRequest.family(of: model)
            func pick(_ field: String, _ own: String?, _ inherited: String?) -> String? {
                if let own { return own }
                guard let inherited else { return nil }
                if let accepted = ImageGenerationRequest.accepted(field, family: family), !accepted.contains(inherited) {
                    notes.append("item '\(item.id)' (\(model)): \(field) \(inherited) is not one \(model) takes; using its default.")
                    return nil
                }
                if family == .gptImage && field == "style" { return nil }
                return inherited
            }
            let request = ImageGenerationRequest(
                prompt: item.prompt, model: model, n: item.settings.n ?? top.n,
                quality: pick("quality", item.settings.quality, top.quality), size: pick("size", item.settings.size, top.size),
                style: pick("style", item.settings.style, top.style),
                responseFormat: pick("response_format", item.settings.responseFormat, top.responseFormat),
                outputFormat: pick("output_format", item.settings.outputFormat, top.outputFormat))
            try Self.check(request, item: item, file: file)
            return (item, request)
        }
        return Plan(requests: requests, notes: notes)
    }

    /// The values the request's model family accepts; a spec that asks DALL·E for
    /// `quality: medium` (a GPT image quality) stops before anything is sent.
    static func check(_ request: ImageGenerationRequest, item: Item, file: String) throws {
        let family = request.family
        let name = family == .dalle ? "DALL·E" : "GPT image"
        func fail(_ message: String) -> AltBenchError {
            .configFile(file: file, line: item.line, message: "item '\(item.id)': \(message)")
        }
        let values: [(String, String?)] = [
            ("quality", request.quality), ("size", request.size), ("style", request.style),
            ("output_format", request.outputFormat), ("response_format", request.responseFormat),
        ]
        for (field, value) in values {
            guard let value else { continue }
            if let accepted = ImageGenerationRequest.accepted(field, family: family), !accepted.contains(value) {
                throw fail("`\(field)` \(value) is not one \(request.model) takes (\(name) models take \(accepted.joined(separator: ", "))).")
            }
        }
        if family == .gptImage, item.settings.style != nil {
            throw fail("`style` is a DALL·E setting; \(request.model) rejects it. Remove it, or use a dall-e-* model.")
        }
        let limit = family == .dalle ? 4000 : 32000
        if request.prompt.count > limit {
            throw fail("the prompt has \(request.prompt.count) characters; \(name) models take at most \(limit).")
        }
        if !(1...10).contains(request.n) {
            throw fail("`n` must be between 1 and 10 (got \(request.n)).")
        }
    }

    // MARK: Reading

    package static func load(from url: URL, displayPath: String) throws -> GenerationSpec {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw AltBenchError.configFile(file: displayPath, line: nil, message: "no such file. Check the spec's path.")
        }
        guard let text = String(data: try Data(contentsOf: url), encoding: .utf8) else {
            throw AltBenchError.configFile(file: displayPath, line: nil, message: "the file is not UTF-8 text. Save it as UTF-8.")
        }
        return try parse(text, displayPath: displayPath)
    }

    package static func parse(_ text: String, displayPath file: String) throws -> GenerationSpec {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw AltBenchError.configFile(
                file: file, line: YAMLDiagnostics.line(of: error), message: "not valid YAML (\(YAMLDiagnostics.summary(of: error))).")
        }
        guard let mapping = root?.mapping else {
            throw AltBenchError.configFile(
                file: file, line: 1, message: "a spec is a mapping with `items:`, a list of {id, prompt, ...}. See docs/generating.md.")
        }
        var spec = GenerationSpec(settings: Settings(), items: [], file: file)
        var itemsNode: Node?
        var itemsLine: Int?
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            let line = keyNode.mark?.line
            if key == "items" {
                itemsNode = value
                itemsLine = line
                continue
            }
            guard settingKeys.contains(key) else {
                throw unknownKey(key, line: line, known: topKeys, file: file, context: "the spec")
            }
            try read(setting: key, value, into: &spec.settings, line: line, file: file, prefix: "")
        }
        guard let sequence = itemsNode?.sequence, !sequence.isEmpty else {
            throw AltBenchError.configFile(
                file: file, line: itemsLine ?? 1,
                message: "`items` must be a list of images to generate, each with an `id` and a `prompt`.")
        }
        var seen: [String: Int] = [:]
        for node in sequence {
            let line = node.mark?.line ?? itemsLine ?? 1
            guard let entries = node.mapping else {
                throw AltBenchError.configFile(file: file, line: line, message: "each item must be a mapping with `id` and `prompt`.")
            }
            var id: String?
            var prompt: String?
            var settings = Settings()
            var fields: [String: JSONValue] = [:]
            for (keyNode, value) in entries {
                let key = keyNode.string ?? ""
                let keyLine = keyNode.mark?.line ?? line
                func fail(_ message: String) -> AltBenchError {
                    .configFile(file: file, line: keyLine, message: "`\(key)` \(message)")
                }
                switch key {
                case "id":
                    guard let text = value.scalar?.string, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                        throw fail("must be a non-empty name.")
                    }
                    guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }), !text.hasPrefix(".") else {
                        throw fail("'\(text)' names the image file: use letters, digits, '-', '_' and '.', e.g. bakery-sign.")
                    }
                    id = text
                case "prompt":
                    guard let text = value.scalar?.string else { throw fail("must be text.") }
                    prompt = text
                case _ where settingKeys.contains(key):
                    try read(setting: key, value, into: &settings, line: keyLine, file: file, prefix: "")
                case "references", "must_mention", "tags":
                    let nodes = value.sequence.map(Array.init) ?? [value]
                    let strings = nodes.compactMap { $0.scalar?.string }
                    guard strings.count == nodes.count, value.mapping == nil else { throw fail("must be a list of texts.") }
                    fields[key] = .array(strings.map(JSONValue.string))
                case "context", "lang", "expected_text":
                    guard let text = value.scalar?.string else { throw fail("must be text.") }
                    fields[key] = .string(text)
                case "decorative":
                    guard let flag = value.scalar.flatMap({ Bool($0.string) }) else { throw fail("must be true or false.") }
                    fields[key] = .bool(flag)
                default:
                    throw unknownKey(key, line: keyLine, known: itemKeys, file: file, context: "an item")
                }
            }
            guard let id else {
                throw AltBenchError.configFile(file: file, line: line, message: "an item has no `id`: give each image a name, e.g. id: bakery-sign.")
            }
            guard let prompt, !prompt.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw AltBenchError.configFile(
                    file: file, line: line, message: "item '\(id)' has an empty prompt: say what the image should show.")
            }
            if let first = seen[id] {
                throw AltBenchError.configFile(
                    file: file, line: line, message: "item '\(id)' is named twice (first on line \(first)): give each item its own id.")
            }
            seen[id] = line
            spec.items.append(Item(id: id, prompt: prompt, settings: settings, fields: fields, line: line))
        }
        // Expanded ids (`id-1`, `id-2` for n > 1) must not meet another item's id either.
        for item in spec.items {
            let n = item.settings.n ?? spec.settings.n ?? 1
            guard n > 1 else { continue }
            for index in 1...n {
                let expanded = "\(item.id)-\(index)"
                if let other = seen[expanded] {
                    throw AltBenchError.configFile(
                        file: file, line: other,
                        message: "item '\(expanded)' is also the name of image \(index) of '\(item.id)' (n: \(n), line \(item.line)): rename one.")
                }
            }
        }
        return spec
    }

    static func read(setting key: String, _ value: Node, into settings: inout Settings, line: Int?, file: String, prefix: String) throws {
        func fail(_ message: String) -> AltBenchError {
            .configFile(file: file, line: line, message: "`\(key)` \(message)")
        }
        if key == "n" {
            guard let number = value.scalar.flatMap({ Int($0.string) }), (1...10).contains(number) else {
                throw fail("must be a whole number from 1 to 10.")
            }
            settings.n = number
            return
        }
        guard let text = value.scalar?.string, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw fail("must be a text value.")
        }
        switch key {
        case "model": settings.model = text
        case "size": settings.size = text
        case "quality": settings.quality = text
        case "style": settings.style = text
        case "output_format": settings.outputFormat = text
        case "response_format": settings.responseFormat = text
        default: break
        }
    }

    static func unknownKey(_ key: String, line: Int?, known: [String], file: String, context: String) -> AltBenchError {
        let hint: String
        if key.lowercased().contains("key") || key.lowercased().contains("token") {
            hint = " Never put a key in a spec: export it as OPENAI_API_KEY (or ALTBENCH_PROXY_APP_KEY for a signed proxy)."
        } else {
            hint = YAMLDiagnostics.closest(to: key, in: known).map { " Did you mean `\($0)`?" } ?? ""
        }
        return .configFile(
            file: file, line: line, message: "unknown key `\(key)` in \(context).\(hint) Known: \(known.joined(separator: ", ")).")
    }
}
