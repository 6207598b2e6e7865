import AltBenchCore
import Foundation

/// A line of a batch's output or error file as a trial's outcome: the same answer a live
/// request would have got (``ChatCompletionParser``), or the failure its error body describes
/// (``ErrorBodyParser``), so a batch answer is stored, scored and cached like a live one.
package enum BatchResults {
    package static func outcome(of line: BatchOutputLine, batchID: String, redactor: Redactor) -> TrialOutcome {
        if let error = line.error {
            return .failed(
                ModelFailure(
                    kind: .http, message: redactor.redact("batch \(batchID): \(error.message)"), code: error.code,
                    retryable: false))
        }
        guard let status = line.statusCode, let body = line.body else {
            return .failed(
                ModelFailure(
                    kind: .malformed, message: "batch \(batchID) answered this request with neither a response nor an error.",
                    retryable: false))
        }
        guard (200..<300).contains(status) else {
            var failure = ErrorBodyParser.failure(status: status, headers: [:], body: body, redactor: redactor)
            // Asking again is a new batch or a live run, not a retry of this one.
            failure.retryable = false
            return .failed(failure)
        }
        do {
            var answer = try ChatCompletionParser.answer(from: body, requestID: line.requestID, redactor: redactor)
            answer.latencyMs = 0
            return .answered(answer, cached: false)
        } catch let failure as ModelFailure {
            var failure = failure
            failure.retryable = false
            return .failed(failure)
        } catch {
            return .failed(ModelFailure(kind: .malformed, message: "batch \(batchID): \(error)", retryable: false))
        }
    }
}
