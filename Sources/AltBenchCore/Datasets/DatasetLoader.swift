import Foundation

/// Loads `datasets/NAME/manifest.jsonl`, or a bare folder of images when there is no manifest.
///
/// A manifest problem (a line that is not JSON, a missing `id`, a duplicate id) is fatal and
/// names the line. An image problem (missing file, not an image, unsupported format, too
/// large) is not: the item keeps its `problem` and only its own trials fail.
///
/// Each line is read and checked by ``checkManifestLine(_:number:root:shown:seen:)``, which
/// lists every problem on it: the loader throws the first, and ``DatasetValidator`` reports
/// them all.
public struct DatasetLoader: Sendable {
    /// The largest image file altbench sends (OpenAI's per-image limit).
    public static let defaultImageSizeLimit = 20 * 1024 * 1024
    /// The keys a manifest line may hold, in the order the README lists them.
    static let manifestKeyNames = [
        "id", "image", "references", "context", "lang", "expected_text", "must_mention", "tags", "decorative",
        "generated", "reviewed",
    ]
    static let manifestKeys = Set(manifestKeyNames)
    static let imageExtensions: Set<String> = [
        "png", "jpg", "jpeg", "webp", "gif", "bmp", "tif", "tiff", "heic", "heif", "avif", "svg", "ico",
    ]

    public var imageSizeLimit: Int

    public init(imageSizeLimit: Int = DatasetLoader.defaultImageSizeLimit) {
        self.imageSizeLimit = imageSizeLimit
    }

    public func load(directory: URL, displayPath: String? = nil) throws -> Dataset {
        let shown = (displayPath ?? directory.path).trimmingTrailingSlashes()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw AltBenchError.datasetMissing(path: shown) }

