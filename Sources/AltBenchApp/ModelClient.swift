import AltBenchCore
import AltBenchHTTP
import AltBenchOpenAI
import AsyncHTTPClient
import Foundation

/// The client a resolved ``Experiment`` asks: OpenAI-compatible with a key, the signed proxy,
/// Azure OpenAI, or the offline mock `mock()` makes. The run and the judge make theirs here,
/// so both reach a provider the same way.
enum ModelClient {
    /// The client, and the HTTP client it holds (to shut down after use; `nil` for the mock).
    /// Prints where requests go, as a run does; never a key.
    static func make(
        _ experiment: Experiment, console: Console, mock: () -> any VisionModel
    ) throws -> (model: any VisionModel, httpClient: HTTPClient?) {
        switch experiment.provider {
        case .mock:
            return (mock(), nil)
        case .openai:
            let client = HTTPClients.make(maxConnections: experiment.concurrency)
            var model = OpenAIVisionModel(
                baseURL: experiment.baseURL, apiKey: experiment.apiKey, apiKeyVariable: experiment.apiKeyVariable,
                timeout: experiment.requestTimeout, httpClient: client)
            if !experiment.baseURLConfigured {
                // No --base-url, OPENAI_BASE_URL or base_url: say the URL is the default one.
                model.urlSource = "the default endpoint \(experiment.baseURL.absoluteString) (no --base-url, OPENAI_BASE_URL or base_url: is set)"
            }
            if experiment.apiKey == nil {
                console.err("note: no \(experiment.apiKeyVariable) set; sending requests to \(experiment.baseURL.absoluteString) without an Authorization header.\n")
            }
            return (model, client)
        case .proxy:
            guard let proxy = experiment.proxy else { preconditionFailure("Experiment.resolve gives a proxy run its settings") }
            let client = HTTPClients.make(maxConnections: experiment.concurrency)
            do {
                let session = try ProxySession.make(proxy, httpClient: client, timeout: experiment.requestTimeout)
                console.err(
                    "altbench: sending through the signed proxy \(proxy.url.absoluteString) (session tokens from \(proxy.protocolSettings.authPath), signed with the app key in \(proxy.appKeyVariable)).\n")
                return (OpenAIVisionModel(proxy: session, timeout: experiment.requestTimeout, httpClient: client), client)
            } catch {
                try? client.syncShutdown()
                throw error
            }
        case .azure:
            guard let azure = experiment.azure else { preconditionFailure("Experiment.resolve gives an Azure run its settings") }
            let client = HTTPClients.make(maxConnections: experiment.concurrency)
            console.err("altbench: sending to \(azure.summary).\n")
            return (OpenAIVisionModel(azure: azure, timeout: experiment.requestTimeout, httpClient: client), client)
        }
    }

    /// The Batch API client for a run with `--batch`: the OpenAI-compatible base with its key,
    /// or the Azure resource's v1 API (where each request's model names a Global-Batch
    /// deployment).
    static func batchClient(_ experiment: Experiment, httpClient: HTTPClient) throws -> BatchClient {
        switch experiment.provider {
        case .azure:
            guard let azure = experiment.azure else { preconditionFailure("Experiment.resolve gives an Azure run its settings") }
            guard azure.deployment == nil else {
                throw AltBenchError.invalidSetting(
                    name: "--batch",
                    message: "goes through Azure's v1 batch API, where each request's model names a Global-Batch deployment. Drop --azure-deployment and --azure-api-version (or azure.deployment and azure.api_version) and set --model to that deployment's name.")
            }
            return BatchClient(
                base: URL(string: azure.endpoint.absoluteString + "/openai/v1")!, authorization: .azure(azure.apiKey),
                timeout: .seconds(600), httpClient: httpClient)
        default:
            return BatchClient(
                base: experiment.baseURL, authorization: .bearer(experiment.apiKey), timeout: .seconds(600),
                httpClient: httpClient)
        }
    }
}
