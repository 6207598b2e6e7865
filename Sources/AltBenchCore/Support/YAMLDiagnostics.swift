import Foundation
import Yams

/// Turns Yams errors into a line number and a short problem, and suggests near-miss keys.
package enum YAMLDiagnostics {
    /// The 1-based line within the YAML text where the problem is, when Yams knows it.
    package static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(let context, let problem, let mark, let yaml), .parser(let context, let problem, let mark, let yaml),
            .composer(let context, let problem, let mark, let yaml):
            // Something left open (a quote, a bracket) is only noticed at the end of the text,
            // on the empty line after the last one; the line to fix is where it was opened.
            if let context, problem.contains("end of stream") || isPastLastLine(mark, in: yaml) {
                return context.mark.line
            }
            return mark.line
        case .duplicatedKeysInMapping(_, let context):
            return context.mark.line
        default:
            return nil
        }
    }

    /// Whether a mark sits after the text's final line break, where no line of the file is.
    private static func isPastLastLine(_ mark: Mark, in yaml: String) -> Bool {
        // Scalars, not Characters: "\r\n" is one Character and would hide the "\n".
        let breaks = yaml.unicodeScalars.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
        return yaml.unicodeScalars.last == "\n" && mark.line > breaks
    }

    /// Yams' problem text without the echoed YAML source.
    package static func summary(of error: YamlError) -> String {
        switch error {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _),
            .composer(let context, let problem, _, _):
            return [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        case .duplicatedKeysInMapping(let duplicates, _):
            return "duplicated keys: \(duplicates.joined(separator: ", "))"
        default:
            return String(describing: error).split(separator: "\n").first.map(String.init) ?? "invalid YAML"
        }
    }

    /// The known key closest to a misspelt one, if it is close enough to be a typo.
    package static func closest(to key: String, in known: [String]) -> String? {
        let scored = known.map { ($0, editDistance(key.lowercased(), $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, key.count / 3) else { return nil }
        return best.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
