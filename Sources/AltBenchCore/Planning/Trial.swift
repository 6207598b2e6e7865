import Foundation

/// One question to a model: (prompt variant, max_tokens, dataset item, repeat index).
package struct Trial: Sendable, Hashable, Identifiable {
    /// Position in the plan; stable for a given set of inputs.
    package var id: Int
    package var variant: PromptVariant
    package var item: DatasetItem
    package var maxTokens: Int?
    package var repeatIndex: Int
    /// The request to send, or `nil` when the item's image cannot be sent (`item.problem`).
    package var request: ModelRequest?
    /// The cache key, `nil` when there is no request.
    package var key: String?
    /// The tokens the request is expected to use, `nil` when there is no request.
    package var estimate: RequestEstimate? = nil

    package init(
        id: Int, variant: PromptVariant, item: DatasetItem, maxTokens: Int?, repeatIndex: Int,
        request: ModelRequest?, key: String?
    ) {
        self.id = id
        self.variant = variant
        self.item = item
        self.maxTokens = maxTokens
        self.repeatIndex = repeatIndex
        self.request = request
        self.key = key
    }
}

/// The SHA-256 cache key of a trial.
///
/// It covers everything that changes the model's answer: the endpoint, the request body with
/// the image replaced by the hash of its bytes (or its URL), and the repeat index. It never
/// covers the API key, headers, concurrency or timeouts, so those can change freely.
package enum TrialKey {
    package static func make(endpoint: String, request: ModelRequest, repeatIndex: Int) -> String {
        let canonical: JSONValue = [
            "endpoint": .string(endpoint),
            "request": request.keyBody(),
            "repeat": .int(repeatIndex),
        ]
        return Hashing.sha256Hex(canonical.canonicalText)
    }
}

/// Expands variants × token limits × items × repeats into trials.
package struct Planner: Sendable {
    package var experiment: Experiment
    /// The identity of the endpoint answers come from (part of every cache key).
    package var endpoint: String

    package init(experiment: Experiment, endpoint: String) {
        self.experiment = experiment
        self.endpoint = endpoint
    }

    /// The token limits a variant runs with: the run's list, else the prompt's, else none.
    package func tokenLimits(for variant: PromptVariant) -> [Int?] {
        if let run = experiment.maxTokens, !run.isEmpty { return run }
        if let own = variant.maxTokens, !own.isEmpty { return own }
        return [nil]
    }

    /// The model a variant runs with: the run's, else the prompt's, else the default.
    package func model(for variant: PromptVariant) -> String {
        RequestRule(experiment).model(for: variant)
    }

    /// Trials ordered item by item, so an interrupted run has complete comparisons for the
    /// images it finished.
    ///
    /// Each variant's prompt and system message are parsed once and rendered for each item,
    /// so the rendered text is what is sent and what the cache key covers.
    package func plan(variants: [PromptVariant], dataset: Dataset) -> [Trial] {
        let templates = variants.map(VariantTemplates.init)
        var trials: [Trial] = []
        for item in dataset.items {
            let fields = PromptFields(item: item)
            for (variant, template) in zip(variants, templates) {
                let prompt = template.prompt.render(fields)
                let system = template.system?.render(fields)
                for limit in tokenLimits(for: variant) {
                    // One request and one estimate per (item, variant, limit): repeats differ
                    // only in the cache key.
                    let request = makeRequest(variant: variant, item: item, maxTokens: limit, prompt: prompt, system: system)
                    let estimate = request.map {
                        RequestEstimate.make(
                            request: $0, imageWidth: item.imageInfo?.width, imageHeight: item.imageInfo?.height)
                    }
                    for repeatIndex in 0..<max(1, experiment.repeats) {
                        let key = request.map { TrialKey.make(endpoint: endpoint, request: $0, repeatIndex: repeatIndex) }
                        var trial = Trial(
                            id: trials.count, variant: variant, item: item, maxTokens: limit,
                            repeatIndex: repeatIndex, request: request, key: key)
                        trial.estimate = estimate
                        trials.append(trial)
                    }
                }
            }
        }
        return trials
    }

    func makeRequest(
        variant: PromptVariant, item: DatasetItem, maxTokens: Int?, prompt: String, system: String?
    ) -> ModelRequest? {
        guard item.problem == nil, let identity = item.imageIdentity else { return nil }
        let payload: ImagePayload
        switch item.image {
        case .remote(let url): payload = .remote(url)
        case .file(_, let url):
            guard let info = item.imageInfo else { return nil }
            payload = .file(url, info.format)
        }
        return RequestRule(experiment).request(
            variant: variant, maxTokens: maxTokens, prompt: prompt, system: system, image: payload, imageIdentity: identity)
    }
}

