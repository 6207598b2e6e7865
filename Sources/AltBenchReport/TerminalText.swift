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

/// Untrusted text made safe to print to a terminal.
public enum TerminalText {
    /// `text` on one line: line breaks and tabs become spaces, and control characters
    /// (including ESC, which starts ANSI sequences) and bidirectional overrides are dropped,
    /// so a model's answer can neither fake output lines nor restyle the terminal.
    public static func line(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n", "\r", "\t", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}":
                out.append(" ")
            case "\u{202A}"..."\u{202E}", "\u{2066}"..."\u{2069}":
                continue
            default:
                if scalar.properties.generalCategory == .control { continue }
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` on one line, cut to `limit` characters with an ellipsis.
    public static func excerpt(_ text: String, limit: Int = 100) -> String {
        let line = line(text).trimmingCharacters(in: .whitespaces)
        return line.count <= limit ? line : String(line.prefix(limit - 1)) + "…"
    }
}