        let manifest = directory.appendingPathComponent("manifest.jsonl")
        let dataset: Dataset
        if FileManager.default.fileExists(atPath: manifest.path) {
            dataset = try loadManifest(manifest, root: directory, shown: shown)
        } else {
            dataset = try loadFolder(directory, shown: shown)
        }
        guard !dataset.items.isEmpty else { throw AltBenchError.datasetEmpty(path: shown) }
        return dataset
    }

    // MARK: - Manifest

    private func loadManifest(_ manifest: URL, root: URL, shown: String) throws -> Dataset {
        let file = Self.manifestFile(shown)
        var items: [DatasetItem] = []
        var notes: [String] = []
        try readManifest(manifest, root: root, shown: shown) { line in
            for unknown in line.unknownKeys {
                notes.append("\(file):\(line.number): unknown key `\(unknown.key)` ignored\(unknown.hint).")
            }
            guard let item = line.item else {
                let first = line.problems.first ?? .notAnObject
                throw AltBenchError.manifestLine(file: file, line: line.number, message: first.runMessage(id: line.id))
            }
            items.append(item)
        }
        let unreviewed = items.filter(\.isUnreviewedGeneration).count
        if unreviewed > 0 {
            notes.append(
                "\(unreviewed) of \(items.count) items were generated and not reviewed yet: their references are drafts (`altbench datasets validate \(shown)` lists them).")
        }
        return Dataset(name: root.lastPathComponent, path: shown, root: root, items: items, notes: notes)
    }

    /// How the manifest is named in messages: `<shown folder>/manifest.jsonl`.
    static func manifestFile(_ shown: String) -> String { "\(shown)/manifest.jsonl" }

    /// Reads `manifest.jsonl` and hands each non-blank line, checked, to `body` in file order.
    ///
    /// Throws only when the file cannot be read or is not UTF-8, and whatever `body` throws:
    /// the loader stops at its first bad line, the validator goes on to the last.
    func readManifest(_ manifest: URL, root: URL, shown: String, _ body: (ManifestLine) throws -> Void) throws {
        let data = try Data(contentsOf: manifest)
        guard let text = String(data: data, encoding: .utf8) else {
            throw AltBenchError.manifestLine(
                file: Self.manifestFile(shown), line: 1, message: "the manifest is not UTF-8 text. Save it as UTF-8.")
        }
        var seen: [String: Int] = [:]
        // Split on the "\n" scalar: "\r\n" is a single Character in Swift, so a Character split
        // would read a whole CRLF manifest as one line. The trim below drops each line's "\r".
        let rawLines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, rawLine) in rawLines.enumerated() {
            let line = Substring(rawLine).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            try body(checkManifestLine(line, number: index + 1, root: root, shown: shown, seen: &seen))
        }
    }

    /// Reads one manifest line into an item and lists everything wrong with it.
    ///
    /// Problems are listed in the order `altbench run` has always met them, so the loader
    /// throws the same first one; the validator reports them all. `seen` maps the ids of
    /// earlier lines to their line numbers, for the duplicate check.
    func checkManifestLine(_ text: String, number: Int, root: URL, shown: String, seen: inout [String: Int])
        -> ManifestLine
    {
        var line = ManifestLine(number: number)
        let object: [String: JSONValue]
        do {
            guard let dictionary = try JSONValue.parse(Data(text.utf8)).objectValue else {
                line.problems.append(.notAnObject)
                return line
            }
            object = dictionary
        } catch {
            line.problems.append(.notJSON)
            return line
        }

        for key in Set(object.keys).subtracting(Self.manifestKeys).sorted() {
            line.unknownKeys.append(
                ManifestLine.UnknownKey(key: key, suggestion: YAMLDiagnostics.closest(to: key, in: Self.manifestKeys.sorted())))
        }

        // The id and the image come first: without them `run` has nothing to name or send.
        if let id = line.string(object, "id"), !id.isEmpty {
            line.id = id
            if let first = seen[id] {
                line.problems.append(.duplicateID(id, firstLine: first))
            } else {
                seen[id] = number
            }
        } else if !line.malformedKeys.contains("id") {
            line.problems.append(.missingID)
        }
        let imageField = line.string(object, "image")
        if imageField?.isEmpty ?? !line.malformedKeys.contains("image") {
            line.problems.append(.missingImage(folder: shown))
        }

        // One field at a time, in this order, so a line's first problem is the one `run` has always named.
        let references = line.strings(object, "references")
        let context = line.string(object, "context")
        let lang = line.string(object, "lang")
        let expectedText = line.string(object, "expected_text")
        let mustMention = line.strings(object, "must_mention")
        let tags = line.strings(object, "tags")
        let decorative = line.bool(object, "decorative") ?? false
        let reviewed = line.bool(object, "reviewed")
        let generated = line.object(object, "generated")
        // The image is a stand-in until the `image` field is known to be usable.
        var item = DatasetItem(
            id: line.id ?? "", image: .remote(URL(fileURLWithPath: "/")), references: references, context: context,
            lang: lang, expectedText: expectedText, mustMention: mustMention, tags: tags, decorative: decorative,
            line: number)
        item.generated = generated
        item.reviewed = reviewed

        if let imageField, !imageField.isEmpty {
            let lowered = imageField.lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
                if let url = URL(string: imageField), url.host != nil {
                    line.image = .remote(url)
                } else {
                    line.problems.append(.invalidURL(imageField))
                }
            } else if lowered.hasPrefix("data:") || lowered.contains("://") {
                line.problems.append(.unsupportedImageReference(imageField))
            } else {
                let url = imageField.hasPrefix("/")
                    ? URL(fileURLWithPath: imageField) : root.appendingPathComponent(imageField)
                line.image = .file(path: imageField, url: url)
                inspect(&item, url: url, shownPath: imageField.hasPrefix("/") ? imageField : "\(shown)/\(imageField)")
            }
        }
        if let image = line.image { item.image = image }
        line.fields = item
        return line
    }

    // MARK: - Bare folder

    private func loadFolder(_ directory: URL, shown: String) throws -> Dataset {
        let folder = try readFolder(directory, shown: shown)
        let notes = folder.skipped.map { "\(shown)/\($0): not an image file name, skipped." }
        return Dataset(name: directory.lastPathComponent, path: shown, root: directory, items: folder.items, notes: notes)
    }

    /// The images of a folder without a manifest, sorted by name, and the other files' names.
    func readFolder(_ directory: URL, shown: String) throws -> (items: [DatasetItem], skipped: [String]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        var skipped: [String] = []
        var files: [String] = []
        for name in names where !name.hasPrefix(".") {
            let ext = (name as NSString).pathExtension.lowercased()
            if Self.imageExtensions.contains(ext) {
                files.append(name)
            } else {
                var isDirectory: ObjCBool = false
                // Only whether it is a folder matters here: sub-folders are skipped without a note.
                _ = FileManager.default.fileExists(
                    atPath: directory.appendingPathComponent(name).path, isDirectory: &isDirectory)
                if !isDirectory.boolValue { skipped.append(name) }
            }
        }
        let stems = files.map { ($0 as NSString).deletingPathExtension }
        let imageNames = Set(files)
        var items: [DatasetItem] = []
        for (name, stem) in zip(files, stems) {
            // The stem is the id unless another image shares it, or it is another image's full
            // name ("cat.png.gif" beside "cat.png"): then the full name keeps ids unique.
            let unique = stems.filter { $0 == stem }.count == 1 && !imageNames.contains(stem)
            let id = unique ? stem : name
            let url = directory.appendingPathComponent(name)
            var item = DatasetItem(id: id, image: .file(path: name, url: url))
            inspect(&item, url: url, shownPath: "\(shown)/\(name)")
            items.append(item)
        }
        return (items, skipped)
    }

    // MARK: - Images

    /// Reads a local image's header and hash, or records why it cannot be sent.
    private func inspect(_ item: inout DatasetItem, url: URL, shownPath: String) {
        do {
            item.imageInfo = try Self.inspectImage(at: url, shownPath: shownPath, sizeLimit: imageSizeLimit).info
        } catch let problem as ImageProblem {
            item.problem = problem
        } catch {
            item.problem = .unreadable(path: shownPath, reason: error.localizedDescription)
        }
    }

    /// Reads a local image file once: checks its size, sniffs its header, hashes its bytes.
    public static func inspectImage(at url: URL, shownPath: String, sizeLimit: Int = defaultImageSizeLimit)
        throws -> (info: ImageInfo, data: Data)
    {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw ImageProblem.missing(path: shownPath)
        }
        if (attributes[.type] as? FileAttributeType) == .typeDirectory {
            throw ImageProblem.notAnImage(path: shownPath)
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= sizeLimit else { throw ImageProblem.tooLarge(path: shownPath, bytes: size, limit: sizeLimit) }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ImageProblem.unreadable(path: shownPath, reason: error.localizedDescription)
        }
        guard data.count <= sizeLimit else { throw ImageProblem.tooLarge(path: shownPath, bytes: data.count, limit: sizeLimit) }
        let header = try ImageSniffer.sniff(data, path: shownPath)
        if header.format == .gif, ImageSniffer.isAnimatedGIF(data) { throw ImageProblem.animatedGIF(path: shownPath) }
        let info = ImageInfo(
            format: header.format, width: header.width, height: header.height, byteCount: data.count,
            sha256: Hashing.sha256Hex(data))
        return (info, data)
    }
}

