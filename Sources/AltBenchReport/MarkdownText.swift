import Foundation

/// Escaping for text from models and datasets placed in Markdown.
public enum MarkdownText {
    /// Text safe inside a GFM table cell: `|` cannot end the cell, a newline cannot end the
    /// row, and no Markdown or HTML in a model's answer is rendered as such.
    public static func cell(_ text: String) -> String {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        return escapeInline(normalized).replacingOccurrences(of: "\n", with: "<br>")
    }

    /// Text safe as inline Markdown on one line (no table around it).
    public static func inline(_ text: String) -> String {
        escapeInline(text).replacingOccurrences(of: "\n", with: " ")
    }

    static func escapeInline(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "\\", "`", "*", "_", "[", "]", "|", "#", "~", "!":
                out.append("\\")
                out.append(character)
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A link target: spaces and brackets percent-encoded so the link survives rendering.
    public static func linkTarget(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "()[] ")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    /// `to` relative to the folder `from`, both absolute file paths.
    public static func relativePath(to target: String, from directory: String) -> String {
        let targetParts = URL(fileURLWithPath: target).standardizedFileURL.pathComponents
        let baseParts = URL(fileURLWithPath: directory).standardizedFileURL.pathComponents
        var common = 0
        while common < min(targetParts.count, baseParts.count), targetParts[common] == baseParts[common] {
            common += 1
        }
        let ups = Array(repeating: "..", count: baseParts.count - common)
        let rest = Array(targetParts[common...])
        return (ups + rest).joined(separator: "/")
    }
}
