import Foundation

/// The model of an `--offline` run: every answer must come from the store, so any trial
/// that reaches the model fails, item by item, and nothing is sent.
package struct StoreOnlyModel: VisionModel {
    /// The endpoint whose stored answers are replayed (part of every cache key).
    package let endpoint: String

    package init(endpoint: String) {
        self.endpoint = endpoint
    }

    package func complete(_ request: ModelRequest) async throws -> ModelAnswer {
        throw ModelFailure(
            kind: .notStored,
            message: "no stored answer for this trial from \(endpoint), and --offline sends no request. Record it with a run that can reach the model (without --offline).",
            retryable: false)
    }
}