/// How a trial's request is built from its variant: the run's `--model`, `--detail` and
/// `--token-field` over the prompt's own settings. The planner builds every request with it,
/// and a stored run's ``RunSnapshot`` builds each pair's ``templateRequest(variant:maxTokens:)``
/// with it from the settings the run recorded, so the two cannot drift apart.
package struct RequestRule: Sendable, Hashable {
    /// The run's model, overriding every prompt's; `nil` lets prompts choose.
    package var model: String?
    /// The run's image detail, overriding every prompt's; `nil` keeps each prompt's.
    package var detail: ImageDetail?
    /// The token-limit field; `nil` picks it from the model name.
    package var tokenField: TokenField?

    package init(model: String? = nil, detail: ImageDetail? = nil, tokenField: TokenField? = nil) {
        self.model = model
        self.detail = detail
        self.tokenField = tokenField
    }

    /// The rule of a run about to start.
    package init(_ experiment: Experiment) {
        self.init(model: experiment.model, detail: experiment.detail, tokenField: experiment.tokenField)
    }

    /// The rule a stored run ran with, from its recorded settings (``Experiment/recordedSettings``).
    package init(recorded settings: JSONValue) {
        self.init(
            model: settings["model"]?.stringValue,
            detail: settings["detail"]?.stringValue.flatMap(ImageDetail.init(rawValue:)),
            tokenField: settings["token_field"]?.stringValue.flatMap(TokenField.init(rawValue:)))
    }

    /// The model a variant runs with: the run's, else the prompt's, else the default.
    package func model(for variant: PromptVariant) -> String {
        model ?? variant.model ?? Experiment.defaultModel
    }

    /// The request `variant` sends at `maxTokens` with the given (rendered) prompt and system
    /// message and image.
    package func request(
        variant: PromptVariant, maxTokens: Int?, prompt: String, system: String?, image: ImagePayload, imageIdentity: String
    ) -> ModelRequest {
        let model = model(for: variant)
        let field = tokenField ?? TokenField.preferred(forModel: model)
        return ModelRequest(
            model: model, system: system, prompt: prompt, image: image, imageIdentity: imageIdentity,
            detail: detail ?? variant.detail, maxTokens: maxTokens, tokenField: field, temperature: variant.temperature)
    }

    /// What stands for the image in a ``templateRequest(variant:maxTokens:)``.
    package static let imagePlaceholder = "{image}"

    /// The request `variant` sends at `maxTokens` for any item: its prompt and system message
    /// as written (placeholders unfilled) and ``imagePlaceholder`` for the image. What its
    /// ``ModelRequest/keyBody()`` holds settles every request of the pair apart from the item.
    package func templateRequest(variant: PromptVariant, maxTokens: Int?) -> ModelRequest {
        request(
            variant: variant, maxTokens: maxTokens, prompt: variant.text, system: variant.system,
            image: .remote(URL(string: "about:blank")!), imageIdentity: Self.imagePlaceholder)
    }
}

/// A variant's prompt and system message, parsed once per plan.
private struct VariantTemplates {
    var prompt: PromptTemplate
    var system: PromptTemplate?

    /// `PromptLoader` has already rejected a bad template; a variant built in code whose text
    /// does not parse is sent as written, as it was before prompts were templates.
    init(_ variant: PromptVariant) {
        prompt = Self.parse(variant.text)
        system = variant.system.map(Self.parse)
    }

    private static func parse(_ text: String) -> PromptTemplate {
        (try? PromptTemplate(parsing: text)) ?? PromptTemplate(literal: text)
    }
}
