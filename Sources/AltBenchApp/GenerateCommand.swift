import AltBenchCore
import AltBenchHTTP
import AltBenchOpenAI
import AltBenchReport
import AltBenchStore
import AsyncHTTPClient
import Foundation

/// `altbench datasets generate SPEC --out DIR`: makes a dataset's images from a spec, through
/// the Images API, a signed proxy (its images route or ShipThatApp's `/dalle`), or the offline
/// mock; writes `DIR/images/<id>.<ext>` and one `manifest.jsonl` line per image, marked
/// `"reviewed": false` until a person has looked at it.
package struct GenerateCommand: Sendable {
    /// Flags; `nil` means "not given".
    package struct Options: Sendable {
        package var spec: String
        package var out: String
        package var model: String?
        package var size: String?
        package var quality: String?
        package var provider: Provider?
        package var baseURL: String?
        package var proxy: String?
        /// `images` (the proxy's Images API route) or `dalle` (ShipThatApp's `/dalle`).
        package var proxyRoute: String = "images"
        package var results: String?
        package var noCache = false
        package var dryRun = false
        package var concurrency: Int?
        package var timeout: Double?
        package var maxRetries: Int?

        package init(spec: String, out: String) {
            self.spec = spec
            self.out = out
        }
    }

    package static let defaultConcurrency = 2
    /// Generation takes seconds to tens of seconds per image.
    package static let defaultTimeout: Double = 300

    package var options: Options
    package var configPath: String?
    package var environment: [String: String]
    package var console: Console
    package var workingDirectory: URL
    /// Wait between retries (tests shorten it).
    package var retryPolicy: RetryPolicy?

    package init(
        options: Options, configPath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        console: Console = .standard, workingDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        retryPolicy: RetryPolicy? = nil
    ) {
        self.options = options
        self.configPath = configPath
        self.environment = environment
        self.console = console
        self.workingDirectory = workingDirectory
        self.retryPolicy = retryPolicy
    }

    /// What a generation did, per image and in total.
    package struct Outcome: Sendable {
        package var exitCode: Int32
        package var generated: Int
        package var fromStore: Int
        package var failed: [String]
        /// Whether manifest.jsonl was rewritten.
        package var manifestWritten: Bool
    }

    /// One spec item's result.
    enum ItemResult: Sendable {
        case images([GeneratedImage], cached: Bool)
        case failed(ModelFailure)
        case notSent
    }

    package func run() async throws -> Outcome {
        let config = try ConfigFile.load(configPath: configPath, workingDirectory: workingDirectory)
        let spec = try GenerationSpec.load(from: URL.resolving(options.spec, against: workingDirectory), displayPath: options.spec)
        var overrides = GenerationSpec.Settings()
        overrides.model = options.model
        overrides.size = options.size
        overrides.quality = options.quality
        let plan = try spec.plan(overrides: overrides)
        let planned = plan.requests

        // The transport, chosen as `run` chooses it (flags, environment, altbench.yml).
        var runOptions = RunOptions()
        runOptions.provider = options.provider
        runOptions.baseURL = options.baseURL
        runOptions.proxy = options.proxy
        runOptions.results = options.results
        runOptions.timeout = options.timeout ?? (config.timeout == nil ? Self.defaultTimeout : nil)
        runOptions.maxRetries = options.maxRetries
        runOptions.concurrency = options.concurrency ?? (config.concurrency == nil ? Self.defaultConcurrency : nil)
        // Image generation through Azure OpenAI is not built: Azure's settings choose nothing here.
        if (options.provider ?? config.provider) == .azure {
            throw AltBenchError.invalidSetting(
                name: "provider azure", message: "datasets generate cannot send to Azure OpenAI yet. Pass --provider openai, proxy or mock.")
        }
        var generateConfig = config
        generateConfig.azure = nil
        let experiment = try Experiment.resolve(
            options: runOptions, config: generateConfig,
            environment: environment.filter { $0.key != AzureSettings.endpointVariable })
        guard ["images", "dalle"].contains(options.proxyRoute) else {
            throw AltBenchError.invalidSetting(name: "--proxy-route", message: "must be images or dalle (got '\(options.proxyRoute)').")
        }

        var httpClient: HTTPClient?
        defer { if let httpClient { Task { try? await httpClient.shutdown() } } }
        let client: ImageGenerationClient?
        let endpoint: String
        let timeout = experiment.requestTimeout
        switch experiment.provider {
        case .mock:
            client = nil
            endpoint = MockImageGenerator.endpoint
            console.err(
                "*** OFFLINE MOCK: no image model is called; each image is a placeholder of coloured shapes drawn from its prompt (\(experiment.providerReason)). The manifest marks them as mock. Set OPENAI_API_KEY, --base-url URL or --proxy URL to generate real images. ***\n")
        case .openai:
            let http = HTTPClients.make(maxConnections: experiment.concurrency)
            httpClient = http
            client = ImageGenerationClient(
                route: .direct(baseURL: experiment.baseURL, apiKey: experiment.apiKey, apiKeyVariable: experiment.apiKeyVariable),
                timeout: timeout, httpClient: http)
            endpoint = client!.endpoint
        case .azure:
            preconditionFailure("Azure is refused before the provider is chosen")
        case .proxy:
            guard let proxy = experiment.proxy else { preconditionFailure("a proxy run has its proxy settings") }
            let http = HTTPClients.make(maxConnections: experiment.concurrency)
            httpClient = http
            let session = try ProxySession.make(proxy, httpClient: http, timeout: timeout)
            client = ImageGenerationClient(
                route: options.proxyRoute == "dalle" ? .proxyDalle(session) : .proxyImages(session), timeout: timeout, httpClient: http)
            endpoint = client!.endpoint
        }

        for note in plan.notes { console.err("note: \(note)\n") }
        let outDirectory = URL.resolving(options.out, against: workingDirectory)
        let resultsDirectory = URL.resolving(experiment.resultsPath, against: workingDirectory)
        let storeURL = resultsDirectory.appendingPathComponent("altbench.sqlite")
        let store: ResultStore?
        if options.dryRun {
            store = FileManager.default.fileExists(atPath: storeURL.path) ? try ResultStore(url: storeURL) : nil
        } else {
            store = try ResultStore(url: storeURL)
        }
        let keys = planned.map { Self.cacheKey(endpoint: endpoint, request: $0.request) }

        if options.dryRun {
            for (index, (item, request)) in planned.enumerated() {
                let stored = (try? await store?.generations(forKey: keys[index])) ?? []
                let cached = !options.noCache && !stored.isEmpty
                let body = String(decoding: request.body, as: UTF8.self)
                console.out("\(TerminalText.line(item.id)): POST \(endpoint)\(cached ? " (stored: would send nothing)" : "")\n  \(TerminalText.line(body))\n")
            }
            console.err("--dry-run: \(planned.count) request\(planned.count == 1 ? "" : "s") shown; nothing was sent or written.\n")
            return Outcome(exitCode: 0, generated: 0, fromStore: 0, failed: [], manifestWritten: false)
        }
        guard let store else { preconditionFailure("the store is open unless this is a dry run") }

        console.err(
            "altbench: \(planned.count) item\(planned.count == 1 ? "" : "s") of \(options.spec) → \(options.out) via \(endpoint)\n")
        let policy = retryPolicy ?? RetryPolicy(maxRetries: experiment.maxRetries)
        let results = await generateAll(
            planned: planned, keys: keys, store: store, client: client, endpoint: endpoint, policy: policy,
            concurrency: experiment.concurrency)

        // Images and manifest lines, in spec order.
        try FileManager.default.createDirectory(at: outDirectory.appendingPathComponent("images"), withIntermediateDirectories: true)
        var entries: [GeneratedManifest.Entry] = []
        var generated = 0
        var fromStore = 0
        var failed: [String] = []
        var stop: ModelFailure?
        for (index, (item, request)) in planned.enumerated() {
            switch results[index] {
            case .images(let images, let cached):
                if cached { fromStore += images.count } else { generated += images.count }
                for (number, image) in images.enumerated() {
                    let id = images.count > 1 || request.n > 1 ? "\(item.id)-\(number + 1)" : item.id
                    let path = "images/\(id).\(Self.fileExtension(image.format))"
                    try Self.writeIfChanged(image.data, to: outDirectory.appendingPathComponent(path))
                    entries.append(
                        GeneratedManifest.Entry(
                            id: id, image: path, fields: item.fields,
                            generated: Self.provenance(request: request, image: image, endpoint: endpoint)))
                }
            case .failed(let failure):
                failed.append(item.id)
                console.err("\(item.id): failed: \(TerminalText.line(failure.message))\n")
                if failure.stopsRun, stop == nil { stop = failure }
            case .notSent:
                failed.append(item.id)
            }
        }
        let manifestURL = outDirectory.appendingPathComponent("manifest.jsonl")
        let existing = (try? String(contentsOf: manifestURL, encoding: .utf8)) ?? ""
        let merged = GeneratedManifest.merge(entries, into: existing)
        let manifestWritten = merged != existing && !entries.isEmpty
        if manifestWritten { try merged.write(to: manifestURL, atomically: true, encoding: .utf8) }

        let images = generated + fromStore
        console.err(
            "\(images) image\(images == 1 ? "" : "s") in \(options.out) (\(generated) generated, \(fromStore) from the store)\(failed.isEmpty ? "" : "; \(failed.count) item\(failed.count == 1 ? "" : "s") failed: \(failed.joined(separator: ", "))")\(manifestWritten ? "" : "; manifest.jsonl unchanged").\n")
        if images > 0 {
            console.err(
                "Review before trusting them: open each image, correct `references` and `expected_text` in \(options.out)/manifest.jsonl, and set \"reviewed\": true. `altbench datasets validate \(options.out)` lists the unreviewed ones.\n")
        }
        if let stop {
            console.err("error: generation stopped: \(TerminalText.line(stop.message))\n")
            return Outcome(exitCode: 1, generated: generated, fromStore: fromStore, failed: failed, manifestWritten: manifestWritten)
        }
        return Outcome(
            exitCode: failed.isEmpty ? 0 : Evaluation.partialFailureExitCode, generated: generated, fromStore: fromStore,
            failed: failed, manifestWritten: manifestWritten)
    }

    /// Every item, at most `concurrency` at once; a run-fatal failure (bad key, unknown model)
    /// stops the items not yet sent.
    func generateAll(
        planned: [(item: GenerationSpec.Item, request: ImageGenerationRequest)], keys: [String], store: ResultStore,
        client: ImageGenerationClient?, endpoint: String, policy: RetryPolicy, concurrency: Int
    ) async -> [ItemResult] {
        var results = [ItemResult](repeating: .notSent, count: planned.count)
        let stopped = StopFlag()
        await withTaskGroup(of: (Int, ItemResult).self) { group in
            var next = 0
            func add() {
                guard next < planned.count else { return }
                let index = next
                next += 1
                group.addTask {
                    if await stopped.isSet { return (index, .notSent) }
                    let result = await generate(
                        planned[index].request, key: keys[index], store: store, client: client, endpoint: endpoint, policy: policy)
                    if case .failed(let failure) = result, failure.stopsRun { await stopped.set() }
                    return (index, result)
                }
            }
            for _ in 0..<max(1, concurrency) { add() }
            while let (index, result) = await group.next() {
                results[index] = result
                switch result {
                case .images(let images, let cached):
                    console.err("\(planned[index].item.id): \(cached ? "from the store" : "generated") (\(images.count) image\(images.count == 1 ? "" : "s"))\n")
                default: break
                }
                add()
            }
        }
        return results
    }

    /// One item: from the store, or sent (with retries) and stored.
    func generate(
        _ request: ImageGenerationRequest, key: String, store: ResultStore, client: ImageGenerationClient?, endpoint: String,
        policy: RetryPolicy
    ) async -> ItemResult {
        if !options.noCache, let stored = try? await store.generations(forKey: key), !stored.isEmpty {
            return .images(
                stored.map { GeneratedImage(data: $0.image, format: $0.format, revisedPrompt: $0.revisedPrompt, created: $0.created) },
                cached: true)
        }
        var images: [GeneratedImage]
        if let client {
            var retry = 0
            while true {
                do {
                    images = try await client.generate(request)
                    break
                } catch let failure as ModelFailure {
                    // `retry` counts the retries made so far (0-based, as the runner counts).
                    guard !failure.stopsRun, let delay = policy.delay(afterFailure: failure, retry: retry) else {
                        return .failed(failure)
                    }
                    retry += 1
                    try? await Task.sleep(for: delay)
                } catch {
                    return .failed(ModelFailure(kind: .transport, message: "\(error)", retryable: false))
                }
            }
        } else {
            images = (0..<request.n).map { index in
                GeneratedImage(data: MockImageGenerator.image(for: request, index: index), format: .png, created: nil)
            }
        }
        do {
            try await store.storeGenerations(
                images.enumerated().map {
                    StoredGeneration(index: $0.offset, image: $0.element.data, format: $0.element.format, revisedPrompt: $0.element.revisedPrompt, created: $0.element.created)
                }, forKey: key, endpoint: endpoint, model: request.model, requestJSON: String(decoding: request.body, as: UTF8.self))
        } catch {
            return .failed(ModelFailure(kind: .malformed, message: "could not store the image: \(error)", retryable: false))
        }
        return .images(images, cached: false)
    }

    /// SHA-256 over the endpoint and the exact request body: the same spec item sent the same
    /// way is the same generation.
    package static func cacheKey(endpoint: String, request: ImageGenerationRequest) -> String {
        Hashing.sha256Hex("image-generation\n\(endpoint)\n" + String(decoding: request.body, as: UTF8.self))
    }

    static func fileExtension(_ format: ImageFormat) -> String {
        format == .jpeg ? "jpg" : format.rawValue
    }

    /// The manifest's `generated`: how the image was made.
    static func provenance(request: ImageGenerationRequest, image: GeneratedImage, endpoint: String) -> [String: JSONValue] {
        var object: [String: JSONValue] = [
            "model": .string(request.model), "prompt": .string(request.prompt), "size": .string(request.size),
            "quality": .string(request.quality), "endpoint": .string(endpoint),
        ]
        if let style = request.style { object["style"] = .string(style) }
        if let revised = image.revisedPrompt { object["revised_prompt"] = .string(revised) }
        if let created = image.created { object["created"] = .int(created) }
        if endpoint == MockImageGenerator.endpoint { object["mock"] = .bool(true) }
        return object
    }

    /// Writes `data` unless the file already holds exactly it (a second run rewrites nothing).
    static func writeIfChanged(_ data: Data, to url: URL) throws {
        if let current = try? Data(contentsOf: url), current == data { return }
        try data.write(to: url, options: .atomic)
    }
}

/// Set once, read by every task: a run-fatal failure stops the items not yet sent.
actor StopFlag {
    private(set) var isSet = false
    func set() { isSet = true }
}
