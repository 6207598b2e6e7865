import Testing

@testable import AltBenchApp
@testable import AltBenchCore

@Suite("run: stopped by the spending limit")
struct CostLimitStopTests {
    @Test func everyStopHasItsOwnExitStatus() {
        #expect(Evaluation.exitCode(for: .costLimit(limit: 5, spent: 4.87)) == 4)
        #expect(Evaluation.exitCode(for: .deadline(.seconds(60))) == 124)
        #expect(Evaluation.exitCode(for: .interrupted(signal: "SIGINT")) == 130)
        #expect(Evaluation.exitCode(for: .interrupted(signal: "SIGTERM")) == 143)
        let failure = ModelFailure(kind: .http, status: 401, message: "bad key", retryable: false, stopsRun: true)
        #expect(Evaluation.exitCode(for: .failure(failure)) == 1)
        #expect(Evaluation.exitCode(for: .serverLost(failure)) == 1)
    }

    @Test func theMessageSaysWhatWasSpentThatAnswersAreKeptAndHowToContinue() {
        let text = Evaluation.costLimitMessage(
            limit: 5, spent: 4.93, recorded: 40, planned: 120,
            resumeCommand: "altbench run --resume 20261126-024000-ab12")
        #expect(
            text == """
                altbench: stopped before the next request could pass the spending limit: spent $4.93 of $5.00; 40 of 120 trials recorded, and their answers are kept. The report is marked incomplete.
                Continue this run with a limit for what is left: altbench run --resume 20261126-024000-ab12 --max-cost USD (the stored answers are not asked again).

                """)
    }

    @Test func anOvershootSaysByHowMuchAndWhy() {
        let text = Evaluation.costLimitMessage(limit: 0.8, spent: 0.9, recorded: 30, planned: 40, resumeCommand: nil)
        #expect(text.contains("spent $0.90, $0.10 over the $0.80 limit"), "\(text)")
        #expect(text.contains("in flight"), "\(text)")
        #expect(text.contains("more tokens than estimated"), "\(text)")
    }

    @Test func withNothingLeftToAskThereIsNoResumeAdvice() {
        let text = Evaluation.costLimitMessage(limit: 1, spent: 0.5, recorded: 3, planned: 3, resumeCommand: nil)
        #expect(!text.contains("--resume"))
        #expect(text.hasSuffix("The report is marked incomplete.\n"))
    }
}
