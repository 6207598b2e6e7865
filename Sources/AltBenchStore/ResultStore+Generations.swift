import AltBenchCore
import Foundation
import GRDB

/// One image `altbench datasets generate` received, as the store keeps it.
package struct StoredGeneration: Sendable, Hashable {
    package var index: Int
    package var image: Data
    package var format: ImageFormat
    package var revisedPrompt: String?
    /// The API's `created`, Unix seconds.
    package var created: Int?

    package init(index: Int, image: Data, format: ImageFormat, revisedPrompt: String?, created: Int?) {
        self.index = index
        self.image = image
        self.format = format
        self.revisedPrompt = revisedPrompt
        self.created = created
    }
}

extension ResultStore {
    /// The images stored for a request's cache key, in order; empty when there are none.
    package func generations(forKey key: String) async throws -> [StoredGeneration] {
        try await writer.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM generation WHERE cache_key = ? ORDER BY image_index", arguments: [key]
            ).compactMap { row in
                guard let format = ImageFormat(rawValue: row["format"]) else { return nil }
                return StoredGeneration(
                    index: row["image_index"], image: row["image"], format: format, revisedPrompt: row["revised_prompt"],
                    created: row["created"])
            }
        }
    }

    /// Keeps the images of one request (replacing any stored under the same key).
    package func storeGenerations(
        _ images: [StoredGeneration], forKey key: String, endpoint: String, model: String, requestJSON: String
    ) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM generation WHERE cache_key = ?", arguments: [key])
            for image in images {
                try db.execute(
                    sql: """
                        INSERT INTO generation (cache_key, image_index, endpoint, model, request_json, image, image_sha256,
                          format, revised_prompt, created, generated_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        key, image.index, endpoint, model, requestJSON, image.image, Hashing.sha256Hex(image.image),
                        image.format.rawValue, image.revisedPrompt, image.created,
                        ISO8601DateFormatter().string(from: Date()),
                    ])
            }
        }
    }
}
