import Foundation

/// Checks a dataset folder the way `altbench datasets validate` does: every problem in the
/// whole dataset, not just the first one that would stop a run.
///
/// Manifest lines go through the loader's own line check
/// (``DatasetLoader/checkManifestLine(_:number:root:shown:seen:)``), so what stops `altbench
/// run` is reported here in the same words. On top of that the validator treats as problems
/// what a run lets through: unreadable or unsupported images, unknown keys, missing or blank
/// references, blank `expected_text` and `must_mention` terms, and `lang` values that are not
/// BCP 47 tags. It warns about images no line mentions, repeated references, and references
/// that altbench's own scorers would flag, since answers are judged against them.
public struct DatasetValidator: Sendable {
    /// The largest image file accepted, as for ``DatasetLoader``.
    public var imageSizeLimit: Int
    /// Whether warnings count as problems (`--strict`).
    public var strict: Bool

    public init(imageSizeLimit: Int = DatasetLoader.defaultImageSizeLimit, strict: Bool = false) {
        self.imageSizeLimit = imageSizeLimit
        self.strict = strict
    }

    /// The scorers a reference must pass, each with what to do when it does not.
    ///
    /// Blank references are problems before they get here, so `empty` only guards against the
    /// scorer's rule drifting from ``isBlank(_:)``.
    static let referenceChecks: [(name: String, flaw: String, fix: String)] = [
        (ScoreName.empty, "is empty to a screen reader", "write the alt text or remove the entry"),
        (ScoreName.firstPerson, "is written in the first person", "describe the image without speaking as the writer"),
        (ScoreName.truncated, "looks cut off", "finish the sentence"),
        (ScoreName.refusal, "reads like a refusal", "replace it with a description of the image"),
        (ScoreName.redundantPrefix, "opens with a redundant prefix",
         "start with the subject, since screen readers already announce an image"),
    ]

