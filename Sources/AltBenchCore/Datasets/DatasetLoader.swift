import Foundation

/// Loads `datasets/NAME/manifest.jsonl`, or a bare folder of images when there is no manifest.
///
/// A manifest problem (a line that is not JSON, a missing `id`, a duplicate id) is fatal and
/// names the line. An image problem (missing file, not an image, unsupported format, too
/// large) is not: the item keeps its `problem` and only its own trials fail.
public struct DatasetLoader: Sendable {
    /// The largest image file altbench sends (OpenAI's per-image limit).
    public static let defaultImageSizeLimit = 20 * 1024 * 1024
    static let manifestKeys: Set<String> = [
        "id", "image", "references", "context", "lang", "expected_text", "must_mention", "tags", "decorative",
    ]
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
        let file = "\(shown)/manifest.jsonl"
        let data = try Data(contentsOf: manifest)
        guard let text = String(data: data, encoding: .utf8) else {
            throw AltBenchError.manifestLine(file: file, line: 1, message: "the manifest is not UTF-8 text. Save it as UTF-8.")
        }
        var items: [DatasetItem] = []
        var notes: [String] = []
        var seen: [String: Int] = [:]
        // Split on the "\n" scalar: "\r\n" is a single Character in Swift, so a Character split
        // would read a whole CRLF manifest as one line. The trim below drops each line's "\r".
        let rawLines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, rawLine) in rawLines.enumerated() {
            let lineNumber = index + 1
            let line = Substring(rawLine).trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            func fail(_ message: String) -> AltBenchError {
                .manifestLine(file: file, line: lineNumber, message: message)
            }
            let object: [String: JSONValue]
            do {
                guard let dictionary = try JSONValue.parse(Data(line.utf8)).objectValue else {
                    throw fail("each line must be one JSON object such as {\"id\": \"cat\", \"image\": \"cat.png\", \"references\": [\"A cat.\"]}.")
                }
                object = dictionary
            } catch let error as AltBenchError {
                throw error
            } catch {
                throw fail("this line is not valid JSON. Each line must be one complete JSON object, e.g. {\"id\": \"cat\", \"image\": \"cat.png\"}; check for a missing quote, comma or brace.")
            }

            let unknown = Set(object.keys).subtracting(Self.manifestKeys).sorted()
            for key in unknown {
                let hint = YAMLDiagnostics.closest(to: key, in: Self.manifestKeys.sorted()).map { " (did you mean `\($0)`?)" } ?? ""
                notes.append("\(file):\(lineNumber): unknown key `\(key)` ignored\(hint).")
            }

            guard let id = try string(object, "id", fail), !id.isEmpty else {
                throw fail("the item has no `id`. Give every line a unique \"id\".")
            }
            if let first = seen[id] {
                throw fail("the id '\(id)' is already used on line \(first). Ids must be unique.")
            }
            seen[id] = lineNumber
            guard let imageField = try string(object, "image", fail), !imageField.isEmpty else {
                throw fail("item '\(id)' has no `image`. Set \"image\" to a file path relative to \(shown) or an http(s) URL.")
            }

            var item = DatasetItem(
                id: id, image: .remote(URL(fileURLWithPath: "/")),
                references: try strings(object, "references", fail),
                context: try string(object, "context", fail),
                lang: try string(object, "lang", fail),
                expectedText: try string(object, "expected_text", fail),
                mustMention: try strings(object, "must_mention", fail),
                tags: try strings(object, "tags", fail),
                decorative: try bool(object, "decorative", fail) ?? false,
                line: lineNumber)

            let lowered = imageField.lowercased()
            if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
                guard let url = URL(string: imageField), url.host != nil else {
                    throw fail("item '\(id)': '\(imageField)' is not a valid URL.")
                }
                item.image = .remote(url)
            } else if lowered.hasPrefix("data:") || lowered.contains("://") {
                throw fail("item '\(id)': `image` must be a file path or an http(s) URL, not '\(imageField.prefix(40))'.")
            } else {
                let url = imageField.hasPrefix("/")
                    ? URL(fileURLWithPath: imageField) : root.appendingPathComponent(imageField)
                item.image = .file(path: imageField, url: url)
                inspect(&item, url: url, shownPath: imageField.hasPrefix("/") ? imageField : "\(shown)/\(imageField)")
            }
            items.append(item)
        }
        return Dataset(name: root.lastPathComponent, path: shown, root: root, items: items, notes: notes)
    }

    private func string(_ object: [String: JSONValue], _ key: String, _ fail: (String) -> AltBenchError) throws -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw fail("`\(key)` must be a string.") }
        return string
    }

    private func strings(_ object: [String: JSONValue], _ key: String, _ fail: (String) -> AltBenchError) throws -> [String] {
        guard let value = object[key], !value.isNull else { return [] }
        if let single = value.stringValue { return [single] }
        let list = value.arrayValue?.compactMap(\.stringValue)
        guard let list, list.count == value.arrayValue?.count else {
            throw fail("`\(key)` must be a list of strings, e.g. \"\(key)\": [\"...\"].")
        }
        return list
    }

    private func bool(_ object: [String: JSONValue], _ key: String, _ fail: (String) -> AltBenchError) throws -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let bool = value.boolValue else { throw fail("`\(key)` must be true or false.") }
        return bool
    }

    // MARK: - Bare folder

    private func loadFolder(_ directory: URL, shown: String) throws -> Dataset {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        var notes: [String] = []
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
                if !isDirectory.boolValue { notes.append("\(shown)/\(name): not an image file name, skipped.") }
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
        return Dataset(name: directory.lastPathComponent, path: shown, root: directory, items: items, notes: notes)
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
