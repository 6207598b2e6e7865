import AltBenchCore
import Foundation
import Yams

/// One rule of a response script (`altbench-test-server --script FILE`): what requests it
/// matches, and what the server answers them with instead of its own deterministic answer.
///
/// Every condition of `match` must hold; a rule without conditions matches every request.
/// Rules answer API calls: chat completions and image generations (`answers(_:)` says which);
/// downloads of generated images (`GET /generated/…`) are never matched.
package struct ResponseRule: Sendable {
    /// The API calls rules can answer.
    package enum Endpoint: String, Sendable, CaseIterable {
        /// `POST /v1/chat/completions`
        case chat
        /// `POST /v1/images/generations`
        case images
    }

    /// Conditions on a valid chat-completion or image-generation request.
    package struct Match: Sendable {
        /// Only requests to this endpoint; nil: both (unless the reply fits only one, see
        /// `Reply.endpoint`).
        package var endpoint: Endpoint?
        /// A substring of the request's text, case-sensitive: for chat, every text of every
        /// message (system and user), joined with line breaks; for images, the `prompt`.
        package var prompt: String?
        /// A regular expression (ICU syntax) found somewhere in that text; `^` and `$` match
        /// at the start and end of each line, so `^Describe` finds a message starting so.
        package var promptRegex: PromptRegex?
        /// A substring of an image part's URL (an http(s) URL, or a data URL). Image
        /// generations send no image, so a rule with it never matches them.
        package var image: String?
        /// A prefix (8 to 64 lowercase hex digits) of the SHA-256 of a data-URL image's bytes:
        /// what `sha256sum IMAGE` prints, and the `image_sha256` altbench stores per item.
        package var imageSHA256: String?
        /// The request's `model`, exactly.
        package var model: String?
        /// The server's arrival number of the request (1-based, every request counted).
        package var requests: ClosedRange<Int>?

        package init(
            endpoint: Endpoint? = nil, prompt: String? = nil, promptRegex: PromptRegex? = nil, image: String? = nil,
            imageSHA256: String? = nil, model: String? = nil, requests: ClosedRange<Int>? = nil
        ) {
            self.endpoint = endpoint
            self.prompt = prompt
            self.promptRegex = promptRegex
            self.image = image
            self.imageSHA256 = imageSHA256
            self.model = model
            self.requests = requests
        }
    }

    /// What a matching request is answered with.
    package struct Reply: Sendable {
        /// The answer's text, in place of the default one; `{answer}` in it stands for the
        /// default answer. Still cut to the request's token limit, as the default is.
        package var answer: String?
        /// The choice's `finish_reason`, in place of `stop` (or `length` after a cut).
        package var finishReason: String?
        /// 200 (and other 2xx) answers; 4xx and 5xx send an OpenAI-style error body.
        package var status: Int
        /// The error body's fields; nil ones get the defaults for `status`.
        package var errorMessage: String?
        package var errorType: String?
        package var errorCode: String?
        package var errorParam: String?
        /// Header fields added to the answer, in order.
        package var headers: [(name: String, value: String)]
        /// Time to wait before answering.
        package var latency: Duration?
        /// Image generations only: answer the content-policy refusal of the model's family
        /// (`ScriptedResponse.contentPolicyRefusal`): DALL·E 400 `content_policy_violation`,
        /// GPT image models 400 `image_generation_user_error` / `moderation_blocked`.
        package var contentPolicy: Bool
        /// Answer as OpenAI does for a removed model (`ScriptedResponse.removedModel`): 404
        /// `model_not_found`, "The model `X` has been deprecated, …", naming the request's model.
        package var removedModel: Bool
        /// Image generations only: what each generated image's bytes are (default `.png`);
        /// `.html` serves an HTML page with status 200 at the image's `url` (or in `b64_json`).
        package var imageContent: GeneratedImageContent?
        /// Chat only: Azure's content filter stopped the completion (200, `finish_reason`
        /// `content_filter`, these categories flagged in the choice's `content_filter_results`;
        /// the content is `answer` when given, else null).
        package var contentFilter: [ContentFilterCategory]?
        /// Chat only: Azure's content filter refused the prompt (`ScriptedResponse.azurePromptFiltered`):
        /// 400 `content_filter` with these categories in `innererror.content_filter_result`.
        package var promptFilter: [ContentFilterCategory]?
        /// Chat only: `usage.prompt_tokens` in place of the server's own count, as a server
        /// that counts more than the published rules (one that enlarges images) answers.
        package var promptTokens: Int?

        package init(
            answer: String? = nil, finishReason: String? = nil, status: Int = 200, errorMessage: String? = nil,
            errorType: String? = nil, errorCode: String? = nil, errorParam: String? = nil,
            headers: [(name: String, value: String)] = [], latency: Duration? = nil,
            contentPolicy: Bool = false, removedModel: Bool = false, imageContent: GeneratedImageContent? = nil,
            contentFilter: [ContentFilterCategory]? = nil, promptFilter: [ContentFilterCategory]? = nil,
            promptTokens: Int? = nil
        ) {
            self.answer = answer
            self.finishReason = finishReason
            self.status = status
            self.errorMessage = errorMessage
            self.errorType = errorType
            self.errorCode = errorCode
            self.errorParam = errorParam
            self.headers = headers
            self.latency = latency
            self.contentPolicy = contentPolicy
            self.removedModel = removedModel
            self.imageContent = imageContent
            self.contentFilter = contentFilter
            self.promptFilter = promptFilter
            self.promptTokens = promptTokens
        }

        /// Whether the answer is an error body rather than a completion or images.
        package var isError: Bool { status >= 300 || contentPolicy || removedModel || promptFilter != nil }

        /// The only endpoint this reply can answer: `.chat` with `answer` or `finishReason`,
        /// `.images` with `contentPolicy` or `imageContent`; nil when it fits both.
        package var endpoint: Endpoint? {
            if answer != nil || finishReason != nil || contentFilter != nil || promptFilter != nil || promptTokens != nil {
                return .chat
            }
            if contentPolicy || imageContent != nil { return .images }
            return nil
        }
    }

    /// A name for messages; optional.
    package var name: String?
    package var match: Match
    /// The rule applies to at most this many requests, then is passed over.
    package var times: Int?
    package var reply: Reply
    /// The 1-based line of the rule in its file, when known.
    package var line: Int?

    package init(name: String? = nil, match: Match = Match(), times: Int? = nil, reply: Reply, line: Int? = nil) {
        self.name = name
        self.match = match
        self.times = times
        self.reply = reply
        self.line = line
    }

    /// Whether the rule can answer requests to `endpoint`: both `match.endpoint` and
    /// `reply.endpoint` allow it (nil allows either).
    package func answers(_ endpoint: Endpoint) -> Bool {
        (match.endpoint ?? endpoint) == endpoint && (reply.endpoint ?? endpoint) == endpoint
    }
}

