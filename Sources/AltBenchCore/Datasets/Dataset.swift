import Foundation

/// Where an item's image comes from.
public enum ImageSource: Sendable, Hashable, Codable {
    /// A local file: `path` as written in the manifest (or the file name in a bare folder),
    /// `url` resolved against the dataset folder.
    case file(path: String, url: URL)
    /// An http(s) URL, sent to the model as is, the way Ice Cubes sends the Mastodon media URL.
    case remote(URL)

    /// The image as a person would name it: the path or the URL.
    public var reference: String {
        switch self {
        case .file(_, let url): return url.path
        case .remote(let url): return url.absoluteString
        }
    }
}

/// A local image's facts, read once when the dataset loads.
public struct ImageInfo: Sendable, Hashable, Codable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    public var byteCount: Int
    /// SHA-256 of the file's bytes: what the cache key and the store use instead of the image.
    public var sha256: String

    public init(format: ImageFormat, width: Int, height: Int, byteCount: Int, sha256: String) {
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
        self.sha256 = sha256
    }
}

/// One image to describe, with what the dataset knows about it.
public struct DatasetItem: Sendable, Hashable {
    public var id: String
    public var image: ImageSource
    /// Set for local images that could be read; `nil` for remote images and bad files.
    public var imageInfo: ImageInfo?
    /// Why this item's image cannot be sent; its trials fail without a request.
    public var problem: ImageProblem?
    /// Human-written alt texts.
    public var references: [String]
    /// The post text the image belongs to.
    public var context: String?
    public var lang: String?
    /// Text visible in the image.
    public var expectedText: String?
    public var mustMention: [String]
    public var tags: [String]
    public var decorative: Bool
    /// The manifest line the item came from (1-based), `nil` for a bare folder.
    public var line: Int?
    /// How the image was made, when `altbench datasets generate` made it (`generated`:
    /// model, prompt, revised prompt, size, quality, style, created, endpoint).
    public var generated: JSONValue? = nil
    /// Whether a person has looked at a generated image and corrected its fields
    /// (`reviewed`); `nil` when the line does not say.
    public var reviewed: Bool? = nil

    /// A placeholder the mock generator drew (`generated.mock: true`, or the mock endpoint):
    /// never evaluation data, reviewed or not.
    public var isMockPlaceholder: Bool {
        guard let generated else { return false }
        return generated["mock"]?.boolValue == true || generated["endpoint"]?.stringValue == MockImageGenerator.endpoint
    }

    /// A generated image nobody has marked as reviewed: a draft, not ground truth.
    public var isUnreviewedGeneration: Bool { generated != nil && reviewed != true }

    public init(
        id: String, image: ImageSource, imageInfo: ImageInfo? = nil, problem: ImageProblem? = nil,
        references: [String] = [], context: String? = nil, lang: String? = nil,
        expectedText: String? = nil, mustMention: [String] = [], tags: [String] = [],
        decorative: Bool = false, line: Int? = nil
    ) {
        self.id = id
        self.image = image
        self.imageInfo = imageInfo
        self.problem = problem
        self.references = references
        self.context = context
        self.lang = lang
        self.expectedText = expectedText
        self.mustMention = mustMention
        self.tags = tags
        self.decorative = decorative
        self.line = line
    }

    /// What stands in for the image in the cache key: the bytes' hash, or the remote URL.
    public var imageIdentity: String? {
        switch image {
        case .remote(let url): return url.absoluteString
        case .file: return imageInfo.map { "sha256:\($0.sha256)" }
        }
    }
}

/// A loaded dataset: a folder with `manifest.jsonl`, or a bare folder of images.
public struct Dataset: Sendable, Hashable {
    public var name: String
    /// The folder as the user gave it.
    public var path: String
    public var root: URL
    public var items: [DatasetItem]
    /// Non-fatal remarks made while loading (skipped files, unknown manifest keys).
    public var notes: [String]

    public init(name: String, path: String, root: URL, items: [DatasetItem], notes: [String] = []) {
        self.name = name
        self.path = path
        self.root = root
        self.items = items
        self.notes = notes
    }
}
