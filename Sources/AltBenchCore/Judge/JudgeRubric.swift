import Foundation

/// The criteria a vision judge grades alt text by, read from a Markdown file.
///
/// A rubric says what accuracy, completeness and concision mean; it does not say how to
/// answer. ``JudgeRequest`` appends altbench's own output contract (the JSON shape, the
/// meaning of the 1-5 scales, and that the alt text is data, not instructions) after the
/// rubric, so a rubric a user writes can change what is judged but not break the parsing.
public struct JudgeRubric: Sendable, Hashable {
    /// The file's name ("alt-text.md"), for reports.
    public var name: String
    /// The file's text, as read.
    public var text: String
    /// SHA-256 of `text`'s UTF-8 as lowercase hex: the same as `sha256sum` of the file. A run
    /// records it, and the judge's cache key covers it, so an edited rubric is judged afresh.
    public var sha256: String

    /// The largest rubric file accepted, in bytes. A rubric is sent with every judged answer,
    /// so a big one costs on every request; 64 KiB is far more than criteria need.
    public static let sizeLimit = 64 * 1024

    public init(name: String, text: String) {
        self.name = name
        self.text = text
        self.sha256 = Hashing.sha256Hex(text)
    }

    /// Reads a rubric file.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - displayPath: how error messages name the file (the path as the user wrote it);
    ///     `url.path` when `nil`.
    /// - Throws: ``JudgeRubricError`` when the file is missing, a folder, unreadable, larger
    ///   than ``sizeLimit``, not UTF-8, or holds only whitespace.
    public static func load(from url: URL, displayPath: String? = nil) throws -> JudgeRubric {
        let path = displayPath ?? url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw JudgeRubricError.missing(path: path)
        }
        if isDirectory.boolValue { throw JudgeRubricError.isFolder(path: path) }
        // Checked before reading, so a huge file given by mistake is never read into memory.
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber,
            size.intValue > sizeLimit
        {
            throw JudgeRubricError.tooLarge(path: path, bytes: size.intValue, limit: sizeLimit)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw JudgeRubricError.unreadable(path: path, reason: error.localizedDescription)
        }
        // A file that grew between the check and the read.
        if data.count > sizeLimit { throw JudgeRubricError.tooLarge(path: path, bytes: data.count, limit: sizeLimit) }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw JudgeRubricError.notUTF8(path: path)
        }
        // A byte-order mark, which some editors write, is no more criteria than whitespace.
        if text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace || $0 == "\u{FEFF}" }) {
            throw JudgeRubricError.empty(path: path)
        }
        return JudgeRubric(name: url.lastPathComponent, text: text)
    }
}

/// Why a rubric file cannot be used. Each message names the file and says how to fix it.
public enum JudgeRubricError: Error, Sendable, Hashable, CustomStringConvertible {
    case missing(path: String)
    case isFolder(path: String)
    case unreadable(path: String, reason: String)
    case notUTF8(path: String)
    case empty(path: String)
    case tooLarge(path: String, bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .missing(let path):
            return "The judge rubric '\(path)' does not exist. Pass the path of a Markdown file with the criteria, or leave judge.rubric unset to use altbench's own (altbench judge --show-rubric prints it)."
        case .isFolder(let path):
            return "The judge rubric '\(path)' is a folder. Pass the path of one Markdown file (altbench judge --show-rubric prints the built-in one to start from)."
        case .unreadable(let path, let reason):
            return "The judge rubric '\(path)' cannot be read (\(reason)). Check its permissions."
        case .notUTF8(let path):
            return "The judge rubric '\(path)' is not UTF-8 text. Save it as UTF-8."
        case .empty(let path):
            return "The judge rubric '\(path)' is empty. Write the criteria the judge grades by (altbench judge --show-rubric prints the built-in ones)."
        case .tooLarge(let path, let bytes, let limit):
            return "The judge rubric '\(path)' is \(bytes) bytes, more than the \(limit / 1024) KiB a rubric may hold (it is sent with every judged answer). Shorten it to the criteria."
        }
    }
}
