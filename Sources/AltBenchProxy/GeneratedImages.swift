import AltBenchCore
import Foundation

/// The images the proxy keeps for `/dalle` answers whose upstream sent the image itself
/// (`b64_json`) rather than a URL: ShipThatApp's app expects a URL it can load, so the proxy
/// keeps the bytes and answers a URL of its own, `{public base}/generated/<name>`.
///
/// This is a cache of deliverables, not a security cache: forgetting an image early only
/// means its URL answers 404 sooner (as an expired OpenAI URL would), so when the store is
/// full the oldest images are evicted to make room. The rules:
///
/// - **Name**: the lowercase hex SHA-256 of the bytes, a dot, and the extension of the format
///   the bytes are (`png`, `jpg`, `webp`). The name is unguessable to anyone who has not seen
///   the bytes, which is why `GET {generatedPath}/<name>` needs no signature (like OpenAI's
///   expiring image URLs). The same bytes kept twice are one image, kept afresh.
/// - **Life**: ``lifetime`` (60 minutes, like OpenAI's URLs) from when it was kept, on the
///   proxy's clock; at or after that instant it is gone.
/// - **Bound**: at most `capacity` bytes of images in all. Expired images are dropped first,
///   then the oldest kept until the new one fits; an image larger than the whole store is not
///   kept.
actor GeneratedImages {
    /// How long an image is served after it was kept: 60 minutes.
    static let lifetime: Double = 3600

    /// The formats kept, by the extension of their names.
    enum Format: String, Sendable, CaseIterable {
        case png, jpg, webp

        /// The format of sniffed bytes, or nil for one the proxy does not keep (GIF).
        init?(_ format: ImageFormat) {
            switch format {
            case .png: self = .png
            case .jpeg: self = .jpg
            case .webp: self = .webp
            case .gif: return nil
            }
        }

        var contentType: String {
            switch self {
            case .png: "image/png"
            case .jpg: "image/jpeg"
            case .webp: "image/webp"
            }
        }
    }

    /// A kept image as served.
    struct Image: Sendable {
        let bytes: Data
        let contentType: String
        /// Whole seconds until it is gone (for `Cache-Control: max-age`), rounded down.
        let secondsLeft: Int
    }

    private struct Entry {
        let bytes: Data
        let format: Format
        let keptAt: Double
    }

    let capacity: Int
    private var entries: [String: Entry] = [:]
    /// Names in the order they were kept, oldest first.
    private var order: [String] = []
    private var totalBytes = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The name of `bytes` in `format`: 64 lowercase hex, a dot, the extension.
    static func name(of bytes: Data, format: Format) -> String {
        RequestSigning.bodyHash(bytes) + "." + format.rawValue
    }

    /// Whether `name` has the shape of a kept image's name: exactly 64 lowercase hex
    /// characters, a dot and `png`, `jpg` or `webp`, compared byte for byte.
    static func isWellFormed(name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard bytes.count > 65, bytes[64] == UInt8(ascii: ".") else { return false }
        let hexOK = bytes[..<64].allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
        let ext = bytes[65...]
        return hexOK && Format.allCases.contains { ext.elementsEqual($0.rawValue.utf8) }
    }

    /// Keeps `bytes` at `now` and returns its name, or nil when the image alone is larger than
    /// the store.
    func keep(_ bytes: Data, format: Format, now: Double) -> String? {
        guard bytes.count <= capacity else { return nil }
        let name = Self.name(of: bytes, format: format)
        remove(name)
        dropExpired(now: now)
        while totalBytes + bytes.count > capacity, let oldest = order.first {
            remove(oldest)
        }
        entries[name] = Entry(bytes: bytes, format: format, keptAt: now)
        order.append(name)
        totalBytes += bytes.count
        return name
    }

    /// The image kept under exactly `name` and not yet expired at `now`, or nil.
    func image(named name: String, now: Double) -> Image? {
        guard let entry = entries[name] else { return nil }
        let left = entry.keptAt + Self.lifetime - now
        guard left > 0 else {
            remove(name)
            return nil
        }
        return Image(bytes: entry.bytes, contentType: entry.format.contentType, secondsLeft: Int(left.rounded(.down)))
    }

    /// Images kept (for tests).
    var count: Int { entries.count }

    /// Drops every image whose life has ended at `now`, wherever it is in the order (a clock
    /// that went backwards may have kept a newer image earlier).
    private func dropExpired(now: Double) {
        for name in order where (entries[name].map { $0.keptAt + Self.lifetime <= now }) ?? false {
            remove(name)
        }
    }

    private func remove(_ name: String) {
        guard let entry = entries.removeValue(forKey: name) else { return }
        totalBytes -= entry.bytes.count
        order.removeAll { $0 == name }
    }
}
