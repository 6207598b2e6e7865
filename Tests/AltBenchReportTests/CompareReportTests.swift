import AltBenchCore
import Foundation
import Testing

@testable import AltBenchReport

@Suite("CompareReport")
struct CompareReportTests {
    typealias F = CompareFixtures

    private static let flipsHeader = "| item | check | A → B | A's answer | B's answer |"
    private static let checksHeader = "| pair | check | result | message |"
    private static let instabilityHeader = "| pair | item | check | passed |"

    private static func lines(_ markdown: String) -> [String] {
        markdown.components(separatedBy: "\n")
    }

    /// The lines from the heading that ends with `title` up to the next heading of the same
    /// or a higher level.
    private static func section(_ title: String, in markdown: String) -> [String] {
        let lines = lines(markdown)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("#") && $0.hasSuffix(" " + title) }) else { return [] }
        let level = lines[start].prefix { $0 == "#" }.count
        let rest = lines[(start + 1)...]
        let end = rest.firstIndex { line in
            line.hasPrefix("#") && line.prefix { $0 == "#" }.count <= level
        } ?? lines.endIndex
        return Array(lines[start..<end])
    }

    /// Separators of a table row that end a cell: `|` not escaped with a backslash.
    private static func unescapedPipes(_ row: String) -> Int {
        var count = 0
        var escaped = false
        for character in row {
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "|" {
                count += 1
            }
        }
        return count
    }

    // MARK: - Golden files

    /// `Golden/<name>` next to this file. `RECORD=1 swift test` rewrites it on purpose.
    private static func expectGolden(
        _ rendered: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/\(name)")
        if ProcessInfo.processInfo.environment["RECORD"] == "1" {
            try FileManager.default.createDirectory(at: golden.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(rendered.utf8).write(to: golden)
            Issue.record("Recorded \(golden.path). Review it, then run the tests again without RECORD=1.", sourceLocation: sourceLocation)
            return
        }
        guard let expected = FileManager.default.contents(atPath: golden.path) else {
            Issue.record(
                "No golden file at \(golden.path). Run `RECORD=1 swift test --filter CompareReport` to record it.",
                sourceLocation: sourceLocation)
            return
        }
        if Data(rendered.utf8) != expected {
            let want = lines(String(decoding: expected, as: UTF8.self))
            let got = lines(rendered)
            let line = zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(want.count, got.count)
            Issue.record(
                """
                The Markdown differs from \(golden.path) at line \(line + 1):
                  golden:   \(line < want.count ? want[line] : "<end of file>")
                  rendered: \(line < got.count ? got[line] : "<end of file>")
                If the change is intended, re-record with RECORD=1.
                """, sourceLocation: sourceLocation)
        }
    }

    @Test("the comparison matches Golden/compare.md byte for byte")
    func goldenCompare() throws {
        try Self.expectGolden(CompareReport.markdown(F.comparison), "compare.md")
    }

    @Test("a regression's check matches Golden/check.md byte for byte")
    func goldenCheck() throws {
        try Self.expectGolden(CheckReport.markdown(F.regression), "check.md")
    }

    @Test("a check that cannot compare matches Golden/check-error.md byte for byte")
    func goldenCheckError() throws {
        try Self.expectGolden(CheckReport.markdown(F.mismatch), "check-error.md")
    }

    @Test("the terminal's check summary matches Golden/check.terminal.txt byte for byte")
    func goldenTerminal() throws {
        try Self.expectGolden(CheckTerminal.summary(F.regression), "check.terminal.txt")
    }

    @Test("the terminal's summary of a pair that got no answers matches Golden/check-unanswered.terminal.txt")
    func goldenTerminalUnanswered() throws {
        let verdict = CheckVerdict(comparison: Comparison(before: F.baseline, after: CheckTerminalTests.unanswered))
        try Self.expectGolden(CheckTerminal.summary(verdict), "check-unanswered.terminal.txt")
    }

    // MARK: - Check

    @Test("the check's first line is its headline", arguments: ["regression", "pass", "mismatch"])
    func headlineFirst(name: String) {
        let verdict = switch name {
        case "regression": F.regression
        case "pass": F.pass
        default: F.mismatch
        }
        let markdown = CheckReport.markdown(verdict)
        #expect(Self.lines(markdown).first == verdict.headline)
        #expect(markdown.hasSuffix("\n") && !markdown.hasSuffix("\n\n"))
    }

    @Test("a regression says exit status 1 and lists its failed checks before the table of all")
    func regression() throws {
        let verdict = F.regression
        let markdown = CheckReport.markdown(verdict)
        #expect(markdown.contains("exit status 1"))
        let failed = Self.section("Failed checks", in: markdown).filter { $0.hasPrefix("- ") }
        #expect(failed.count == verdict.failures.count)
        #expect(failed.contains { $0.hasPrefix("- **terse @ 50** `quality`: fell") })
        #expect(failed.contains { $0.hasPrefix("- **terse @ 50** `first_person`: rose") })
        let rows = try #require(GFMTable.rows(in: markdown, header: Self.checksHeader))
        #expect(rows.count == verdict.results.count)
        #expect(rows.filter { $0[2] == "❌" }.count == verdict.failures.count)
        #expect(rows.contains { $0[0] == "terse @ 100" && $0[1] == "`quality`" && $0[2] == "✅" })
        let lines = Self.lines(markdown)
        let failedAt = try #require(lines.firstIndex(of: "## Failed checks"))
        let checksAt = try #require(lines.firstIndex(of: "## Checks"))
        let comparisonAt = try #require(lines.firstIndex { $0.hasPrefix("## altbench compare ") })
        #expect(failedAt < checksAt && checksAt < comparisonAt)
        // The comparison sits one level down: no second top-level title.
        #expect(!lines.contains { $0.hasPrefix("# ") })
        #expect(lines.contains("### Flips"))
    }

    @Test("a passing check says so and has no flips")
    func pass() {
        let markdown = CheckReport.markdown(F.pass)
        #expect(Self.lines(markdown)[0].contains("passed"))
        #expect(markdown.contains("exit status 0"))
        #expect(!markdown.contains("## Failed checks"))
        #expect(!markdown.contains("❌"))
        let flips = Self.section("Flips", in: markdown)
        #expect(flips.contains("No flips."))
        #expect(!flips.contains { $0.hasPrefix("|") })
        #expect(GFMTable.rows(in: markdown, header: Self.flipsHeader) == nil)
        GFMTable.expectWellFormed(markdown)
    }

    @Test("a check that cannot compare lists every error and says exit status 2")
    func error() {
        let verdict = F.mismatch
        let markdown = CheckReport.markdown(verdict)
        #expect(markdown.contains("exit status 2"))
        for error in verdict.errors {
            #expect(markdown.contains("- \(MarkdownText.inline(error))"))
        }
        #expect(markdown.contains("> [!WARNING]"))
        #expect(markdown.contains("> - **provider**: A openai, B mock"))
        #expect(markdown.contains("- The endpoint host differs: api.openai.com → mock."))
    }

    // MARK: - Comparison

    @Test("the header names both runs and what they ran on")
    func header() {
        let markdown = CompareReport.markdown(F.comparison)
        let lines = Self.lines(markdown)
        #expect(lines[0] == "# altbench compare 20261120-090000-base → 20261121-100000-head")
        #expect(markdown.contains("| run | 20261120-090000-base | 20261121-100000-head |"))
        #expect(markdown.contains("| dataset | datasets/sample (6 items, sha256 abababababab) | datasets/sample (6 items, sha256 abababababab) |"))
        #expect(markdown.contains("| repeats | 1 | 2 |"))
        #expect(markdown.contains("| endpoint host | api.openai.com | api.openai.com |"))
        #expect(markdown.contains("- Repeats differ: 1 → 2; items are compared by their mean over repeats."))
        #expect(!markdown.contains("[!WARNING]"))
    }

    @Test("the summary shows each figure as A → B with its change and direction")
    func summary() throws {
        let markdown = CompareReport.markdown(F.comparison)
        let header = try #require(Self.lines(markdown).first { $0.hasPrefix("| pair | answered / failed |") })
        let rows = try #require(GFMTable.rows(in: markdown, header: header))
        #expect(rows.count == 2)
        let at50 = rows[0]
        #expect(at50[0] == "terse @ 50")
        #expect(at50[1] == "6 / 0 → 6 / 0")
        #expect(at50[2] == "0.750 → 0.375 (-0.375 ▼)")
        #expect(at50[3] == "16.7% → 58.3% (+41.7 pp ▼)")
        #expect(at50[4] == "0.0% → 58.3% (+58.3 pp ▼)")
        #expect(at50[5] == "0.0% → 0.0% (0.0 pp =)")
        #expect(at50[6] == "16.7% → 0.0% (-16.7 pp ▲)")
        #expect(at50[8] == "18.0 → 22.0 (+4.0)")
        #expect(at50[9].contains("first_person p = 0.125"))
        #expect(rows[1][9] == "no paired change")
    }

    @Test("the significance section gives intervals, tests and paired items")
    func significance() {
        let markdown = CompareReport.markdown(F.comparison)
        let section = Self.section("terse @ 50", in: markdown.components(separatedBy: "## Flips")[0])
        #expect(section.contains("6 paired items."))
        #expect(markdown.contains("repeats are folded into its mean"))
        let firstPerson = section.first { $0.hasPrefix("| first person |") }
        #expect(firstPerson?.contains("exact McNemar: 0 improved, 4 worsened of 6 items") == true)
        #expect(firstPerson?.contains("| 0.125 |") == true)
        #expect(firstPerson?.contains("[0.0%, 39.0%] → ") == true)
        let quality = section.first { $0.hasPrefix("| quality |") }
        #expect(quality?.contains("paired bootstrap: mean difference -0.375, 95% interval [") == true)
    }

    @Test("significant results are bold with their direction, in the summary and the details")
    func significantMarker() throws {
        let ids = (1...8).map { "item\($0)" }
        func snapshot(_ runID: String, speaks: Bool) -> RunSnapshot {
            var items: [String: RunSnapshot.ItemOutcome] = [:]
            for id in ids {
                items[id] = F.outcome(
                    firstPerson: speaks ? 0 : 1, quality: speaks ? 0 : 0.9, answer: speaks ? "I see \(id)." : "A \(id).")
            }
            return F.snapshot(
                runID: runID,
                rows: [F.row(50, items: items, quality: speaks ? 0 : 0.9, firstPerson: speaks ? 1 : 0, truncated: 0, length: 10)])
        }
        let comparison = Comparison(before: snapshot("a", speaks: false), after: snapshot("b", speaks: true))
        let markdown = CompareReport.markdown(comparison)
        let header = try #require(Self.lines(markdown).first { $0.hasPrefix("| pair | answered / failed |") })
        let rows = try #require(GFMTable.rows(in: markdown, header: header))
        #expect(rows[0][9] == "**quality p < 0.001 ▼**, **first_person p = 0.008 ▼**")
        let details = Self.section("terse @ 50", in: markdown).first { $0.hasPrefix("| first person |") }
        #expect(details?.hasSuffix("| **0.008** ▼ |") == true)
        let check = CheckReport.markdown(CheckVerdict(comparison: comparison))
        #expect(check.contains("| terse @ 50 | `significance` | ❌ |"))
    }

    @Test("answers with | and newlines keep every table's columns")
    func escaping() throws {
        for markdown in [CompareReport.markdown(F.comparison), CheckReport.markdown(F.regression)] {
            GFMTable.expectWellFormed(markdown)
            for table in GFMTable.tables(in: markdown) {
                let width = Self.unescapedPipes(table[0])
                for row in table {
                    #expect(Self.unescapedPipes(row) == width, "\(row)")
                }
            }
            #expect(markdown.contains(#"I see a cat \| on a<br>table."#))
            #expect(!markdown.contains("on a\ntable"))
        }
    }

    @Test("flips list the regressions first, then the fixes, with both answers")
    func flips() throws {
        let markdown = CompareReport.markdown(F.comparison)
        let rows = try #require(GFMTable.rows(in: markdown, header: Self.flipsHeader))
        #expect(rows.map { "\($0[0]) \($0[1])" } == ["cat first person", "coffee first person", "rocket first person", "chart truncated"])
        #expect(rows[0][2] == "passed → **failed** ▼")
        #expect(rows[0][3] == "A cat on a table.")
        #expect(rows[0][4] == #"I see a cat \| on a<br>table."#)
        #expect(rows[3][2] == "failed → passed ▲")
        #expect(markdown.contains("No flips in terse @ 100."))
        // One flips table: the 100-token pair did not flip.
        #expect(GFMTable.tables(in: markdown).filter { $0.first == Self.flipsHeader }.count == 1)
    }

    @Test("items whose repeats disagree are listed with the share that passed")
    func instability() throws {
        let markdown = CompareReport.markdown(F.comparison)
        let rows = try #require(GFMTable.rows(in: markdown, header: Self.instabilityHeader))
        #expect(rows == [["terse @ 50", "sign", "first person", "50.0% (1 of 2)"]])
    }

    @Test("with one repeat there is nothing to disagree, and equal runs have no unstable items")
    func noInstability() {
        let once = CompareReport.markdown(Comparison(before: F.run, after: F.baseline))
        #expect(Self.section("Instability (repeats)", in: once).contains { $0.hasPrefix("B asked each question once") })
        var steady = F.run
        for index in steady.rows.indices {
            for id in steady.rows[index].items.keys {
                steady.rows[index].items[id]!.passed = steady.rows[index].items[id]!.passed.mapValues { $0 < 1 ? 0 : 1 }
            }
        }
        let stable = CompareReport.markdown(Comparison(before: F.baseline, after: steady))
        #expect(Self.section("Instability (repeats)", in: stable).contains("No item's repeats disagree."))
    }

    @Test("a pair on one side only says so")
    func oneSided() throws {
        var shorter = F.run
        shorter.rows.removeAll { $0.maxTokens == 100 }
        let missing = Comparison(before: F.baseline, after: shorter)
        let markdown = CompareReport.markdown(missing)
        GFMTable.expectWellFormed(markdown)
        let header = try #require(Self.lines(markdown).first { $0.hasPrefix("| pair | answered / failed |") })
        let rows = try #require(GFMTable.rows(in: markdown, header: header))
        #expect(rows.count == 2)
        #expect(rows[1][0] == "terse @ 100 (*missing from B*)")
        #expect(rows[1][1] == "6 / 0 → –")
        #expect(rows[1][2] == "0.920 → –")
        #expect(rows[1][9] == "missing from B")
        #expect(markdown.contains("Missing from B, so nothing to pair."))
        #expect(!markdown.contains("No flips in terse @ 100"))

        let check = CheckReport.markdown(CheckVerdict(comparison: missing))
        #expect(Self.lines(check)[0].hasPrefix("altbench check: cannot compare — the run has no trials for terse @ 100"))
        #expect(check.contains("exit status 2"))
        GFMTable.expectWellFormed(check)

        var newer = F.baseline
        newer.rows.removeAll { $0.maxTokens == 100 }
        let added = CompareReport.markdown(Comparison(before: newer, after: F.run))
        #expect(added.contains("| terse @ 100 (*new: no baseline*) | – → 6 / 0 |"))
        #expect(added.contains("New: no baseline, so nothing to pair."))
        GFMTable.expectWellFormed(added)
    }

    @Test("rendering is deterministic")
    func deterministic() {
        #expect(CompareReport.markdown(F.comparison) == CompareReport.markdown(F.comparison))
        #expect(CheckReport.markdown(F.regression) == CheckReport.markdown(F.regression))
    }
}
