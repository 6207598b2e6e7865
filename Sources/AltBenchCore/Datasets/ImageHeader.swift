import Foundation

/// The image formats OpenAI-compatible vision models accept.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case png, jpeg, webp, gif

    /// The MIME type used in a data URL.
    public var mimeType: String { "image/\(rawValue)" }
}

/// What the first bytes of an image file say: its format and pixel size.
public struct ImageHeader: Sendable, Hashable, Codable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int

    public init(format: ImageFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}

/// Why an image cannot be sent. Each message says what is wrong and what to do.
public enum ImageProblem: Error, Sendable, Hashable {
    /// The file does not exist.
    case missing(path: String)
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// The file is larger than the limit the API accepts.
    case tooLarge(path: String, bytes: Int, limit: Int)
    /// A real image in a format the API does not take (BMP, TIFF, HEIC, AVIF, SVG, ...).
    case unsupportedFormat(path: String, format: String)
    /// The bytes are not an image at all (text, PDF, an empty file, ...).
    case notAnImage(path: String)
    /// A known format whose header is cut short or damaged.
    case corruptHeader(path: String, format: ImageFormat)
    /// A GIF with more than one frame: OpenAI takes only still GIFs.
    case animatedGIF(path: String)
}

extension ImageFormat {
    /// The name people know the format by, for messages.
    public var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .webp: "WEBP"
        case .gif: "GIF"
        }
    }
}

extension ImageProblem: CustomStringConvertible {
    /// The file the problem is about, as the dataset names it.
    public var path: String {
        switch self {
        case .missing(let path), .unreadable(let path, _), .tooLarge(let path, _, _),
             .unsupportedFormat(let path, _), .notAnImage(let path), .corruptHeader(let path, _), .animatedGIF(let path):
            path
        }
    }

    /// One sentence for the user that names the file, says what is wrong and what to do.
    public var message: String {
        switch self {
        case .missing(let path):
            return "\(path) does not exist: fix the path in manifest.jsonl or add the file."
        case .unreadable(let path, let reason):
            // System reasons are whole sentences; their closing period would sit oddly inside ours.
            let reason = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
            return "\(path) could not be read (\(reason)): check that the file is readable."
        case .tooLarge(let path, let bytes, let limit):
            let (size, cap) = Self.sizes(bytes: bytes, limit: limit)
            return "\(path) is \(size), over the \(cap) limit for one image: resize or recompress it."
        case .unsupportedFormat(let path, let format):
            return "\(path) is \(Self.article(for: format)) \(format) image, which vision APIs do not accept: convert it to PNG or JPEG."
        case .notAnImage(let path):
            return "\(path) is not an image (its first bytes match no image format): replace it with a PNG, JPEG, WEBP or GIF file."
        case .animatedGIF(let path):
            return "\(path) is an animated GIF, which vision APIs do not accept: export one frame as PNG or a still GIF."
        case .corruptHeader(let path, let format):
            return "\(path) starts like a \(format.displayName) file but its header is cut short or damaged: export it again from the original."
        }
    }

    /// The same sentence as `message`, so the problem reads well wherever it is interpolated.
    public var description: String { message }

    /// MB here means 2^20 bytes, the unit of altbench's default 20 MB image limit.
    private static let mebibyte = 1_048_576

    /// Sizes in MB to one decimal; exact byte counts when rounding would hide that the file is over.
    private static func sizes(bytes: Int, limit: Int) -> (size: String, limit: String) {
        if tenths(bytes) <= tenths(limit) {
            return ("\(bytes) bytes", "\(limit)-byte")
        }
        let cap = limit % mebibyte == 0 ? "\(limit / mebibyte) MB" : megabytes(limit)
        return (megabytes(bytes), cap)
    }

    private static func tenths(_ bytes: Int) -> Int {
        (bytes * 10 + mebibyte / 2) / mebibyte
    }

    private static func megabytes(_ bytes: Int) -> String {
        let t = tenths(bytes)
        return "\(t / 10).\(t % 10) MB"
    }

    /// "an SVG", "an AVIF" but "a BMP": acronyms are read by their letters or as words.
    private static func article(for name: String) -> String {
        guard let first = name.uppercased().first else { return "a" }
        return "AEIOS".contains(first) ? "an" : "a"
    }
}