    /// Validates `directory`, naming it `displayPath` (default: its path) in every location.
    public func validate(directory: URL, displayPath: String? = nil) -> DatasetValidation {
        let shown = (displayPath ?? directory.path).trimmingTrailingSlashes()
        var findings = Findings()
        var itemCount = 0
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            findings.add(.problem, at: shown, "the folder does not exist: pass a dataset folder holding manifest.jsonl or images.")
        } else if !isDirectory.boolValue {
            findings.add(.problem, at: shown, "this is a file, not a folder: pass the dataset folder holding manifest.jsonl or images.")
        } else {
            let manifest = directory.appendingPathComponent("manifest.jsonl")
            if FileManager.default.fileExists(atPath: manifest.path) {
                itemCount = validateManifest(manifest, root: directory, shown: shown, into: &findings)
            } else {
                itemCount = validateFolder(directory, shown: shown, into: &findings)
            }
        }
        var diagnostics = findings.diagnostics
        if strict {
            for index in diagnostics.indices where diagnostics[index].severity == .warning {
                diagnostics[index].severity = .problem
            }
        }
        return DatasetValidation(path: shown, itemCount: itemCount, diagnostics: diagnostics)
    }

    // MARK: - Manifest

    /// Checks every line of the manifest and the images beside it; returns the number of items.
    private func validateManifest(_ manifest: URL, root: URL, shown: String, into findings: inout Findings) -> Int {
        let loader = DatasetLoader(imageSizeLimit: imageSizeLimit)
        let file = DatasetLoader.manifestFile(shown)
        var count = 0
        var mentioned: Set<String> = []
        var remote = 0
        do {
            try loader.readManifest(manifest, root: root, shown: shown) { line in
                count += 1
                let location = "\(file):\(line.number)"
                for problem in line.problems {
                    findings.add(.problem, at: location, item: line.id, problem.message)
                }
                for unknown in line.unknownKeys {
                    let fix = unknown.suggestion == nil
                        ? "remove it, or use one of \(DatasetLoader.manifestKeyNames.joined(separator: ", "))"
                        : "rename or remove it"
                    findings.add(
                        .problem, at: location, item: line.id, "unknown key `\(unknown.key)` is ignored\(unknown.hint): \(fix).")
                }
                guard let fields = line.fields else { return }
                if let problem = fields.problem {
                    findings.add(.problem, at: location, item: line.id, problem.message)
                }
                for finding in contentFindings(fields, malformed: line.malformedKeys) {
                    findings.add(finding.severity, at: location, item: line.id, finding.message)
                }
                switch line.image {
                case .file(_, let url): mentioned.insert(url.standardizedFileURL.path)
                case .remote: remote += 1
                case nil: break
                }
            }
        } catch AltBenchError.manifestLine(let file, let line, let message) {
            findings.add(.problem, at: "\(file):\(line)", message)
            return count
        } catch {
            let reason = error.localizedDescription.hasSuffix(".")
                ? String(error.localizedDescription.dropLast()) : error.localizedDescription
            findings.add(.problem, at: file, "the manifest could not be read (\(reason)): check that the file is readable.")
            return count
        }
        if count == 0 {
            findings.add(
                .problem, at: file,
                "the manifest holds no items: write one JSON object per line, e.g. {\"id\": \"cat\", \"image\": \"cat.png\", \"references\": [\"A cat.\"]}.")
        }
        for path in unmentionedImages(in: root, mentioned: mentioned) {
            findings.add(
                .warning, at: "\(shown)/\(path)",
                "no line of manifest.jsonl uses this image: add a line for it, or delete the file.")
        }
        if remote > 0 {
            let items = remote == 1 ? "1 item uses a remote image" : "\(remote) items use remote images"
            findings.add(.note, at: file, "\(items), checked as URLs only: altbench does not download them before a run.")
        }
        return count
    }

    /// What a run lets through but a dataset should not hold, for the fields that could be read.
    private func contentFindings(_ item: DatasetItem, malformed: Set<String>) -> [Finding] {
        var found: [Finding] = []
        if item.isMockPlaceholder {
            // Reviewed or not: a mock placeholder shows coloured shapes, not what its
            // references describe.
            found.append(Finding(
                .warning,
                "the image is a mock placeholder (generated.mock: true), not evaluation data: generate it again with a real image model (altbench datasets generate --proxy URL, or with OPENAI_API_KEY set), or remove the item."
            ))
        } else if item.isUnreviewedGeneration {
            // Generators get counts, colours and bindings wrong, and DALL·E rewrites prompts: a
            // generated image's references are drafts until a person has looked (a warning,
            // so `--strict` keeps such a dataset out of a CI gate).
            let model = item.generated?["model"]?.stringValue.map { " by \($0)" } ?? ""
            let mock = item.generated?["endpoint"]?.stringValue == MockImageGenerator.endpoint ? " (a mock placeholder)" : ""
            found.append(Finding(
                .warning,
                "the image was generated\(model)\(mock) and not reviewed: open it, correct `references` and `expected_text` to what it really shows, then set \"reviewed\": true."
            ))
        }
        if !malformed.contains("references") {
            if item.references.isEmpty {
                found.append(Finding(
                    .problem,
                    "there are no references: add \"references\": [\"...\"] with at least one human-written alt text, since answers are judged against them."
                ))
            }
            var firstByText: [String: Int] = [:]
            for (index, reference) in item.references.enumerated() {
                let number = index + 1
                if Self.isBlank(reference) {
                    found.append(Finding(.problem, "reference \(number) is blank: write the alt text, or remove the entry."))
                    continue
                }
                let key = reference.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
                if let first = firstByText[key] {
                    found.append(Finding(.warning, "reference \(number) repeats reference \(first): remove the copy."))
                    continue
                }
                firstByText[key] = number
                let scores = ScoringSuite.evaluate(ScoringInput(content: reference))
                for check in Self.referenceChecks {
                    guard let score = scores.first(where: { $0.name == check.name }), score.isFlagged else { continue }
                    let detail = score.detail.map { " (\($0))" } ?? ""
                    found.append(Finding(
                        .warning,
                        "reference \(number) \(check.flaw), flagged `\(check.name)`\(detail): \(check.fix)."
                    ))
                }
            }
        }
        if !malformed.contains("expected_text"), let text = item.expectedText, Self.isBlank(text) {
            found.append(Finding(.problem, "`expected_text` is blank: write the text visible in the image, or remove the key."))
        }
        if !malformed.contains("must_mention") {
            for (index, term) in item.mustMention.enumerated() where Self.isBlank(term) {
                found.append(Finding(
                    .problem, "`must_mention` term \(index + 1) is blank: write a word the answer must contain, or remove the entry."
                ))
            }
        }
        if !malformed.contains("lang"), let lang = item.lang {
            if Self.isBlank(lang) {
                found.append(Finding(.problem, "`lang` is blank: set a BCP 47 tag such as en, fr or pt-BR, or remove the key."))
            } else if !LanguageTag.isWellFormed(lang) {
                let hyphenated = lang.replacingOccurrences(of: "_", with: "-")
                let fix = hyphenated != lang && LanguageTag.isWellFormed(hyphenated)
                    ? "separate its parts with a hyphen, '\(hyphenated)'"
                    : "use a tag such as en, fr or pt-BR"
                found.append(Finding(.problem, "`lang` '\(lang)' is not a BCP 47 language tag: \(fix)."))
            }
        }
        return found
    }

    /// Image files under the folder, relative to it and sorted, that no manifest line names.
    private func unmentionedImages(in root: URL, mentioned: Set<String>) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var unmentioned: [String] = []
        while let path = enumerator.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix(".") {
                enumerator.skipDescendants()
                continue
            }
            let ext = (name as NSString).pathExtension.lowercased()
            guard DatasetLoader.imageExtensions.contains(ext) else { continue }
            let url = root.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            if !mentioned.contains(url.standardizedFileURL.path) { unmentioned.append(path) }
        }
        return unmentioned.sorted()
    }

    // MARK: - Bare folder

    /// Checks a folder without a manifest: every image must be one a model accepts.
    private func validateFolder(_ directory: URL, shown: String, into findings: inout Findings) -> Int {
        let folder: (items: [DatasetItem], skipped: [String])
        do {
            folder = try DatasetLoader(imageSizeLimit: imageSizeLimit).readFolder(directory, shown: shown)
        } catch {
            findings.add(.problem, at: shown, "the folder could not be listed (\(error.localizedDescription)).")
            return 0
        }
        if folder.items.isEmpty {
            findings.add(
                .problem, at: shown,
                "the folder holds no images and no manifest.jsonl: add images (PNG, JPEG, WEBP, GIF) or a manifest.jsonl with one item per line.")
            return 0
        }
        findings.add(
            .note, at: shown,
            "a bare folder of images has no references, so answers cannot be compared with human alt text: add a manifest.jsonl to give each image its references.")
        for item in folder.items {
            guard let problem = item.problem, case .file(let path, _) = item.image else { continue }
            let location = "\(shown)/\(path)"
            // The location already names the file, so the message need not start with it again.
            let message = problem.message.hasPrefix(location + " ")
                ? "the file " + problem.message.dropFirst(location.count + 1) : problem.message
            findings.add(.problem, at: location, item: item.id, message)
        }
        for name in folder.skipped {
            findings.add(.note, at: "\(shown)/\(name)", "not an image file name, skipped.")
        }
        return folder.items.count
    }

    // MARK: - Helpers

    /// Nothing a screen reader would read: empty, whitespace or invisible format characters,
    /// by the `empty` scorer's own rule.
    static func isBlank(_ text: String) -> Bool {
        EmptyScorer.isBlank(text)
    }

    /// A finding about an item, before it is given a location.
    private struct Finding {
        var severity: DatasetDiagnostic.Severity
        var message: String

        init(_ severity: DatasetDiagnostic.Severity, _ message: String) {
            self.severity = severity
            self.message = message
        }
    }

    /// Diagnostics in the order they were found.
    private struct Findings {
        var diagnostics: [DatasetDiagnostic] = []

        mutating func add(_ severity: DatasetDiagnostic.Severity, at location: String, item: String? = nil, _ message: String) {
            diagnostics.append(DatasetDiagnostic(severity: severity, location: location, itemID: item, message: message))
        }
    }
}

