import Foundation
import Testing

@testable import AltBenchCore

@Suite("Batch input files")
struct BatchInputTests {
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("batch-input-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func line(_ id: String, size: Int = 0) -> [UInt8] {
        BatchLine.encode(
            customID: id, url: "/v1/chat/completions",
            body: JSONValue.object(["model": "m", "pad": .string(String(repeating: "x", count: size))]).canonicalBytes)
    }

    @Test func aLineIsTheLiveBodyInsideTheBatchEnvelope() throws {
        let request = ModelRequest(
            model: "gpt-4o-mini", system: "Say \"no\"\n", prompt: "What’s in this image?", image: .remote(URL(string: "https://x.test/a.png")!),
            imageIdentity: "https://x.test/a.png", detail: .low, maxTokens: 50)
        let body = request.body(imageURL: "https://x.test/a.png").canonicalBytes
        let line = BatchLine.encode(customID: "v1:abc\"def", url: "/v1/chat/completions", body: body)
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.dropLast())) as? [String: Any])
        #expect(parsed["custom_id"] as? String == "v1:abc\"def")
        #expect(parsed["method"] as? String == "POST")
        #expect(parsed["url"] as? String == "/v1/chat/completions")
        #expect(Set(parsed.keys) == ["custom_id", "method", "url", "body"])
        // The body's bytes appear verbatim: what a live request would send.
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.hasSuffix(",\"body\":" + String(decoding: body, as: UTF8.self) + "}\n"))
    }

    @Test func filesSplitByLinesBytesAndModel() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = Self.line("k00", size: 100).count
        let writer = try BatchInputWriter(
            folder: folder, limits: BatchLimits(maxLines: 3, maxBytes: size * 2 + 10), runID: "run1", purpose: "trials",
            firstSequence: 4)
        var completed: [BatchInputFile] = []
        for index in 0..<5 {
            if let file = try writer.add(customID: String(format: "k%02d", index), model: "a", line: Self.line(String(format: "k%02d", index), size: 100)) {
                completed.append(file)
            }
        }
        // Another model starts another file even with room left.
        if let file = try writer.add(customID: "k05", model: "b", line: Self.line("k05", size: 100)) { completed.append(file) }
        if let file = try writer.finishCurrent() { completed.append(file) }
        #expect(completed.map(\.customIDs) == [["k00", "k01"], ["k02", "k03"], ["k04"], ["k05"]])
        #expect(completed.map(\.sequence) == [4, 5, 6, 7])
        #expect(completed.map(\.model) == ["a", "a", "a", "b"])
        #expect(writer.files == completed)
        for file in completed {
            let data = try Data(contentsOf: file.url)
            #expect(data.count == file.bytes)
            #expect(data.count <= size * 2 + 10)
            let ids = try data.split(separator: 0x0A).map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])["custom_id"] as? String
            }
            #expect(ids == file.customIDs)
            #expect(file.url.lastPathComponent == BatchInputFile.uploadName(runID: "run1", purpose: "trials", sequence: file.sequence))
        }
        // By lines alone.
        let lines = try BatchInputWriter(
            folder: folder, limits: BatchLimits(maxLines: 2, maxBytes: 1 << 20), runID: "run2", purpose: "trials", firstSequence: 1)
        for index in 0..<5 { try lines.add(customID: "j\(index)", model: "a", line: Self.line("j\(index)")) }
        try lines.finishCurrent()
        #expect(lines.files.map(\.customIDs.count) == [2, 2, 1])
    }

    @Test func aLineLargerThanAFileIsRefusedByName() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let writer = try BatchInputWriter(
            folder: folder, limits: BatchLimits(maxLines: 10, maxBytes: 200), runID: "r", purpose: "trials", firstSequence: 1)
        try writer.add(customID: "small", model: "a", line: Self.line("small"))
        #expect(throws: BatchLineTooLarge.self) { try writer.add(customID: "big", model: "a", line: Self.line("big", size: 500)) }
        do {
            try writer.add(customID: "big", model: "a", line: Self.line("big", size: 500))
        } catch let error as BatchLineTooLarge {
            #expect(error.description.contains("--batch-max-bytes"))
            #expect(error.customID == "big")
        }
        // The writer goes on: the file being written is intact.
        try writer.add(customID: "small2", model: "a", line: Self.line("small2"))
        try writer.finishCurrent()
        #expect(writer.files.map(\.customIDs) == [["small", "small2"]])
    }

    @Test func limitsAreOnlyLowered() {
        #expect(BatchLimits.openAI.lowered(maxLines: 10, maxBytes: nil) == BatchLimits(maxLines: 10, maxBytes: 200_000_000))
        #expect(BatchLimits.openAI.lowered(maxLines: 90_000, maxBytes: 5_000) == BatchLimits(maxLines: 50_000, maxBytes: 5_000))
        #expect(BatchLimits.azure.maxLines == 100_000)
    }

    @Test func batchPricesFromTheTableOrTheDiscount() throws {
        let table = PriceTable(
            models: ["a": ModelPrice(input: 2, cachedInput: 1, output: 8), "b": ModelPrice(input: 2, output: 8, batchInput: 1.5, batchOutput: 5)],
            batchDiscount: 0.5)
        #expect(table.batchPrice(of: table.models["a"]!) == ModelPrice(input: 1, cachedInput: 0.5, output: 4))
        #expect(table.batchPrice(of: table.models["b"]!) == ModelPrice(input: 1.5, output: 5))
        #expect(PriceTable(models: table.models).batchPrice(of: table.models["a"]!) == nil)
        #expect(PriceTable.builtIn.batchDiscount == 0.5)
    }
}
