import Crypto
import Foundation

/// The offline generator of `altbench datasets generate --provider mock`: a deterministic
/// PNG per prompt, drawn by altbench itself. A background and a few rectangles and discs,
/// their colours and places taken from the SHA-256 of the prompt and the image's index, at
/// the requested aspect ratio with the longest side 256 pixels (8-bit indexed, about 65 KB).
/// It says nothing about the prompt's content: it exercises the pipeline offline, and the
/// manifest marks it as mock.
package enum MockImageGenerator {
    /// The endpoint's identity in cache keys and in each manifest line's `generated`.
    package static let endpoint = "mock"
    package static let longestSide = 256

    package static func image(for request: ImageGenerationRequest, index: Int) -> Data {
        let (requestedWidth, requestedHeight) = request.dimensions
        let scale = Double(longestSide) / Double(max(requestedWidth, requestedHeight))
        let width = max(1, Int((Double(requestedWidth) * scale).rounded()))
        let height = max(1, Int((Double(requestedHeight) * scale).rounded()))
        var bytes = Array(SHA256.hash(data: Data("\(request.model)\n\(request.prompt)\n\(index)".utf8)))
        // More bytes when the shapes need them: hash the hash.
        bytes += Array(SHA256.hash(data: Data(bytes)))
        var cursor = 0
        func next() -> Int {
            defer { cursor = (cursor + 1) % bytes.count }
            return Int(bytes[cursor])
        }
        let palette: [(UInt8, UInt8, UInt8)] = (0..<8).map { _ in (UInt8(next()), UInt8(next()), UInt8(next())) }
        var pixels = [UInt8](repeating: 0, count: width * height)
        let shapes = 3 + next() % 4
        for shape in 0..<shapes {
            let colour = UInt8(1 + shape % (palette.count - 1))
            let centreX = next() * width / 256
            let centreY = next() * height / 256
            let radius = max(4, (16 + next() % 64) * min(width, height) / 256)
            let disc = next() % 2 == 0
            for y in max(0, centreY - radius)..<min(height, centreY + radius) {
                for x in max(0, centreX - radius)..<min(width, centreX + radius) {
                    let dx = x - centreX
                    let dy = y - centreY
                    if !disc || dx * dx + dy * dy <= radius * radius { pixels[y * width + x] = colour }
                }
            }
        }
        return PNGEncoder.indexed(width: width, height: height, palette: palette, indices: pixels)
    }
}
