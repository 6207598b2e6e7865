import Foundation

/// The data URLs of the images sent most recently, so that the trials of one image (every
/// prompt variant and token limit, planned one after another) read and base64-encode its
/// file once rather than once per request.
///
/// Keyed by the file's path and the request's image identity (the file's SHA-256 at plan
/// time), so a cached URL is the image the cache key names, and two files never share one. Bounded in entries and in bytes, least recently used
/// first out; a remote image is its URL and is not cached.
package final class ImageURLCache: @unchecked Sendable {
    package let maxEntries: Int
    package let maxBytes: Int
    private let lock = NSLock()
    /// Most recently used last.
    private var entries: [(key: String, url: String)] = []
    private var bytes = 0

    package init(maxEntries: Int = 16, maxBytes: Int = 64 * 1024 * 1024) {
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    /// The `image_url.url` value for `payload`: from the cache when an earlier request sent
    /// the image named `identity`, else read now (``ImagePayload/urlString()``) and kept.
    package func urlString(for payload: ImagePayload, identity: String) throws -> String {
        guard case .file(let file, _) = payload else { return try payload.urlString() }
        let key = file.path + "\u{0}" + identity
        if let hit = lookUp(key) { return hit }
        // Read outside the lock: two requests for a new image may both read it, once.
        let url = try payload.urlString()
        keep(url, as: key)
        return url
    }

    /// How many URLs are kept now.
    package var count: Int { lock.withLock { entries.count } }

    private func lookUp(_ key: String) -> String? {
        lock.withLock {
            guard let index = entries.lastIndex(where: { $0.key == key }) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.url
        }
    }

    private func keep(_ url: String, as key: String) {
        let size = url.utf8.count
        guard size <= maxBytes else { return }
        lock.withLock {
            guard !entries.contains(where: { $0.key == key }) else { return }
            entries.append((key, url))
            bytes += size
            while entries.count > maxEntries || bytes > maxBytes {
                bytes -= entries.removeFirst().url.utf8.count
            }
        }
    }
}
