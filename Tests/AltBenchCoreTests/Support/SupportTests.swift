import Foundation
import Testing

@testable import AltBenchCore

/// The small pieces every module leans on: redaction, canonical JSON, hashing, YAML hints and
/// the wording of user-facing errors.
@Suite("support")
struct SupportTests {
    // MARK: - Redactor

    struct RedactionCase: Sendable, CustomTestStringConvertible {
        var text: String
        var secrets: [String?]
        var expected: String
        var testDescription: String { text }
    }

    static let redactions: [RedactionCase] = [
        RedactionCase(
            text: "Authorization: Bearer my-own-token-1234", secrets: ["my-own-token-1234"],
            expected: "Authorization: Bearer [redacted]"),
        RedactionCase(
            text: "token abcd and again abcd", secrets: ["abcd"], expected: "token [redacted] and again [redacted]"),
        RedactionCase(
            text: "two: first-secret, second-secret", secrets: ["first-secret", nil, "second-secret"],
            expected: "two: [redacted], [redacted]"),
        RedactionCase(text: "short abc stays", secrets: ["abc", "", nil], expected: "short abc stays"),
        RedactionCase(
            text: "Incorrect API key provided: sk-VKMIs*****wjh3. You can find your API key at https://platform.openai.com/account/api-keys.",
            secrets: [],
            expected: "Incorrect API key provided: [redacted]. You can find your API key at https://platform.openai.com/account/api-keys."),
        RedactionCase(
            text: "key sk-proj-AbCdEf_123-456 used", secrets: [], expected: "key [redacted] used"),
        RedactionCase(text: "\"sk-test-SECRET123456\"", secrets: [], expected: "\"[redacted]\""),
        RedactionCase(text: "key=sk-abcdefgh&x=1", secrets: [], expected: "key=[redacted]&x=1"),
        RedactionCase(text: "sk-abcdef at the start", secrets: [], expected: "[redacted] at the start"),
        RedactionCase(text: "a: sk-aaaaaaa b: sk-bbbbbbb", secrets: [], expected: "a: [redacted] b: [redacted]"),
        RedactionCase(text: "too short: sk-abc", secrets: [], expected: "too short: sk-abc"),
        RedactionCase(text: "no key here at all", secrets: [], expected: "no key here at all"),
        // Ordinary words that contain "sk-" are alt text, not keys.
        RedactionCase(
            text: "A desk-mounted lamp beside a whisk-shaped vase.", secrets: [],
            expected: "A desk-mounted lamp beside a whisk-shaped vase."),
        RedactionCase(
            text: "The risk-assessment form; a brisk-walking dog.", secrets: [],
            expected: "The risk-assessment form; a brisk-walking dog."),
        RedactionCase(text: "Une lampe de\u{301}sk-mounted", secrets: [], expected: "Une lampe de\u{301}sk-mounted"),
        RedactionCase(text: "key\nsk-abcdefgh\n", secrets: [], expected: "key\n[redacted]\n"),
        RedactionCase(text: "api_key=_sk-abcdefgh", secrets: [], expected: "api_key=_[redacted]"),
        // The configured secret is removed even where it sits inside a word.
        RedactionCase(text: "xxsk-test-SECRET123456yy", secrets: ["sk-test-SECRET123456"], expected: "xx[redacted]yy"),
    ]

    @Test("the redactor removes secrets and key-shaped text", arguments: redactions)
    func redaction(_ row: RedactionCase) {
        #expect(Redactor(secrets: row.secrets).redact(row.text) == row.expected)
    }

    @Test("redactIfPresent passes nil through")
    func redactIfPresent() {
        let redactor = Redactor(secrets: ["secret-value"])
        #expect(redactor.redactIfPresent(nil) == nil)
        #expect(redactor.redactIfPresent("a secret-value") == "a [redacted]")
    }

    @Test("a Secret prints as the placeholder however it is printed")
    func secretNeverPrints() {
        let secret = Secret("sk-test-SECRET123456")
        var dumped = ""
        dump(secret, to: &dumped)
        for text in [String(describing: secret), String(reflecting: secret), "\(secret)", dumped] {
            #expect(!text.contains("SECRET"), "\(text)")
        }
        #expect(secret.description == Redactor.placeholder)
        #expect(secret.value == "sk-test-SECRET123456")
    }

