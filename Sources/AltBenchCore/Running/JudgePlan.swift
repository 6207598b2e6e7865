import Foundation

/// The judge calls that judge a stored run's answers, and the answers left unjudged with why.
///
/// Every answered trial with text is judged (`repeats` times); an empty answer is not, since
/// it fails `quality` whatever a judge says. The judge sees the image the answer was made
/// from — the same bytes, which it checks against the hash the run recorded, and the same
/// `detail` — with the post's text and language. A trial this judge has already judged (the
/// same cache key, with a verdict that could be read) is not judged again; one judged by
/// another judge, rubric or answer is, and its new verdict replaces the old.
package struct JudgePlan: Sendable {
    /// An answer that cannot be judged, and why.
    package struct Skipped: Sendable, Hashable {
        package var itemID: String
        package var trials: Int
        package var reason: String
    }

    package var calls: [JudgeCall]
    package var skipped: [Skipped]
    /// Answers already judged by this judge (every repeat), left as they are.
    package var alreadyJudged: Int
    /// Answers to judge (each takes `repeats` calls).
    package var answers: Int

    /// The plan for `results` under `settings`, with `rubric` and the judge's `endpoint`.
    package static func make(
        _ results: RunResults, settings: JudgeSettings, rubric: JudgeRubric, endpoint: String
    ) -> JudgePlan {
        var calls: [JudgeCall] = []
        var skipped: [String: Skipped] = [:]
        var alreadyJudged = 0
        var answers = 0
        let items = Dictionary(results.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var images: [String: Result<(ImagePayload, String), ImageProblemText>] = [:]
        for trial in results.trials {
            guard let trialID = trial.trialID, let answer = trial.answer,
                case let text = TextAnalysis.trimmed(answer.content ?? ""), !text.isEmpty,
                let item = items[trial.itemID]
            else { continue }
            let image: (ImagePayload, String)
            let cached = images[item.id] ?? Self.image(of: item)
            images[item.id] = cached
            switch cached {
            case .success(let found): image = found
            case .failure(let problem):
                skipped[item.id, default: Skipped(itemID: item.id, trials: 0, reason: problem.text)].trials += 1
                continue
            }
            let subject = JudgeSubject(itemID: item.id, answer: text, context: item.context, lang: item.lang)
            var pending: [JudgeCall] = []
            for repeatIndex in 0..<settings.repeats {
                var key = JudgeCacheKey.make(
                    endpoint: endpoint, model: settings.model, rubric: rubric, imageIdentity: image.1,
                    detail: trial.imageDetail, answer: text, context: item.context, lang: item.lang,
                    maxTokens: settings.maxTokens, structuredOutput: settings.structuredOutput)
                if repeatIndex > 0 { key += "#repeat-\(repeatIndex + 1)" }
                if trial.judgements.contains(where: { $0.repeatIndex == repeatIndex && $0.cacheKey == key && $0.status == .judged }) {
                    continue
                }
                var request = JudgeRequest.make(
                    model: settings.model, rubric: rubric, subject: subject, image: image.0, imageIdentity: image.1,
                    detail: trial.imageDetail, maxTokens: settings.maxTokens,
                    tokenField: settings.client.tokenField ?? TokenField.preferred(forModel: settings.model),
                    structuredOutput: settings.structuredOutput)
                // Reasoning models (o-series, gpt-5) take no temperature but their default.
                if TokenField.preferred(forModel: settings.model) == .maxCompletionTokens { request.temperature = nil }
                let estimate = RequestEstimate.make(request: request, imageWidth: item.width, imageHeight: item.height)
                pending.append(JudgeCall(trialID: trialID, repeatIndex: repeatIndex, request: request, key: key, estimate: estimate))
            }
            if pending.isEmpty {
                alreadyJudged += 1
            } else {
                answers += 1
                calls += pending
            }
        }
        // The same question about the same answer (prompts that answer alike) is asked once:
        // every first call goes before every repeat of its key, which then finds it stored.
        var seen: Set<String> = []
        var firsts: [JudgeCall] = []
        var later: [JudgeCall] = []
        for call in calls {
            if seen.insert(call.key).inserted { firsts.append(call) } else { later.append(call) }
        }
        return JudgePlan(
            calls: firsts + later, skipped: skipped.values.sorted { $0.itemID < $1.itemID }, alreadyJudged: alreadyJudged,
            answers: answers)
    }

    /// Why an item's image cannot be shown to the judge.
    struct ImageProblemText: Error, Hashable {
        var text: String
    }

    /// The item's image as the run sent it, with its identity; a local file must still hold
    /// the bytes the run recorded.
    static func image(of item: RunResults.Item) -> Result<(ImagePayload, String), ImageProblemText> {
        if item.isRemote {
            guard let url = URL(string: item.image) else {
                return .failure(ImageProblemText(text: "its image URL '\(item.image)' cannot be read"))
            }
            return .success((.remote(url), url.absoluteString))
        }
        guard let hash = item.imageSHA256, let format = item.format.flatMap(ImageFormat.init(rawValue:)) else {
            return .failure(ImageProblemText(text: "the run could not read its image, so the judge cannot see it"))
        }
        let url = URL(fileURLWithPath: item.image)
        guard let data = try? Data(contentsOf: url) else {
            return .failure(ImageProblemText(text: "its image \(item.image) cannot be read any more; restore the file to judge these answers"))
        }
        guard Hashing.sha256Hex(data) == hash else {
            return .failure(ImageProblemText(text: "its image \(item.image) has changed since the run; the judge must see the image the answer describes, so restore that file or judge a new run"))
        }
        return .success((.file(url, format), "sha256:" + hash))
    }
}
