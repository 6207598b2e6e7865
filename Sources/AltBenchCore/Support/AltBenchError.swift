import Foundation

/// Problems with what a user gave altbench: files, flags, configuration.
///
/// Every message names the file, line or item concerned and says how to fix it. These stop a
/// run before any request is sent.
public enum AltBenchError: Error, Sendable, Equatable, CustomStringConvertible {
    case promptsFolderMissing(path: String)
    case noPrompts(path: String)
    case emptyPrompt(file: String)
    case promptFrontMatter(file: String, line: Int?, message: String)
    /// A template problem in a prompt's text or `system` message; `line` is the file's line
    /// (for the `system` message, the line of its key).
    case promptTemplate(file: String, line: Int, problem: TemplateProblem)
    case duplicatePromptName(name: String, files: [String])
    case datasetMissing(path: String)
    case datasetEmpty(path: String)
    case manifestLine(file: String, line: Int, message: String)
    case configFile(file: String, line: Int?, message: String)
    case invalidSetting(name: String, message: String)
    /// `--max-cost` below what the plan may spend, or a model the limit cannot price.
    case overBudget(message: String)
    /// The judge's calls cannot fit `--max-cost` (or its model has no price): nothing is sent
    /// to the judge.
    case judgeOverBudget(message: String)
    case missingAPIKey(variable: String, reason: String)
    /// An Azure OpenAI run without the resource's key.
    case missingAzureKey(variable: String, endpoint: String)
    /// A run through a signed proxy without the app key that mints its session tokens.
    case missingProxyAppKey(variable: String, proxy: String)
    case runNotFound(id: String, database: String)
    case noRuns(database: String)
    /// A run id prefix that more than one run starts with.
    case ambiguousRun(id: String, matches: [String])
    /// `--resume RUN` cannot continue the run as it was planned.
    case cannotResume(run: String, reason: String)
    /// A file of answers for `altbench score` that cannot be read; `line` is 1-based.
    case answerFile(file: String, line: Int?, message: String)
    /// A baseline file (`altbench baseline save`) that cannot be used.
    case badBaseline(file: String, reason: String)

    public var description: String {
        switch self {
        case .promptsFolderMissing(let path):
            return "The prompts folder '\(path)' does not exist. Pass --prompts DIR or create \(path)/NAME.md."
        case .noPrompts(let path):
            return "No prompt files in '\(path)'. Add a file such as \(path)/NAME.md holding the prompt text, or pass --prompts DIR."
        case .emptyPrompt(let file):
            return "\(file) has no prompt text. Write the prompt after the front matter (or delete the file)."
        case .promptFrontMatter(let file, let line, let message):
            return "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
        case .promptTemplate(let file, let line, let problem):
            return "\(file):\(line): \(problem)"
        case .duplicatePromptName(let name, let files):
            return "Two prompt files are both named '\(name)': \(files.joined(separator: ", ")). Give one of them another `name:` in its front matter."
        case .datasetMissing(let path):
            return "The dataset '\(path)' does not exist. Pass --dataset DIR (or set dataset: in altbench.yml) with a folder holding manifest.jsonl or images; datasets/README.md from altbench init says how to make one, and altbench init --sample in an empty folder gives the bundled sample."
        case .datasetEmpty(let path):
            return "The dataset '\(path)' holds no items: add images (PNG, JPEG, WEBP, GIF) or a manifest.jsonl with one item per line."
        case .manifestLine(let file, let line, let message):
            return "\(file):\(line): \(message)"
        case .configFile(let file, let line, let message):
            return "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
        case .invalidSetting(let name, let message):
            return "\(name): \(message)"
        case .overBudget(let message):
            return "the run will not start: \(message)"
        case .judgeOverBudget(let message):
            return "the judge will not start: \(message)"
        case .missingAPIKey(let variable, let reason):
            return "\(variable) is not set, and \(reason). Export \(variable)=... (or set OPENAI_BASE_URL / --base-url for a local server), or pass --provider mock to use the offline mock on purpose."
        case .missingAzureKey(let variable, let endpoint):
            return "\(variable) is not set, and the Azure OpenAI endpoint \(endpoint) needs it in the api-key header. Export \(variable)=... (a key from the resource's Keys and Endpoint page in the Azure portal), or name another variable with `api_key_env` under `azure:` in altbench.yml, or pass --provider mock to use the offline mock on purpose."
        case .missingProxyAppKey(let variable, let proxy):
            return "\(variable) is not set, and the signed proxy \(proxy) needs it: altbench signs its token requests with the team's app key. Export \(variable)=... (ask whoever runs the proxy), or name another variable with `app_key_env` under `proxy:` in altbench.yml. No OpenAI key is needed."
        case .runNotFound(let id, let database):
            return "No run '\(id)' in \(database). `altbench runs` lists the runs it holds (add --results DIR for another results folder); without a run id, commands use the latest."
        case .ambiguousRun(let id, let matches):
            return "'\(id)' starts \(matches.count) runs' ids: \(matches.prefix(5).joined(separator: ", "))\(matches.count > 5 ? ", ..." : ""). Give more of the id."
        case .noRuns(let database):
            return "\(database) holds no runs yet. Run `altbench run` first."
        case .cannotResume(let run, let reason):
            return "Cannot resume run \(run): \(reason)"
        case .answerFile(let file, let line, let message):
            return "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
        case .badBaseline(let file, let reason):
            return "The baseline \(file) \(reason)"
        }
    }
}

/// An error whose description is written for the user: it names the file, item or setting and
/// says how to fix it. The command line prints it as it is and exits; every other error is a
/// bug or an exit status and passes on.
public protocol UserFacingError: Error, CustomStringConvertible {}

extension AltBenchError: UserFacingError {}
extension JudgeRubricError: UserFacingError {}