/// A compiled regular expression, shareable between requests (NSRegularExpression is
/// immutable once made).
package final class PromptRegex: @unchecked Sendable {
    package let pattern: String
    let expression: NSRegularExpression

    package init(_ pattern: String) throws {
        self.pattern = pattern
        // `^` and `$` also match at line breaks: each message's text starts a line.
        self.expression = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
    }

    func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

/// A response script that cannot be used, named by file, line, rule and field.
package struct ResponseRulesError: Error, Sendable, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    /// The 1-based rule number.
    package var rule: Int?
    /// The field's path in the rule, e.g. `respond.status`.
    package var field: String?
    package var message: String

    package var description: String {
        var location = file
        if let line { location += ":\(line)" }
        var subject: [String] = []
        if let rule { subject.append("rule \(rule)") }
        if let field { subject.append("`\(field)`") }
        return "\(location): \(subject.isEmpty ? "" : subject.joined(separator: ", ") + ": ")\(message)"
    }
}

/// Answers requests by the first matching rule of a script, and the rest with the strict
/// compatible handler's deterministic answer. Requests the strict handler rejects (a bad
/// body, a wrong key, a wrong path) get its error whatever the rules say: rules match what
/// a valid request asks. Chat completions and image generations are both matched (see
/// `ResponseRule.answers(_:)`); downloads of generated images are served as by the strict
/// handler, from this script's own store.
///
/// ```swift
/// let rules = try ResponseRules.load(contentsOf: URL(fileURLWithPath: "first-person.yml"))
/// let server = try await OpenAITestServer.start(handler: ResponseRules(rules).handler)
/// ```
package actor ResponseRules {
    package nonisolated let rules: [ResponseRule]
    private nonisolated let options: CompatibleServerOptions
    private nonisolated let images = GeneratedImageStore()
    private var applied: [Int]

    package init(_ rules: [ResponseRule], options: CompatibleServerOptions = CompatibleServerOptions()) {
        self.rules = rules
        self.options = options
        self.applied = Array(repeating: 0, count: rules.count)
    }

    /// Requests each rule has answered so far, by rule index.
    package var appliedCounts: [Int] { applied }

    /// This script as a server handler.
    package nonisolated var handler: OpenAITestServer.Handler {
        { request in await self.respond(to: request) }
    }

    /// The answer to `request`: the first matching rule's, else the default one.
    ///
    /// Validating and matching happen outside the actor, so requests with large images are
    /// checked in parallel; only taking a rule (and counting it against `times`) is serial.
    package nonisolated func respond(to request: RecordedRequest) async -> ScriptedResponse {
        let compatible = CompatibleHandler(options: options, images: images)
        switch CompatibleHandler.Route(request) {
        case .download: return compatible.download(request)
        case .images: return await respondToImages(request, compatible: compatible)
        case .chat: break
        }
        let parsed: CompatibleHandler.Parsed
        switch compatible.validated(request) {
        case .failure(let error): return error.response.adding(headers: [CompatibleHandler.requestID(request)])
        case .success(let value): parsed = value
        }
        let facts = RequestFacts(parsed, number: request.number, hashImages: rules.contains { $0.match.imageSHA256 != nil })
        let matching = rules.indices.filter { rules[$0].answers(.chat) && facts.satisfies(rules[$0].match) }
        if let index = await take(matching) {
            return Self.reply(rules[index].reply, to: parsed, request: request, compatible: compatible)
        }
        return compatible.completion(for: parsed, number: request.number)
            .adding(headers: [CompatibleHandler.requestID(request)])
    }

    private nonisolated func respondToImages(_ request: RecordedRequest, compatible: CompatibleHandler) async -> ScriptedResponse {
        let parsed: ImageRequest
        switch compatible.validatedImages(request) {
        case .failure(let error): return error.response.adding(headers: [CompatibleHandler.requestID(request)])
        case .success(let value): parsed = value
        }
        let facts = RequestFacts(parsed, number: request.number)
        let matching = rules.indices.filter { rules[$0].answers(.images) && facts.satisfies(rules[$0].match) }
        guard let index = await take(matching) else {
            return compatible.imagesAnswer(for: parsed, request: request).adding(headers: [CompatibleHandler.requestID(request)])
        }
        let reply = rules[index].reply
        var response: ScriptedResponse
        if let error = Self.errorResponse(reply, model: parsed.model, request: request) {
            response = error
        } else {
            response = compatible.imagesAnswer(for: parsed, request: request, content: reply.imageContent ?? .png)
            response.status = reply.status
        }
        return Self.finish(response, reply: reply, request: request)
    }

    /// The first of `matching` (rule indexes, in order) not used up, counted as used once more.
    private func take(_ matching: [Int]) -> Int? {
        for index in matching {
            if let times = rules[index].times, applied[index] >= times { continue }
            applied[index] += 1
            return index
        }
        return nil
    }

    static func reply(
        _ reply: ResponseRule.Reply, to parsed: CompatibleHandler.Parsed, request: RecordedRequest,
        compatible: CompatibleHandler
    ) -> ScriptedResponse {
        var response: ScriptedResponse
        if let error = errorResponse(reply, model: parsed.model, request: request) {
            response = error
        } else {
            let content = reply.answer.map {
                $0.replacingOccurrences(of: "{answer}", with: compatible.defaultContent(for: parsed))
            }
            response = compatible.completion(
                for: parsed, number: request.number, content: content, finishReason: reply.finishReason,
                contentFilter: reply.contentFilter, promptTokens: reply.promptTokens)
            response.status = reply.status
        }
        return finish(response, reply: reply, request: request)
    }

    /// The error a reply answers with (a refusal, a removed model, or its status's error
    /// body); nil for a 2xx reply.
    static func errorResponse(_ reply: ResponseRule.Reply, model: String, request: RecordedRequest) -> ScriptedResponse? {
        if reply.contentPolicy {
            return .contentPolicyRefusal(model: model, requestID: CompatibleHandler.requestID(request).1)
        }
        if reply.removedModel { return .removedModel(model) }
        if let categories = reply.promptFilter { return .azurePromptFiltered(categories) }
        guard reply.isError else { return nil }
        if case let route? = AzureRoute(request), reply.errorType == nil {
            return azureError(reply, route: route)
        }
        let defaults = defaultError(status: reply.status, model: model)
        return .error(
            status: reply.status, message: reply.errorMessage ?? defaults.message, type: reply.errorType ?? defaults.type,
            code: reply.errorCode ?? defaults.code, param: reply.errorParam)
    }

    /// `response` with the request ID, the reply's headers and its latency.
    static func finish(_ response: ScriptedResponse, reply: ResponseRule.Reply, request: RecordedRequest) -> ScriptedResponse {
        var response = response.adding(headers: [CompatibleHandler.requestID(request), (ModelAnswer.scriptedHeader, "true")])
        response = response.adding(headers: reply.headers.map { ($0.name, $0.value) })
        response.delay = reply.latency
        return response
    }

    /// A scripted error on an Azure route, in Azure's shape (`code` and `message` only) and,
    /// unless the rule says otherwise, Azure's words: a 429 names the route's api-version and
    /// comes with `retry-after: 6`.
    static func azureError(_ reply: ResponseRule.Reply, route: AzureRoute) -> ScriptedResponse {
        let message: String
        var headers: [(String, String)] = []
        switch reply.status {
        case 401: message = AzureRoute.invalidKeyMessage
        case 404: message = reply.errorCode == "DeploymentNotFound" ? AzureRoute.deploymentNotFoundMessage : AzureRoute.resourceNotFoundMessage
        case 429:
            var version = AzureSettings.defaultAPIVersion
            if case .deployment(_, let given?) = route { version = given }
            message = AzureRoute.rateLimitMessage(apiVersion: version, seconds: 6)
            if !reply.headers.contains(where: { ["retry-after", "retry-after-ms"].contains($0.name.lowercased()) }) {
                headers = [("retry-after", "6")]
            }
        case 500: message = "The server had an error while processing your request. Sorry about that!"
        default: message = "HTTP \(reply.status) (scripted by altbench-test-server)."
        }
        return .azureError(status: reply.status, code: reply.errorCode, message: reply.errorMessage ?? message, headers: headers)
    }

    /// OpenAI's error for `status` when the script gives none: its message, type and code.
    static func defaultError(status: Int, model: String) -> (message: String, type: String, code: String?) {
        switch status {
        case 400: return ("Invalid request (scripted by altbench-test-server).", "invalid_request_error", nil)
        case 401:
            return ("Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
                "invalid_request_error", "invalid_api_key")
        case 403: return ("You are not allowed to sample from this model.", "invalid_request_error", nil)
        case 404:
            return ("The model `\(model)` does not exist or you do not have access to it.", "invalid_request_error",
                "model_not_found")
        case 429:
            return (ScriptedResponse.rateLimitMessage(
                model: model, resource: .requests, limit: 3, used: 3, requested: 1, wait: "20s"), "requests",
                "rate_limit_exceeded")
        case 500: return ("The server had an error while processing your request. Sorry about that!", "server_error", nil)
        case 503: return ("The engine is currently overloaded, please try again later.", "server_error", nil)
        default:
            return ("HTTP \(status) (scripted by altbench-test-server).",
                status >= 500 ? "server_error" : "invalid_request_error", nil)
        }
    }
}