/// One finding of a dataset validation: where, which item, and what to do.
public struct DatasetDiagnostic: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable, Codable {
        /// Makes the validation fail.
        case problem
        /// Worth fixing; makes the validation fail only when it is strict.
        case warning
        /// For information; never fails the validation.
        case note
    }

    public var severity: Severity
    /// `<dataset>/manifest.jsonl:<line>`, an image's path, or the dataset folder itself.
    public var location: String
    /// The item concerned, when its id is known.
    public var itemID: String?
    /// What is wrong and what to do about it.
    public var message: String

    public init(severity: Severity, location: String, itemID: String? = nil, message: String) {
        self.severity = severity
        self.location = location
        self.itemID = itemID
        self.message = message
    }

    /// One line: `<location>: [warning: |note: ][item '<id>': ]<message>`.
    ///
    /// Control characters (a newline inside an id, say) are escaped, so every diagnostic
    /// stays on its own line.
    public var description: String {
        var text = "\(location): "
        if severity != .problem { text += "\(severity.rawValue): " }
        if let itemID { text += "item '\(itemID)': " }
        text += message
        return String(text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }.joined())
    }
}

/// The outcome of validating one dataset.
public struct DatasetValidation: Sendable, Hashable {
    /// The dataset folder as the user gave it.
    public var path: String
    /// Non-blank manifest lines, or images in a bare folder.
    public var itemCount: Int
    /// Everything found, in file order.
    public var diagnostics: [DatasetDiagnostic]

