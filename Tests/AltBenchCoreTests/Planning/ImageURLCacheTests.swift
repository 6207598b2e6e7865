import Foundation
import Testing

@testable import AltBenchCore

@Suite("Image URL cache")
struct ImageURLCacheTests {
    /// A folder with `count` small PNG files of different bytes.
    static func images(_ count: Int) throws -> (URL, [URL]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("imageurl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let files = try (0..<count).map { index -> URL in
            let url = folder.appendingPathComponent("i\(index).png")
            try Data([0x89, 0x50, 0x4E, 0x47, UInt8(index), UInt8(index >> 8)]).write(to: url)
            return url
        }
        return (folder, files)
    }

    @Test func readsEachImageOnceWhileItIsKept() throws {
        let (folder, files) = try Self.images(1)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ImageURLCache()
        let payload = ImagePayload.file(files[0], .png)
        let first = try cache.urlString(for: payload, identity: "sha256:a")
        #expect(first == (try payload.urlString()))
        // Gone from disk: a second request for the same image is served from the cache.
        try FileManager.default.removeItem(at: files[0])
        #expect(try cache.urlString(for: payload, identity: "sha256:a") == first)
        // Another identity for the same path is another image: it is read, and now fails.
        #expect(throws: (any Error).self) { try cache.urlString(for: payload, identity: "sha256:b") }
    }

    @Test func twoFilesWithOneIdentityAreNotConfused() throws {
        let (folder, files) = try Self.images(2)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ImageURLCache()
        let a = try cache.urlString(for: .file(files[0], .png), identity: "same")
        let b = try cache.urlString(for: .file(files[1], .png), identity: "same")
        #expect(a != b)
        #expect(b == (try ImagePayload.file(files[1], .png).urlString()))
    }

    @Test func boundedInEntriesLeastRecentlyUsedFirstOut() throws {
        let (folder, files) = try Self.images(4)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ImageURLCache(maxEntries: 2)
        for (index, file) in files.prefix(2).enumerated() {
            _ = try cache.urlString(for: .file(file, .png), identity: "\(index)")
        }
        _ = try cache.urlString(for: .file(files[0], .png), identity: "0")  // 0 used last
        _ = try cache.urlString(for: .file(files[2], .png), identity: "2")  // evicts 1
        #expect(cache.count == 2)
        try FileManager.default.removeItem(at: files[1])
        try FileManager.default.removeItem(at: files[0])
        #expect(throws: (any Error).self) { try cache.urlString(for: .file(files[1], .png), identity: "1") }
        _ = try cache.urlString(for: .file(files[0], .png), identity: "0")
    }

    @Test func boundedInBytes() throws {
        let (folder, files) = try Self.images(3)
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = try ImagePayload.file(files[0], .png).urlString().utf8.count
        let cache = ImageURLCache(maxBytes: 2 * size)
        for (index, file) in files.enumerated() { _ = try cache.urlString(for: .file(file, .png), identity: "\(index)") }
        #expect(cache.count == 2)
        // An image larger than the whole budget is sent, not kept.
        let small = ImageURLCache(maxBytes: size - 1)
        _ = try small.urlString(for: .file(files[0], .png), identity: "0")
        #expect(small.count == 0)
    }

    @Test func remoteImagesAreTheirURL() throws {
        let cache = ImageURLCache()
        let url = URL(string: "https://files.example.test/a.png")!
        #expect(try cache.urlString(for: .remote(url), identity: url.absoluteString) == url.absoluteString)
        #expect(cache.count == 0)
    }
}
