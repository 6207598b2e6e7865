import Foundation
import Yams

extension PriceTable {
    /// The settings of one model's entry under `prices:`.
    public static let priceKeys = ["input", "cached_input", "output", "batch_input", "batch_output"]

    /// `prices:` in altbench.yml: `{MODEL: {input, cached_input, output, batch_input, batch_output},
    /// batch_discount: 0.5}`; `batch_input` and `batch_output` (the Batch API's prices) go together.
    ///
    /// `node` is the value of `prices:` and `line` the line of its key. Prices are US dollars
    /// per million tokens: `input` and `output` are required, `cached_input` is optional
    /// (cached prompt tokens are then billed as input), and every number must be finite and
    /// 0 or more. `batch_discount` is the share the Batch API takes off, in [0, 1). Errors
    /// name the file, the line of the entry at fault and its dotted path
    /// (`prices.gpt-4o.input`), and show the right shape.
    public static func parse(_ node: Node, line: Int?, displayPath: String) throws -> PriceTable {
        let shape = "e.g. {input: 2.5, cached_input: 1.25, output: 10}"
        guard let entries = node.mapping else {
            throw AltBenchError.configFile(
                file: displayPath, line: line,
                message: "`prices` must map model names to prices in US dollars per million tokens, e.g. {gpt-4o: {input: 2.5, cached_input: 1.25, output: 10}, batch_discount: 0.5}.")
        }
        var table = PriceTable()
        // Normalised name → the name as first written, to catch one model priced twice.
        var seen: [String: String] = [:]
        for (modelNode, priceNode) in entries {
            let model = modelNode.string ?? ""
            let modelLine = modelNode.mark?.line ?? line
            func fail(_ path: String, _ message: String, at errorLine: Int? = nil) -> AltBenchError {
                .configFile(file: displayPath, line: errorLine ?? modelLine, message: "`prices.\(path)` \(message)")
            }
            if model == "batch_discount" {
                guard let share = priceNode.scalar.flatMap({ Double($0.string) }), share >= 0, share < 1 else {
                    throw fail(
                        model, "must be the share the Batch API takes off, from 0 up to (not including) 1, e.g. 0.5 for half price.")
                }
                table.batchDiscount = share
                continue
            }
            guard !model.isEmpty else {
                throw AltBenchError.configFile(
                    file: displayPath, line: modelLine,
                    message: "`prices` has an entry without a model name. Write the model as the key, e.g. gpt-4o: {input: 2.5, output: 10}.")
            }
            guard let settings = priceNode.mapping else {
                if isKeyLike(model) { throw fail(model, "is not a model price.\(keyHint)") }
                throw fail(model, "must map input, cached_input and output to US dollars per million tokens, \(shape).")
            }
            let normalized = ModelNameMatch.normalized(model)
            if let earlier = seen[normalized] {
                throw fail(
                    model, "prices the same model as `prices.\(earlier)` (names match regardless of case and provider prefix). Keep one of them.")
            }
            seen[normalized] = model

            var values: [String: Double] = [:]
            for (keyNode, valueNode) in settings {
                let key = keyNode.string ?? ""
                let keyLine = keyNode.mark?.line ?? modelLine
                guard priceKeys.contains(key) else {
                    let hint =
                        isKeyLike(key)
                        ? keyHint
                        : YAMLDiagnostics.closest(to: key, in: priceKeys).map { " Did you mean `\($0)`?" } ?? ""
                    throw fail(
                        "\(model).\(key)", "is not a price setting.\(hint) Settings: \(priceKeys.joined(separator: ", ")).",
                        at: keyLine)
                }
                guard let number = valueNode.scalar.flatMap({ Double($0.string) }), number.isFinite else {
                    throw fail("\(model).\(key)", "must be a number of US dollars per million tokens, e.g. 2.5.", at: keyLine)
                }
                guard number >= 0 else {
                    throw fail(
                        "\(model).\(key)", "must be a number of US dollars per million tokens, 0 or more (got \(number)), e.g. 2.5.",
                        at: keyLine)
                }
                values[key] = number
            }
            let missing = ["input", "output"].filter { values[$0] == nil }
            guard let input = values["input"], let output = values["output"] else {
                throw fail(
                    model,
                    "needs \(missing.map { "`\($0)`" }.joined(separator: " and ")) in US dollars per million tokens (cached_input is optional), \(shape).")
            }
            if (values["batch_input"] == nil) != (values["batch_output"] == nil) {
                throw fail(
                    model,
                    "needs both `batch_input` and `batch_output` (the Batch API's prices), or neither (then batch_discount applies), e.g. {input: 2.5, output: 10, batch_input: 1.25, batch_output: 5}.")
            }
            table.models[model] = ModelPrice(
                input: input, cachedInput: values["cached_input"], output: output, batchInput: values["batch_input"],
                batchOutput: values["batch_output"])
        }
        return table
    }

    /// `api_key`, `openai_api_key`, ...: someone is about to commit a key.
    private static func isKeyLike(_ name: String) -> Bool {
        name.lowercased().hasSuffix("key")
    }

    /// The hint ConfigLoader gives for a key-like name: where a key goes instead.
    private static let keyHint =
        " Never put a key in this file: export it as OPENAI_API_KEY, or name the variable that holds it with `api_key_env`."
}
