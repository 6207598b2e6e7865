import AltBenchApp
import AltBenchCore
import ArgumentParser
import Foundation

/// The judge flags `altbench run` and `altbench judge` share.
struct JudgeFlags: ParsableArguments {
    @Option(
        name: .customLong("judge-model"),
        help: ArgumentHelp(
            "The judge's model (replaces judge.model in altbench.yml). Prefer another family than the model judged.",
            valueName: "name"))
    var judgeModel: String?

    @Option(
        name: .customLong("judge-rubric"),
        help: ArgumentHelp("The rubric file the judge grades by. Default: the built-in rubric (altbench judge --show-rubric).", valueName: "file"))
    var judgeRubric: String?

    @Option(
        name: .customLong("judge-repeats"),
        help: ArgumentHelp(
            "Judge each answer this many times, to measure the judge's own stability (1-10). Default: 1.",
            valueName: "n"))
    var judgeRepeats: Int?

    func validate() throws {
        if let judgeRepeats, !JudgeSettings.repeatsRange.contains(judgeRepeats) {
            throw ValidationError("--judge-repeats must be between 1 and 10, not \(judgeRepeats).")
        }
    }

    func options(enabled: Bool) -> JudgeOptions {
        JudgeOptions(enabled: enabled, model: judgeModel, rubric: judgeRubric, repeats: judgeRepeats)
    }
}