/// What rules can match in one valid request.
private struct RequestFacts {
    let prompt: String
    let imageURLs: [String]
    /// The SHA-256 of each data-URL image's bytes, when a rule asks for one.
    let imageDigests: [String]
    let model: String
    let number: Int

    init(_ parsed: CompatibleHandler.Parsed, number: Int, hashImages: Bool) {
        prompt = parsed.texts.joined(separator: "\n")
        imageURLs = parsed.images.map(\.url)
        imageDigests = hashImages ? imageURLs.compactMap(Self.sha256(ofDataURL:)) : []
        model = parsed.model
        self.number = number
    }

    /// An image generation: its prompt and model; it sends no image.
    init(_ parsed: ImageRequest, number: Int) {
        prompt = parsed.prompt
        imageURLs = []
        imageDigests = []
        model = parsed.model
        self.number = number
    }

    func satisfies(_ match: ResponseRule.Match) -> Bool {
        if let requests = match.requests, !requests.contains(number) { return false }
        if let model = match.model, model != self.model { return false }
        if let prompt = match.prompt, !self.prompt.contains(prompt) { return false }
        if let regex = match.promptRegex, !regex.matches(prompt) { return false }
        if let image = match.image, !imageURLs.contains(where: { $0.contains(image) }) { return false }
        if let digest = match.imageSHA256, !imageDigests.contains(where: { $0.hasPrefix(digest) }) { return false }
        return true
    }

