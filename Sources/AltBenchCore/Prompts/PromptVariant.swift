import Foundation

/// The image detail level a prompt asks for (`image_url.detail`).
public enum ImageDetail: String, Sendable, Hashable, Codable, CaseIterable {
    case low, high, auto
}

/// One prompt to evaluate, loaded from `prompts/NAME.md`.
///
/// Every optional field is `nil` when the file does not set it, and then nothing is sent for
/// it: the request carries exactly what the prompt file says (plus the run's overrides).
public struct PromptVariant: Sendable, Hashable, Codable {
    /// The variant's name in reports: front matter `name`, else the file name without `.md`.
    public var name: String
    /// The file it came from, as given (relative to the working directory when it was).
    public var file: String
    /// The prompt text, byte for byte as in the file, without the file's final newline. It may
    /// be a template (`PromptTemplate`); the planner fills it in for each item.
    public var text: String
    public var model: String?
    /// The prompt's own token limits; the run's list, when set, replaces them.
    public var maxTokens: [Int]?
    public var detail: ImageDetail?
    public var temperature: Double?
    /// A system message sent before the user message; a template like `text`.
    public var system: String?
    /// What the variant is for: the hypothesis it tests. Shown in reports, never sent.
    public var description: String?
    /// SHA-256 of the whole file, so a report can tell two edits of one prompt apart.
    public var fileHash: String

    public init(
        name: String, file: String, text: String, model: String? = nil, maxTokens: [Int]? = nil,
        detail: ImageDetail? = nil, temperature: Double? = nil, system: String? = nil,
        description: String? = nil, fileHash: String = ""
    ) {
        self.name = name
        self.file = file
        self.text = text
        self.model = model
        self.maxTokens = maxTokens
        self.detail = detail
        self.temperature = temperature
        self.system = system
        self.description = description
        self.fileHash = fileHash
    }
}
