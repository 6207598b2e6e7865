import Crypto
import Foundation

/// SHA-256 digests as lowercase hex, the form altbench stores and compares.
public enum Hashing {
    public static func sha256Hex(_ data: some DataProtocol) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    public static func sha256Hex(_ string: String) -> String {
        sha256Hex(Data(string.utf8))
    }
}
