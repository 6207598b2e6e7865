import Foundation

/// Writes the lines of generated images into a dataset's `manifest.jsonl`, keeping what is
/// there: lines for other ids stay as they are, in place; a line a person marked
/// `"reviewed": true` keeps every field the person may have corrected (only `image` and
/// `generated` are refreshed) and stays reviewed; an unreviewed line is replaced.
package enum GeneratedManifest {
    /// One generated image's line.
    package struct Entry: Sendable, Hashable {
        package var id: String
        /// Relative to the dataset folder: `images/<id>.<ext>`.
        package var image: String
        /// The spec's manifest fields (references, context, lang, …).
        package var fields: [String: JSONValue]
        /// model, prompt, revised_prompt, size, quality, style, created, endpoint.
        package var generated: [String: JSONValue]

        package init(id: String, image: String, fields: [String: JSONValue], generated: [String: JSONValue]) {
            self.id = id
            self.image = image
            self.fields = fields
            self.generated = generated
        }
    }

    /// The order keys are written in, so a line reads id first; other keys follow, sorted.
    static let keyOrder = ["id", "image"] + GenerationSpec.manifestFields + ["generated", "reviewed"]

    /// The manifest text with `entries` merged into `existing` (the current file's text, or
    /// empty).
    package static func merge(_ entries: [Entry], into existing: String) -> String {
        var lines = existing.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        var index: [String: Int] = [:]
        for (number, line) in lines.enumerated() {
            if let id = (try? JSONValue.parse(Data(line.utf8)))?["id"]?.stringValue, index[id] == nil { index[id] = number }
        }
        for entry in entries {
            var object = entry.fields
            object["id"] = .string(entry.id)
            object["image"] = .string(entry.image)
            object["generated"] = .object(entry.generated)
            object["reviewed"] = .bool(false)
            if let number = index[entry.id] {
                if let old = (try? JSONValue.parse(Data(lines[number].utf8)))?.objectValue, old["reviewed"]?.boolValue == true {
                    var kept = old
                    kept["image"] = object["image"]
                    kept["generated"] = object["generated"]
                    object = kept
                }
                lines[number] = line(object)
            } else {
                index[entry.id] = lines.count
                lines.append(line(object))
            }
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// One compact JSON line, keys in ``keyOrder``.
    package static func line(_ object: [String: JSONValue]) -> String {
        let known = keyOrder.filter { object[$0] != nil }
        let others = object.keys.filter { !keyOrder.contains($0) }.sorted()
        return "{" + (known + others).map { "\(JSONValue.quoted($0)):\(object[$0]!.canonicalText)" }.joined(separator: ",") + "}"
    }
}
