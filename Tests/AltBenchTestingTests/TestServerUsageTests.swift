import AltBenchCore
import Foundation
import Testing

@testable import AltBenchTesting

/// The test server reports image tokens the way the API counts them, so an estimate checked
/// against it is checked against the published rules, not a constant.
@Suite("test server usage")
struct TestServerUsageTests {
    /// A PNG of `width`×`height` as a data URL.
    static func dataURL(width: Int, height: Int) -> String {
        let png = PNGEncoder.indexed(
            width: width, height: height, palette: [(200, 100, 50)], indices: Array(repeating: 0, count: width * height))
        return "data:image/png;base64,\(png.base64EncodedString())"
    }

    @Test(
        "image tokens follow the model's rule from the data URL's size",
        arguments: [
            ("gpt-4o", 1024, 1024, "high", 765), ("gpt-4o", 1024, 1024, "low", 85), ("gpt-4o", 512, 512, "auto", 255),
            ("gpt-4o-mini", 1024, 1024, "auto", 25_501), ("gpt-4.1-mini", 1024, 1024, "high", 1659),
            ("llava", 1024, 1024, "high", 765),
        ])
    func imageTokens(model: String, width: Int, height: Int, detail: String, tokens: Int) {
        #expect(CompatibleHandler.imageTokens(url: Self.dataURL(width: width, height: height), detail: detail, model: model) == tokens)
    }

    @Test("a remote image, whose bytes the server does not fetch, counts as 1024×1024")
    func remoteImage() {
        #expect(CompatibleHandler.imageTokens(url: "https://files.example/a.png", detail: "auto", model: "gpt-4o") == 765)
    }
}
