import AltBenchTesting
import Foundation
import Testing

@testable import AltBenchCore

/// `JSONValue.parse` reads JSON by hand; `JSONDecoder` (through `JSONValue`'s `Decodable`)
/// is the reference it must agree with, on what it accepts, what it refuses, and the value.
@Suite("JSON parser")
struct JSONParserTests {
    static func reference(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    static func parsed(_ text: String) -> JSONValue? {
        try? JSONValue.parse(Data(text.utf8))
    }

    static let cases: [String] = [
        "null", "true", "false", "0", "-0", "1", "-1", "50.0", "1e2", "1E+2", "2.5e-3", "0.1", "-12.75",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12345678901234567890", "1e308",
        #""""#, #""a""#, #""\u00e9\u4e2d\ud83d\ude00""#, #""\"\\\/\b\f\n\r\t""#, #""tab\there""#, "\"é中😀\"",
        "[]", "{}", "[1,[2,[3,[]]]]", #"{"a":1,"b":[true,false,null],"c":{"d":"e"}}"#, " \n\t{ \"a\" : [ 1 , 2 ] } \r\n",
        #"{"a":1,"a":2}"#,
        // Refused by both.
        "", " ", "nul", "tru", "01", "-", "+1", ".5", "1.", "1e", "1e+", "0x10", "NaN", "Infinity", "[1,]", "[,1]",
        "{\"a\":1,}", "{a:1}", "{'a':1}", "[1 2]", "{\"a\" 1}", "\"unclosed", "\"bad \\x escape\"", "\"\\u12\"",
        "\"\\ud83d\"", "\"\\ude00\"", "\"\\ud83d\\u0041\"", "\"line\nbreak\"", "1 2", "[1]]", "{}}", "1e400",
    ]

    @Test("agrees with JSONDecoder on every case", arguments: cases)
    func agreesWithTheReference(_ text: String) {
        #expect(Self.parsed(text) == Self.reference(text), "\(text.debugDescription)")
    }

    @Test("accepts and refuses what JSON allows")
    func acceptsAndRefuses() {
        #expect(Self.parsed("50.0") == .int(50), "a whole double reads as an integer, as before")
        #expect(Self.parsed("0.5") == .double(0.5))
        #expect(Self.parsed("12345678901234567890")?.doubleValue == 1.2345678901234567e19)
        #expect(Self.parsed(#"{"a":1,"a":2}"#) == .object(["a": .int(1)]), "the first duplicate wins, as JSONDecoder has it")
        #expect(Self.parsed("[1,]") == .array([.int(1)]), "a trailing comma is allowed, as JSONDecoder allows it")
        #expect(Self.parsed("[,]") == nil)
        #expect(Self.parsed("\u{FEFF}[1]") == .array([.int(1)]), "a byte order mark is skipped")
        #expect(Self.parsed(String(repeating: "[", count: 513) + String(repeating: "]", count: 513)) == nil)
        #expect(Self.parsed(String(repeating: "[", count: 500) + String(repeating: "]", count: 500)) != nil)
        #expect(throws: (any Error).self) { try JSONValue.parse(Data([0x22, 0xFF, 0x22])) }
    }

    /// Random documents: every kind, nested, with escapes, odd numbers and whitespace, written
    /// by a writer of their own, must read back as JSONDecoder reads them.
    @Test("random documents read as JSONDecoder reads them")
    func randomDocuments() throws {
        var random = SplitMix64(seed: 2026)
        for _ in 0..<3_000 {
            let text = Self.document(depth: 0, random: &random)
            let reference = Self.reference(text)
            #expect(reference != nil, "the generator wrote invalid JSON: \(text)")
            #expect(Self.parsed(text) == reference, "\(text)")
        }
    }

    static func document(depth: Int, random: inout SplitMix64) -> String {
        let space = { (random: inout SplitMix64) -> String in ["", " ", "\n", "\t ", "\r\n  "][Int(random.next() % 5)] }
        switch random.next() % (depth > 4 ? 6 : 8) {
        case 0: return "null"
        case 1: return random.next() % 2 == 0 ? "true" : "false"
        case 2: return String(Int64(bitPattern: random.next()) >> Int64(random.next() % 64))
        case 3:
            let mantissa = Double(Int64(bitPattern: random.next()) >> 20) / 1024
            let forms = [String(mantissa), String(format: "%.3e", mantissa), String(format: "%.0f.0", mantissa.rounded())]
            return forms[Int(random.next() % 3)]
        case 4, 5: return string(random: &random)
        case 6:
            let count = Int(random.next() % 4)
            let elements = (0..<count).map { _ in space(&random) + document(depth: depth + 1, random: &random) + space(&random) }
            return "[" + elements.joined(separator: ",") + "]"
        default:
            let count = Int(random.next() % 4)
            let members = (0..<count).map { _ in
                space(&random) + string(random: &random) + space(&random) + ":" + space(&random)
                    + document(depth: depth + 1, random: &random)
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    static func string(random: inout SplitMix64) -> String {
        var text = "\""
        for _ in 0..<Int(random.next() % 8) {
            switch random.next() % 6 {
            case 0: text += ["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"][Int(random.next() % 8)]
            case 1: text += String(format: "\\u%04x", UInt32(random.next() % 0xD000))
            case 2:
                // A surrogate pair, as JSON writes characters beyond the first plane.
                let scalar = 0x10000 + UInt32(random.next() % 0xFFFFF)
                let high = 0xD800 + ((scalar - 0x10000) >> 10), low = 0xDC00 + ((scalar - 0x10000) & 0x3FF)
                text += String(format: "\\u%04X\\u%04x", high, low)
            case 3: text += ["é", "中", "😀", "ß", "\u{2028}"][Int(random.next() % 5)]
            default:
                let scalar = UnicodeScalar(UInt8(0x20 + random.next() % 0x5E))
                text += scalar == "\"" || scalar == "\\" ? "q" : String(scalar)
            }
        }
        return text + "\""
    }

    /// Every JSON and JSONL file the repository ships reads as before.
    @Test("the repository's JSON files read as JSONDecoder reads them")
    func repositoryFiles() throws {
        let root = Repository.root
        var checked = 0
        for folder in ["datasets", "Tests", "examples", "docs"] {
            guard let files = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in files where ["json", "jsonl"].contains(url.pathExtension) {
                let text = try String(contentsOf: url, encoding: .utf8)
                let documents = url.pathExtension == "json" ? [text] : text.split(separator: "\n").map(String.init)
                for document in documents where !document.trimmingCharacters(in: .whitespaces).isEmpty {
                    #expect(Self.parsed(document) == Self.reference(document), "\(url.path)")
                    checked += 1
                }
            }
        }
        #expect(checked > 100, "found \(checked) documents")
    }
}
