import Foundation

/// The altbench checkout these sources live in, for tests that copy its prompts and datasets.
package enum Repository {
    package static let root: URL = {
        var url = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("no Package.swift above \(#filePath)")
    }()
}
