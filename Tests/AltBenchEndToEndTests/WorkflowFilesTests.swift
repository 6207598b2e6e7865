import AltBenchCore
import AltBenchTesting
import Foundation
import Testing
import Yams

/// Every GitHub Actions file altbench ships — `action.yml`, `.github/workflows/*.yml`,
/// `examples/ci/*.yml` and the workflow `altbench init --ci` writes — parses, has the shape
/// GitHub loads, and balances every expression: what a copied workflow most often breaks on.
/// When `actionlint` is on PATH, it checks the workflows as well.
@Suite("GitHub Actions files")
struct WorkflowFilesTests {
    /// The shipped files, found by folder so that a new workflow is checked without listing it.
    static func shippedFiles() throws -> [URL] {
        let root = Repository.root
        var files = [root.appendingPathComponent("action.yml")]
        for folder in [".github/workflows", "examples/ci"] {
            let url = root.appendingPathComponent(folder)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
            where name.hasSuffix(".yml") || name.hasSuffix(".yaml") {
                files.append(url.appendingPathComponent(name))
            }
        }
        return files
    }

    /// Problems with the `${{ }}` expressions of `text`: an unclosed `${{`, a `}}` with no
    /// opening, unbalanced quotes or parentheses inside an expression or an `if:`.
    static func expressionProblems(_ text: String, name: String) -> [String] {
        var problems: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let location = "\(name):\(index + 1)"
            let code = line.trimmingCharacters(in: .whitespaces).hasPrefix("#") ? "" : String(line)
            var rest = Substring(code)
            while let open = rest.range(of: "${{") {
                if let stray = rest[..<open.lowerBound].range(of: "}}") {
                    problems.append("\(location): `}}` without `${{` before it (at column \(code.distance(from: code.startIndex, to: stray.lowerBound) + 1))")
                }
                guard let close = rest[open.upperBound...].range(of: "}}") else {
                    problems.append("\(location): `${{` is never closed with `}}`")
                    rest = ""
                    break
                }
                let expression = rest[open.upperBound..<close.lowerBound]
                if expression.contains("${{") { problems.append("\(location): `${{` inside another expression") }
                problems += balance(String(expression), at: location)
                rest = rest[close.upperBound...]
            }
            if rest.contains("}}") { problems.append("\(location): `}}` without `${{` before it") }
            // `if:` takes an expression without `${{ }}`.
            let trimmed = code.trimmingCharacters(in: .whitespaces)
            for prefix in ["if:", "- if:"] where trimmed.hasPrefix(prefix) {
                let condition = trimmed.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
                if !condition.hasPrefix("${{") { problems += balance(condition, at: location) }
            }
        }
        return problems
    }

    /// Quotes (`''` is an escaped quote) and parentheses of one expression.
    static func balance(_ expression: String, at location: String) -> [String] {
        var problems: [String] = []
        if expression.filter({ $0 == "'" }).count % 2 != 0 {
            problems.append("\(location): unbalanced `'` in `\(expression.trimmingCharacters(in: .whitespaces))`")
        }
        var depth = 0
        var quoted = false
        for character in expression {
            if character == "'" { quoted.toggle() }
            if quoted { continue }
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if depth < 0 { break }
        }
        if depth != 0 { problems.append("\(location): unbalanced parentheses in `\(expression.trimmingCharacters(in: .whitespaces))`") }
        return problems
    }

    /// Every problem of a workflow file's text: YAML, shape (`on`, jobs with `runs-on` and
    /// steps, each step `run` or `uses`), expressions, and untrusted values pasted into scripts.
    static func problems(inWorkflow text: String, name: String) -> [String] {
        var problems = expressionProblems(text, name: name)
        let document: [String: Any]
        do {
            guard let parsed = try Yams.load(yaml: text) as? [String: Any] else { return problems + ["\(name): not a YAML mapping"] }
            document = parsed
        } catch {
            return problems + ["\(name): not valid YAML: \(error)"]
        }
        if document["name"] == nil { problems.append("\(name): no `name`") }
        if document["on"] == nil && document["true"] == nil { problems.append("\(name): no `on` (the events that start it)") }
        guard let jobs = document["jobs"] as? [String: Any], !jobs.isEmpty else { return problems + ["\(name): no `jobs`"] }
        for (job, value) in jobs.sorted(by: { $0.key < $1.key }) {
            guard let spec = value as? [String: Any] else {
                problems.append("\(name): job `\(job)` is not a mapping")
                continue
            }
            if spec["uses"] != nil { continue }  // a reusable workflow
            if spec["runs-on"] == nil { problems.append("\(name): job `\(job)` has no `runs-on`") }
            problems += stepProblems(spec["steps"], owner: "job `\(job)`", name: name, needsShell: false)
        }
        return problems
    }

    /// Every problem of a composite action's text.
    static func problems(inAction text: String, name: String) -> [String] {
        var problems = expressionProblems(text, name: name)
        guard let document = (try? Yams.load(yaml: text)) as? [String: Any] else { return problems + ["\(name): not valid YAML"] }
        for key in ["name", "description"] where document[key] == nil { problems.append("\(name): no `\(key)`") }
        guard let runs = document["runs"] as? [String: Any], runs["using"] as? String == "composite" else {
            return problems + ["\(name): `runs.using` is not `composite`"]
        }
        return problems + stepProblems(runs["steps"], owner: "runs", name: name, needsShell: true)
    }

    static func stepProblems(_ value: Any?, owner: String, name: String, needsShell: Bool) -> [String] {
        guard let steps = value as? [[String: Any]], !steps.isEmpty else { return ["\(name): \(owner) has no `steps`"] }
        var problems: [String] = []
        for (index, step) in steps.enumerated() {
            let label = "\(name): \(owner), step \(index + 1)\((step["name"] as? String).map { " (\($0))" } ?? "")"
            switch (step["run"], step["uses"]) {
            case (let run?, nil):
                if needsShell && step["shell"] == nil { problems.append("\(label): a composite action's `run` step needs `shell`") }
                // Values a pull request or a caller controls go through `env:`, never into the script.
                let script = "\(run)"
                for untrusted in ["inputs.", "github.event.", "github.head_ref"] where script.contains("${{") {
                    let expressions = script.components(separatedBy: "${{").dropFirst().map { $0.components(separatedBy: "}}")[0] }
                    if expressions.contains(where: { $0.contains(untrusted) }) {
                        problems.append("\(label): `${{ \(untrusted)… }}` pasted into the script; pass it through `env:`")
                    }
                }
            case (nil, _?): break
            case (_?, _?): problems.append("\(label): has both `run` and `uses`")
            case (nil, nil): problems.append("\(label): has neither `run` nor `uses`")
            }
        }
        return problems
    }

    @Test("every shipped workflow and the action load, in shape, expressions balanced")
    func shippedFilesAreValid() throws {
        let files = try Self.shippedFiles()
        #expect(files.map(\.lastPathComponent).contains("release.yml"), "the release workflow is checked")
        #expect(files.count >= 3)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let name = String(file.path.dropFirst(Repository.root.path.count + 1))
            let problems = name == "action.yml" ? Self.problems(inAction: text, name: name) : Self.problems(inWorkflow: text, name: name)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// The executable `name` in a folder of `$PATH`, if any.
    static func onPath(_ name: String) -> URL? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        return folders.map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// actionlint checks workflows only (an action's metadata is not a workflow), so action.yml
    /// is left to the checks above.
    @Test("actionlint finds nothing in the shipped workflows", .enabled(if: onPath("actionlint") != nil, "actionlint is not on PATH"))
    func actionlint() async throws {
        let actionlint = try #require(Self.onPath("actionlint"))
        let workflows = try Self.shippedFiles().filter { $0.lastPathComponent != "action.yml" }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-actionlint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = try await AltbenchProcess.run(
            ["-no-color", "-oneline"] + workflows.map(\.path), in: scratch, environment: ProcessInfo.processInfo.environment,
            executable: actionlint)
        #expect(result.status == 0, "actionlint exited \(result.status):\n\(result.stdout)\(result.stderr)")
    }

    @Test("the workflow altbench init --ci writes is valid")
    func initWorkflowIsValid() {
        #expect(Self.problems(inWorkflow: StarterFiles.workflow, name: "init --ci").isEmpty)
    }

    @Test("the checker finds what breaks a copied workflow")
    func checkerCatchesMistakes() {
        let good = """
            name: x
            on: push
            jobs:
              a:
                runs-on: ubuntu-latest
                steps:
                  - run: echo "${{ github.sha }}"
                  - if: github.event_name == 'push' && (env.A != '' || env.B != '')
                    uses: actions/cache/save@v4

            """
        #expect(Self.problems(inWorkflow: good, name: "good.yml").isEmpty, "\(Self.problems(inWorkflow: good, name: "good.yml"))")
        // The stray quote that once kept GitHub from loading the example.
        let strayQuote = good.replacingOccurrences(of: "env.B != '')", with: "env.B != '')'")
        #expect(Self.problems(inWorkflow: strayQuote, name: "w.yml").contains { $0.hasPrefix("w.yml:8: unbalanced `'`") })
        let unclosed = good.replacingOccurrences(of: "${{ github.sha }}", with: "${{ github.sha }")
        #expect(Self.problems(inWorkflow: unclosed, name: "w.yml") == ["w.yml:7: `${{` is never closed with `}}`"])
        let paren = good.replacingOccurrences(of: "(env.A", with: "((env.A")
        #expect(Self.problems(inWorkflow: paren, name: "w.yml").contains { $0.contains("unbalanced parentheses") })
        let noRunsOn = good.replacingOccurrences(of: "    runs-on: ubuntu-latest\n", with: "")
        #expect(Self.problems(inWorkflow: noRunsOn, name: "w.yml") == ["w.yml: job `a` has no `runs-on`"])
        let injected = good.replacingOccurrences(of: "${{ github.sha }}", with: "${{ github.event.pull_request.title }}")
        #expect(Self.problems(inWorkflow: injected, name: "w.yml").contains { $0.contains("pass it through `env:`") })
        #expect(Self.problems(inWorkflow: "name: [", name: "w.yml").contains { $0.hasPrefix("w.yml: not valid YAML") })
        let bothKinds = good.replacingOccurrences(of: "      - run: echo", with: "      - uses: a/b@v1\n        run: echo")
        #expect(Self.problems(inWorkflow: bothKinds, name: "w.yml").contains { $0.contains("has both `run` and `uses`") })
    }
}
