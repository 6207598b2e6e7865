import Crypto
import Foundation

/// SHA-256 digests and random bytes as lowercase hex, the form altbench stores, signs and
/// compares: the one hex helper of the package.
public enum Hashing {
    public static func sha256Hex(_ data: some DataProtocol) -> String {
        hex(SHA256.hash(data: data))
    }

    public static func sha256Hex(_ string: String) -> String {
        sha256Hex(Data(string.utf8))
    }

    /// `bytes` as lowercase hex, two digits a byte. (A cache key is a digest, and a plan of
    /// 100,000 trials makes 100,000 of them: `String(format:)` per byte cost a tenth of it.)
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `bytes` random bytes from the system's cryptographically secure generator, as
    /// lowercase hex: nonces, session ids and tokens.
    public static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