extension String {
    func trimmingTrailingSlashes() -> String {
        var result = self
        while result.count > 1, result.hasSuffix("/") { result.removeLast() }
        return result
    }
}

/// One non-blank manifest line, read and checked by ``DatasetLoader/checkManifestLine(_:number:root:shown:seen:)``.
struct ManifestLine: Sendable {
    /// A key altbench does not know, with the known key it is probably a typo of.
    struct UnknownKey: Sendable, Hashable {
        var key: String
        var suggestion: String?

        /// " (did you mean `references`?)", or "" when no known key is close.
        var hint: String { suggestion.map { " (did you mean `\($0)`?)" } ?? "" }
    }

    /// 1-based, counting blank lines.
    let number: Int
    /// The `id` when it is a non-empty string, also on a line with problems.
    var id: String?
    /// The image as the line names it, when `image` is a usable path or http(s) URL.
    var image: ImageSource?
    /// Every field that could be read; `nil` when the line is not a JSON object. On a line
    /// with problems, the fields that could not be read hold their defaults.
    var fields: DatasetItem?
    /// What stops `altbench run`, in the order the loader has always met them.
    var problems: [ManifestProblem] = []
    var unknownKeys: [UnknownKey] = []
    /// Keys whose value has the wrong type; their field in `fields` holds its default.
    var malformedKeys: Set<String> = []

