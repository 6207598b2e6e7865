import AltBenchCore
import AltBenchTesting
import Foundation
import Yams

/// Runs a composite action's steps (`action.yml`) the way a GitHub runner does, for tests:
/// each `run:` step's `if:`, `env:` and `${{ }}` expressions evaluated, its script run by
/// `bash --noprofile --norc -eo pipefail`, `$GITHUB_OUTPUT` read back as the step's outputs and
/// `$GITHUB_PATH` collected. `uses:` steps (other actions, such as actions/cache) are skipped
/// and listed. An expression this runner does not know fails loudly rather than guessing.
struct ActionRunner {
    struct StepResult {
        var name: String
        var status: Int32
        var stdout: String
        var stderr: String
        var outputs: [String: String]
    }

    struct Result {
        var steps: [StepResult]
        /// The `uses:` steps skipped, by what they use.
        var skipped: [String]
        /// Folders the steps added to PATH, in order.
        var path: [String]
        /// Whether every step that ran succeeded.
        var succeeded: Bool { steps.allSatisfy { $0.status == 0 } }
        var stderr: String { steps.map(\.stderr).joined() }
        var stdout: String { steps.map(\.stdout).joined() }
    }

    struct UnsupportedExpression: Error, CustomStringConvertible {
        var expression: String
        var description: String { "the test's action runner cannot evaluate ${{ \(expression) }}: teach it, or simplify action.yml" }
    }

    /// The action file.
    var action: URL = Repository.root.appendingPathComponent("action.yml")
    /// The `with:` a workflow passes.
    var inputs: [String: String] = [:]
    /// `github.*` values: `action_ref`, `action_repository`.
    var github: [String: String] = ["action_ref": "v\(AltBenchVersion.current)", "action_repository": "altbench/altbench"]
    /// `RUNNER_OS` and `RUNNER_ARCH`: this machine's, as GitHub names them.
    var runnerOS = "Linux"
    var runnerArch = ActionRunner.machineArch
    /// The runner's tool cache, shared between runs that should find each other's installs.
    var toolCache: URL
    /// Stop after this many steps (all when nil).
    var stepLimit: Int?