    /// The hex SHA-256 of a base64 data URL's bytes; nil for other URLs.
    static func sha256(ofDataURL url: String) -> String? {
        guard url.hasPrefix("data:"), let comma = url.firstIndex(of: ","),
            let data = Data(base64Encoded: String(url[url.index(after: comma)...]))
        else { return nil }
        return Hashing.sha256Hex(data)
    }
}

// MARK: - Loading

extension ResponseRules {
    /// The two spellings of a script.
    package enum FileFormat: String, Sendable {
        case json, yaml

        /// By extension (`.json`, `.yml`, `.yaml`), else by content: JSON starts with `{` or `[`.
        static func of(path: String, text: String) -> FileFormat {
            switch (path as NSString).pathExtension.lowercased() {
            case "json": return .json
            case "yml", "yaml": return .yaml
            default:
                let first = text.unicodeScalars.first { !CharacterSet.whitespacesAndNewlines.contains($0) }
                return first == "{" || first == "[" ? .json : .yaml
            }
        }
    }

    /// Reads a script file; every problem is a `ResponseRulesError` naming `displayPath`.
    package static func load(contentsOf url: URL, displayPath: String? = nil) throws -> [ResponseRule] {
        let shown = displayPath ?? url.path
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ResponseRulesError(file: shown, message: "cannot read the script: \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ResponseRulesError(file: shown, message: "the script is not UTF-8 text. Save it as UTF-8.")
        }
        return try parse(text, displayPath: shown)
    }