    public init(path: String, itemCount: Int, diagnostics: [DatasetDiagnostic]) {
        self.path = path
        self.itemCount = itemCount
        self.diagnostics = diagnostics
    }

    public var problems: [DatasetDiagnostic] { diagnostics.filter { $0.severity == .problem } }
    public var warnings: [DatasetDiagnostic] { diagnostics.filter { $0.severity == .warning } }
    public var notes: [DatasetDiagnostic] { diagnostics.filter { $0.severity == .note } }

    /// Whether the dataset has no problems (warnings and notes allowed).
    public var passed: Bool { problems.isEmpty }

    /// `datasets/sample: 24 items, 0 problems, 0 warnings.`
    public var summary: String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        return "\(path): \(count(itemCount, "item")), \(count(problems.count, "problem")), \(count(warnings.count, "warning"))."
    }

    /// The whole report: one line per diagnostic, then the summary, each ending in a newline.
    public var report: String {
        (diagnostics.map(\.description) + [summary]).map { $0 + "\n" }.joined()
    }
}

/// Whether a `lang` value is shaped like a BCP 47 (RFC 5646) language tag.
///
/// Checks the form, not the registry: a 2- or 3-letter language (ISO 639), up to three
/// extended languages, then an optional script (4 letters), region (2 letters or 3 digits),
/// variants, extensions and a private-use part, as in `en`, `pt-BR`, `zh-Hant-TW`, `es-419`,
/// `de-CH-1996`. Longer language subtags are allowed by the grammar but none is registered,
/// so "english" is refused, as is "en_US".
enum LanguageTag {
    static func isWellFormed(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false).map { Array($0.utf8) }
        func isAlpha(_ part: [UInt8]) -> Bool { part.allSatisfy { (65...90).contains($0) || (97...122).contains($0) } }
        func isDigits(_ part: [UInt8]) -> Bool { part.allSatisfy { (48...57).contains($0) } }
        guard parts.allSatisfy({ (1...8).contains($0.count) && $0.allSatisfy { isAlpha([$0]) || isDigits([$0]) } })
        else { return false }
        func isPrivateUse(_ part: [UInt8]) -> Bool { part == Array("x".utf8) || part == Array("X".utf8) }

        if isPrivateUse(parts[0]) { return parts.count > 1 }
        guard isAlpha(parts[0]), (2...3).contains(parts[0].count) else { return false }
        var index = 1
        func next(_ matches: ([UInt8]) -> Bool) -> Bool {
            guard index < parts.count, matches(parts[index]) else { return false }
            index += 1
            return true
        }
        var extlangs = 0
        while extlangs < 3, next({ $0.count == 3 && isAlpha($0) }) { extlangs += 1 }
        _ = next { $0.count == 4 && isAlpha($0) }  // script
        _ = next { ($0.count == 2 && isAlpha($0)) || ($0.count == 3 && isDigits($0)) }  // region
        while next({ $0.count >= 5 || ($0.count == 4 && isDigits([$0[0]])) }) {}  // variants
        while index < parts.count, parts[index].count == 1, !isPrivateUse(parts[index]) {  // extensions
            index += 1
            guard next({ $0.count >= 2 }) else { return false }
            while next({ $0.count >= 2 }) {}
        }
        if index < parts.count, isPrivateUse(parts[index]) {
            return parts.count > index + 1
        }
        return index == parts.count
    }
}
