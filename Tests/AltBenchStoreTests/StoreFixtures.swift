import AltBenchCore
import Foundation
import GRDB
import Testing

@testable import AltBenchStore

/// Small builders for store tests: a run, its variants, a dataset and finished trials.
///
/// Dates are whole seconds because the store keeps milliseconds, so values read back compare
/// equal to the values written.
enum StoreFixtures {
    static let endpoint = "https://api.example.test/v1/chat/completions"
    /// 2026-01-01 00:00:00 UTC.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let root = URL(fileURLWithPath: "/tmp/altbench-fixtures/datasets/sample")

    static func info(
        id: String = "20260101-000000-abcd", startedAt: Date = start, provider: Provider = .openai,
        endpoint: String = endpoint, settings: JSONValue = ["brevity_budget": 150, "repeats": 1]
    ) -> RunResults.Info {
        RunResults.Info(
            id: id, startedAt: startedAt, status: "running", provider: provider,
            providerReason: "OPENAI_API_KEY is set", endpoint: endpoint, datasetPath: "datasets/sample",
            promptsPath: "prompts", settings: settings, version: "0.1.0")
    }

    static let short = PromptVariant(
        name: "short", file: "prompts/short.md", text: "Describe the image in one sentence.",
        model: "gpt-4o-mini", maxTokens: [60, 120], detail: .low, temperature: 0.2,
        system: "You write alt text.", description: "A one-sentence prompt keeps answers brief.", fileHash: "aaaa")
    static let plain = PromptVariant(
        name: "plain", file: "prompts/plain.md", text: "Write alt text for this image.", fileHash: "bbbb")

    static func fileItem(_ id: String, references: [String] = [], problem: ImageProblem? = nil) -> DatasetItem {
        let path = "\(id).png"
        let info = problem == nil
            ? ImageInfo(format: .png, width: 640, height: 480, byteCount: 1234, sha256: Hashing.sha256Hex(id))
            : nil
        return DatasetItem(
            id: id, image: .file(path: path, url: root.appendingPathComponent(path)), imageInfo: info,
            problem: problem, references: references, context: "A post about \(id).", lang: "en", tags: ["pets"])
    }

    static let cat = fileItem("cat", references: ["A grey cat asleep on a windowsill.", "Sleeping cat."])
    static let dog = fileItem("dog", references: ["A dog with a ball."])
    static let broken = fileItem("broken", problem: .notAnImage(path: "broken.png"))
    static let remote = DatasetItem(
        id: "remote", image: .remote(URL(string: "https://img.example.test/a.png?w=100")!),
        references: ["A remote picture."])

    static func dataset(_ items: [DatasetItem] = [cat, dog, broken, remote]) -> Dataset {
        Dataset(name: "sample", path: "datasets/sample", root: root, items: items)
    }

    /// A trial as the planner would build it: no request (and no key) for a bad image.
    static func trial(
        _ variant: PromptVariant, _ item: DatasetItem, maxTokens: Int? = 60, repeatIndex: Int = 0, id: Int = 0,
        endpoint: String = endpoint
    ) -> Trial {
        var request: ModelRequest?
        if item.problem == nil, let identity = item.imageIdentity {
            let payload: ImagePayload
            switch item.image {
            case .file(_, let url): payload = .file(url, .png)
            case .remote(let url): payload = .remote(url)
            }
            request = ModelRequest(
                model: variant.model ?? "gpt-4o", system: variant.system, prompt: variant.text, image: payload,
                imageIdentity: identity, detail: variant.detail, maxTokens: maxTokens,
                temperature: variant.temperature)
        }
        return Trial(
            id: id, variant: variant, item: item, maxTokens: maxTokens, repeatIndex: repeatIndex, request: request,
            key: request.map { TrialKey.make(endpoint: endpoint, request: $0, repeatIndex: repeatIndex) })
    }

    static func answer(
        _ content: String?, finishReason: String = "stop", completionTokens: Int? = 12, latencyMs: Double = 250,
        refusal: String? = nil, rawBody: String? = nil
    ) -> ModelAnswer {
        ModelAnswer(
            content: content, refusal: refusal, finishReason: finishReason, responseModel: "gpt-4o-mini-2024-07-18",
            responseID: "chatcmpl-1", requestID: "req-1", systemFingerprint: "fp_1", promptTokens: 300,
            completionTokens: completionTokens, totalTokens: completionTokens.map { $0 + 300 },
            reasoningTokens: nil, latencyMs: latencyMs, tokenField: "max_tokens",
            rawBody: rawBody ?? #"{"choices":[{"message":{"content":"…"}}]}"#)
    }

    /// A finished trial with the v1 scores of `answer`, as the runner hands it over.
    static func answered(_ trial: Trial, _ answer: ModelAnswer, cached: Bool = false) -> TrialResult {
        TrialResult(
            trial: trial, outcome: .answered(answer, cached: cached),
            scores: ScoringSuite.evaluate(answer.scoringInput(ScoringSettings())), attempts: cached ? 0 : 1,
            startedAt: start, finishedAt: start.addingTimeInterval(1))
    }

    static func failed(
        _ trial: Trial, message: String, kind: ModelFailure.Kind = .http, status: Int? = 500, code: String? = nil
    ) -> TrialResult {
        TrialResult(
            trial: trial,
            outcome: .failed(ModelFailure(kind: kind, status: status, message: message, code: code, retryable: false)),
            scores: [], attempts: kind == .image ? 0 : 3, startedAt: start, finishedAt: start.addingTimeInterval(2))
    }

    /// The failure the runner records for an item whose image cannot be sent.
    static func badImage(_ trial: Trial) -> TrialResult {
        failed(trial, message: trial.item.problem?.message ?? "", kind: .image, status: nil)
    }

    static func count(_ store: ResultStore, _ table: String) async throws -> Int {
        try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }
}

/// Where a test's store lives: both kinds must behave the same.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, file

    var testDescription: String { rawValue }

    /// Opens a fresh store; the folder is removed when `TemporaryDirectory` goes away.
    func open() throws -> (ResultStore, TemporaryDirectory?) {
        switch self {
        case .memory: return (try ResultStore(), nil)
        case .file:
            let folder = try TemporaryDirectory()
            return (try ResultStore(url: folder.databaseURL), folder)
        }
    }
}

/// A unique folder under the system temporary directory, deleted on release.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("altbench-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// `results/altbench.sqlite` inside the folder; `results/` does not exist yet, so opening it
    /// also checks that the store creates its folder.
    var databaseURL: URL { url.appendingPathComponent("results/altbench.sqlite") }

    deinit { try? FileManager.default.removeItem(at: url) }
}