    /// Parses a script's text; `format` nil picks it by `displayPath`'s extension or the text.
    package static func parse(_ text: String, displayPath: String, format: FileFormat? = nil) throws -> [ResponseRule] {
        let format = format ?? FileFormat.of(path: displayPath, text: text)
        if format == .json {
            // Strict JSON first, so that a file other JSON tools reject is not accepted here.
            do {
                _ = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            } catch {
                let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
                throw ResponseRulesError(file: displayPath, message: "not valid JSON (\(reason)).")
            }
        }
        // JSON is YAML too: one reader gives both formats their line numbers.
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ResponseRulesError(
                file: displayPath, line: YAMLDiagnostics.line(of: error),
                message: "not valid \(format == .json ? "JSON" : "YAML") (\(YAMLDiagnostics.summary(of: error))).")
        }
        return try ScriptReader(file: displayPath).rules(root)
    }
}

/// Turns the composed document into rules, checking every field.
private struct ScriptReader {
    let file: String

    static let topKeys = ["rules"]
    static let ruleKeys = ["name", "match", "times", "respond"]
    static let matchKeys = ["prompt", "prompt_regex", "image", "image_sha256", "model", "requests", "endpoint"]
    static let respondKeys = [
        "answer", "finish_reason", "status", "error", "headers", "latency_ms", "content_policy", "removed_model",
        "image_content", "content_filter", "prompt_filter", "prompt_tokens",
    ]
    static let errorKeys = ["message", "type", "code", "param"]
    static let finishReasons = ["stop", "length", "content_filter", "tool_calls", "function_call"]

    struct Context {
        var rule: Int?
        var field: String?
    }

    func fail(_ node: Node?, _ context: Context, _ message: String) -> ResponseRulesError {
        ResponseRulesError(file: file, line: node?.mark?.line, rule: context.rule, field: context.field, message: message)
    }

    func rules(_ root: Node?) throws -> [ResponseRule] {
        let example = "Write `rules:` followed by a list of rules, each with `match:` and `respond:`."
        guard let root, let top = root.mapping else {
            throw fail(root, Context(), "the script must be a mapping with a `rules` list. \(example)")
        }
        try checkKeys(top, allowed: Self.topKeys, context: Context(), path: nil)
        guard let list = top["rules"] else { throw fail(root, Context(), "no `rules` list. \(example)") }
        guard let sequence = list.sequence else {
            throw fail(list, Context(field: "rules"), "must be a list of rules. \(example)")
        }
        guard !sequence.isEmpty else { throw fail(list, Context(field: "rules"), "is empty: add at least one rule.") }
        return try sequence.enumerated().map { index, node in try rule(node, number: index + 1) }
    }

    func rule(_ node: Node, number: Int) throws -> ResponseRule {
        let context = Context(rule: number)
        guard let mapping = node.mapping else {
            throw fail(node, context, "a rule must be a mapping with `match:` and `respond:`.")
        }
        try checkKeys(mapping, allowed: Self.ruleKeys, context: context, path: nil)
        var rule = ResponseRule(reply: ResponseRule.Reply(), line: node.mark?.line)
        if let name = mapping["name"] { rule.name = try string(name, Context(rule: number, field: "name")) }
        if let times = mapping["times"] {
            rule.times = try integer(times, Context(rule: number, field: "times"), in: 1...Int.max, example: "3")
        }
        if let match = mapping["match"] { rule.match = try self.match(match, rule: number) }
        guard let respond = mapping["respond"] else {
            throw fail(node, context, "has no `respond:`: say what to answer (\(Self.respondKeys.joined(separator: ", "))).")
        }
        rule.reply = try reply(respond, rule: number)
        if let wanted = rule.match.endpoint, let fits = rule.reply.endpoint, wanted != fits {
            let chatKey = ["answer", "finish_reason", "content_filter", "prompt_filter", "prompt_tokens"].first { respond.mapping?[$0] != nil }
            let key = fits == .chat ? (chatKey ?? "answer")
                : (rule.reply.contentPolicy ? "content_policy" : "image_content")
            throw fail(
                respond.mapping?[key], Context(rule: number, field: "respond.\(key)"),
                "answers only \(fits.rawValue) requests, but `match.endpoint` is \(wanted.rawValue).")
        }
        return rule
    }

