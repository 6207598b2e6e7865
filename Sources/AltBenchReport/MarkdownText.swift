import Foundation

/// Escaping for text from models and datasets placed in Markdown.
package enum MarkdownText {
    /// Text safe inside a GFM table cell: `|` cannot end the cell, a newline cannot end the
    /// row, and no Markdown or HTML in a model's answer is rendered as such.
    package static func cell(_ text: String) -> String {
        escape(text, newline: "<br>")
    }

    /// Text safe as inline Markdown on one line (no table around it).
    ///
    /// A lone CR ends a Markdown line as much as LF does, and prompt files written on Windows
    /// carry CRLF, so all three line endings become one space.
    package static func inline(_ text: String) -> String {
        escape(text, newline: " ")
    }

    /// One pass over the text's Unicode scalars, as a Markdown parser reads it: a `|` followed
    /// by a combining mark is still a `|` to the parser, so it is escaped as one. CRLF, a lone
    /// CR and LF each become `newline`.
    static func escape(_ text: String, newline: String) -> String {
        var out = String.UnicodeScalarView()
        out.reserveCapacity(text.utf8.count + 16)
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar {
            case "\\", "`", "*", "_", "[", "]", "|", "#", "~", "!":
                out.append("\\")
                out.append(scalar)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "\r": out.append(contentsOf: newline.unicodeScalars)
            case "\n" where afterCR: break
            case "\n": out.append(contentsOf: newline.unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// A link target for a file path: spaces and brackets percent-encoded so the link survives
    /// rendering, and `%`, `?` and `#` too, since in a file name they are characters, not URL syntax;
    /// and `:`, so that no first segment (`javascript:x.png`) can read as a URL scheme.
    package static func linkTarget(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "()[] :")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    /// A link target for a remote URL: its query, fragment and existing `%` escapes are URL
    /// syntax and stay as they are; spaces, quotes and non-ASCII characters, which a URL cannot
    /// hold as such, and parentheses, which would end the Markdown link, are percent-encoded.
    package static func linkTarget(url: String) -> String {
        url.addingPercentEncoding(withAllowedCharacters: urlCharacters) ?? url
    }

    /// RFC 3986 unreserved and reserved characters plus `%`, without the parentheses that
    /// would end a Markdown link destination.
    private static let urlCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'*+,;=%")

    /// `to` relative to the folder `from`, both absolute file paths.
    package static func relativePath(to target: String, from directory: String) -> String {
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
