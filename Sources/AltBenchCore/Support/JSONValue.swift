import Foundation

/// A JSON value decoded without a schema: for manifests, lenient API bodies and cache keys.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses one JSON document (see ``JSONParser``).
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONParser.parse(data)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case .array(let array) = self, array.indices.contains(index) { return array[index] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// An integer, also from a whole-number double or a numeric string (lenient servers).
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 1e15: return Int(value)
        case .string(let value): return Int(value)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// Compact JSON with keys sorted, integers without a fraction and no escaped slashes:
    /// the same value always gives the same bytes, which is what a cache key needs.
    public var canonicalText: String { String(decoding: canonicalBytes, as: UTF8.self) }

    /// ``canonicalText`` as UTF-8 bytes: what a request body sends, without building a String
    /// of a request's image first.
    public var canonicalBytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .int(let value): out += String(value).utf8
        case .double(let value):
            if value.rounded() == value && abs(value) < 1e15 {
                out += String(Int(value)).utf8
            } else {
                out += "\(value)".utf8
            }
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                object[key]!.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `text` as a JSON string literal, escaped as `canonicalText` escapes strings: quotes,
    /// backslashes and every control character, so untrusted text can neither end the string
    /// nor break the line it is written on.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        writeString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Escapes `"`, `\` and control characters; copies every run of other bytes whole. A
    /// request's image is a data URL of hundreds of kilobytes with nothing to escape.
    private static func writeString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var value = value
        value.makeContiguousUTF8()
        value.utf8.withContiguousStorageIfAvailable { bytes in
            var runStart = 0
            var index = 0
            while index < bytes.count {
                // Eight bytes at a time while none needs escaping (a base64 image never does).
                if index + 8 <= bytes.count,
                    !Self.mayNeedEscape(UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                index += 1
                // Bytes of multi-byte characters are all >= 0x80, so they never match here.
                guard byte == 0x22 || byte == 0x5C || byte < 0x20 else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<(index - 1)]))
                switch byte {
                case 0x22: out += "\\\"".utf8
                case 0x5C: out += "\\\\".utf8
                case 0x0A: out += "\\n".utf8
                case 0x0D: out += "\\r".utf8
                case 0x09: out += "\\t".utf8
                default: out += String(format: "\\u%04x", UInt32(byte)).utf8
                }
                runStart = index
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes in `word` may be `"`, `\` or a control character: the
    /// word-at-a-time tests for a zero byte (after XOR with the character) and for a byte
    /// below 0x20. Never false when one is there; a false alarm only sends the eight bytes
    /// through the byte-by-byte check.
    static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let below20 = (word &- ones &* 0x20) & ~word & highs != 0
        return below20 || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
