import AltBenchCore
import Foundation

/// Example OpenAI bodies (requests, answers, errors) shipped with this target under
/// `Fixtures/openai/`; provenance of each file is in `Fixtures/openai/SOURCES.md`.
///
/// A name may be given with or without its extension ("07_401_invalid_api_key" or
/// "07_401_invalid_api_key.json"), or as any prefix matching exactly one file ("09_").
package enum OpenAIFixtures {
    /// The fixture directory inside the resource bundle.
    package static var directory: URL {
        guard let url = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            preconditionFailure("AltBenchTesting resource bundle has no Fixtures directory")
        }
        return url.appendingPathComponent("openai", isDirectory: true)
    }

    /// File names of all fixtures, sorted.
    package static var names: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { !$0.hasPrefix(".") }.sorted()
    }

    /// The bytes of fixture `name`. Stops the process with a clear message when no single file matches.
    package static func body(_ name: String) -> Data {
        let file = fileName(for: name)
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(file).path) else {
            preconditionFailure("cannot read fixture \(file) in \(directory.path)")
        }
        return data
    }

    /// Fixture `name` as UTF-8 text.
    package static func text(_ name: String) -> String {
        String(decoding: body(name), as: UTF8.self)
    }

    /// Fixture `name` parsed as one JSON document.
    package static func json(_ name: String) throws -> JSONValue {
        try JSONValue.parse(body(name))
    }

    /// The non-empty lines of a `.jsonl` fixture, each as its own body.
    package static func lines(_ name: String) -> [Data] {
        text(name).split(whereSeparator: \.isNewline).map { Data($0.utf8) }
    }

    /// The file name that `name` designates.
    package static func fileName(for name: String) -> String {
        let all = names
        if all.contains(name) { return name }
        for ext in ["json", "jsonl", "sse", "txt", "md"] where all.contains("\(name).\(ext)") {
            return "\(name).\(ext)"
        }
        let matches = all.filter { $0.hasPrefix(name) }
        guard matches.count == 1 else {
            preconditionFailure(
                "fixture name \"\(name)\" matches \(matches.isEmpty ? "no file" : "\(matches)"); known: \(all)"
            )
        }
        return matches[0]
    }
}
