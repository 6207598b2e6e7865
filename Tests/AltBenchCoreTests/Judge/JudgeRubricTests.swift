import Foundation
import Testing

@testable import AltBenchCore

@Suite("judge rubric")
struct JudgeRubricTests {
    /// A fresh folder for one test's files.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("altbench-rubric-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ data: Data, named name: String = "rubric.md") throws -> URL {
        let url = try folder().appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    static func loadError(_ url: URL, displayPath: String? = nil) -> JudgeRubricError? {
        do {
            _ = try JudgeRubric.load(from: url, displayPath: displayPath)
            return nil
        } catch {
            return error as? JudgeRubricError
        }
    }

    @Test func loadsTextNameAndHash() throws {
        let text = "# Mine\n\nAccuracy: nothing invented. Café ✓\n"
        let url = try Self.write(Data(text.utf8), named: "mine.md")
        let rubric = try JudgeRubric.load(from: url)
        #expect(rubric.name == "mine.md")
        #expect(rubric.text == text)
        #expect(rubric.sha256 == Hashing.sha256Hex(Data(text.utf8)))
        #expect(rubric == JudgeRubric(name: "mine.md", text: text))
    }

    @Test func missingFile() throws {
        let url = try Self.folder().appendingPathComponent("nope.md")
        #expect(Self.loadError(url, displayPath: "judges/nope.md") == .missing(path: "judges/nope.md"))
        #expect(
            JudgeRubricError.missing(path: "judges/nope.md").description
                == "The judge rubric 'judges/nope.md' does not exist. Pass the path of a Markdown file with the criteria, or leave judge.rubric unset to use altbench's own (altbench judge --show-rubric prints it).")
        #expect(Self.loadError(url) == .missing(path: url.path))
    }

    @Test func folderInsteadOfFile() throws {
        let url = try Self.folder()
        #expect(Self.loadError(url, displayPath: "judges") == .isFolder(path: "judges"))
    }

    /// Empty, whitespace only, and a byte-order mark alone (which some editors write).
    @Test(arguments: ["", "   \n\t\n", "\u{FEFF}", "\u{FEFF}\n \n"])
    func emptyFile(text: String) throws {
        let url = try Self.write(Data(text.utf8))
        #expect(Self.loadError(url, displayPath: "r.md") == .empty(path: "r.md"))
        #expect(JudgeRubricError.empty(path: "r.md").description.contains("'r.md' is empty"))
    }

    @Test func tooBig() throws {
        let limit = JudgeRubric.sizeLimit
        let exact = try Self.write(Data(repeating: UInt8(ascii: "a"), count: limit))
        #expect(try JudgeRubric.load(from: exact).text.utf8.count == limit)
        let over = try Self.write(Data(repeating: UInt8(ascii: "a"), count: limit + 1))
        #expect(Self.loadError(over, displayPath: "big.md") == .tooLarge(path: "big.md", bytes: limit + 1, limit: limit))
        #expect(
            JudgeRubricError.tooLarge(path: "big.md", bytes: limit + 1, limit: limit).description
                == "The judge rubric 'big.md' is 65537 bytes, more than the 64 KiB a rubric may hold (it is sent with every judged answer). Shorten it to the criteria.")
    }

    @Test func notUTF8() throws {
        let url = try Self.write(Data([0x23, 0x20, 0xFF, 0xFE, 0x41, 0xC3]))
        #expect(Self.loadError(url, displayPath: "latin1.md") == .notUTF8(path: "latin1.md"))
        #expect(JudgeRubricError.notUTF8(path: "latin1.md").description == "The judge rubric 'latin1.md' is not UTF-8 text. Save it as UTF-8.")
    }

    @Test func builtInRubric() throws {
        let rubric = JudgeRubric.builtIn
        #expect(rubric.name == "alt-text.md")
        #expect(rubric.text.hasPrefix("# Judging alt text\n") && rubric.text.hasSuffix(".\"\n") && !rubric.text.hasSuffix("\n\n"))
        // What `altbench judge --show-rubric` prints, saved and named by judge.rubric, is the
        // same rubric: the same hash, so the same judge cache.
        let saved = try JudgeRubric.load(from: try Self.write(Data(rubric.text.utf8)))
        #expect(saved.sha256 == rubric.sha256 && saved.text == rubric.text)
        let lines = rubric.text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count <= 80)
        for heading in ["## Accuracy", "## Completeness", "## Concision"] {
            #expect(rubric.text.contains(heading))
        }
        // Criteria only: the answer's format is altbench's contract, not the rubric's.
        #expect(!rubric.text.contains("\"accuracy\""))
        #expect(JudgeRequest.systemMessage(rubric: rubric).hasSuffix(JudgeRequest.outputContract))
    }
}