    func match(_ node: Node, rule: Int) throws -> ResponseRule.Match {
        var match = ResponseRule.Match()
        if node.scalar.map({ $0.string.isEmpty || $0.string == "null" || $0.string == "~" }) == true { return match }
        guard let mapping = node.mapping else {
            throw fail(node, Context(rule: rule, field: "match"), "must be a mapping of conditions (\(Self.matchKeys.joined(separator: ", "))).")
        }
        try checkKeys(mapping, allowed: Self.matchKeys, context: Context(rule: rule), path: "match")
        func context(_ key: String) -> Context { Context(rule: rule, field: "match.\(key)") }
        if let value = mapping["endpoint"] {
            let text = try nonEmptyString(value, context("endpoint"))
            guard let endpoint = ResponseRule.Endpoint(rawValue: text) else {
                throw fail(value, context("endpoint"), "must be `chat` (chat completions) or `images` (image generations), not '\(text)'.")
            }
            match.endpoint = endpoint
        }
        if let value = mapping["prompt"] { match.prompt = try nonEmptyString(value, context("prompt")) }
        if let value = mapping["prompt_regex"] {
            let pattern = try nonEmptyString(value, context("prompt_regex"))
            do {
                match.promptRegex = try PromptRegex(pattern)
            } catch {
                throw fail(value, context("prompt_regex"), "'\(pattern)' is not a valid regular expression (ICU syntax).")
            }
        }
        if let value = mapping["image"] { match.image = try nonEmptyString(value, context("image")) }
        if let value = mapping["image_sha256"] {
            let digest = try nonEmptyString(value, context("image_sha256")).lowercased()
            guard (8...64).contains(digest.count), digest.allSatisfy({ $0.isHexDigit }) else {
                throw fail(
                    value, context("image_sha256"),
                    "must be 8 to 64 hex digits of the image file's SHA-256 (what `sha256sum IMAGE` prints), not '\(digest)'.")
            }
            match.imageSHA256 = digest
        }
        if let value = mapping["model"] { match.model = try nonEmptyString(value, context("model")) }
        if let value = mapping["requests"] { match.requests = try requests(value, context("requests")) }
        return match
    }

