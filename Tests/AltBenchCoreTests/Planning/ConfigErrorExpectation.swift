import Testing

@testable import AltBenchCore

/// Checks that `text`, as altbench.yml, is refused with a message that names line `line`,
/// says `expected`, and never echoes any of `secrets` (a value that looked like a key).
func expectConfigRefused(
    _ text: String, line: Int, saying expected: String, withoutEchoing secrets: [String],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        _ = try ConfigFile.parse(text, displayPath: "altbench.yml")
        Issue.record("accepted \(text)", sourceLocation: sourceLocation)
    } catch {
        let message = String(describing: error)
        #expect(message.hasPrefix("altbench.yml:\(line): "), "\(message)", sourceLocation: sourceLocation)
        #expect(message.contains(expected), "\(message)", sourceLocation: sourceLocation)
        for secret in secrets {
            #expect(!message.contains(secret), "\(message)", sourceLocation: sourceLocation)
        }
    }
}