    // MARK: - JSONValue

    @Test("canonical text sorts keys at every depth")
    func canonicalSortsKeys() {
        let value: JSONValue = ["b": 1, "a": ["d": true, "c": .null], "A": "x"]
        #expect(value.canonicalText == #"{"A":"x","a":{"c":null,"d":true},"b":1}"#)
    }

    @Test("the same value built in any order gives the same bytes")
    func canonicalIsStable() throws {
        let one = try JSONValue.parse(Data(#"{"model": "m", "max_tokens": 50, "messages": [{"role": "user"}]}"#.utf8))
        let two = try JSONValue.parse(Data(#"{"messages":[{"role":"user"}],"max_tokens":50.0,"model":"m"}"#.utf8))
        #expect(one.canonicalText == two.canonicalText)
    }

    struct CanonicalCase: Sendable, CustomTestStringConvertible {
        var value: JSONValue
        var text: String
        var testDescription: String { text }
    }

    static let canonical: [CanonicalCase] = [
        CanonicalCase(value: .int(50), text: "50"),
        CanonicalCase(value: .int(-3), text: "-3"),
        CanonicalCase(value: .double(50), text: "50"),
        CanonicalCase(value: .double(-0.0), text: "0"),
        CanonicalCase(value: .double(0.5), text: "0.5"),
        CanonicalCase(value: .double(1e20), text: "1e+20"),
        CanonicalCase(value: .bool(false), text: "false"),
        CanonicalCase(value: .null, text: "null"),
        CanonicalCase(value: .array([]), text: "[]"),
        CanonicalCase(value: .object([:]), text: "{}"),
        CanonicalCase(value: .array([1, "a", .null]), text: #"[1,"a",null]"#),
        CanonicalCase(value: "a/b", text: #""a/b""#),
        CanonicalCase(value: "say \"hi\" \\ now", text: #""say \"hi\" \\ now""#),
        CanonicalCase(value: "line\nbreak\r\ttab", text: #""line\nbreak\r\ttab""#),
        CanonicalCase(value: "bell\u{07}nul\u{00}esc\u{1B}", text: #""bell\u0007nul\u0000esc\u001b""#),
        CanonicalCase(value: "\u{1F}\u{20}", text: #""\u001f ""#),
        CanonicalCase(value: "What\u{2019}s caf\u{E9} \u{1F600}", text: "\"What\u{2019}s caf\u{E9} \u{1F600}\""),
        // Escapes at both ends, back to back, and next to multi-byte characters.
        CanonicalCase(value: "\"\u{1F600}\"\\\n\u{E9}\u{01}", text: #""\"😀\"\\\né\u0001""#),
        CanonicalCase(value: "", text: #""""#),
        CanonicalCase(value: "data:image/png;base64,iVBORw0KGgo+/=", text: #""data:image/png;base64,iVBORw0KGgo+/=""#),
    ]

    @Test("canonical text: integers stay integral, strings are escaped", arguments: canonical)
    func canonicalText(_ row: CanonicalCase) {
        #expect(row.value.canonicalText == row.text)
    }

    /// The escaper reads eight bytes at a time: every character that needs escaping, at every
    /// position of a word and across word boundaries, next to multi-byte characters, is
    /// escaped as a byte-by-byte escaper does.
    @Test func escapesAtEveryPositionOfAWord() {
        func reference(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        let specials: [String] = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) } + ["\"", "\\"]
        let fillers = ["A", "\u{E9}", "\u{1F600}", "~", "!", "#", "[", "]", "\u{7F}"]
        var checked = 0
        for special in specials {
            for filler in fillers {
                for position in 0..<19 {
                    let text = String(repeating: filler, count: position) + special + String(repeating: filler, count: 19 - position)
                    #expect(JSONValue.string(text).canonicalText == reference(text), "\(special.debugDescription) at \(position)")
                    checked += 1
                }
            }
        }
        #expect(checked == 34 * 9 * 19)
        // No byte that needs escaping goes unseen in a word, whatever its neighbours.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let word = generator.next() as UInt64
            let needs = (0..<8).contains { shift -> Bool in
                let byte = UInt8(truncatingIfNeeded: word >> (8 * shift))
                return byte < 0x20 || byte == 0x22 || byte == 0x5C
            }
            if needs { #expect(JSONValue.mayNeedEscape(word)) }
        }
        for byte in 0...255 {
            for shift in 0..<8 {
                let word = (0x4141_4141_4141_4141 as UInt64) & ~(0xFF << (8 * UInt64(shift))) | (UInt64(byte) << (8 * UInt64(shift)))
                let needs = byte < 0x20 || byte == 0x22 || byte == 0x5C
                #expect(JSONValue.mayNeedEscape(word) == needs, "byte \(byte) at \(shift)")
            }
        }
    }

    static let roundTrips: [JSONValue] = [
        ["model": "gpt-4o-mini", "max_tokens": 50, "temperature": 0.7, "stream": false, "stop": .null],
        ["messages": [["role": "user", "content": [["type": "text", "text": "What\u{2019}s in \"this\"?\n\u{01}"]]]]],
        [1, 2.5, -7, "x", true, .null, [], [:]],
        "a\u{00}b\u{1F}c\\d/e",
        .int(Int(Int32.max) * 4),
        .double(123_456.789),
        .double(1e-7),
    ]

    @Test("canonical text round-trips through JSONSerialization", arguments: roundTrips)
    func roundTrip(_ value: JSONValue) throws {
        let text = value.canonicalText
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        let reencoded = try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])
        let reparsed = try JSONValue.parse(reencoded)
        #expect(reparsed.canonicalText == text)
        #expect(try JSONValue.parse(Data(text.utf8)) == value)
    }

    @Test("Codable round trip keeps the value")
    func codableRoundTrip() throws {
        let value: JSONValue = ["a": [1, 2.5, "x", true, .null], "b": ["c": "d"]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }

    @Test("parsing keeps kinds apart: booleans, integers, doubles")
    func parsingKinds() throws {
        let value = try JSONValue.parse(Data(#"{"t": true, "one": 1, "half": 0.5, "big": 12345678901234567890, "s": "1"}"#.utf8))
        #expect(value["t"] == .bool(true))
        #expect(value["one"] == .int(1))
        #expect(value["half"] == .double(0.5))
        // Beyond Int64: read as the nearest Double.
        #expect(value["big"]?.doubleValue == 1.2345678901234567e19)
        #expect(value["s"] == .string("1"))
        #expect(value["missing"] == nil)
    }

    @Test("accessors")
    func accessors() {
        let value: JSONValue = ["list": [10, "x"], "n": 3.0, "s": "12", "b": true, "z": .null]
        #expect(value["list"]?[0] == 10)
        #expect(value["list"]?[5] == nil)
        #expect(value["list"]?[-1] == nil)
        #expect(value["n"]?.intValue == 3)
        #expect(value["n"]?.doubleValue == 3)
        #expect(value["s"]?.intValue == 12)
        #expect(value["s"]?.doubleValue == nil)
        #expect(value["s"]?.stringValue == "12")
        #expect(value["b"]?.boolValue == true)
        #expect(value["b"]?.intValue == nil)
        #expect(value["z"]?.isNull == true)
        #expect(value["list"]?.arrayValue?.count == 2)
        #expect(value.objectValue?.count == 5)
        #expect(JSONValue.double(2.5).intValue == nil)
        #expect(JSONValue.string("x")[0] == nil)
        #expect(JSONValue.array([])["k"] == nil)
    }

    // MARK: - Hashing

    struct HashVector: Sendable, CustomTestStringConvertible {
        var input: String
        var hex: String
        var testDescription: String { input.isEmpty ? "empty" : String(input.prefix(20)) }
    }

    /// FIPS 180-2 test vectors.
    static let vectors: [HashVector] = [
        HashVector(input: "", hex: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        HashVector(input: "abc", hex: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        HashVector(
            input: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            hex: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ]

    @Test("SHA-256 of known vectors, as lowercase hex", arguments: vectors)
    func sha256(_ vector: HashVector) {
        #expect(Hashing.sha256Hex(vector.input) == vector.hex)
        #expect(Hashing.sha256Hex(Data(vector.input.utf8)) == vector.hex)
        #expect(Hashing.sha256Hex(Array(vector.input.utf8)) == vector.hex)
    }

    @Test("SHA-256 of a million a's")
    func sha256Long() {
        let data = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Hashing.sha256Hex(data) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    // MARK: - YAML hints

    static let nearMisses: [(String, String?)] = [
        ("max_token", "max_tokens"),
        ("MAX_TOKENS", "max_tokens"),
        ("temprature", "temperature"),
        ("modle", "model"),
        ("concurency", "concurrency"),
        ("brevity", nil),
        ("wibble", nil),
    ]

    @Test("near-miss keys get a suggestion, unrelated ones do not", arguments: nearMisses)
    func closestKey(_ key: String, _ expected: String?) {
        let known = PromptLoader.knownKeys + ConfigFile.knownKeys
        #expect(YAMLDiagnostics.closest(to: key, in: known) == expected)
    }

    @Test("edit distance", arguments: [("", "", 0), ("", "abc", 3), ("abc", "", 3), ("kitten", "sitting", 3), ("same", "same", 0)])
    func editDistance(_ a: String, _ b: String, _ distance: Int) {
        #expect(YAMLDiagnostics.editDistance(a, b) == distance)
        #expect(YAMLDiagnostics.editDistance(b, a) == distance)
    }

    // MARK: - Error messages

    struct MessageCase: Sendable, CustomTestStringConvertible {
        var error: AltBenchError
        var mentions: [String]
        var testDescription: String { String(describing: error) }
    }

    static let messages: [MessageCase] = [
        MessageCase(error: .promptsFolderMissing(path: "p"), mentions: ["'p'", "--prompts DIR", "p/NAME.md"]),
        MessageCase(error: .noPrompts(path: "p"), mentions: ["'p'", "p/NAME.md", "--prompts DIR"]),
        MessageCase(error: .emptyPrompt(file: "p/a.md"), mentions: ["p/a.md", "Write the prompt"]),
        MessageCase(error: .promptFrontMatter(file: "p/a.md", line: 3, message: "bad."), mentions: ["p/a.md:3: bad."]),
        MessageCase(error: .promptFrontMatter(file: "p/a.md", line: nil, message: "bad."), mentions: ["p/a.md: bad."]),
        MessageCase(
            error: .duplicatePromptName(name: "n", files: ["p/a.md", "p/b.md"]),
            mentions: ["'n'", "p/a.md, p/b.md", "`name:`"]),
        MessageCase(error: .datasetMissing(path: "d"), mentions: ["'d'", "--dataset DIR"]),
        MessageCase(error: .datasetEmpty(path: "d"), mentions: ["'d'", "manifest.jsonl", "PNG"]),
        MessageCase(error: .manifestLine(file: "d/manifest.jsonl", line: 4, message: "bad."), mentions: ["d/manifest.jsonl:4: bad."]),
        MessageCase(error: .configFile(file: "altbench.yml", line: 2, message: "bad."), mentions: ["altbench.yml:2: bad."]),
        MessageCase(error: .configFile(file: "altbench.yml", line: nil, message: "bad."), mentions: ["altbench.yml: bad."]),
        MessageCase(error: .invalidSetting(name: "repeats", message: "bad."), mentions: ["repeats: bad."]),
        MessageCase(
            error: .missingAPIKey(variable: "OPENAI_API_KEY", reason: "CI=true"),
            mentions: ["OPENAI_API_KEY is not set, and CI=true.", "Export OPENAI_API_KEY=", "--base-url", "--provider mock"]),
        MessageCase(error: .runNotFound(id: "r1", database: "results/altbench.sqlite"), mentions: ["'r1'", "altbench runs"]),
        MessageCase(error: .noRuns(database: "results/altbench.sqlite"), mentions: ["altbench run"]),
    ]

    @Test("every error reads as a sentence naming the thing and the fix", arguments: messages)
    func errorMessage(_ row: MessageCase) {
        let message = String(describing: row.error)
        for word in row.mentions {
            #expect(message.contains(word), "\(message)")
        }
    }
}
