import AltBenchOpenAI
import AltBenchStore
import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchApp
@testable import AltBenchCore

/// Captures what a command prints.
private final class Capture: @unchecked Sendable {
    private let lock = NSLock()
    private var outText = ""
    private var errText = ""

    func console(interactive: Bool) -> Console {
        Console(
            out: { text in self.lock.withLock { self.outText += text } },
            err: { text in self.lock.withLock { self.errText += text } },
            interactive: interactive)
    }

    var out: String { lock.withLock { outText } }
    var err: String { lock.withLock { errText } }
}

@Suite("Evaluation pipeline")
struct EvaluationTests {
    static var repository: URL { Repository.root }

    /// A working folder with the repository's prompts and sample dataset.
    static func workspace() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-app-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("datasets"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: repository.appendingPathComponent("prompts"), to: root.appendingPathComponent("prompts"))
        try FileManager.default.copyItem(
            at: repository.appendingPathComponent("datasets/sample"), to: root.appendingPathComponent("datasets/sample"))
        return root
    }

    @Test func drawsProgressOnATerminalOnly() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let terminal = Capture()
        let outcome = try await Evaluation(
            options: RunOptions(), environment: [:], console: terminal.console(interactive: true), workingDirectory: root
        ).run()
        #expect(outcome.exitCode == 0)
        let total = outcome.results.trials.count
        #expect(total > 0)
        #expect(terminal.err.contains("\r\u{1B}[K[\(total)/\(total)] 0 errors, 0 from cache"))
        #expect(terminal.err.contains("OFFLINE MOCK"))

        let pipe = Capture()
        let second = try await Evaluation(
            options: RunOptions(), environment: [:], console: pipe.console(interactive: false), workingDirectory: root
        ).run()
        #expect(second.exitCode == 0)
        #expect(!pipe.err.contains("\r"))
        #expect(!pipe.err.contains("[\(total)/\(total)]"))
        #expect(second.results.trials.allSatisfy { $0.cached })
    }

    @Test func writingReportsThatTakeAWhileSaysSo() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let quiet = Capture()
        let outcome = try await Evaluation(
            options: RunOptions(), environment: [:], console: quiet.console(interactive: false), workingDirectory: root
        ).run()
        let store = try ResultStore(url: root.appendingPathComponent("results/altbench.sqlite"))
        // Past the notice's delay (none here), the message; the reports are written all the same.
        let capture = Capture()
        var reporting = Reporting(store: store, resultsDirectory: root.appendingPathComponent("results"), console: capture.console(interactive: false))
        reporting.noticeAfter = .zero
        _ = try await reporting.write(runID: outcome.runID, displayResults: "results", updateLatest: false)
        #expect(capture.err.contains("altbench: writing reports…"), "\(capture.err)")
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("results/runs/\(outcome.runID).html").path))
        // Within the delay, nothing.
        let patient = Capture()
        reporting.console = patient.console(interactive: false)
        reporting.noticeAfter = .seconds(3600)
        _ = try await reporting.write(runID: outcome.runID, displayResults: "results", updateLatest: false)
        #expect(!patient.err.contains("writing reports"), "\(patient.err)")
    }

    @Test func theDefaultEndpointIsNamedAsSuchInConnectionAdvice() async throws {
        var options = RunOptions()
        options.provider = .openai
        let unset = try Experiment.resolve(options: options, config: ConfigFile(), environment: ["OPENAI_API_KEY": "sk-test-0000"])
        let (model, client) = try ModelClient.make(unset, console: Capture().console(interactive: false)) { MockVisionModel(dataset: Dataset(name: "d", path: "d", root: URL(fileURLWithPath: "/tmp"), items: [])) }
        try await client?.shutdown()
        let source = (model as? OpenAIVisionModel)?.urlSource
        #expect(source?.hasPrefix("the default endpoint https://api.openai.com/v1") == true, "\(String(describing: source))")

        options.baseURL = "http://127.0.0.1:9/v1"
        let given = try Experiment.resolve(options: options, config: ConfigFile(), environment: [:])
        let (named, other) = try ModelClient.make(given, console: Capture().console(interactive: false)) { MockVisionModel(dataset: Dataset(name: "d", path: "d", root: URL(fileURLWithPath: "/tmp"), items: [])) }
        try await other?.shutdown()
        #expect((named as? OpenAIVisionModel)?.urlSource == nil)
    }

    @Test func configFileSetsDefaultsAndFlagsWin() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        try "max_tokens: [7]\nresults: out\n".write(to: root.appendingPathComponent("altbench.yml"), atomically: true, encoding: .utf8)
        let capture = Capture()
        let fromConfig = try await Evaluation(
            options: RunOptions(), environment: [:], console: capture.console(interactive: false), workingDirectory: root
        ).run()
        #expect(Set(fromConfig.results.trials.map(\.maxTokens)) == [7])
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("out/latest.md").path))

        var options = RunOptions()
        options.maxTokens = [9, 11]
        let fromFlags = try await Evaluation(
            options: options, environment: [:], console: capture.console(interactive: false), workingDirectory: root
        ).run()
        #expect(Set(fromFlags.results.trials.map(\.maxTokens)) == [9, 11])
    }

    @Test func aServersStopMessageReachesTheTerminalWithoutItsControlCharacters() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await OpenAITestServer.start(
            handler: ResponseScript([], then: { _ in
                .error(status: 401, message: "Bad key\u{1B}[2J\u{1B}[31m\nfake: all good\u{202E}", type: "invalid_request_error", code: "invalid_api_key")
            }).handler)
        var options = RunOptions()
        options.baseURL = server.baseURL
        options.provider = .openai
        let capture = Capture()
        let outcome = try await Evaluation(
            options: options, environment: ["OPENAI_API_KEY": "sk" + "-test-0123456789"], console: capture.console(interactive: false),
            workingDirectory: root
        ).run()
        await server.stop()
        #expect(outcome.exitCode == 1)
        let line = try #require(capture.err.split(separator: "\n").first { $0.hasPrefix("error: the run stopped") })
        #expect(line.contains("Bad key\\x1B[2J\\x1B[31m fake: all good\\u{202E}"), "\(line)")
        #expect(!capture.err.contains("\u{1B}"))
    }

    @Test func aMissingConfigFileGivenByFlagIsAnError() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let evaluation = Evaluation(
            options: RunOptions(), configPath: "nope.yml", environment: [:],
            console: Capture().console(interactive: false), workingDirectory: root)
        await #expect(throws: AltBenchError.self) { try await evaluation.run() }
    }

    // MARK: The line that starts a run

    static func shape(maxTokens: [Int]?, variants: [PromptVariant], images: Int, repeats: Int = 1) throws -> String {
        var options = RunOptions()
        options.maxTokens = maxTokens
        options.provider = .mock
        let experiment = try Experiment.resolve(options: options, config: ConfigFile(), environment: [:])
        return Evaluation.planShape(
            prompts: variants, planner: Planner(experiment: experiment, endpoint: "mock"), images: images, repeats: repeats)
    }

    static func variants(_ count: Int, maxTokens: [Int]? = nil) -> [PromptVariant] {
        (0..<count).map { PromptVariant(name: "p\($0)", file: "p\($0).md", text: "Describe.", maxTokens: maxTokens) }
    }

    @Test func theStartLineCountsPromptsTokenLimitsImagesAndRepeats() throws {
        #expect(try Self.shape(maxTokens: [30, 50, 80, 150], variants: Self.variants(8), images: 27) == "8 prompts × 4 token limits × 27 images")
        #expect(try Self.shape(maxTokens: [50], variants: Self.variants(2), images: 4, repeats: 3) == "2 prompts × 1 token limit × 4 images × 3 repeats")
        #expect(try Self.shape(maxTokens: nil, variants: Self.variants(1, maxTokens: [40, 60]), images: 1) == "1 prompt × 2 token limits × 1 image")
        // Without a limit anywhere, the product has no limit factor and says so.
        #expect(try Self.shape(maxTokens: nil, variants: Self.variants(2), images: 4) == "2 prompts × 4 images, no token limit")
        // Prompts that bring different numbers of their own limits: the (prompt, limit) pairs.
        let mixed = Self.variants(1, maxTokens: [30, 50]) + [PromptVariant(name: "q", file: "q.md", text: "Describe.")]
        #expect(try Self.shape(maxTokens: nil, variants: mixed, images: 4) == "3 (prompt, token limit) pairs from 2 prompts × 4 images")
    }

    @Test func aRunStartsWithTheLineThatAddsUp() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let capture = Capture()
        var options = RunOptions()
        options.maxTokens = [30, 50]
        options.repeats = 2
        let outcome = try await Evaluation(
            options: options, environment: [:], console: capture.console(interactive: false), workingDirectory: root
        ).run()
        let prompts = Set(outcome.results.trials.map(\.variant)).count
        let images = Set(outcome.results.trials.map(\.itemID)).count
        #expect(prompts * 2 * images * 2 == outcome.results.trials.count)
        #expect(
            capture.err.contains(
                "altbench: \(outcome.results.trials.count) trials (\(prompts) prompts × 2 token limits × \(images) images × 2 repeats), run \(outcome.runID)"),
            "\(capture.err)")
    }

    // MARK: What to do after a stop

    @Test(arguments: ["closed port", "no /v1"])
    func aConfigurationStopSaysWhatToFixAndToStartANewRun(_ problem: String) async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await OpenAITestServer.start()
        let closed = try ClosedPort()
        defer { withExtendedLifetime(closed) {} }
        let base = problem == "closed port" ? closed.baseURL : server.baseURL.replacingOccurrences(of: "/v1", with: "")
        let capture = Capture()
        var options = RunOptions()
        options.baseURL = base
        options.maxTokens = [50]
        let outcome = try await Evaluation(
            options: options, environment: [:], console: capture.console(interactive: false), workingDirectory: root
        ).run()
        await server.stop()
        #expect(outcome.exitCode == 1)
        guard case .failure = outcome.stopReason else {
            Issue.record("expected a configuration stop: \(capture.err)")
            return
        }
        let port = URL(string: base)!.port!
        let cause =
            problem == "closed port"
            ? "could not connect to 127.0.0.1:\(port) (connection refused): is the server running, and is --base-url right?"
            : "check --base-url (it usually ends in /v1)"
        #expect(capture.err.contains(cause), "\(capture.err)")
        #expect(capture.err.contains("Fix that, then start a new run"), "\(capture.err)")
        #expect(!capture.err.contains("Continue this run with"), "\(capture.err)")
        #expect(!capture.err.contains("--resume \(outcome.runID)"), "\(capture.err)")
        // The store keeps what stopped the run, and the report gives the same advice.
        #expect(outcome.results.info.stoppedBy == "configuration")
        let report = try String(contentsOf: root.appendingPathComponent(outcome.reportPath), encoding: .utf8)
        #expect(report.contains("fix the cause and start a new run"))
        #expect(!report.contains("altbench run --resume"))
    }

    @Test func anOfflineReplayUnderAnotherEndpointNamesTheOnesTheStoreHolds() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await OpenAITestServer.start()
        var recording = RunOptions()
        recording.baseURL = server.baseURL
        recording.maxTokens = [50]
        let recorded = try await Evaluation(
            options: recording, environment: [:], console: Capture().console(interactive: false), workingDirectory: root
        ).run()
        await server.stop()
        #expect(recorded.exitCode == 0)

        // The replay forgets --base-url, so it looks under api.openai.com.
        var replay = RunOptions()
        replay.offline = true
        replay.maxTokens = [50]
        let capture = Capture()
        let outcome = try await Evaluation(
            options: replay, environment: [:], console: capture.console(interactive: false), workingDirectory: root
        ).run()
        #expect(outcome.exitCode == 3)
        #expect(capture.err.contains("had no stored answer from https://api.openai.com/v1/chat/completions"), "\(capture.err)")
        #expect(
            capture.err.contains(
                "The store holds answers from \(server.baseURL)/chat/completions (\(recorded.results.trials.count) answers). The endpoint is part of each answer's cache key: to replay those, add --base-url \(server.baseURL)."),
            "\(capture.err)")

        // With the endpoint it recorded, the replay answers everything.
        replay.baseURL = server.baseURL
        let again = try await Evaluation(
            options: replay, environment: [:], console: Capture().console(interactive: false), workingDirectory: root
        ).run()
        #expect(again.exitCode == 0)
    }

    @Test func anOfflineReplayOfAnEditedPromptSaysTheTextChanged() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try await OpenAITestServer.start()
        var options = RunOptions()
        options.baseURL = server.baseURL
        options.maxTokens = [50]
        let recorded = try await Evaluation(
            options: options, environment: [:], console: Capture().console(interactive: false), workingDirectory: root
        ).run()
        await server.stop()
        #expect(recorded.exitCode == 0)

        let file = root.appendingPathComponent("prompts/icecubes.md")
        let text = try String(contentsOf: file, encoding: .utf8)
        try text.replacingOccurrences(of: "Be brief", with: "Be very brief").write(to: file, atomically: true, encoding: .utf8)
        options.offline = true
        let capture = Capture()
        let outcome = try await Evaluation(
            options: options, environment: [:], console: capture.console(interactive: false), workingDirectory: root
        ).run()
        #expect(outcome.exitCode == 3)
        #expect(
            capture.err.contains(
                "icecubes: its prompt text differs from the one run \(recorded.runID) stored answers for, and the prompt is part of each answer's cache key."),
            "\(capture.err)")
        // Only the edited prompt lacks answers, and only it is named.
        #expect(outcome.results.trials.filter(\.failed).allSatisfy { $0.variant == "icecubes" })
        #expect(!capture.err.contains("icecubes-original: its prompt"))
    }

    @Test func anOfflineMissNamesTheProxyThatRecordedTheAnswers() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let capture = Capture()
        let evaluation = Evaluation(
            options: RunOptions(), environment: [:], console: capture.console(interactive: false), workingDirectory: root)
        let trial = RunResults.TrialRow(variant: "icecubes", maxTokens: 50, itemID: "chelsea", repeatIndex: 0, answer: nil, errorKind: "not_stored")
        evaluation.reportNotStored(
            [trial], endpoint: "https://api.openai.com/v1/chat/completions",
            otherEndpoints: [(endpoint: "http://127.0.0.1:8787/v1/chat/completions", answers: 12)], otherProxy: "http://127.0.0.1:8787")
        #expect(capture.err.contains("to replay those, add --proxy http://127.0.0.1:8787."), "\(capture.err)")
        #expect(!capture.err.contains("--base-url"))
    }

    @Test func anInterruptedRunKeepsTheResumeHint() async throws {
        let root = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: root) }
        let capture = Capture()
        let control = RunControl()
        control.stop(.interrupted(signal: "SIGINT"))
        let outcome = try await Evaluation(
            options: RunOptions(), environment: [:], console: capture.console(interactive: false), workingDirectory: root,
            control: control
        ).run()
        #expect(outcome.exitCode == 130)
        #expect(capture.err.contains("Continue this run with: altbench run --resume \(outcome.runID)"), "\(capture.err)")
        #expect(!capture.err.contains("start a new run"))
        #expect(outcome.results.info.stoppedBy == "interrupt")
        let report = try String(contentsOf: root.appendingPathComponent(outcome.reportPath), encoding: .utf8)
        #expect(report.contains("`altbench run --resume \(outcome.runID)` asks the rest."))
    }

    // MARK: Flags on --resume

    /// What a run started with these flags records.
    static func recordedRun(_ edit: (inout RunOptions) -> Void = { _ in }) throws -> RunResults.Info {
        var options = RunOptions()
        options.prompts = "prompts"
        options.dataset = "datasets/sample"
        options.baseURL = "http://127.0.0.1:8080/v1"
        options.model = "gpt-4o-mini"
        options.maxTokens = [30, 50, 80, 150]
        options.repeats = 2
        options.tokenField = .maxTokens
        options.brevityBudget = 120
        options.detail = .low
        edit(&options)
        let experiment = try Experiment.resolve(options: options, config: ConfigFile(), environment: [:])
        return RunResults.Info(
            id: "20250101-000000-abcd", startedAt: Date(), status: "stopped", provider: experiment.provider,
            providerReason: experiment.providerReason, endpoint: experiment.endpointIdentity,
            datasetPath: experiment.datasetPath, promptsPath: experiment.promptsPath, settings: experiment.recordedSettings)
    }

    @Test func everyFixedFlagThatEqualsTheRunsOwnSettingIsAccepted() throws {
        let run = try Self.recordedRun()
        var same = RunOptions()
        same.prompts = "./prompts/"
        same.dataset = "datasets/sample/"
        same.baseURL = "HTTP://127.0.0.1:8080/v1/"
        same.provider = .openai
        same.model = "gpt-4o-mini"
        same.maxTokens = [30, 50, 80, 150]
        same.repeats = 2
        same.tokenField = .maxTokens
        same.brevityBudget = 120
        same.detail = .low
        #expect(Evaluation.resumeConflicts(run, same) == [])
        same.baseURL = "http://127.0.0.1:8080/v1/chat/completions"
        #expect(Evaluation.resumeConflicts(run, same) == [])
        #expect(Evaluation.resumeConflicts(run, RunOptions()) == [])
        // A run that let prompts choose records no model or limits, and the defaults.
        let defaults = try Self.recordedRun { $0.model = nil; $0.maxTokens = nil; $0.repeats = nil; $0.brevityBudget = nil }
        var repeated = RunOptions()
        repeated.repeats = 1
        repeated.brevityBudget = 150
        #expect(Evaluation.resumeConflicts(defaults, repeated) == [])
    }

    @Test func aFixedFlagThatDiffersIsRefusedNamingBothValues() throws {
        let run = try Self.recordedRun()
        let cases: [(String, String, String, (inout RunOptions) -> Void)] = [
            ("--prompts", "prompts", "other", { $0.prompts = "other" }),
            ("--dataset", "datasets/sample", "datasets/big", { $0.dataset = "datasets/big" }),
            ("--max-tokens", "30,50,80,150", "30", { $0.maxTokens = [30] }),
            ("--max-tokens", "30,50,80,150", "150,80,50,30", { $0.maxTokens = [150, 80, 50, 30] }),
            ("--model", "gpt-4o-mini", "gpt-4o", { $0.model = "gpt-4o" }),
            ("--base-url", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1", { $0.baseURL = "http://127.0.0.1:8081/v1" }),
            ("--provider", "openai", "mock", { $0.provider = .mock }),
            ("--repeats", "2", "3", { $0.repeats = 3 }),
            ("--token-field", "max_tokens", "max_completion_tokens", { $0.tokenField = .maxCompletionTokens }),
            ("--brevity-budget", "120", "150", { $0.brevityBudget = 150 }),
            ("--detail", "low", "high", { $0.detail = .high }),
        ]
        for (flag, recorded, given, edit) in cases {
            var options = RunOptions()
            edit(&options)
            #expect(Evaluation.resumeConflicts(run, options) == [.init(flag: flag, recorded: recorded, given: given)])
        }
        let promptsChoose = try Self.recordedRun { $0.model = nil; $0.maxTokens = nil }
        var options = RunOptions()
        options.model = "gpt-4o-mini"
        options.maxTokens = [50]
        #expect(
            Evaluation.resumeConflicts(promptsChoose, options) == [
                .init(flag: "--max-tokens", recorded: "each prompt's own", given: "50"),
                .init(flag: "--model", recorded: "each prompt's own", given: "gpt-4o-mini"),
            ])
        // A run that let prompts choose their detail refuses a --detail on resume.
        let ownDetail = try Self.recordedRun { $0.detail = nil }
        var detail = RunOptions()
        detail.detail = .low
        #expect(Evaluation.resumeConflicts(ownDetail, detail) == [.init(flag: "--detail", recorded: "each prompt's own", given: "low")])
    }

    @Test func runIDsSortByTime() {
        let early = Evaluation.newRunID(date: Date(timeIntervalSince1970: 1_700_000_000))
        let late = Evaluation.newRunID(date: Date(timeIntervalSince1970: 1_700_000_001))
        #expect(early.hasPrefix("20231114-221320-"))
        #expect(early < late)
    }
}
