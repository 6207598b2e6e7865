import Crypto
import Foundation

/// The signed-proxy protocol's one signing rule, shared by the client (`altbench run --proxy`)
/// and the reference proxy (`altbench proxy`):
///
///     canonical = METHOD + "\n" + PATH + "\n" + TIMESTAMP + "\n" + hex(SHA-256(body))
///     signature = hex(HMAC-SHA256(key: UTF-8 of the token, canonical))
///
/// METHOD is uppercase as sent; PATH is the request target exactly as sent (path plus
/// `?query`), never decoded or normalised; TIMESTAMP is integer Unix seconds with no sign,
/// no leading zero and no fraction (``isWellFormedTimestamp(_:)``); hex is lowercase.
/// docs/proxy.md has the whole protocol.
public enum RequestSigning {
    /// Lowercase hex SHA-256 of the exact body bytes (an empty body hashes to `e3b0c442…b855`).
    public static func bodyHash(_ body: some DataProtocol) -> String {
        Hashing.sha256Hex(body)
    }

    /// The string that is signed.
    public static func canonical(method: String, path: String, timestamp: String, bodyHash: String) -> String {
        "\(method)\n\(path)\n\(timestamp)\n\(bodyHash)"
    }

    /// Lowercase hex HMAC-SHA256 of the canonical string under `key`.
    public static func signature(
        key: String, method: String, path: String, timestamp: String, body: some DataProtocol
    ) -> String {
        signature(key: key, canonical: canonical(method: method, path: path, timestamp: timestamp, bodyHash: bodyHash(body)))
    }

    /// Lowercase hex HMAC-SHA256 of `canonical` under `key`.
    public static func signature(key: String, canonical: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(canonical.utf8), using: SymmetricKey(data: Data(key.utf8)))
        return Hashing.hex(mac)
    }

    /// Whether `given` is the signature `expected`: both must be 64 lowercase hex characters,
    /// and the comparison takes the same time wherever they differ.
    public static func matches(_ given: String, expected: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(expected.utf8)
        guard a.count == b.count, a.count == 64 else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// `^[1-9][0-9]{0,11}$`: one spelling per instant, so nothing needs canonicalising (no
    /// sign, space, fraction, leading zero or millisecond value passes).
    public static func isWellFormedTimestamp(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...12).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first)
        else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// 32 random lowercase hex characters: the nonce of a token request.
    public static func nonce() -> String {
        Hashing.randomHex(bytes: 16)
    }
}

/// What a signed proxy and its client agree on besides the signing rule: the header names,
/// the token route, and the error codes. The defaults are the reference protocol's; a team
/// whose proxy differs sets its own under `proxy:` in altbench.yml.
public struct SignedProxyConventions: Sendable, Hashable {
    public var sessionHeader = "x-session-id"
    public var timestampHeader = "x-timestamp"
    public var signatureHeader = "x-signature"
    /// The route that mints session tokens, relative to the proxy URL.
    public var authPath = "/auth_token"
    /// The chat-completions route, relative to the proxy URL.
    public var chatPath = "/v1/chat/completions"
    /// The Images API route, relative to the proxy URL (forwarded as is).
    public var imagesPath = "/v1/images/generations"
    /// ShipThatApp's image route: a `DALLERequest` in, `{"url": "…"}` out.
    public var dallePath = "/dalle"
    /// Where the proxy serves images it keeps for `/dalle` answers: `GET {generatedPath}/<sha256>.<ext>`.
    public var generatedPath = "/generated"

    public init() {}

    public static let `default` = SignedProxyConventions()

    /// How far a timestamp may be from the proxy's clock, either way.
    public static let clockWindowSeconds: Int64 = 300
    /// How long a proxy remembers a (session, signature) pair.
    public static let replayWindowSeconds: Int64 = 600

    /// The `error.code` values a signed proxy answers with.
    public enum ErrorCode: String, Sendable, CaseIterable {
        case invalidSignature = "invalid_signature"
        case staleTimestamp = "stale_timestamp"
        case replayedRequest = "replayed_request"
        case tokenExpired = "token_expired"
        case invalidSession = "invalid_session"
        case missingHeaders = "missing_headers"
        case pathNotAllowed = "path_not_allowed"
        case modelNotAllowed = "model_not_allowed"
        case bodyTooLarge = "body_too_large"
        case rateLimitExceeded = "rate_limit_exceeded"
    }
}
