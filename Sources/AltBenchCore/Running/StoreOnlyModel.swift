import Foundation

/// The model of an `--offline` run: every answer must come from the store, so any trial
/// that reaches the model fails, item by item, and nothing is sent.
public struct StoreOnlyModel: VisionModel {
    /// The endpoint whose stored answers are replayed (part of every cache key).
    public let endpoint: String

    public init(endpoint: String) {
        self.endpoint = endpoint
    }

    public func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        throw ModelFailure(
            kind: .notStored,
            message: "no stored answer for this trial from \(endpoint), and --offline sends no request. Record it with a run that can reach the model (without --offline).",
            retryable: false)
    }
}