    init(number: Int) { self.number = number }

    /// The item to load, when nothing on the line stops a run.
    var item: DatasetItem? { problems.isEmpty ? fields : nil }

    // Each reader returns the value, or records why it cannot and returns the default.

    mutating func string(_ object: [String: JSONValue], _ key: String) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { return malformed(key, .string, nil) }
        return string
    }

    /// A list of strings; a single string is a list of one.
    mutating func strings(_ object: [String: JSONValue], _ key: String) -> [String] {
        guard let value = object[key], !value.isNull else { return [] }
        if let single = value.stringValue { return [single] }
        let list = value.arrayValue?.compactMap(\.stringValue)
        guard let list, list.count == value.arrayValue?.count else { return malformed(key, .strings, []) }
        return list
    }

    mutating func bool(_ object: [String: JSONValue], _ key: String) -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let bool = value.boolValue else { return malformed(key, .bool, nil) }
        return bool
    }

    /// A JSON object, kept as it is.
    mutating func object(_ object: [String: JSONValue], _ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        guard value.objectValue != nil else { return malformed(key, .object, nil) }
        return value
    }

    private mutating func malformed<T>(_ key: String, _ expected: ManifestProblem.FieldType, _ fallback: T) -> T {
        malformedKeys.insert(key)
        problems.append(.wrongType(key: key, expected: expected))
        return fallback
    }
}

/// Something on a manifest line that stops `altbench run`.
enum ManifestProblem: Sendable, Hashable {
    enum FieldType: Sendable, Hashable { case string, strings, bool, object }

    case notJSON
    case notAnObject
    case missingID
    case duplicateID(String, firstLine: Int)
    case wrongType(key: String, expected: FieldType)
    case missingImage(folder: String)
    case invalidURL(String)
    case unsupportedImageReference(String)

    /// The problem on its own, for a report that names the item separately.
    var message: String {
        switch self {
        case .notJSON:
            return "this line is not valid JSON. Each line must be one complete JSON object, e.g. {\"id\": \"cat\", \"image\": \"cat.png\"}; check for a missing quote, comma or brace."
        case .notAnObject:
            return "each line must be one JSON object such as {\"id\": \"cat\", \"image\": \"cat.png\", \"references\": [\"A cat.\"]}."
        case .missingID:
            return "the item has no `id`. Give every line a unique \"id\"."
        case .duplicateID(let id, let firstLine):
            return "the id '\(id)' is already used on line \(firstLine). Ids must be unique."
        case .wrongType(let key, .string):
            return "`\(key)` must be a string."
        case .wrongType(let key, .strings):
            return "`\(key)` must be a list of strings, e.g. \"\(key)\": [\"...\"]."
        case .wrongType(let key, .bool):
            return "`\(key)` must be true or false."
        case .wrongType(let key, .object):
            return "`\(key)` must be an object, as `altbench datasets generate` writes it (or remove it)."
        case .missingImage(let folder):
            return "`image` is missing. Set \"image\" to a file path relative to \(folder) or an http(s) URL."
        case .invalidURL(let address):
            return "'\(address)' is not a valid URL."
        case .unsupportedImageReference(let reference):
            return "`image` must be a file path or an http(s) URL, not '\(reference.prefix(40))'."
        }
    }

    /// The sentence `altbench run` stops with, naming the item where the message needs it.
    func runMessage(id: String?) -> String {
        let id = id ?? ""
        switch self {
        case .missingImage(let folder):
            return "item '\(id)' has no `image`. Set \"image\" to a file path relative to \(folder) or an http(s) URL."
        case .invalidURL, .unsupportedImageReference:
            return "item '\(id)': \(message)"
        default:
            return message
        }
    }
}
