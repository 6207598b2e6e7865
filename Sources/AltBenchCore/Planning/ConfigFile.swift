import Foundation

/// `altbench.yml`: defaults for a run. Every key is optional.
package struct ConfigFile: Sendable, Hashable {
    package var prompts: String?
    package var dataset: String?
    package var results: String?
    package var model: String?
    package var baseURL: String?
    package var apiKeyEnv: String?
    package var provider: Provider?
    package var maxTokens: [Int]?
    package var repeats: Int?
    package var concurrency: Int?
    package var timeout: Double?
    package var maxRetries: Int?
    package var requestsPerMinute: Double?
    package var tokensPerMinute: Double?
    package var deadline: Duration?
    package var tokenField: TokenField?
    package var brevityBudget: Int?
    package var platformLimit: Int?
    package var freeHedgesPerSentence: Int?
    package var contextEchoThreshold: Double?
    /// Weights of `quality`'s parts, merged over ``ScoringSettings/defaultWeights``.
    package var qualityWeights: [String: Double]?
    /// The checks that force `quality` to 0, replacing ``ScoringSettings/defaultHardFails``.
    package var hardFails: [String]?
    /// What `altbench check` holds a run to (`check:`), defaults for keys it does not set.
    package var check = CheckThresholds()
    /// The variant the others are measured against (`baseline:`), listed first in every
    /// table; unset, ``VariantOrder`` picks `icecubes` when present, else the first.
    package var baseline: String?
    /// `proxy:`: a team's signed proxy.
    package var proxy: ProxyConfig?
    /// `azure:`: an Azure OpenAI resource.
    package var azure: AzureConfig?
    /// `detail:`: replaces every prompt's own image detail.
    package var detail: ImageDetail?
    /// `max_cost:` in USD.
    package var maxCost: Double?
    /// `prices:`: per-model prices over the built-in table, and `batch_discount`.
    package var prices: PriceTable?
    /// `judge:`: the model that judges the answers (`--judge`, `altbench judge`).
    package var judge: JudgeConfig?
    /// `batch: true`: send runs through the provider's Batch API (`--batch`).
    package var batch: Bool?

    package init() {}

    /// The scorers' settings: budgets, `quality` weights (merged over the defaults) and hard
    /// fails, with `brevityBudget` (a flag) winning over the file's.
    package func scoringSettings(brevityBudget override: Int? = nil) throws -> ScoringSettings {
        let budget = override ?? brevityBudget ?? 150
        let limit = platformLimit ?? 1500
        guard budget > 0, limit > budget else {
            throw AltBenchError.invalidSetting(name: "brevity_budget", message: "must be positive and below platform_limit (\(limit)).")
        }
        return ScoringSettings(
            brevityBudget: budget, platformLimit: limit, freeHedgesPerSentence: freeHedgesPerSentence ?? 1,
            contextEchoThreshold: contextEchoThreshold ?? 0.8,
            weights: ScoringSettings.defaultWeights.merging(qualityWeights ?? [:]) { $1 },
            hardFails: hardFails.map(Set.init) ?? ScoringSettings.defaultHardFails)
    }

    static let knownKeys = [
        "prompts", "dataset", "results", "model", "base_url", "api_key_env", "provider", "max_tokens", "repeats",
        "concurrency", "timeout", "max_retries", "rpm", "tpm", "deadline", "token_field", "brevity_budget",
        "platform_limit", "free_hedges_per_sentence", "context_echo_threshold", "quality_weights", "hard_fails",
        "check", "baseline", "proxy", "detail", "max_cost", "prices",
        "azure", "judge", "batch",
    ]
}
