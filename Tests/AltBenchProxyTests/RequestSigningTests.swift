import AltBenchCore
import Foundation
import Testing

/// The reference protocol's four vectors (computed with Python's hmac and hashlib), RFC 4231
/// case 2, and the rule that every part of the canonical string is signed.
@Suite struct RequestSigningTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var key, method, path, timestamp, body, bodyHash, signature: String
        var testDescription: String { "\(method) \(path)" }
    }

    static let vectors = [
        Vector(
            key: "altbench-app-key-0001", method: "POST", path: "/auth_token", timestamp: "1764000000", body: "",
            bodyHash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            signature: "68fd0f286e296b44f418a1b880acfc425c00b2fff86149ee7993d044d885c287"),
        Vector(
            key: "3f9c2a7e5b1d4c8f9a0b6e2d7c1f5a3b", method: "POST", path: "/v1/chat/completions", timestamp: "1764000000",
            body: #"{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"max_tokens":50}"#,
            bodyHash: "1b1b1a0e90180486bc62f867690de7f4f2659c371bf6db3d83a45e995be2c2a7",
            signature: "5af963094b194448fab93503145f72157d40aa32d94777a50293cbcc019f3f3f"),
        Vector(
            key: "3f9c2a7e5b1d4c8f9a0b6e2d7c1f5a3b", method: "POST", path: "/dalle", timestamp: "1764000123",
            body: #"{"prompt":"A red bicycle leaning on a blue wall","model":"dall-e-3","n":1,"quality":"hd","response_format":"url","size":"1024x1024","style":"natural"}"#,
            bodyHash: "ffd6ae9a3403dafe01c638be8a8fb6db2485022b0193dd620fefb56dddceed78",
            signature: "f91f33cb99fafa957c5c797add47952255cc51351a07c3bf58ac6b4c7f843890"),
        Vector(
            key: "3f9c2a7e5b1d4c8f9a0b6e2d7c1f5a3b", method: "POST", path: "/v1/chat/completions?api-version=2024-10-21",
            timestamp: "1764000000", body: "{\"text\":\"What\u{2019}s in this image?\"}",
            bodyHash: "7f2df49ba444ca4b576158d79f0f47688a7e78b8fad42a6b029cb8e6247c4b8f",
            signature: "7f1f2753c6d68080c72ca8a686a48a706791916017d1cc708d367abf5759074e"),
    ]

    @Test(arguments: vectors) func referenceVector(_ vector: Vector) {
        let body = Data(vector.body.utf8)
        #expect(RequestSigning.bodyHash(body) == vector.bodyHash)
        #expect(
            RequestSigning.signature(
                key: vector.key, method: vector.method, path: vector.path, timestamp: vector.timestamp, body: body)
                == vector.signature)
    }

    @Test func rfc4231Case2() {
        #expect(
            RequestSigning.signature(key: "Jefe", canonical: "what do ya want for nothing?")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func everyPartIsSigned() {
        let key = "3f9c2a7e5b1d4c8f9a0b6e2d7c1f5a3b"
        let body = Data(#"{"model":"gpt-4o-mini","max_tokens":50}"#.utf8)
        let base = RequestSigning.signature(key: key, method: "POST", path: "/v1/chat/completions", timestamp: "1764000000", body: body)
        var seen: Set<String> = [base]
        seen.insert(RequestSigning.signature(key: key, method: "PUT", path: "/v1/chat/completions", timestamp: "1764000000", body: body))
        seen.insert(RequestSigning.signature(key: key, method: "POST", path: "/v1/chat/completions/", timestamp: "1764000000", body: body))
        seen.insert(RequestSigning.signature(key: key, method: "POST", path: "/v1/chat/completions", timestamp: "1764000001", body: body))
        seen.insert(RequestSigning.signature(key: key + "x", method: "POST", path: "/v1/chat/completions", timestamp: "1764000000", body: body))
        #expect(seen.count == 5)
        // One byte of the body, anywhere.
        for index in body.indices {
            var changed = body
            changed[index] ^= 0x01
            #expect(
                RequestSigning.signature(key: key, method: "POST", path: "/v1/chat/completions", timestamp: "1764000000", body: changed)
                    != base, "byte \(index)")
        }
        // A newline moves text between fields without changing the canonical string: that
        // is why a timestamp must be digits only and a proxy refuses a newline in the path.
        #expect(
            RequestSigning.signature(key: key, method: "POST", path: "/v1\n1764000000", timestamp: "1", body: body)
                == RequestSigning.signature(key: key, method: "POST", path: "/v1", timestamp: "1764000000\n1", body: body))
        #expect(!RequestSigning.isWellFormedTimestamp("1764000000\n1"))
    }

    @Test func comparisonNeedsExactLowercaseHex() {
        let expected = Self.vectors[1].signature
        #expect(RequestSigning.matches(expected, expected: expected))
        #expect(!RequestSigning.matches(expected.uppercased(), expected: expected))
        #expect(!RequestSigning.matches(String(expected.dropLast()), expected: expected))
        #expect(!RequestSigning.matches("", expected: expected))
        #expect(!RequestSigning.matches(expected + "0", expected: expected))
        let base64 = Data(expected.utf8).base64EncodedString()
        #expect(!RequestSigning.matches(base64, expected: expected))
    }

    @Test(arguments: [
        ("1764000000", true), ("1", true), ("999999999999", true),
        ("", false), ("0", false), ("01764000000", false), ("+1764000000", false), ("1764000000.0", false),
        (" 1764000000", false), ("1764000000 ", false), ("1764000000000", false), ("17640000\n00", false), ("-1", false),
        ("１７６４", false),
    ])
    func timestampSpelling(_ text: String, _ valid: Bool) {
        #expect(RequestSigning.isWellFormedTimestamp(text) == valid)
    }

    @Test func noncesAreFreshHex() {
        let a = RequestSigning.nonce()
        let b = RequestSigning.nonce()
        #expect(a.count == 32 && b.count == 32 && a != b)
        #expect(a.allSatisfy { "0123456789abcdef".contains($0) })
    }
}
