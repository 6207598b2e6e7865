import Foundation

/// Flags given on the command line; `nil` means "not given".
package struct RunOptions: Sendable, Hashable {
    package var prompts: String?
    package var dataset: String?
    package var results: String?
    package var model: String?
    package var baseURL: String?
    /// `--proxy URL`: a signed proxy's base URL.
    package var proxy: String?
    /// `--azure-endpoint`, `--azure-deployment`, `--azure-api-version`.
    package var azureEndpoint: String?
    package var azureDeployment: String?
    package var azureAPIVersion: String?
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
    package var noCache: Bool = false
    package var cacheScripted: Bool = false
    package var offline: Bool = false
    package var brevityBudget: Int?
    /// `--embed-images`: the HTML report inlines local images as data URLs.
    package var embedImages: Bool = false
    /// `--detail`: replaces every prompt's own image detail.
    package var detail: ImageDetail?
    /// `--max-cost USD`.
    package var maxCost: Double?
    /// `--judge` and the judge flags: judge the answers once the run is done.
    package var judge = JudgeOptions()
    /// `--batch`: through the provider's Batch API, with these file limits, retries and poll.
    package var batch: Bool = false
    package var batchMaxLines: Int?
    package var batchMaxBytes: Int?
    package var batchRetries: Int?
    /// Seconds, the longest wait between two polls.
    package var batchPoll: Double?
    /// `altbench batches cancel`: cancel the resumed run's batches and import what they did.
    package var batchCancel: Bool = false
    /// `--shard K/N`: only this share of the plan's trials.
    package var shard: Shard?

    package init() {}
}