    static var machineArch: String {
        var info = utsname()
        uname(&info)
        let machine = withUnsafeBytes(of: &info.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return machine == "aarch64" || machine == "arm64" ? "ARM64" : "X64"
    }

    /// Runs the steps in `workspace` (a scratch folder of the test's).
    func run(in workspace: URL) async throws -> Result {
        let text = try String(contentsOf: action, encoding: .utf8)
        guard let document = try Yams.load(yaml: text) as? [String: Any],
            let runs = document["runs"] as? [String: Any], let steps = runs["steps"] as? [[String: Any]]
        else { throw UnsupportedExpression(expression: "(action.yml has no runs.steps)") }
        let declared = document["inputs"] as? [String: Any] ?? [:]
        var inputValues: [String: String] = [:]
        for (name, spec) in declared {
            inputValues[name] = inputs[name] ?? ((spec as? [String: Any])?["default"]).map { "\($0)" } ?? ""
        }
        for name in inputs.keys where declared[name] == nil {
            throw UnsupportedExpression(expression: "inputs.\(name) (action.yml declares no such input)")
        }

        let temp = workspace.appendingPathComponent("runner-temp")
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true)
        let pathFile = workspace.appendingPathComponent("github-path")
        _ = FileManager.default.createFile(atPath: pathFile.path, contents: nil)
        var stepOutputs: [String: [String: String]] = [:]
        var result = Result(steps: [], skipped: [], path: [])

        func evaluate(_ expression: String) throws -> String {
            let trimmed = expression.trimmingCharacters(in: .whitespaces)
            let parts = trimmed.split(separator: ".").map(String.init)
            switch parts.first {
            case "inputs" where parts.count == 2: return inputValues[parts[1]] ?? ""
            case "github" where parts.count == 2 && parts[1] == "action_path": return action.deletingLastPathComponent().path
            case "github" where parts.count == 2 && github[parts[1]] != nil: return github[parts[1]]!
            case "runner" where parts == ["runner", "os"]: return runnerOS
            case "runner" where parts == ["runner", "arch"]: return runnerArch
            case "steps" where parts.count == 4 && parts[2] == "outputs": return stepOutputs[parts[1]]?[parts[3]] ?? ""
            default: throw UnsupportedExpression(expression: trimmed)
            }
        }
        func substitute(_ text: String) throws -> String {
            var out = ""
            var rest = Substring(text)
            while let open = rest.range(of: "${{") {
                out += rest[..<open.lowerBound]
                guard let close = rest[open.upperBound...].range(of: "}}") else { throw UnsupportedExpression(expression: String(rest)) }
                out += try evaluate(String(rest[open.upperBound..<close.lowerBound]))
                rest = rest[close.upperBound...]
            }
            return out + rest
        }
        func condition(_ text: String) throws -> Bool {
            var expression = text.trimmingCharacters(in: .whitespaces)
            if expression.hasPrefix("${{") && expression.hasSuffix("}}") {
                expression = String(expression.dropFirst(3).dropLast(2)).trimmingCharacters(in: .whitespaces)
            }
            for (operator_, equal) in [("!=", false), ("==", true)] {
                let sides = expression.components(separatedBy: " \(operator_) ")
                if sides.count == 2, sides[1].hasPrefix("'"), sides[1].hasSuffix("'"), sides[1].count >= 2 {
                    let literal = String(sides[1].dropFirst().dropLast())
                    return (try evaluate(sides[0]) == literal) == equal
                }
            }
            throw UnsupportedExpression(expression: expression)
        }

        for (index, step) in steps.enumerated() {
            if let limit = stepLimit, index >= limit { break }
            if let uses = step["uses"] as? String {
                result.skipped.append(uses)
                continue
            }
            if let test = step["if"] as? String, try !condition(test) { continue }
            guard let script = step["run"] as? String else { continue }
            let id = step["id"] as? String ?? "step\(index)"
            let outputFile = workspace.appendingPathComponent("output-\(id)")
            _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
            var environment: [String: String] = [
                "PATH": (result.path.reversed() + ["/usr/local/bin", "/usr/bin", "/bin"]).joined(separator: ":"),
                "HOME": workspace.path, "RUNNER_OS": runnerOS, "RUNNER_ARCH": runnerArch, "RUNNER_TEMP": temp.path,
                "RUNNER_TOOL_CACHE": toolCache.path, "GITHUB_OUTPUT": outputFile.path, "GITHUB_PATH": pathFile.path,
                "GITHUB_ACTION_PATH": action.deletingLastPathComponent().path, "GITHUB_ACTIONS": "true",
            ]
            for (name, value) in step["env"] as? [String: Any] ?? [:] {
                environment[name] = try substitute("\(value)")
            }
            let scriptFile = workspace.appendingPathComponent("step-\(id).sh")
            try substitute(script).write(to: scriptFile, atomically: true, encoding: .utf8)
            let out = workspace.appendingPathComponent("step-\(id).out")
            let err = workspace.appendingPathComponent("step-\(id).err")
            let status = try await ChildProcess.run(
                "/bin/bash", ["--noprofile", "--norc", "-eo", "pipefail", scriptFile.path], environment: environment,
                directory: workspace, stdout: out, stderr: err
            ).status
            var outputs: [String: String] = [:]
            for line in try String(contentsOf: outputFile, encoding: .utf8).split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                outputs[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            stepOutputs[id] = outputs
            result.path = try String(contentsOf: pathFile, encoding: .utf8).split(separator: "\n").map(String.init)
            result.steps.append(
                StepResult(
                    name: step["name"] as? String ?? id, status: status, stdout: try String(contentsOf: out, encoding: .utf8),
                    stderr: try String(contentsOf: err, encoding: .utf8), outputs: outputs))
            if status != 0 { break }
        }
        return result
    }
}
