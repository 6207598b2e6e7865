import AltBenchCore
import Foundation

/// `altbench report --format json`: a run's summary tables, its answer and its cost as data,
/// for tools.
///
/// `cost` is `null` for a run that holds no usage, estimate or cost; otherwise
/// `{"pairs": [{"variant", "max_tokens", "model", FIGURES}], "total": {FIGURES}, "billed",
/// "max_cost_usd", "notes"}`, where FIGURES are `trials`, `sent`, `from_store`, `failed`, the
/// reported `prompt_tokens`, `completion_tokens`, `cached_tokens`, `image_tokens`,
/// `reasoning_tokens`, the `estimated_input_tokens` and `estimated_image_tokens` of the same
/// requests, `compared_prompt_tokens` (the reported prompt tokens of exactly those requests),
/// `reported_to_estimated`, `without_usage`, `cost_usd` and `without_cost`; `null` where unknown.
package enum ReportJSON {
    package static func render(_ results: RunResults, truncationLimit: Double = CheckThresholds().maxTruncationRise) -> String {
        render(ReportAnalysis(results, truncationLimit: truncationLimit), results: results)
    }

    /// The summary of `analysis`'s run (`results`, in the run's own order).
    package static func render(_ analysis: ReportAnalysis, results: RunResults) -> String {
        let (ordered, summary, insights) = (analysis.results, analysis.summary, analysis.insights)
        func number(_ value: Double?) -> Any { value.map { $0 as Any } ?? NSNull() }
        func limit(_ value: Int?) -> Any { value.map { $0 as Any } ?? NSNull() }
        let answered = results.trials.filter { !$0.failed }
        let object: [String: Any] = [
            "run": [
                "id": results.info.id, "status": results.info.status, "provider": results.info.provider.rawValue,
                "endpoint_host": RunSnapshot.host(of: results.info.endpoint, provider: results.info.provider),
                "dataset": results.info.datasetPath, "models": Array(Set(results.trials.compactMap(\.model))).sorted(),
                "planned_trials": results.plannedTrials, "answered": answered.count,
                "failed": results.trials.count - answered.count, "cache_hits": answered.filter(\.cached).count,
            ] as [String: Any],
            "summary": summary.rows.map { row -> [String: Any] in
                [
                    "variant": row.variant, "max_tokens": limit(row.maxTokens), "n": row.n, "errors": row.errors,
                    "form": number(row.meanForm), "content": number(row.meanContent), "quality": number(row.meanQuality),
                    "form_only": row.formOnly, "mean_chars": number(row.meanChars), "p90_chars": number(row.p90Chars),
                    "within_budget": number(row.withinBudget), "first_person": number(row.firstPerson),
                    "truncated": number(row.truncated), "refusals": number(row.refusals), "empty": number(row.empty),
                    "check_rates": row.checkRates,
                    "judge_accuracy": number(row.means[ScoreName.judgeAccuracy]),
                    "judge_completeness": number(row.means[ScoreName.judgeCompleteness]),
                    "judge_concision": number(row.means[ScoreName.judgeConcision]), "judged": row.judged,
                ]
            },
            "answer": [
                "baseline": insights.baseline.map { $0 as Any } ?? NSNull(),
                "best": insights.best.map { best -> [String: Any] in
                    [
                        "max_tokens": limit(best.maxTokens), "variant": best.variant, "quality": best.meanQuality,
                        "low": best.low, "high": best.high, "images": best.images, "tied_with": best.tiedWith, "ahead": best.ahead,
                    ]
                },
                "differences": insights.differences.map { difference -> [String: Any] in
                    [
                        "variant": difference.variant, "max_tokens": limit(difference.maxTokens),
                        "mean_difference": difference.meanDifference, "low": difference.low, "high": difference.high,
                        "p": difference.p, "images": difference.images, "significant": difference.significant,
                    ]
                },
                "truncation_limit": insights.truncationLimit,
                "truncation": insights.truncation.map { truncation -> [String: Any] in
                    [
                        "variant": truncation.variant, "from_max_tokens": limit(truncation.fromMaxTokens),
                        "shares": truncation.shares.map { ["max_tokens": $0.maxTokens, "share": $0.share] as [String: Any] },
                    ]
                },
            ] as [String: Any],
            "cost": CostSummary.make(ordered).map(cost) ?? NSNull(),
            "judge": JudgeSummary(ordered).map(judge) ?? NSNull(),
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The `judge` object: who judged, its calls, tokens and cost, its agreement with the
    /// references and, with repeats, with itself.
    static func judge(_ judge: JudgeSummary) -> [String: Any] {
        var object: [String: Any] = [
            "model": judge.model, "endpoint": judge.endpoint ?? NSNull(), "rubric": judge.rubric ?? NSNull(),
            "mock": judge.isMock, "judged": judge.judged, "unreadable": judge.unreadable, "failed": judge.failed,
            "cached": judge.cached, "unjudged_answers": judge.unjudgedAnswers,
            "problems": judge.problems.map { ["reason": $0.reason, "count": $0.count] as [String: Any] },
            "prompt_tokens": judge.promptTokens, "completion_tokens": judge.completionTokens,
            "cost_usd": judge.costUSD.map { CostSummary.roundedUSD($0) as Any } ?? NSNull(),
        ]
        object["agreement"] = judge.agreement.map { agreement -> [String: Any] in
            [
                "answers": agreement.answers, "rate": agreement.rate, "kappa": agreement.kappa.map { $0 as Any } ?? NSNull(),
                "both_accept": agreement.bothAccept, "both_reject": agreement.bothReject,
                "judge_rejects": agreement.judgeRejects, "judge_accepts": agreement.judgeAccepts,
            ]
        } ?? NSNull()
        object["stability"] = judge.stability.map { stability -> [String: Any] in
            [
                "answers": stability.answers, "repeats": stability.repeats, "same_accuracy": stability.sameAccuracy,
                "same_completeness": stability.sameCompleteness, "same_concision": stability.sameConcision,
                "mean_accuracy_spread": stability.meanAccuracySpread,
            ]
        } ?? NSNull()
        return object
    }

    /// The `cost` object (see the type's documentation).
    static func cost(_ summary: CostSummary) -> [String: Any] {
        func value<T>(_ value: T?) -> Any { value.map { $0 as Any } ?? NSNull() }
        func figures(_ figures: CostSummary.Figures) -> [String: Any] {
            [
                "trials": figures.trials, "sent": figures.sent, "from_store": figures.fromStore, "failed": figures.failed,
                "prompt_tokens": value(figures.promptTokens), "completion_tokens": value(figures.completionTokens),
                "cached_tokens": value(figures.cachedTokens), "image_tokens": value(figures.imageTokens),
                "reasoning_tokens": value(figures.reasoningTokens),
                "estimated_input_tokens": value(figures.estimatedInputTokens),
                "estimated_image_tokens": value(figures.estimatedImageTokens),
                "compared_prompt_tokens": value(figures.comparedPromptTokens),
                "reported_to_estimated": value(figures.ratio), "without_usage": figures.withoutUsage,
                "cost_usd": value(figures.costUSD.map(CostSummary.roundedUSD)), "without_cost": figures.withoutCost,
            ]
        }
        return [
            "pairs": summary.pairs.map { pair -> [String: Any] in
                figures(pair.figures).merging([
                    "variant": pair.variant, "max_tokens": value(pair.maxTokens), "model": value(pair.model),
                ]) { _, pairKey in pairKey }
            },
            "total": figures(summary.total),
            "billed": !summary.isMock,
            "max_cost_usd": value(summary.maxCostUSD.map(CostSummary.roundedUSD)),
            "notes": summary.notes,
        ]
    }
}
