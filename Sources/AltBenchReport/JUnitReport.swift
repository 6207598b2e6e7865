import AltBenchCore
import Foundation

/// `altbench check --junit FILE`: the verdict as JUnit XML, the de-facto schema CI servers
/// read (Jenkins, GitLab, dorny/test-reporter, mikepenz/action-junit-report).
///
/// - one `<testsuite>` per (variant, max_tokens) pair, named by its label ("terse @ 50"), with
///   `<properties>` giving the trials answered and failed on each side, and whether the
///   pair's `prompt` and `settings` changed since the baseline (`same`, `changed`,
///   `changed: model, detail`, or `unknown` for a baseline that did not record them);
/// - one `<testcase classname="altbench.<variant>.<max_tokens or none>" name="<check>">` per
///   result, a failed one holding `<failure type="regression">` with the pair's figures, a
///   skipped one (not measured in the baseline) `<skipped message="…"/>`;
/// - when the comparison cannot be judged, a testsuite "altbench check configuration" with one
///   `<error type="configuration">` per reason.
///
/// The output is deterministic (no timestamps; every `time` is "0"), so the same verdict
/// gives the same bytes, and every text is escaped so any answer, message or variant name
/// keeps the document well-formed.
package enum JUnitReport {
    package static func xml(_ verdict: CheckVerdict) -> String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let failures = verdict.failures.count
        let tests = verdict.results.count + verdict.errors.count
        out += "<testsuites name=\"altbench check\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(verdict.errors.count)\" time=\"0\">\n"
        for group in groups(verdict.results) {
            let pair = verdict.comparison.pairs.first { $0.variant == group.variant && $0.maxTokens == group.maxTokens }
            let failed = group.results.filter(\.failed).count
            let skipped = group.results.filter(\.skipped).count
            out += "  <testsuite name=\(attribute(group.results[0].label)) tests=\"\(group.results.count)\" failures=\"\(failed)\" errors=\"0\" skipped=\"\(skipped)\" time=\"0\">\n"
            if let pair, let before = pair.before, let after = pair.after {
                out += "    <properties>\n"
                for (name, value) in [
                    ("baseline.answered", before.answered), ("baseline.failed", before.errors),
                    ("run.answered", after.answered), ("run.failed", after.errors),
                ] {
                    out += "      <property name=\"\(name)\" value=\"\(value)\"/>\n"
                }
                if let change = pair.requestChange {
                    let settings = change.settings == .changed
                        ? "changed: " + change.changedSettings.joined(separator: ", ") : change.settings.rawValue
                    out += "      <property name=\"prompt\" value=\(attribute(change.prompt.rawValue))/>\n"
                    out += "      <property name=\"settings\" value=\(attribute(settings))/>\n"
                }
                out += "    </properties>\n"
            }
            for result in group.results {
                let opening = "    <testcase classname=\(attribute(className(result.variant, result.maxTokens))) name=\(attribute(result.check)) time=\"0\""
                switch result.outcome {
                case .passed:
                    out += opening + "/>\n"
                case .skipped:
                    out += opening + ">\n"
                    out += "      <skipped message=\(attribute(result.message))/>\n"
                    out += "    </testcase>\n"
                case .failed:
                    out += opening + ">\n"
                    out += "      <failure message=\(attribute("\(result.check) \(result.message)")) type=\"regression\">"
                    out += text(failureDetails(result, pair: pair, comparison: verdict.comparison))
                    out += "</failure>\n"
                    out += "    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        if !verdict.errors.isEmpty {
            out += "  <testsuite name=\"altbench check configuration\" tests=\"\(verdict.errors.count)\" failures=\"0\" errors=\"\(verdict.errors.count)\" skipped=\"0\" time=\"0\">\n"
            for problem in verdict.problems {
                let (name, error) = (problem.check, problem.message)
                out += "    <testcase classname=\"altbench.configuration\" name=\(attribute(name)) time=\"0\">\n"
                out += "      <error message=\(attribute(error)) type=\"configuration\">"
                out += text(
                    "\(error)\nbaseline \(verdict.comparison.before.runID) (\(verdict.comparison.before.provider)) → run \(verdict.comparison.after.runID) (\(verdict.comparison.after.provider))")
                out += "</error>\n"
                out += "    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        out += "</testsuites>\n"
        return out
    }

    // MARK: - Structure

    struct Group {
        var variant: String
        var maxTokens: Int?
        var results: [CheckVerdict.Result]
    }

    /// Results grouped by pair, pairs in order of first appearance.
    static func groups(_ results: [CheckVerdict.Result]) -> [Group] {
        var groups: [Group] = []
        for result in results {
            if let index = groups.firstIndex(where: { $0.variant == result.variant && $0.maxTokens == result.maxTokens }) {
                groups[index].results.append(result)
            } else {
                groups.append(Group(variant: result.variant, maxTokens: result.maxTokens, results: [result]))
            }
        }
        return groups
    }

    static func className(_ variant: String, _ maxTokens: Int?) -> String {
        "altbench.\(variant).\(maxTokens.map(String.init) ?? "none")"
    }

    /// The text of a `<failure>`: the verdict line, which runs, the figure with its test, and
    /// the items that turned from passing to failing the check, with their new answers.
    static func failureDetails(_ result: CheckVerdict.Result, pair: PairComparison?, comparison: Comparison) -> String {
        var lines = ["\(result.label): \(result.check) \(result.message)"]
        lines.append("baseline \(comparison.before.runID) → run \(comparison.after.runID)")
        guard let pair else { return lines.joined(separator: "\n") }
        if let before = pair.before, let after = pair.after {
            lines.append(
                "trials: baseline \(before.answered) answered, \(before.errors) failed → run \(after.answered) answered, \(after.errors) failed")
        }
        if let change = pair.requestChange?.text { lines.append("since the baseline: \(change)") }
        let metrics = result.check == "significance" ? pair.significantRegressions : pair.metric(result.check).map { [$0] } ?? []
        lines += metrics.map(describe)
        let flips = pair.flips.filter { $0.regressed && $0.check == result.check }
        if !flips.isEmpty {
            lines.append("items now failing \(result.check):")
            for flip in flips {
                let answer = flip.afterAnswer.map { ": " + oneLine($0) } ?? ""
                lines.append("- \(flip.item)\(answer)")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ metric: MetricDelta) -> String {
        func value(_ number: Double?) -> String {
            guard let number else { return "–" }
            return metric.kind == .rate ? String(format: "%.1f%%", number * 100) : String(format: "%.3f", number)
        }
        var line = "\(metric.name): \(value(metric.before)) → \(value(metric.after))"
        if let test = metric.test {
            line += ", \(SignificanceTest.describe(p: test.p))"
            switch test.method {
            case .pairedBootstrap:
                line += " (paired bootstrap over \(test.items) items)"
            case .exactMcNemar:
                line += " (exact McNemar over \(test.items) items"
                if let improved = test.improved, let worsened = test.worsened {
                    line += ": \(improved) better, \(worsened) worse"
                }
                line += ")"
            }
        }
        return line
    }

    /// Line breaks and runs of whitespace folded into single spaces.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
    }

    // MARK: - Escaping

    /// `value` as a quoted attribute value. Line breaks and tabs become character references
    /// so parsers keep them instead of normalizing them to spaces.
    static func attribute(_ value: String) -> String {
        "\"" + escape(value, attribute: true) + "\""
    }

    /// `value` as element text.
    static func text(_ value: String) -> String {
        escape(value, attribute: false)
    }

    /// Escapes the markup characters and replaces what XML 1.0 cannot carry at all (control
    /// characters other than tab, line feed and carriage return; U+FFFE and U+FFFF) with U+FFFD.
    /// `>` is always escaped, so `]]>` cannot occur.
    static func escape(_ value: String, attribute: Bool) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += attribute ? "&quot;" : "\""
            case "'": out += attribute ? "&apos;" : "'"
            case "\r": out += "&#13;"
            case "\n": out += attribute ? "&#10;" : "\n"
            case "\t": out += attribute ? "&#9;" : "\t"
            default:
                if isAllowed(scalar) {
                    out.unicodeScalars.append(scalar)
                } else {
                    out.unicodeScalars.append("\u{FFFD}")
                }
            }
        }
        return out
    }

    /// XML 1.0's `Char` production (tab, line feed and carriage return are handled above).
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}