    /// `3`, `"3"`, `"2-5"` or `"10-"` (from the 10th on).
    func requests(_ node: Node, _ context: Context) throws -> ClosedRange<Int> {
        let problem = "takes a request number or range: 3, \"2-5\" or \"10-\" (from the 10th on), counting from 1"
        guard let text = node.scalar?.string.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            throw fail(node, context, "\(problem).")
        }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let low = Int(parts[0]), low >= 1 else { throw fail(node, context, "\(problem), not '\(text)'.") }
        if parts.count == 1 { return low...low }
        if parts[1].isEmpty { return low...Int.max }
        guard let high = Int(parts[1]), high >= low else { throw fail(node, context, "\(problem), not '\(text)'.") }
        return low...high
    }

    func reply(_ node: Node, rule: Int) throws -> ResponseRule.Reply {
        guard let mapping = node.mapping, !mapping.isEmpty else {
            throw fail(
                node, Context(rule: rule, field: "respond"),
                "must be a mapping with at least one of \(Self.respondKeys.joined(separator: ", ")).")
        }
        try checkKeys(mapping, allowed: Self.respondKeys, context: Context(rule: rule), path: "respond")
        func context(_ key: String) -> Context { Context(rule: rule, field: "respond.\(key)") }
        var reply = ResponseRule.Reply()
        if let value = mapping["status"] {
            let status = try integer(value, context("status"), in: 200...599, example: "429")
            guard (200...299).contains(status) || status >= 400 else {
                throw fail(value, context("status"), "must be 2xx (an answer) or 4xx/5xx (an error), not \(status).")
            }
            reply.status = status
        }
        if let value = mapping["answer"] {
            guard let scalar = value.scalar else { throw fail(value, context("answer"), "must be text.") }
            reply.answer = scalar.string
        }
        if let value = mapping["prompt_tokens"] {
            reply.promptTokens = try integer(value, context("prompt_tokens"), in: 0...100_000_000, example: "120000")
        }
        if let value = mapping["finish_reason"] {
            let reason = try nonEmptyString(value, context("finish_reason"))
            guard Self.finishReasons.contains(reason) else {
                throw fail(value, context("finish_reason"), "must be one of \(Self.finishReasons.joined(separator: ", ")), not '\(reason)'.")
            }
            reply.finishReason = reason
        }
        if let value = mapping["error"] {
            guard let fields = value.mapping else {
                throw fail(value, context("error"), "must be a mapping of \(Self.errorKeys.joined(separator: ", ")).")
            }
            try checkKeys(fields, allowed: Self.errorKeys, context: Context(rule: rule), path: "respond.error")
            func errorContext(_ key: String) -> Context { Context(rule: rule, field: "respond.error.\(key)") }
            if let field = fields["message"] { reply.errorMessage = try nonEmptyString(field, errorContext("message")) }
            if let field = fields["type"] { reply.errorType = try nonEmptyString(field, errorContext("type")) }
            if let field = fields["code"] { reply.errorCode = try nonEmptyString(field, errorContext("code")) }
            if let field = fields["param"] { reply.errorParam = try nonEmptyString(field, errorContext("param")) }
            guard mapping["status"] != nil else {
                throw fail(value, context("error"), "needs a `status` of 400 or more beside it, e.g. `status: 429`.")
            }
        }
        if reply.isError {
            for key in ["answer", "finish_reason", "prompt_tokens"] where mapping[key] != nil {
                throw fail(
                    mapping[key], context(key),
                    "cannot go with status \(reply.status), which answers with an error body. Remove it, or use a 2xx status.")
            }
        }
        if let value = mapping["headers"] {
            guard let fields = value.mapping else {
                throw fail(value, context("headers"), "must be a mapping of header names to values, e.g. `retry-after-ms: 500`.")
            }
            for (nameNode, valueNode) in fields {
                let name = nameNode.string ?? ""
                let headerContext = Context(rule: rule, field: "respond.headers.\(name)")
                let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
                guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && token.contains($0) }) else {
                    throw fail(nameNode, headerContext, "'\(name)' is not a valid header name.")
                }
                guard ["content-length", "content-type", "transfer-encoding"].contains(name.lowercased()) == false else {
                    throw fail(nameNode, headerContext, "is set by the server itself; remove it.")
                }
                guard let text = valueNode.scalar?.string,
                    !text.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
                else {
                    throw fail(valueNode, headerContext, "must be one line of text or a number.")
                }
                reply.headers.append((name: name, value: text))
            }
        }
        if let value = mapping["content_policy"] {
            reply.contentPolicy = try boolean(value, context("content_policy"))
        }
        if let value = mapping["removed_model"] {
            reply.removedModel = try boolean(value, context("removed_model"))
        }
        if let value = mapping["content_filter"] {
            reply.contentFilter = try filterCategories(value, context("content_filter"))
        }
        if let value = mapping["prompt_filter"] {
            reply.promptFilter = try filterCategories(value, context("prompt_filter"))
        }
        try checkFilters(reply, mapping: mapping, context: context)
        if let value = mapping["image_content"] {
            let text = try nonEmptyString(value, context("image_content"))
            guard let content = GeneratedImageContent(rawValue: text) else {
                let known = GeneratedImageContent.allCases.map(\.rawValue).joined(separator: " or ")
                throw fail(value, context("image_content"), "must be \(known), not '\(text)'.")
            }
            reply.imageContent = content
        }
        // A refusal or a removed model is a whole answer of its own.
        let whole = [("content_policy", reply.contentPolicy, 400), ("removed_model", reply.removedModel, 404)].filter { $0.1 }
        if whole.count == 2 {
            throw fail(mapping["removed_model"], context("removed_model"), "cannot go with `content_policy`: choose one answer.")
        }
        if let (key, _, status) = whole.first {
            if let statusNode = mapping["status"], reply.status != status {
                throw fail(statusNode, context("status"), "cannot be \(reply.status) beside `\(key)`, which answers \(status); remove it.")
            }
            reply.status = status
            for other in ["answer", "finish_reason", "error", "image_content"] where mapping[other] != nil {
                throw fail(mapping[other], context(other), "cannot go with `\(key)`, which is a whole answer of its own. Remove one.")
            }
        }
        if reply.status >= 300, let value = mapping["image_content"] {
            throw fail(value, context("image_content"), "cannot go with status \(reply.status), which answers with an error body. Remove it, or use a 2xx status.")
        }
        if let value = mapping["latency_ms"] {
            guard let milliseconds = value.scalar.flatMap({ Double($0.string) }), milliseconds >= 0,
                milliseconds <= 3_600_000
            else {
                throw fail(value, context("latency_ms"), "takes milliseconds from 0 to 3600000, e.g. `latency_ms: 2500`.")
            }
            reply.latency = .milliseconds(milliseconds)
        }
        return reply
    }

    /// Azure's filters are whole answers of their own: `prompt_filter` is a 400 that takes
    /// nothing but headers and latency; `content_filter` sets the finish reason and status
    /// itself, and may keep a partial `answer`.
    func checkFilters(_ reply: ResponseRule.Reply, mapping: Node.Mapping, context: (String) -> Context) throws {
        let others = ["content_policy", "removed_model", "image_content"]
        if reply.promptFilter != nil {
            for other in ["answer", "finish_reason", "status", "error", "content_filter"] + others where mapping[other] != nil {
                throw fail(
                    mapping[other], context(other),
                    "cannot go with `prompt_filter`, which is a whole answer of its own (400 content_filter). Remove one.")
            }
        }
        if reply.contentFilter != nil {
            for other in ["finish_reason", "error"] + others where mapping[other] != nil {
                throw fail(
                    mapping[other], context(other),
                    "cannot go with `content_filter`, which answers with finish_reason content_filter. Remove one.")
            }
            if reply.status >= 300, let status = mapping["status"] {
                throw fail(status, context("status"), "cannot be \(reply.status) beside `content_filter`, which is a 200 answer; remove it.")
            }
        }
    }

    /// `{violence: medium, jailbreak: detected}`, a list of names, or one name: the categories
    /// Azure's filter flags. Severity categories take low, medium or high (default medium);
    /// detection categories take `detected` (or true).
    func filterCategories(_ node: Node, _ context: Context) throws -> [ContentFilterCategory] {
        let severity = ContentFilterCategory.severityCategories
        let detection = ContentFilterCategory.detectionCategories
        let example = "e.g. `{violence: medium}` or `[jailbreak]`"
        func category(_ nameNode: Node, level levelNode: Node?) throws -> ContentFilterCategory {
            let name = try nonEmptyString(nameNode, context)
            guard severity.contains(name) || detection.contains(name) else {
                throw fail(nameNode, context, "'\(name)' is not a content-filter category. Categories: \((severity + detection).joined(separator: ", ")).")
            }
            guard let levelNode else { return ContentFilterCategory(name) }
            let level = try nonEmptyString(levelNode, context).lowercased()
            if severity.contains(name) {
                guard ContentFilterCategory.severities.contains(level) else {
                    throw fail(levelNode, context, "`\(name)` takes a severity of low, medium or high, not '\(level)'.")
                }
                return ContentFilterCategory(name, level)
            }
            guard level == "detected" || level == "true" else {
                throw fail(levelNode, context, "`\(name)` is detected or not: write `\(name): detected`, not '\(level)'.")
            }
            return ContentFilterCategory(name, "detected")
        }
        var categories: [ContentFilterCategory] = []
        if let entries = node.mapping {
            for (name, level) in entries { categories.append(try category(name, level: level)) }
        } else if let list = node.sequence {
            for name in list { categories.append(try category(name, level: nil)) }
        } else if node.scalar != nil {
            categories.append(try category(node, level: nil))
        }
        guard !categories.isEmpty else { throw fail(node, context, "names no category: \(example).") }
        return categories
    }

    // MARK: Values

    func checkKeys(_ mapping: Node.Mapping, allowed: [String], context: Context, path: String?) throws {
        for (keyNode, _) in mapping {
            let key = keyNode.string ?? ""
            guard !allowed.contains(key) else { continue }
            var errorContext = context
            errorContext.field = path.map { "\($0).\(key)" } ?? key
            let known = allowed.map { "`\($0)`" }.joined(separator: ", ")
            throw fail(keyNode, errorContext, "is not a known key here. Known keys: \(known).")
        }
    }

    func boolean(_ node: Node, _ context: Context) throws -> Bool {
        switch node.scalar?.string.lowercased() {
        case "true": return true
        case "false": return false
        default: throw fail(node, context, "must be true or false.")
        }
    }

    func string(_ node: Node, _ context: Context) throws -> String {
        guard let scalar = node.scalar else { throw fail(node, context, "must be text.") }
        return scalar.string
    }

    func nonEmptyString(_ node: Node, _ context: Context) throws -> String {
        let text = try string(node, context)
        guard !text.isEmpty else { throw fail(node, context, "must not be empty.") }
        return text
    }

    func integer(_ node: Node, _ context: Context, in range: ClosedRange<Int>, example: String) throws -> Int {
        guard let text = node.scalar?.string, let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw fail(node, context, "must be a whole number, e.g. \(example).")
        }
        guard range.contains(value) else {
            let bounds = range.upperBound == Int.max ? "at least \(range.lowerBound)" : "between \(range.lowerBound) and \(range.upperBound)"
            throw fail(node, context, "must be \(bounds) (got \(value)).")
        }
        return value
    }
}
