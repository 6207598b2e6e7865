import Foundation

/// How text from runs (variant names, answers, error reasons) is written where it lands:
/// escaped Markdown for files and the GitHub step summary, plain text for a terminal.
enum TextStyle: Sendable {
    /// GitHub-flavoured Markdown: ``MarkdownText`` escaping, `<br>` for line breaks in cells.
    case markdown
    /// A terminal: no HTML entities and no backslash escapes, one line per value, and no
    /// character that could move the cursor or recolour the screen.
    case terminal

    /// Text for a table cell.
    func cell(_ text: String) -> String {
        switch self {
        case .markdown: MarkdownText.cell(text)
        case .terminal: TerminalText.line(text).replacingOccurrences(of: "|", with: "\\|")
        }
    }

    /// Text on a line of its own or inside a sentence.
    func inline(_ text: String) -> String {
        switch self {
        case .markdown: MarkdownText.inline(text)
        case .terminal: TerminalText.line(text)
        }
    }
}

/// Untrusted text made safe to print to a terminal: the one rule for every command that
/// prints text from runs, files or servers (variant names, answers, paths, error reasons).
package enum TerminalText {
    /// `text` on one line. Line breaks and tabs become spaces; every other control character
    /// (ESC, which starts ANSI sequences, BEL, backspace, the C1 controls) is shown as `\xHH`,
    /// and the bidirectional formatting characters that reorder a line as `\u{HHHH}`: a
    /// model's answer or a folder's name can neither fake output lines nor restyle the
    /// screen, and what was there stays visible.
    package static func line(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\r", "\t", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}":
                out.append(" ")
            case _ where scalar.properties.generalCategory == .control:
                out.append(contentsOf: "\\x\(hex(scalar.value, digits: 2))".unicodeScalars)
            case _ where isReordering(scalar):
                out.append(contentsOf: "\\u{\(hex(scalar.value, digits: 4))}".unicodeScalars)
            default:
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Bidirectional formatting characters: marks, embeddings, overrides and isolates.
    package static func isReordering(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }

    /// `value` in upper-case hex, zero-padded to `digits`.
    package static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// `text` on one line, cut to `limit` characters with an ellipsis.
    package static func excerpt(_ text: String, limit: Int = 100) -> String {
        let line = line(text).trimmingCharacters(in: .whitespaces)
        return line.count <= limit ? line : String(line.prefix(limit - 1)) + "…"
    }
}
