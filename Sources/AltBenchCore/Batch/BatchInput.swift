import Foundation

/// The limits one Batch API input file must keep: OpenAI takes at most 50,000 requests and
/// 200 MB per file (Azure's global batch 100,000 requests), and one model per file.
/// `--batch-max-lines` and `--batch-max-bytes` lower them (for tests, and to keep files small
/// when images are large).
package struct BatchLimits: Sendable, Hashable {
    package var maxLines: Int
    package var maxBytes: Int

    /// OpenAI's limits: 50,000 lines, 200 MB (counted as 200,000,000 bytes, the smaller reading).
    package static let openAI = BatchLimits(maxLines: 50_000, maxBytes: 200_000_000)
    /// Azure OpenAI's global batch: 100,000 lines, 200 MB.
    package static let azure = BatchLimits(maxLines: 100_000, maxBytes: 200_000_000)

    package init(maxLines: Int, maxBytes: Int) {
        self.maxLines = maxLines
        self.maxBytes = maxBytes
    }

    /// These limits lowered by the flags, never raised above the provider's.
    package func lowered(maxLines lines: Int?, maxBytes bytes: Int?) -> BatchLimits {
        BatchLimits(maxLines: min(maxLines, lines ?? maxLines), maxBytes: min(maxBytes, bytes ?? maxBytes))
    }
}

/// One line of a Batch API input file:
/// `{"custom_id":…,"method":"POST","url":…,"body":…}` and a newline, where `body` is the
/// bytes the live request sends (``ModelRequest/body(imageURL:)``'s canonical bytes).
package enum BatchLine {
    package static func encode(customID: String, url: String, body: [UInt8]) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(body.count + customID.utf8.count + url.utf8.count + 64)
        line += #"{"custom_id":"#.utf8
        line += JSONValue.string(customID).canonicalBytes
        line += #","method":"POST","url":"#.utf8
        line += JSONValue.string(url).canonicalBytes
        line += #","body":"#.utf8
        line += body
        line += "}\n".utf8
        return line
    }
}

/// A Batch API input file as written: which requests it holds (by custom id, the trial's
/// cache key), for which model, and its size.
package struct BatchInputFile: Sendable, Hashable {
    /// The file's number in its run, from 1.
    package var sequence: Int
    package var model: String
    package var url: URL
    package var customIDs: [String]
    package var bytes: Int

    package init(sequence: Int, model: String, url: URL, customIDs: [String], bytes: Int) {
        self.sequence = sequence
        self.model = model
        self.url = url
        self.customIDs = customIDs
        self.bytes = bytes
    }

    /// The name the file is uploaded under: the run and the number, so a file whose upload
    /// was cut off can be recognised on the server.
    package static func uploadName(runID: String, purpose: String, sequence: Int) -> String {
        "altbench-\(runID)-\(purpose)-\(sequence).jsonl"
    }
}

/// Why a request cannot go into any input file.
package struct BatchLineTooLarge: Error, Sendable, CustomStringConvertible {
    package var customID: String
    package var bytes: Int
    package var limit: Int
    package var description: String {
        "one request is \(bytes) bytes as a batch line, more than an input file may hold (\(limit) bytes); its image is too large for the Batch API at this limit. Raise --batch-max-bytes (at most 200 MB), or send it live."
    }
}

/// Writes input files one line at a time, starting a new file when the next line would pass
/// the line or byte limit or names another model: never more than one line in memory.
///
/// A file is complete (and listed in ``files``) once it is closed and flushed to disk; the
/// caller records it before uploading it, so a run killed while writing starts that file over.
package final class BatchInputWriter {
    package let folder: URL
    package let limits: BatchLimits
    package let runID: String
    package let purpose: String
    private var nextSequence: Int
    private var current: (file: BatchInputFile, handle: FileHandle)?
    /// The files completed so far, in order.
    package private(set) var files: [BatchInputFile] = []

    /// - Parameter firstSequence: the number of the first file this writer starts (after the
    ///   run's earlier files, when it continues).
    package init(folder: URL, limits: BatchLimits, runID: String, purpose: String, firstSequence: Int) throws {
        self.folder = folder
        self.limits = limits
        self.runID = runID
        self.purpose = purpose
        self.nextSequence = firstSequence
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Adds one request's line; returns the file it completed to make room, if any.
    @discardableResult
    package func add(customID: String, model: String, line: [UInt8]) throws -> BatchInputFile? {
        guard line.count <= limits.maxBytes else {
            throw BatchLineTooLarge(customID: customID, bytes: line.count, limit: limits.maxBytes)
        }
        var completed: BatchInputFile?
        if let open = current,
            open.file.model != model || open.file.customIDs.count >= limits.maxLines
                || open.file.bytes + line.count > limits.maxBytes
        {
            completed = try finishCurrent()
        }
        if current == nil {
            let sequence = nextSequence
            nextSequence += 1
            let url = folder.appendingPathComponent(
                BatchInputFile.uploadName(runID: runID, purpose: purpose, sequence: sequence))
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
            current = (BatchInputFile(sequence: sequence, model: model, url: url, customIDs: [], bytes: 0), try FileHandle(forWritingTo: url))
        }
        try current!.handle.write(contentsOf: line)
        current!.file.customIDs.append(customID)
        current!.file.bytes += line.count
        return completed
    }

    /// Closes the file being written; returns it, or `nil` when none was open.
    @discardableResult
    package func finishCurrent() throws -> BatchInputFile? {
        guard let open = current else { return nil }
        current = nil
        try open.handle.synchronize()
        try open.handle.close()
        files.append(open.file)
        return open.file
    }
}
